"""Choosing profiles and nodes; one profile back as a GraphFrame; calltree operations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.ensemble import Ensemble
from perfweave.errors import MetadataError, QueryError, ShapeError


def test_intersection_keeps_nodes_of_every_profile(three_gfs):
    ens = Ensemble.from_graphframes(three_gfs, profile_key="run")
    inter = ens.intersection()
    assert sorted(inter.graph.frames["name"]) == ["baz", "main"]
    assert len(inter.dataframe) == 2 * 3
    baz = int(np.flatnonzero(inter.graph.frames["name"] == "baz")[0])
    assert inter.dataframe.xs(baz, level="node")["time"].tolist() == [4.0, 7.0, 10.0]
    assert list(inter.statsframe["name"]) == list(inter.graph.frames["name"])
    assert len(ens.graph) == 5  # the original is unchanged


def test_filter_metadata_and_groupby(three_gfs):
    ens = Ensemble.from_graphframes(three_gfs, profile_key="run")
    small = ens.filter_metadata(lambda row: row["size"] < 20)
    assert small.profiles == [1, 2]
    assert "qux" not in set(small.graph.frames["name"])  # only profile 3 had it
    assert len(small.dataframe) == len(small.graph) * 2
    groups = ens.groupby("size")
    assert sorted(groups) == [8, 16, 32]
    assert groups[32].profiles == [3]
    assert sorted(groups[32].graph.frames["name"]) == ["baz", "main", "qux"]
    with pytest.raises(MetadataError, match="kept no profile"):
        ens.filter_metadata(lambda row: False)
    with pytest.raises(MetadataError, match="'nope'"):
        ens.groupby("nope")


def test_getitem_returns_the_profile(three_gfs):
    ens = Ensemble.from_graphframes(three_gfs, profile_key="run")
    for gf in three_gfs:
        back = ens[gf.metadata["run"]]
        assert back.graph == gf.graph
        got = back.dataframe[["name", "time", "time (inc)"]]
        want = gf.dataframe[["name", "time", "time (inc)"]]
        pd.testing.assert_frame_equal(got, want, check_dtype=False)
        assert back.metadata["size"] == gf.metadata["size"]
    with pytest.raises(MetadataError, match="no profile 99"):
        ens[99]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), p=st.integers(1, 6), n=st.integers(1, 25))
def test_every_profile_survives_the_union(rand, seed, p, n):
    """Property: unifying then taking a profile back gives that profile's own tree and values."""
    rng = np.random.default_rng(seed)
    gfs = [rand(rng, int(rng.integers(1, n + 1)), vocabulary=4, meta={"i": i}) for i in range(p)]
    ens = Ensemble.from_graphframes(gfs, profile_key="i")
    assert len(ens.dataframe) == len(ens.graph) * p
    for i, gf in enumerate(gfs):
        back = ens[i]
        assert back.graph == gf.graph
        np.testing.assert_array_equal(back.dataframe["time"], gf.dataframe["time"])
    # intersection keeps exactly the nodes whose name is set for every profile
    inter = ens.intersection()
    assert inter.dataframe["name"].notna().all()


def test_filter_and_squash_use_the_calltree_core(three_gfs):
    ens = Ensemble.from_graphframes(three_gfs, profile_key="run")
    out = ens.filter(lambda row: row["time"] >= 4)
    assert sorted(out.graph.frames["name"]) == ["baz", "foo", "main", "qux"]
    # main is kept only in profiles 2 and 3 (time 5 and 8); baz's inclusive is its own time
    main = int(np.flatnonzero(out.graph.frames["name"] == "main")[0])
    rows = out.dataframe.xs(main, level="node")
    assert rows.index.tolist() == [2, 3]
    assert rows.loc[2, "time (inc)"] == 5 + 6 + 7
    by_query = ens.filter("time >= 4")
    pd.testing.assert_frame_equal(by_query.dataframe, out.dataframe)
    with pytest.raises(QueryError):
        ens.filter(lambda row: False)
    kept = ens.filter(lambda row: row["name"] == "baz", squash=False)
    assert len(kept.graph) == len(ens.graph)


def test_squash_drops_nodes_without_data(three_gfs):
    ens = Ensemble.from_graphframes(three_gfs, profile_key="run")
    df = ens.dataframe.copy()
    bar = int(np.flatnonzero(ens.graph.frames["name"] == "bar")[0])
    df.loc[bar, "name"] = np.nan  # now no profile has 'bar'
    changed = ens.copy()
    changed.dataframe = df
    squashed = changed.squash()
    assert "bar" not in set(squashed.graph.frames["name"])
    foo = int(np.flatnonzero(squashed.graph.frames["name"] == "foo")[0])
    assert squashed.dataframe.loc[(foo, 1), "time (inc)"] == 2.0  # bar's 3 is gone


def test_tree_shows_a_statistic(three_gfs):
    ens = Ensemble.from_graphframes(three_gfs, profile_key="run")
    assert ens.default_metric == "time (inc)"
    text = ens.tree(color=False)
    assert "time (inc)_mean" in ens.statsframe.columns
    first = text.splitlines()[0]
    assert first.split()[:2] == ["46.667", "main"]  # mean of 10, 50, 80
    ens.stats(["time"], stats=["max"])
    assert ens.tree("time_max", color=False).splitlines()[0].startswith("8.000 main")
    with pytest.raises(ShapeError, match="no column"):
        ens.tree("nope")
