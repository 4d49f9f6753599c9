"""CalltreeExplorer without a browser: state, message handlers, every action, history replay."""

from __future__ import annotations

import glob
import re

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree._build import build_graphframe
from perfweave.errors import GraphError, PerfweaveError, QueryError, ShapeError
from perfweave.widgets import CalltreeExplorer, replay
from perfweave.widgets._transport import unpack

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def lulesh(data_dir):
    gf = pw.read(str(data_dir / "hatchet/caliper-lulesh-json/lulesh-annotation-profile.json"))
    return gf.drop_index_levels()


@pytest.fixture(scope="module")
def cpi(data_dir):
    """HPCToolkit cpi: four ranks per node (the explorer shows the mean over ranks)."""
    return pw.read(str(data_dir / "hatchet/hpctoolkit-cpi-database"))


@pytest.fixture(scope="module")
def mpi_ensemble(data_dir):
    files = sorted(glob.glob(str(data_dir / "thicket/mpi_scaling_cali/*.cali")))
    return pw.Ensemble.from_files(files)


def window(ex: CalltreeExplorer, start: int = 0, count: int = 1000) -> dict:
    payload, buffers = ex._on_rows(start, count)
    cols = unpack(payload["rows"]["columns"], buffers)
    cols["_total"] = payload["rows"]["total"]
    return cols


def rows_of(ex: CalltreeExplorer) -> pd.DataFrame:
    return ex.visible_rows()


@pytest.mark.parametrize("which", ["tour_cpi", "allgather"])
def test_source_line_nodes_have_names_and_are_found(which, data_dir):
    """Statement frames have no ``name`` attribute: the explorer names them as ``tree()``
    does (``bcast_osu.c:2446``), never ``nan``, and the search box finds them."""
    if which == "tour_cpi":
        gf = pw.datasets.cpi()
    else:
        gf = pw.read(str(data_dir / "hatchet/hpctoolkit-allgather-database"))
    frames = gf.graph.frames
    statements = np.flatnonzero(frames["type"].to_numpy() == "statement")
    assert len(statements) and frames["name"].isna().sum() >= len(statements)
    ex = CalltreeExplorer(gf)
    ex.expand(gf.graph.root_ids.tolist(), subtree=True)
    rows = ex.visible_rows()
    assert not rows["name"].isin(["nan", "None", ""]).any()
    printed = gf.dataframe["name"].groupby(level="node").first()
    named = rows.set_index("node")["name"]
    assert list(named.loc[statements]) == list(printed.loc[statements])
    target = str(printed.loc[statements[-1]])
    assert ex.search(f"^{re.escape(target)}$") >= 1
    assert ex.search_state["node"] in set(np.flatnonzero(printed.to_numpy() == target))


def test_hot_path_opens_no_leaf_and_no_very_wide_node():
    # main -> wide (2,000 children) and main -> small; wide has the larger time
    n = 2_003
    parent = np.r_[-1, 0, 0, np.full(n - 3, 1)]
    time = np.r_[0.0, 0.0, 1.0, np.ones(n - 3)]
    gf = build_graphframe(
        pd.DataFrame({"name": ["main", "wide", "small"] + [f"leaf{i}" for i in range(n - 3)]}),
        pd.DataFrame({"node": np.arange(n), "time": time}),
        parent=parent,
        exc_metrics=["time"],
        inc_metrics=[],
    ).update_inclusive_columns()
    ex = CalltreeExplorer(gf)
    rows = rows_of(ex)
    assert list(rows["name"]) == ["main", "wide", "small"]
    assert list(rows["expanded"]) == [True, False, False]
    ex.expand("wide")
    assert ex.row_count == n


def test_first_view_opens_the_hot_path(lulesh):
    ex = CalltreeExplorer(lulesh)
    inc = lulesh.dataframe["time (inc)"]
    assert ex.sort_column == "time (inc)" and ex.sort_descending
    assert [c["key"] for c in ex.columns] == ["time (inc)", "time"]
    rows = rows_of(ex)
    assert ex.row_count == len(rows)
    assert rows.iloc[0]["name"] == "main" and rows.iloc[0]["expanded"]
    # along the hot path each opened node is its parent's largest child
    g = lulesh.graph
    for node in rows.loc[rows["expanded"], "node"]:
        parent = g.parent[node]
        if parent >= 0:
            siblings = g.children_of(parent)
            assert inc.loc[node] == inc.loc[siblings].max()
    # children of every expanded row follow it, sorted by the sort column, descending
    for i, row in rows[rows["expanded"]].iterrows():
        kids = rows[(rows.index > i) & (rows["depth"] == row["depth"] + 1)]
        kids = kids[kids.index < _next_at_or_above(rows, i)]
        assert set(kids["node"]) == set(g.children_of(row["node"]))
        assert list(kids["time (inc)"]) == sorted(kids["time (inc)"], reverse=True)


def _next_at_or_above(rows: pd.DataFrame, i: int) -> int:
    later = rows[(rows.index > i) & (rows["depth"] <= rows.loc[i, "depth"])]
    return int(later.index[0]) if len(later) else len(rows)


