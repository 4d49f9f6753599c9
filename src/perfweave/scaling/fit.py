"""Fit Extra-P's single-parameter models to many functions at once.

For every function (a row of measurements over parameter values) this chooses, as
Extra-P's basic single-parameter modeler does (4.2.x defaults):

1. the constant ``c0 = mean(y)``, scored on the data itself (RSS, SMAPE; AR2 = 1); a
   function whose constant has RSS 0 keeps it;
2. otherwise, for each hypothesis ``c0 + c1 * p^i * log2(p)^j`` (:mod:`.terms`), the
   least-squares coefficients of every leave-one-out training set, with the constant
   set to 0 when it is below 0.0005 of the training set's smallest value, and the
   prediction error at the left-out point: the hypothesis' RSS and SMAPE are those
   leave-one-out errors (SMAPE = mean of ``2|pred - y| / (|pred| + |y|)`` in percent);
   its coefficients are then fitted on all points, and AR2 is
   ``1 - RSS / TSS * (n - 1) / (n - 2)`` with TSS the constant's RSS;
3. a hypothesis is dropped when its RSS is not finite, its coefficient is 0, or its term
   contributes less than 0.0005 of the measured value at every point; among the others
   the one with the smallest SMAPE wins (the first on ties) if its SMAPE is below the
   constant's.

A function with fewer than 5 distinct parameter values (Extra-P's minimum) is fitted
anyway, as Extra-P does (with two, each leave-one-out fit has one training point and is
the least-norm solution, as numpy's ``lstsq`` gives it to Extra-P): a
:class:`FewParameterValues` warning and the row's ``note`` say so, and its quality is never
"good". A function measured at one parameter value (or none) gets no model, and its
``reason`` says so (Extra-P returns that value as a constant).

The work is array arithmetic over (functions, hypotheses, points): the two-coefficient
least-squares fit has a closed form in five sums, and leaving one point out subtracts
that point's share from each sum, so every fit of every fold is a few whole-array
operations. Functions measured at the same points (the same NaN pattern) are fitted
together on those points, in blocks of 512 that stay in the CPU's cache; rows of rare
patterns are fitted with masks. Only the leading candidates' term contributions are
checked (a rejected one makes way for the next best).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from perfweave.errors import PerfweaveWarning, ShapeError
from perfweave.scaling import interval, quality, terms
from perfweave.scaling._points import fold_repeats, measurement_matrix, parameter_values
from perfweave.scaling.model import MultiParameterModel, ScalingModel

#: distinct parameter values Extra-P asks for (its ``min_measurement_points``): with
#: fewer a model is still fitted, with a :class:`FewParameterValues` warning
MIN_POINTS = 5
#: fewest distinct parameter values a model is fitted on at all
MIN_FIT = 2
#: a leave-one-out constant below this share of the smallest training value becomes 0
CLEAN_CONSTANT = 0.0005
#: a term contributing less than this share of every measured value is rejected
MIN_TERM_CONTRIBUTION = 0.0005
#: functions per block of the array computation
_BLOCK = 512  # (512, 42, 7) float arrays stay in cache: twice as fast as 2048


class LogTermsSkipped(PerfweaveWarning):
    """Log terms were left out of some fits because a parameter value is below 1."""


class FewParameterValues(PerfweaveWarning):
    """Some models were fitted on fewer than 5 distinct parameter values (Extra-P's
    minimum): fitted anyway, as Extra-P does, but never of "good" quality; the message
    counts them and the rows' ``note`` says so."""


@dataclass
class _Fit:
    """Fit results of a block of functions (arrays of length F; ``hyp`` -1 = constant)."""

    hyp: np.ndarray
    c0: np.ndarray
    c1: np.ndarray
    rss: np.ndarray
    smape: np.ndarray
    ar2: np.ndarray


