"""Ensemble analyses on their own: speedup/efficiency against a per-profile computation,
statistics filters keeping the tables consistent, the tests against scipy node by node
(with missing values), groupby/agg, arithmetic, and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

import perfweave as pw
from perfweave.calltree.graphframe import GraphFrame
from perfweave.ensemble import Ensemble
from perfweave.errors import GraphError, MetadataError, PerfweaveWarning, QueryError, ShapeError
from tests.ensemble._thicket_match import our_paths

A = "Avg time/rank"


@pytest.fixture(scope="module")
def mpi(mpi_files):
    return Ensemble.from_files(mpi_files)


@pytest.fixture
def sparse(rand):
    """12 random profiles over a small name vocabulary: nodes missing in many profiles."""
    rng = np.random.default_rng(7)
    return Ensemble.from_graphframes(
        [rand(rng, 30, meta={"i": i, "size": 2 ** (i % 3)}) for i in range(12)], profile_key="i"
    )


def _per_profile(ens: Ensemble, column: str) -> pd.DataFrame:
    """call path x scale values, read from each profile's own GraphFrame."""
    cols = {}
    for pid in ens.profiles:
        gf = ens.to_graphframe(pid)
        scale = ens.metadata.loc[pid, "mpi.world.size"]
        cols[scale] = pd.Series(
            gf.dataframe[column].to_numpy(),
            index=pd.Index(our_paths(gf.graph), tupleize_cols=False),
        )
    return pd.DataFrame(cols)


# ------------------------------------------------------------------ speedup / efficiency
def test_speedup_and_efficiency_follow_choppers_definitions(mpi):
    ens = mpi.copy()
    values = _per_profile(ens, A)
    base = min(values.columns)
    assert base == 27
    speed = ens.speedup("mpi.world.size", [A])
    strong = ens.efficiency("mpi.world.size", [A])
    weak = ens.efficiency("mpi.world.size", [A], scaling="weak")
    others = sorted(c for c in values.columns if c != base)
    assert list(speed.columns) == ["name"] + [f"{p}.{A}.speedup" for p in others]
    paths = our_paths(ens.graph)
    for table in (speed, strong, weak):
        table.index = pd.Index(paths, tupleize_cols=False)
    for p in others:
        t0, tp = values[base].reindex(paths), values[p].reindex(paths)
        np.testing.assert_allclose(speed[f"{p}.{A}.speedup"], t0 / tp, rtol=1e-12)
        np.testing.assert_allclose(strong[f"{p}.{A}.efficiency"], t0 * base / (tp * p), rtol=1e-12)
        np.testing.assert_allclose(weak[f"{p}.{A}.efficiency"], t0 / tp, rtol=1e-12)
    # main does not scale perfectly: its strong efficiency at 343 ranks is below 1
    assert speed.loc[[("main",)], f"343.{A}.speedup"].iloc[0] > 0
    assert strong.loc[[("main",)], f"343.{A}.efficiency"].iloc[0] < 1
    # and the columns are in the statistics table for filter_stats
    assert f"343.{A}.efficiency" in ens.statsframe.columns
    with pytest.warns(PerfweaveWarning, match="merged"):  # MPI_Wait under one parent
        kept = ens.filter_stats(f"`343.{A}.efficiency` < 0.5")
    assert 0 < len(kept.graph) < len(ens.graph)