def test_window_carries_exact_values_as_binary_columns(lulesh):
    ex = CalltreeExplorer(lulesh)
    ex.expand(0, subtree=True)
    cols = window(ex)
    assert cols["_total"] == len(lulesh.graph) == ex.row_count
    nodes = cols["node"].astype(np.int64)
    assert cols["c0"].dtype == np.float64
    np.testing.assert_array_equal(cols["c0"], lulesh.dataframe["time (inc)"].to_numpy()[nodes])
    names = lulesh.graph.frames["name"].to_numpy()[nodes]
    assert cols["name"] == list(names)
    # parent_row points at the row of each row's parent
    for r, parent in enumerate(cols["parent_row"]):
        expected = lulesh.graph.parent[nodes[r]]
        assert (parent == -1) == (expected == -1)
        if parent >= 0:
            assert nodes[parent] == expected


def test_int64_counts_above_2_53_cross_exactly():
    big = np.array([2**62 + 1, 2**53 + 1, 3], dtype=np.int64)
    gf = build_graphframe(
        pd.DataFrame({"name": ["main", "a", "b"]}),
        pd.DataFrame({"node": [0, 1, 2], "count": big}),
        parent=[-1, 0, 0],
        exc_metrics=["count"],
        inc_metrics=[],
    )
    ex = CalltreeExplorer(gf, metrics=["count"])
    cols = window(ex)
    assert cols["c0"].dtype == np.int64
    got = dict(zip(cols["node"].tolist(), cols["c0"].tolist()))
    assert got == {0: 2**62 + 1, 1: 2**53 + 1, 2: 3}


def test_rank_levels_show_the_mean_over_ranks(cpi):
    ex = CalltreeExplorer(cpi)
    ex.expand(0, subtree=True)
    rows = rows_of(ex)
    mean = cpi.dataframe["time (inc)"].groupby(level="node").mean()
    np.testing.assert_allclose(rows["time (inc)"], mean.loc[rows["node"]].to_numpy())


def test_expand_collapse_and_sort(lulesh):
    ex = CalltreeExplorer(lulesh, hot_levels=0)
    assert ex.row_count == 1 + len(lulesh.graph.children_of(0))
    child = int(lulesh.graph.children_of(0)[0])
    before = ex.row_count
    ex.expand(child)
    assert ex.row_count == before + len(lulesh.graph.children_of(child))
    ex.collapse(child)
    assert ex.row_count == before
    ex.sort_by("time", descending=False)
    rows = rows_of(ex)
    kids = rows[rows["depth"] == 1]
    assert list(kids["time"]) == sorted(kids["time"])
    with pytest.raises(ShapeError, match="no shown column 'nope'"):
        ex.sort_by("nope")
    assert ex.error.startswith("no shown column")


def test_expand_a_hidden_node_opens_its_path(lulesh):
    ex = CalltreeExplorer(lulesh, hot_levels=0)
    deepest = int(np.argmax(lulesh.graph.depth))
    ex.expand(deepest)
    assert deepest in set(rows_of(ex)["node"])


def test_search_highlights_and_opens_matches(lulesh):
    ex = CalltreeExplorer(lulesh, hot_levels=0)
    names = lulesh.graph.frames["name"]
    expected = set(np.flatnonzero(names.str.contains("^Calc")))
    assert ex.search("^Calc") == len(expected)
    cols = window(ex)
    flagged = {int(n) for n, f in zip(cols["node"], cols["flags"]) if f & 2}
    assert flagged == expected  # every match is visible and flagged
    first = ex.search_state["node"]
    ex.next_match()
    assert ex.search_state["current"] == 2 and ex.search_state["node"] != first
    ex.previous_match()
    assert ex.search_state["node"] == first
    ex.next_match(-1)
    assert ex.search_state["current"] == len(expected)


def test_bad_regex_keeps_the_view(lulesh):
    ex = CalltreeExplorer(lulesh)
    before = rows_of(ex)
    with pytest.raises(QueryError, match="bad regular expression"):
        ex.search("([")
    assert "bad regular expression" in ex.error
    pd.testing.assert_frame_equal(rows_of(ex), before)


def test_filter_squash_undo_and_replay(lulesh):
    ex = CalltreeExplorer(lulesh)
    ex.filter("`time (inc)` > 5%")
    # a share filter keeps the measured inclusive values (see the test below)
    expected = lulesh.filter("`time (inc)` > 5%", update_inclusive_columns=False)
    assert ex.graphframe.graph == expected.graph
    pd.testing.assert_frame_equal(ex.graphframe.dataframe, expected.dataframe)
    assert ex.error == ""
    ex.focus("LagrangeNodal")
    ex.drop("CalcForceForNodes", subtree=False)
    assert [s.kind for s in ex.history] == ["filter", "focus", "drop"]
    assert ex.history_labels == [s.label for s in ex.history]
    again = replay(lulesh, ex.history)
    assert again.graph == ex.graphframe.graph
    pd.testing.assert_frame_equal(again.dataframe, ex.graphframe.dataframe)
    assert set(ex.graphframe.graph.frames["name"]) >= {"LagrangeNodal"}
    assert "CalcForceForNodes" not in set(ex.graphframe.graph.frames["name"])
    ex.undo()
    ex.undo()
    assert ex.graphframe.graph == expected.graph
    ex.undo()
    assert ex.graphframe is lulesh and ex.history == []
    with pytest.raises(QueryError, match="nothing to undo"):
        ex.undo()


