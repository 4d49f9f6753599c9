"""perfweave.calltree.display: the names, display trees and preorder a view draws with."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree.display import display_tree, node_names, preorder
from perfweave.errors import GraphError


@pytest.fixture(scope="module")
def allgather(data_dir):
    return pw.read(str(data_dir / "hatchet/hpctoolkit-allgather-database"))


def test_statement_nodes_are_named_as_tree_prints_them(allgather):
    frames = allgather.graph.frames
    statements = np.flatnonzero(frames["type"].to_numpy() == "statement")
    assert len(statements) == 562 and frames["name"].isna().sum() == 569
    names = node_names(allgather.graph, allgather.dataframe)
    assert len(names) == len(allgather.graph)
    assert not any(n in ("nan", "None", "") for n in names)
    # the name tree() prints: the table's name at the node's rows (file base name:line)
    shown = allgather.dataframe["name"].groupby(level="node").first()
    assert list(names[statements]) == list(shown.loc[statements])
    barrier = frames.index[
        (frames["file"].astype(str).str.endswith("/barrier.c")) & (frames["line"] == 397)
    ][0]
    assert names[barrier] == "barrier.c:397"
    assert "barrier.c:397" in allgather.tree(expand_name=True)


def test_a_node_without_rows_takes_its_frame(allgather):
    graph = allgather.graph
    frames = graph.frames
    stmt = int(np.flatnonzero(frames["type"].to_numpy() == "statement")[0])
    func = int(np.flatnonzero(frames["name"].notna().to_numpy())[1])
    node = allgather.dataframe.index.get_level_values("node")
    rest = allgather.dataframe[~np.isin(node, [stmt, func])]
    names = node_names(graph, rest)
    assert names[func] == frames.loc[func, "name"]
    f = frames.loc[stmt]
    assert names[stmt] == f"{str(f['file']).rsplit('/', 1)[-1]}:{f['line']}"


def test_display_tree_unrolls_dags_and_guards_cycles():
    graph = pw.Graph.from_edges(
        pd.DataFrame({"name": ["a", "b", "c"]}), np.array([0, 1, 0]), np.array([1, 2, 2])
    )
    node, parent = display_tree(graph)
    assert sorted(node.tolist()) == [0, 1, 2, 2]
    assert (parent >= -1).all() and (parent < len(node)).all()
    with pytest.raises(GraphError, match="more than 3 distinct call paths"):
        display_tree(graph, max_paths=3)


def test_preorder_orders_children_by_key():
    parent = np.array([-1, 0, 0, 1])
    pos, depth, size = preorder(parent, np.array([0, 2, 1, 0]))
    assert pos.tolist() == [0, 2, 1, 3]  # node 2 (key 1) before node 1 (key 2)
    assert depth.tolist() == [0, 1, 1, 2] and size.tolist() == [4, 2, 1, 1]


def test_children_csr_is_read_only(allgather):
    ptr, idx = allgather.graph.children_csr()
    assert list(idx[ptr[0] : ptr[1]]) == list(allgather.graph.children_of(0))
    with pytest.raises(ValueError):
        idx[0] = 1


def test_tree_writers_and_widgets_name_a_node_by_one_rule(data_dir):
    """A name changed in the table shows everywhere (the table comes first, as in Hatchet),
    and a node named nowhere is ``file:line`` in ``tree()`` as in the explorer."""
    from perfweave.calltree.study import CalltreeStudy  # the names the explorer shows

    gf = pw.read(str(data_dir / "hatchet/hpctoolkit-allgather-database"))
    gf.drop_index_levels()
    main = int(np.flatnonzero(gf.graph.frames["name"].to_numpy() == "main")[0])
    gf.dataframe.loc[main, "name"] = "main (renamed)"
    assert node_names(gf.graph, gf.dataframe)[main] == "main (renamed)"
    assert CalltreeStudy(gf).view.names[main] == "main (renamed)"
    assert "main (renamed)" in gf.tree(expand_name=True)
    assert any(d["name"] == "main (renamed)" for d in _walk(gf.to_literal()))
    # no name in the table or the frame: the frame's file and line
    stmt = int(np.flatnonzero(gf.graph.frames["type"].to_numpy() == "statement")[0])
    gf.dataframe.loc[stmt, "name"] = np.nan
    label = node_names(gf.graph, gf.dataframe)[stmt]
    frame = gf.graph.frames.iloc[stmt]
    assert label == f"{str(frame['file']).rsplit('/', 1)[-1]}:{frame['line']}"
    assert label in gf.tree(expand_name=True) and "nan" not in gf.tree(expand_name=True)


def _walk(literal):
    for node in literal:
        yield node
        yield from _walk(node.get("children", []))


def test_readers_give_units_that_follow_derived_columns(data_dir):
    """HPCToolkit's meta.db and PerfFlowAspect's microseconds say a time is seconds although
    the column is a bare ``time``: the frame keeps the unit, for the columns derived from it
    too and through copies, filters and comparisons; other names keep their own unit."""
    from perfweave.calltree.compare import side_by_side

    gf = pw.read(str(data_dir / "hatchet-more/hatchet_cpi_v4_database"))
    assert gf.units == {"time (inc)": "s", "time": "s"}
    gf.drop_index_levels()
    kept = gf.filter(lambda row: row["time (inc)"] > 0).squash()
    assert kept.unit_of("time (inc)") == kept.unit_of("time") == "s"
    both = side_by_side(gf, gf.copy())
    assert both.unit_of("time [a]") == both.unit_of("time (inc) [b]") == "s"
    trace = data_dir / "hatchet-more/perfflowaspect-laghos/laghos_1iter.pfw"
    assert pw.read(str(trace)).unit_of("dur") == "s"
    merged = pw.read(str(trace), merge_calls=True)
    assert merged.unit_of("time (inc)") == "s" and merged.unit_of("calls") == ""
    # Caliper's readers know time.duration's unit (here by the attribute's name, read as
    # "time", and its whole values); a column no reader knows: its name decides
    lulesh = pw.read(str(data_dir / "hatchet/caliper-lulesh-json/lulesh-annotation-profile.json"))
    # an older Caliper's timer: whole microseconds (caliper_unit's rule), not seconds
    assert lulesh.units == {"time (inc)": "µs", "time": "µs"} and lulesh.unit_of("time") == "µs"
    assert lulesh.unit_of("Avg time/rank") == "s" and lulesh.unit_of("count") == ""
