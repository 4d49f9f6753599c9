"""Widget benchmark scenario ``flame``: FlameGraph in a real browser (Voila + headless
Chromium), run by ``python -m benchmarks widgets --only flame [--sizes 100000,1000000]``.

The data is :func:`benchmarks.flame.tree`: a random calltree of n nodes (depth a few dozen)
with an exclusive time per node, built in the kernel. Figures read from the page:
``data-first-draw-ms`` (render() start -> first frames drawn, Python round trip included),
and ``data-last-ms`` of a click on a frame (select + zoom: reply received and the canvas
redrawn) and of a search (Enter -> matches drawn), each five times with median and range.
The kernel times the widget's construction (the layout of every node) and each request
handler. Targets (issue 32): first draw 0.3 s, a zoom 50 ms, a search 100 ms. No peer draws
a flame graph of a profile in a notebook widget.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.widgets import REPO, Figures, Session, _fmt_n

READY = ".pw-flame[data-ready='1']"
TARGETS = {"first_ms": 300.0, "zoom_ms": 50.0, "search_ms": 100.0}
REPEAT = 5
PATTERNS = ("^f12", "^f3", "f49", "^f7", "^f250")

PREVIEW_JS = "() => Number(document.querySelector('.pw-flame').dataset.previewMs || NaN)"
FIRST_JS = """() => {
  const root = document.querySelector('.pw-flame');
  return [Number(root.dataset.firstDrawMs), Number(root.dataset.shown), Number(root.dataset.drawMs)];
}"""


def write_scenario(folder: Path, n: int) -> Path:
    from tests.widgets.browser import write_notebook

    state = folder / f"flame{n}.state.json"
    return write_notebook(
        folder / f"flame{n}.ipynb",
        [
            f"import sys, time\nsys.path.insert(0, {str(REPO)!r})\n"
            "from benchmarks.flame import tree\nfrom benchmarks.widgets import instrument\n"
            f"t0 = time.perf_counter()\ngf = tree({n})\ndata_s = time.perf_counter() - t0",
            "import perfweave as pw\nt0 = time.perf_counter()\nfg = pw.FlameGraph(gf)\n"
            "widget_s = time.perf_counter() - t0\n"
            f"_ = instrument(fg, {str(state)!r}, (), data_s=data_s, widget_s=widget_s)",
            "fg",
        ],
    )


def _spread(values: list[float]) -> str:
    return f"median of {len(values)}, range {min(values):.0f}-{max(values):.0f} ms"


def flame_scenario(fig: Figures, browser: Any, work: Path, n: int, cap: float) -> None:
    tag = f"@ {_fmt_n(n)} nodes"
    load = os.getloadavg()
    fig.add(
        f"flame: load average (1, 5 min) at start {tag}",
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
        first, shown, draw_ms = s.page.evaluate(FIRST_JS)
        st = s.state()
        fig.add(
            f"flame display -> frames drawn {tag}",
            first,
            "ms",
            TARGETS["first_ms"],
            f"data-first-draw-ms: render() -> {shown:,.0f} frames drawn (canvas {draw_ms:.0f} ms)",
        )
        fig.add(
            f"  kernel: FlameGraph(gf), the layout of every node {tag}", st["widget_s"] * 1e3, "ms"
        )
        fig.add(
            f"  kernel: first frames request {tag}",
            st["py_ms"].get("frames", [0.0])[0],
            "ms",
            detail="frames at least a pixel wide, narrow runs gathered, packed",
        )
        fig.add(
            f"  page.goto -> data-ready (wall) {tag}", wall, "ms", detail="Voila runs the notebook"
        )
        canvas = s.page.locator("canvas.pw-fl-canvas")
        box = canvas.bounding_box()
        row = float(canvas.get_attribute("data-row"))
        zooms, py_z, previews = [], [], []
        for k in range(REPEAT):
            # a frame on the second row, then back out by the breadcrumb: both are zooms
            x = box["x"] + box["width"] * (0.3 + 0.1 * k)
            ms, py = _act_on(s, lambda x=x: s.page.mouse.click(x, box["y"] + row * 1.5), "zoom")
            previews.append(float(s.page.evaluate(PREVIEW_JS)))
            zooms.append(ms)
            py_z.append(py or 0.0)
            ms, py = _act_on(
                s, lambda: s.page.locator(".pw-fl-crumbs .pw-btn", has_text="all").click(), "zoom"
            )
            zooms.append(ms)
            py_z.append(py or 0.0)
        fig.add(
            f"flame click -> zoom drawn from the frames at hand {tag}",
            statistics.median(previews),
            "ms",
            TARGETS["zoom_ms"],
            f"{_spread(previews)}; then Python's reply completes it (next line)",
        )
        fig.add(
            f"flame click -> zoomed and drawn complete {tag}",
            statistics.median(zooms),
            "ms",
            TARGETS["zoom_ms"],
            f"{_spread(zooms)}; kernel handler median {statistics.median(py_z):.0f} ms",
        )
        searches, py_s, highlights = [], [], []
        box_search = s.page.locator(".pw-fl-search")
        for pattern in PATTERNS[:REPEAT]:
            box_search.fill(pattern)
            ms, py = _act_on(s, lambda: box_search.press("Enter"), "search")
            highlights.append(float(s.page.evaluate(PREVIEW_JS)))
            searches.append(ms)
            py_s.append(py or 0.0)
        fig.add(
            f"flame search -> matches highlighted in the page {tag}",
            statistics.median(highlights),
            "ms",
            TARGETS["search_ms"],
            f"{_spread(highlights)}; then Python's reply adds the share (next line)",
        )
        fig.add(
            f"flame search -> Python's matches and share drawn {tag}",
            statistics.median(searches),
            "ms",
            TARGETS["search_ms"],
            f"{_spread(searches)}; kernel handler median {statistics.median(py_s):.0f} ms",
        )
        problems = s.problems()
        if problems:
            fig.notes.append(f"flame {tag}: {problems}")
    finally:
        s.close()


def flame_scenarios(fig: Figures, browser: Any, work: Path, sizes: list[int], cap: float):
    """(label, run) of each size, for ``benchmarks.widgets``."""
    return [
        (f"flame @ {_fmt_n(n)}", lambda n=n: flame_scenario(fig, browser, work, n, cap))
        for n in sizes
    ]


def _act_on(s: Session, do: Callable[[], None], action: str) -> tuple[float, float | None]:
    return s.act_on(".pw-flame", do, action)