def test_undo_restores_the_previous_rows(lulesh):
    ex = CalltreeExplorer(lulesh)
    ex.expand(0, subtree=True)
    ex.sort_by("time")
    before = rows_of(ex)
    ex.filter("name =~ '^Calc'")
    ex.undo()
    pd.testing.assert_frame_equal(rows_of(ex), before)
    assert ex.sort_column == "time"


def test_squash_step_after_unsquashed_filter(lulesh):
    ex = CalltreeExplorer(lulesh)
    ex.filter("time > 1e5", squash=False)
    assert len(ex.graphframe.graph) == len(lulesh.graph)
    ex.squash()
    expected = lulesh.filter("time > 1e5", squash=False).squash()
    assert ex.graphframe.graph == expected.graph
    assert [s.label for s in ex.history] == ["filter time > 1e5 (no squash)", "squash"]


def test_bad_query_shows_inline_and_keeps_everything(lulesh):
    ex = CalltreeExplorer(lulesh)
    ex.filter("time > 1e5")
    rows, frame = rows_of(ex), ex.graphframe
    for bad in ["time >", "nosuch > 3", "name =~ '('", "time > 1e99"]:
        with pytest.raises(QueryError):
            ex.filter(bad)
        assert ex.error and ex.graphframe is frame
        pd.testing.assert_frame_equal(rows_of(ex), rows)
    assert len(ex.history) == 1


def test_selection_is_the_dataframe_rows(cpi):
    ex = CalltreeExplorer(cpi)
    nodes = rows_of(ex)["node"].tolist()[:3]
    ex.select(nodes[:2])
    ex.select(nodes[2], add=True)
    assert ex.selected_count == 3 and ex.selected_nodes == sorted(nodes)
    expected = cpi.dataframe[cpi.dataframe.index.get_level_values("node").isin(nodes)]
    pd.testing.assert_frame_equal(ex.selection, expected)
    ex.clear_selection()
    assert ex.selection.empty and ex.selected_count == 0


def test_browser_requests_go_through_the_handler(lulesh):
    ex = CalltreeExplorer(lulesh, hot_levels=0)
    sent = []
    ex.send = lambda content, buffers=None: sent.append((content, buffers))

    def request(action, **args):
        ex._on_msg(ex, {"type": "request", "id": len(sent), "action": action, "args": args}, [])
        content, buffers = sent[-1]
        assert content["type"] == "response" and content["id"] == len(sent) - 1
        return content, unpack(content["rows"]["columns"], buffers) if "rows" in content else {}

    resp, cols = request("rows", start=0, count=50)
    assert resp["ok"] and resp["rows"]["total"] == ex.row_count
    vid = int(cols["vid"][1])
    resp, cols = request("toggle", vid=vid, viewport=[0, 50])
    assert resp["rows"]["total"] == ex.row_count > len(lulesh.graph.children_of(0)) + 1
    resp, _ = request("select", vid=vid, viewport=[0, 50])
    assert ex.selected_nodes == [int(ex._rows.node[vid])]
    resp, _ = request("filter", query="time >", viewport=[0, 50])
    assert not resp["ok"] and "expected" in resp["error"] and ex.error == resp["error"]
    assert resp["rows"]["total"] == ex.row_count  # the previous view comes back with it
    resp, _ = request("filter", query="`time (inc)` > 10%", viewport=[0, 50])
    assert resp["ok"] and ex.error == "" and len(ex.history) == 1
    resp, _ = request("undo", viewport=[0, 50])
    assert resp["ok"] and ex.history == []
    resp, _ = request("eval", code="1")
    assert not resp["ok"] and "unknown request 'eval'" in resp["error"]
    resp, _ = request("search", pattern="Calc", viewport=[0, 50])
    assert resp["ok"] and resp["scroll_to"] >= 0


def test_ensemble_mode_draws_distributions(mpi_ensemble):
    ens = mpi_ensemble
    ex = CalltreeExplorer(ens, metrics=["Avg time/rank"], color_by="mpi.world.size")
    assert ex.mode == "ensemble"
    assert [c["key"] for c in ex.columns] == ["Avg time/rank_mean"]
    assert ex.glyph["metric"] == "Avg time/rank" and len(ex.glyph["profiles"]) == 5
    assert sorted(ex.glyph["categories"]) == sorted(set(ens.metadata["mpi.world.size"].astype(str)))
    ex.expand(list(ens.graph.root_ids), subtree=True)
    cols = window(ex)
    nodes = cols["node"].astype(np.int64)
    table = ens.dataframe["Avg time/rank"].unstack()  # (node, profile)
    values = table.reindex(index=nodes, columns=ens.profiles).to_numpy()
    # each profile's point: its position on the row's scale [min(0, lowest), highest]
    lo = np.minimum(0, np.nanmin(values, axis=1, keepdims=True))
    hi = np.nanmax(values, axis=1, keepdims=True)
    expected = np.where(np.isnan(values), 255, np.rint(254 * (values - lo) / (hi - lo)))
    np.testing.assert_array_equal(cols["strip"], expected)
    assert cols["strip"].dtype == np.uint8 and (cols["strip"] == 254).any()
    np.testing.assert_allclose(cols["c0"], np.nanmean(values, axis=1))
    q = np.nanquantile(values, [0, 0.25, 0.5, 0.75, 1], axis=1).T
    np.testing.assert_allclose(cols["quartiles"], q)
    assert "mpi.world.size" in ex.glyph["color_columns"]
    # another statistic: same open rows, values from the stats table, sorted by it
    open_rows = rows_of(ex)["node"].tolist()
    ex.set_stat("median")
    assert [c["key"] for c in ex.columns] == ["Avg time/rank_median"]
    assert ex.sort_column == "Avg time/rank_median"
    rows = rows_of(ex)
    assert sorted(rows["node"]) == sorted(open_rows)
    median = dict(zip(nodes.tolist(), np.nanmedian(values, axis=1)))
    np.testing.assert_allclose(rows["Avg time/rank_median"], [median[n] for n in rows["node"]])
    with pytest.raises(ShapeError, match="unknown statistic 'mode'"):
        ex.set_stat("mode")
    assert ex.columns[0]["key"] == "Avg time/rank_median" and "unknown statistic" in ex.error
    ex.set_color_by(None)
    assert ex.glyph["categories"] == [] and ex.glyph["color_by"] == ""
    with pytest.raises(ShapeError, match="no metadata column 'nope'"):
        ex.set_color_by("nope")
    assert ex.glyph["color_by"] == ""  # unchanged
    ex.filter("`Avg time/rank` > 1")
    assert replay(ens, ex.history).graph == ex.graphframe.graph
    with pytest.raises(ShapeError, match="no metadata column"):
        CalltreeExplorer(ens, color_by="nope")
    with pytest.raises(ShapeError, match="for ensembles"):
        CalltreeExplorer(ens.to_graphframe(ens.profiles[0])).set_stat("median")


