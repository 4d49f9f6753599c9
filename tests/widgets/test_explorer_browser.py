"""CalltreeExplorer in a real browser: JupyterLab and Voila on Debian's chromium.

Each notebook makes the kernel write the explorer's Python state to a JSON file whenever it
changes, so a test can check that what the page shows and what Python holds agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import perfweave as pw
from perfweave.calltree.shown import with_inclusive
from perfweave.widgets import CalltreeExplorer
from tests.widgets.browser import (
    AFTER_MESSAGE,
    PageWatch,
    Server,
    canvas_is_blank,
    eventually,
    open_in_lab,
    open_in_notebook7,
    open_in_voila,
    save_screenshot,
    start_lab,
    wait_state,
    write_notebook,
)
from tests.widgets.shuffled_link import ShuffledLink

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[1] / "data"
LULESH = DATA / "hatchet/caliper-lulesh-json/lulesh-annotation-profile.json"
READY = ".pw-explorer[data-ready='1']"
XSS = "<img src=x onerror=alert(1)>"

STATE_HOOK = (
    AFTER_MESSAGE
    + """
import json

def watch(ex, path):
    def write():
        rows = ex.visible_rows()
        state = {
            "row_count": ex.row_count,
            "nodes": ex.node_count,
            "history": [s.label for s in ex.history],
            "selected": ex.selected_nodes,
            "search": dict(ex.search_state),
            "error": ex.error,
            "first_rows": rows["name"].head(50).tolist(),
        }
        with open(path, "w") as f:
            json.dump(state, f)
    names = ["view_version", "row_count", "selected_nodes", "error", "search_state"]
    dump = after_message(write)
    ex.observe(dump, names=names)
    write()
    return ex
