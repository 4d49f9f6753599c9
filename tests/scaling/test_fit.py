"""fit_models / fit_model / predict: the search, repeats, missing values, bad input."""

from __future__ import annotations

import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from perfweave.errors import ShapeError
from perfweave.scaling import LogTermsSkipped, fit_model, fit_models, predict, terms
from perfweave.scaling import fit as fit_module
from perfweave.scaling.fit import FewParameterValues

DATA = Path(__file__).parent.parent / "data" / "scaling"

X = np.array([2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0])


def _true_rows(x: np.ndarray, c0: float = 2.0, share: float = 5.0) -> np.ndarray:
    """One noiseless function per hypothesis: c0 + c1 * term, the term share x c0 at
    the largest x."""
    T = terms.term_values(x)
    c1 = share * c0 / T[:, -1]
    return c0 + c1[:, None] * T


def test_search_space_is_extrap_default():
    assert len(terms.POLY) == 42
    polys = sorted({float(p) for p in terms.POLY})
    assert polys[0] == 0 and polys[-1] == 3 and len(polys) == 20  # 19 exponents and 0
    assert set(terms.LOG) == {0, 1, 2}
    assert terms.EXTRAP_TEXT[0] == "log2(p)^(1)"
    assert "p^(9/4)" in terms.EXTRAP_TEXT and "p^(1) * log2(p)^(2)" in terms.EXTRAP_TEXT


def test_noiseless_functions_give_back_their_term_and_coefficients():
    Y = _true_rows(X)
    fits = fit_models(X, Y)
    np.testing.assert_allclose(fits["p_exp"], terms.POLY_F)
    np.testing.assert_array_equal(fits["log_exp"], terms.LOG_F)
    np.testing.assert_allclose(fits["c0"], 2.0, rtol=1e-6)
    T = terms.term_values(X)
    np.testing.assert_allclose(fits["c1"], 5.0 * 2.0 / T[:, -1], rtol=1e-6)
    assert (fits["smape"] < 1e-6).all() and (fits["ar2"] > 0.999999).all()
    assert fits.loc[2, "term"] == "p^(1/4)" and fits.loc[19, "term"] == "p log2(p)"
    assert fits.loc[33, "model"].endswith(" * p^(9/4)")


def test_constant_function():
    m = fit_model(X, np.full(len(X), 3.5))
    assert (m.c0, m.c1, m.p_exp, m.log_exp) == (3.5, 0.0, 0.0, 0.0)
    assert m.model == "3.5" and m.term == "const"
    assert m.rss == 0 and m.smape == 0 and m.ar2 == 1
    assert m.predict(10**6) == 3.5


def test_model_text_in_extrap_notation():
    y = 1.92e-05 + 9.09e-09 * X ** (9 / 4)
    assert fit_model(X, y).model == "1.92e-05 + 9.09e-09 * p^(9/4)"
    y = 10.0 - 0.5 * X * np.log2(X) ** 2 / 1000
    m = fit_model(X, y)
    assert m.model == "10 - 0.0005 * p^(1) * log2(p)^(2)" and m.c1 < 0
    assert str(m) == m.model


def test_repeats_are_folded_per_parameter_value():
    rng = np.random.default_rng(3)
    base = 1.0 + 0.01 * X**1.5
    reps = base[None, :] * (1 + 0.05 * rng.standard_normal((4, len(X))))
    x_rep = np.tile(X, 4)
    y_rep = reps.ravel()
    perm = rng.permutation(len(x_rep))  # order of the measurements does not matter
    for agg, fold in (("mean", np.mean), ("median", np.median), ("min", np.min), ("max", np.max)):
        folded = fit_model(X, fold(reps, axis=0))
        got = fit_model(x_rep[perm], y_rep[perm], agg=agg)
        assert got.term == folded.term
        assert got.c0 == pytest.approx(folded.c0) and got.c1 == pytest.approx(folded.c1)
    assert fit_model(x_rep, y_rep, agg="median").c0 != fit_model(x_rep, y_rep).c0


def test_missing_measurements_are_left_out_of_that_function_only():
    rng = np.random.default_rng(5)
    Y = _true_rows(X) * (1 + 0.02 * rng.standard_normal((42, len(X))))
    Y[::3, 2] = np.nan
    Y[1::7, [0, 5]] = np.nan
    fits = fit_models(X, Y)
    for i in (0, 1, 3, 8):
        keep = ~np.isnan(Y[i])
        alone = fit_model(X[keep], Y[i, keep])
        assert fits.loc[i, "term"] == alone.term
        assert fits.loc[i, "c0"] == pytest.approx(alone.c0, rel=1e-9)
        assert fits.loc[i, "smape"] == pytest.approx(alone.smape, rel=1e-9)
        assert fits.loc[i, "n"] == keep.sum()