def test_compare_mode(lulesh, cpi):
    same = CalltreeExplorer(lulesh, compare=lulesh)
    assert same.mode == "compare"
    assert [c["kind"] for c in same.columns] == ["inc", "inc", "diff"]
    same.expand(0, subtree=True)
    rows = rows_of(same)
    assert (rows["time (inc)"] == 0).all()  # a frame against itself is all neutral
    # rank 0 against rank 1 of the same run: different values on the same tree
    a = cpi.filter("rank == 0", squash=False).drop_index_levels()
    b = cpi.filter("rank == 1", squash=False).drop_index_levels()
    ex = CalltreeExplorer(a, compare=b)
    diff = a - b
    ex.expand(list(ex.graphframe.graph.root_ids), subtree=True)
    rows = rows_of(ex)
    assert ex.graphframe.graph == diff.graph
    np.testing.assert_array_equal(
        rows["time (inc)"], diff.dataframe["time (inc)"].reindex(rows["node"]).fillna(0)
    )
    np.testing.assert_allclose(rows["time (inc)"], rows["time [a] (inc)"] - rows["time [b] (inc)"])
    assert (rows["time (inc)"] != 0).any()
    ex.filter("`time (inc)` > 0")  # filters act on the difference
    assert 0 < len(ex.graphframe.graph) < len(diff.graph)


def test_dag_rows_are_paths(data_dir):
    gf = pw.read(str(data_dir / "hatchet/gprof2dot-cpi/callgrind.dot.64042.0.1"))
    assert not gf.graph.is_tree()
    ex = CalltreeExplorer(gf)
    for root in gf.graph.root_ids:
        ex.expand(int(root), subtree=True)
    rows = rows_of(ex)
    paths = _count_paths(gf.graph)
    assert len(rows) == sum(paths[r] for r in gf.graph.root_ids)
    shared = [n for n in range(len(gf.graph)) if len(gf.graph.parents_of(n)) > 1]
    assert shared and all((rows["node"] == n).sum() >= 2 for n in shared[:5])


def _count_paths(graph) -> dict[int, int]:
    """Rows a DAG unrolls to below each node (a recursive count, for the test only)."""
    memo: dict[int, int] = {}

    def count(n: int) -> int:
        if n not in memo:
            memo[n] = 1 + sum(count(int(c)) for c in graph.children_of(n))
        return memo[n]

    return {int(n): count(int(n)) for n in range(len(graph))}


def test_cycles_and_path_explosion_are_guarded():
    graph = pw.Graph.from_edges(
        pd.DataFrame({"name": ["a", "b", "c"]}), np.array([0, 1, 0]), np.array([1, 2, 2])
    )
    from perfweave.calltree.display import display_tree

    node, parent = display_tree(graph)
    assert sorted(node.tolist()) == [0, 1, 2, 2]
    with pytest.raises(GraphError, match="more than 3 distinct call paths"):
        display_tree(graph, max_paths=3)


def test_bad_input_is_a_perfweave_error(lulesh):
    with pytest.raises(ShapeError, match="no metric column 'nope'"):
        CalltreeExplorer(lulesh, metrics=["nope"])
    with pytest.raises(ShapeError, match=r"Thicket\), not list"):
        CalltreeExplorer([1, 2])
    empty = lulesh.copy()
    empty.dataframe = empty.dataframe.iloc[:0]
    with pytest.raises(GraphError, match="nothing to explore"):
        CalltreeExplorer(empty)
    ex = CalltreeExplorer(lulesh)
    with pytest.raises(GraphError, match="no node 10000"):
        ex.expand(10_000)
    with pytest.raises(GraphError, match="no node named 'nope'"):
        ex.focus("nope")
    with pytest.raises(PerfweaveError):
        ex.filter("   ")


