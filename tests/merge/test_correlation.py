from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from perfweave.errors import MergeError
from perfweave.merge import correlation_matrix


def _trimmed_pairs(subs, h1, h2, *, r_bug: bool):
    """Plain re-statement of the pooling rule; r_bug=True drops blocks without outliers."""
    xs, ys = [], []
    for sub in subs:
        if h1 in sub.columns and h2 in sub.columns:
            x, y = sub[h1].to_numpy(float), sub[h2].to_numpy(float)
            m = (x - x.mean()) ** 2 + (y - y.mean()) ** 2
            z = (m - m.mean()) / m.std(ddof=1)
            outlier = z >= 3
            if r_bug and not outlier.any():
                continue  # R: x[-integer(0), ] selects no rows at all
            xs.append(x[~outlier])
            ys.append(y[~outlier])
    return np.concatenate(xs), np.concatenate(ys)


def test_vignette_matrix_shape_and_symmetry(much_subs):
    cor = correlation_matrix(much_subs)
    assert list(cor.columns) == much_subs.hems == list(cor.index)
    values = cor.to_numpy()
    np.testing.assert_array_equal(values, values.T)
    np.testing.assert_array_equal(np.diag(values), 1.0)
    assert np.all(np.abs(values) <= 1 + 1e-12)


def test_vignette_matches_plain_pooling_for_every_pair(much_subs):
    cor = correlation_matrix(much_subs)
    for h1, h2 in itertools.combinations(much_subs.hems, 2):
        x, y = _trimmed_pairs(much_subs, h1, h2, r_bug=False)
        assert cor.loc[h1, h2] == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-12)
        # every vignette block has outliers for every pair, so R's slip changes nothing here
        xr, yr = _trimmed_pairs(much_subs, h1, h2, r_bug=True)
        assert len(xr) == len(x)


def test_vignette_known_structure(much_subs):
    cor = correlation_matrix(much_subs)
    # L2_MISSES and L2_DEMAND_ACCESSES count nearly the same events
    assert cor.loc["L2_MISSES", "L2_DEMAND_ACCESSES"] > 0.999
    assert cor.loc["PROCESSOR_CYCLES", "L2_MISSES"] < -0.3


def test_block_without_outliers_is_kept_unlike_mergingtools():
    rng = np.random.default_rng(5)
    # block 0: heavy-tailed (has outliers); block 1: a clean grid with no outlier at all
    x0 = rng.standard_t(2, 300)
    block0 = pd.DataFrame({"A": x0, "B": x0 + rng.normal(0, 1, 300)})
    u = np.linspace(-1, 1, 50)
    block1 = pd.DataFrame({"A": u, "B": -u})
    x, y = _trimmed_pairs([block0, block1], "A", "B", r_bug=False)
    xr, yr = _trimmed_pairs([block0, block1], "A", "B", r_bug=True)
    assert len(x) == len(xr) + 50  # block 1 is dropped whole by the R rule
    ours = correlation_matrix([block0, block1]).loc["A", "B"]
    assert ours == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-12)
    assert abs(ours - np.corrcoef(xr, yr)[0, 1]) > 0.01


def test_pair_never_measured_together_is_named():
    a = pd.DataFrame({"A": [1.0, 2, 3], "B": [2.0, 1, 3]})
    b = pd.DataFrame({"A": [1.0, 2, 3], "C": [3.0, 1, 2]})
    with pytest.raises(MergeError, match=r"\(B, C\)"):
        correlation_matrix([a, b])


def test_constant_hem_is_an_error():
    a = pd.DataFrame({"A": [1.0, 2, 3, 4], "B": [5.0, 5, 5, 5]})
    with pytest.raises(MergeError, match=r"\(A, B\) is undefined"):
        correlation_matrix([a])


def test_missing_values_are_an_error():
    with pytest.raises(MergeError, match="missing values"):
        correlation_matrix([pd.DataFrame({"A": [1.0, np.nan], "B": [1.0, 2]})])
