"""CountMatrixHeatmap in a real browser: JupyterLab (the WRF run, also grouped by its nodes)
and Voila (a synthetic 4,096-rank call). The kernel writes the widget's Python state to a
JSON file on every change, so a test checks that the page and Python agree."""

from __future__ import annotations

import functools
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.widgets.browser import (
    AFTER_MESSAGE,
    PageWatch,
    Server,
    canvas_is_blank,
    eventually,
    open_in_lab,
    open_in_voila,
    save_screenshot,
    write_notebook,
)
from tests.widgets.browser import wait_state as _wait_state
from tests.widgets.test_heatmap import wrf_with_hosts

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import Locator, Page

# the block values are bulky: leave them out of a failure message
wait_state = functools.partial(_wait_state, hide=("values",))

pytestmark = pytest.mark.browser

READY = ".pw-heatmap[data-ready='1']"
# a color-bar tick: 1-3 significant digits, no trailing zero, an optional SI suffix
TICK = re.compile(r"(0|[1-9]\d{0,2}|[1-9]\.\d?[1-9]|[1-9]\d\.[1-9]|0\.0*[1-9]\d{0,2})[kMGT]?")

STATE_HOOK = (
    AFTER_MESSAGE
    + """
import json

def watch(hm, path):
    def write():
        b = hm.blocks()
        state = {
            "version": hm.view_version, "view": hm.view_state, "group": hm.group_index,
            "lead": hm.lead_rank, "group_labels": hm.group_labels,
            "direction": hm.direction, "unit": hm.unit, "scale": hm.scale,
            "reduce": hm.reduce, "group_by": hm.group_by, "hosts_known": hm.hosts_known,
            "error": hm.error, "note": hm.note,
            "selection": hm.selection_state,
            "shape": list(b.values.shape) if b is not None else None,
            "values": [[str(v) for v in r] for r in b.values.tolist()] if b is not None else None,
            "row_labels": b.row_labels if b is not None else None,
        }
        with open(path, "w") as f:
            json.dump(state, f)
    dump = after_message(write)
    hm.observe(dump, names=["view_version", "selection_state", "error"])
    write()
    return hm
"""
)


# A synthetic alltoallv call as real large runs look: most ranks in 16 rank ranges that share
# a row, ``distinct`` ranks with rows of their own, a few counts past int32, and a location
# table placing ``per_host`` consecutive ranks on each host; plus a small call of another lead
# rank (1024: lead ranks with a gap) that no location file covers.
# (benchmarks/widgets_heatmap.py runs the same cell.)
SYNTHETIC = """
import numpy as np
import pandas as pd
import perfweave.counts as pc


def synthetic(n, distinct=256, per_host=64, seed=4):
    rng = np.random.default_rng(seed)

    def matrix():
        rows = rng.integers(0, 5000, size=(16 + distinct, n))
        rows[rng.random(rows.shape) < 0.6] = 0
        rows[:, rng.integers(0, n, size=8)] *= 2**20  # a few counts past int32
        row_of_rank = np.repeat(np.arange(16), -(-n // 16))[:n]
        row_of_rank[rng.choice(n, size=distinct, replace=False)] = 16 + np.arange(distinct)
        return pc.CountMatrix(rows, row_of_rank)

    group = pc.CallGroup(0, 0, "Alltoallv", np.arange(3), n, 8, 8, matrix(), matrix())
    ranks = np.arange(n)
    hosts = np.char.add("nid", np.char.zfill((ranks // per_host).astype(str), 5))
    locations = pd.DataFrame({
        "collective": pd.Series(["alltoallv"] * n, dtype="string"),
        "comm": 0, "lead_rank": 0, "calls": pd.Series(["0-2"] * n, dtype="string"),
        "rank": ranks, "world_rank": ranks, "pid": pd.array([None] * n, dtype="Int64"),
        "hostname": pd.Series(hosts, dtype="string"),
    })
    small = pc.CountMatrix.from_dense(rng.integers(0, 100, size=(48, 48)))
    other = pc.CallGroup(1024, 0, "Alltoallv", np.array([0, 1, 5]), 48, 4, 4, small,
                         pc.CountMatrix.from_dense(small.dense().T.copy()))
    return pc.CountsProfile(groups=[group, other], locations=locations)
"""


def heatmap_notebook(path: Path, make: str) -> Path:
    state = path.with_suffix(".state.json")
    return write_notebook(
        path,
        [
            "import numpy as np\nimport perfweave.counts as pc\n"
            "from perfweave.widgets import CountMatrixHeatmap",
            SYNTHETIC,
            STATE_HOOK,
            f"hm = watch({make}, {str(state)!r})\nhm",
        ],
    )


