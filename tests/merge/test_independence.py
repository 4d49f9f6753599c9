from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from perfweave.errors import MergeError
from perfweave.merge import correlation_matrix, independent_matrix
from perfweave.merge.independence import check_positive_definite, is_positive_definite


def _cor(values, names):
    return pd.DataFrame(np.array(values, dtype=float), index=names, columns=names)


def test_greedy_walk_in_order():
    cor = _cor(
        [[1, 0.9, 0.2, 0.95], [0.9, 1, 0.9, 0.1], [0.2, 0.9, 1, 0.3], [0.95, 0.1, 0.3, 1]],
        ["a", "b", "c", "d"],
    )
    # a drops b and d; c survives because b (its only strong partner) is gone
    kept = independent_matrix(cor, 0.85)
    assert list(kept.columns) == ["a", "c"] and list(kept.index) == ["a", "c"]
    assert kept.loc["a", "c"] == 0.2


def test_strict_threshold_and_signed_versus_absolute():
    cor = _cor([[1, 0.85, -0.9], [0.85, 1, 0.0], [-0.9, 0.0, 1]], ["a", "b", "c"])
    assert list(independent_matrix(cor, 0.85).columns) == ["a", "b", "c"]  # 0.85 is not > 0.85
    assert list(independent_matrix(cor, 0.85, absolute=True).columns) == ["a", "b"]


def test_single_hem_left_is_still_a_labelled_frame():
    cor = _cor([[1, 0.99], [0.99, 1]], ["a", "b"])
    kept = independent_matrix(cor, 0.5)
    assert isinstance(kept, pd.DataFrame)
    assert kept.shape == (1, 1) and kept.loc["a", "a"] == 1.0


def test_bad_dep_lvl_and_input_untouched():
    cor = _cor([[1, 0.5], [0.5, 1]], ["a", "b"])
    before = cor.copy()
    with pytest.raises(MergeError, match="dep_lvl"):
        independent_matrix(cor, 1.5)
    independent_matrix(cor, 0.1)
    pd.testing.assert_frame_equal(cor, before)


def test_vignette_kept_set_properties(much_subs):
    cor = correlation_matrix(much_subs)
    kept = independent_matrix(cor, 0.85)
    names = list(cor.columns)
    kept_names = list(kept.columns)
    assert kept_names == [n for n in names if n in kept_names]  # order kept
    off = kept.to_numpy()[~np.eye(len(kept), dtype=bool)]
    assert np.all(off <= 0.85)
    for dropped in set(names) - set(kept_names):
        earlier = [k for k in kept_names if names.index(k) < names.index(dropped)]
        assert any(cor.loc[k, dropped] > 0.85 for k in earlier)
    assert "L2_MISSES" in kept_names and "L2_DEMAND_ACCESSES" not in kept_names


def test_not_positive_definite_says_what_to_do():
    cor = _cor([[1, 0.8, 0.8], [0.8, 1, -0.8], [0.8, -0.8, 1]], ["a", "b", "c"])
    assert not is_positive_definite(cor)
    with pytest.raises(
        MergeError, match=r"not positive definite.*drop HEM\(s\) \['\w'\].*dep_lvl=0\.7999"
    ):
        check_positive_definite(cor, cor, 0.9)


def test_vignette_at_dep_lvl_one_suggests_a_working_level(much_subs):
    cor = correlation_matrix(much_subs)
    with pytest.raises(MergeError, match=r"use dep_lvl=0\.\d{4}") as info:
        check_positive_definite(independent_matrix(cor, 1.0), cor, 1.0)
    level = float(re.search(r"use dep_lvl=(0\.\d{4})", str(info.value)).group(1))
    assert is_positive_definite(independent_matrix(cor, level))