def test_nan_inf_and_long_names_are_shown():
    names = ["main", "x" * 10_000, "<img src=x onerror=alert(1)>", "nan"]
    time = np.array([1.0, np.nan, np.inf, -np.inf])
    gf = build_graphframe(
        pd.DataFrame({"name": names}),
        pd.DataFrame({"node": np.arange(4), "time": time}),
        parent=[-1, 0, 0, 0],
        exc_metrics=["time"],
        inc_metrics=[],
    )
    ex = CalltreeExplorer(gf, metrics=["time"])
    cols = window(ex)
    assert sorted(cols["name"]) == sorted(names)
    got = dict(zip(cols["name"], cols["c0"]))
    assert np.isnan(got["x" * 10_000]) and got["<img src=x onerror=alert(1)>"] == np.inf
    assert ex.columns[0]["total"] == 1.0  # only finite values make the total
    ex.sort_by("time")
    assert rows_of(ex)["name"].iloc[-1] == "x" * 10_000  # NaN sorts last
    ex.search(re.escape("<img"))
    assert ex.search_state["count"] == 1


@pytest.mark.peer
def test_hatchet_graphframe_is_accepted(data_dir):
    import hatchet as ht

    text = (data_dir / "hatchet/json/hatchet-graph-literal.json").read_text()
    hgf = ht.GraphFrame.from_json(text)
    ex = CalltreeExplorer(hgf)
    assert ex.node_count == len(hgf.graph)
    assert ex.mode == "frame"


@pytest.mark.peer("thicket")
def test_thicket_is_accepted(data_dir):
    import thicket as th

    files = sorted(glob.glob(str(data_dir / "thicket/mpi_scaling_cali/*.cali")))
    tk = th.Thicket.from_caliperreader(files, disable_tqdm=True)
    ex = CalltreeExplorer(tk, metrics=["Avg time/rank"])
    assert ex.mode == "ensemble" and len(ex.glyph["profiles"]) == len(files)


def test_a_change_made_in_python_pushes_the_page_its_rows(lulesh):
    """Once a page shows the explorer, a change made from Python sends the rows of the
    page's viewport with it (the page needs no request); a request's own changes do not
    (its response carries them), and nothing is pushed before any page asked."""
    ex = CalltreeExplorer(lulesh, hot_levels=0)
    sent = []
    ex.send = lambda content, buffers=None: sent.append((content, buffers))
    ex.sort_by("time", descending=True)
    assert sent == []  # no page yet
    ex._on_msg(
        ex, {"type": "request", "id": 1, "action": "rows", "args": {"start": 0, "count": 7}}, []
    )
    assert [m["type"] for m, _ in sent] == ["response"]
    node = _node_of(lulesh, "main")
    ex.set_extra_columns(pd.DataFrame({"model": ["n^2"]}, index=[node]))
    push, buffers = sent[-1]
    assert push["type"] == "push" and push["key"] == "rows"
    assert push["version"] == ex.view_version  # the version the page is told after it
    cols = unpack(push["rows"]["columns"], buffers)
    assert len(cols["vid"]) == min(7, ex.row_count)  # the page's viewport
    k = [c["key"] for c in ex.columns].index("model")
    assert dict(zip(cols["node"].tolist(), cols[f"c{k}"]))[node] == "n^2"
    sent.clear()
    ex._on_msg(ex, {"type": "request", "id": 2, "action": "sort", "args": {"column": "model"}}, [])
    assert [m["type"] for m, _ in sent] == ["response"]
    # a failed change pushes nothing (the page keeps its rows)
    sent.clear()
    with pytest.raises(ShapeError):
        ex.set_extra_columns(pd.DataFrame({"x": [1.0]}, index=[99999]))
    assert [m["type"] for m, _ in sent] == []


def test_reveal_opens_selects_and_scrolls_to_a_row(lulesh):
    """What a linked view does to point at a call path: the path is opened, the row
    selected, and the rows pushed to the page carry the row to scroll to (once)."""
    ex = CalltreeExplorer(lulesh, hot_levels=0)
    sent = []
    ex.send = lambda content, buffers=None: sent.append(content)
    ex._on_msg(
        ex, {"type": "request", "id": 1, "action": "rows", "args": {"start": 0, "count": 5}}, []
    )
    deep = int(np.argmax(lulesh.graph.depth))
    assert deep not in set(ex.visible_rows()["node"])  # closed at first
    ex.reveal(deep)
    assert deep in set(ex.visible_rows()["node"]) and ex.selected_nodes == [deep]
    push = sent[-1]
    row = list(ex.visible_rows()["node"]).index(deep)
    assert push["type"] == "push" and push["scroll_to"] == row
    assert push["rows"]["start"] <= row < push["rows"]["start"] + 100  # the window holds it
    assert ex._window(0, 5)[0]["scroll_to"] == -1  # only once
    with pytest.raises(GraphError, match="no node named 'nowhere'"):
        ex.reveal("nowhere")


