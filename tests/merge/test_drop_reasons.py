"""Why each HEM is dropped (the greedy walk's reasons), dep_lvl's one rule, MergeSettings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import perfweave.merge as pm
from perfweave.errors import MergeError


@pytest.fixture(scope="module")
def cor(much_raw) -> pd.DataFrame:
    return pm.correlation_matrix(pm.process_raw_experiments(much_raw, 6))


@pytest.mark.parametrize("dep", [0.0, 0.5, 0.6, 0.75, 0.85, 0.99, 1.0])
def test_reasons_name_exactly_the_dropped_hems(cor, dep):
    reasons = pm.drop_reasons(cor, dep)
    kept = pm.independent_matrix(cor, dep)
    assert list(reasons.columns) == ["dropped", "kept", "r"]
    assert sorted(reasons["dropped"]) == sorted(set(cor.columns) - set(kept.columns))
    assert reasons["dropped"].is_unique
    assert set(reasons["kept"]) <= set(kept.columns)  # dropped only by a HEM that stays
    for d, k, r in reasons.itertuples(index=False):
        assert r == cor.loc[d, k] and r > dep


def test_reasons_follow_the_walk_order_on_a_small_matrix():
    # A drops B (0.9); B, already dropped, cannot drop C; C stays; D dropped by C (0.95)
    names = ["A", "B", "C", "D"]
    m = np.array(
        [
            [1.0, 0.9, 0.2, 0.1],
            [0.9, 1.0, 0.95, 0.1],
            [0.2, 0.95, 1.0, 0.95],
            [0.1, 0.1, 0.95, 1.0],
        ]
    )
    cor = pd.DataFrame(m, index=names, columns=names)
    got = pm.drop_reasons(cor, 0.85)
    assert got.values.tolist() == [["B", "A", 0.9], ["D", "C", 0.95]]
    assert list(pm.independent_matrix(cor, 0.85).columns) == ["A", "C"]
    neg = cor.copy()
    neg.loc["A", "D"] = neg.loc["D", "A"] = -0.9
    # signed by default: r = -0.9 is no dependence, D is still dropped by C
    assert pm.drop_reasons(neg, 0.85).values.tolist() == [["B", "A", 0.9], ["D", "C", 0.95]]
    assert pm.drop_reasons(neg, 0.85, absolute=True).values.tolist()[:2] == [
        ["B", "A", 0.9],
        ["D", "A", -0.9],
    ]
    assert pm.drop_reasons(pd.DataFrame(), 0.5).empty


@pytest.mark.parametrize("bad", [-0.01, 1.01, "0.5", True, None, float("nan")])
def test_dep_lvl_checked_once_with_one_message(cor, bad):
    with pytest.raises(MergeError, match=r"dep_lvl must be a number in \[0, 1\]"):
        pm.check_dep_lvl(bad)
    with pytest.raises(MergeError, match=r"dep_lvl must be a number in \[0, 1\]"):
        pm.independent_matrix(cor, bad)
    with pytest.raises(MergeError, match=r"dep_lvl must be a number in \[0, 1\]"):
        pm.MergeSettings(dep_lvl=bad).checked()


def test_merge_settings_checked_copies():
    s = pm.MergeSettings()
    assert s.with_(dep_lvl=np.float32(0.5)).dep_lvl == 0.5
    assert s.with_(n_sims=np.int64(20)).n_sims == 20
    assert s == pm.MergeSettings("much", None, 0.85, 100, 1000, 0)
    with pytest.raises(MergeError, match="method must be"):
        s.with_(method="copula")
    with pytest.raises(MergeError, match="n_sims must be at least 10 and at most 1000"):
        s.with_(n_sims=5)
    with pytest.raises(MergeError, match="n_runs must be an integer"):
        s.with_(n_runs=2.5)
    with pytest.raises(MergeError, match="unknown merge setting"):
        s.with_(colour="red")