def test_repeated_runs_of_a_scale_are_averaged(quartz_files):
    ens = Ensemble.from_files(quartz_files)
    table = ens.speedup("ProblemSizeRunParam", [A])
    (col,) = [c for c in table.columns if c != "name"]
    assert col == f"2097152.{A}.speedup"
    df = ens.dataframe.reset_index()
    df["size"] = df["profile"].map(ens.metadata["ProblemSizeRunParam"])
    mean = df.groupby(["node", "size"])[A].mean().unstack()
    np.testing.assert_allclose(table[col], mean[1048576.0] / mean[2097152.0], rtol=1e-12)
    med = ens.speedup("ProblemSizeRunParam", [A], agg="median")
    median = df.groupby(["node", "size"])[A].median().unstack()
    np.testing.assert_allclose(med[col], median[1048576.0] / median[2097152.0], rtol=1e-12)


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda e: e.speedup("cluster", [A]), MetadataError, ["'cluster'", "not numeric"]),
        (lambda e: e.speedup("no such", [A]), MetadataError, ["'no such'"]),
        (lambda e: e.speedup("threads", [A]), MetadataError, ["'threads'", "two scales"]),
        (lambda e: e.speedup("mpi.world.size", ["nope"]), ShapeError, ["'nope'"]),
        (lambda e: e.efficiency("mpi.world.size", [A], scaling="wide"), ShapeError, ["wide"]),
        (lambda e: e.ttest([A]), ShapeError, ["two columns"]),
        (lambda e: e.check_normality(["nope"]), ShapeError, ["'nope'"]),
        (lambda e: e.calc_boxplot_statistics([A], [0.5]), ShapeError, ["three numbers"]),
        (lambda e: e.confidence_interval([A], 1.5), ShapeError, ["(0, 1)"]),
        (lambda e: e.correlate(A, "cluster", "kendall"), MetadataError, ["'cluster'"]),
        (lambda e: e.filter_stats("`nope_std` > 1"), QueryError, ["'nope_std'"]),
        (lambda e: e.filter_stats(lambda r: r["name"] == "absent"), QueryError, ["no node"]),
        (lambda e: e.filter_stats(np.ones(3, bool)), ShapeError, ["(3,)"]),
        (lambda e: e.replace_profile_index("cluster"), MetadataError, ["'cluster'", "unique"]),
        (lambda e: e.metadata_columns_to_perfdata("nope"), MetadataError, ["'nope'"]),
        (lambda e: e.get_node("nope"), GraphError, ["'nope'"]),
        (lambda e: e.groupby("cluster").agg(lambda x: x.sum()), ShapeError, ["named function"]),
        (lambda e: Ensemble.concat([e, e], calltree="some"), ShapeError, ["'some'"]),
    ],
)
def test_bad_input_names_what_is_wrong(mpi, call, error, words):
    ens = mpi.copy()
    before = ens.statsframe.copy()
    with pytest.raises(error) as info:
        call(ens)
    for w in words:
        assert w in str(info.value)
    assert len(ens.graph) == 45 and ens.statsframe.columns.equals(before.columns)


def test_weak_speedup_is_refused(mpi):
    from perfweave.ensemble.speedup import scaling_table

    with pytest.raises(ShapeError, match="strong scaling only"):
        scaling_table(mpi, "mpi.world.size", [A], "weak", "speedup")


# ------------------------------------------------------------------ statistics filters
def test_filter_stats_leaves_the_input_and_keeps_ancestors_wired(mpi):
    ens = mpi.copy()
    ens.stats([A], stats=["mean"])
    with pytest.warns(PerfweaveWarning, match="merged 2 groups"):
        out = ens.filter_stats(lambda row: row["name"].startswith("MPI_W"))
    assert len(ens.graph) == 45  # the input is unchanged
    assert set(out.graph.frames["name"]) == {"MPI_Wait", "MPI_Waitall"}
    # kept nodes with equal frames that became siblings merged: their rows were summed
    assert len(out.graph) == 2
    wait = int(np.flatnonzero(out.graph.frames["name"].to_numpy() == "MPI_Wait")[0])
    mask = ens.graph.frames["name"].to_numpy() == "MPI_Wait"
    expect = ens.by_profile(A)[mask].drop(columns="name").sum()
    got = out.by_profile(A).drop(columns="name").iloc[wait]
    np.testing.assert_allclose(got.to_numpy(), expect.to_numpy())


def test_merged_nodes_lose_their_statistics_with_a_warning(make):
    gfs = [
        make(["main", "a", "foo", "b", "foo"], [-1, 0, 1, 0, 3], [1, 2, 3, 4, 5], {"r": r})
        for r in range(3)
    ]
    ens = Ensemble.from_graphframes(gfs, profile_key="r")
    ens.stats(["time"], stats=["mean"])
    with pytest.warns(PerfweaveWarning, match="merged 1 groups"):
        out = ens.filter_stats(lambda row: row["name"] in ("main", "foo"))
    assert out.graph.frames["name"].tolist() == ["main", "foo"]
    assert out.statsframe["time_mean"].iloc[0] == 1.0
    assert np.isnan(out.statsframe["time_mean"].iloc[1])
    assert (out.dataframe["time"].to_numpy()[3:] == 8.0).all()  # 3 + 5 in each profile
    assert out.statsframe["name"].tolist() == ["main", "foo"]


def test_query_stats_without_squash_keeps_the_graph(mpi):
    ens = mpi.copy()
    ens.stats([A], stats=["max"])
    out = ens.query_stats(f"`{A}_max` > 1", squash=False)
    assert out.graph is ens.graph
    kept = ens.statsframe[f"{A}_max"] > 1
    assert out.statsframe.index.tolist() == ens.statsframe.index[kept].tolist()
    node = out.dataframe.index.get_level_values("node")
    assert set(node) == set(out.statsframe.index)