def fit_models(x: Any, Y: Any, agg: str = "mean") -> pd.DataFrame:
    """Extra-P's single-parameter model of every row of ``Y`` over parameter values ``x``.

    ``x`` holds one parameter value per column of ``Y`` (repeats allowed: they are folded
    per value with ``agg``, one of mean, median, min, max); ``Y`` has one function per
    row, NaN where a function has no measurement (left out of that function's fit). A
    DataFrame ``Y`` keeps its index. Returns one row per function: ``c0``, ``c1``,
    ``p_exp``, ``log_exp`` (the model ``c0 + c1 * p^p_exp * log2(p)^log_exp``; a
    constant has ``c1 = 0`` and both exponents 0), ``term`` (a short label of the growth
    term), ``model`` (the text in Extra-P's notation), ``rss``, ``smape``, ``ar2``
    (Extra-P's figures: leave-one-out for a term, on the data for a constant), ``n`` (the
    distinct parameter values used), ``reason`` (why there is no model, else "") and
    ``note`` (e.g. log terms left out for a parameter value below 1).

    **Several parameters** (``x`` a DataFrame with one column per parameter, or an array
    of shape (measurements, parameters); Extra-P's multi-parameter modeler, see
    :mod:`perfweave.scaling.multi`): one row per function with ``c0``, a coefficient per
    term ``c[<names>]`` (``c[p]``, ``c[q]``, ``c[p*q]``: the term multiplying those
    parameters' terms; 0 when absent), per parameter ``p_exp[<name>]`` and
    ``log_exp[<name>]`` (its term ``v^p_exp * log2(v)^log_exp``; 0 and 0 when it has
    none), ``combination`` (e.g. ``p + p*q``), ``term``, ``model``, ``rss``, ``smape``,
    ``ar2`` (on all points), ``n`` (points used), ``reason``, ``note``. The model is
    ``c0 + sum over terms S of c[S] * prod over v in S of v^p_exp[v] * log2(v)^log_exp[v]``.
    Parameter names are the DataFrame's columns, else p, q, r, ...
    """
    from perfweave.scaling import multi

    index = Y.index if isinstance(Y, pd.DataFrame) else None
    if multi.is_multi(x):
        X, names = multi.parameter_table(x)
        return multi.fit_multi(X, names, Y, agg, index)
    xs = parameter_values(x)
    mat = measurement_matrix(Y, len(xs))
    points, A = fold_repeats(xs, mat, agg)
    out = _frame(points, A, index)
    interval.attach(out, points, A)
    return out


def _frame(points: np.ndarray, A: np.ndarray, index: pd.Index | None) -> pd.DataFrame:
    return _assemble(*_fit_arrays(points, A), index)


def _fit_arrays(points: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, ...]:
    """The chosen hypothesis of every row of ``A`` over ``points`` (-1 constant, -2 no
    model) and ``c0, c1, rss, smape, ar2, n, enough, below_one`` as arrays."""
    F = A.shape[0]
    valid = ~np.isnan(A)
    n = valid.sum(axis=1)
    enough = n >= MIN_FIT
    # log terms need every used parameter value >= 1 (Extra-P's check)
    below_one = (valid & (points < 1.0)[None, :]).any(axis=1)
    hyp = np.full(F, -2)  # -2: no model
    c0, c1, rss, smape, ar2 = (np.full(F, np.nan) for _ in range(5))
    T = terms.term_values(points)
    two = np.flatnonzero(n == 2)  # leave-one-out fits of one point: their own path
    for start in range(0, len(two), _BLOCK):
        sel = two[start : start + _BLOCK]
        fit = _fit_two(T, A[sel], ~below_one[sel])
        hyp[sel], c0[sel], c1[sel] = fit.hyp, fit.c0, fit.c1
        rss[sel], smape[sel], ar2[sel] = fit.rss, fit.smape, fit.ar2
    for sel, cols in _groups(valid, enough & (n != 2)):
        if cols is None:  # rows of rare NaN patterns, fitted with their masks
            fit = _fit_masked(T, A[sel], ~below_one[sel])
        else:  # rows measured at the same points: fitted on those columns only
            fit = _fit_dense(T[:, cols], A[np.ix_(sel, cols)], not below_one[sel[0]])
        hyp[sel], c0[sel], c1[sel] = fit.hyp, fit.c0, fit.c1
        rss[sel], smape[sel], ar2[sel] = fit.rss, fit.smape, fit.ar2
    return hyp, c0, c1, rss, smape, ar2, n, enough, below_one


