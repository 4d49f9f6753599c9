"""MergeStudy without a widget: its merges equal the core functions on the mergingTools
vignettes, and a result that cannot be computed comes with its reason as data."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

import perfweave.merge as pm
from perfweave.errors import MergeError
from perfweave.merge.much import pooled_readings
from perfweave.merge.study import NEEDS_PAIRS, common_hems, first_copies, never_read_pairs


def _pairs_never_together(subs) -> set[tuple[str, str]]:
    """The HEM pairs no subexperiment holds both of, counted plainly."""
    hems = list(dict.fromkeys(str(c) for s in subs for c in s.columns))
    read = [{str(c) for c in s.columns} for s in subs]
    return {(a, b) for a, b in combinations(hems, 2) if not any(a in r and b in r for r in read)}


def test_much_equals_the_core(much_subs):
    study = pm.MergeStudy(much_subs).apply(pm.MergeSettings(seed=3))
    direct = pm.much_merge(much_subs, n_runs=1000, n_sims=100, dep_lvl=0.85, seed=3)
    pd.testing.assert_frame_equal(study.result, direct.merged)
    assert isinstance(study.diagnostics, pm.MuchResult)
    np.testing.assert_array_equal(study.diagnostics.scores, direct.scores)
    assert study.kept == study.names == [str(c) for c in direct.merged.columns]
    cor = pm.correlation_matrix(much_subs)
    pd.testing.assert_frame_equal(study.correlation, cor)
    pd.testing.assert_frame_equal(study.dropped, pm.drop_reasons(cor, 0.85))
    np.testing.assert_array_equal(study.target(), direct.target.to_numpy(dtype=float))
    np.testing.assert_array_equal(study.achieved(), direct.achieved.to_numpy(dtype=float))
    # a change merges again with the cached intermediates: the same as the core's merge
    study.change(dep_lvl=0.7, n_sims=50)
    direct = pm.much_merge(much_subs, n_runs=1000, n_sims=50, dep_lvl=0.7, seed=3)
    pd.testing.assert_frame_equal(study.result, direct.merged)
    assert study.settings.dep_lvl == 0.7 and study.settings.n_sims == 50
    pd.testing.assert_frame_equal(study.dropped, pm.drop_reasons(cor, 0.7))


def test_hrm_details(hrm_subs):
    study = pm.MergeStudy(hrm_subs)
    assert study.anchors == ["PROCESSOR_CYCLES"]
    study.apply(pm.MergeSettings("hrm", "PROCESSOR_CYCLES"))
    direct = pm.hrm_merge(hrm_subs, "PROCESSOR_CYCLES")
    pd.testing.assert_frame_equal(study.result, direct)
    d = study.diagnostics
    assert isinstance(d, pm.HrmDetails) and d.anchor == "PROCESSOR_CYCLES"
    pooled = np.concatenate([s["PROCESSOR_CYCLES"].to_numpy() for s in hrm_subs])
    np.testing.assert_array_equal(d.pooled, pooled)
    np.testing.assert_array_equal(d.quantiles, direct["PROCESSOR_CYCLES"].to_numpy())
    np.testing.assert_array_equal(d.quantiles, pm.quantile_type2(pooled, d.probabilities))
    # the anchor's cumulative curve spans the pooled readings; the dots are quantiles taken
    x, pct = d.pooled_curve()
    assert x[0] == pooled.min() and x[-1] == pooled.max() and np.all(np.diff(x) >= 0)
    assert pct[0] == 0 and pct[-1] == 100
    qx, qy = d.taken()
    assert 10 <= len(qx) <= 40 and np.isin(qx, d.quantiles).all()
    assert np.isin(qy, 100 * d.probabilities).all() and np.all(np.diff(qy) > 0)
    summary = d.summary().set_index("")[d.anchor]
    assert summary["pooled anchor readings"] == len(pooled) == len(hrm_subs) * len(direct)
    assert summary["merged rows"] == len(direct)
    assert summary["min"] == pooled.min() and summary["max"] == pooled.max()


def test_hrm_views_one_copy_of_each_hem(much_subs):
    # HRM on the MUCH vignette: a HEM read in several subexperiments has one column per reading
    study = pm.MergeStudy(much_subs).apply(pm.MergeSettings("hrm", "PROCESSOR_CYCLES"))
    hems = list(dict.fromkeys(str(c) for s in much_subs for c in s.columns))
    assert len(study.result.columns) > len(hems)
    assert sorted(study.names) == sorted(hems)
    assert list(first_copies(study.result).columns) == study.names
    values = study.result[study.names].to_numpy(dtype=float)
    np.testing.assert_allclose(study.achieved(), np.corrcoef(values, rowvar=False))
    cor = pm.correlation_matrix(much_subs)
    np.testing.assert_array_equal(study.target(), cor.loc[study.names, study.names].to_numpy())


def test_common_hems_are_read_in_every_subexperiment(much_subs, hrm_subs):
    for subs in (much_subs, hrm_subs):
        everywhere = set.intersection(*({str(c) for c in s.columns} for s in subs))
        assert set(common_hems(subs)) == everywhere and everywhere
        assert common_hems(subs) == [c for c in subs[0].columns if c in everywhere]


def test_never_read_pairs(much_subs, hrm_subs):
    assert never_read_pairs(much_subs) == []  # the MUCH vignette reads every pair together
    pairs = never_read_pairs(hrm_subs)
    assert len(pairs) == 75 and set(pairs) == _pairs_never_together(hrm_subs)


def test_much_not_available_is_data(hrm_subs):
    """MUCH on the HRM vignette: the reason comes from the subexperiments' columns."""
    study = pm.MergeStudy(hrm_subs)
    with pytest.raises(MergeError, match="never read in the same subexperiment") as info:
        study.change(seed=1)
    why = study.refused
    assert study.result is None and study.settings.method == "much"
    assert why is not None and why.what == "MUCH"
    assert set(why.pairs) == _pairs_never_together(hrm_subs)
    assert why.reason == f"{len(why.pairs)} HEM pair(s) never read in the same subexperiment"
    assert why.message == str(info.value)
    assert study.why_not(pm.MergeSettings()) == why
    # HRM needs no correlation; its pooled correlation is the part that is not available
    study.change(method="hrm")
    assert study.refused is None and study.settings.anchor == "PROCESSOR_CYCLES"
    target = study.target()
    assert isinstance(target, pm.Unavailable) and target.what == "pooled correlation"
    assert target.pairs == why.pairs and target.reason.endswith(f"({NEEDS_PAIRS})")
    assert study.achieved().shape == (16, 16)
    # a failed switch back keeps HRM's result and says why again
    before = study.result
    with pytest.raises(MergeError):
        study.change(method="much")
    assert study.settings.method == "hrm" and study.result is before
    assert study.refused.what == "MUCH" and study.refused.pairs == why.pairs


