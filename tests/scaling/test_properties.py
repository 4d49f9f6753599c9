"""Properties of fit_models that hold for any data: the order of the measurements, the unit
of the metric and the split into blocks or NaN patterns do not change the chosen model."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.scaling import fit_models, terms

X = np.array([2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0])


@st.composite
def functions(draw):
    """A few functions c0 + c1 * term with noise, as (Y, seed)."""
    n = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    hyp = rng.integers(0, len(terms.POLY), n)
    T = terms.term_values(X)[hyp]
    c0 = rng.uniform(0.1, 10, n)[:, None]
    c1 = (rng.uniform(0.5, 20, n)[:, None] * c0) / T[:, -1:]
    noise = draw(st.sampled_from([0.0, 0.01, 0.05]))
    return (c0 + c1 * T) * (1 + noise * rng.standard_normal(T.shape)), seed


@settings(max_examples=40, deadline=None)
@given(functions())
def test_order_of_measurements_does_not_matter(data):
    Y, seed = data
    perm = np.random.default_rng(seed).permutation(len(X))
    a, b = fit_models(X, Y), fit_models(X[perm], Y[:, perm])
    assert a["term"].tolist() == b["term"].tolist()
    np.testing.assert_allclose(a["smape"], b["smape"], rtol=1e-9, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(functions(), st.sampled_from([1e-6, 1e-3, 1000.0, 1e6]))
def test_unit_of_the_metric_does_not_matter(data, scale):
    Y, _ = data
    a, b = fit_models(X, Y), fit_models(X, Y * scale)
    assert a["term"].tolist() == b["term"].tolist()
    np.testing.assert_allclose(b["c0"], a["c0"] * scale, rtol=1e-6, atol=1e-12 * scale)
    np.testing.assert_allclose(b["c1"], a["c1"] * scale, rtol=1e-6)
    np.testing.assert_allclose(b["smape"], a["smape"], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(b["ar2"], a["ar2"], rtol=1e-6, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(functions(), st.integers(0, len(X) - 1))
def test_a_missing_point_equals_a_shorter_series(data, k):
    Y, _ = data
    holes = Y.copy()
    holes[0, k] = np.nan
    keep = np.arange(len(X)) != k
    a = fit_models(X, holes).iloc[0]
    b = fit_models(X[keep], Y[:1, keep]).iloc[0]
    assert a["term"] == b["term"]
    np.testing.assert_allclose(a["smape"], b["smape"], rtol=1e-9, atol=1e-12)
