"""Widget benchmark scenario ``flame_lab``: FlameGraph in JupyterLab, timed the way issue 32
measures its first draw, run by ``python -m benchmarks widgets --only flame_lab``.

One JupyterLab server, one notebook, Debian's headless Chromium driven by Playwright
(``benchmarks/_lab.py``). Cell 1 builds two calltrees of ``benchmarks.flame``: the random
deep one (:func:`benchmarks.flame.tree`, as the ``flame`` scenario does: about 20,000 levels
at a million nodes, exclusive times only, so the inclusive values are summed level by level)
and one as readers give it (:func:`benchmarks.flame.readers_tree`: 100 levels, its inclusive
column present); cells 2 and 3 are ``FlameGraph`` of each (the two shapes). Each run clears the
outputs, closes the earlier runs' widgets in the kernel, then runs cell 2 as Shift+Enter
does and reads the page's clock from just before the run until the flame graph's first
frames are drawn on its canvas (``data-ready``, set right after the canvas is drawn) and
until the frame after that is painted.

Every kernel message is stamped with the page's clock as it passes Lab's kernel connection,
so the figure splits into: the execute request reaching the kernel, the kernel's work up to
the widget's comm open (the constructor), its display, the page's widget manager until
``render()``, and render() to the frames drawn (the first ``frames`` request's round trip,
when the frames did not come with the widget's state). The kernel writes how long the cell
took and each request handler. Medians and ranges of ``--runs`` runs, with the load average
at the start and the end. Target (issue 32): first draw 0.3 s after the cell runs.
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
from benchmarks.widgets import REPO, VIEWPORT, Figures, _fmt_n

TARGET_MS = 300.0
#: the notebook's cells (see :func:`_kernel_cells`)
CLOSE_CELL = 3
#: the data shapes timed: (tag, the cell drawing its flame graph, what it is)
SHAPES = (
    ("deep", 1, "random tree, ~20,000 levels, exclusive only"),
    ("readers", 2, "100 levels, inclusive column present"),
)

# Marks, in the page's clock, when a flame graph has drawn its first frames (data-ready) and
# when the frame after that was painted.
PROBE_JS = ready_probe(
    "__pwFlameMarks",
    "pw-flame",
    "{ first: Number(el.dataset.firstDrawMs), shown: Number(el.dataset.shown),"
    " state: el.dataset.firstFromState === '1' }",
)
MARK_JS = ready_mark("__pwFlameMarks")


def _kernel_cells(state: Path, n: int) -> list[str]:
    """The notebook: data and hooks, the flame graph, closing the earlier widgets."""
    return [
        "import sys, gc, json, os, time\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from benchmarks.flame import readers_tree, tree\n"
        "from perfweave.widgets import FlameGraph\n"
        f"gf = tree({n})\n"
        f"gf_readers = readers_tree({n})\n" + kernel_hooks("FlameGraph", state, "()"),
        "FlameGraph(gf)",
        "FlameGraph(gf_readers)",
        CLOSE_WIDGETS,
    ]


class LabFlame(LabSession):
    """The scenario's notebook open in JupyterLab, and the figures read from its page."""

    def __init__(self, browser: Any, work: Path, n: int, cap: float) -> None:
        cells = lambda state: _kernel_cells(state, n)  # noqa: E731
        super().__init__(browser, work, "flame_lab", cells, PROBE_JS, VIEWPORT, cap)

    def first_draw(self, cell: int) -> dict[str, float]:
        """Run the flame graph's cell once (the earlier widgets closed, the outputs
        cleared); the page's times from the run to the first frames drawn, split by the
        kernel messages on the way."""
        t0, mark, log = self.run_first(cell, CLOSE_CELL, ".pw-flame", MARK_JS)
        got = first_draw_parts(log, t0, mark, None if mark.get("state") else "frames")
        got["shown"] = mark["shown"]
        return self.with_kernel_times(got, "frames")


PARTS = (
    ("to_kernel", "run -> kernel starts the cell (execute_input)"),
    ("kernel_to_open", "kernel: cell start -> the flame graph's comm open"),
    ("open_to_display", "kernel: comm open -> its display (execute_result)"),
    ("kernel_cell", "kernel: whole cell, timed in the kernel"),
    ("display_to_render", "page: display -> render() starts"),
    ("render_to_drawn", "page: render() -> frames drawn (frames in the state)"),
    ("render_to_request", "page: render() -> first frames request sent"),
    ("round_trip", "first frames request -> reply in the page"),
    ("kernel_frames", "  of which the kernel's frames handler"),
    ("reply_to_drawn", "page: reply -> frames drawn"),
    ("drawn_to_painted", "page: frames drawn -> next frame painted"),
)


def flame_lab_scenario(
    fig: Figures, browser: Any, work: Path, n: int, runs: int, cap: float
) -> list[dict[str, Any]]:
    """The issue's first draw of a FlameGraph, in JupyterLab (see the module text)."""
    load_before = load_average()
    s = LabFlame(browser, work, n, cap)
    out: list[dict[str, float]] = []
    try:
        for shape, cell, what in SHAPES:
            tag = f"@ {_fmt_n(n)}, {shape} ({what}; Lab)"
            warm = s.first_draw(cell)  # the kernel's first flame graph: imports, first calls
            first = [s.first_draw(cell) for _ in range(runs)]
            drawn = [r["drawn"] for r in first]
            painted = [r["painted"] for r in first]
            fig.add(
                f"flame: cell run -> first frames drawn {tag}",
                statistics.median(drawn),
                "ms",
                TARGET_MS,
                f"{len(first)} runs, {spread(drawn)} ms; painted median "
                f"{statistics.median(painted):,.0f} ms ({spread(painted)}); "
                f"{first[-1]['shown']:,.0f} frames; the kernel's first flame graph "
                f"{warm['drawn']:,.0f} ms (not counted)",
            )
            add_parts(fig, first, list(PARTS), tag, "  ")
            print(
                f"flame_lab {shape}: drawn median {statistics.median(drawn):,.0f} ms "
                f"({spread(drawn)}), painted median {statistics.median(painted):,.0f} ms "
                f"({spread(painted)}), load now {load_average()}",
                flush=True,
            )
            print_runs(f"flame_lab {shape}", first)
            out += [{**r, "shape": shape} for r in first]  # type: ignore[dict-item]
        fig.notes += s.problems("flame_lab")
    finally:
        s.close()
    tag = f"@ {_fmt_n(n)} (Lab)"
    fig.table.add_row(
        f"load average {tag}", "", "", "", f"before: {load_before}; after: {load_average()}"
    )
    print(f"flame_lab load average: before {load_before}; after {load_average()}", flush=True)
    return out


def flame_lab_scenarios(
    fig: Figures, browser: Any, work: Path, n: int, runs: int, cap: float
) -> list[tuple[str, Callable[[], None]]]:
    """The scenario for ``benchmarks.widgets.main``."""
    return [
        (
            f"flame_lab @ {_fmt_n(n)}",
            lambda: flame_lab_scenario(fig, browser, work, n, runs, cap),
        )
    ]
