"""Multi-parameter models (Extra-P's multi-parameter modeler): known functions, the result
table, predictions, missing values and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.errors import ShapeError
from perfweave.scaling import (
    LogTermsSkipped,
    MultiParameterModel,
    fit_models,
    growth_order,
    predict,
)
from perfweave.scaling.fit import FewParameterValues

P = np.array([8.0, 16, 32, 64, 128])
Q = np.array([100.0, 200, 400, 800, 1600])
GP, GQ = (a.ravel() for a in np.meshgrid(P, Q, indexing="ij"))
X = pd.DataFrame({"ranks": GP, "size": GQ})

#: exact functions of every combination Extra-P's two-parameter modeler knows, with the
#: combination, exponents (ranks, size) and coefficients it must find
KNOWN = [
    (3.0 + 0.02 * GP * np.log2(GP) * GQ**0.5, "ranks*size", (1, 1, 0.5, 0),
     {"c0": 3.0, "c[ranks*size]": 0.02}),
    (1.0 + 0.5 * GP + 0.01 * GQ**2, "ranks + size", (1, 0, 2, 0),
     {"c0": 1.0, "c[ranks]": 0.5, "c[size]": 0.01}),
    (2.0 + 0.3 * GP**1.5 + 0.001 * GP**1.5 * np.log2(GQ), "ranks + ranks*size", (1.5, 0, 0, 1),
     {"c0": 2.0, "c[ranks]": 0.3, "c[ranks*size]": 0.001}),
    (4.0 + 0.2 * GQ + 0.05 * np.log2(GP) ** 2 * GQ, "size + ranks*size", (0, 2, 1, 0),
     {"c0": 4.0, "c[size]": 0.2, "c[ranks*size]": 0.05}),
    (5.0 + 0.7 * GP ** (1 / 3), "ranks", (1 / 3, 0, 0, 0), {"c0": 5.0, "c[ranks]": 0.7}),
    (0.1 + 0.01 * GQ * np.log2(GQ), "size", (0, 0, 1, 1), {"c0": 0.1, "c[size]": 0.01}),
    (7.0 + 0 * GP, "const", (0, 0, 0, 0), {"c0": 7.0}),
]  # fmt: skip


@pytest.fixture(scope="module")
def known() -> pd.DataFrame:
    return fit_models(X, np.vstack([k[0] for k in KNOWN]))


def test_exact_functions_get_their_terms_and_coefficients(known):
    for i, (_, combination, (pe, pl, qe, ql), coefs) in enumerate(KNOWN):
        row = known.iloc[i]
        assert row["combination"] == combination, (i, row["model"])
        got = (row["p_exp[ranks]"], row["log_exp[ranks]"], row["p_exp[size]"], row["log_exp[size]"])
        np.testing.assert_allclose(got, (pe, pl, qe, ql), err_msg=row["model"])
        for col in [c for c in known.columns if c.startswith("c")][: 1 + 3]:
            if col == "combination":
                continue
            np.testing.assert_allclose(row[col], coefs.get(col, 0.0), rtol=1e-7, atol=1e-9)
        assert row["smape"] < 1e-9 and row["reason"] == "" and row["n"] == 25
        assert row["ar2"] == pytest.approx(1.0)


def test_table_columns_and_texts(known):
    assert list(known.columns) == [
        "c0", "c[ranks]", "c[size]", "c[ranks*size]", "p_exp[ranks]", "log_exp[ranks]",
        "p_exp[size]", "log_exp[size]", "combination", "term", "model", "rss", "smape",
        "ar2", "n", "quality", "reason", "note",
    ]  # fmt: skip
    assert known.attrs["params"] == ["ranks", "size"]
    assert known["model"][0] == "3 + 0.02 * ranks^(1) * log2(ranks)^(1) * size^(1/2)"
    assert known["term"][0] == "ranks log2(ranks) * size^(1/2)"
    # Extra-P's order of terms: a + a*b lists the single term first
    assert known["model"][2] == "2 + 0.3 * ranks^(3/2) + 0.001 * ranks^(3/2) * log2(size)^(1)"
    assert known["term"][3] == "size + log2(ranks)^2 * size"
    assert known["model"][6] == "7" and known["term"][6] == "const"


def test_default_names_negative_coefficients_and_array_x():
    y = 10.0 - 0.5 * GP + 0.01 * GQ
    fits = fit_models(np.column_stack([GP, GQ]), y)
    assert fits["combination"][0] == "p + q"
    assert fits["model"][0] == "10 - 0.5 * p^(1) + 0.01 * q^(1)"
    assert "c[p*q]" in fits.columns and "p_exp[q]" in fits.columns
    # a DataFrame of functions keeps its index
    named = fit_models(X, pd.DataFrame([y, 2 * y], index=["solve", "exchange"]))
    assert named.index.tolist() == ["solve", "exchange"]
    np.testing.assert_allclose(named.loc["exchange", "c[size]"], 0.02)


def test_fit_model_and_predict_forms():
    y = KNOWN[0][0]
    model = pw.fit_model(X, y)
    assert isinstance(model, MultiParameterModel) and model.ok
    assert model.params == ("ranks", "size") and model.combination == "ranks*size"
    assert str(model) == model.model
    truth = 3.0 + 0.02 * 4096 * 12 * 1e6**0.5
    assert model.predict({"ranks": 4096, "size": 1e6}) == pytest.approx(truth)
    assert model.predict([4096, 1e6]) == pytest.approx(truth)
    many = model.predict(pd.DataFrame({"size": [1e6, 100.0], "ranks": [4096, 8.0]}))
    np.testing.assert_allclose(many, [truth, y[0]])
    np.testing.assert_allclose(model.predict(np.array([[4096, 1e6], [8, 100]])), [truth, y[0]])
    np.testing.assert_allclose(model.predict({"ranks": [8, 16], "size": [100, 100]}), y[[0, 5]])
    with pytest.raises(ShapeError, match="no value of parameter 'size'"):
        model.predict({"ranks": 8})
    with pytest.raises(ShapeError, match=r"shape \(points, 2\)"):
        model.predict([1, 2, 3])


def test_predict_a_table(known):
    one = predict(known, {"ranks": 8, "size": 100})
    np.testing.assert_allclose(one, [k[0][0] for k in KNOWN], rtol=1e-9)
    pts = pd.DataFrame({"ranks": [8.0, 128.0], "size": [100.0, 1600.0]})
    many = predict(known, pts)
    assert many.columns.names == ["ranks", "size"] and many.shape == (len(KNOWN), 2)
    np.testing.assert_allclose(many.iloc[:, 1], [k[0][-1] for k in KNOWN], rtol=1e-9)
    with pytest.raises(ShapeError, match="rank multi-parameter models by their predicted"):
        growth_order(known)


def test_missing_values_are_left_out_of_that_function_only():
    rng = np.random.default_rng(3)
    Y = np.vstack([k[0] for k in KNOWN[:4]]) * (1 + 0.02 * rng.standard_normal((4, 25)))
    holes = Y.copy()
    gone = [3, 11, 17]
    holes[1, gone] = np.nan
    fits = fit_models(X, holes)
    keep = np.setdiff1d(np.arange(25), gone)
    alone = fit_models(X.iloc[keep], Y[1:2, keep])
    pd.testing.assert_frame_equal(fits.iloc[1:2].reset_index(drop=True), alone)
    assert fits["n"].tolist() == [25, 22, 25, 25]
    pd.testing.assert_frame_equal(fits.iloc[[0, 2, 3]], fit_models(X, Y).iloc[[0, 2, 3]])


def test_too_few_values_along_a_parameter_and_no_measurements():
    """Fewer than 5 values of a parameter on its lines: fitted as Extra-P fits them, with
    a warning and a note naming the parameter, never "good"; no measurements: no model."""
    Y = np.vstack([KNOWN[0][0], KNOWN[1][0], np.full(25, np.nan)])
    Y[0, GQ == 1600] = np.nan  # size: 4 values left
    Y[1, (GP == 8) | (GP == 16)] = np.nan  # ranks: 3 values left
    with pytest.warns(FewParameterValues, match="2 of 3 model.*fewest: 3"):
        fits = fit_models(X, Y)
    assert fits["note"][0] == "fitted on 4 distinct values of 'size'; Extra-P asks for at least 5"
    assert fits["note"][1].startswith("fitted on 3 distinct values of 'ranks'")
    assert (fits["reason"][:2] == "").all() and fits["reason"][2] == "no measurements"
    assert fits["combination"][0] == KNOWN[0][1] and (fits["model"][:2] != "").all()
    assert not (fits["quality"][:2] == "good").any() and fits["quality"][2] == ""
    assert fits["p_exp[ranks]"][2:].isna().all() and fits["c[ranks*size]"][2:].isna().all()
    assert predict(fits, {"ranks": 8, "size": 100})[2:].isna().all()


def test_a_sparse_design_uses_the_lines_through_the_base_point():
    # a line along ranks at the smallest size, a line along size at the smallest rank
    # count, two more points
    pts = np.array([[p, Q[0]] for p in P] + [[P[0], q] for q in Q[1:]] + [[32, 400], [64, 800]])
    y = 1.0 + 0.5 * pts[:, 0] + 0.01 * pts[:, 1] ** 2
    fits = fit_models(pd.DataFrame(pts, columns=["ranks", "size"]), y)
    assert fits["combination"][0] == "ranks + size" and fits["n"][0] == 11
    assert fits["smape"][0] < 1e-9


def test_repeats_are_folded_per_point():
    rng = np.random.default_rng(5)
    y = KNOWN[2][0]
    reps = np.vstack([y * (1 + 0.02 * rng.standard_normal(25)) for _ in range(3)])
    x3 = pd.concat([X, X, X], ignore_index=True)
    for agg, fold in (("mean", np.mean), ("median", np.median)):
        fits = fit_models(x3, reps.reshape(1, -1), agg=agg)
        np.testing.assert_allclose(
            fits[["c0", "rss", "smape"]].to_numpy(),
            fit_models(X, fold(reps, axis=0))[["c0", "rss", "smape"]].to_numpy(),
        )


def test_point_order_does_not_matter(known):
    order = np.random.default_rng(1).permutation(25)
    Y = np.vstack([k[0] for k in KNOWN])
    pd.testing.assert_frame_equal(fit_models(X.iloc[order], Y[:, order]), known)


def test_log_terms_of_a_parameter_below_1_are_left_out():
    small = X.assign(size=X["size"] / 400)  # 0.25 .. 4
    y = 2.0 + 0.3 * GP * np.log2(GP) + 3.0 * (GQ / 400)
    with pytest.warns(LogTermsSkipped):
        fits = fit_models(small, y)
    assert fits["note"][0] == "log terms of 'size' left out: a value is below 1"
    assert fits["combination"][0] == "ranks + size" and fits["log_exp[ranks]"][0] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fit_models(X, y)["note"][0] == ""


def test_bad_parameter_values_name_the_parameter_and_row():
    bad = X.astype(object)
    bad.loc[7, "size"] = "big"
    with pytest.raises(ShapeError, match=r"x\['size'\]\[7\] is 'big': expected a finite number"):
        fit_models(bad, KNOWN[0][0])
    with pytest.raises(ShapeError, match="parameter 'a' appears twice"):
        fit_models(pd.DataFrame(np.ones((25, 2)), columns=["a", "a"]), KNOWN[0][0])
    with pytest.raises(ShapeError, match="24 columns but there are 25 parameter values"):
        fit_models(X, KNOWN[0][0][:24])
    with pytest.raises(ShapeError, match="at most 6"):
        fit_models(np.ones((25, 7)), KNOWN[0][0])


def test_three_parameters_product():
    g = np.meshgrid(P, Q, np.array([2.0, 4, 8, 16, 32]), indexing="ij")
    x3 = pd.DataFrame({"p": g[0].ravel(), "q": g[1].ravel(), "r": g[2].ravel()})
    y = 1.0 + 0.01 * x3["p"] * x3["q"] ** 0.5 * x3["r"] ** 2 + 0.2 * x3["r"] ** 2
    fits = fit_models(x3, y.to_numpy())
    assert fits["combination"][0] == "p*q*r + r"
    assert len([c for c in fits.columns if c.startswith("c[")]) == 7
    np.testing.assert_allclose(fits[["c0", "c[p*q*r]", "c[r]"]].iloc[0], [1.0, 0.01, 0.2])


def test_single_parameter_path_unchanged():
    y = 1.0 + 0.5 * P**2
    one = fit_models(pd.DataFrame({"p": P}), y)
    assert list(one.columns[:4]) == ["c0", "c1", "p_exp", "log_exp"]
    pd.testing.assert_frame_equal(one, fit_models(P, y))


def test_blocks_of_functions_give_the_same_table(known, monkeypatch):
    from perfweave.scaling import multi

    monkeypatch.setattr(multi, "_BLOCK", 3)  # the 7 functions in blocks of 3, 3, 1
    pd.testing.assert_frame_equal(fit_models(X, np.vstack([k[0] for k in KNOWN])), known)


def test_no_measurements_at_all():
    fits = fit_models(pd.DataFrame({"a": [], "b": []}), np.empty((2, 0)))
    assert fits["reason"].tolist() == ["no measurements"] * 2 and (fits["n"] == 0).all()