# ------------------------------------------------------------------ tests vs scipy
def _node_values(ens, column):
    df = ens.dataframe.reset_index()
    return {n: g[column].dropna().to_numpy() for n, g in df.groupby("node")}


def test_kendall_matches_scipy_per_node(sparse):
    ens = sparse
    df = ens.dataframe.copy()
    rng = np.random.default_rng(0)
    df["other"] = np.where(df["time"].isna(), np.nan, rng.integers(0, 3, len(df)))  # ties
    ens = ens._replace(dataframe=df)
    name = ens.correlate("time", "other", "kendall")
    got = ens.statsframe[name]
    rows = ens.dataframe.reset_index().dropna(subset=["time"]).groupby("node")
    checked = 0
    for node, g in rows:
        if len(g) < 2 or g["time"].nunique() < 2 or g["other"].nunique() < 2:
            assert np.isnan(got[node])
            continue
        expect = sps.kendalltau(g["time"], g["other"]).statistic
        np.testing.assert_allclose(got[node], expect, atol=1e-12)
        checked += 1
    assert checked > 5


def test_normality_and_boxplots_match_scipy_and_numpy_with_missing_values(sparse):
    ens = sparse
    (norm,) = ens.check_normality(["time"])
    names = ens.calc_boxplot_statistics(["time"])
    sf = ens.statsframe
    q = "(0.25, 0.5, 0.75)"
    profiles = ens.dataframe.reset_index()
    seen_short = seen_tested = 0
    for node, values in _node_values(ens, "time").items():
        if len(values) < 3:
            assert pd.isna(sf[norm][node])
            seen_short += 1
        else:
            assert bool(sf[norm][node]) == (sps.shapiro(values).pvalue > 0.05)
            seen_tested += 1
        q1, q2, q3 = np.quantile(values, [0.25, 0.5, 0.75])
        np.testing.assert_allclose([sf[f"time_q1{q}"][node], sf[f"time_q3{q}"][node]], [q1, q3])
        iqr = q3 - q1
        mine = profiles[(profiles["node"] == node) & profiles["time"].notna()]
        out = mine[(mine["time"] > q3 + 1.5 * iqr) | (mine["time"] < q1 - 1.5 * iqr)]
        assert sf[f"time_outliers{q}"][node] == out["profile"].tolist()
    assert seen_short and seen_tested
    assert len(names) == 7


def test_preference_with_a_function_that_returns_labels(mpi):
    ens = mpi.copy()
    names = ens.preference([A, "Max time/rank"], lambda x, y: "avg" if x < y else "max")
    col = ens.statsframe[names[1]]
    assert set(col) <= {"avg", "max", "No preference"}
    t = ens.statsframe[f"{A} vs Max time/rank_tstatistic"]
    tv = ens.statsframe[f"{A} vs Max time/rank_tvalue"]
    assert ((col != "No preference") == (t.abs() > tv)).all()


# ------------------------------------------------------------------ groupby, arithmetic
def test_groupby_agg_with_a_dict_and_two_columns(sparse):
    ens = sparse
    by = ens.groupby(["size"])
    assert sorted(by) == [1, 2, 4]
    agg = ens.groupby("size").agg({"time": ["median", np.max]})
    assert agg.profile_level == "size" and agg.profiles == [1, 2, 4]
    assert list(agg.dataframe.columns[:2]) == ["time_median", "time_max"]
    df = ens.dataframe.reset_index()
    df["size"] = df["profile"].map(ens.metadata["size"])
    expect = df.groupby(["node", "size"])["time"].median()
    np.testing.assert_allclose(agg.dataframe["time_median"], expect, equal_nan=True)
    assert agg.exc_metrics == ["time_median", "time_max"]
    assert agg.metadata.loc[1, "i"] == {0, 3, 6, 9}
    two = ens.metadata.assign(odd=ens.metadata["i"] % 2)
    ens2 = ens._replace(metadata=two)
    both = ens2.groupby(["size", "odd"]).agg(np.mean)
    # one index level per column, as Thicket; the profile ids are the tuples of values
    assert both.profile_levels == ["size", "odd"] and len(both) == 6
    assert both.dataframe.index.names == ["node", "size", "odd"] and both.index_levels == []
    assert both.profiles[0] == (1, 0)


