"""Shares of the total in filter queries (``time > 5%``), checked against pandas on real data.

A share is X % of the column's sum over the rows of root nodes (over all rows for an
exclusive metric); with rank/thread index levels, of that sum within the row's own
rank/thread combination.
"""

from __future__ import annotations

import operator

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree import query
from perfweave.errors import QueryError

DATA = "tests/data/hatchet/"
INC = "time (inc)"


@pytest.fixture(scope="module")
def cpi():
    """HPCToolkit cpi: 4 ranks (index levels node, rank), one root."""
    return pw.GraphFrame.from_hpctoolkit(DATA + "hpctoolkit-cpi-database")


@pytest.fixture(scope="module")
def allgather():
    """HPCToolkit allgather: 10 ranks x 2 threads, three roots; thread 1 is all zeros."""
    return pw.GraphFrame.from_hpctoolkit(DATA + "hpctoolkit-allgather-database")


@pytest.fixture(scope="module")
def lulesh():
    """Caliper lulesh .cali: no rank/thread levels, one root."""
    return pw.GraphFrame.from_cali(DATA + "caliper-lulesh-cali/lulesh-annotation-profile.cali")


@pytest.fixture(scope="module")
def ordered_mpi():
    """Caliper region profile: no rank/thread levels, five roots."""
    return pw.GraphFrame.from_cali(
        DATA + "caliper-ordered-cali-mpi/230525-151723_1930647_FSY8b8cKSEEi.cali"
    )


def is_root(gf) -> np.ndarray:
    return np.asarray(gf.dataframe.index.get_level_values("node").isin(gf.graph.root_ids))


def root_totals(gf, col: str) -> pd.Series | float:
    """By hand: the roots' sum of ``col`` (all rows' sum for an exclusive metric), per
    rank/thread combination when there are any."""
    df = gf.dataframe
    rows = np.ones(len(df), bool) if col in gf.exc_metrics else is_root(gf)
    if not gf.index_levels:
        return float(df.loc[rows, col].sum())
    return df[col].where(rows, 0.0).groupby(level=gf.index_levels).transform("sum")


def by_hand(gf, col: str, pct: float, op=operator.gt) -> np.ndarray:
    return np.asarray(op(gf.dataframe[col], root_totals(gf, col) * (pct / 100)), dtype=bool)


def assert_same_filter(gf, text: str, mask: np.ndarray) -> None:
    """``filter(text)`` keeps exactly the rows of ``mask``, squashed or not."""
    assert mask.any() and not mask.all()  # the case actually discriminates
    kept = gf.filter(text, squash=False)
    pd.testing.assert_frame_equal(kept.dataframe, gf.dataframe[mask])
    ours, theirs = gf.filter(text), gf.filter(mask)
    assert ours.graph == theirs.graph
    pd.testing.assert_frame_equal(ours.dataframe, theirs.dataframe)


@pytest.mark.parametrize(
    ("fixture", "col"),
    [
        ("lulesh", "time"),
        ("ordered_mpi", "Total time"),
        ("cpi", INC),
        ("allgather", INC),
    ],
)
@pytest.mark.parametrize(
    ("op", "share", "compare", "pct"),
    [
        (">", "5%", operator.gt, 5.0),
        (">=", "5 %", operator.ge, 5.0),
        ("<", "0.5%", operator.lt, 0.5),
        ("<=", "2e0 %", operator.le, 2.0),
    ],
)
def test_share_keeps_the_rows_pandas_keeps(request, fixture, col, op, share, compare, pct):
    gf = request.getfixturevalue(fixture)
    assert_same_filter(gf, f"`{col}` {op} {share}", by_hand(gf, col, pct, compare))


def test_share_of_several_roots_is_of_their_sum(ordered_mpi):
    col = "Total time"
    roots = ordered_mpi.dataframe.loc[is_root(ordered_mpi), col]
    assert len(roots) == 5
    kept = query.parse(f"`{col}` > 10%").mask(ordered_mpi.dataframe, is_root(ordered_mpi))
    expected = ordered_mpi.dataframe[col] > 0.1 * roots.sum()
    assert expected.any() and not expected.all()
    assert np.array_equal(kept, expected.to_numpy())


def test_share_is_per_rank(cpi):
    # the root's inclusive time differs by rank, so only a per-rank total keeps every root
    roots = cpi.dataframe.loc[is_root(cpi), INC].droplevel("node")
    assert roots.nunique() == 4
    kept = cpi.filter("`time (inc)` >= 100%", squash=False).dataframe
    root_id = int(cpi.graph.root_ids[0])
    assert sorted(kept.xs(root_id, level="node").index) == [0, 1, 2, 3]
    own_total = roots.loc[kept.index.get_level_values("rank")].to_numpy()
    assert np.array_equal(kept[INC].to_numpy(), own_total)
    # with the mean of the ranks' totals, the rank with the smallest total would lose its root
    assert roots.min() < roots.mean()


