"""The parts of a view worked out for some nodes only (``preorder_of``, ``NodeNames.of``) give
exactly what the whole-tree computations give for those nodes, on the bundled profiles."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree.display import (
    NodeNames,
    display_tree,
    node_names,
    preorder,
    preorder_of,
)
from perfweave.errors import GraphError, NoRegionWarning

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PROFILES = {
    # a tree 74 levels deep, 11,292 nodes
    "gamess": "hatchet-more/hpctoolkit-gamess",
    # a call graph (DAG): its display tree unrolls the paths
    "gprof-dag": "hatchet/gprof2dot-cpi/callgrind.dot.64042.0.1",
    # rank and thread levels; statement nodes named from the table
    "allgather": "hatchet/hpctoolkit-allgather-database",
    # three nodes without a name (named after their nearest named ancestor)
    "unresolved": "calltree-sampling/sampling-unresolved.cali",
    "lulesh": "hatchet/caliper-lulesh-json/lulesh-annotation-profile.json",
}


def _read(data_dir, name: str) -> pw.GraphFrame:
    if name != "unresolved":
        return pw.read(str(data_dir / PROFILES[name]))
    with pytest.warns(NoRegionWarning):  # samples outside any region, kept by function
        return pw.read(str(data_dir / PROFILES[name]))


@pytest.fixture(scope="module", params=sorted(PROFILES))
def profile(request, data_dir):
    return request.param, _read(data_dir, request.param)


def _closed_under_parents(parent: np.ndarray, picked: np.ndarray) -> np.ndarray:
    """``picked`` and all their ancestors, ascending."""
    keep = np.zeros(len(parent), bool)
    frontier = np.unique(picked)
    while len(frontier):
        keep[frontier] = True
        up = parent[frontier]
        frontier = np.unique(up[(up >= 0) & ~keep[np.maximum(up, 0)]])
    return np.flatnonzero(keep)


def _keys(gf: pw.GraphFrame, node: np.ndarray) -> dict[str, np.ndarray]:
    """Sort keys per display node: a metric's rank (as a view sorts by it), and all equal
    (children by id)."""
    metric = gf.dataframe[gf.default_metric].groupby(level="node").sum()
    values = metric.reindex(range(len(gf.graph))).to_numpy()[node]
    rank = np.empty(len(values), np.int64)
    rank[np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")] = np.arange(len(values))
    return {"metric": rank, "equal": np.zeros(len(values), np.int64)}


def test_preorder_of_a_part_is_the_whole_preorder_restricted(profile):
    name, gf = profile
    node, parent = display_tree(gf.graph)
    rng = np.random.default_rng(len(node))
    for key_name, key in _keys(gf, node).items():
        pos, _, _ = preorder(parent, key)
        whole = np.argsort(pos)  # display nodes in preorder
        for size in (1, 5, len(node) // 10, len(node)):
            members = _closed_under_parents(parent, rng.choice(len(node), size, replace=False))
            got = preorder_of(parent, members, key[members])
            want = whole[np.isin(whole, members)]
            assert np.array_equal(got, want), (name, key_name, size)


def test_preorder_of_refuses_a_part_without_its_parents(data_dir):
    gf = _read(data_dir, "lulesh")
    parent = np.asarray(gf.graph.parent)
    child = int(np.flatnonzero(parent >= 0)[-1])
    with pytest.raises(GraphError, match=f"node {child} is given without its parent"):
        preorder_of(parent, np.array([child]), np.zeros(1, np.int64))
    with pytest.raises(GraphError, match="ascending order"):
        preorder_of(parent, np.array([1, 0]), np.zeros(2, np.int64))


def _check_names(graph: pw.Graph, df: pd.DataFrame, seed: int) -> None:
    whole = node_names(graph, df)
    rng = np.random.default_rng(seed)
    picks = [
        np.arange(len(graph)),
        rng.choice(len(graph), min(40, len(graph)), replace=False),
        rng.integers(0, len(graph), 25),  # repeats too
        np.zeros(0, np.int64),
    ]
    for nodes in picks:
        lazy = NodeNames(graph, df)
        got = lazy.of(nodes)
        assert got.dtype == object and [type(x) for x in got] == [str] * len(nodes)
        assert got.tolist() == whole[nodes].tolist()
        # worked out for these nodes alone, unless one is named after an ancestor
        after_ancestor = any(n.startswith("(unnamed") for n in whole[nodes])
        assert lazy.complete == after_ancestor
        # later windows: names kept from earlier ones and new ones worked out
        again = np.concatenate([nodes[::-1], rng.integers(0, len(graph), 7)])
        assert lazy.of(again).tolist() == whole[again].tolist()
        assert lazy.of(nodes).tolist() == whole[nodes].tolist()
        assert lazy.complete == after_ancestor or any(
            n.startswith("(unnamed") for n in whole[again]
        )
        assert lazy.all.tolist() == whole.tolist()  # worked out whole after a part
        assert lazy.of(nodes).tolist() == whole[nodes].tolist()
        assert np.asarray(lazy).tolist() == whole.tolist() and len(lazy) == len(graph)


def test_names_of_some_nodes_are_their_names_among_all(profile):
    name, gf = profile
    _check_names(gf.graph, gf.dataframe, len(name))


def test_names_of_nodes_without_rows_or_a_name_come_from_their_frames(data_dir):
    """Nodes without rows take the frame's name or its file:line; blank names in the table
    count as none; nodes named after an ancestor are named the same as among all."""
    gf = _read(data_dir, "allgather")
    node = gf.dataframe.index.get_level_values("node").to_numpy()
    rng = np.random.default_rng(3)
    dropped = rng.choice(len(gf.graph), len(gf.graph) // 3, replace=False)
    rest = gf.dataframe[~np.isin(node, dropped)].copy()
    blank = rest.index.get_level_values("node").to_numpy() % 7 == 0
    rest.loc[blank, "name"] = "  "
    _check_names(gf.graph, rest, 4)
    unresolved = _read(data_dir, "unresolved")
    names = node_names(unresolved.graph, unresolved.dataframe)
    under = np.flatnonzero(pd.Series(names).str.startswith("(unnamed").to_numpy())
    assert len(under) == 3
    lazy = NodeNames(unresolved.graph, unresolved.dataframe)
    assert lazy.of(under).tolist() == names[under].tolist()


def test_names_of_some_nodes_from_a_table_not_sorted_by_node(data_dir):
    """A one-level table sorted by node is looked up by position, any other one through
    each node's first row: both give the names among all (rows shuffled, some repeated)."""
    gf = _read(data_dir, "gamess")
    df = gf.dataframe
    assert df.index.nlevels == 1 and df.index.is_monotonic_increasing
    rng = np.random.default_rng(5)
    shuffled = df.iloc[rng.permutation(len(df))]
    repeated = pd.concat([df, df.iloc[::3].assign(name="later row")]).sort_index(kind="stable")
    for table in (shuffled, repeated):
        _check_names(gf.graph, table, 6)
