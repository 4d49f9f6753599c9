"""Prediction intervals of fitted models (Extra-P gives none): a bootstrap over the
measured points that redoes Extra-P's whole choice of model in every replicate.

For each function, on its measured points ``x_i`` (repeats folded) with values ``y_i``
and the chosen model's values ``m_i``:

1. **Leave-one-out residuals** of the chosen model, ``r_i = (y_i - m_i) / (1 - h_i)``
   (``h_i`` the leverage of point i in the least-squares fit of the model's terms: the
   error at ``x_i`` of the model fitted without point i). They are relative (divided by
   ``m_i``) when every measured and modelled value is above 0 (times and counts scatter
   in proportion to their size), else absolute.
2. **Replicates.** :data:`BOOTSTRAP` studies ``y*_i = m_i * (1 + r*_i)`` (absolute:
   ``m_i + r*_i``), the ``r*_i`` drawn with replacement from the centred residuals, each
   modelled afresh by Extra-P's method (every term, the leave-one-out choice). The
   interval so carries the doubt about which term fits as well as about its
   coefficients: far past the data the first is most of it.
3. **A new measurement** at ``x`` is a replicate's value there, its distance from the
   model's prediction widened by ``sqrt(n / (n - k))`` (``n`` points, ``k``
   coefficients: the small-sample correction of a residual bootstrap, whose replicates
   scatter less than refits to new data would, the more so as each refit also chooses
   its term among 42 on few points), times ``(1 + s * t)`` (absolute: plus ``s * t``):
   ``s`` the root mean square of the leave-one-out residuals, ``t`` a Student-t draw with
   ``n - k`` degrees of freedom, since ``s`` comes from few points.
4. ``low`` and ``high`` are the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of
   those values, widened to contain the model's own prediction when they do not.

The draws are seeded per row (:data:`SEED` and the row's position in the table), so an
interval is the same in every call, for the whole table or any of its rows. A table of
:func:`~perfweave.scaling.fit_models` keeps the points it was fitted to in its ``attrs``
(shared by its row subsets and copies, never copied itself); the replicates of a row are
computed when it first gets an interval and kept.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from perfweave.errors import ShapeError

#: replicates per function
BOOTSTRAP = 200
#: seed of the draws (with the row's position)
SEED = 20_250_601
#: the ``attrs`` key of a model table's measured points
ATTR = "measured"
QUANTITIES = ("prediction", "low", "high")


class Measured:
    """The points and values a table of models was fitted to, and the replicate models
    of the rows that got an interval. Kept in the table's ``attrs``: shared, never copied
    (pandas deep-copies ``attrs`` with every operation)."""

    def __init__(
        self,
        points: np.ndarray,
        values: np.ndarray,
        index: pd.Index,
        models: np.ndarray,
        params: tuple[str, ...] | None = None,
    ) -> None:
        self.points = points  # (d,) one parameter, (d, k) several
        self.values = values  # (F, d) folded values, NaN where not measured
        self.index = pd.Index(index)
        self.models = np.asarray(models, dtype=object)  # each row's model text: a check
        self.params = params
        self._rows: dict[int, tuple[int, int]] = {}  # position -> (batch, row in batch)
        self._batches: list[_Batch] = []

    def __deepcopy__(self, memo: dict) -> Measured:
        return self

    def __copy__(self) -> Measured:
        return self

    def positions(self, models: pd.DataFrame) -> np.ndarray:
        """The position of each row of ``models`` among the fitted rows; an error when the
        table no longer matches the measurements (relabelled, or another table's rows)."""
        if not self.index.is_unique:
            raise ShapeError("prediction intervals need a table of models with unique row labels")
        at = self.index.get_indexer(models.index)
        if (at < 0).any() or "model" not in models.columns:
            raise ShapeError(_LOST)
        if not (models["model"].to_numpy(dtype=object) == self.models[at]).all():
            raise ShapeError(_LOST)
        return at

    def replicates(
        self, models: pd.DataFrame, at: np.ndarray
    ) -> list[tuple[_Batch, np.ndarray, np.ndarray]]:
        """The replicate models of rows ``at`` (computed for those that have none yet):
        per batch that holds some of them, (batch, their rows in it, a mask over ``at``)."""
        new = np.array(sorted({int(p) for p in at} - set(self._rows)), dtype=np.int64)
        if len(new):
            first = {p: i for i, p in reversed(list(enumerate(at.tolist())))}
            rows = models.iloc[[first[p] for p in new.tolist()]]
            self._batches.append(_bootstrap(self, rows, new))
            for k, p in enumerate(new.tolist()):
                self._rows[p] = (len(self._batches) - 1, k)
        where = np.array([self._rows[int(p)] for p in at], dtype=np.int64).reshape(-1, 2)
        out = []
        for b in np.unique(where[:, 0]).tolist():
            mask = where[:, 0] == b
            out.append((self._batches[b], where[mask, 1], mask))
        return out


_LOST = (
    "this table of models no longer matches the measurements it was fitted to (rows "
    "relabelled, or a table rebuilt from text): prediction intervals need the table "
    "fit_models or Ensemble.models returned, or any of its rows"
)


class _Batch:
    """Replicate models of some rows: ``table`` holds BOOTSTRAP rows per row, in order."""

    def __init__(self, table, scale, relative, draws, ok, points, coefficients) -> None:
        self.table = table  # replicate models, (rows * BOOTSTRAP) rows
        self.scale = scale  # (rows,) root mean square leave-one-out residual
        self.relative = relative  # (rows,) residuals relative to the model's values
        self.draws = draws  # (rows, BOOTSTRAP) Student-t draws of a new measurement
        self.ok = ok  # (rows,) whether the row has an interval
        self.points = points  # (rows,) measured points n
        self.coefficients = coefficients  # (rows,) the model's coefficients k


def attach(table: pd.DataFrame, points: np.ndarray, values: np.ndarray, params=None) -> None:
    """Keep the measured points of a fitted table in its ``attrs``."""
    table.attrs[ATTR] = Measured(points, values, table.index, table["model"].to_numpy(), params)


def check_level(level: Any) -> float:
    """``level`` as a number strictly between 0 and 1, else an error naming it."""
    try:
        v = float(level)
    except (TypeError, ValueError):
        v = np.nan
    if not 0 < v < 1:
        raise ShapeError(
            f"interval={level!r}: expected the share of new measurements it should hold, a "
            "number between 0 and 1 such as 0.9"
        )
    return v


def predict_interval(models: pd.DataFrame, values: Any, level: Any) -> pd.DataFrame:
    """See :func:`perfweave.scaling.predict` with ``interval``."""
    from perfweave.scaling.model import predict

    level = check_level(level)
    measured = models.attrs.get(ATTR)
    if not isinstance(measured, Measured):
        raise ShapeError(_LOST.replace("no longer matches", "does not hold"))
    point = predict(models, values)
    at = measured.positions(models)
    V = _points(measured, values)
    low = np.full((len(models), len(V)), np.nan)
    high = low.copy()
    pred = np.asarray(point, dtype=float).reshape(len(models), -1)
    for batch, rows, mine in measured.replicates(models, at):
        low[mine], high[mine] = _quantiles(measured, batch, rows, V, level, pred[mine])
    with np.errstate(invalid="ignore"):
        low = np.where(low > pred, pred, low)
        high = np.where(high < pred, pred, high)
    if isinstance(point, pd.Series):
        return pd.DataFrame(
            {"prediction": point.to_numpy(), "low": low[:, 0], "high": high[:, 0]},
            index=models.index,
        )
    parts = {q: pd.DataFrame(a, index=models.index, columns=point.columns) for q, a in
             zip(QUANTITIES, (pred, low, high))}  # fmt: skip
    return pd.concat(parts, axis=1, names=["quantity"])


def _points(measured: Measured, values: Any) -> np.ndarray:
    """The values to predict at: (V,) for one parameter, (V, k) for several."""
    if measured.params is None:
        return np.atleast_1d(np.asarray(values, dtype=float))
    from perfweave.scaling.multi import point_values

    return point_values(values, measured.params)[0]


def _evaluate(measured: Measured, table: pd.DataFrame, V: np.ndarray) -> np.ndarray:
    """Every model of ``table`` at ``V``: (models, values)."""
    from perfweave.scaling.model import evaluate
    from perfweave.scaling.multi import evaluate_table

    if measured.params is not None:
        return evaluate_table(table, V)
    return evaluate(table["c0"], table["c1"], table["p_exp"], table["log_exp"], V)


def _quantiles(
    measured: Measured,
    batch: _Batch,
    rows: np.ndarray,
    V: np.ndarray,
    level: float,
    prediction: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of ``rows`` of ``batch`` at ``V`` (arrays (rows, values));
    ``prediction`` is the rows' own models at ``V``."""
    B = BOOTSTRAP
    take = (rows[:, None] * B + np.arange(B)[None, :]).ravel()
    reps = _evaluate(measured, batch.table.iloc[take], V).reshape(len(rows), B, len(V))
    # the replicates' spread around the prediction, widened by sqrt(n / (n - k)) (step 3)
    widen = np.sqrt(batch.points[rows] / (batch.points[rows] - batch.coefficients[rows]))
    reps = prediction[:, None, :] + widen[:, None, None] * (reps - prediction[:, None, :])
    noise = (batch.scale[rows, None] * batch.draws[rows])[:, :, None]
    rel = batch.relative[rows, None, None]
    with np.errstate(all="ignore"):
        new = np.where(rel, reps * (1.0 + noise), reps + noise)
        new = np.where(batch.ok[rows, None, None], new, np.nan)
        enough = np.isfinite(new).sum(axis=1) * 2 > B  # most replicates have a model
        lo = np.nanquantile(np.where(np.isfinite(new), new, np.nan), (1 - level) / 2, axis=1)
        hi = np.nanquantile(np.where(np.isfinite(new), new, np.nan), (1 + level) / 2, axis=1)
    return np.where(enough, lo, np.nan), np.where(enough, hi, np.nan)


def _design(measured: Measured, rows: pd.DataFrame) -> np.ndarray:
    """The least-squares columns of each row's model at the measured points: (rows, d, m)
    with the constant first and a zero column where a model has no such term."""
    from perfweave.scaling.model import evaluate
    from perfweave.scaling.multi import subset_label, subsets

    d = len(measured.points)
    ones = np.ones((len(rows), d, 1))
    with np.errstate(all="ignore"):
        if measured.params is None:
            c1 = rows["c1"].to_numpy(dtype=float)
            term = evaluate(0.0, 1.0, rows["p_exp"], rows["log_exp"], measured.points)
            cols = [np.where((c1 != 0)[:, None], term, 0.0)]
        else:
            names = measured.params
            factors = [
                evaluate(
                    0.0, 1.0, rows[f"p_exp[{n}]"], rows[f"log_exp[{n}]"], measured.points[:, j]
                )
                for j, n in enumerate(names)
            ]
            cols = []
            for s in subsets(len(names)):
                c = rows[f"c[{subset_label(s, names)}]"].to_numpy(dtype=float)
                prod = np.prod([factors[j] for j in s], axis=0)
                cols.append(np.where((c != 0)[:, None], prod, 0.0))
    X = np.concatenate([ones] + [c[:, :, None] for c in cols], axis=2)
    return np.where(np.isfinite(X), X, 0.0)


def _bootstrap(measured: Measured, rows: pd.DataFrame, at: np.ndarray) -> _Batch:
    """The replicate models of the rows ``rows`` (at positions ``at`` of the table)."""
    from perfweave.scaling.fit import _frame
    from perfweave.scaling.multi import _fit_points

    B = BOOTSTRAP
    Y = measured.values[at]  # (P, d)
    W = ~np.isnan(Y)
    n = W.sum(axis=1)
    fitted = _evaluate(measured, rows, measured.points)  # (P, d)
    X = np.where(W[:, :, None], _design(measured, rows), 0.0)
    k = (np.abs(X).sum(axis=1) > 0).sum(axis=1)  # coefficients: the constant and terms
    with np.errstate(all="ignore"):
        lever = np.einsum("pdm,pmd->pd", X, np.linalg.pinv(X))
        err = np.where(W, Y - fitted, 0.0)
        loo = np.where(lever < 1 - 1e-9, err / (1 - lever), err)
        relative = (np.where(W, Y, 1.0) > 0).all(axis=1) & (np.where(W, fitted, 1.0) > 0).all(
            axis=1
        )
        resid = np.where(relative[:, None], loo / fitted, loo)
        resid = np.where(W, resid, np.nan)
        scale = np.sqrt(np.nanmean(resid * resid, axis=1))
        pool = resid - np.nanmean(resid, axis=1, keepdims=True)
    ok = (rows["reason"].to_numpy(dtype=object) == "") & (n - k >= 1) & np.isfinite(scale)
    Ystar = np.full((len(at), B, Y.shape[1]), np.nan)
    draws = np.zeros((len(at), B))
    for i, p in enumerate(at.tolist()):
        if not ok[i]:
            continue
        rng = np.random.default_rng([SEED, p])
        cols = np.flatnonzero(W[i])
        picks = pool[i, cols][rng.integers(0, len(cols), size=(B, len(cols)))]
        base = fitted[i, cols]
        Ystar[i][:, cols] = base * (1 + picks) if relative[i] else base + picks
        draws[i] = rng.standard_t(n[i] - k[i], size=B)
    flat = Ystar.reshape(len(at) * B, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the table's own fit has said it (LogTermsSkipped)
        if measured.params is None:
            table = _frame(measured.points, flat, None)
        else:
            table = _fit_points(measured.points, flat, measured.params, None)
    return _Batch(table, np.where(ok, scale, np.nan), relative, draws, ok, n, k)


# ---------------------------------------------------------------------- showing them
#: what a view writes for a prediction below 0 of a function never measured below 0
INVALID = "< 0: model invalid here"


def never_negative(values: np.ndarray) -> np.ndarray:
    """Per function (a row of ``values``, the measurements): none is below 0 (a time, a
    count, bytes)."""
    with np.errstate(invalid="ignore"):
        return ~(np.asarray(values, dtype=float) < 0).any(axis=-1)


def shown(prediction: Any, low: Any, high: Any, nonnegative: Any) -> tuple[np.ndarray, ...]:
    """The one rule every view applies before it shows a prediction and its interval
    (arrays of one value per function, ``nonnegative`` from :func:`never_negative`): a
    prediction below 0 of a function never measured below 0 is no value (NaN: the view
    writes :data:`INVALID`; a shrinking model crosses 0 when extrapolated far enough),
    and its interval is none; a lower bound below 0 of such a function is 0."""
    pred, lo, hi = (np.array(a, dtype=float) for a in (prediction, low, high))
    keep = np.broadcast_to(np.asarray(nonnegative, dtype=bool), pred.shape)
    with np.errstate(invalid="ignore"):
        invalid = keep & (pred < 0)
        lo = np.where(keep & (lo < 0), 0.0, lo)
    return (np.where(invalid, np.nan, pred), np.where(invalid, np.nan, lo),
            np.where(invalid, np.nan, hi), invalid)  # fmt: skip
