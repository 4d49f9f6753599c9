from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfweave.merge.quantiles import quantile_type2, r_seq_probs


def test_hand_checked_even_sample():
    # n = 4: n*p integer at p = .25, .5, .75 -> mean of the two order statistics around it
    q = quantile_type2([4, 1, 3, 2], [0, 0.25, 0.3, 0.5, 0.75, 0.8, 1])
    np.testing.assert_array_equal(q, [1, 1.5, 2, 2.5, 3.5, 4, 4])


def test_hand_checked_thirds():
    # 3 * (1/3) is exactly 1.0 in binary floating point: average of x(1) and x(2)
    np.testing.assert_array_equal(quantile_type2([30, 10, 20], [1 / 3, 0.5, 2 / 3]), [15, 20, 25])


def test_single_value_and_ties():
    np.testing.assert_array_equal(quantile_type2([7], [0, 0.5, 1]), [7, 7, 7])
    np.testing.assert_array_equal(quantile_type2([5, 5, 9, 9], [0.5]), [7])


def test_rejects_bad_probs_and_nan():
    with pytest.raises(ValueError):
        quantile_type2([1, 2], [1.5])
    with pytest.raises(ValueError):
        quantile_type2([1, np.nan], [0.5])


def test_r_seq_probs_is_r_arithmetic():
    for n in (2, 3, 10, 999, 1000, 1001):
        p = r_seq_probs(n)
        expected = [0.0] + [i * (1 / (n - 1)) for i in range(1, n - 1)] + [1.0]
        assert p.tolist() == expected
        np.testing.assert_array_equal(p, np.linspace(0, 1, n))


@given(
    st.lists(st.integers(-1000, 1000), min_size=1, max_size=40),
    st.lists(st.floats(0, 1), min_size=1, max_size=10),
)
def test_type2_definition(values, probs):
    x = np.sort(np.array(values, dtype=float))
    n = len(x)
    q = quantile_type2(values, probs)
    for p, got in zip(probs, q, strict=True):
        np_ = n * p
        j = int(np.floor(np_))
        if np_ > j:
            assert got == x[min(j, n - 1)]
        else:
            lo, hi = x[max(j - 1, 0)], x[min(j, n - 1)]
            assert got == (lo + hi) / 2
    order = np.argsort(probs, kind="stable")
    assert np.all(np.diff(q[order]) >= 0)


@given(st.lists(st.integers(0, 10**8), min_size=2, max_size=60), st.integers(2, 80))
def test_agrees_with_numpy_averaged_inverted_cdf_on_even_grids(values, n):
    probs = r_seq_probs(n)
    ours = quantile_type2(values, probs)
    theirs = np.quantile(np.array(values, dtype=float), probs, method="averaged_inverted_cdf")
    # numpy implements the same definition; both agree wherever n*p is not within
    # rounding of an integer, and on these grids R's arithmetic and numpy's coincide
    close = np.abs(len(values) * probs - np.round(len(values) * probs)) > 1e-9
    np.testing.assert_array_equal(ours[close], theirs[close])