def drawn(widget: Locator, version: int, timeout: float = 20.0) -> None:
    """Wait until the page has drawn Python's view ``version``."""
    eventually(
        lambda: int(widget.get_attribute("data-version") or -1) >= version,
        f"the page never drew view {version}",
        timeout,
    )


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
    run = lab.root_dir / "wrf_with_hosts"
    shutil.rmtree(run, ignore_errors=True)
    run = wrf_with_hosts(lab.root_dir)
    nb = heatmap_notebook(lab.root_dir / "heatmap.ipynb", f"CountMatrixHeatmap({str(run)!r})")
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
    assert hover_value(page, widget, 0, 1, nr, nc) == state["values"][0][1] == "0"
    # an empty cell says so (no "max counts: 0"); big numbers carry thousands separators
    tip = widget.locator(".pw-hm-tooltip").inner_text()
    assert "no messages (0 counts)" in tip and "max counts" not in tip
    side = widget.locator(".pw-hm-side").inner_text()
    assert "578,085,200" in side and "578085200" not in side
    assert "1 ranks" not in side and "1 rank to" in side
    # one format for every timing: a number and a unit (ms, µs, s), never "1.40e-5"
    timings = widget.locator(".pw-hm-side table").last.inner_text()
    assert re.search(r"late arrival\s+160\s+\d+(\.\d+)? µs", timings) and "e-" not in timings
    save_screenshot(widget, "heatmap_lab_wrf")

    # grouped by host: the run's four nodes, from the location file of call 0
    widget.locator("select.pw-hm-group_by").select_option("host")
    state = wait_state(nb, lambda s: s["group_by"] == "host")
    drawn(widget, state["version"])
    assert state["hosts_known"] and state["shape"] == [4, 160]
    assert state["row_labels"][:2] == ["node-031: 0-39", "node-002: 40-79"]
    assert hover_value(page, widget, 1, 60, 4, 160) == state["values"][1][60]
    assert "hosts of senders: node-002: 40-79" in widget.locator(".pw-hm-tooltip").inner_text()
    save_screenshot(widget, "heatmap_lab_wrf_hosts")
    widget.locator("select.pw-hm-group_by").select_option("rank")
    state = wait_state(nb, lambda s: s["group_by"] == "rank")
    drawn(widget, state["version"])

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
    # call 3 is on another communicator, which no location file covers: host grouping is
    # offered disabled, as Python says
    host = widget.locator("select.pw-hm-group_by option[value=host]")
    assert host.is_disabled() and not state["hosts_known"]
    widget.locator("select.pw-hm-group_by").select_option("rows")
    state = wait_state(nb, lambda s: s["group_by"] == "rows")
    drawn(widget, state["version"])
    assert state["shape"][0] == len(state["row_labels"]) == 97
    assert hover_value(page, widget, 0, 5, *state["shape"]) == state["values"][0][5]
    tip = widget.locator(".pw-hm-tooltip").inner_text()
    # the tooltip names the group by its number, as the title and the axis count them,
    # then its ranks
    assert f"rank groups of senders: group 0, ranks {state['row_labels'][0][:20]}" in tip
    save_screenshot(widget, "heatmap_lab_grouped_log")
    widget.locator("select.pw-hm-group_by").select_option("rank")
    state = wait_state(nb, lambda s: s["group_by"] == "rank")
    drawn(widget, state["version"])

    # drag a rectangle around the hottest cell: Python re-aggregates that range; the hover
    # still matches, on that cell and on a cell that is not
    hi, hj = max(
        ((i, j) for i in range(nr) for j in range(nc)),
        key=lambda ij: int(state["values"][ij[0]][ij[1]]),
    )
    a0, a1 = max(0, hi - 10), min(nr, hi + 10)
    b0, b1 = max(0, hj - 20), min(nc, hj + 20)
    x0, y0 = cell_point(widget, a0, b0, nr, nc)
    x1, y1 = cell_point(widget, a1 - 1, b1 - 1, nr, nc)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2)
    page.mouse.move(x1, y1)
    page.mouse.up()
    # (mouse events land on whole pixels, 2.4 px per block here: within one block)
    state = wait_state(nb, lambda s: s["view"]["rows"][1] - s["view"]["rows"][0] < 160)
    (r0, r1), (c0, c1) = state["view"]["rows"], state["view"]["cols"]
    assert abs(r0 - a0) <= 1 and abs(r1 - a1) <= 1 and abs(c0 - b0) <= 1 and abs(c1 - b1) <= 1
    assert state["shape"] == [r1 - r0, c1 - c0]
    drawn(widget, state["version"])
    assert json.loads(widget.get_attribute("data-view")) == state["view"]
    nr, nc = state["shape"]
    assert int(state["values"][hi - r0][hj - c0]) > 0
    assert hover_value(page, widget, hi - r0, hj - c0, nr, nc) == state["values"][hi - r0][hj - c0]
    assert hover_value(page, widget, 3, 7, nr, nc) == state["values"][3][7]
    save_screenshot(widget, "heatmap_lab_zoomed")

    # click selects a cell
    x, y = cell_point(widget, hi - r0, hj - c0, nr, nc)
    page.mouse.click(x, y)
    state = wait_state(nb, lambda s: bool(s["selection"]))
    assert state["selection"]["ranks"] == str(hi)
    assert state["selection"]["peers"] == str(hj)
    assert state["selection"]["total"] == state["values"][hi - r0][hj - c0]
    shown = widget.locator(".pw-hm-selection").inner_text()
    assert f"{int(state['selection']['total']):,}" in shown  # with thousands separators

    # double-click zooms out
    page.mouse.dblclick(x, y)
    state = wait_state(nb, lambda s: s["view"]["rows"] == [0, 160])
    drawn(widget, state["version"])

    # the side panel shows the call group's pattern and statistics
    side = widget.locator(".pw-hm-side").inner_text()
    assert "Pattern 2: " in side and "Statistics" in side

    # JupyterLab's dark theme: the canvas redraws in the theme's text colors
    assert widget.get_attribute("data-theme") == "light"
    try:
        page.evaluate(
            "window.jupyterapp.commands.execute('apputils:change-theme', "
            "{theme: 'JupyterLab Dark'})"
        )
        page.wait_for_function(
            "() => document.querySelector('.pw-heatmap').dataset.theme === 'dark'", timeout=20000
        )
        fg = widget.evaluate("el => getComputedStyle(el).color")
        assert min(float(x) for x in re.findall(r"[\d.]+", fg)[:3]) > 150, fg  # light text
        assert not canvas_is_blank(widget.locator(".pw-hm-canvas"))
        save_screenshot(widget, "heatmap_lab_dark")
    finally:
        page.evaluate(
            "window.jupyterapp.commands.execute('apputils:change-theme', "
            "{theme: 'JupyterLab Light'})"
        )
    page.wait_for_function(
        "() => document.querySelector('.pw-heatmap').dataset.theme === 'light'", timeout=20000
    )
    page_watch.assert_clean()