def test_extra_columns_show_sort_and_follow_call_paths(lulesh):
    """What ScalingView puts beside the tree: a text column with a numeric sort key and a
    numeric column, matched to call paths through a filter."""
    ex = CalltreeExplorer(lulesh)
    names = lulesh.graph.frames["name"]
    nodes = [
        _node_of(lulesh, "main"),
        _node_of(lulesh, "LagrangeElements"),
        _node_of(lulesh, "LagrangeNodal"),
    ]
    frame = pd.DataFrame({"model": ["n^2", "log n", "n"], "r2": [0.99, 0.5, 0.75]}, index=nodes)
    ex.set_extra_columns(frame, sort_keys={"model": pd.Series([2.0, 0.5, 1.0], index=nodes)})
    spec = {c["key"]: c for c in ex.columns}
    assert spec["model"]["kind"] == "text" and spec["r2"]["kind"] == "extra"
    ex.expand(0, subtree=True)
    rows = ex.visible_rows().set_index("node")
    assert rows.loc[nodes[1], "model"] == "log n" and rows.loc[nodes[2], "r2"] == 0.75
    other = next(n for n in rows.index if n not in nodes)
    assert rows.loc[other, "model"] == "–" and np.isnan(rows.loc[other, "r2"])
    # sorted by the numeric key, not the text: LagrangeNodal (n) before LagrangeElements
    ex.sort_by("model", descending=True)
    shown = list(ex.visible_rows()["node"])
    assert shown.index(nodes[2]) < shown.index(nodes[1])
    ex.sort_by("model", descending=False)
    shown = list(ex.visible_rows()["node"])
    assert shown.index(nodes[1]) < shown.index(nodes[2])
    # the page receives the text
    cols = window(ex)
    k = [c["key"] for c in ex.columns].index("model")
    got = dict(zip(cols["node"].tolist(), cols[f"c{k}"]))
    assert got[nodes[0]] == "n^2"
    # a filter renumbers the nodes: the values stay on their call paths
    ex.filter("name == 'main' or name =~ '^Lagrange'")
    after = ex.graphframe.graph.frames["name"]
    ex.expand(0, subtree=True)
    rows = ex.visible_rows().set_index("name")
    assert rows.loc["LagrangeElements", "model"] == "log n"
    assert rows.loc["LagrangeNodal", "r2"] == 0.75
    assert len(after) < len(names)
    # bad input: a clear error, nothing changed
    with pytest.raises(ShapeError, match="no node 99999"):
        ex.set_extra_columns(pd.DataFrame({"x": [1.0]}, index=[99999]))
    assert "model" in [c["key"] for c in ex.columns] and "no node 99999" in ex.error
    with pytest.raises(ShapeError, match="name of a metric column"):
        ex.set_extra_columns(pd.DataFrame({"time": [1.0]}, index=[0]))
    # a unit: the column is shown like a metric in that unit; a unit for no column is refused
    timed = pd.DataFrame({"model": ["n"], "r2": [0.5]}, index=[0])
    ex.set_extra_columns(timed, units={"r2": "s"})
    spec = {c["key"]: c for c in ex.columns}
    assert spec["r2"]["unit"] == "s" and spec["model"]["unit"] == ""
    with pytest.raises(ShapeError, match="unit for 'speed'"):
        ex.set_extra_columns(timed, units={"speed": "s"})
    ex.set_extra_columns(None)
    assert [c["key"] for c in ex.columns] == ["time (inc)", "time"]


def _node_of(gf, name: str) -> int:
    return int(np.flatnonzero(gf.graph.frames["name"].to_numpy() == name)[0])


def test_requests_that_arrive_out_of_order_are_applied_as_typed(lulesh):
    """Filters and undos a page made in one order, handed over in another (issue 29): the
    history is that of the same calls made from Python in the page's order."""
    made = []
    for i in range(8):
        made.append(("filter", {"query": f"`time (inc)` >= {i} or name == 'main'"}))
        if i % 3 == 2:
            made.append(("undo", {}))
    expected = CalltreeExplorer(lulesh)
    for action, args in made:
        getattr(expected, action)(**args)
    ex = CalltreeExplorer(lulesh)
    sent = []
    ex.send = lambda content, buffers=None: sent.append(content)
    arrival = np.random.default_rng(29).permutation(len(made)) + 1
    assert not np.array_equal(arrival, np.sort(arrival))
    for seq in arrival:
        action, args = made[seq - 1]
        msg = {"type": "request", "id": int(seq), "channel": "c1", "seq": int(seq)}
        msg.update(action=action, args={**args, "viewport": [0, 50]})
        ex._on_msg(ex, msg, [])
    assert ex.history_labels == expected.history_labels and len(ex.history) == 6
    assert ex.node_count == expected.node_count and ex.error == ""
    assert [r["id"] for r in sent] == list(range(1, len(made) + 1))
    assert all(r["ok"] for r in sent)


@pytest.mark.parametrize("pct", [10, 20, 30])
def test_the_same_share_filter_twice_keeps_the_same_tree(lulesh, pct):
    """A share is of the root's inclusive total; recomputed after the squash, the
    inclusive values shrank and the same query kept fewer nodes the second time."""
    ex = CalltreeExplorer(lulesh)
    query = f"`time (inc)` > {pct}%"
    ex.filter(query)
    once = ex.node_count
    kept = ex.graphframe.dataframe["time (inc)"].to_numpy()
    ex.filter(query)
    assert ex.node_count == once == len(lulesh.filter(query, update_inclusive_columns=False).graph)
    # the percentages stay of the whole run: the root keeps its measured total
    np.testing.assert_array_equal(np.sort(ex.graphframe.dataframe["time (inc)"]), np.sort(kept))
    assert ex.history_labels == [f"filter {query} (inclusive values as measured)"] * 2
    assert {c["key"]: c["total"] for c in ex.columns}["time (inc)"] == pytest.approx(
        lulesh.dataframe.loc[lulesh.graph.root_ids, "time (inc)"].sum()
    )
    # a filter without a share recomputes inclusive values as Hatchet does
    ex.filter("name =~ 'Lagrange' or name == 'main'")
    assert ex.history_labels[-1] == "filter name =~ 'Lagrange' or name == 'main'"


