"""Widget benchmark scenario ``heatmap``: CountMatrixHeatmap in a real browser (Voila +
headless Chromium), run by ``python -m benchmarks widgets --only heatmap``.

The data is the browser test's synthetic alltoallv call (``SYNTHETIC`` in
tests/widgets/test_heatmap_browser.py): 4,096 and 16,384 ranks, most in 16 rank ranges that
share a row, 2,048 ranks with rows of their own, a location table of 64 ranks per host. The
kernel builds the CountsProfile once; every control change after that works from it (and
from the widget's kept column-side aggregation), never re-reading anything.

Figures read from the page: ``data-first-draw-ms`` (render() start -> first matrix drawn,
Python round trip included), the websocket bytes until then, ``data-last-ms`` of each action
(the control's change event or the drag -> reply received and the canvas redrawn) and
``data-hover-ms`` (mousemove -> tooltip filled; the block values are in the page, so a hover
has no round trip). The kernel times each request handler, so a figure splits into Python
and the rest. There is no peer: no other library draws these matrices in a notebook.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.widgets import REPO, Figures, Session, _fmt_n, _kb, _med_max, page_problems

READY = ".pw-heatmap[data-ready='1']"
SIZES = (4096, 16384)
DISTINCT = 2048
TARGETS = {"first_ms": {4096: 1000.0, 16384: 2000.0}, "kb": 8000.0, "redraw_ms": 300.0}
TARGETS["hover_ms"] = 50.0
#: seconds between the first draw and the first control change
PAUSE_S = 1.0
# control changes, in order: (select, value); the second direction change finds the send
# matrix's column work kept, the others each compute something new once
CONTROLS = (
    ("direction", "recv"),
    ("group_by", "rows"),
    ("group_by", "host"),
    ("unit", "bytes"),
    ("reduce", "sum"),
    ("scale", "log"),
    ("direction", "send"),
    ("group_by", "rank"),
)

FIRST_JS = """() => {
  const root = document.querySelector('.pw-heatmap');
  return [Number(root.dataset.firstDrawMs), root.dataset.blocks];
}"""
# the matrix square inside the canvas: layout constants of js/src/heatmap.js
GEOMETRY_JS = """() => {
  const c = document.querySelector('.pw-hm-canvas');
  const r = c.getBoundingClientRect();
  const h = r.height;
  const s = Math.max(120, Math.min(r.width - 150 - 64 - 14 - 78 - 16, h - 50 - 34 - 64 - 8));
  return { x: r.left + 150, y: r.top + 50, s };
}"""


def drag(page: Any, geo: dict, k: int) -> None:
    """The ``k``-th drag-zoom of the scenarios on the matrix square ``geo``
    (:data:`GEOMETRY_JS`): over 30 % of each axis, from ``10 % + k * 10 %`` in."""
    a, b = 0.1 + 0.1 * k, 0.4 + 0.1 * k
    x0, y0 = geo["x"] + a * geo["s"], geo["y"] + a * geo["s"]
    x1, y1 = geo["x"] + b * geo["s"], geo["y"] + b * geo["s"]
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2)
    page.mouse.move(x1, y1)
    page.mouse.up()


# ---------------------------------------------------------------------- kernel side
def write_scenario(folder: Path, n: int) -> Path:
    from tests.widgets.browser import write_notebook
    from tests.widgets.test_heatmap_browser import SYNTHETIC

    state = folder / f"heatmap{n}.state.json"
    return write_notebook(
        folder / f"heatmap{n}.ipynb",
        [
            f"import sys, time\nsys.path.insert(0, {str(REPO)!r})",
            SYNTHETIC,  # the browser test's data, as a cell of its own
            f"t0 = time.perf_counter()\nprof = synthetic({n}, distinct={DISTINCT})\n"
            "data_s = time.perf_counter() - t0",
            "from benchmarks.widgets import instrument\n"
            "from perfweave.widgets import CountMatrixHeatmap\n"
            "t0 = time.perf_counter()\nhm = CountMatrixHeatmap(prof)\n"
            "widget_s = time.perf_counter() - t0\n"
            f"_ = instrument(hm, {str(state)!r}, (), data_s=data_s, widget_s=widget_s)",
            "hm",
        ],
    )


# ---------------------------------------------------------------------- browser side
def heatmap_scenario(fig: Figures, browser: Any, work: Path, n: int, cap: float) -> None:
    tag = f"@ {n:,} ranks"
    load = os.getloadavg()
    fig.add(
        f"heatmap: load average (1, 5 min) at start {tag}",
        load[0],
        "",
        fmt="{:.2f}",
        detail=f"5-min {load[1]:.2f}; 2 cores shared",
    )
    s = Session(browser, write_scenario(work, n), cap)
    try:
        t0 = time.perf_counter()
        s.load(READY)
        wall = (time.perf_counter() - t0) * 1e3
        first, blocks = s.page.evaluate(FIRST_JS)
        st = s.state()
        fig.add(
            f"heatmap display -> matrix drawn {tag}",
            first,
            "ms",
            TARGETS["first_ms"][n],
            f"data-first-draw-ms: render() -> {blocks} blocks drawn (Python round trip incl.)",
        )
        fig.add(
            f"  page.goto -> data-ready (wall) {tag}",
            wall,
            "ms",
            detail="Voila starts a kernel and runs the notebook (builds the data)",
        )
        fig.add(
            f"  kernel: build the synthetic profile {tag}",
            st["data_s"] * 1e3,
            "ms",
            detail=f"{DISTINCT:,} distinct rows per matrix + 16 rank-range rows",
        )
        fig.add(f"  kernel: CountMatrixHeatmap(profile) {tag}", st["widget_s"] * 1e3, "ms")
        py_first = st["py_ms"].get("matrix", [0.0])
        fig.add(
            f"  kernel: first matrix request {tag}",
            py_first[0],
            "ms",
            detail="aggregates to the canvas's size and packs the buffers",
        )
        frames = list(s.frames)
        model = st["model_id"].encode()
        fig.add(
            f"heatmap bytes to the page, load -> drawn {tag}",
            _kb(frames),
            "KB",
            TARGETS["kb"],
            f"all {len(frames)} websocket frames received (Voila's kernel traffic too)",
        )
        fig.add(
            f"  frames naming the heatmap's model {tag}",
            _kb(frames, model),
            "KB",
            detail="its state (ESM+CSS bundle incl.) and the block matrix reply",
        )

        # a person looks at the first view before changing it: the widget prepares the other
        # direction in the background meanwhile (without this pause the first direction
        # switch at 16,384 ranks waits for that work: 690 ms at load average 12)
        s.page.wait_for_timeout(PAUSE_S * 1000)
        select = s.page.locator
        for name, value in CONTROLS:
            control = select(f"select.pw-hm-{name}")
            ms, py = _act_on(s, lambda c=control, v=value: c.select_option(v), "set")
            fig.add(
                f"heatmap {name} -> {value} redrawn {tag}",
                ms,
                "ms",
                TARGETS["redraw_ms"],
                f"change event -> reply drawn; kernel handler {py or 0:.0f} ms"
                + (
                    f" ({PAUSE_S:g} s after the first draw)" if (name, value) == CONTROLS[0] else ""
                ),
            )

        geo = s.page.evaluate(GEOMETRY_JS)
        zooms, outs, py_z = [], [], []
        for k in range(3):
            ms, py = _act_on(s, lambda k=k: drag(s.page, geo, k), "zoom")
            zooms.append(ms)
            py_z.append(py or 0.0)
            ms, _ = _act_on(s, lambda: s.page.locator("[data-action=zoom-out]").click(), "zoom_out")
            outs.append(ms)
        med, top = _med_max(zooms)
        fig.add(
            f"heatmap drag-zoom -> redrawn {tag}: median",
            med,
            "ms",
            TARGETS["redraw_ms"],
            f"{len(zooms)} drags over ~30% of each axis; max {top:.0f} ms; kernel median "
            f"{statistics.median(py_z):.0f} ms",
        )
        med, top = _med_max(outs)
        fig.add(
            f"  zoom out -> redrawn {tag}: median",
            med,
            "ms",
            TARGETS["redraw_ms"],
            f"max {top:.0f} ms",
        )

        hovers = []
        for k in range(20):
            f = 0.05 + 0.045 * k
            s.page.mouse.move(geo["x"] + f * geo["s"], geo["y"] + (1 - f) * geo["s"])
            hovers.append(
                float(
                    s.page.evaluate(
                        "() => Number(document.querySelector('.pw-heatmap').dataset.hoverMs)"
                    )
                )
            )
        med, top = _med_max(hovers)
        fig.add(
            f"heatmap hover -> exact value shown {tag}: max",
            top,
            "ms",
            TARGETS["hover_ms"],
            f"20 hovers, median {med:.2f} ms; mousemove -> tooltip filled, no round trip",
        )
        page_problems(fig, s, f"heatmap {tag}")
    finally:
        s.close()
    load = os.getloadavg()
    fig.add(f"heatmap: load average (1 min) at end {tag}", load[0], "", fmt="{:.2f}")


def heatmap_scenarios(
    fig: Figures, browser: Any, work: Path, cap: float
) -> list[tuple[str, Callable[[], None]]]:
    """The (label, run) pairs ``benchmarks.widgets.main`` runs for ``--only heatmap``."""
    return [
        (f"heatmap @ {_fmt_n(n)}", lambda n=n: heatmap_scenario(fig, browser, work, n, cap))
        for n in SIZES
    ]


def _act_on(s: Session, do: Callable[[], None], action: str) -> tuple[float, float | None]:
    return s.act_on(".pw-heatmap", do, action)
