"""Widget benchmark scenario ``flame``: FlameGraph in a real browser (Voila + headless
Chromium), run by ``python -m benchmarks widgets --only flame [--sizes 100000,1000000]``.

The data is :func:`benchmarks.flame.tree`: a random calltree of n nodes (each node's parent
drawn among the nodes just before it, so it is deep: about 20,000 levels at a million nodes)
with an exclusive time per node, built in the kernel. Figures read from the page's own
clock: ``data-first-draw-ms`` (render() start -> first frames drawn, the Python round trip
included), ``data-refined-ms`` (render() -> the page holds the frames eight times finer
than its canvas), and for a click on a frame ``data-complete-ms`` (-> the zoom drawn with
every frame at least a pixel wide and the runs of narrower ones gathered: at once from the
frames the page holds where they reach a pixel of the new view, else when Python's reply
has brought the rest) and ``data-last-ms`` (-> Python's reply handled). Zooms into frames
of the second row and back out by the breadcrumb's ``all`` (both zooms), then zooms into
frames 1/200 to 1/10 of the width (deeper than the frames held: Python's reply completes
them), each five times with median and range, then five searches. The kernel times the
widget's construction and each request handler. Targets (issue 32): first draw 0.3 s, a
zoom 50 ms, a search 100 ms. No peer draws a flame graph of a profile in a notebook widget.
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
REFINED_JS = "() => Number(document.querySelector('.pw-flame').dataset.refinedMs || NaN)"
#: before a zoom: forget the last one's stamps
CLEAR_JS = """() => { const d = document.querySelector('.pw-flame').dataset;
  for (const k of ['previewAction', 'previewMs', 'completeAction', 'completeMs', 'completeLocal'])
    delete d[k]; }"""
#: after a zoom: (preview ms, complete ms, whether it was complete before Python's reply)
ZOOMED_JS = """() => { const d = document.querySelector('.pw-flame').dataset;
  return [Number(d.previewMs ?? NaN), Number(d.completeMs ?? NaN), d.completeLocal === '1']; }"""


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
            "from benchmarks.widgets_flame import deep_targets\n"
            f"_ = instrument(fg, {str(state)!r}, (), data_s=data_s, widget_s=widget_s, "
            "targets=deep_targets(fg.layout))",
            "fg",
        ],
    )


def deep_targets(layout: Any, count: int = REPEAT) -> list[list[float]]:
    """``[node, depth, x0, x1]`` of up to ``count`` frames 1/200 to 1/10 of the width, none
    inside another's subtree (a zoom into one is deeper than the frames the page holds of
    any other), the shallowest first."""
    import numpy as np

    w, depth = layout.widths, np.asarray(layout.graph.depth)
    size = layout.sums.size
    picked: list[int] = []
    for t in sorted(np.flatnonzero((w >= 1 / 200) & (w < 1 / 10)), key=lambda t: depth[t]):
        if all(not (p <= t < p + size[p] or t <= p < t + size[t]) for p in picked):
            picked.append(int(t))
        if len(picked) == count:
            break
    return [[t, int(depth[t]), float(layout.x0[t]), float(layout.x1[t])] for t in picked]


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
            detail="the view's frames at least a pixel wide with their sums, packed",
        )
        fig.add(
            f"  page.goto -> data-ready (wall) {tag}", wall, "ms", detail="Voila runs the notebook"
        )
        s.page.wait_for_function(
            "() => document.querySelector('.pw-flame').dataset.refined", timeout=cap * 1000
        )
        fig.add(
            f"  display -> frames 8x finer than the canvas held {tag}",
            float(s.page.evaluate(REFINED_JS)),
            "ms",
            detail="data-refined-ms: the refinement Python sends after the first draw",
        )
        canvas = s.page.locator("canvas.pw-fl-canvas")
        box = canvas.bounding_box()
        row = float(canvas.get_attribute("data-row"))
        crumb = s.page.locator(".pw-fl-crumbs .pw-btn", has_text="all")
        zooms: dict[str, list[tuple[float, float, float, bool, float]]] = {}
        for k in range(REPEAT):
            # a frame on the second row, then back out by the breadcrumb: both are zooms
            x = box["x"] + box["width"] * (0.3 + 0.1 * k)
            zooms.setdefault("in", []).append(
                _zoom(s, lambda x=x: s.page.mouse.click(x, box["y"] + row * 1.5))
            )
            zooms.setdefault("out", []).append(_zoom(s, crumb.click))
        plot = s.page.locator(".pw-fl-plot")
        for node, depth, x0, x1 in st["targets"][:REPEAT]:
            # a frame 1/200 to 1/10 of the width, scrolled to: its frames are not all held
            top = plot.evaluate(
                f"p => {{ p.scrollTop = {max(0, depth * row - 100)}; return p.scrollTop; }}"
            )
            s.page.wait_for_function(
                f"() => document.querySelector('.pw-flame').dataset.rowsDrawn"
                f".startsWith('{int(top // row)}-')",
                timeout=cap * 1000,
            )
            y = box["y"] + depth * row - top + row / 2
            x = box["x"] + box["width"] * (x0 + x1) / 2
            zooms.setdefault("deep", []).append(_zoom(s, lambda x=x, y=y: s.page.mouse.click(x, y)))
            landed = s.page.evaluate("() => document.querySelector('.pw-flame').dataset.zoom")
            if landed != str(node):
                fig.notes.append(f"flame {tag}: a click meant for node {node} zoomed on {landed}")
            zooms.setdefault("deep out", []).append(_zoom(s, crumb.click))
        said = {
            "in": "a frame of the second row",
            "out": "the breadcrumb's all",
            "deep": "a frame 1/200-1/10 of the width",
            "deep out": "all, after those",
        }
        for kind, runs in zooms.items():
            complete = [r[1] for r in runs]
            local = sum(r[3] for r in runs)
            fig.add(
                f"flame click -> zoom drawn complete: {said[kind]} {tag}",
                statistics.median(complete),
                "ms",
                TARGETS["zoom_ms"],
                f"{_spread(complete)}; {local} of {len(runs)} complete before Python's reply",
            )
            last = [r[2] for r in runs]
            fig.add(
                f"  click -> Python's reply handled {tag}",
                statistics.median(last),
                "ms",
                detail=f"{_spread(last)}; kernel handler median "
                f"{statistics.median(r[4] for r in runs):.0f} ms",
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
        load = os.getloadavg()
        fig.add(
            f"flame: load average (1, 5 min) at the end {tag}",
            load[0],
            "",
            fmt="{:.2f}",
            detail=f"5-min {load[1]:.2f}",
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


def _zoom(s: Session, do: Callable[[], None]) -> tuple[float, float, float, bool, float]:
    """(preview ms, complete ms, reply ms, complete before the reply, kernel handler ms) of
    the zoom ``do`` makes."""
    s.page.evaluate(CLEAR_JS)
    last, py = _act_on(s, do, "zoom")
    preview, complete, early = s.page.evaluate(ZOOMED_JS)
    return float(preview), float(complete), last, bool(early), py or 0.0