def test_caliper_aliases_are_inclusive_and_the_root_is_the_whole(mpi_ensemble):
    ex = CalltreeExplorer(mpi_ensemble)
    cols = {c["label"]: c for c in ex.columns}
    avg = cols["Avg time/rank (mean)"]
    assert avg["kind"] == "inc" and avg["share"] == "% of the whole run"
    assert avg["unit"] == "s"
    root = ex.visible_rows().iloc[0]
    assert root["name"] == "main"
    assert root["Avg time/rank_mean"] / avg["total"] > 0.99  # main is the run, not 17 %


def test_ensemble_defaults_to_time_metrics_with_units(data_dir):
    files = sorted((data_dir / "thicket/rajaperf/quartz").rglob("*.cali"))[:4]
    ens = pw.Ensemble.from_files([str(f) for f in files])
    assert len([m for m in ens.performance_cols if m != "nid"]) == 11
    ex = CalltreeExplorer(ens)
    labels = [c["label"] for c in ex.columns]
    assert labels == [  # the default metric first
        "Avg time/rank (mean)",
        "Min time/rank (mean)",
        "Max time/rank (mean)",
        "Total time (mean)",
    ]
    assert {c["unit"] for c in ex.columns} == {"s"}
    ex = CalltreeExplorer(ens, metrics=["Bytes/Rep", "Reps"])
    assert [c["unit"] for c in ex.columns] == ["B", ""]
    ex.set_stat("var")
    assert [c["unit"] for c in ex.columns] == ["", ""]  # s² is no s


def test_metadata_legend_sorts_numbers_as_numbers(mpi_ensemble):
    ex = CalltreeExplorer(mpi_ensemble, color_by="mpi.world.size")
    cats = ex.glyph["categories"]
    assert cats == sorted(cats, key=float) and len(cats) == 5
    assert cats[0] == "27" and cats[-1] == "343"
    sizes = mpi_ensemble.metadata["mpi.world.size"].astype(str).tolist()
    assert [cats[c] for c in ex.glyph["codes"]] == sizes


def test_failed_node_actions_set_error_and_raise(lulesh):
    ex = CalltreeExplorer(lulesh, request_timeout=3)
    assert ex.request_timeout == 3
    shown = ex.visible_rows()
    for action in (lambda: ex.focus("no such node"), lambda: ex.drop(10**6)):
        with pytest.raises(GraphError):
            action()
        assert "no node" in ex.error and isinstance(ex.error, str)
        pd.testing.assert_frame_equal(ex.visible_rows(), shown)
    with pytest.raises(QueryError, match="needs a query"):
        ex.filter("  ")
    assert "needs a query" in ex.error
    ex.sort_by("time")
    assert ex.error == ""


def test_ranks_show_their_spread_imbalance_and_top_ranks(cpi):
    """Issue 22: a frame with rank levels draws each node's values over its ranks, an
    imbalance column (max / mean, GraphFrame.load_imbalance) sortable, and a selected row
    lists its largest ranks."""
    ex = CalltreeExplorer(cpi)
    keys = [c["key"] for c in ex.columns]
    assert keys[-1] == "time (inc).imbalance" and ex.columns[-1]["kind"] == "ratio"
    assert ex.glyph["what"] == "ranks" and ex.glyph["profiles"] == [f"rank {r}" for r in range(4)]
    li = cpi.load_imbalance(["time (inc)"]).dataframe["time (inc).imbalance"]
    ex.expand(0, subtree=True)
    rows = ex.visible_rows().set_index("node")
    np.testing.assert_allclose(rows["time (inc).imbalance"], li.loc[rows.index], equal_nan=True)
    # the glyph's points are the node's values on each rank
    cols = window(ex)
    per_rank = cpi.dataframe["time (inc)"].unstack("rank")
    nodes = cols["node"].astype(np.int64)
    np.testing.assert_allclose(cols["quartiles"][:, 4], per_rank.loc[nodes].max(axis=1))
    np.testing.assert_allclose(cols["quartiles"][:, 0], per_rank.loc[nodes].min(axis=1))
    assert cols["strip"].shape == (len(nodes), 4)
    # one header click away: the most imbalanced children first
    ex.sort_by("time (inc).imbalance")
    shown = ex.visible_rows()
    for parent in shown.loc[shown["expanded"], "node"]:
        kids = shown[shown["node"].isin(cpi.graph.children_of(parent))]["time (inc).imbalance"]
        kids = kids.dropna()
        assert list(kids) == sorted(kids, reverse=True)
    # selecting a row lists its top ranks, largest first
    main = _node_of(cpi, "main")
    ex.select(main)
    top = per_rank.loc[main].sort_values(ascending=False)
    assert ex.details["title"].startswith("main: time (inc) on its 4 ranks")
    assert [line.split(":")[0] for line in ex.details["lines"]] == [f"rank {r}" for r in top.index]
    ex.clear_selection()
    assert ex.details == {}


