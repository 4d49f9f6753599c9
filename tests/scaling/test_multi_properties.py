"""Properties of multi-parameter fits that hold for any data: the order of the points and
of the functions, the unit of the metric and a function's missing points (left out of that
function only) do not change the chosen model."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.scaling import fit_models, terms

P = np.array([4.0, 8.0, 16.0, 32.0, 64.0])
Q = np.array([10.0, 20.0, 40.0, 80.0, 160.0])
X = pd.DataFrame({"p": np.repeat(P, 5), "q": np.tile(Q, 5)})
SHAPES = [((0, 1),), ((0,), (1,)), ((0,), (0, 1)), ((1,), (0, 1)), ((0,),), ((1,),), ()]


@st.composite
def functions(draw):
    """A few two-parameter functions of random shapes and terms with noise, and a seed."""
    n = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    T = [terms.term_values(X[c].to_numpy()) for c in ("p", "q")]
    Y = np.empty((n, len(X)))
    for f in range(n):
        hyp = rng.integers(0, len(terms.POLY), 2)
        c0 = rng.uniform(0.1, 10)
        y = np.full(len(X), c0)
        for term in SHAPES[rng.integers(len(SHAPES))]:
            vals = np.prod([T[j][hyp[j]] for j in term], axis=0)
            y += rng.uniform(0.5, 20) * c0 * vals / vals.max()
        Y[f] = y
    noise = draw(st.sampled_from([0.0, 0.01, 0.05]))
    return Y * (1 + noise * rng.standard_normal(Y.shape)), seed


@settings(max_examples=30, deadline=None)
@given(functions())
def test_order_of_points_and_functions_does_not_matter(data):
    Y, seed = data
    rng = np.random.default_rng(seed)
    perm, rows = rng.permutation(len(X)), rng.permutation(len(Y))
    a = fit_models(X, Y).iloc[rows].reset_index(drop=True)
    b = fit_models(X.iloc[perm], Y[rows][:, perm])
    assert a["model"].tolist() == b["model"].tolist()
    np.testing.assert_allclose(a["smape"], b["smape"], rtol=1e-9, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(functions(), st.sampled_from([1e-6, 1e-3, 1000.0, 1e6]))
def test_unit_of_the_metric_does_not_matter(data, scale):
    Y, _ = data
    a, b = fit_models(X, Y), fit_models(X, Y * scale)
    assert a["combination"].tolist() == b["combination"].tolist()
    assert a["term"].tolist() == b["term"].tolist()
    for col in ["c0", "c[p]", "c[q]", "c[p*q]"]:
        np.testing.assert_allclose(b[col], a[col] * scale, rtol=1e-6, atol=1e-12 * scale)
    np.testing.assert_allclose(b["smape"], a["smape"], rtol=1e-6, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(functions(), st.lists(st.integers(0, len(X) - 1), min_size=1, max_size=4, unique=True))
def test_missing_points_equal_fewer_points(data, gone):
    Y, _ = data
    holes = Y.copy()
    holes[0, gone] = np.nan
    keep = np.setdiff1d(np.arange(len(X)), gone)
    a = fit_models(X, holes)
    b = fit_models(X.iloc[keep], Y[:1, keep])
    assert a["model"][0] == b["model"][0] and a["reason"][0] == b["reason"][0]
    assert a["model"][1:].tolist() == fit_models(X, Y)["model"][1:].tolist()