def test_masked_path_agrees_with_the_per_pattern_path(monkeypatch):
    """Rows of rare NaN patterns are fitted with masks; both ways give the same models."""
    rng = np.random.default_rng(11)
    x = np.geomspace(2, 4096, 12)
    Y = _true_rows(x)[rng.integers(0, 42, 300)] * (1 + 0.03 * rng.standard_normal((300, 12)))
    Y[rng.random(Y.shape) < 0.2] = np.nan
    Y[:4, 3:] = np.nan  # rows of 3, 2 ... values: fitted on their own paths too
    Y[4, 2:] = np.nan
    with pytest.warns(FewParameterValues):
        grouped = fit_models(x, Y)
    monkeypatch.setattr(fit_module, "_MAX_PATTERNS", 0)
    monkeypatch.setattr(fit_module, "_MIN_GROUP", 10**9)
    with pytest.warns(FewParameterValues):
        masked = fit_models(x, Y)
    pd.testing.assert_frame_equal(
        grouped[["p_exp", "log_exp", "n", "term"]], masked[["p_exp", "log_exp", "n", "term"]]
    )
    for col in ("c0", "c1", "rss", "smape", "ar2"):
        np.testing.assert_allclose(grouped[col], masked[col], rtol=1e-7, atol=1e-12)


def test_blocks_do_not_interact():
    rng = np.random.default_rng(2)
    Y = _true_rows(X)[rng.integers(0, 42, 1300)] * (1 + 0.05 * rng.standard_normal((1300, 8)))
    fits = fit_models(X, Y)  # several blocks of functions
    for i in (0, 511, 512, 1299):
        one = fit_models(X, Y[i : i + 1]).iloc[0]
        assert one["term"] == fits.loc[i, "term"]
        assert one["smape"] == pytest.approx(fits.loc[i, "smape"], rel=1e-9)


def test_fewer_than_five_values_are_fitted_with_a_warning_never_good():
    """Extra-P's rule: fewer than 5 distinct values are fitted anyway, with a warning; the
    model is never "good"; one value (or none) gives no model and says why."""
    Y = np.array(
        [[1.0, 2, 3, 4, 5], [1.0, 2, np.nan, 4, 5], [np.nan, 2, np.nan, np.nan, np.nan],
         [np.nan] * 5]
    )  # fmt: skip
    with pytest.warns(FewParameterValues, match="1 of 4 model.*fewest: 4"):
        fits = fit_models([1, 2, 3, 4, 5], Y)
    assert fits.loc[0, "reason"] == "" and fits.loc[0, "note"] == ""
    assert fits.loc[1, "reason"] == "" and fits.loc[1, "term"] == "p"
    assert fits.loc[1, "c1"] == pytest.approx(1.0) and fits.loc[1, "n"] == 4
    assert (
        fits.loc[1, "note"] == "fitted on 4 distinct parameter values; Extra-P asks for at least 5"
    )
    assert fits.loc[0, "quality"] == "good" and fits.loc[1, "quality"] == "fair"
    assert fits.loc[2, "reason"].startswith("1 distinct parameter value with")
    assert "at least 2 to be fitted" in fits.loc[2, "reason"]
    assert fits.loc[3, "reason"].startswith("0 distinct")
    assert fits.loc[2:, ["c0", "c1", "rss"]].isna().all().all()
    assert fits.loc[2, "model"] == "" and fits.loc[2, "quality"] == ""
    with pytest.warns(FewParameterValues):
        m = fit_model([1, 1, 2, 2, 3, 3, 4, 4], np.arange(8.0))  # 8 measurements, 4 values
    assert m.ok and m.quality != "good" and m.predict(10) > m.predict(4)
    m = fit_model([3, 3, 3], [1.0, 2.0, 3.0])  # one value: no model
    assert not m.ok and "1 distinct" in str(m) and np.isnan(m.predict(10))


