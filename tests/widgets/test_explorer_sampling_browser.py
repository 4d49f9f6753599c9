"""CalltreeExplorer in a real browser (Voila on Debian's chromium) on a Caliper sampling
profile, "Expand all" past its row budget, and a search and a filter set from Python.

Issue 28, parts 2 and 7. The notebooks write the explorer's Python state to a JSON file
whenever it changes (tests/widgets/test_explorer_browser.py's hook), so the page and
Python are compared.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.widgets.browser import (
    PageWatch,
    Server,
    eventually,
    open_in_voila,
    save_screenshot,
    wait_state,
    write_notebook,
)
from tests.widgets.test_explorer_browser import (
    READY,
    STATE_HOOK,
    expect_attr,
    expect_count,
    expect_rowcount,
    expect_text,
    names_shown,
    row_named,
)

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[1] / "data"
UNRESOLVED = DATA / "calltree-sampling/sampling-unresolved.cali"

# a wide tree: main -> 60 phases -> 200 kernels each (12,061 nodes), only exclusive time;
# phase_59 has the least time, so its kernels sort last
WIDE_TREE = """
import numpy as np
import pandas as pd
from perfweave.calltree._build import build_graphframe

phases, kernels = 60, 200
names = ["main"] + [f"phase_{p}" for p in range(phases)]
names += [f"kernel_{p}_{k}" for p in range(phases) for k in range(kernels)]
parent = np.r_[-1, np.zeros(phases, int), 1 + np.repeat(np.arange(phases), kernels)]
own = np.r_[1.0, np.zeros(phases), np.repeat(np.linspace(2.0, 1.0, phases), kernels)]
own[1 + phases :] += np.tile(np.linspace(0.01, 0.0, kernels), phases)
gf = build_graphframe(
    pd.DataFrame({"name": names}),
    pd.DataFrame({"node": np.arange(len(names)), "time": own}),
    parent=parent, exc_metrics=["time"], inc_metrics=[], default_metric="time",
)
"""


def _state_path(nb: Path) -> Path:
    return nb.with_suffix(".state.json")


def _body_shows(widget: Locator, row: Locator) -> bool:
    """Whether ``row`` lies inside the table's scrolled view."""
    body, box = widget.locator(".pw-body").bounding_box(), row.bounding_box()
    return bool(
        body
        and box
        and box["y"] >= body["y"] - 1
        and box["y"] + box["height"] <= body["y"] + body["height"] + 1
    )