def test_too_few_kept_and_no_anchor_are_data():
    rng = np.random.default_rng(1)
    x = rng.normal(size=400)
    subs = [
        pd.DataFrame({"A": x * 10 + 100, "B": x * 20 + 5 + rng.normal(size=400) * 0.1}),
        pd.DataFrame({"A": x * 10 + 100, "C": x * 3 + 7 + rng.normal(size=400) * 0.1}),
        pd.DataFrame({"B": x * 20 + 5, "C": x * 3 + 7 + rng.normal(size=400) * 0.1}),
    ]
    study = pm.MergeStudy(subs)
    why = study.why_not(pm.MergeSettings(dep_lvl=0.99))
    assert why.what == "MUCH" and why.reason == "at dep_lvl=0.99 only 1 HEM is kept (A)"
    assert study.why_not(pm.MergeSettings(dep_lvl=0.99999)) is None  # all three kept
    assert study.anchors == []
    why = study.why_not(pm.MergeSettings("hrm", None))
    assert why.what == "HRM" and why.reason == "no HEM is read in every subexperiment"
    with pytest.raises(MergeError, match="HRM has no anchor"):
        study.apply(pm.MergeSettings("hrm", None))
    assert study.refused == why


def test_failed_merge_keeps_the_previous_one():
    rng = np.random.default_rng(0)

    def pair(a, b, r):
        x = rng.normal(size=500)
        y = r * x + np.sqrt(1 - r * r) * rng.normal(size=500)
        return pd.DataFrame({a: x * 10 + 1000, b: y * 10 + 1000})

    subs = [pair("A", "B", 0.8), pair("B", "C", 0.8), pair("A", "C", -0.8)]
    study = pm.MergeStudy(subs).apply(pm.MergeSettings(dep_lvl=0.7))
    before, pair_before = study.result, study.pair
    assert study.kept == ["A", "C"] and pair_before == ("A", "C")
    with pytest.raises(MergeError, match="not positive definite"):
        study.change(dep_lvl=0.9)
    assert study.result is before and study.settings.dep_lvl == 0.7
    assert "not positive definite" in study.refused.message
    with pytest.raises(MergeError, match="n_sims must be at least 10"):
        study.change(n_sims=5)
    assert study.result is before