def test_few_values_as_extrap_fits_them():
    """Functions at 2, 3 and 4 distinct values (two repeats each; few_*.csv, written by
    Extra-P 4.2.5 in its own venv): Extra-P's term, coefficients and figures. With two
    values each leave-one-out fit has one point (the least-norm solution) and AR2 is
    -inf, as in Extra-P."""
    inputs = pd.read_csv(DATA / "few_inputs.csv")
    ref = pd.read_csv(DATA / "few_extrap.csv")
    assert len(inputs) == len(ref) == 180
    for _, part in inputs.groupby("set", sort=False):
        cols = [c for c in part.columns if c.startswith("y") and part[c].notna().all()]
        x = [float(c.rsplit("_", 1)[1]) for c in cols]
        with pytest.warns(FewParameterValues):
            fits = fit_models(x, part[cols].to_numpy(float))
        want = ref.loc[part.index]
        same = (
            fits["p_exp"].to_numpy() == [float(Fraction(v)) for v in want["poly"].astype(str)]
        ) & (fits["log_exp"].to_numpy() == want["log"].to_numpy())
        # at three points p^(1) and p^(1/2) log2(p)^2 can be the same line (4, 16, 64 and
        # 8, 64, 288): an exact tie, decided by rounding in either program
        assert same.sum() >= len(same) - 2
        for col in ("rss", "smape"):
            np.testing.assert_allclose(fits[col], want[col], rtol=1e-7, atol=1e-12)
        for col in ("c0", "c1", "ar2"):
            np.testing.assert_allclose(fits[col][same], want[col][same], rtol=1e-7, atol=1e-12)
        tied = np.flatnonzero(~same)
        got = predict(fits.iloc[tied], x).to_numpy()
        for k, i in enumerate(tied):
            poly, log = float(Fraction(str(want["poly"].iloc[i]))), want["log"].iloc[i]
            theirs = want["c0"].iloc[i] + want["c1"].iloc[i] * np.power(x, poly) * np.log2(x) ** log
            np.testing.assert_allclose(got[k], theirs, rtol=1e-7)
        assert not (fits["quality"] == "good").any()


def test_log_terms_skipped_below_one_with_a_note():
    x = np.array([0.5, 1, 2, 4, 8, 16, 32])
    y = 3 + 2 * x * np.log2(np.maximum(x, 1))
    with pytest.warns(LogTermsSkipped, match="below 1"):
        fits = fit_models(x, y[None, :])
    assert fits.loc[0, "log_exp"] == 0 and "below 1" in fits.loc[0, "note"]
    # from 1 upwards log terms are used (Extra-P's rule: values below 1 exclude them)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LogTermsSkipped)
        m = fit_model(x[1:], y[1:])
    assert m.term == "p log2(p)" and m.note == ""


def test_dataframe_index_is_kept():
    Y = pd.DataFrame(_true_rows(X)[:3], index=pd.Index(["a", "b", "c"], name="f"))
    fits = fit_models(X, Y)
    assert fits.index.tolist() == ["a", "b", "c"] and fits.index.name == "f"


def test_predict_models_table():
    Y = _true_rows(X)[[0, 18, 33]]
    fits = fit_models(X, np.vstack([Y, [1] + [np.nan] * 7]))  # the last: no model
    at = predict(fits, 1024)
    assert isinstance(at, pd.Series) and len(at) == 4
    T = terms.term_values(np.array([1024.0]))[[0, 18, 33], 0]
    expected = 2 + 5 * 2 / terms.term_values(X)[[0, 18, 33], -1] * T
    np.testing.assert_allclose(at.iloc[:3], expected, rtol=1e-6)
    assert np.isnan(at.iloc[3])
    grid = predict(fits, [512, 1024])
    assert grid.shape == (4, 2) and grid[1024.0].iloc[1] == pytest.approx(at.iloc[1])
    m = fit_model(X, Y[1])
    np.testing.assert_allclose(m.predict([512, 1024]), grid.iloc[1].to_numpy())
    with pytest.raises(ShapeError, match="not a table of models"):
        predict(pd.DataFrame({"x": [1]}), 3)


@pytest.mark.parametrize(
    ("x", "message"),
    [
        (["1", "2", "x4", "8", "16"], r"x\[2\] is 'x4': expected a finite number"),
        ([1, 2, np.nan, 8, 16], r"x\[2\] is nan"),
        ([1, 2, np.inf, 8, 16], r"x\[2\] is inf"),
        ([[1, 2], [3, 4]], "1-D"),
    ],
)
def test_bad_parameter_values_name_position_and_value(x, message):
    with pytest.raises(ShapeError, match=message):
        fit_models(x, np.ones((1, np.size(x))))


def test_bad_measurements_and_options():
    with pytest.raises(ShapeError, match="3 columns but there are 5 parameter values"):
        fit_models([1, 2, 3, 4, 5], np.ones((2, 3)))
    with pytest.raises(ShapeError, match="must be numbers"):
        fit_models([1, 2, 3, 4, 5], [["a", "b", "c", "d", "e"]])
    with pytest.raises(ShapeError, match="agg 'mode'"):
        fit_models([1, 2, 3, 4, 5], np.ones((1, 5)), agg="mode")
    with pytest.raises(ShapeError, match="use fit_models"):
        fit_model([1, 2, 3, 4, 5], np.ones((2, 5)))


def test_numeric_strings_and_infinite_measurements():
    y = 1 + 0.1 * X**2
    m = fit_model([str(int(v)) for v in X], y)
    assert m.term == "p^(2)"
    y_inf = y.copy()
    y_inf[3] = np.inf  # not a measurement: left out like NaN
    assert fit_model(X, y_inf).n == len(X) - 1