#: NaN patterns shared by fewer rows than this go to the masked path once there are many
_MIN_GROUP = 16
_MAX_PATTERNS = 64


def _groups(valid: np.ndarray, enough: np.ndarray):
    """Blocks of rows to fit: ``(rows, columns)`` for rows measured at the same
    columns, ``(rows, None)`` for rows of rare patterns (fitted with masks)."""
    rows = np.flatnonzero(enough)
    if not len(rows):
        return
    sub = valid[rows]
    if sub.all():  # the usual case: every function measured at every point
        cols = np.arange(valid.shape[1])
        for start in range(0, len(rows), _BLOCK):
            yield rows[start : start + _BLOCK], cols
        return
    if sub.shape[1] <= 62:  # one integer key per pattern
        keys = sub @ (np.int64(1) << np.arange(sub.shape[1], dtype=np.int64))
        _, first, inverse, counts = np.unique(
            keys, return_index=True, return_inverse=True, return_counts=True
        )
        patterns = sub[first]
    else:
        patterns, inverse, counts = np.unique(sub, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    order = np.argsort(inverse, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(counts)])
    rare = []
    for g, pattern in enumerate(patterns):
        members = rows[order[bounds[g] : bounds[g + 1]]]
        if len(patterns) > _MAX_PATTERNS and counts[g] < _MIN_GROUP:
            rare.append(members)
            continue
        cols = np.flatnonzero(pattern)
        for start in range(0, len(members), _BLOCK):
            yield members[start : start + _BLOCK], cols
    if rare:
        rare_rows = np.sort(np.concatenate(rare))
        for start in range(0, len(rare_rows), _BLOCK):
            yield rare_rows[start : start + _BLOCK], None


def _constant(A: np.ndarray, W: np.ndarray, n: np.ndarray):
    """The constant model (the mean) and its RSS and SMAPE on the data."""
    y = np.where(W, A, 0.0)
    mean = y.sum(axis=1) / n
    diff = np.where(W, mean[:, None] - y, 0.0)
    rss = (diff * diff).sum(axis=1)
    smape = _smape(diff, y, mean[:, None], W) / n * 100
    return mean, rss, smape


def _choose(ok, loo_rss, loo_smape, c0, c1, mean, const_rss, const_smape, n, contribution) -> _Fit:
    """Extra-P's choice: among the hypotheses with a finite leave-one-out RSS, a non-zero
    coefficient and a term that is not negligible, the one with the smallest
    leave-one-out SMAPE (the first on ties), if that beats the constant's SMAPE and the
    constant's RSS is not 0. ``contribution(rows, hyps)`` gives the largest share of a
    term in the measured values; it is computed once per leading candidate (a rejected
    one makes way for the next best, as in Extra-P's sequential search)."""
    F = len(mean)
    ok = ok & np.isfinite(loo_rss) & (c1 != 0)
    score = np.where(ok, loo_smape, np.inf)
    rows = np.arange(F)
    fits = const_rss != 0
    pending = rows[fits]  # rows whose leading candidate is not checked yet
    while len(pending):
        best = np.argmin(score[pending], axis=1)
        lead = score[pending, best] < const_smape[pending]
        pending, best = pending[lead], best[lead]
        negligible = contribution(pending, best) < MIN_TERM_CONTRIBUTION
        score[pending[negligible], best[negligible]] = np.inf
        pending = pending[negligible]  # an accepted candidate is never checked again
    best = np.argmin(score, axis=1)
    take = fits & (score[rows, best] < const_smape)
    hyp = np.where(take, best, -1)
    out_rss = np.where(take, loo_rss[rows, best], const_rss)
    ar2 = 1.0 - out_rss / const_rss * (n - 1.0) / (n - 2.0)
    return _Fit(
        hyp,
        np.where(take, c0[rows, best], mean),
        np.where(take, c1[rows, best], 0.0),
        out_rss,
        np.where(take, loo_smape[rows, best], const_smape),
        np.where(take, ar2, 1.0),
    )