def test_n_pmcs_splits_the_raw_table_again(much_raw):
    study = pm.MergeStudy(much_raw, 8).apply(pm.MergeSettings("hrm", "PROCESSOR_CYCLES"))
    assert study.has_raw and len(study.subexperiments) == 18
    pd.testing.assert_frame_equal(
        study.result, pm.hrm_merge(pm.process_raw_experiments(much_raw, 8), "PROCESSOR_CYCLES")
    )
    before = study.result
    with pytest.raises(MergeError, match="do not split"):
        study.set_n_pmcs(7)
    # split in fours no HEM is in every subexperiment: HRM has no anchor, nothing changes
    with pytest.raises(MergeError, match="no anchor"):
        study.set_n_pmcs(4)
    assert study.n_pmcs == 8 and len(study.subexperiments) == 18
    assert study.anchors == ["PROCESSOR_CYCLES"] and study.result is before
    study.set_n_pmcs(6)
    expected = pm.hrm_merge(pm.process_raw_experiments(much_raw, 6), "PROCESSOR_CYCLES")
    pd.testing.assert_frame_equal(study.result, expected)
    with pytest.raises(MergeError, match="raw table"):
        pm.MergeStudy(study.subexperiments).set_n_pmcs(6)


def test_pair_and_marginals(much_subs):
    study = pm.MergeStudy(much_subs).apply(pm.MergeSettings(seed=3))
    a, b = study.kept[3], study.kept[1]
    study.pick_pair(a, b)
    x, y, r = study.pair_values()
    np.testing.assert_array_equal(x, study.result[a].to_numpy(dtype=float))
    np.testing.assert_array_equal(y, study.result[b].to_numpy(dtype=float))
    assert r == pytest.approx(np.corrcoef(x, y)[0, 1])
    # MUCH's pooled readings (outliers left out), from which the merged runs are drawn
    pooled = pooled_readings(much_subs)[a]
    np.testing.assert_array_equal(study.pooled_values([a])[a], pooled)
    assert np.isin(x, pooled).all()
    centres, merged, pooled_pct = study.marginal(a)
    assert len(centres) == 40
    np.testing.assert_allclose([merged.sum(), pooled_pct.sum()], [100.0, 100.0])
    half = (centres[1] - centres[0]) / 2
    both = np.concatenate([x, pooled])
    assert centres[0] - half == pytest.approx(both.min())
    assert centres[-1] + half == pytest.approx(both.max())
    with pytest.raises(MergeError, match="not in the merged table"):
        study.pick_pair("L2_ACCESSES", a)  # dropped at 0.85
    assert study.pair == (a, b)


def test_design_equals_the_core(much_subs):
    study = pm.MergeStudy(much_subs)
    with pytest.raises(MergeError, match="no design"):
        study.design_frame()
    hems = [f"H{i}" for i in range(12)]
    design = study.build_design(hems, 5, seed=0)
    assert design.blocks == pm.pair_covering_design(hems, 5, seed=0).blocks
    frame = study.design_frame()
    assert list(frame["subexperiment"]) == list(range(1, design.n_subexperiments + 1))
    pd.testing.assert_frame_equal(frame.drop(columns="subexperiment"), design.to_frame())
    # by default the study's own HEMs, in its subexperiments' PMC count
    default = study.build_design(max_moves=20_000)
    assert list(default.hems) == study.hems
    assert default.n_pmcs == 6 and default.uncovered_pairs() == []


def test_a_raw_table_needs_n_pmcs(much_raw):
    with pytest.raises(MergeError, match="needs n_pmcs"):
        pm.MergeStudy(much_raw)
    with pytest.raises(MergeError, match="at least one subexperiment"):
        pm.MergeStudy([])