def test_heatmap_in_voila_4096_ranks(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    nb = heatmap_notebook(tmp_path / "heatmap4096.ipynb", "CountMatrixHeatmap(synthetic(4096))")
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

    # every control; after each, the hover of a block reads Python's value
    for cls, value, key in [
        ("direction", "recv", "direction"),
        ("unit", "bytes", "unit"),
        ("reduce", "sum", "reduce"),
        ("scale", "log", "scale"),
        ("group_by", "rows", "group_by"),
        ("group_by", "host", "group_by"),
    ]:
        widget.locator(f"select.pw-hm-{cls}").select_option(value)
        state = wait_state(nb, lambda s, k=key, w=value: s[k] == w)
        drawn(widget, state["version"])
        assert state["error"] == "", state["error"]
        nr, nc = state["shape"]
        assert hover_value(page, widget, 1, 2, nr, nc) == state["values"][1][2]
    # grouped by host: one band per location-file host, labelled host: ranks
    assert state["hosts_known"] and nr == 4096 // 64
    assert state["row_labels"][:2] == ["nid00000: 0-63", "nid00001: 64-127"]
    tip = widget.locator(".pw-hm-tooltip").inner_text()
    assert "hosts of receivers: nid00001: 64-127" in tip
    save_screenshot(widget, "heatmap_voila_4096_hosts")

    # click a host band's label: the selection names its ranks, in Python and on the page
    x, y = cell_point(widget, 3, 0, nr, nc)
    box = widget.locator(".pw-hm-canvas").bounding_box()
    page.mouse.click(box["x"] + 60, y)
    state = wait_state(nb, lambda s: bool(s["selection"]))
    assert state["selection"]["ranks"] == "192-255"
    assert "192-255" in widget.locator(".pw-hm-selection").inner_text()

    # drag over 2 x 3 blocks: Python re-aggregates that range
    widget.locator("select.pw-hm-group_by").select_option("rank")
    state = wait_state(nb, lambda s: s["group_by"] == "rank")
    drawn(widget, state["version"])
    nr, nc = state["shape"]
    x0, y0 = cell_point(widget, 0, 0, nr, nc)
    x1, y1 = cell_point(widget, 3, 3, nr, nc)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1)
    page.mouse.up()
    state = wait_state(nb, lambda s: s["view"]["rows"][1] < 4096)
    drawn(widget, state["version"])
    assert hover_value(page, widget, 0, 0, *state["shape"]) == state["values"][0][0]
    widget.locator("[data-action=zoom-out]").click()
    state = wait_state(nb, lambda s: s["view"]["rows"] == [0, 4096])
    drawn(widget, state["version"])
    # the color bar's ticks (drawn on the canvas, their words in data-color-ticks): at most
    # 3 significant digits and no trailing zeros, "100M" and "486G", never "100.00M"
    ticks = json.loads(widget.get_attribute("data-color-ticks") or "[]")
    assert len(ticks) >= 3 and all(TICK.fullmatch(t) for t in ticks), ticks
    save_screenshot(widget, "heatmap_voila_4096_log")

    # another lead rank while grouped by host: its call has no location file, so the rows
    # fall back to ranks, the page says so and offers host grouping disabled
    widget.locator("select.pw-hm-group_by").select_option("host")
    state = wait_state(nb, lambda s: s["group_by"] == "host")
    widget.locator("select.pw-hm-lead_rank").select_option("1024")
    state = wait_state(nb, lambda s: s["lead"] == 1024)
    drawn(widget, state["version"])
    assert state["group_labels"] == ["calls 0-1, 5 (3 calls)"] and state["shape"] == [48, 48]
    assert state["group_by"] == "rank" and not state["hosts_known"]
    assert "no location file names the hosts of calls 0-1, 5" in state["note"]
    assert widget.locator(".pw-hm-note").inner_text() == state["note"]
    assert widget.locator("select.pw-hm-group_by").input_value() == "rank"
    assert widget.locator("select.pw-hm-group_by option[value=host]").is_disabled()
    assert widget.locator("select.pw-hm-group option").all_inner_texts() == state["group_labels"]
    assert hover_value(page, widget, 3, 4, 48, 48) == state["values"][3][4]
    save_screenshot(widget, "heatmap_voila_lead_1024")
    page_watch.assert_clean()