def _contribution(c1, Tz, A, W=None):
    """``contribution(rows, hyps)`` for :func:`_choose`: max over the points of
    ``|c1 * term / value|`` (NaN propagates as in Extra-P: a 0/0 rejects nothing)."""

    def share(rows, hyps):
        with np.errstate(all="ignore"):
            v = np.abs(c1[rows, hyps][:, None] * Tz[hyps] / A[rows])
            if W is not None:
                v = np.where(W[rows], v, -np.inf)
            return v.max(axis=1)

    return share


def _allowed(T: np.ndarray, loggable) -> np.ndarray:
    """(H,) or (F, H): hypotheses with a defined term at every used point, log terms
    only where allowed."""
    finite = np.isfinite(T).all(axis=1)
    return finite & (np.asarray(loggable)[..., None] | ~terms.HAS_LOG)


def _fit_dense(T: np.ndarray, A: np.ndarray, loggable: bool) -> _Fit:
    """Fit rows ``A`` (F, d) measured at every one of the d points of ``T`` (H, d).

    With all points present, shifting terms and values by their means makes the sums of
    the shifted terms and values 0, and leaving point k out of a fit changes the slope's
    sums by ``d/(d-1)`` times point k's share (the deletion formula)."""
    F, d = A.shape
    n = np.full(F, float(d))
    W = np.ones((1, d), bool)
    with np.errstate(all="ignore"):
        mean, const_rss, const_smape = _constant(A, W, n)
        allowed = _allowed(T, loggable)
        Tz = np.where(np.isfinite(T), T, 0.0)
        tshift = Tz.mean(axis=1)
        X = Tz - tshift[:, None]  # (H, d)
        yc = A - mean[:, None]  # (F, d)
        Sxx = (X * X).sum(axis=1)  # (H,)
        Sxy = yc @ X.T  # (F, H)
        c1 = Sxy / Sxx
        c0 = mean[:, None] - c1 * tshift[None, :]
        r = d / (d - 1.0)
        inv_den = 1.0 / (Sxx[:, None] - X * X * r)  # (H, d)
        # leave-one-out slopes and constants, (F, H, d)
        c1k = Sxy[:, :, None] - yc[:, None, :] * (X * r)[None]
        c1k *= inv_den[None]
        c0k = (mean[:, None] - yc / (d - 1.0))[:, None, :] + c1k * (X / (d - 1.0) - tshift[:, None])
        low = _min_without_each(A, np.ones_like(A, bool))
        threshold = np.where(low == 0, CLEAN_CONSTANT, CLEAN_CONSTANT * np.abs(low))[:, None, :]
        c0k[np.abs(c0k) < threshold] = 0.0
        np.multiply(c1k, Tz[None], out=c1k)
        pred = np.add(c0k, c1k, out=c0k)
        err = np.subtract(pred, A[:, None, :], out=c1k)
        loo_rss = np.einsum("fhd,fhd->fh", err, err)
        abssum = np.abs(pred, out=pred)
        abssum += np.abs(A)[:, None, :]
        np.maximum(abssum, np.finfo(float).tiny, out=abssum)
        np.abs(err, out=err)
        loo_smape = (err / abssum).sum(axis=2) * (200.0 / d)
        ok = np.broadcast_to(allowed[None, :], c1.shape)
        share = _contribution(c1, Tz, A)
        return _choose(ok, loo_rss, loo_smape, c0, c1, mean, const_rss, const_smape, n, share)


