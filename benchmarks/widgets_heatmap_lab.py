"""Widget benchmark scenario ``heatmap_lab``: CountMatrixHeatmap in JupyterLab, timed the way
issue 34 measures it, run by ``python -m benchmarks widgets --only heatmap_lab``.

One JupyterLab server, one notebook, Debian's headless Chromium driven by Playwright
(``benchmarks/_lab.py``). Cell 1 builds the browser test's synthetic alltoallv profiles
(``SYNTHETIC`` in tests/widgets/test_heatmap_browser.py): 4,096 ranks with every rank's row
of its own (all rows distinct), and 16,384 ranks (2,048 rows of their own, the others in
16 rank ranges that share a row). Cells 2 and 3 are ``CountMatrixHeatmap`` of each. Each run
clears the outputs, closes the earlier heatmaps in the kernel, then runs the heatmap's cell
as Shift+Enter does and reads the page's clock from just before the run until the matrix
is drawn on its canvas (``data-ready``) and until the frame after that is painted.

Then, on the last heatmap of each size: three drag-zooms over about 30 % of each axis (each
zoomed out again), and at 4,096 ranks the send <-> recv switch three times each way, every
one from the page's event to the reply drawn (``data-last-ms``) with the kernel's handler.
Medians and ranges of ``--runs`` runs, with the load average at the start and the end.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks._lab import (
    CLOSE_WIDGETS,
    LabSession,
    add_parts,
    first_draw_parts,
    kernel_hooks,
    load_average,
    print_runs,
    ready_mark,
    ready_probe,
    spread,
)
from benchmarks.widgets import REPO, VIEWPORT, Figures, _fmt_n, act_on
from benchmarks.widgets_heatmap import GEOMETRY_JS, drag

#: issue 34's targets (ms): drawn after the cell runs, a drag-zoom redrawn, send <-> recv
TARGETS = {
    4096: {"first": 300.0, "zoom": 100.0, "direction": 300.0},
    16384: {"first": 1000.0, "zoom": 100.0},
}
#: (ranks, rows of their own, the notebook cell showing its heatmap)
SIZES = ((4096, 4096, 1), (16384, 2048, 2))
CLOSE_CELL = 3
ROOT = ".pw-heatmap"

# Marks, in the page's clock, when a heatmap has drawn its first matrix (data-ready) and when
# the frame after that was painted.
PROBE_JS = ready_probe("__pwHeatMarks", "pw-heatmap", "{ first: Number(el.dataset.firstDrawMs) }")
MARK_JS = ready_mark("__pwHeatMarks")


def _kernel_cells(state: Path) -> list[str]:
    """The notebook: data and hooks, one heatmap per size, closing the earlier widgets."""
    from tests.widgets.test_heatmap_browser import SYNTHETIC

    data = "\n".join(f"prof{n} = synthetic({n}, distinct={d})" for n, d, _ in SIZES)
    return [
        "import sys, gc, json, os, time\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        f"{SYNTHETIC}\n"
        f"{data}\n"
        "from perfweave.widgets import CountMatrixHeatmap\n"
        + kernel_hooks("CountMatrixHeatmap", state, "()"),
        *(f"CountMatrixHeatmap(prof{n})" for n, _, _ in SIZES),
        CLOSE_WIDGETS,
    ]


class LabHeatmap(LabSession):
    """The scenario's notebook open in JupyterLab, and the figures read from its page."""

    def __init__(self, browser: Any, work: Path, cap: float) -> None:
        super().__init__(browser, work, "heatmap_lab", _kernel_cells, PROBE_JS, VIEWPORT, cap)

    def first_draw(self, cell: int) -> dict[str, float]:
        """Run a heatmap's cell once (the earlier widgets closed, the outputs cleared); the
        page's times from the run to the matrix drawn, split by the kernel messages."""
        t0, mark, log = self.run_first(cell, CLOSE_CELL, ROOT, MARK_JS)
        got = first_draw_parts(log, t0, mark, "matrix")
        return self.with_kernel_times(got, "matrix")

    def act(self, do: Callable[[], None], action: str) -> tuple[float, float]:
        """An action on the heatmap shown: the page's event -> reply drawn, and the kernel's
        handler (0 when it did not run one)."""
        ms, py = act_on(self, ROOT, do, action)
        return ms, py or 0.0

    def drag_zooms(self, times: int) -> tuple[list[float], list[float], list[float]]:
        """``times`` drag-zooms over 30 % of each axis (:func:`widgets_heatmap.drag`), each
        zoomed out again: the zooms' ms, their kernel handlers' ms and the zoom-outs' ms."""
        # Lab scrolls its notebook panel: the canvas must be in view for the drags to land
        self.page.locator(f"{ROOT} .pw-hm-canvas").scroll_into_view_if_needed()
        geo = self.page.evaluate(GEOMETRY_JS)
        zooms, kernel, outs = [], [], []
        for k in range(times):
            ms, py = self.act(lambda k=k: drag(self.page, geo, k % 5), "zoom")
            zooms.append(ms)
            kernel.append(py)
            out = self.page.locator(f"{ROOT} [data-action=zoom-out]")
            outs.append(self.act(lambda: out.click(), "zoom_out")[0])
        return zooms, kernel, outs

    def directions(self, times: int) -> tuple[list[float], list[float]]:
        """The send <-> recv switch ``times`` times each way: ms and kernel handlers' ms."""
        control = self.page.locator(f"{ROOT} select.pw-hm-direction")
        ms, kernel = [], []
        for _ in range(times):
            for value in ("recv", "send"):
                took, py = self.act(lambda v=value: control.select_option(v), "set")
                ms.append(took)
                kernel.append(py)
        return ms, kernel


