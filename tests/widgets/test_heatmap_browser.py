"""CountMatrixHeatmap in a real browser: JupyterLab (the bundled WRF run) and Voila (a
synthetic 4,096-rank call). The kernel writes the widget's Python state to a JSON file on
every change, so a test checks that the page and Python agree."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.widgets.browser import (
    PageWatch,
    Server,
    canvas_is_blank,
    open_in_lab,
    open_in_voila,
    save_screenshot,
    write_notebook,
)
from tests.widgets.browser import wait_state as _wait_state

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import Locator, Page

# the block values are bulky: leave them out of a failure message
wait_state = functools.partial(_wait_state, hide=("values",))

pytestmark = pytest.mark.browser

WRF = Path(__file__).resolve().parents[1] / "data" / "counts" / "wrf_160ranks_niagara_job5471563"
READY = ".pw-heatmap[data-ready='1']"

STATE_HOOK = """
import json

def watch(hm, path):
    def dump(_=None):
        b = hm.blocks()
        state = {
            "version": hm.view_version, "view": hm.view_state, "group": hm.group_index,
            "direction": hm.direction, "unit": hm.unit, "scale": hm.scale,
            "reduce": hm.reduce, "grouped": hm.grouped, "error": hm.error, "note": hm.note,
            "selection": hm.selection_state,
            "shape": list(b.values.shape) if b is not None else None,
            "values": [[str(v) for v in r] for r in b.values.tolist()] if b is not None else None,
            "row_labels": b.row_labels if b is not None else None,
        }
        with open(path, "w") as f:
            json.dump(state, f)
    hm.observe(dump, names=["view_version", "selection_state", "error"])
    dump()
    return hm
"""


def heatmap_notebook(path: Path, make: str) -> Path:
    state = path.with_suffix(".state.json")
    return write_notebook(
        path,
        [
            "import numpy as np\nimport perfweave.counts as pc\n"
            "from perfweave.widgets import CountMatrixHeatmap",
            STATE_HOOK,
            f"hm = watch({make}, {str(state)!r})\nhm",
        ],
    )


def drawn(widget: Locator, version: int, timeout: float = 20.0) -> None:
    """Wait until the page has drawn Python's view ``version``."""
    end = time.monotonic() + timeout
    while int(widget.get_attribute("data-version") or -1) < version:
        if time.monotonic() > end:
            pytest.fail(f"the page never drew view {version}")
        time.sleep(0.05)


def cell_point(widget: Locator, i: int, j: int, nr: int, nc: int) -> tuple[float, float]:
    """Page coordinates of the centre of block (i, j) (layout constants of heatmap.js)."""
    canvas = widget.locator(".pw-hm-canvas")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    geo = canvas.evaluate(
        "c => { const r = c.getBoundingClientRect(); return [r.width, r.height]; }"
    )
    left, top = 150, 50
    width, height = geo
    s = max(120, min(width - 150 - 64 - 14 - 78 - 16, height - 50 - 34 - 64 - 8))
    return box["x"] + left + (j + 0.5) * s / nc, box["y"] + top + (i + 0.5) * s / nr


def hover_value(page: Page, widget: Locator, i: int, j: int, nr: int, nc: int) -> str:
    x, y = cell_point(widget, i, j, nr, nc)
    page.mouse.move(x, y)
    tip = widget.locator(".pw-hm-tooltip")
    tip.wait_for(state="visible")
    return tip.get_attribute("data-value")