def test_a_sampling_profile_in_the_explorer(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """Only exclusive time and count, 3 nodes the sampler could not name: the explorer
    shows inclusive columns, opens on main's hot path, names and finds the unnamed nodes,
    and "Expand all" on a leaf opens the whole tree."""
    nb = write_notebook(
        tmp_path / "sampling.ipynb",
        [
            "import warnings\nimport perfweave as pw\nfrom perfweave.widgets import CalltreeExplorer",
            STATE_HOOK,
            "with warnings.catch_warnings():\n"
            "    warnings.simplefilter('ignore')  # the '(no region)' samples, said in the tree\n"
            f"    gf = pw.read({str(UNRESOLVED)!r})",
            f"ex = watch(CalltreeExplorer(gf), {str(_state_path(tmp_path / 'sampling.ipynb'))!r})\nex",
        ],
    )
    server = voila_server(nb)
    page.set_viewport_size({"width": 1200, "height": 900})
    widget = open_in_voila(page, server.url(), READY)
    state = wait_state(nb, lambda s: s["row_count"] > 0)
    heads = widget.locator(".pw-hmetric .pw-hlabel").all_inner_texts()
    assert [h.replace(" ▼", "") for h in heads] == ["time (inc)", "time", "count (inc)"]
    assert "% of the whole run" in widget.locator(".pw-hmetric").first.inner_text()
    # main (141 of 168 ms) first; the hot path open down to relax_kernel
    assert names_shown(widget)[:4] == ["main", "solve", "relax_kernel", "(unnamed) under solve"]
    assert names_shown(widget) == state["first_rows"][: len(names_shown(widget))]
    solve = row_named(widget, "solve")
    expect_attr(solve, "aria-expanded", "true")
    solve.locator(".pw-metric").first.hover()
    tip = widget.locator(".pw-tooltip")
    tip.wait_for(state="visible")
    assert float(tip.get_attribute("data-value")) == pytest.approx(0.091)  # not 0
    assert "48% of the whole run" in tip.inner_text()  # once "48% % of the whole run"
    save_screenshot(widget, "explorer_voila_sampling")

    # the unnamed nodes are named by where they sit, and found by the search box
    widget.locator(".pw-search-input").fill("unnamed")
    widget.locator(".pw-search-input").press("Enter")
    wait_state(nb, lambda s: s["search"].get("count") == 3)
    expect_text(widget.locator(".pw-search-count"), "1 / 3")
    expect_count(widget.locator(".pw-row.pw-match"), 3)

    # "Expand all" with the cursor on a leaf: the whole tree (closed first: the search
    # opened every match's path)
    for name in ("main", "(no region)"):
        row_named(widget, name).locator(".pw-toggle").click()
        expect_attr(row_named(widget, name), "aria-expanded", "false")
    state = wait_state(nb, lambda s: s["row_count"] == 3)
    expect_rowcount(widget, 3)
    leaf = row_named(widget, "MPI_Init")
    assert leaf.get_attribute("aria-expanded") is None  # a leaf has no toggle state
    leaf.click()
    widget.locator("[data-action=expand-all]").click()
    state = wait_state(nb, lambda s: s["row_count"] == s["nodes"] == 15)
    expect_rowcount(widget, 15)
    assert widget.locator(".pw-notice").count() == 0
    # the keyboard cursor stays on MPI_Init as rows open above it
    expect_text(widget.locator(".pw-row.pw-cursor .pw-name"), "MPI_Init")
    shown = names_shown(widget)
    assert {"(unnamed) under main", "(unnamed) under (no region)", "__poll"} <= set(shown)
    save_screenshot(widget, "explorer_voila_sampling_expanded")
    page_watch.assert_clean()


def test_search_and_filter_set_from_python_show_in_the_widget(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """explorer.search() from a notebook: the box shows the pattern, the count reads 1 / 1
    and the match, 300 rows down, is scrolled into view; explorer.filter(): the filter box
    and the history show the query. "Expand all" on a 12,061-node tree stops at its budget
    of 10,000 rows and says so."""
    nb_path = tmp_path / "from_python.ipynb"
    nb = write_notebook(
        nb_path,
        [
            "import ipywidgets as w\nimport perfweave as pw\n"
            "from perfweave.widgets import CalltreeExplorer",
            STATE_HOOK,
            WIDE_TREE,
            f"ex = watch(CalltreeExplorer(gf, height=300), {str(_state_path(nb_path))!r})\n"
            "search = w.Button(description='search from Python')\n"
            "search.on_click(lambda _: ex.search('kernel_59_150'))\n"
            "filt = w.Button(description='filter from Python')\n"
            "filt.on_click(lambda _: ex.filter('`time (inc)` > 1%'))\n"
            "w.VBox([w.HBox([search, filt]), ex])",
        ],
    )
    server = voila_server(nb)
    page.set_viewport_size({"width": 1200, "height": 900})
    widget = open_in_voila(page, server.url(), READY)
    wait_state(nb, lambda s: s["row_count"] > 0)
    body = widget.locator(".pw-body")
    assert body.evaluate("b => b.scrollTop") == 0

    page.get_by_role("button", name="search from Python").click()
    state = wait_state(nb, lambda s: s["search"].get("count") == 1)
    expect_text(widget.locator(".pw-search-count"), "1 / 1")
    eventually(
        lambda: widget.locator(".pw-search-input").input_value() == "kernel_59_150",
        lambda: f"the search box shows {widget.locator('.pw-search-input').input_value()!r}",
    )
    current = widget.locator(".pw-row.pw-current")
    expect_count(current, 1)
    assert current.locator(".pw-name").inner_text() == "kernel_59_150"
    assert body.evaluate("b => b.scrollTop") > 0
    eventually(lambda: _body_shows(widget, current), "the current match is not in view")
    save_screenshot(widget, "explorer_voila_search_from_python")

    page.get_by_role("button", name="filter from Python").click()
    state = wait_state(nb, lambda s: len(s["history"]) == 1)
    expect_text(widget.locator(".pw-chip"), "filter `time (inc)` > 1%")
    eventually(
        lambda: widget.locator(".pw-filter-input").input_value() == "`time (inc)` > 1%",
        lambda: f"the filter box shows {widget.locator('.pw-filter-input').input_value()!r}",
    )
    expect_rowcount(widget, state["row_count"])
    widget.locator("[data-action=undo]").click()
    wait_state(nb, lambda s: s["history"] == [])
    eventually(
        lambda: widget.locator(".pw-filter-input").input_value() == "",
        "the filter box still shows the undone filter",
    )

    # "Expand all" below main: 12,061 rows would show; the budget stops it
    body.focus()
    body.press("Home")  # the cursor to the first row: main
    widget.locator("[data-action=expand-all]").click()
    state = wait_state(nb, lambda s: s["row_count"] > 1000)
    assert state["row_count"] <= 10_000
    notice = widget.locator(".pw-notice")
    expect_text(notice, f"Expand all stopped at {state['row_count']:,} rows of 12,061")
    expect_rowcount(widget, state["row_count"])
    save_screenshot(widget, "explorer_voila_expand_budget")
    widget.locator(".pw-hcell[data-col='time']").click()  # the next action clears it
    eventually(lambda: widget.locator(".pw-notice").count() == 0, "the notice stayed")
    page_watch.assert_clean()