PARTS = (
    ("to_kernel", "run -> kernel starts the cell (execute_input)"),
    ("kernel_to_open", "kernel: cell start -> the heatmap's comm open"),
    ("open_to_display", "kernel: comm open -> its display (execute_result)"),
    ("kernel_cell", "kernel: whole cell, timed in the kernel"),
    ("display_to_render", "page: display -> render() starts"),
    ("render_to_drawn", "page: render() -> matrix drawn"),
    ("render_to_request", "page: render() -> first matrix request sent"),
    ("round_trip", "first matrix request -> reply in the page"),
    ("kernel_matrix", "  of which the kernel's matrix handler"),
    ("reply_to_drawn", "page: reply -> matrix drawn"),
    ("drawn_to_painted", "page: matrix drawn -> next frame painted"),
)


def heatmap_lab_scenario(fig: Figures, browser: Any, work: Path, runs: int, cap: float) -> None:
    """The issue's heatmap figures, in JupyterLab (see the module text)."""
    load_before = load_average()
    s = LabHeatmap(browser, work, cap)
    try:
        for n, distinct, cell in SIZES:
            own = "all rows distinct" if distinct == n else f"{distinct:,} rows of their own"
            tag = f"@ {n:,} ranks, {own} (Lab)"
            target = TARGETS[n]
            warm = s.first_draw(cell)  # the kernel's first heatmap: imports, first calls
            first = [s.first_draw(cell) for _ in range(runs)]
            drawn = [r["drawn"] for r in first]
            painted = [r["painted"] for r in first]
            fig.add(
                f"heatmap: cell run -> matrix drawn {tag}",
                statistics.median(drawn),
                "ms",
                target["first"],
                f"{len(first)} runs, {spread(drawn)} ms; painted median "
                f"{statistics.median(painted):,.0f} ms ({spread(painted)}); the kernel's "
                f"first heatmap {warm['drawn']:,.0f} ms (not counted)",
            )
            add_parts(fig, first, list(PARTS), tag, "  ")
            s.page.wait_for_timeout(1000)  # a person looks before acting (see widgets_heatmap)
            zooms, kernel, outs = s.drag_zooms(max(3, runs))
            fig.add(
                f"heatmap: drag-zoom -> redrawn {tag}",
                statistics.median(zooms),
                "ms",
                target["zoom"],
                f"{len(zooms)} drags, {spread(zooms)} ms; kernel handler median "
                f"{statistics.median(kernel):,.1f} ms",
            )
            fig.add(
                f"  zoom out -> redrawn {tag}",
                statistics.median(outs),
                "ms",
                detail=f"{len(outs)} runs, {spread(outs)} ms",
            )
            if "direction" in target:
                ms, kernel = s.directions(max(3, runs))
                fig.add(
                    f"heatmap: send <-> recv -> redrawn {tag}",
                    statistics.median(ms),
                    "ms",
                    target["direction"],
                    f"{len(ms)} switches, {spread(ms)} ms; kernel handler median "
                    f"{statistics.median(kernel):,.1f} ms",
                )
            print(
                f"heatmap_lab {n}: drawn median {statistics.median(drawn):,.0f} ms "
                f"({spread(drawn)}), zoom median {statistics.median(zooms):,.0f} ms, "
                f"load now {load_average()}",
                flush=True,
            )
            print_runs(f"heatmap_lab {n}", first)
        fig.notes += s.problems("heatmap_lab")
    finally:
        s.close()
    fig.table.add_row(
        "load average (heatmap, Lab)", "", "", "", f"before: {load_before}; after: {load_average()}"
    )


def heatmap_lab_scenarios(
    fig: Figures, browser: Any, work: Path, runs: int, cap: float
) -> list[tuple[str, Callable[[], None]]]:
    """The scenario for ``benchmarks.widgets.main``."""
    sizes = ", ".join(_fmt_n(n) for n, _, _ in SIZES)
    return [
        (
            f"heatmap_lab @ {sizes} ranks",
            lambda: heatmap_lab_scenario(fig, browser, work, runs, cap),
        )
    ]
