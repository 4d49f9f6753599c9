"""FlameGraph in a real browser (Voila + headless Chromium): drawing, hover, click-zoom, the
breadcrumb, search and a comparison of two RAJAPerf ensembles. The kernel writes the
widget's Python state to a JSON file on every change, so the test checks that the page and
Python agree; screenshots go to tests/artifacts/."""

from __future__ import annotations

import inspect
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from perfweave.calltree.flame import flame_layout
from tests.widgets.browser import (
    AFTER_MESSAGE,
    PageWatch,
    Server,
    canvas_is_blank,
    eventually,
    open_in_voila,
    save_screenshot,
    wait_state,
    write_notebook,
)

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[1] / "data"
READY = ".pw-flame[data-ready='1']"

STATE_HOOK = (
    AFTER_MESSAGE
    + """
import json

def watch(fg, path):
    def write():
        f = fg.frames
        state = {
            "zoom": fg.zoom_node, "selected": fg.selected_node, "search": fg.search_pattern,
            "error": fg.error, "version": fg.view_version, "metric": fg.metric,
            "frames": [[int(n), str(a), int(d), float(x0), float(x1)] for n, a, d, x0, x1
                       in zip(f["node"], f["name"], f["depth"], f["x0"], f["x1"])],
            "match": [int(n) for n in f["node"][f["match"]]],
            "search_text": (fg._search_meta()["text"]),
        }
        with open(path, "w") as out:
            json.dump(state, out)
    dump = after_message(write)
    fg.observe(dump, names=["zoom_node", "selected_node", "search_pattern", "error", "view_version"])
    write()
    return fg
"""
)


def wide_and_deep_tree(seed: int = 5):
    """A calltree of about 25,000 nodes: seven levels of two to seven children each, with
    heavy-tailed times (frames of every width, many narrower than a pixel between wide
    siblings), and a chain of 2,500 calls under the root's first child, so the graph is
    2,500 rows deep (a canvas that tall is past what a browser draws). Self-contained: the
    notebook runs its source."""
    import numpy as np
    import pandas as pd

    from perfweave.calltree._build import build_graphframe

    rng = np.random.default_rng(seed)
    parent = [-1, 0]
    level = [0, 1]
    for depth in range(1, 8):
        for p in [i for i, d in enumerate(level) if d == depth][:4000]:
            for _ in range(int(rng.integers(2, 8))):
                parent.append(p)
                level.append(depth + 1)
    chain = len(parent)
    for k in range(2500):
        parent.append(1 if k == 0 else chain + k - 1)
    n = len(parent)
    names = [f"f{i % 211}" for i in range(chain)] + [f"chain{k}" for k in range(n - chain)]
    time = rng.exponential(1.0, n) ** 3
    time[chain:] = 0.0
    time[-1] = time[:chain].sum() / 2  # the chain's end holds a third of the time
    return build_graphframe(
        pd.DataFrame({"name": names}),
        pd.DataFrame({"node": np.arange(n), "time": time}),
        parent=np.asarray(parent),
        exc_metrics=["time"],
        inc_metrics=[],
        default_metric="time",
    )


def _frame_point(widget: Locator, frame: list, state: dict) -> tuple[float, float]:
    """Page coordinates of the middle of a frame ``[node, name, depth, x0, x1]``."""
    canvas = widget.locator("canvas.pw-fl-canvas")
    box = canvas.bounding_box()
    assert box is not None
    row = float(canvas.get_attribute("data-row"))
    _, _, depth, x0, x1 = frame
    return box["x"] + box["width"] * (x0 + x1) / 2, box["y"] + row * (depth + 0.5)


def _named(state: dict, name: str) -> list:
    return next(f for f in state["frames"] if f[1] == name)


