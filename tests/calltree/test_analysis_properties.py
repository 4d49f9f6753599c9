"""Property tests of the analyses on random frames: ranks and threads with missing rows,
NaN values and several rows per (node, rank, thread), checked against plain pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.calltree._build import build_graphframe


@st.composite
def frames(draw, max_nodes=15):
    n = draw(st.integers(1, max_nodes))
    parent = [-1] + [draw(st.integers(-1, i - 1)) for i in range(1, n)]
    levels = draw(st.sampled_from([(), ("rank",), ("rank", "thread")]))
    n_rows = draw(st.integers(n, 4 * n + 8))
    node = [i for i in range(n)] + [draw(st.integers(0, n - 1)) for _ in range(n_rows - n)]
    values = [draw(st.one_of(st.just(float("nan")), st.integers(0, 50).map(float))) for _ in node]
    data = {"node": node, "time": values}
    for lvl in levels:
        data[lvl] = [draw(st.integers(0, 3)) for _ in node]
    gf = build_graphframe(
        [{"name": f"f{i}"} for i in range(n)],
        pd.DataFrame(data),
        parent=parent,
        exc_metrics=["time"],
    )
    return gf


def _cells(gf) -> pd.Series:
    """time per (node, rank, thread) cell: the sum of its rows, NaN if none has a value."""
    levels = list(range(gf.dataframe.index.nlevels))
    return gf.dataframe["time"].groupby(level=levels).sum(min_count=1)


def _grid(gf, across: str = "threads") -> pd.DataFrame:
    """time per node (rows) and compared unit (columns: the frame's rank/thread cells, or
    its ranks with their threads summed), by the rule of calltree.ranks written in pandas:
    0 where a node with a value somewhere has no value, all-NaN rows for nodes without."""
    cells = _cells(gf)
    levels = gf.index_levels
    units = gf.dataframe.index.droplevel("node").unique()  # the cells of the frame
    if across == "ranks" and len(levels) > 1:
        cells = cells.groupby(level=["node", "rank"]).sum(min_count=1)
        units = units.get_level_values("rank").unique()
        levels = ["rank"]
    table = cells.unstack(levels).reindex(columns=units)
    has = table.notna().any(axis=1)
    table = table.fillna(0.0)
    table.loc[~has] = np.nan
    return table


@settings(max_examples=80, deadline=None)
@given(frames())
def test_node_values_sum_rows_then_average_cells_missing_as_zero(gf):
    if gf.index_levels:
        want = _grid(gf).mean(axis=1)
    else:
        want = _cells(gf)
    got = gf.node_values("time")["time"]
    assert len(got) == len(gf.graph)
    np.testing.assert_allclose(got.to_numpy()[want.index], want.to_numpy(), equal_nan=True)


@settings(max_examples=80, deadline=None)
@given(frames(), st.integers(1, 6), st.sampled_from(["ranks", "threads"]))
def test_load_imbalance_against_pandas(gf, top, across):
    if not gf.index_levels or (across == "ranks" and "rank" not in gf.index_levels):
        return
    grid = _grid(gf, across)
    li = gf.load_imbalance("time", top=top, across=across).dataframe
    np.testing.assert_allclose(li["time.mean"], grid.mean(axis=1), equal_nan=True)
    np.testing.assert_allclose(li["time.max"], grid.max(axis=1), equal_nan=True)
    np.testing.assert_allclose(
        li["time.excess"], grid.max(axis=1) - grid.mean(axis=1), equal_nan=True
    )
    measured = (
        _cells(gf).groupby(level=["node", "rank"]).sum(min_count=1)
        if across == "ranks" and len(gf.index_levels) > 1
        else _cells(gf)
    )
    for node, ranks in li["time.top_ranks"].items():
        mine = measured.loc[node].dropna()
        assert len(ranks) == min(top, len(mine))
        expected = mine.sort_values(ascending=False, kind="stable").index[: len(ranks)]
        got_values = [mine.loc[key] for key in _keys(li, node, ranks)]
        assert got_values == [mine.loc[key] for key in expected]  # the largest, in order


def _keys(li, node, ranks):
    if "time.top_threads" in li.columns:
        return list(zip(ranks, li.loc[node, "time.top_threads"]))
    return list(ranks)


@settings(max_examples=80, deadline=None)
@given(frames())
def test_inclusive_rows_add_up_once(gf):
    gf.update_inclusive_columns()
    inc = gf.node_values("time (inc)")["time (inc)"].to_numpy()
    own = gf.node_values("time")["time"].to_numpy()
    g = gf.graph
    if gf.index_levels:  # per cell: the cell's rows sum to own cell + children's cells
        cells = _cells(gf).fillna(0.0)
        inc_cells = (
            gf.dataframe["time (inc)"].groupby(level=list(range(gf.dataframe.index.nlevels))).sum()
        )
        for key, value in inc_cells.items():
            node, rest = key[0], key[1:]
            below = sum(cells.get((d, *rest), 0.0) for d in g.subtree(node).tolist())
            assert value == np.float64(below) or np.isclose(value, below)
        return
    for v in range(len(g)):
        sub = g.subtree(v)
        total = np.nansum(own[sub])
        if np.isnan(own[sub]).all():
            assert np.isnan(inc[v])
        else:
            assert np.isclose(inc[v], total)