def _fit_masked(T: np.ndarray, A: np.ndarray, loggable: np.ndarray) -> _Fit:
    """Fit rows ``A`` (F, d) with missing values (NaN) at different points: every sum
    is taken over each row's own points."""
    F, d = A.shape
    W = ~np.isnan(A)
    Wf = W.astype(float)
    n = Wf.sum(axis=1)
    with np.errstate(all="ignore"):
        mean, const_rss, const_smape = _constant(A, W, n)
        usable = np.isfinite(T)  # (H, d)
        allowed = (Wf @ (~usable).T.astype(float)) == 0  # (F, H): no undefined term used
        allowed &= loggable[:, None] | ~terms.HAS_LOG[None, :]
        Tz = np.where(usable, T, 0.0)
        # shift terms and values (a shift leaves the slope unchanged and keeps the sums
        # below well conditioned)
        tshift = Tz.sum(axis=1) / np.maximum(usable.sum(axis=1), 1)
        X = Tz - tshift[:, None]  # (H, d)
        yc = np.where(W, A - mean[:, None], 0.0)  # (F, d)
        Sx = Wf @ X.T  # (F, H)
        Sxx = Wf @ (X * X).T
        Sy = yc.sum(axis=1)[:, None]  # (F, 1)
        Sxy = yc @ X.T
        m = n[:, None]
        # all points: the final coefficients
        c1 = (Sxy - Sx * Sy / m) / (Sxx - Sx * Sx / m)
        c0 = (Sy - c1 * Sx) / m + mean[:, None] - c1 * tshift[None, :]
        # leave one out: subtract point k's share from every sum -> (F, H, d)
        mk = (n - 1.0)[:, None, None]
        Xk = X[None, :, :]
        yk = yc[:, None, :]
        sx = Sx[:, :, None] - Xk
        sy = Sy[:, :, None] - yk
        c1k = (Sxy[:, :, None] - yk * Xk - sx * sy / mk) / (
            Sxx[:, :, None] - Xk * Xk - sx * sx / mk
        )
        c0k = (sy - c1k * sx) / mk + mean[:, None, None] - c1k * tshift[None, :, None]
        low = _min_without_each(A, W)[:, None, :]  # (F, 1, d)
        tiny = np.where(low == 0, np.abs(c0k) < CLEAN_CONSTANT, np.abs(c0k / low) < CLEAN_CONSTANT)
        c0k = np.where(tiny, 0.0, c0k)
        pred = c0k + c1k * Tz[None, :, :]
        actual = np.where(W, A, 0.0)[:, None, :]
        err = np.where(W[:, None, :], pred - actual, 0.0)
        loo_rss = (err * err).sum(axis=2)
        loo_smape = _smape(err, actual, pred, W[:, None, :]) / m * 100
        share = _contribution(c1, Tz, A, W)
        return _choose(allowed, loo_rss, loo_smape, c0, c1, mean, const_rss, const_smape, n, share)