"""
)


def explorer_notebook(path: Path, make_frame: str, explorer_args: str = "") -> Path:
    state = path.with_suffix(".state.json")
    return write_notebook(
        path,
        [
            "import perfweave as pw\nfrom perfweave.widgets import CalltreeExplorer",
            STATE_HOOK,
            make_frame,
            f"ex = watch(CalltreeExplorer(gf{explorer_args}), {str(state)!r})\nex",
        ],
    )


def rows(widget: Locator) -> Locator:
    return widget.locator(".pw-row:not([hidden]):not(.pw-loading)")


def row_named(widget: Locator, name: str) -> Locator:
    return widget.locator(".pw-row:not([hidden])", has=widget.page.get_by_text(name, exact=True))


def names_shown(widget: Locator) -> list[str]:
    return widget.locator(".pw-row:not([hidden]) .pw-name").all_inner_texts()


def row_count(widget: Locator) -> int:
    return int(widget.locator(".pw-body").get_attribute("aria-rowcount"))


def lulesh_frame() -> str:
    return f"gf = pw.read({str(LULESH)!r}).drop_index_levels()"


def test_explorer_in_jupyterlab(lab: Server, page: Page, page_watch: PageWatch) -> None:
    nb = explorer_notebook(lab.root_dir / "explorer.ipynb", lulesh_frame())
    widget = open_in_lab(page, lab, "explorer.ipynb", READY).locator("xpath=..")
    widget = page.locator(".pw-explorer").first
    gf = pw.read(str(LULESH)).drop_index_levels()
    state = wait_state(nb, lambda s: s["row_count"] > 0)
    # first view: the hot path is open, rows in Python's order, counts agree
    expect_names(widget, state["first_rows"])
    assert row_count(widget) == state["row_count"]
    assert widget.locator(".pw-hcell[aria-sort='descending']").inner_text().startswith("time (inc)")

    # expand a closed node by its toggle
    closed = row_named(widget, "LagrangeElements")
    assert closed.get_attribute("aria-expanded") == "false"
    before = state["row_count"]
    closed.locator(".pw-toggle").click()
    state = wait_state(nb, lambda s: s["row_count"] > before)
    expect_attr(closed, "aria-expanded", "true")
    assert row_count(widget) == state["row_count"]
    children = {
        gf.graph.frame(c)["name"] for c in gf.graph.children_of(_node(gf, "LagrangeElements"))
    }
    assert children <= set(names_shown(widget))

    # a tooltip shows the exact value Python holds
    row = row_named(widget, "LagrangeElements")
    row.locator(".pw-metric").first.hover()
    tip = widget.locator(".pw-tooltip")
    tip.wait_for(state="visible")
    node = int(row.get_attribute("data-node"))
    assert float(tip.get_attribute("data-value")) == gf.dataframe.loc[node, "time (inc)"]

    # search: matches counted, highlighted, the current one marked
    widget.locator(".pw-search-input").fill("^Calc")
    widget.locator(".pw-search-input").press("Enter")
    state = wait_state(nb, lambda s: s["search"].get("count", 0) > 0)
    expected = int(gf.graph.frames["name"].str.contains("^Calc").sum())
    assert state["search"]["count"] == expected
    expect_text(widget.locator(".pw-search-count"), f"1 / {expected}")
    expect_attr(widget, "data-last-action", "search")  # the search's rows drawn, not just its count
    assert widget.locator(".pw-row.pw-match").count() == expected
    assert widget.locator(".pw-row.pw-current").count() == 1
    widget.locator("[data-action=next]").click()
    wait_state(nb, lambda s: s["search"].get("current") == 2)

    # filter + squash, then undo both
    widget.locator(".pw-filter-input").fill("`time (inc)` > 5%")
    widget.locator("[data-action=filter]").click()
    state = wait_state(nb, lambda s: len(s["history"]) == 1)
    assert state["nodes"] == len(gf.filter("`time (inc)` > 5%").graph)
    expect_text(widget.locator(".pw-chip"), "filter `time (inc)` > 5%")
    widget.locator("[data-action=squash]").click()
    share = "filter `time (inc)` > 5% (inclusive values as measured)"
    wait_state(nb, lambda s: s["history"] == [share, "squash"])
    expect_count(widget.locator(".pw-chip"), 2)
    save_screenshot(widget, "explorer_lab_filtered")
    widget.locator("[data-action=undo]").click()
    wait_state(nb, lambda s: len(s["history"]) == 1)
    widget.locator("[data-action=undo]").click()
    state = wait_state(nb, lambda s: s["history"] == [] and s["nodes"] == len(gf.graph))
    expect_count(widget.locator(".pw-chip"), 0)
    expect_rowcount(widget, state["row_count"])  # the undo's rows drawn, not just its chips

    # a bad query: the message shows in the widget, the view stays usable
    shown = names_shown(widget)
    widget.locator(".pw-filter-input").fill("time >")
    widget.locator(".pw-filter-input").press("Enter")
    state = wait_state(nb, lambda s: bool(s["error"]))
    banner = widget.locator(".pw-error")
    banner.wait_for(state="visible")
    message = banner.locator(".pw-error-text").inner_text()
    assert "expected a number" in message and message == state["error"]
    assert names_shown(widget) == shown and state["nodes"] == len(gf.graph)

    # click selects; keyboard moves, opens and selects (ARIA treegrid)
    target = row_named(widget, "TimeIncrement")
    target.click()
    state = wait_state(nb, lambda s: len(s["selected"]) == 1)
    assert state["selected"] == [int(target.get_attribute("data-node"))]
    expect_attr(target, "aria-selected", "true")
    body = widget.locator(".pw-body")
    body.focus()
    body.press("Home")
    body.press("ArrowLeft")  # collapse the root
    state = wait_state(nb, lambda s: s["row_count"] == len(gf.graph.root_ids))
    expect_rowcount(widget, state["row_count"])
    body.press("ArrowRight")  # open it again
    state = wait_state(nb, lambda s: s["row_count"] > 1)
    expect_rowcount(widget, state["row_count"])
    body.press("ArrowDown")
    body.press("Enter")
    second = state["first_rows"][1]
    state = wait_state(nb, lambda s: s["selected"] == [_node(gf, second)])
    expect_text(widget.locator(".pw-row[aria-selected='true'] .pw-name"), second)
    expect_count(widget.locator(".pw-row[aria-selected='true']"), 1)
    save_screenshot(widget, "explorer_lab")
    page_watch.assert_clean()


def test_explorer_in_notebook7(tmp_path: Path, page: Page, page_watch: PageWatch) -> None:
    # Notebook 7.6.5 throws this itself while loading, on any notebook, with or without
    # widgets (checked with every lab extension disabled in turn); it is not the explorer's
    page_watch.tolerate(
        "Cannot read properties of undefined (reading 'schema')", "/static/notebook/"
    )
    # a server of its own: on the shared Lab server's origin, the layout Lab stored makes
    # Notebook 7 call Lab-only commands
    (tmp_path / "root").mkdir()
    server = start_lab(tmp_path / "root", tmp_path)
    try:
        _check_notebook7(server, page, page_watch)
    finally:
        page.close()  # close the page before its server goes
        server.stop()


def _check_notebook7(server: Server, page: Page, page_watch: PageWatch) -> None:
    nb = explorer_notebook(server.root_dir / "explorer_nb7.ipynb", lulesh_frame())
    open_in_notebook7(page, server, "explorer_nb7.ipynb", READY)
    widget = page.locator(".pw-explorer").first
    state = wait_state(nb, lambda s: s["row_count"] > 0)
    expect_names(widget, state["first_rows"])
    closed = row_named(widget, "LagrangeElements")
    closed.locator(".pw-toggle").click()
    state = wait_state(nb, lambda s: s["row_count"] > len(state["first_rows"]))
    expect_rowcount(widget, state["row_count"])
    widget.locator(".pw-search-input").fill("^Lagrange")
    widget.locator(".pw-search-input").press("Enter")
    state = wait_state(nb, lambda s: s["search"].get("count", 0) > 0)
    expect_count(widget.locator(".pw-row.pw-match"), state["search"]["count"])
    save_screenshot(widget, "explorer_notebook7")
    page_watch.assert_clean()


def test_explorer_in_voila_shows_markup_as_text(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    frame = (
        "import numpy as np, pandas as pd\n"
        "from perfweave.calltree._build import build_graphframe\n"
        f"names = ['main', {XSS!r}, 'std::vector<int>::push_back', 'x' * 10_000]\n"
        "count = np.array([2**62 + 1, 2**53 + 1, 7, 3], dtype=np.int64)\n"
        "gf = build_graphframe(pd.DataFrame({'name': names}),\n"
        "    pd.DataFrame({'node': np.arange(4), 'time': [1.0, 2.0, np.nan, np.inf],\n"
        "                  'count': count}),\n"
        "    parent=[-1, 0, 0, 0], exc_metrics=['time', 'count'], inc_metrics=[])\n"
        "gf.update_inclusive_columns()"
    )
    nb = explorer_notebook(
        tmp_path / "xss.ipynb", frame, ", metrics=['time (inc)', 'time', 'count']"
    )
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    widget = page.locator(".pw-explorer")
    expect_count(rows(widget), 4)
    names = names_shown(widget)
    assert XSS in names and "std::vector<int>::push_back" in names and "x" * 10_000 in names
    assert widget.locator("img").count() == 0  # the name never became an element
    assert page_watch.dialogs == []
    long_row = row_named(widget, "x" * 10_000)
    assert long_row.bounding_box()["height"] <= 30  # one line, cut with an ellipsis
    assert "inf" in long_row.inner_text()
    nan_row = row_named(widget, "std::vector<int>::push_back")
    assert "–" in nan_row.locator(".pw-metric").first.inner_text()  # NaN: a dash, no bar
    # counts of 3 and 7 under 4.6e18 ("4.612E") read in a step of their own, not "3.0e-18E"
    for row, count in [(long_row, "3"), (nan_row, "7")]:
        assert row.locator(".pw-metric").nth(2).inner_text().split()[0] == count
    # an int64 count above 2**53 reaches the tooltip exactly
    for name, exact in [("main", 2**62 + 1), (XSS, 2**53 + 1)]:
        row_named(widget, name).locator(".pw-metric").nth(2).hover()
        expect_attr(widget.locator(".pw-tooltip"), "data-value", str(exact))
    widget.locator(".pw-search-input").fill("<img")
    widget.locator(".pw-search-input").press("Enter")
    wait_state(nb, lambda s: s["search"].get("count") == 1)
    expect_count(widget.locator(".pw-row.pw-match"), 1)
    save_screenshot(widget, "explorer_voila_names")
    page_watch.assert_clean()


def test_big_tree_keeps_few_row_elements(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    frame = (
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})\n"
        "from benchmarks.calltree import make_gf\n"
        "gf = make_gf(100_000).update_inclusive_columns()"
    )
    # "Expand all" opens every row when its budget allows (10,000 by default)
    nb = explorer_notebook(tmp_path / "big.ipynb", frame, ", expand_budget=100_000")
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    widget = page.locator(".pw-explorer")
    body = widget.locator(".pw-body")
    body.focus()
    body.press("Home")
    widget.locator("[data-action=expand-all]").click()
    wait_state(nb, lambda s: s["row_count"] == 100_000)
    expect_rowcount(widget, 100_000)
    most = 0
    height = body.evaluate("b => b.scrollHeight")
    for frac in [0.1, 0.25, 0.5, 0.75, 0.9, 1.0]:
        body.evaluate("(b, y) => { b.scrollTop = y; }", int(frac * height))
        page.wait_for_timeout(120)
        most = max(most, widget.locator(".pw-row").count())
    last = widget.locator(".pw-row:not([hidden])").last
    expect_attr(last, "data-row", str(100_000 - 1))
    rows(widget).last.wait_for()
    assert most <= 250, f"{most} row elements in the DOM"
    assert widget.locator(".pw-row").count() <= 250
    save_screenshot(widget, "explorer_voila_100k_end")
    page_watch.assert_clean()


def test_ensemble_and_compare_modes(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    mpi = sorted(str(p) for p in (DATA / "thicket/mpi_scaling_cali").glob("*.cali"))
    cpi = DATA / "hatchet/hpctoolkit-cpi-database"
    nb = write_notebook(
        tmp_path / "modes.ipynb",
        [
            "import perfweave as pw\nfrom perfweave.widgets import CalltreeExplorer",
            f"ens = pw.Ensemble.from_files({mpi!r})\n"
            "CalltreeExplorer(ens, metrics=['Avg time/rank', 'Max time/rank'],"
            " color_by='mpi.world.size')",
            f"gf = pw.read({str(cpi)!r})\n"
            "a = gf.filter('rank == 0', squash=False).drop_index_levels()\n"
            "b = gf.filter('rank == 3', squash=False).drop_index_levels()\n"
            "CalltreeExplorer(a, compare=b, hot_levels=8)",
        ],
    )
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    page.locator(READY).nth(1).wait_for()
    ensemble, compare = page.locator(".pw-explorer").nth(0), page.locator(".pw-explorer").nth(1)
    canvases = ensemble.locator(".pw-row:not([hidden]) canvas.pw-canvas")
    assert canvases.count() >= 3
    assert not canvas_is_blank(canvases.first)
    assert "across 5 profiles" in ensemble.locator(".pw-hglyph").inner_text()
    assert "mpi.world.size" in ensemble.locator(".pw-legend").inner_text()
    ensemble.locator(".pw-glyph").first.hover()
    expect_text(ensemble.locator(".pw-tooltip"), "median")
    # the quartiles say their unit, as the rank glyph's do: "min 42.838467 s · q1 ..."
    tip = ensemble.locator(".pw-tooltip").inner_text()
    assert re.search(r"min [\d.e+-]+ s · q1", tip) and re.search(r"max [\d.e+-]+ s", tip), tip
    save_screenshot(ensemble, "explorer_voila_ensemble")
    ensemble.locator("select.pw-stat").select_option("max")
    expect_text(ensemble.locator(".pw-hcell.pw-sorted"), "Avg time/rank (max)")
    ensemble.locator("select.pw-color-by").select_option("")
    expect_count(ensemble.locator(".pw-legend .pw-key"), 0)
    heads = compare.locator(".pw-hcell").all_inner_texts()
    assert any(h.startswith("Δ time (inc)") for h in heads)
    assert compare.locator(".pw-bar.pw-pos, .pw-bar.pw-neg").count() > 0
    save_screenshot(compare, "explorer_voila_compare")
    page_watch.assert_clean()


def test_queries_typed_ahead_of_slow_replies_all_reach_python(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """A reply never takes the keyboard focus from the filter box: 30 queries typed while
    earlier ones are still being answered (each takes 0.2 s in Python) all arrive, in order,
    and the filter box keeps the focus (issue 23, defect 10)."""
    state = tmp_path / "typeahead.state.json"
    nb = write_notebook(
        tmp_path / "typeahead.ipynb",
        [
            "import time\nimport perfweave as pw\nfrom perfweave.widgets import CalltreeExplorer",
            STATE_HOOK,
            lulesh_frame(),
            f"ex = watch(CalltreeExplorer(gf), {str(state)!r})\n"
            "answer = ex._on_filter\n"
            "def slow_filter(**args):\n"
            "    time.sleep(0.2)\n"
            "    return answer(**args)\n"
            "ex._on_filter = slow_filter\n"
            "ex",
        ],
    )
    server = voila_server(nb)
    widget = open_in_voila(page, server.url(), READY)
    box = widget.locator(".pw-filter-input")
    box.click()
    queries = [f"`time (inc)` >= {i} or name == 'main'" for i in range(30)]
    for query in queries:
        page.keyboard.press("Control+A")
        page.keyboard.type(query, delay=0)
        page.keyboard.press("Enter")
    state = wait_state(nb, lambda s: len(s["history"]) >= 30, timeout=60)
    assert state["history"] == [f"filter {q}" for q in queries]
    assert state["selected"] == [] and state["error"] == ""
    expect_attr(widget, "data-actions", "30")  # every reply drawn
    assert box.evaluate("el => document.activeElement === el")
    # 30 steps fold into one line of chips: the first, "+25 more" (all on hover), the last 4
    chips = widget.locator(".pw-chip")
    expect_count(chips, 6)
    assert chips.nth(1).inner_text() == "+25 more"
    assert chips.nth(1).get_attribute("title").splitlines() == [
        f"filter {q}" for q in queries[1:26]
    ]
    save_screenshot(widget, "explorer_voila_typeahead")
    page_watch.assert_clean()


def test_a_burst_reaches_python_in_the_order_it_was_made_over_a_shuffling_link(
    lab: Server, page: Page, page_watch: PageWatch
) -> None:
    """30 queries and 10 undo clicks made in a burst reach Python in the order they were made,
    while the link hands each group of 4 requests over last-first and delays each reply at
    random (issue 29): Python's history is that of the same calls made from Python in order,
    and the page draws the last view."""
    nb = explorer_notebook(lab.root_dir / "burst.ipynb", lulesh_frame())
    link = ShuffledLink(page).install()
    widget = open_in_lab(page, lab, "burst.ipynb", READY)
    wait_state(nb, lambda s: s["row_count"] > 0)
    queries = [f"`time (inc)` >= {i} or name == 'main'" for i in range(30)]
    undo_after = {4, *range(6, 30, 3), 29}
    made = []
    for i, query in enumerate(queries):
        made.append(("filter", query))
        if i in undo_after:
            made.append(("undo", None))
    assert len(made) == 40
    expected = CalltreeExplorer(pw.read(str(LULESH)).drop_index_levels())
    for action, query in made:
        if action == "filter":
            expected.filter(query)
        else:
            expected.undo()

    box = widget.locator(".pw-filter-input")
    undo = widget.locator("[data-action=undo]")
    link.start()
    for action, query in made:
        if action == "undo":
            undo.click()
            continue
        box.click()
        page.keyboard.press("Control+A")
        page.keyboard.type(query, delay=0)
        page.keyboard.press("Enter")
    log = link.finish()
    # the link did swap them: the kernel got the page's steps in another order
    went_out = log.sent_order({"filter", "undo"})
    assert len(went_out) == 40 and went_out != sorted(went_out)
    assert log.delayed > 0

    expect_attr(widget, "data-actions", "40", timeout=60)  # every reply drawn
    state = wait_state(nb, lambda s: len(s["history"]) == len(expected.history), timeout=30)
    assert state["history"] == expected.history_labels
    assert state["nodes"] == expected.node_count and state["error"] == ""
    # the page shows the last step's view, not an earlier reply that came late
    expect_rowcount(widget, state["row_count"])
    chips = widget.locator(".pw-chip").all_inner_texts()
    assert chips[0] == state["history"][0] and chips[-4:] == state["history"][-4:]
    assert chips[1] == f"+{len(state['history']) - 5} more"
    save_screenshot(widget, "explorer_lab_burst_shuffled_link")
    page_watch.assert_clean()


def test_ranks_spread_imbalance_and_top_ranks(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """Issue 22 in the explorer: per row the values over the ranks (hover names the rank),
    an imbalance column one header click away, the selected row's top ranks."""
    # the tour's cpi profile: Caliper, 4 ranks, rank 3 spends 11 % longer in main
    nb = explorer_notebook(tmp_path / "ranks.ipynb", "gf = pw.datasets.cpi()")
    server = voila_server(nb)
    widget = open_in_voila(page, server.url(), READY)
    gf = pw.datasets.cpi()
    # only exclusive metrics: the tree, the glyph and the imbalance are of time (inc)
    assert "time (inc) across 4 ranks" in widget.locator(".pw-hglyph").inner_text()
    header = widget.locator(".pw-hcell[data-col='time (inc).imbalance']")
    assert "max / mean" in header.inner_text()
    canvases = widget.locator(".pw-row:not([hidden]) canvas.pw-canvas")
    assert not canvas_is_blank(canvases.first)
    # hovering a point names its rank: main's largest rank sits alone at the right end
    row = row_named(widget, "main")
    node = int(row.get_attribute("data-node"))
    values = with_inclusive(gf).dataframe["time (inc)"].xs(node, level="node")
    glyph = row.locator(".pw-glyph canvas")
    box = glyph.bounding_box()
    # drawDistribution's scale: [min(0, lowest), highest] over 4 .. width-4
    lo, hi = min(0.0, values.min()), values.max()
    x = 4 + (values.max() - lo) / (hi - lo) * (box["width"] - 8)
    page.mouse.move(box["x"] + x, box["y"] + box["height"] / 2)
    tip = widget.locator(".pw-tooltip")
    expect_text(tip, f"here: rank {int(values.idxmax())}")
    save_screenshot(widget, "explorer_voila_ranks_hover")
    # one header click: the children of every open row by imbalance, largest first
    drawn = int(widget.get_attribute("data-actions") or 0)
    header.click()
    wait_state(nb, lambda s: s["row_count"] > 0)
    expect_attr(header, "aria-sort", "descending")
    # the sorted rows drawn before the next click (under load a click on "main" landed on
    # the row that the sorted reply then drew there)
    expect_attr(widget, "data-actions", str(drawn + 1))
    # selecting a row lists its top ranks, largest first
    row_named(widget, "main").click()
    wait_state(nb, lambda s: s["selected"] == [node])
    details = widget.locator(".pw-details")
    expect_text(details, "main: time (inc) on its 4 ranks, largest first")
    lines = details.locator(".pw-details-line").all_inner_texts()
    order = values.sort_values(ascending=False).index
    assert [line.split(":")[0] for line in lines] == [f"rank {r}" for r in order]
    save_screenshot(widget, "explorer_voila_ranks")
    page_watch.assert_clean()