def test_frames_without_ranks_have_no_rank_view(lulesh):
    ex = CalltreeExplorer(lulesh)
    assert ex.glyph == {} and not any(c["kind"] == "ratio" for c in ex.columns)


def test_ensemble_filter_box_takes_statistics(mpi_ensemble):
    """Issue 22: `Avg time/rank_std` > 0.1 in the filter box keeps what filter_stats keeps
    (the statistic computed when missing); the views stay consistent."""
    ex = CalltreeExplorer(mpi_ensemble)
    query = "`Avg time/rank_std` > 0.1"
    ex.filter(query)
    ref = mpi_ensemble.copy()
    ref.stats(["Avg time/rank"], stats=["std"])
    expected = ref.filter_stats(query)
    assert ex.graphframe.graph == expected.graph
    assert ex.history_labels == [f"filter statistics {query}"]
    assert len(replay(mpi_ensemble.copy(), ex.history).graph) == len(expected.graph)
    # the shown statistic and the glyph follow the kept nodes
    assert len(ex.graphframe.statsframe) == len(ex.graphframe.graph) == ex.node_count
    assert ex.visible_rows()["Avg time/rank_mean"].notna().all()
    with pytest.raises(QueryError, match="one kind at a time"):
        ex.filter("`Avg time/rank_std` > 0.1 and `Avg time/rank` > 1")
    assert ex.graphframe.graph == expected.graph  # unchanged
    ex.filter("`Avg time/rank` > 1")  # a per-profile query still filters the profiles' rows
    assert ex.history_labels[-1] == "filter `Avg time/rank` > 1"


def test_perfflowaspect_traces_show_durations_not_timestamps(data_dir):
    """Hatchet lists a trace event's start ``ts`` among PerfFlowAspect's metrics; it is a
    point in time (1.69e9 s), not an amount: the reader lists it as no metric (issue 28),
    so it is no default column, and shown on request it is a plain value, no share.
    ``dur`` is inclusive, ``dur (exc)`` exclusive."""
    trace = data_dir / "hatchet-more/perfflowaspect-laghos/laghos_1iter.pfw"
    gf = pw.read(str(trace))
    assert "ts" not in gf.exc_metrics + gf.inc_metrics
    ex = CalltreeExplorer(gf)
    assert [(c["key"], c["kind"]) for c in ex.columns] == [("dur", "inc"), ("dur (exc)", "exc")]
    shown = CalltreeExplorer(gf, metrics=["dur", "ts"]).columns
    assert [(c["key"], c["kind"]) for c in shown] == [("dur", "inc"), ("ts", "value")]
    # merged calls: the calltree form with inclusive and exclusive time
    merged = CalltreeExplorer(pw.read(str(trace), merge_calls=True))
    assert [c["key"] for c in merged.columns] == ["time (inc)", "time", "calls"]


def test_extra_columns_follow_a_focus(lulesh):
    """A focus makes its node a root (every call path below it changes): the extra columns
    still follow their nodes, matched by call path below the focused node."""
    ex = CalltreeExplorer(lulesh)
    names = ["LagrangeElements", "LagrangeNodal", "TimeIncrement"]
    frame = pd.DataFrame({"r2": [0.5, 0.75, 0.25]}, index=[_node_of(lulesh, n) for n in names])
    ex.set_extra_columns(frame)
    ex.focus("LagrangeLeapFrog")
    ex.expand(0, subtree=True)
    rows = ex.visible_rows().set_index("name")
    assert rows.loc["LagrangeElements", "r2"] == 0.5
    assert rows.loc["LagrangeNodal", "r2"] == 0.75
    assert np.isnan(rows.loc["LagrangeLeapFrog", "r2"])
    assert "TimeIncrement" not in rows.index
    ex.undo()
    ex.expand(0, subtree=True)
    assert ex.visible_rows().set_index("name").loc["TimeIncrement", "r2"] == 0.25


def test_the_explorer_is_a_view_over_a_study(lulesh):
    """A study made without a widget, then shown: the explorer's transforms are the study's."""
    study = pw.calltree.CalltreeStudy(lulesh)
    study.apply(study.filter_step("`time (inc)` > 1000000"))
    ex = CalltreeExplorer(study)
    assert ex.study is study and ex.graphframe is study.data
    assert ex.history_labels == ["filter `time (inc)` > 1000000"]
    ex.focus("LagrangeLeapFrog")
    assert [s.kind for s in study.history] == ["filter", "focus"]
    ex.undo()
    ex.undo()
    assert study.data is study.original and ex.history_labels == []


def test_assigning_a_bad_trait_value_is_refused_and_changes_nothing(lulesh):
    """Every public trait is checked the same way: a bad value raises the perfweave error
    and the trait keeps its value."""
    ex = CalltreeExplorer(lulesh, height=300)
    with pytest.raises(ShapeError, match="height must be a positive number of pixels"):
        ex.height = 0
    assert ex.height == 300
    n = len(ex.graphframe.graph)
    with pytest.raises(ShapeError, match=f"no node {n} under the cursor"):
        ex.cursor_node = n
    assert ex.cursor_node == -1
    ex.cursor_node = 3
    assert ex.cursor_node == 3