def _fit_two(T: np.ndarray, A: np.ndarray, loggable: np.ndarray) -> _Fit:
    """Fit rows ``A`` (F, d) measured at exactly two points, as Extra-P does: each
    leave-one-out training set is one point, fitted by the least-norm solution of
    ``c0 + c1 * t = y`` (``c0 = y / (1 + t^2)``, ``c1 = t * c0``, what ``lstsq`` gives),
    its constant cleaned as usual; the coefficients on both points are the line through
    them. AR2 divides by ``n - 2 = 0`` as in Extra-P (``-inf`` for a term that misses)."""
    F = A.shape[0]
    W = ~np.isnan(A)
    n = np.full(F, 2.0)
    first = np.argmax(W, axis=1)
    second = W.shape[1] - 1 - np.argmax(W[:, ::-1], axis=1)
    rows = np.arange(F)
    y = np.stack([A[rows, first], A[rows, second]], axis=1)  # (F, 2)
    with np.errstate(all="ignore"):
        mean, const_rss, const_smape = _constant(A, W, n)
        t = np.stack([T[:, first].T, T[:, second].T], axis=2)  # (F, H, 2)
        allowed = np.isfinite(t).all(axis=2) & (loggable[:, None] | ~terms.HAS_LOG[None, :])
        t = np.where(np.isfinite(t), t, 0.0)
        # leave point k out: train on the other one, o = 1 - k
        t_train, y_train = t[:, :, ::-1], y[:, None, ::-1]  # (F, H, 2), (F, 1, 2)
        c0k = y_train / (1.0 + t_train * t_train)
        c1k = c0k * t_train
        low = np.abs(y_train)
        tiny = np.where(low == 0, np.abs(c0k) < CLEAN_CONSTANT, np.abs(c0k) < CLEAN_CONSTANT * low)
        c0k = np.where(tiny, 0.0, c0k)
        pred = c0k + c1k * t
        err = pred - y[:, None, :]
        loo_rss = (err * err).sum(axis=2)
        loo_smape = _smape(err, y[:, None, :], pred, np.ones_like(err, bool)) / 2 * 100
        c1 = (y[:, None, 1] - y[:, None, 0]) / (t[:, :, 1] - t[:, :, 0])
        c0 = y[:, None, 0] - c1 * t[:, :, 0]
        share = _contribution(c1, np.where(np.isfinite(T), T, 0.0), A, W)
        return _choose(allowed, loo_rss, loo_smape, c0, c1, mean, const_rss, const_smape, n, share)


