"""Conformance with llnl-hatchet for subtree_sum, subgraph_sum, generate_exclusive_columns
and groupby_aggregate, on every shared example (the same reading as test_peer_ops).

Hatchet's ``groupby_aggregate`` raises on every one of them with the pandas installed
here (and on multi-rank frames by design); perfweave's is checked against a reference
built from the rows directly, and Hatchet's crash is asserted so that a fixed Hatchet
shows up.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

import perfweave as pw
from tests.calltree._peer import assert_same
from tests.calltree.test_peer_ops import IDS, PRESENT, _both, _exc_metric

# Hatchet's multi-index sums look up a child's row on a rank it has no row for
HATCHET_SUM_CRASHES = {"timemory": AttributeError}


def _case_name(case) -> str:
    return case[1].split("/")[0]


def _hatchet(case, fn):
    crash = HATCHET_SUM_CRASHES.get(_case_name(case))
    if crash is None:
        fn()
        return True
    with pytest.raises(crash):
        fn()
    return False


@pytest.mark.peer
@pytest.mark.parametrize("op", ["subtree_sum", "subgraph_sum"])
@pytest.mark.parametrize("case", PRESENT, ids=IDS)
def test_subtree_and_subgraph_sum(case, op):
    ours, theirs = _both(case)
    metric = _exc_metric(ours)
    getattr(ours, op)([metric], ["summed"])
    if _hatchet(case, lambda: getattr(theirs, op)([metric], ["summed"])):
        assert_same(ours, theirs, ["summed"])
    # in place (out_columns left out) gives the same numbers
    again = _both(case)[0]
    getattr(again, op)(metric)
    np.testing.assert_array_equal(again.dataframe[metric], ours.dataframe["summed"])


@pytest.mark.peer
@pytest.mark.parametrize("case", PRESENT, ids=IDS)
def test_generate_exclusive_columns(case):
    ours, theirs = _both(case)
    metric = _exc_metric(ours)
    if metric in ours.inc_metrics:  # only inclusive metrics (Caliper's Avg time/rank ...)
        before = set(ours.dataframe.columns)
        ours.generate_exclusive_columns()
        theirs.generate_exclusive_columns()
        made = sorted(set(ours.dataframe.columns) - before)
        assert made and set(made) <= set(ours.exc_metrics)
        assert_same(ours, theirs, made)
        return
    if _case_name(case) == "caliper-ordered-json":  # Hatchet's inclusive sum needs a
        theirs = ours.to_hatchet()  # 'Node order (inc)' (see test_peer_ops)
    ours.update_inclusive_columns()
    if not _hatchet(case, theirs.update_inclusive_columns):
        return
    before = ours.dataframe[metric].to_numpy(float)
    for gf in (ours, theirs):  # forget the exclusive metric, then derive it back
        gf.exc_metrics = [m for m in gf.exc_metrics if m != metric]
        gf.dataframe = gf.dataframe.drop(columns=[metric])
    ours.generate_exclusive_columns()
    theirs.generate_exclusive_columns()
    assert_same(ours, theirs, [metric])
    assert metric in ours.exc_metrics
    if ours.graph.is_tree():  # a tree gives the exclusive values back
        np.testing.assert_allclose(
            ours.dataframe[metric].to_numpy(float), before, rtol=1e-9, atol=1e-9
        )


def test_generate_exclusive_columns_bad_name():
    gf = pw.read("tests/data/hatchet/caliper-cpi-json/cpi-callpath-profile.json")
    gf.update_inclusive_columns()
    with pytest.raises(pw.errors.ShapeError, match="'time' is not an inclusive metric"):
        gf.generate_exclusive_columns("time")


def _reference_groups(gf, metric):
    """(name, rank/thread...) -> sum of the metric, and the set of name edges."""
    names = gf.graph.frames["name"].to_numpy(dtype=object).copy()
    first = gf.dataframe["name"].groupby(level="node").first()  # the dataframe's name wins
    names[first.index] = np.where(first.isna(), names[first.index], first.to_numpy(object))
    df = gf.dataframe.reset_index()
    df["_group"] = names[df["node"].to_numpy()]
    table = df.groupby(["_group", *gf.index_levels])[metric].sum()
    sums = {k if isinstance(k, tuple) else (k,): v for k, v in table.items()}
    edges = set()
    for v in range(len(gf.graph)):
        for c in gf.graph.children_of(v).tolist():
            if names[v] != names[c]:
                edges.add((names[v], names[c]))
    return dict(sums), edges


@pytest.mark.peer
@pytest.mark.parametrize("case", PRESENT, ids=IDS)
def test_groupby_aggregate_by_name(case):
    ours, theirs = _both(case)
    metric = _exc_metric(ours)
    with pytest.raises((ValueError, KeyError)):  # Hatchet fails: see the module docstring
        theirs.groupby_aggregate("name", {metric: "sum"})
    grouped = ours.groupby_aggregate("name", "sum")
    assert grouped.index_levels == ours.index_levels  # ranks/threads kept
    want_sums, want_edges = _reference_groups(ours, metric)
    got = grouped.dataframe.reset_index()
    g_names = grouped.graph.frames["name"].to_numpy(dtype=object)
    assert len(grouped.graph) == len({k[0] for k in want_sums})
    keys = zip(g_names[got["node"].to_numpy()], *(got[lvl] for lvl in grouped.index_levels))
    for key, value in zip(keys, got[metric]):
        assert value == pytest.approx(want_sums[key], rel=1e-9, abs=1e-12), key
    got_edges = {
        (g_names[v], g_names[c])
        for v in range(len(grouped.graph))
        for c in grouped.graph.children_of(v).tolist()
    }
    assert got_edges <= want_edges
    if grouped.graph.is_tree() or len(got_edges) == len(want_edges):
        assert got_edges == want_edges or not _acyclic(want_edges)


def _acyclic(edges) -> bool:
    children = defaultdict(list)
    for a, b in edges:
        children[a].append(b)
    state: dict = {}

    def visit(v) -> bool:
        state[v] = 1
        for c in children[v]:
            if state.get(c) == 1 or (c not in state and not visit(c)):
                return False
        state[v] = 2
        return True

    return all(visit(v) for v in list(children) if v not in state)


def test_groupby_aggregate_on_the_four_rank_cpi_profile():
    gf = pw.read("tests/data/hatchet/caliper-cpi-json/cpi-callpath-profile.json")
    grouped = gf.groupby_aggregate("name", "sum")
    assert grouped.index_levels == ["rank"]
    ranks = grouped.dataframe.groupby(level="rank")["time"].sum()
    np.testing.assert_allclose(ranks, gf.dataframe.groupby(level="rank")["time"].sum())
    means = grouped.groupby_aggregate("name", "mean")  # grouping again changes nothing
    assert len(means.graph) == len(grouped.graph)
    with pytest.raises(pw.errors.ShapeError, match="'nope'"):
        gf.groupby_aggregate("nope")


ALLGATHER = "tests/data/hatchet/hpctoolkit-allgather-database"  # 10 ranks x 2 threads


@pytest.fixture(scope="module")
def allgather_top():
    """The allgather database's top six levels (33 nodes x 20 rank/threads): Hatchet's
    per-node loops take seconds per column on the whole database."""
    gf = pw.read(ALLGATHER)
    return gf.filter(gf.graph.depth[gf.node_ids()] <= 5)


@pytest.mark.peer
def test_generate_exclusive_columns_on_ranks_and_threads(allgather_top):
    ours = allgather_top.copy()
    theirs = ours.to_hatchet()
    for gf in (ours, theirs):
        gf.exc_metrics = []
        gf.dataframe = gf.dataframe.drop(columns=["time"])
    ours.generate_exclusive_columns()
    theirs.generate_exclusive_columns()
    assert_same(ours, theirs, ["time"])


@pytest.mark.peer
def test_sums_on_ranks_and_threads(allgather_top):
    import hatchet as ht

    with pytest.raises(AttributeError):  # Hatchet's (node, rank, thread) lookups fail
        ht.GraphFrame.from_hpctoolkit(ALLGATHER).subtree_sum(["time"], ["summed"])
    gf = allgather_top.copy()
    gf.subtree_sum(["time"], ["summed"])
    time = gf.dataframe["time"]
    g = gf.graph
    for node in range(len(g)):
        below = time.loc[g.subtree(node).tolist()].groupby(level=["rank", "thread"]).sum()
        got = gf.dataframe["summed"].loc[node]
        np.testing.assert_allclose(got.to_numpy(), below.loc[got.index].to_numpy(), rtol=1e-12)
    # the inclusive column read by Hatchet from the database is the same sum
    np.testing.assert_allclose(gf.dataframe["summed"], gf.dataframe["time (inc)"], rtol=1e-9)