def test_ensemble_without_metrics_shows_time_and_the_glyph(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """RAJAPerf profiles carry 11 numeric columns: without metrics= the explorer shows the
    time metrics, with units, and the distribution glyph stays on screen."""
    files = sorted(str(p) for p in (DATA / "thicket/rajaperf/quartz").rglob("*.cali"))[:6]
    nb = write_notebook(
        tmp_path / "rajaperf.ipynb",
        [
            "import perfweave as pw\nfrom perfweave.widgets import CalltreeExplorer",
            f"ens = pw.Ensemble.from_files({files!r})\nCalltreeExplorer(ens)",
        ],
    )
    server = voila_server(nb)
    page.set_viewport_size({"width": 1100, "height": 800})
    widget = open_in_voila(page, server.url(), READY)
    heads = widget.locator(".pw-hmetric .pw-hlabel").all_inner_texts()
    assert [h.replace(" ▼", "") for h in heads] == [
        "Avg time/rank (mean)",
        "Min time/rank (mean)",
        "Max time/rank (mean)",
        "Total time (mean)",
    ]
    assert "% of the whole run" in widget.locator(".pw-hmetric").first.inner_text()
    glyph = widget.locator(".pw-hglyph").bounding_box()
    box = widget.bounding_box()
    assert glyph["x"] + glyph["width"] <= box["x"] + box["width"]  # on screen, not pushed off
    value = widget.locator(".pw-row:not([hidden]) .pw-metric .pw-val").first.inner_text()
    assert value.split()[1] in ("s", "ms", "µs", "ns")  # a unit with the value
    save_screenshot(widget, "explorer_voila_rajaperf_default")
    page_watch.assert_clean()


def test_match_query_in_the_filter_box(lab: Server, page: Page, page_watch: PageWatch) -> None:
    """Hatchet's string dialect typed into the filter box; a bad one is shown in place."""
    nb = explorer_notebook(lab.root_dir / "explorer_match.ipynb", lulesh_frame())
    open_in_lab(page, lab, "explorer_match.ipynb", READY)
    widget = page.locator(".pw-explorer").first
    gf = pw.read(str(LULESH)).drop_index_levels()
    wait_state(nb, lambda s: s["row_count"] > 0)
    query = (
        'MATCH (".", p)->("*")->(".", q) WHERE p."name" = "main" AND q."name" STARTS WITH "Calc"'
    )
    widget.locator(".pw-filter-input").fill(query)
    widget.locator(".pw-filter-input").press("Enter")
    state = wait_state(nb, lambda s: len(s["history"]) == 1)
    expected = gf.filter(query)
    assert state["nodes"] == len(expected.graph) and state["error"] == ""
    expect_text(widget.locator(".pw-chip"), f"filter {query}")
    expect_names(widget, state["first_rows"])
    # main and the paths from it down to the first Calc* node of each branch
    graph = expected.graph
    leaves = [graph.frame(i)["name"] for i in range(len(graph)) if not len(graph.children_of(i))]
    assert len(graph) > 2 and all(n.startswith("Calc") for n in leaves)
    widget.locator("[data-action=expand-all]").click()
    state = wait_state(nb, lambda s: s["row_count"] == len(graph))
    expect_count(widget.locator(".pw-row:not([hidden]) .pw-name"), len(graph))  # drawn
    shown = names_shown(widget)
    assert shown[0] == "main" and set(shown) == set(graph.frames["name"])
    save_screenshot(widget, "explorer_lab_match_query")

    bad = 'MATCH (".", p) WHER p."name" = "main"'
    widget.locator(".pw-filter-input").fill(bad)
    widget.locator(".pw-filter-input").press("Enter")
    state = wait_state(nb, lambda s: bool(s["error"]))
    banner = widget.locator(".pw-error")
    banner.wait_for(state="visible")
    message = banner.locator(".pw-error-text").inner_text()
    assert f"position {bad.index('WHER')}" in message and message == state["error"]
    assert names_shown(widget) == shown and state["nodes"] == len(expected.graph)
    save_screenshot(widget, "explorer_lab_match_query_error")
    page_watch.assert_clean()


def _node(gf, name: str) -> int:
    return int(gf.graph.frames.index[gf.graph.frames["name"] == name][0])


def expect_attr(loc: Locator, attr: str, value: str, timeout: float = 10.0) -> None:
    eventually(
        lambda: loc.get_attribute(attr) == value,
        lambda: f"{attr} is {loc.get_attribute(attr)!r}, expected {value!r}",
        timeout,
    )


def expect_text(loc: Locator, text: str, timeout: float = 10.0) -> None:
    eventually(
        lambda: text in (loc.first.inner_text() if loc.count() else ""),
        lambda: f"{text!r} never appeared; saw {loc.all_inner_texts()}",
        timeout,
    )


def expect_count(loc: Locator, n: int, timeout: float = 10.0) -> None:
    eventually(lambda: loc.count() == n, lambda: f"{loc.count()} elements, expected {n}", timeout)


def expect_names(widget: Locator, names: list[str], timeout: float = 10.0) -> None:
    """The table shows ``names`` as its first rows (once the rows in flight are drawn)."""
    eventually(
        lambda: names_shown(widget)[: len(names)] == names,
        lambda: f"rows shown {names_shown(widget)[: len(names)]}, Python has {names}",
        timeout,
    )


def expect_rowcount(widget: Locator, n: int) -> None:
    expect_attr(widget.locator(".pw-body"), "aria-rowcount", str(n))


def test_hpctoolkit_v4_and_perfflowaspect_in_the_explorer(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """Issue 21's formats in the widget: a GAMESS HPCToolkit database (format 4, 11,292
    nodes) opens on its hot path with Hatchet's names; a PerfFlowAspect trace with its calls
    merged shows inclusive and exclusive time and call counts."""
    gamess = DATA / "hatchet-more/hpctoolkit-gamess"
    laghos = DATA / "hatchet-more/perfflowaspect-laghos/laghos_1iter.pfw"
    nb = write_notebook(
        tmp_path / "formats.ipynb",
        [
            "import perfweave as pw",
            f"pw.CalltreeExplorer(pw.read({str(gamess)!r}), height=330)",
            f"pw.CalltreeExplorer(pw.read({str(laghos)!r}, merge_calls=True), height=330)",
        ],
    )
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    page.locator(READY).nth(1).wait_for()
    v4, trace = page.locator(".pw-explorer").nth(0), page.locator(".pw-explorer").nth(1)

    gf = pw.read(str(gamess))
    assert row_count(v4) > 5 and names_shown(v4)[:2] == ["entry", "function: gamess_"]
    total = gf.dataframe.loc[0, "time (inc)"]  # 1608.49: meta.db says seconds
    assert f"{total:,.0f} s" in rows(v4).first.inner_text()
    assert "s · % of the whole run" in v4.locator(".pw-hcell").nth(1).inner_text()
    assert "brnchx_" in " ".join(names_shown(v4))  # the hot path's second branch is open

    merged = pw.read(str(laghos), merge_calls=True)
    heads = trace.locator(".pw-hcell").all_inner_texts()
    assert any("time (inc)" in h for h in heads) and any("calls" in h for h in heads)
    roots = merged.dataframe.loc[[int(r.nid) for r in merged.graph.roots]]
    assert names_shown(trace)[0] == roots.sort_values("time (inc)")["name"].iloc[-1]
    assert trace.locator(".pw-hcell", has_text="ts").count() == 0
    save_screenshot(page.locator(".pw-explorer").nth(0), "explorer_voila_hpctoolkit4")
    save_screenshot(page.locator(".pw-explorer").nth(1), "explorer_voila_perfflowaspect")
    page_watch.assert_clean()