def test_arithmetic_between_ensembles(three_gfs, make):
    ens = Ensemble.from_graphframes(three_gfs, profile_key="run")
    twice = ens + ens
    np.testing.assert_allclose(twice.dataframe["time"], 2 * ens.dataframe["time"])
    np.testing.assert_allclose((ens * 2).dataframe["time"], twice.dataframe["time"])
    np.testing.assert_allclose((2 * ens).dataframe["time"], twice.dataframe["time"])
    zero = ens - ens
    assert (zero.dataframe["time"].dropna() == 0).all()
    # another build of the same runs, with a node only it has: the union graph
    other = [make(["main", "foo", "new"], [-1, 0, 0], [1, 1, 1], {"run": r}) for r in (1, 2, 3)]
    diff = ens - Ensemble.from_graphframes(other, profile_key="run")
    assert len(diff.graph) == len(ens.graph) + 1
    by = diff.by_profile("time")
    new = by[by["name"] == "new"].drop(columns="name").to_numpy()
    assert (new == -1).all()  # missing on the left counts as 0 for '-'
    with pytest.raises(ShapeError, match="replace_profile_index"):
        ens - Ensemble.from_graphframes(other, profile_key=None)
    # matched on a metadata column instead
    left = ens.replace_profile_index("size")
    right = Ensemble.from_graphframes(
        [make(["main"], [-1], [1], {"size": s}) for s in (8, 16, 32)]
    ).replace_profile_index("size")
    assert (left - right).profiles == [8, 16, 32]


def test_replace_profile_index_orders_profiles_and_keeps_values(mpi):
    ens = mpi.copy()
    out = ens.replace_profile_index("jobsize")
    assert out.profiles == [27, 64, 125, 216, 343]
    assert out.profile_level == "jobsize" and "jobsize" not in out.metadata.columns
    by_old = ens.by_profile(A).drop(columns="name")
    by_new = out.by_profile(A).drop(columns="name")
    files = [out.profile_mapping[p] for p in out.profiles]
    old_order = [ens.profile_mapping[p] for p in ens.profiles]
    np.testing.assert_allclose(
        by_new.to_numpy(), by_old.to_numpy()[:, [old_order.index(f) for f in files]]
    )
    assert out.stats([A], stats=["mean"]) == [f"{A}_mean"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out.to_graphframe(343)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), p=st.integers(1, 6), fill=st.booleans())
def test_filter_stats_equals_squashing_the_performance_table(rand, seed, p, fill):
    """Property: filter_stats' table (dense fast path or not) is the calltree core's
    GraphFrame.squash of the kept nodes' rows, and the statistics follow the graph."""
    rng = np.random.default_rng(seed)
    gfs = [rand(rng, int(rng.integers(1, 25)), meta={"i": i}) for i in range(p)]
    ens = Ensemble.from_graphframes(gfs, profile_key="i", fill_perfdata=fill)
    ens.stats(["time"], stats=["max"])
    keep = rng.random(len(ens.graph)) < 0.6
    keep[0] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PerfweaveWarning)
        out = ens.filter_stats(keep)
    node = np.asarray(ens.dataframe.index.get_level_values("node"))
    gf = GraphFrame(ens.graph, ens.dataframe[keep[node]], ["time"], ["time (inc)"], "time")
    expect = gf.squash(True)
    assert out.graph == expect.graph
    pd.testing.assert_frame_equal(
        out.dataframe.astype({"name": object}),
        expect.dataframe.astype({"name": object}),
        check_index_type=False,
    )
    assert out.statsframe.index.tolist() == list(range(len(out.graph)))
    assert out.statsframe["name"].tolist() == out.graph.frames["name"].tolist()
    # a kept node keeps its statistics; nodes merged into one have none
    _, old_to_new = ens.graph.squash(keep)
    new = old_to_new[keep]
    counts = np.bincount(new, minlength=len(out.graph))
    old = ens.statsframe["time_max"].to_numpy()[keep]
    got = out.statsframe["time_max"].to_numpy()[new]
    np.testing.assert_array_equal(got[counts[new] == 1], old[counts[new] == 1])
    assert np.isnan(got[counts[new] > 1]).all()


def test_with_statistics_computes_what_a_query_names_on_a_copy():
    """The explorer's statistics filter computes the statistics a query names
    (filter.with_statistics) without adding columns to the ensemble it was given."""
    from perfweave.ensemble.filter import statistic_columns, with_statistics

    ens = pw.datasets.mpi_scaling()
    before = list(ens.statsframe.columns)
    cols = statistic_columns(ens, "`Avg time/rank_std` > 0.1")
    assert cols == ["Avg time/rank_std"]
    out = with_statistics(ens, cols)
    assert "Avg time/rank_std" in out.statsframe.columns
    assert list(ens.statsframe.columns) == before
    assert statistic_columns(ens, "`Avg time/rank` > 0.1") == []