def test_draw_hover_zoom_breadcrumb_and_search(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    nb = tmp_path / "flame.ipynb"
    write_notebook(
        nb,
        [
            "import perfweave as pw",
            STATE_HOOK,
            f"gf = pw.read({str(DATA / 'hatchet/caliper-lulesh-json/lulesh-annotation-profile.json')!r})",
            f"fg = watch(pw.FlameGraph(gf), {str(nb.with_suffix('.state.json'))!r})\nfg",
        ],
    )
    server = voila_server(nb)
    page.set_viewport_size({"width": 1200, "height": 900})
    widget = open_in_voila(page, server.url(), READY)
    state = wait_state(nb, lambda s: len(s["frames"]) > 0)
    # the first frames came with the widget's state: drawn without asking Python
    assert widget.get_attribute("data-first-from-state") == "1"
    canvas = widget.locator("canvas.pw-fl-canvas")
    assert not canvas_is_blank(canvas)
    assert "time (inc)" in widget.locator(".pw-fl-title").inner_text()
    assert "mean over 8 ranks" in widget.locator(".pw-fl-title").inner_text()
    save_screenshot(widget, "flame_voila_lulesh")

    # the chart downloads as SVG (a rectangle and the name of each frame drawn) and PNG
    with page.expect_download() as got:
        widget.locator("[data-action='download-svg']").click()
    svg = ET.parse(got.value.path()).getroot()
    drawn = [
        f for f in state["frames"] if (f[4] - f[3]) * float(canvas.bounding_box()["width"]) >= 0.5
    ]
    assert got.value.suggested_filename == "flame_time_inc.svg"
    assert len(svg.findall(".//{http://www.w3.org/2000/svg}rect")) == len(drawn)
    tips = [
        t.text
        for t in svg.findall(".//{http://www.w3.org/2000/svg}g/{http://www.w3.org/2000/svg}title")
    ]
    assert sorted(tips) == sorted(f[1] for f in drawn)
    with page.expect_download() as got:
        widget.locator("[data-action='download-png']").click()
    assert Path(got.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # hover: the name, the inclusive value in the column's format and its share
    leap = _named(state, "LagrangeLeapFrog")
    page.mouse.move(*_frame_point(widget, leap, state))
    tip = widget.locator(".pw-fl-tooltip")
    tip.wait_for(state="visible")
    assert tip.get_attribute("data-node") == str(leap[0])
    text = tip.inner_text()
    assert text.startswith("LagrangeLeapFrog")
    assert "inclusive:" in text and "% of the total" in text and "exclusive:" in text
    save_screenshot(page, "flame_voila_hover")

    # click: selects and zooms; Python holds the same
    elements = _named(state, "LagrangeElements")
    page.mouse.click(*_frame_point(widget, elements, state))
    state = wait_state(nb, lambda s: s["zoom"] == elements[0] and s["selected"] == elements[0])
    eventually(
        lambda: widget.get_attribute("data-zoom") == str(elements[0]), "the page never zoomed"
    )
    # the page drew the zoom from the frames at hand before Python's reply completed it
    assert widget.get_attribute("data-preview-action") == "zoom"
    crumbs = widget.locator(".pw-fl-crumbs .pw-btn").all_inner_texts()
    assert crumbs == ["all", "main", "LagrangeLeapFrog", "LagrangeElements"]
    zoomed = _named(state, "LagrangeElements")
    assert (zoomed[3], zoomed[4]) == (0.0, 1.0)
    page.mouse.move(*_frame_point(widget, _named(state, "CalcEnergyForElems"), state))
    tip.wait_for(state="visible")
    assert "of the zoomed frame" in tip.inner_text()
    save_screenshot(page, "flame_voila_zoomed")

    # the breadcrumb zooms back out
    widget.locator(".pw-fl-crumbs .pw-btn", has_text="all").click()
    wait_state(nb, lambda s: s["zoom"] == -1)
    eventually(lambda: widget.get_attribute("data-zoom") == "-1", "the page never zoomed out")

    # search: the matches highlighted and their share said, as Python has it
    box = widget.locator(".pw-fl-search")
    box.fill("Calc")
    box.press("Enter")
    state = wait_state(nb, lambda s: s["search"] == "Calc")
    eventually(
        lambda: widget.locator(".pw-fl-found").inner_text() == state["search_text"],
        lambda: f"the page says {widget.locator('.pw-fl-found').inner_text()!r}",
    )
    assert "of the total" in state["search_text"] and state["match"]
    assert "matches /Calc/" in widget.locator(".pw-fl-legend").inner_text()
    save_screenshot(widget, "flame_voila_search")

    # a bad regular expression: the banner says so and the highlight stays
    box.fill("Calc(")
    box.press("Enter")
    banner = widget.locator(".pw-error")
    banner.wait_for(state="visible")
    assert "bad regular expression" in banner.inner_text()
    assert widget.locator(".pw-fl-found").inner_text() == state["search_text"]
    save_screenshot(widget, "flame_voila_bad_search")


def test_two_ensembles_compared(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    raja = DATA / "thicket/rajaperf"
    nb = tmp_path / "compare.ipynb"
    write_notebook(
        nb,
        [
            "import glob\nimport perfweave as pw",
            STATE_HOOK,
            f"a = pw.Ensemble.from_files(sorted(glob.glob({str(raja / 'quartz/gcc10.3.1_1048576')!r} + '/**/*.cali', recursive=True)))\n"
            f"b = pw.Ensemble.from_files(sorted(glob.glob({str(raja / 'lassen/clang10.0.1_nvcc10.2.89_1048576')!r} + '/**/*block_128.cali', recursive=True)))",
            f"fg = watch(pw.FlameGraph(a, compare=b, labels=('quartz', 'lassen')), {str(nb.with_suffix('.state.json'))!r})\nfg",
        ],
    )
    server = voila_server(nb)
    page.set_viewport_size({"width": 1200, "height": 900})
    widget = open_in_voila(page, server.url(), READY)
    state = wait_state(nb, lambda s: len(s["frames"]) > 0)
    assert not canvas_is_blank(widget.locator("canvas.pw-fl-canvas"))
    legend = widget.locator(".pw-fl-legend").inner_text()
    assert "Welch's t-test" in legend and "q < 0.05" in legend and "not significant" in legend
    basic = _named(state, "Basic")
    page.mouse.move(*_frame_point(widget, basic, state))
    tip = widget.locator(".pw-fl-tooltip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert "quartz:" in text and "lassen:" in text and "Δ quartz − lassen" in text
    # the two sides' values are told apart on screen (three spaces collapsed to one before)
    assert re.search(r"quartz: [\d.,]+ m?s · lassen: [\d.,]+ m?s\n", text), text
    assert "n = 4 / 10" in text
    assert "quartz larger" in legend
    assert "(significant)" in text
    save_screenshot(page, "flame_voila_compare")


def test_the_flame_at_a_scale_not_yet_run(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """The MPI scaling study (27 to 343 ranks) predicted at 4,096 ranks: the title says it is
    a prediction, guesses are hatched and said so on hover, and narrow frames are gathered."""
    nb = tmp_path / "flame_scale.ipynb"
    write_notebook(
        nb,
        [
            "import perfweave as pw",
            STATE_HOOK,
            "ens = pw.datasets.mpi_scaling()",
            "fg = watch(pw.FlameGraph.at_scale(ens, 'mpi.world.size', target=4096), "
            f"{str(nb.with_suffix('.state.json'))!r})\nfg",
        ],
    )
    server = voila_server(nb)
    page.set_viewport_size({"width": 1200, "height": 700})
    widget = open_in_voila(page, server.url(), READY)
    state = wait_state(nb, lambda s: len(s["frames"]) > 0)
    assert not canvas_is_blank(widget.locator("canvas.pw-fl-canvas"))
    title = widget.locator(".pw-fl-title").inner_text()
    assert "predicted at mpi.world.size = 4,096 (not run" in title
    legend = widget.locator(".pw-fl-legend").inner_text()
    assert "poorly fitted model or none: a guess" in legend
    save_screenshot(widget, "flame_voila_at_scale")
    # hover a hatched frame: the tooltip says it is a guess
    guessed = [f for f in state["frames"] if f[4] - f[3] > 0.02]
    said = []
    tip = widget.locator(".pw-fl-tooltip")
    for frame in guessed:
        page.mouse.move(*_frame_point(widget, frame, state))
        tip.wait_for(state="visible")
        eventually(lambda f=frame: tip.get_attribute("data-node") == str(f[0]), "no tooltip")
        said.append(tip.inner_text())
    assert any("a guess" in t for t in said) and any("predicted by its model" in t for t in said)
    save_screenshot(page, "flame_voila_at_scale_hover")


def _svg_frames(path: Path) -> list[tuple[int, str, float]]:
    """(row, name, left edge) of each frame of a downloaded SVG."""
    ns = "{http://www.w3.org/2000/svg}"
    out = []
    for g in ET.parse(path).getroot().findall(f"{ns}g"):
        rect = g.find(f"{ns}rect")
        out.append(
            (
                round((float(rect.get("y")) - 24) / 18),
                g.find(f"{ns}title").text,
                float(rect.get("x")),
            )
        )
    return sorted(out)


def test_a_deep_calltree_draws_and_a_zoom_is_drawn_complete_without_python(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """A calltree 2,500 rows deep is drawn (the rows in view; scrolling draws the others), and
    a click into a frame an eighth of the width wide is drawn complete from the frames the
    page holds while Python's answer is held back: the frames at least a pixel wide of the
    zoom and the runs of narrower ones gathered are the core layout's."""
    nb = tmp_path / "deep.ipynb"
    gate = tmp_path / "answer"
    write_notebook(
        nb,
        [
            "import time\nfrom pathlib import Path\nimport perfweave as pw",
            STATE_HOOK,
            inspect.getsource(wide_and_deep_tree),
            "fg = pw.FlameGraph(wide_and_deep_tree())\n"
            "_zoom = fg._on_zoom\n"
            "def held_back(**args):  # Python answers a zoom once the test says so\n"
            f"    for _ in range(600):\n        if Path({str(gate)!r}).exists(): break\n"
            "        time.sleep(0.1)\n"
            "    return _zoom(**args)\n"
            "fg._on_zoom = held_back\n"
            f"fg = watch(fg, {str(nb.with_suffix('.state.json'))!r})\nfg",
        ],
    )
    server = voila_server(nb)
    page.set_viewport_size({"width": 1200, "height": 900})
    widget = open_in_voila(page, server.url(), READY)
    canvas = widget.locator("canvas.pw-fl-canvas")
    plot = widget.locator(".pw-fl-plot")
    layout = flame_layout(wide_and_deep_tree())
    depth = int(np.asarray(layout.graph.depth).max()) + 1
    assert depth > 2500
    # the canvas is the plot's height, the plot scrolls over every row
    assert canvas.bounding_box()["height"] <= 420
    assert plot.evaluate("p => p.scrollHeight") == depth * 18
    assert not canvas_is_blank(canvas)
    save_screenshot(widget, "flame_voila_deep")
    # the deepest rows, scrolled to: drawn, and the pointer finds the deepest frame
    plot.evaluate("p => { p.scrollTop = p.scrollHeight; }")
    eventually(
        lambda: widget.get_attribute("data-rows-drawn") == f"{depth - 24}-{depth}",
        lambda: f"rows drawn: {widget.get_attribute('data-rows-drawn')}",
    )
    assert not canvas_is_blank(canvas)
    box = canvas.bounding_box()
    page.mouse.move(box["x"] + 5, box["y"] + box["height"] - 9)
    tip = widget.locator(".pw-fl-tooltip")
    tip.wait_for(state="visible")
    deepest = int(np.argmax(np.asarray(layout.graph.depth)))
    assert tip.get_attribute("data-node") == str(deepest)
    assert tip.inner_text().startswith(str(layout.values.names[deepest]))
    save_screenshot(widget, "flame_voila_deep_bottom")
    page.mouse.move(0, 0)
    plot.evaluate("p => { p.scrollTop = 0; }")
    # the page holds the whole graph's frames eight times finer than its canvas
    eventually(
        lambda: int(widget.get_attribute("data-refined") or 0) >= 1, "the page never refined"
    )
    width = canvas.bounding_box()["width"]
    w = layout.x1 - layout.x0
    d = np.asarray(layout.graph.depth)
    chain = set(layout.path(deepest))
    wide = np.flatnonzero((w > 1 / 8) & (w < 1 / 2) & (d >= 1) & (d <= 3))
    target = int(next(t for t in wide if t not in chain))
    frames, runs = layout.drawn(zoom=target, min_width=1 / width)
    unseen = frames[(w[frames["node"]] < 1 / width)]  # less than a pixel before the zoom
    assert len(unseen) > 0 and len(runs) > 0
    page.mouse.click(
        box["x"] + width * (layout.x0[target] + layout.x1[target]) / 2,
        box["y"] + 18 * (d[target] + 0.5),
    )
    eventually(
        lambda: (
            widget.get_attribute("data-complete-action") == "zoom"
            and widget.get_attribute("data-zoom") == str(target)
        ),
        "the page did not draw the zoom complete by itself",
    )
    assert widget.get_attribute("data-last-action") != "zoom"  # Python has not answered
    with page.expect_download() as got:
        widget.locator("[data-action='download-svg']").click()
    drawn = _svg_frames(Path(got.value.path()))
    want = sorted(
        [(int(r.depth), str(r.name), r.x0 * width) for r in frames.itertuples()]
        + [(int(r.depth), f"… {int(r.hidden):,} hidden", r.x0 * width) for r in runs.itertuples()]
    )
    assert [(r, n) for r, n, _ in drawn] == [(r, n) for r, n, _ in want]
    np.testing.assert_allclose([x for *_, x in drawn], [x for *_, x in want], atol=0.006)
    assert widget.get_attribute("data-shown") == str(len(frames))
    save_screenshot(page, "flame_voila_deep_zoomed")
    gate.touch()  # Python answers: its zoom is the page's, and the view stays
    wait_state(nb, lambda s: s["zoom"] == target, hide=("frames",))
    eventually(lambda: widget.get_attribute("data-last-action") == "zoom", "no reply")
    assert widget.get_attribute("data-shown") == str(len(frames))
    assert [b for b in widget.locator(".pw-fl-crumbs .pw-btn").all_inner_texts()][1:] == [
        str(layout.values.names[p]) for p in layout.path(target)
    ]
