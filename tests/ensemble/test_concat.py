"""Ensemble.concat on both axes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.ensemble import Ensemble
from perfweave.errors import DuplicateProfileError, MetadataError, ShapeError


def test_index_concat_equals_building_at_once(three_gfs):
    whole = Ensemble.from_graphframes(three_gfs)
    parts = [Ensemble.from_graphframes(three_gfs[:1]), Ensemble.from_graphframes(three_gfs[1:])]
    joined = Ensemble.concat(parts)
    assert joined.graph == whole.graph
    pd.testing.assert_frame_equal(joined.dataframe, whole.dataframe)
    pd.testing.assert_frame_equal(joined.metadata, whole.metadata)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    p=st.integers(2, 8),
    cuts=st.lists(st.integers(1, 7), min_size=1, max_size=3, unique=True),
)
def test_index_concat_equals_building_at_once_property(rand, seed, p, cuts):
    """Property: however the profiles are split, concatenating the parts gives the
    ensemble built from all of them at once (graph, table and metadata)."""
    rng = np.random.default_rng(seed)
    gfs = [rand(rng, int(rng.integers(1, 30)), meta={"i": i}) for i in range(p)]
    bounds = [0, *sorted(c for c in cuts if c < p), p]
    parts = [
        Ensemble.from_graphframes(gfs[a:b], profile_key="i")
        for a, b in zip(bounds, bounds[1:])
        if b > a
    ]
    whole = Ensemble.from_graphframes(gfs, profile_key="i")
    joined = Ensemble.concat(parts[::-1])  # the order of the parts does not matter
    assert joined.graph == whole.graph
    pd.testing.assert_frame_equal(joined.dataframe, whole.dataframe)
    pd.testing.assert_frame_equal(joined.metadata, whole.metadata)


def test_index_concat_rejects_duplicates(three_gfs):
    a = Ensemble.from_graphframes(three_gfs[:2])
    b = Ensemble.from_graphframes(three_gfs[1:])
    with pytest.raises(DuplicateProfileError, match="same profile"):
        Ensemble.concat([a, b])


def test_columns_concat_matches_on_metadata_key(make):
    cpu = Ensemble.from_graphframes(
        [
            make(["main", "k"], [-1, 0], [1, 2], {"size": 8, "arch": "cpu"}),
            make(["main", "k"], [-1, 0], [3, 4], {"size": 16, "arch": "cpu"}),
        ]
    )
    gpu = Ensemble.from_graphframes(
        [
            make(["main", "k", "kernel"], [-1, 0, 1], [5, 6, 7], {"size": 16, "arch": "gpu"}),
            make(["main", "k", "kernel"], [-1, 0, 1], [8, 9, 10], {"size": 8, "arch": "gpu"}),
        ]
    )
    both = Ensemble.concat([cpu, gpu], axis="columns", headers=["CPU", "GPU"], metadata_key="size")
    df = both.dataframe
    assert df.index.names == ["node", "size"]
    assert ("CPU", "time") in df.columns and ("GPU", "time") in df.columns
    assert ("name", "") in df.columns
    # size 8: cpu profile 1 and gpu profile 2 side by side
    k = int(np.flatnonzero(both.graph.frames["name"] == "k")[0])
    assert df.loc[(k, 8), ("CPU", "time")] == 2.0
    assert df.loc[(k, 8), ("GPU", "time")] == 9.0
    kernel = int(np.flatnonzero(both.graph.frames["name"] == "kernel")[0])
    assert np.isnan(df.loc[(kernel, 16), ("CPU", "time")])
    assert df.loc[(kernel, 16), ("name", "")] == "kernel"
    assert both.metadata.loc[16, ("GPU", "arch")] == "gpu"
    assert ("CPU", "size") not in both.metadata.columns
    assert ("CPU", "time") in both.exc_metrics
    cols = both.stats([("GPU", "time")], stats=["mean"])
    assert cols == [("GPU", "time_mean")]
    assert both.statsframe.loc[k, ("GPU", "time_mean")] == 7.5


def test_columns_concat_by_order_without_key(three_gfs):
    a = Ensemble.from_graphframes(three_gfs[:2])
    b = Ensemble.from_graphframes(three_gfs[1:])
    both = Ensemble.concat([a, b], axis="columns")
    assert both.dataframe.index.names == ["node", "profile"]
    assert list(both.metadata.index) == [0, 1]
    assert {h for h, _ in both.dataframe.columns} == {0, 1, "name"}


def test_columns_concat_errors(three_gfs, make):
    a = Ensemble.from_graphframes(three_gfs[:2])
    b = Ensemble.from_graphframes(three_gfs[1:])
    with pytest.raises(MetadataError, match="no metadata column 'nope'"):
        Ensemble.concat([a, b], axis="columns", headers=["a", "b"], metadata_key="nope")
    with pytest.raises(MetadataError, match="does not match.*only in 'a': 8; only in 'b': 32"):
        Ensemble.concat([a, b], axis="columns", headers=["a", "b"], metadata_key="size")
    same = Ensemble.from_graphframes(
        [make(["m"], [-1], [1], {"s": 1, "r": 1}), make(["m"], [-1], [2], {"s": 1, "r": 2})]
    )
    with pytest.raises(MetadataError, match="more than one profile"):
        Ensemble.concat([same, same], axis="columns", headers=["x", "y"], metadata_key="s")
    with pytest.raises(MetadataError, match="as many profiles"):
        Ensemble.concat([a, Ensemble.from_graphframes(three_gfs)], axis="columns")
    with pytest.raises(ShapeError, match="distinct header"):
        Ensemble.concat([a, b], axis="columns", headers=["x", "x"])
    with pytest.raises(ShapeError, match="axis"):
        Ensemble.concat([a, b], axis="rows")


def test_concat_does_not_modify_inputs(three_gfs):
    a = Ensemble.from_graphframes(three_gfs[:2])
    b = Ensemble.from_graphframes(three_gfs[2:])
    before = a.dataframe.copy(), b.dataframe.copy(), a.metadata.copy()
    Ensemble.concat([a, b])
    pd.testing.assert_frame_equal(a.dataframe, before[0])
    pd.testing.assert_frame_equal(b.dataframe, before[1])
    pd.testing.assert_frame_equal(a.metadata, before[2])