def test_share_is_per_rank_and_thread(allgather):
    df = allgather.dataframe
    totals = root_totals(allgather, INC)
    # thread 1 is idle on every rank: its total is 0, so no row there is above 1% of it
    assert (totals.xs(1, level="thread") == 0).all()
    kept = allgather.filter("`time (inc)` > 1%", squash=False).dataframe
    assert set(kept.index.get_level_values("thread")) == {0}
    assert_same_filter(allgather, "`time (inc)` > 1%", by_hand(allgather, INC, 1.0))
    # the mean over rank/thread combinations (half of thread 0's total) is a different cut
    mean_cut = df[INC] > 0.01 * df.loc[is_root(allgather), INC].sum() / 20
    assert not np.array_equal(mean_cut.to_numpy(), by_hand(allgather, INC, 1.0))


def test_zero_and_hundred_percent(cpi, lulesh):
    df = cpi.dataframe
    everything = cpi.filter("`time (inc)` >= 0%", squash=False)
    assert len(everything.dataframe) == int((df[INC] >= 0).sum())
    positive = cpi.filter("`time (inc)` > 0%", squash=False).dataframe
    assert list(positive.index) == list(df.index[(df[INC] > 0).to_numpy()])
    with pytest.raises(QueryError, match="matched no rows"):
        cpi.filter("`time (inc)` > 100%")
    same = cpi.filter("`time (inc)` == 100%", squash=False).dataframe
    assert list(same.index) == list(
        cpi.filter("`time (inc)` >= 100%", squash=False).dataframe.index
    )
    others = cpi.filter("`time (inc)` != 100%", squash=False).dataframe
    assert len(same) + len(others) == len(df)
    # lulesh's metric is exclusive: 100% is the whole run's time, which no node has alone
    with pytest.raises(QueryError, match="matched no rows"):
        lulesh.filter("time >= 100%")
    some = lulesh.filter("time >= 10%", squash=False).dataframe
    assert list(some["time"]) == [
        t for t in lulesh.dataframe["time"] if t >= 0.1 * lulesh.dataframe["time"].sum()
    ]


def test_exclusive_column_share_is_of_all_rows(cpi):
    # HPCToolkit roots have no exclusive time: a share of the roots' own value would be 0,
    # so an exclusive metric's share is of its sum over all rows (per rank)
    assert (cpi.dataframe.loc[is_root(cpi), "time"] == 0).all()
    per_rank = cpi.dataframe["time"].groupby(level="rank").transform("sum")
    expected = (cpi.dataframe["time"] > 0.05 * per_rank).to_numpy()
    assert expected.any() and not expected.all()
    assert np.array_equal(
        cpi.filter("time > 5%", squash=False).dataframe.index, cpi.dataframe.index[expected]
    )
    # without being told which columns are exclusive, the query takes the roots' sum
    assert np.array_equal(
        query.parse("time > 5%").mask(cpi.dataframe, is_root(cpi)),
        (cpi.dataframe["time"] > 0).to_numpy(),
    )


def test_share_combines_with_other_comparisons(cpi):
    df = cpi.dataframe
    text = "`time (inc)` >= 5 % and name =~ 'Finalize' or not (time > 1%)"
    names = df["name"].str.contains("Finalize").to_numpy()
    expected = (by_hand(cpi, INC, 5.0, operator.ge) & names) | ~by_hand(cpi, "time", 1.0)
    assert_same_filter(cpi, text, expected)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("name =~ 5%", "unexpected '%' at position 9"),
        ("name !~ '^MPI' %", "unexpected '%' at position 15"),
        ("name == 'main'%", "unexpected '%' at position 14"),
        ("time > %", "expected a number or a quoted string at position 7"),
        ("time > 5%%", "unexpected '%' at position 9"),
        ("% > 5", "expected a column name at position 0"),
        ("time >= 5 % %", "unexpected '%' at position 12"),
    ],
)
def test_bad_shares_are_parse_errors_with_a_position(text, match):
    with pytest.raises(QueryError, match=match):
        query.parse(text)


def test_share_needs_a_numeric_column_and_a_graph(cpi):
    with pytest.raises(QueryError, match=r"numeric column; 'name' \(position 0\)"):
        cpi.filter("name > 5%")
    with pytest.raises(QueryError, match="not the index level 'rank'"):
        cpi.filter("rank > 5%")
    with pytest.raises(QueryError, match="no column 'tme'"):
        cpi.filter("tme > 5%")
    with pytest.raises(QueryError, match="needs a graph"):
        query.parse("time > 5%").mask(cpi.dataframe)
    with pytest.raises(QueryError, match="root_rows has shape"):
        query.parse("time > 5%").mask(cpi.dataframe, np.ones(3, bool))


def test_plain_queries_are_unchanged(cpi):
    df = cpi.dataframe
    q = query.parse("`time (inc)` > 5 and name =~ 'MPI'")
    assert not q.has_share and query.parse("time > 5%").has_share
    expected = (df[INC] > 5) & df["name"].str.contains("MPI")
    assert np.array_equal(q.mask(df), expected.to_numpy())
    assert np.array_equal(q.mask(df, is_root(cpi)), expected.to_numpy())
    with pytest.raises(QueryError, match="quoted regular expression at position 8"):
        query.parse("name =~ 5")