def test_heatmap_bad_input_in_voila(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """A directory with no count files shows a message (no traceback, no blank panel); a
    bad request shows the message and keeps the view drawn."""
    empty = tmp_path / "empty"
    empty.mkdir()
    nb = heatmap_notebook(
        tmp_path / "bad.ipynb",
        f"CountMatrixHeatmap({str(empty)!r})",
    )
    extra = tmp_path / "bad.ipynb"
    cells = json.loads(extra.read_text())
    cells["cells"].append(
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": "zero = CountMatrixHeatmap(pc.CountsProfile(groups=[pc.CallGroup(0, 0, "
            "'Alltoallv', np.arange(1), 3, 4, 4, *(2 * [pc.CountMatrix.from_dense("
            "np.zeros((3, 3), dtype=np.int64))]))]))\nzero",
        }
    )
    extra.write_text(json.dumps(cells))
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    first, second = page.locator(".pw-heatmap").nth(0), page.locator(".pw-heatmap").nth(1)
    second.wait_for()
    page.wait_for_selector(".pw-heatmap[data-ready='1'] >> nth=1")
    banner = first.locator(".pw-error")
    banner.wait_for(state="visible")
    assert f"no count files in {empty}" in banner.inner_text()
    assert "Traceback" not in first.inner_text()
    assert first.locator(".pw-toolbar").is_hidden() and first.locator(".pw-hm-main").is_hidden()
    # an all-zero call: drawn, and said so above the plot
    note = second.locator(".pw-hm-note")
    note.wait_for(state="visible")
    assert "every send count of call 0 is zero" in note.inner_text()
    assert not canvas_is_blank(second.locator(".pw-hm-canvas"))
    # host grouping without a location file: the option is disabled; forced, a message
    assert second.locator("select.pw-hm-group_by option[value=host]").is_disabled()
    version = second.get_attribute("data-version")
    second.locator("select.pw-hm-group_by").evaluate(
        "s => { s.querySelector('option[value=host]').disabled = false; s.value = 'host';"
        " s.dispatchEvent(new Event('change')); }"
    )
    msg = second.locator(".pw-error")
    msg.wait_for(state="visible")
    assert "no location file names the hosts of call 0" in msg.inner_text()
    assert second.locator("select.pw-hm-group_by").input_value() == "rank"  # as in Python
    assert second.get_attribute("data-version") == version
    assert not canvas_is_blank(second.locator(".pw-hm-canvas"))
    save_screenshot(page, "heatmap_voila_bad_input")
    page_watch.assert_clean()