def _smape(err: np.ndarray, actual: np.ndarray, pred: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Sum over the last axis of ``2|err| / (|actual| + |pred|)`` (0 where both are 0)."""
    abssum = np.abs(actual) + np.abs(pred)
    share = np.where(W & (abssum != 0), 2.0 * np.abs(err) / np.where(abssum != 0, abssum, 1.0), 0.0)
    return share.sum(axis=-1)


def _min_without_each(A: np.ndarray, W: np.ndarray) -> np.ndarray:
    """For each function and point, the smallest of the function's other values."""
    vals = np.where(W, A, np.inf)
    if vals.shape[1] < 2:
        return np.full_like(vals, np.inf)
    two = np.partition(vals, 1, axis=1)[:, :2]
    first, second = two[:, 0:1], two[:, 1:2]
    is_min = vals == first
    # a point equal to the minimum leaves the second smallest (equal if the minimum repeats)
    return np.where(is_min, second, first)


def _assemble(hyp, c0, c1, rss, smape, ar2, n, enough, below_one, index) -> pd.DataFrame:
    F = len(hyp)
    has = hyp >= 0
    h = np.where(has, hyp, 0)
    p_exp = np.where(has, terms.POLY_F[h], 0.0)
    log_exp = np.where(has, terms.LOG_F[h], 0.0)
    short = terms.signed(np.asarray(terms.SHORT_TEXT, dtype=object)[h], c1)
    term = np.where(has, short, "const").astype(object)
    term[hyp == -2] = ""
    model = model_texts(hyp, c0, c1)
    reason = np.full(F, "", dtype=object)
    if (~enough).any():
        reason[~enough] = [
            f"{k} distinct parameter value{'s' if k != 1 else ''} with measurements; a "
            f"model needs at least {MIN_POINTS} (at least {MIN_FIT} to be fitted at all, "
            "with a warning)"
            for k in n[~enough]
        ]
    note = np.full(F, "", dtype=object)
    skipped = below_one & enough
    if skipped.any():
        note[skipped] = "log terms left out: a parameter value is below 1"
        warnings.warn(
            f"{int(skipped.sum())} of {F} function(s) have a parameter value below 1: "
            "their models have no log2(p) terms (as in Extra-P)",
            LogTermsSkipped,
            stacklevel=3,
        )
    few = enough & (n < MIN_POINTS)
    if few.any():
        note[few] = _joined(note[few], [few_note(k) for k in n[few]])
        warn_few(int(few.sum()), F, int(n[few].min()), stacklevel=4)
    out = pd.DataFrame(
        {
            "c0": c0,
            "c1": c1,
            "p_exp": np.where(hyp == -2, np.nan, p_exp),
            "log_exp": np.where(hyp == -2, np.nan, log_exp),
            "term": term,
            "model": model,
            "rss": rss,
            "smape": smape,
            "ar2": ar2,
            "n": n.astype(np.int64),
            "quality": quality.grade(smape, ar2, n, hyp == -1, hyp != -2),
            "reason": reason,
            "note": note,
        },
        index=index if index is not None else pd.RangeIndex(F),
    )
    return out


def few_note(k: int | list[tuple[int, str]]) -> str:
    """The ``note`` of a model fitted on fewer than 5 distinct values: ``k`` of the one
    parameter, or (count, name) of each parameter that has too few."""
    if isinstance(k, (int, np.integer)):
        s = "s" if k != 1 else ""
        what = f"{k} distinct parameter value{s}"
    else:
        (n0, p0), *more = k
        what = f"{n0} distinct value{'s' if n0 != 1 else ''} of {p0!r}" + "".join(
            f", {n} of {p!r}" for n, p in more
        )
    return f"fitted on {what}; Extra-P asks for at least {MIN_POINTS}"


def warn_few(count: int, total: int, fewest: int, stacklevel: int) -> None:
    """One :class:`FewParameterValues` warning for ``count`` of ``total`` models."""
    warnings.warn(
        f"{count} of {total} model(s) fitted on fewer than {MIN_POINTS} distinct parameter "
        f"values (fewest: {fewest}), as Extra-P fits them: treat them as rough; their "
        "quality is never 'good'",
        FewParameterValues,
        stacklevel=stacklevel,
    )


def _joined(notes: np.ndarray, more: list[str]) -> np.ndarray:
    """Each note with one more sentence after "; " (or alone where the note is empty)."""
    return np.array([f"{a}; {b}" if a else b for a, b in zip(notes.tolist(), more)], dtype=object)


def model_texts(hyp: np.ndarray, c0: np.ndarray, c1: np.ndarray, param: str = "p") -> np.ndarray:
    """The model texts in Extra-P's notation with 3 significant digits, e.g.
    ``1.92e-05 + 9.09e-09 * p^(9/4)`` (a negative ``c1`` written ``c0 - |c1| * term``,
    ``c0`` left out when 0; "" where ``hyp`` is -2: no model)."""
    texts = np.array(
        [terms.extrap_term(f, c, param) for f, c in zip(terms.POLY, terms.LOG)] + [""], dtype=object
    )
    h = np.where(hyp >= 0, hyp, len(texts) - 1)
    c0s = np.array([f"{v:.3g}" for v in c0.tolist()], dtype=object)
    c1s = np.array([f"{v:.3g}" for v in np.abs(c1).tolist()], dtype=object)
    neg = c1 < 0
    term = c1s + " * " + texts[h]
    with_c0 = c0s + np.where(neg, " - ", " + ").astype(object) + term
    alone = np.where(neg, "-", "").astype(object) + term
    out = np.where(c0 == 0, alone, with_c0)
    out = np.where(hyp == -1, c0s, out)
    return np.where(hyp == -2, "", out).astype(object)


def fit_model(x: Any, y: Any, agg: str = "mean") -> ScalingModel | MultiParameterModel:
    """The model of one function ``y`` over parameter values ``x`` (as one row of
    :func:`fit_models`): an object with ``c0``, ``c1``, ``p_exp``, ``log_exp``, ``term``,
    ``model``, ``rss``, ``smape``, ``ar2``, ``n``, ``reason``, ``note`` and
    ``predict(values)``; with several parameters a :class:`MultiParameterModel`."""

    arr = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y)
    if arr.ndim != 1:
        raise ShapeError(
            f"fit_model takes one function (1-D), not shape {arr.shape}; use fit_models"
        )
    frame = fit_models(x, arr.reshape(1, -1), agg)
    if "params" in frame.attrs:  # a multi-parameter table
        return MultiParameterModel.from_row(frame.iloc[0], tuple(frame.attrs["params"]))
    return ScalingModel.from_row(frame.iloc[0])
