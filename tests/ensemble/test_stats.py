"""Per-node statistics across profiles and correlation with metadata."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from perfweave.ensemble import Ensemble
from perfweave.errors import MetadataError, ShapeError


@pytest.fixture
def ens(rand):
    rng = np.random.default_rng(3)
    return Ensemble.from_graphframes(
        [rand(rng, 25, meta={"i": i, "ranks": 2**i}) for i in range(12)], profile_key="i"
    )


def _by_hand(ens, column):
    """Statistics recomputed from the per-profile values with pandas."""
    df = ens.dataframe.reset_index()
    return df.groupby("node")[column]


def test_stats_match_an_independent_computation(ens):
    names = ens.stats(["time"], percentiles=[0.25, 0.5, 0.9])
    assert names[:7] == [
        "time_mean",
        "time_median",
        "time_std",
        "time_var",
        "time_min",
        "time_max",
        "time_count",
    ]
    g = _by_hand(ens, "time")
    sf = ens.statsframe
    np.testing.assert_allclose(sf["time_mean"], g.mean().reindex(sf.index))
    np.testing.assert_allclose(sf["time_median"], g.median().reindex(sf.index))
    np.testing.assert_allclose(sf["time_std"], g.std().reindex(sf.index), equal_nan=True)
    np.testing.assert_allclose(sf["time_var"], g.var().reindex(sf.index), equal_nan=True)
    np.testing.assert_allclose(sf["time_min"], g.min().reindex(sf.index))
    np.testing.assert_allclose(sf["time_max"], g.max().reindex(sf.index))
    assert (sf["time_count"] == g.count().reindex(sf.index)).all()
    np.testing.assert_allclose(sf["time_percentiles_90"], g.quantile(0.9).reindex(sf.index))
    # the root is in every profile
    assert sf["time_count"].iloc[0] == len(ens)


def test_dense_and_grouped_paths_agree(ens):
    sparse = ens.copy()
    sparse.dataframe = ens.dataframe.dropna(subset=["name"])
    a = ens.stats(["time"], percentiles=[0.5])
    b = sparse.stats(["time"], percentiles=[0.5])
    assert a == b
    pd.testing.assert_frame_equal(ens.statsframe, sparse.statsframe, check_dtype=False)


def test_correlation_with_metadata(ens):
    name = ens.correlate("time", "ranks")
    assert name == "time_vs_ranks pearson"
    r = ens.statsframe[name]
    for node in [0, 3, 7]:
        rows = ens.dataframe.xs(node, level="node")
        x = rows["time"].to_numpy()
        y = ens.metadata.loc[rows.index, "ranks"].to_numpy(float)
        ok = ~np.isnan(x)
        if ok.sum() > 2:
            assert r.iloc[node] == pytest.approx(np.corrcoef(x[ok], y[ok])[0, 1])
    s = ens.correlate("time", "ranks", method="spearman")
    rows = ens.dataframe.xs(0, level="node")
    x = rows["time"].rank().to_numpy()
    y = ens.metadata["ranks"].rank().to_numpy()
    assert ens.statsframe[s].iloc[0] == pytest.approx(np.corrcoef(x, y)[0, 1])


def test_correlation_of_two_metrics_is_one_for_proportional(ens):
    name = ens.correlate("time", "time (inc)")
    finite = ens.statsframe[name].dropna()
    assert len(finite) > 0
    np.testing.assert_allclose(finite, 1.0)


def test_stats_errors(ens):
    with pytest.raises(ShapeError, match="no column 'nope'"):
        ens.stats(["nope"])
    with pytest.raises(ShapeError, match="not numeric"):
        ens.stats(["name"])
    with pytest.raises(ShapeError, match="unknown statistic"):
        ens.stats(["time"], stats=["mode"])
    with pytest.raises(ShapeError, match="outside"):
        ens.stats(["time"], percentiles=[50])
    with pytest.raises(MetadataError, match="neither"):
        ens.correlate("time", "nothing")
