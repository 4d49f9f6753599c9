"""CalltreeExplorer without a browser on a Caliper sampling profile (only exclusive
``time`` and ``count``, several records per node, nodes without a name), "Expand all"
within a row budget, and search and filter set from Python reaching the page.

Data: the synthetic sampling profiles of tests/data/calltree-sampling/.
"""

from __future__ import annotations

import numpy as np
import pytest

import perfweave as pw
from perfweave.errors import NoRegionWarning, ShapeError
from perfweave.widgets import CalltreeExplorer, replay

SAMPLING = "tests/data/calltree-sampling/sampling-profile.cali"
UNRESOLVED = "tests/data/calltree-sampling/sampling-unresolved.cali"

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _read(path: str):
    with pytest.warns(NoRegionWarning):
        return pw.read(path)


def _subtree_time(gf, name: str) -> float:
    node = int(np.flatnonzero(gf.graph.frames["name"].to_numpy() == name)[0])
    return float(gf.dataframe["time"].to_numpy()[gf.graph.subtree(node)].sum())


def _page(ex: CalltreeExplorer) -> list[dict]:
    """A page that has asked for its first rows; what the widget sends it afterwards."""
    sent: list[dict] = []
    ex.send = lambda content, buffers=None: sent.append(content)
    request = {"type": "request", "id": 1, "action": "rows", "args": {"start": 0, "count": 5}}
    ex._on_msg(ex, request, [])
    sent.clear()
    return sent


def test_a_sampling_profile_opens_on_its_inclusive_hot_path():
    gf = _read(SAMPLING)
    ex = CalltreeExplorer(gf)
    # the time pair, then the count below each node (metrics= shows the exclusive count)
    assert [c["key"] for c in ex.columns] == ["time (inc)", "time", "count (inc)"]
    assert [c["key"] for c in CalltreeExplorer(gf, metrics=["count"]).columns] == ["count"]
    assert ex.sort_column == "time (inc)" and ex.sort_descending
    rows = ex.visible_rows().set_index("name")
    # main holds 124 of the 168 samples: the first root, not the last
    assert list(rows.index[rows["depth"] == 0]) == ["main", "(no region)", "MPI_Init"]
    # an inner node reads as the time below it, not 0; the hot path is open to its leaf
    assert rows.loc["solve", "time (inc)"] == pytest.approx(_subtree_time(gf, "solve"))
    assert rows.loc["solve", "time (inc)"] == pytest.approx(0.080)
    assert rows.loc["main", "expanded"] and rows.loc["solve", "expanded"]
    assert "relax_kernel" in rows.index
    time_inc = next(c for c in ex.columns if c["key"] == "time (inc)")
    assert time_inc["total"] == pytest.approx(0.168)  # the bars' whole run
    assert "time (inc)" not in gf.dataframe.columns  # the user's frame is not changed
    assert "time (inc)" in ex.original.dataframe.columns
    ex.filter("`time (inc)` > 0.01")
    assert replay(ex.original, ex.history).graph == ex.graphframe.graph


def test_nodes_without_a_name_are_shown_and_found():
    gf = _read(UNRESOLVED)
    ex = CalltreeExplorer(gf)
    assert ex.search("unnamed") == 3
    ex.expand_all()
    names = ex.visible_rows()["name"]
    assert not names.str.strip().eq("").any()
    placed = {f"(unnamed) under {where}" for where in ("solve", "main", "(no region)")}
    assert placed <= set(names)
    assert ex.search("under solve$") == 1
    node = ex.search_state["node"]
    parent = gf.graph.parent[node]
    assert gf.graph.frame(node)["name"] == "" and gf.graph.frame(parent)["name"] == "solve"


def test_expand_all_on_a_leaf_or_without_a_cursor_opens_the_whole_tree():
    gf = _read(SAMPLING)
    ex = CalltreeExplorer(gf, hot_levels=0)
    _page(ex)
    rows = ex.visible_rows()
    assert ex.row_count < len(gf.graph)
    leaf = int(np.flatnonzero(rows["name"] == "MPI_Init")[0])  # a root without children
    vid = int(ex._rows.visible()[leaf])
    assert ex._rows.n_children[vid] == 0
    payload, _ = ex._on_expand_all(vid)  # the button with the cursor on a leaf
    assert payload["rows"]["total"] == ex.row_count == len(gf.graph) and ex.notice == ""
    ex.collapse(list(gf.graph.root_ids))
    ex._on_expand_all()  # no cursor row
    assert ex.row_count == len(gf.graph)
    # below a node with children: its subtree only
    ex.collapse(list(gf.graph.root_ids))
    ex.expand_all("main")
    shown = set(ex.visible_rows()["name"])
    assert "relax_kernel" in shown and "pthread_cond_timedwait" not in shown


def test_expand_all_stops_at_its_row_budget_and_says_so():
    gf = _read(SAMPLING)
    ex = CalltreeExplorer(gf, hot_levels=0)
    ex.collapse(list(gf.graph.root_ids))
    assert ex.row_count == 3
    ex.expand_all(budget=10)
    # main's 5 children and (no region)'s 2 fit (10 rows), solve's 2 would make 12
    assert ex.row_count == 10
    assert ex.notice == (
        "Expand all stopped at 10 rows of 12 (the budget of 10 rows): open deeper rows one "
        "by one, or filter first"
    )
    assert "solve" in set(ex.visible_rows()["name"]) and ex.visible_rows()["depth"].max() == 1
    ex.sort_by("time")  # the next action clears the notice
    assert ex.notice == ""
    with pytest.raises(ShapeError, match="row budget"):
        ex.expand_all(budget=0)
    # the constructor's budget is the button's
    small = CalltreeExplorer(gf, hot_levels=0, expand_budget=10)
    small.collapse(list(gf.graph.root_ids))
    small._on_expand_all()
    assert small.row_count == 10 and small.notice.startswith("Expand all stopped at 10 rows")
    with pytest.raises(ShapeError, match="row budget"):
        CalltreeExplorer(gf, expand_budget=True)


def test_search_from_python_shows_in_the_page_and_scrolls_to_the_match():
    """explorer.search() counted its matches but the page's box stayed empty and the match
    out of view: the pushed rows carry the match's row to scroll to, search_state the
    pattern the box shows."""
    gf = _read(SAMPLING)
    ex = CalltreeExplorer(gf, hot_levels=0)
    sent = _page(ex)
    assert ex.search("MPI_") == 2
    push = sent[-1]
    rows = list(ex.visible_rows()["node"])
    first = ex.search_state["node"]
    assert push["type"] == "push" and push["scroll_to"] == rows.index(first)
    assert ex.search_state["pattern"] == "MPI_" and ex.search_state["current"] == 1
    ex.next_match()
    second = ex.search_state["node"]
    assert second != first
    assert sent[-1]["scroll_to"] == list(ex.visible_rows()["node"]).index(second)
    assert ex._window(0, 5)[0]["scroll_to"] == -1  # once


def test_filter_from_python_shows_its_query_in_the_page():
    gf = _read(SAMPLING)
    ex = CalltreeExplorer(gf)
    _page(ex)
    ex.filter("`time (inc)` > 0.01")
    assert ex.filter_query == "`time (inc)` > 0.01"
    assert ex.history_labels == ["filter `time (inc)` > 0.01"]
    ex.squash()
    assert ex.filter_query == "`time (inc)` > 0.01"  # the last filter of the history
    ex.undo()
    ex.undo()
    assert ex.filter_query == "" and ex.history_labels == []