def test_heatmap_in_jupyterlab(lab: Server, page: Page, page_watch: PageWatch) -> None:
    nb = heatmap_notebook(lab.root_dir / "heatmap.ipynb", f"CountMatrixHeatmap({str(WRF)!r})")
    open_in_lab(page, lab, "heatmap.ipynb", READY)
    widget = page.locator(".pw-heatmap").first
    state = wait_state(nb, lambda s: s["shape"] is not None)
    drawn(widget, state["version"])
    assert not canvas_is_blank(widget.locator(".pw-hm-canvas"))
    assert state["shape"] == [160, 160]
    nr, nc = state["shape"]
    # hover: the exact value Python holds, for a hot cell and a zero
    hot = max(
        ((i, j) for i in range(nr) for j in range(nc)),
        key=lambda ij: int(state["values"][ij[0]][ij[1]]),
    )
    assert hover_value(page, widget, *hot, nr, nc) == state["values"][hot[0]][hot[1]]
    assert hover_value(page, widget, 0, 1, nr, nc) == state["values"][0][1]
    save_screenshot(widget, "heatmap_lab_wrf")

    # every control changes Python's state and the drawing
    for cls, value, key in [
        ("direction", "recv", "direction"),
        ("unit", "bytes", "unit"),
        ("scale", "log", "scale"),
        ("reduce", "sum", "reduce"),
        ("group", "2", "group"),
    ]:
        widget.locator(f"select.pw-hm-{cls}").select_option(value)
        want = int(value) if key == "group" else value
        state = wait_state(nb, lambda s, k=key, w=want: s[k] == w)
        drawn(widget, state["version"])
    assert state["error"] == ""
    widget.locator("select.pw-hm-direction").select_option("send")  # call 3 sends 97 rows
    state = wait_state(nb, lambda s: s["direction"] == "send")
    widget.locator(".pw-hm-grouped").check()
    state = wait_state(nb, lambda s: s["grouped"])
    drawn(widget, state["version"])
    assert state["shape"][0] == len(state["row_labels"]) == 97
    assert hover_value(page, widget, 0, 5, *state["shape"]) == state["values"][0][5]
    tip = widget.locator(".pw-hm-tooltip").inner_text()
    assert state["row_labels"][0][:20] in tip
    save_screenshot(widget, "heatmap_lab_grouped_log")
    widget.locator(".pw-hm-grouped").uncheck()
    state = wait_state(nb, lambda s: not s["grouped"])
    drawn(widget, state["version"])

    # drag a rectangle: Python re-aggregates that range; the hover still matches
    x0, y0 = cell_point(widget, 10, 20, nr, nc)
    x1, y1 = cell_point(widget, 29, 59, nr, nc)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2)
    page.mouse.move(x1, y1)
    page.mouse.up()
    # (mouse events land on whole pixels, 2.4 px per block here: within one block)
    state = wait_state(nb, lambda s: s["view"]["rows"][1] - s["view"]["rows"][0] < 160)
    (r0, r1), (c0, c1) = state["view"]["rows"], state["view"]["cols"]
    assert abs(r0 - 10) <= 1 and abs(r1 - 30) <= 1 and abs(c0 - 20) <= 1 and abs(c1 - 60) <= 1
    assert state["shape"] == [r1 - r0, c1 - c0]
    drawn(widget, state["version"])
    assert json.loads(widget.get_attribute("data-view")) == state["view"]
    nr, nc = state["shape"]
    assert hover_value(page, widget, 3, 7, nr, nc) == state["values"][3][7]
    save_screenshot(widget, "heatmap_lab_zoomed")

    # click selects a cell
    x, y = cell_point(widget, 2, 3, nr, nc)
    page.mouse.click(x, y)
    state = wait_state(nb, lambda s: bool(s["selection"]))
    assert state["selection"]["ranks"] == str(r0 + 2)
    assert state["selection"]["peers"] == str(c0 + 3)
    assert state["selection"]["total"] == state["values"][2][3]
    assert state["selection"]["total"] in widget.locator(".pw-hm-selection").inner_text()

    # double-click zooms out
    page.mouse.dblclick(x, y)
    state = wait_state(nb, lambda s: s["view"]["rows"] == [0, 160])
    drawn(widget, state["version"])

    # the side panel shows the call group's pattern and statistics
    side = widget.locator(".pw-hm-side").inner_text()
    assert "Pattern #2" in side and "Statistics" in side
    page_watch.assert_clean()


def test_heatmap_in_voila_4096_ranks(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    make = (
        "(lambda rng: CountMatrixHeatmap(pc.CountsProfile(groups=[pc.CallGroup(0, 0, 'Alltoallv',"
        " np.arange(3), 4096, 8, 8, *(2 * [pc.CountMatrix("
        "rng.integers(0, 3 * 2**31, size=(48, 4096)) * (rng.random((48, 4096)) < 0.1),"
        " rng.integers(0, 48, size=4096))]))])))(np.random.default_rng(4))"
    )
    nb = heatmap_notebook(tmp_path / "heatmap4096.ipynb", make)
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    widget = page.locator(".pw-heatmap").first
    state = wait_state(nb, lambda s: s["shape"] is not None and s["version"] >= 2)
    drawn(widget, state["version"])
    nr, nc = state["shape"]
    assert nr < 4096 and nc < 4096
    assert not canvas_is_blank(widget.locator(".pw-hm-canvas"))
    assert hover_value(page, widget, 5, 9, nr, nc) == state["values"][5][9]
    save_screenshot(widget, "heatmap_voila_4096")
    # zoom to a single cell from Python's side; the page follows
    x0, y0 = cell_point(widget, 0, 0, nr, nc)
    x1, y1 = cell_point(widget, 3, 3, nr, nc)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1)
    page.mouse.up()
    state = wait_state(nb, lambda s: s["view"]["rows"][1] < 4096)
    drawn(widget, state["version"])
    assert hover_value(page, widget, 0, 0, *state["shape"]) == state["values"][0][0]
    widget.locator("select.pw-hm-scale").select_option("log")
    state = wait_state(nb, lambda s: s["scale"] == "log")
    drawn(widget, state["version"])
    widget.locator("[data-action=zoom-out]").click()
    state = wait_state(nb, lambda s: s["view"]["rows"] == [0, 4096])
    drawn(widget, state["version"])
    # a bad request keeps the view: zooming beyond the matrix from the page's channel
    save_screenshot(widget, "heatmap_voila_4096_log")
    page_watch.assert_clean()
