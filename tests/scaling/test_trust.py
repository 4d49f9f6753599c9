"""How far to trust a model: its quality, the sign of its growth term, and the interval of
a prediction (issue 28, part 4), on the MPI scaling study and on synthetic studies with
known noise."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.errors import ShapeError
from perfweave.scaling import fit_model, fit_models, predict, quality
from perfweave.scaling.fit import FewParameterValues
from perfweave.scaling.interval import never_negative, shown

METRIC = "Avg time/rank"


@pytest.fixture(scope="module")
def mpi():
    ens = pw.datasets.mpi_scaling()
    return ens, ens.models(METRIC, "mpi.world.size")


# ---------------------------------------------------------------------- quality
def test_quality_follows_the_documented_rules_on_the_mpi_study(mpi):
    _, fits = mpi
    q = fits["quality"]
    assert set(q) == {"good", "fair", "poor"}
    constant = fits["c1"] == 0
    # SMAPE above 50 % is always poor, whatever AR2 says
    assert (q[fits["smape"] > 50] == "poor").all()
    # AR2 says nothing of a constant: MPI_Waitall under CalcForceForNodes has AR2 = 1 at a
    # SMAPE of 69 %, and is poor; a constant is good by its SMAPE alone
    assert fits.loc[23, "ar2"] == 1.0 and fits.loc[23, "smape"] > 60 and q[23] == "poor"
    assert (q[constant & (fits["smape"] <= 10)] == "good").all()
    assert not (q[constant & (fits["smape"] > 10)] == "good").any()
    # a term that fits worse than the mean (AR2 < 0) is poor even at a SMAPE of 0.8 %
    assert fits.loc[41, "smape"] < 1 and fits.loc[41, "ar2"] < 0 and q[41] == "poor"
    # MPI_Barrier (SMAPE 89 %, AR2 -1.65) is poor; MPI_Allreduce's AR2 of 0.99 does not
    # make up for its SMAPE of 45 %: fair
    assert q[10] == "poor" and q[2] == "fair"
    # every grade is the rule applied to the row's figures
    term = ~constant
    good = (fits["smape"] <= 10) & (fits["n"] >= 5) & (constant | (fits["ar2"] >= 0.9))
    poor = (fits["smape"] > 50) | (term & (fits["ar2"] < 0))
    expected = np.where(poor, "poor", np.where(good, "good", "fair"))
    assert (q.to_numpy() == expected).all()


def test_quality_needs_five_points_for_good_and_a_model():
    """Fewer than Extra-P's 5 points is at best fair (the formats issue fits such
    functions); no model has no quality."""
    got = quality.grade([2.0, 2.0, 2.0, 60.0], [0.99, 0.99, 1.0, 1.0], [4, 5, 4, 5],
                        [False, False, True, True], [True, True, True, True])  # fmt: skip
    assert got.tolist() == ["fair", "good", "fair", "poor"]
    assert quality.grade(np.nan, np.nan, 0, False, False).tolist() == ""
    with pytest.warns(FewParameterValues):  # 4 values: fitted, as Extra-P fits them
        fits = fit_models([1, 2, 3, 4], [[1.0, 2.0, 3.0, 4.1]])
    assert fits.loc[0, "quality"] == "fair" and fits.loc[0, "smape"] < 10
    fits = fit_models([3, 3], [[1.0, 2.0]])  # one value: no model, no quality
    assert fits.loc[0, "quality"] == "" and fits.loc[0, "reason"] != ""
    assert "points (good: at least 5)" in quality.explain(2.0, 0.99, 4, False)
    assert quality.explain(89.4, -1.6, 5, False) == "poor: SMAPE 89% is above 50%"


def test_quality_of_one_model_and_of_multi_parameter_models():
    x = np.array([2.0, 4, 8, 16, 32, 64])
    assert fit_model(x, 3.0 + 0.5 * x).quality == "good"
    P, Q = (a.ravel() for a in np.meshgrid([2, 4, 8, 16, 32.0], [10, 20, 40, 80, 160.0]))
    rng = np.random.default_rng(5)
    Y = np.vstack([10 + 0.5 * P + 0.01 * Q, 5 + rng.random(25) * 10])
    fits = fit_models(np.column_stack([P, Q]), Y)
    assert fits.loc[0, "quality"] == "good"
    assert fits.loc[1, "quality"] == quality.grade(
        fits.loc[1, "smape"], fits.loc[1, "ar2"], 25, fits.loc[1, "combination"] == "const", True
    )


# ---------------------------------------------------------------------- growth labels
def test_a_shrinking_model_reads_as_shrinking(mpi):
    """CalcTimeConstraintsForElems shrinks (0.159 - 2.2e-07 * p^(5/3)): its growth term is
    -p^(5/3), not p^(5/3); every term with a negative coefficient has its sign."""
    _, fits = mpi
    assert fits.loc[41, "model"] == "0.159 - 2.2e-07 * p^(5/3)"
    assert fits.loc[41, "term"] == "-p^(5/3)"
    has_term = (fits["reason"] == "") & (fits["c1"] != 0)
    neg = fits["c1"] < 0
    assert neg.sum() >= 4
    assert fits.loc[has_term & neg, "term"].str.startswith("-").all()
    assert not fits.loc[has_term & ~neg, "term"].str.startswith("-").any()
    x = np.array([2.0, 4, 8, 16, 32, 64])
    assert fit_model(x, 100 - 2 * np.log2(x)).term == "-log2(p)"


def test_multi_parameter_terms_carry_their_signs():
    P, Q = (a.ravel() for a in np.meshgrid([2, 4, 8, 16, 32.0], [10, 20, 40, 80, 160.0]))
    Y = np.vstack([10.0 - 0.5 * P + 0.01 * Q, 100 - 0.01 * P * Q, 10 + 0.5 * P - 0.01 * Q])
    fits = fit_models(np.column_stack([P, Q]), Y)
    assert fits["term"].tolist() == ["-p + q", "-p * q", "p - q"]


# ---------------------------------------------------------------------- intervals
X = np.array([27, 64, 125, 216, 343.0])  # the MPI study's scales
TRUTHS = (
    lambda p: 1 + 0.01 * p**1.5,
    lambda p: 5 + 0.2 * p,
    lambda p: 2 + 0.5 * np.log2(p),
    lambda p: 3 + 0 * p,
    lambda p: 0.5 + 1e-3 * p * np.log2(p),
    lambda p: 2 + 1e-4 * p**2,
)


def test_the_interval_holds_about_90_percent_of_new_measurements():
    """480 synthetic studies (six known functions, 80 studies each, 5 % noise in
    proportion, measured at the MPI study's five scales): a new measurement at the
    target falls in the 90 % interval about 90 % of the time, inside the measured range,
    at twice the largest scale and 12 times past it. The draws are seeded: the counts are
    the same on every run (the band of +-5 points is the sampling error of 480 studies,
    about 1.4 points, three times over)."""
    rng = np.random.default_rng(2)
    truth = np.repeat(np.arange(len(TRUTHS)), 80)
    exact = np.vstack([f(X) for f in TRUTHS])[truth]
    fits = fit_models(X, exact * (1 + 0.05 * rng.standard_normal(exact.shape)))
    widths = []
    for factor in (0.4, 2.0, 12.0):
        target = factor * X.max()
        got = predict(fits, target, interval=0.9)
        value = np.array([f(target) for f in TRUTHS])[truth]
        new = value * (1 + 0.05 * rng.standard_normal(len(value)))
        inside = (got["low"] <= new) & (new <= got["high"])
        assert 0.85 <= inside.mean() <= 0.95, (factor, inside.mean())
        assert (got["low"] <= got["prediction"]).all() and (got["prediction"] <= got["high"]).all()
        widths.append(np.median((got["high"] - got["low"]) / value))
    # the further past the data, the less a few points say
    assert widths[0] < widths[1] < widths[2]


def test_interval_tables_rows_and_errors(mpi):
    _, fits = mpi
    one = predict(fits, 4096, interval=0.9)
    assert list(one.columns) == ["prediction", "low", "high"] and one.index.equals(fits.index)
    pd.testing.assert_series_equal(one["prediction"], predict(fits, 4096.0), check_names=False)
    # the same numbers for a row alone, in another order, or after a sort (seeded per row)
    some = predict(fits.loc[[41, 2, 10]], 4096, interval=0.9)
    pd.testing.assert_frame_equal(some, one.loc[[41, 2, 10]])
    by_time = fits.sort_values("smape")
    pd.testing.assert_frame_equal(predict(by_time, 4096, interval=0.9), one.loc[by_time.index])
    # several values: prediction, low and high over the values
    many = predict(fits, [100, 4096], interval=0.9)
    assert list(many.columns.get_level_values(0).unique()) == ["prediction", "low", "high"]
    np.testing.assert_allclose(many["low"][4096.0], one["low"])
    # inside the data the interval is narrower than 12 times past it
    assert ((many["high"][100.0] - many["low"][100.0]) <= (one["high"] - one["low"])).all()
    with pytest.raises(ShapeError, match=r"interval=1\.5: expected the share"):
        predict(fits, 4096, interval=1.5)
    relabelled = fits.set_axis(fits.index + 1000)
    with pytest.raises(ShapeError, match="no longer matches the measurements"):
        predict(relabelled, 4096, interval=0.9)
    rebuilt = pd.DataFrame(fits.to_dict())
    with pytest.raises(ShapeError, match="does not hold the measurements"):
        predict(rebuilt, 4096, interval=0.9)


def test_multi_parameter_intervals():
    rng = np.random.default_rng(0)
    P, Q = (a.ravel() for a in np.meshgrid([2, 4, 8, 16, 32.0], [10, 20, 40, 80, 160.0]))
    y = (10.0 + 0.5 * P + 0.01 * Q) * (1 + 0.02 * rng.standard_normal(25))
    fits = fit_models(pd.DataFrame({"ranks": P, "size": Q}), y)
    got = predict(fits, {"ranks": 64, "size": 320}, interval=0.9)
    assert got.loc[0, "low"] < 10 + 32 + 3.2 < got.loc[0, "high"]
    many = predict(fits, np.array([[64, 320], [4, 20]]), interval=0.9)
    assert many["low"].shape == (1, 2) and (many["low"] <= many["prediction"]).all(axis=None)


def test_a_time_below_zero_is_never_shown_as_one(mpi):
    """The rule every view applies: a prediction below 0 of a function never measured
    below 0 is no value, and a lower bound below 0 is 0."""
    ens, fits = mpi
    from perfweave.ensemble.models import metric_matrix

    got = predict(fits, 4096, interval=0.9)
    nonneg = never_negative(metric_matrix(ens, METRIC))
    assert nonneg.all()
    value, low, high, invalid = shown(got["prediction"], got["low"], got["high"], nonneg)
    assert set(fits.index[invalid]) == {8, 24, 41} == set(fits.index[got["prediction"] < 0])
    assert np.isnan(value[invalid]).all() and np.isnan(high[invalid]).all()
    assert (low[~invalid] >= 0).all() and (got["low"] < 0).any()
    # a metric that can be negative (a difference) keeps its values
    value, low, _, invalid = shown([-1.0], [-2.0], [0.5], [False])
    assert value.tolist() == [-1.0] and low.tolist() == [-2.0] and not invalid.any()
