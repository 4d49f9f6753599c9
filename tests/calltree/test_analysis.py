"""load_imbalance, flat_profile, hot_path, node_values: Chopper's definitions on real data.

Chopper (the ``hatchet`` package) cannot be installed beside llnl-hatchet (both are the
``hatchet`` module), so its definitions, written down in docs/calltree.md, are checked
here against plain pandas on the same rows, and its own test expectations on the
HPCToolkit cpi database (the hot path HPCViewer shows) are repeated.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.errors import ShapeError

H = "tests/data/hatchet/"
CPI = H + "caliper-cpi-json/cpi-callpath-profile.json"  # 4 ranks
HPCT_CPI = H + "hpctoolkit-cpi-database"  # 4 ranks
ALLGATHER = H + "hpctoolkit-allgather-database"  # 10 ranks x 2 threads


@pytest.fixture(scope="module")
def cpi():
    return pw.read(CPI)


@pytest.fixture(scope="module")
def allgather():
    return pw.read(ALLGATHER)


def _rows(gf, metric):
    return gf.dataframe.reset_index()[["node", *gf.index_levels, metric]]


@pytest.mark.parametrize("path,metric", [(CPI, "time"), (ALLGATHER, "time (inc)")])
def test_load_imbalance_over_every_thread_is_max_over_mean_of_each_nodes_rows(path, metric):
    """On full grids (every node on every rank/thread) Chopper's definition holds as is."""
    gf = pw.read(path)
    li = gf.load_imbalance(metric, across="threads")
    rows = _rows(gf, metric).groupby("node")[metric]
    want = pd.DataFrame({"mean": rows.mean(), "max": rows.max()})
    got = li.dataframe
    assert list(got.index) == list(want.index)  # one row per node, same graph
    assert li.graph is gf.graph
    np.testing.assert_allclose(got[f"{metric}.mean"], want["mean"], rtol=1e-12)
    np.testing.assert_allclose(got[f"{metric}.max"], want["max"], rtol=1e-12)
    ratio = want["max"] / want["mean"]
    np.testing.assert_allclose(got[f"{metric}.imbalance"], ratio, rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(got[f"{metric}.excess"], want["max"] - want["mean"], rtol=1e-12)
    efficiency = want["mean"] / want["max"]
    np.testing.assert_allclose(got[f"{metric}.efficiency"], efficiency, rtol=1e-12, equal_nan=True)
    assert li.default_metric == f"{metric}.excess"
    first_name = gf.dataframe["name"].groupby(level="node").first()
    assert (got["name"] == first_name).all()
    # the input is untouched
    assert f"{metric}.mean" not in gf.dataframe.columns


def test_load_imbalance_top_ranks_are_the_largest_rows_largest_first(cpi):
    li = cpi.load_imbalance("time", top=3)
    rows = _rows(cpi, "time")
    imbalanced = li.dataframe["time.imbalance"].idxmax()
    assert li.dataframe.loc[imbalanced, "time.imbalance"] == pytest.approx(4.0)  # one rank works
    for node in [imbalanced, *li.dataframe.index[:20]]:
        mine = rows[rows.node == node].sort_values(["time", "rank"], ascending=[False, True])
        assert list(li.dataframe.loc[node, "time.top_ranks"]) == mine["rank"].tolist()[:3]
    assert "time.top_threads" not in li.dataframe.columns


def test_load_imbalance_by_default_sums_each_ranks_threads(allgather):
    """Issue 28: a rank's threads are one unit (its helper threads are not idle ranks)."""
    li = allgather.load_imbalance("time (inc)").dataframe
    per_rank = allgather.dataframe["time (inc)"].groupby(level=["node", "rank"]).sum()
    by_node = per_rank.groupby(level="node")
    np.testing.assert_allclose(li["time (inc).mean"], by_node.mean(), rtol=1e-12)
    np.testing.assert_allclose(li["time (inc).max"], by_node.max(), rtol=1e-12)
    assert "time (inc).top_threads" not in li.columns
    for node in li.index[:25]:
        top = per_rank.loc[node].sort_values(ascending=False, kind="stable").index[:5]
        assert list(li.loc[node, "time (inc).top_ranks"]) == list(top)
    every = allgather.load_imbalance("time (inc)", across="threads").dataframe
    assert not np.allclose(every["time (inc).mean"], li["time (inc).mean"])
    with pytest.raises(ShapeError, match="across='rank'.*expected one of 'ranks', 'threads'"):
        allgather.load_imbalance("time (inc)", across="rank")


def test_load_imbalance_over_ranks_and_threads_names_both(allgather):
    li = allgather.load_imbalance("time (inc)", across="threads")
    df = li.dataframe
    values = allgather.dataframe["time (inc)"]
    for node in df.index[df["time (inc).max"] > 0][:25]:
        ranks = df.loc[node, "time (inc).top_ranks"]
        threads = df.loc[node, "time (inc).top_threads"]
        assert len(ranks) == len(threads) == 5
        top = [values.loc[(node, r, t)] for r, t in zip(ranks, threads)]
        assert top == sorted(top, reverse=True)
        assert top[0] == df.loc[node, "time (inc).max"]
        assert top[-1] >= values.loc[node].nlargest(5).iloc[-1]


def test_load_imbalance_several_metrics_and_metric_lists(allgather):
    li = allgather.load_imbalance(["time", "time (inc)"])
    assert li.exc_metrics == ["time.mean", "time.max", "time.excess"]
    assert li.inc_metrics == ["time (inc).mean", "time (inc).max", "time (inc).excess"]
    assert li.default_metric == "time.excess"


def test_load_imbalance_threshold_drops_small_nodes(cpi):
    li = cpi.load_imbalance("time", threshold=0.01)
    largest = cpi.dataframe["time"].max()
    assert (li.dataframe["time.max"] > 0.01 * largest).all()
    kept = cpi.load_imbalance("time").dataframe
    assert len(li.dataframe) == int((kept["time.max"] > 0.01 * largest).sum())


def test_load_imbalance_bad_input_names_the_column(cpi):
    with pytest.raises(ShapeError, match="'tme'"):
        cpi.load_imbalance("tme")
    with pytest.raises(ShapeError, match="'name' is not numeric"):
        cpi.load_imbalance("name")
    single = cpi.copy().drop_index_levels()
    with pytest.raises(ShapeError, match=r"load_imbalance\('time'\).*no rank or thread"):
        single.load_imbalance()
    with pytest.raises(ShapeError, match="top"):
        cpi.load_imbalance("time", top=0)


def test_node_values_are_the_mean_over_ranks(cpi, allgather):
    for gf in (cpi, allgather):
        values = gf.node_values()
        want = gf.copy().drop_index_levels().dataframe
        for m in gf.exc_metrics + gf.inc_metrics:
            got = values[m].to_numpy()[want.index]
            np.testing.assert_allclose(got, want[m].to_numpy(float), rtol=1e-12)
    assert cpi.node_values().attrs["perfweave.node_values"] == "mean over 4 ranks"
    text = allgather.node_values("time", rank=3).attrs["perfweave.node_values"]
    assert text == "rank 3; mean over 2 threads"
    with pytest.raises(ShapeError, match="no rank 99"):
        cpi.node_values(rank=99)


def test_tree_says_what_it_shows(cpi):
    lines = cpi.tree("time", color=False).splitlines()
    assert lines[0] == "# time in µs: mean over 4 ranks"
    mean = cpi.node_values("time")["time"]
    log2 = next(line for line in lines if line.endswith(" log2 UNKNOWN"))  # its file
    node = int(np.flatnonzero(cpi.graph.frames["name"].to_numpy() == "log2")[0])
    assert log2.strip("└├─│ ").startswith(f"{mean[node]:.3f}")
    rank1 = cpi.tree("time", color=False, rank=1).splitlines()
    assert rank1[0] == "# time in µs: rank 1"
    one_row = pw.read(H + "json/hatchet-graph-literal.json")
    assert not one_row.tree(color=False).startswith("#")  # one row per node: nothing to say
    assert one_row.tree(color=False, rank=0) == one_row.tree(color=False)  # as Hatchet: ignored


# ---------------------------------------------------------------------- flat profile
def test_flat_profile_sums_node_values_by_name():
    gf = pw.read(HPCT_CPI)
    flat = gf.flat_profile()
    assert sorted(flat.index) == sorted(gf.dataframe["name"].unique())
    root = gf.graph.roots[0]
    # Chopper's own check: the root's row is the mean of its inclusive time over ranks
    assert flat.loc[root.frame["name"], "time (inc)"] == pytest.approx(
        gf.dataframe.loc[root.nid, "time (inc)"].mean()
    )
    means = gf.copy().drop_index_levels().dataframe
    want = means.groupby("name")[["time", "time (inc)"]].sum()
    pd.testing.assert_frame_equal(flat.sort_index(), want.sort_index(), check_exact=False)
    assert list(flat["time"]) == sorted(flat["time"], reverse=True)


def test_flat_profile_by_another_column(cpi):
    flat = cpi.flat_profile("time", by="module")
    assert flat["time"].sum() == pytest.approx(cpi.node_values("time")["time"].sum())
    with pytest.raises(ShapeError, match="'nope'"):
        cpi.flat_profile(by="nope")


# ---------------------------------------------------------------------- hot path
CHOPPER_HOT_PATH = [  # Chopper's test, validated there with HPCViewer
    "<program root>",
    "main",
    "62:MPI_Finalize",
    "PMPI_Finalize",
    "294:MPID_Finalize",
    "162:MPIDI_CH3_Finalize",
    "230:psm_dofinalize",
    "36:<unknown procedure>",
    "<unknown procedure>",
    "<unknown procedure>",
    "<unknown procedure>",
]


def test_hot_path_matches_chopper_on_the_hpctoolkit_cpi_database():
    gf = pw.read(HPCT_CPI)
    path = gf.hot_path(metric="time (inc)")
    assert [n.frame["name"] for n in path] == CHOPPER_HOT_PATH
    assert [n.nid for n in gf.hot_path()] == [n.nid for n in path]  # default: inclusive
    for parent, child in zip(path, path[1:]):
        assert child.nid in gf.graph.children_of(parent.nid)
    short = gf.hot_path(metric="time (inc)", threshold=2)
    assert [n.frame["name"] for n in short] == ["<program root>", "main"]


def test_hot_path_stops_at_the_first_child_below_the_threshold():
    gf = pw.read(HPCT_CPI)
    values = gf.node_values("time (inc)")["time (inc)"].to_numpy()
    path = [n.nid for n in gf.hot_path(threshold=0.9)]
    for parent, child in zip(path[:-2], path[1:-1]):
        assert values[child] >= 0.9 * values[parent]
    if len(gf.graph.children_of(path[-1])):
        assert values[path[-1]] < 0.9 * values[path[-2]]
    start = gf.hot_path(start=path[2])
    assert start[0].nid == path[2]
    with pytest.raises(ShapeError, match=r"hot_path: no column 'tim'"):
        gf.hot_path("tim")
