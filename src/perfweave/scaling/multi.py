"""Fit Extra-P's multi-parameter models (e.g. ranks x problem size) to many functions at once.

A multi-parameter model is ``c0`` plus a sum of terms, each term a product of one
single-parameter term ``v^i * log2(v)^j`` per parameter it involves, e.g. with ranks ``p``
and problem size ``q``::

    3.1 + 0.02 * p^(1) * log2(p)^(1) * q^(1/2) + 0.004 * q^(1/2)

For every function (a row of measurements at points of the parameter space) this chooses
the model as Extra-P 4.2's multi-parameter modeler does with its defaults:

1. Repeats at one point are folded into one value (``agg``).
2. **Each parameter on its own.** For parameter ``p``, the points are grouped into lines
   along ``p`` (the other parameters fixed); the longest lines are kept (of those, the
   ones that share the first line's value of ``p``), and their values are averaged per
   value of ``p``. The single-parameter modeler (:mod:`.fit`) models that series: a
   constant or one term ``p^i * log2(p)^j``. Fewer than 5 distinct values of a parameter
   on those lines: fitted anyway, as Extra-P does, with a ``FewParameterValues`` warning
   and a ``note`` naming the parameter (never "good"); one value (a design measured
   along a diagonal): no term of that parameter, as Extra-P's constant of it.
3. **Combination.** With no parameter term the model is the mean of all points. With
   one, it is that term refitted by least squares on all points, unless the
   single-parameter coefficients already have a smaller SMAPE on all points. With two or
   more, the hypotheses are the product of the terms, their sum and (for two and three
   parameters) the sums of products Extra-P lists (``a + a*b``, ``b + a*b``; 23 shapes
   for three); each is fitted by least squares on all points and scored on them (RSS,
   SMAPE, AR2 with one degree of freedom per parameter factor). The product is the
   default; another hypothesis replaces it when its SMAPE is strictly smaller and none of
   its coefficients is 0 or contributes less than 0.0005 of every measured value.

Everything is array arithmetic over (functions, points): the lines are boolean masks
and grouped sums, the single-parameter fits are :func:`.fit._fit_arrays`, and each
hypothesis *shape* (a short list: 4 for two parameters) is one batched least-squares
solve (Gram-Schmidt on whole arrays) for every function with that set of parameter
terms, in blocks of 4,096 functions. No Python loop runs per function or per chosen term.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from perfweave.errors import ShapeError
from perfweave.scaling import interval, quality, terms
from perfweave.scaling._points import fold_repeats, measurement_matrix, parameter_values
from perfweave.scaling.fit import (
    MIN_FIT,
    MIN_POINTS,
    MIN_TERM_CONTRIBUTION,
    LogTermsSkipped,
    _fit_arrays,
    _joined,
    _smape,
    few_note,
    warn_few,
)
from perfweave.scaling.model import evaluate

#: Extra-P's default parameter names, used when ``x`` has no column names
DEFAULT_NAMES = ("p", "q", "r", "s", "t", "u")
#: most parameters a model may have (the table has a coefficient column per subset)
MAX_PARAMS = len(DEFAULT_NAMES)

Term = tuple[int, ...]  # the parameters (positions) whose single-parameter terms multiply
Shape = tuple[Term, ...]  # the terms of a hypothesis, in Extra-P's order


# ---------------------------------------------------------------------- input
def is_multi(x: Any) -> bool:
    """Whether ``x`` holds several parameters (a DataFrame with 2+ columns or a 2-D array
    of shape (points, parameters) with 2+ columns)."""
    if isinstance(x, pd.DataFrame):
        return x.shape[1] > 1
    if isinstance(x, (pd.Series, pd.Index)):
        return False
    shape = np.shape(x)
    return len(shape) == 2 and shape[1] > 1 and shape[0] > 1


def parameter_table(x: Any) -> tuple[np.ndarray, tuple[str, ...]]:
    """``x`` as an (points, parameters) float array and the parameters' names (a
    DataFrame's columns, else p, q, r, ...); a bad value names its parameter and row."""
    if isinstance(x, pd.DataFrame):
        names = tuple(str(c) for c in x.columns)
        cols = [x.iloc[:, j] for j in range(x.shape[1])]
    else:
        raw = np.asarray(x)
        names = DEFAULT_NAMES[: raw.shape[1]] if raw.shape[1] <= MAX_PARAMS else ()
        cols = [raw[:, j] for j in range(raw.shape[1])]
    if len(cols) > MAX_PARAMS:
        raise ShapeError(
            f"x has {len(cols)} parameters: multi-parameter models take at most {MAX_PARAMS}"
        )
    if len(set(names)) < len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ShapeError(f"parameter {dup!r} appears twice in x: name each parameter once")
    X = np.column_stack([parameter_values(c, name=f"x[{n!r}]") for c, n in zip(cols, names)])
    return X, names


def subsets(k: int) -> list[Term]:
    """Every non-empty set of parameter positions: singles, then pairs, ... (the
    coefficient columns' order)."""
    return [s for size in range(1, k + 1) for s in combinations(range(k), size)]


def subset_label(term: Term, names: tuple[str, ...]) -> str:
    return "*".join(names[j] for j in term)


def shapes(active: tuple[int, ...]) -> list[Shape]:
    """Extra-P's hypotheses for the parameters ``active`` (positions, in order) that have a
    term, in its search order (the first is the default)."""
    a = active
    mult: Term = tuple(a)
    add = [(j,) for j in a]
    if len(a) == 1:
        return [(mult,)]
    out: list[Shape] = [(mult,), tuple(add)]
    if len(a) == 2:
        out += [(add[0], mult), (add[1], mult)]
    elif len(a) == 3:
        xy, yz, xz = (a[0], a[1]), (a[1], a[2]), (a[0], a[2])
        out += [
            (mult, add[0]), (mult, add[1]), (mult, add[2]),
            (mult, xy), (mult, yz), (mult, xz),
            (mult, xy, add[2]), (mult, yz, add[0]), (mult, xz, add[1]),
            (mult, add[0], add[1]), (mult, add[0], add[2]), (mult, add[1], add[2]),
            (xy, add[2]), (xy, add[2], add[1]), (xy, add[2], add[0]),
            (xz, add[1]), (xz, add[1], add[0]), (xz, add[1], add[2]),
            (yz, add[0]), (yz, add[0], add[1]), (yz, add[0], add[2]),
        ]  # fmt: skip
    return out


# ---------------------------------------------------------------------- lines
def _line_series(coords: np.ndarray, A: np.ndarray, W: np.ndarray, j: int):
    """The values of every function along parameter ``j``: the distinct values of ``j``
    and (F, values) means over the longest lines (Extra-P's 'auto' point selection)."""
    if not len(coords):  # no measurements at all
        return np.empty(0), np.empty((A.shape[0], 0))
    others = np.delete(coords, j, axis=1)
    _, line = np.unique(others, axis=0, return_inverse=True)
    line = line.ravel()
    values, at = np.unique(coords[:, j], return_inverse=True)
    at = at.ravel()
    by_line, by_value = _Groups(line), _Groups(at)
    lengths = by_line.sum(W.astype(np.int64))  # (F, lines)
    longest = lengths == lengths.max(axis=1, keepdims=True)
    C = W & longest[:, line]  # points on a longest line
    # the first such point (points are in sorted order, as given to Extra-P) fixes the
    # value of j whose lines all others must share
    first = np.argmax(C, axis=1)
    v0 = at[first]
    shared = by_line.sum((C & (at[None, :] == v0[:, None])).astype(np.int64)) > 0
    K = C & shared[:, line]
    sums = by_value.sum(np.where(K, A, 0.0))
    counts = by_value.sum(K.astype(np.int64))
    with np.errstate(invalid="ignore", divide="ignore"):
        return values, np.where(counts > 0, sums / np.maximum(counts, 1.0), np.nan)


class _Groups:
    """Sums of the columns of (F, points) arrays per group of points (every group has a
    point): one reordering and ``np.add.reduceat`` (no matrix product, which costs more
    than its arithmetic on small shared machines)."""

    def __init__(self, group: np.ndarray) -> None:
        self.order = np.argsort(group, kind="stable")
        counts = np.bincount(group)
        self.starts = np.concatenate([[0], np.cumsum(counts)[:-1]])

    def sum(self, values: np.ndarray) -> np.ndarray:
        return np.add.reduceat(values[:, self.order], self.starts, axis=1)


# ---------------------------------------------------------------------- least squares
def _lstsq(columns: list[np.ndarray], y: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Least-squares coefficients (F, 1 + len(columns)) of ``c0 + sum c_t * column_t`` for
    every row over its points ``W`` (rows of ``y`` are 0 where not measured).

    Column-scaled classical Gram-Schmidt with re-orthogonalisation on whole arrays (a
    batched thin QR); a column that is a combination of the earlier ones gets 0."""
    Wf = W.astype(float)
    D = [Wf] + [np.where(W, c, 0.0) for c in columns]
    F, m = y.shape[0], len(D)
    scale = [np.sqrt(np.einsum("fm,fm->f", d, d)) for d in D]
    Q: list[np.ndarray] = []
    R = np.zeros((F, m, m))
    deficient = np.zeros((F, m), bool)
    for j, d in enumerate(D):
        s = np.where(scale[j] > 0, scale[j], 1.0)
        v = d / s[:, None]
        for _ in range(2):
            for i, q in enumerate(Q):
                r = np.einsum("fm,fm->f", q, v)
                R[:, i, j] += r
                v = v - r[:, None] * q
        norm = np.sqrt(np.einsum("fm,fm->f", v, v))
        deficient[:, j] = ~(norm > 1e-10) | (scale[j] == 0)
        R[:, j, j] = np.where(deficient[:, j], 1.0, norm)
        Q.append(np.where(deficient[:, j, None], 0.0, v / R[:, j, j, None]))
    qty = np.stack([np.einsum("fm,fm->f", q, y) for q in Q], axis=1)
    c = np.zeros((F, m))
    for j in range(m - 1, -1, -1):
        rest = np.einsum("fi,fi->f", R[:, j, j + 1 :], c[:, j + 1 :])
        c[:, j] = np.where(deficient[:, j], 0.0, (qty[:, j] - rest) / R[:, j, j])
    scales = np.stack(scale, axis=1)
    return np.where(scales > 0, c / np.where(scales > 0, scales, 1.0), 0.0)


class _Scored:
    """One hypothesis fitted for a set of rows: coefficients, prediction, figures."""

    def __init__(self, coef, columns, A, W, n, tss, dof_terms):
        self.coef = coef  # (F, 1 + terms)
        pred = np.broadcast_to(coef[:, :1], A.shape).copy()
        for t, col in enumerate(columns):
            pred += coef[:, t + 1 : t + 2] * col
        actual = np.where(W, A, 0.0)
        err = np.where(W, pred - actual, 0.0)
        self.rss = np.einsum("fm,fm->f", err, err)
        self.smape = _smape(err, actual, pred, W) / n * 100
        with np.errstate(all="ignore"):
            self.ar2 = 1.0 - (self.rss / tss) * (n - 1.0) / (n - dof_terms - 1.0)
            shares = [
                np.where(W, np.abs(coef[:, t + 1 : t + 2] * col / A), -np.inf).max(axis=1)
                for t, col in enumerate(columns)
            ]
        # Extra-P drops a hypothesis with a zero coefficient or a negligible term (a 0/0
        # share is NaN and drops nothing)
        ok = np.ones(len(n), bool)
        for t, share in enumerate(shares):
            ok &= (coef[:, t + 1] != 0) & ~(share < MIN_TERM_CONTRIBUTION)
        self.ok = ok


# ---------------------------------------------------------------------- fit
def fit_multi(X: np.ndarray, names: tuple[str, ...], Y: Any, agg: str, index) -> pd.DataFrame:
    """See :func:`perfweave.scaling.fit_models` (``x`` with several parameters)."""
    try:
        mat = measurement_matrix(Y, X.shape[0])
    except ShapeError as exc:
        raise ShapeError(
            f"{exc}; x of shape {X.shape} is read as one row per measurement and one column "
            "per parameter (a 1-D x for one parameter)"
        ) from None
    coords, point = np.unique(X, axis=0, return_inverse=True)
    _, A = fold_repeats(point.ravel().astype(float), mat, agg)
    out = _fit_points(coords, A, names, index)
    interval.attach(out, coords, A, tuple(names))
    return out


#: functions per block of the array computation (bounds the (functions, points) arrays)
_BLOCK = 4096


def _fit_points(coords: np.ndarray, A: np.ndarray, names, index) -> pd.DataFrame:
    """Fit every row of ``A`` (functions, points) at the points ``coords``, in blocks."""
    shape_list: list[Shape] = []  # the hypotheses chosen, shared by all blocks
    parts = [
        _fit_block(coords, A[start : start + _BLOCK], shape_list)
        for start in range(0, max(A.shape[0], 1), _BLOCK)
    ]
    merged = [np.concatenate([p[i] for p in parts]) for i in range(len(parts[0]))]
    hyp, has_model, c0, coef, shape_id, rss, smape, ar2, n, counts, below_one = merged
    return _assemble(
        names, hyp, has_model, c0, coef, subsets(coords.shape[1]), shape_id, shape_list, rss,
        smape, ar2, n, counts, below_one, index,
    )  # fmt: skip


def _fit_block(coords: np.ndarray, A: np.ndarray, shape_list: list[Shape]) -> tuple:
    """The model arrays of a block of functions (see :func:`_fit_points`); new hypothesis
    shapes are appended to ``shape_list``."""
    F, k = A.shape[0], coords.shape[1]
    W = ~np.isnan(A)
    n = W.sum(axis=1).astype(float)
    # 1. each parameter on its own
    hyp = np.empty((F, k), np.int64)
    c0s, c1s = np.empty((F, k)), np.empty((F, k))
    counts = np.empty((F, k), np.int64)
    below_one = np.zeros((F, k), bool)
    for j in range(k):
        values, series = _line_series(coords, A, W, j)
        h, c0, c1, _, _, _, nj, enough, low = _fit_arrays(values, series)
        # one value along the lines (a design measured on a diagonal): no term of this
        # parameter, as Extra-P's constant of that one value
        one = nj == 1
        h = np.where(one, -1, h)
        c1 = np.where(one, 0.0, c1)
        hyp[:, j], c0s[:, j], c1s[:, j], counts[:, j] = h, c0, c1, nj
        below_one[:, j] = low & enough
    has_model = (hyp != -2).all(axis=1)
    # per parameter, the term values at every point for each function's chosen term
    factor = [
        terms.term_values(coords[:, j])[np.maximum(hyp[:, j], 0)] for j in range(k)
    ]  # k x (F, M)
    with np.errstate(all="ignore"):
        actual = np.where(W, A, 0.0)
        mean = actual.sum(axis=1) / n
        tss = np.where(W, A - mean[:, None], 0.0)
        tss = np.einsum("fm,fm->f", tss, tss)
    subs = subsets(k)
    sub_col = {s: i for i, s in enumerate(subs)}
    c0 = np.full(F, np.nan)
    coef = np.zeros((F, len(subs)))
    rss, smape, ar2 = (np.full(F, np.nan) for _ in range(3))
    shape_id = np.full(F, -1, np.int64)  # index into shape_list; -1 constant or none
    # 2. combine: rows grouped by which parameters have a term (a loop over shapes)
    bits = ((hyp >= 0) * (1 << np.arange(k))).sum(axis=1)
    for mask in np.unique(bits[has_model]):
        rows = np.flatnonzero(has_model & (bits == mask))
        active = tuple(j for j in range(k) if mask >> j & 1)
        Ar, Wr, nr, tr = A[rows], W[rows], n[rows], tss[rows]
        if not active:  # the mean of all points, scored on them
            const = _Scored(mean[rows, None], [], Ar, Wr, nr, tr, 0)
            c0[rows], rss[rows], smape[rows] = mean[rows], const.rss, const.smape
            ar2[rows] = 1.0
            continue
        fac = {j: factor[j][rows] for j in active}
        cands = shapes(active)
        scored = []
        for shape in cands:
            cols = [np.prod([fac[j] for j in term], axis=0) for term in shape]
            with np.errstate(all="ignore"):
                fitted = _lstsq(cols, np.where(Wr, Ar, 0.0), Wr)
                dof = sum(len(t) for t in shape)
                scored.append(_Scored(fitted, cols, Ar, Wr, nr, tr, dof))
        if len(active) == 1:
            j = active[0]
            with np.errstate(all="ignore"):
                kept = _Scored(
                    np.column_stack([c0s[rows, j], c1s[rows, j]]), [fac[j]], Ar, Wr, nr, tr, 1
                )
            refit = scored[0]
            take = refit.smape < kept.smape
            pick = [kept, refit]
            choice = take.astype(np.int64)
        else:
            pick = scored
            S = np.column_stack(
                [np.where(s.ok & ~np.isnan(s.smape), s.smape, np.inf) for s in scored]
            )
            best = np.argmin(S, axis=1)
            better = S[np.arange(len(rows)), best] < scored[0].smape
            choice = np.where(better, best, 0)
        for i, s in enumerate(pick):
            sel = choice == i
            if not sel.any():
                continue
            shape = cands[0] if len(active) == 1 else cands[i]
            r = rows[sel]
            c0[r] = s.coef[sel, 0]
            for t, term in enumerate(shape):
                coef[r, sub_col[term]] = s.coef[sel, t + 1]
            rss[r], smape[r], ar2[r] = s.rss[sel], s.smape[sel], s.ar2[sel]
            if shape not in shape_list:
                shape_list.append(shape)
            shape_id[r] = shape_list.index(shape)
    return hyp, has_model, c0, coef, shape_id, rss, smape, ar2, n, counts, below_one


# ---------------------------------------------------------------------- table
def _assemble(
    names, hyp, has_model, c0, coef, subs, shape_id, shape_list, rss, smape, ar2, n, counts,
    below_one, index,
) -> pd.DataFrame:  # fmt: skip
    F, k = hyp.shape
    h = np.maximum(hyp, 0)
    active = hyp >= 0
    p_exp = np.where(active, terms.POLY_F[h], 0.0)
    log_exp = np.where(active, terms.LOG_F[h], 0.0)
    p_exp[~has_model] = np.nan
    log_exp[~has_model] = np.nan
    model, term, combination = _texts(names, h, has_model, c0, coef, subs, shape_id, shape_list)
    reason = np.full(F, "", dtype=object)
    if (~has_model).any():
        j = np.argmax(hyp == -2, axis=1)
        bad = np.flatnonzero(~has_model)
        reason[bad] = [
            "no measurements"
            if n[i] == 0
            else f"{counts[i, j[i]]} distinct value{'s' if counts[i, j[i]] != 1 else ''} of "
            f"{names[j[i]]!r} along a line of measurements (the other parameters fixed); a "
            f"model needs at least {MIN_FIT}"
            for i in bad.tolist()
        ]
    note = np.full(F, "", dtype=object)
    low = below_one & has_model[:, None]
    if low.any():
        for j in range(k):
            rows = low[:, j]
            note[rows] = note[rows] + np.where(note[rows] == "", "", "; ").astype(object)
            note[rows] = note[rows] + f"log terms of {names[j]!r} left out: a value is below 1"
        warnings.warn(
            f"{int(low.any(axis=1).sum())} of {F} function(s) have a parameter value below 1: "
            "their models have no log2 term of that parameter (as in Extra-P)",
            LogTermsSkipped,
            stacklevel=4,
        )
    few = has_model[:, None] & (counts < MIN_POINTS)
    if few.any():  # one sentence per model: "fitted on 3 distinct values of 'x', 4 of 'y'"
        rows = np.flatnonzero(few.any(axis=1))
        said = [
            few_note([(int(counts[i, j]), names[j]) for j in range(k) if few[i, j]])
            for i in rows.tolist()
        ]
        note[rows] = _joined(note[rows], said)
        warn_few(int(few.any(axis=1).sum()), F, int(counts[few].min()), stacklevel=5)
    cols: dict[str, Any] = {"c0": c0}
    for i, s in enumerate(subs):
        cols[f"c[{subset_label(s, names)}]"] = np.where(has_model, coef[:, i], np.nan)
    for j, name in enumerate(names):
        cols[f"p_exp[{name}]"] = p_exp[:, j]
        cols[f"log_exp[{name}]"] = log_exp[:, j]
    cols.update(
        {
            "combination": combination,
            "term": term,
            "model": model,
            "rss": rss,
            "smape": smape,
            "ar2": ar2,
            "n": n.astype(np.int64),
            # "good" needs 5 values of every parameter on its lines, as one parameter needs 5
            "quality": quality.grade(
                smape, ar2, counts.min(axis=1), combination == "const", has_model
            ),
            "reason": reason,
            "note": note,
        }
    )
    out = pd.DataFrame(cols, index=index if index is not None else pd.RangeIndex(F))
    out.attrs["params"] = list(names)
    return out


def _texts(names, h, has_model, c0, coef, subs, shape_id, shape_list):
    """Model texts in Extra-P's notation (3 significant digits), short growth-term labels
    and the combination of parameters, per function."""
    F, k = h.shape
    long_ = [
        np.array([terms.extrap_term(f, c, name) for f, c in zip(terms.POLY, terms.LOG)], object)[
            h[:, j]
        ]
        for j, name in enumerate(names)
    ]
    short = [
        np.array([terms.short_term(f, c, name) for f, c in zip(terms.POLY, terms.LOG)], object)[
            h[:, j]
        ]
        for j, name in enumerate(names)
    ]
    c0s = np.array([f"{v:.3g}" for v in c0.tolist()], dtype=object)
    model = np.where(has_model, c0s, "").astype(object)
    term = np.where(has_model, "const", "").astype(object)
    combination = term.copy()
    sub_col = {s: i for i, s in enumerate(subs)}
    for sid, shape in enumerate(shape_list):
        rows = np.flatnonzero(shape_id == sid)
        if not len(rows):
            continue
        parts = np.where(c0[rows] != 0, c0s[rows], "").astype(object)
        labels = []
        for sub in shape:
            c = coef[rows, sub_col[sub]]
            text = np.array([f"{v:.3g}" for v in np.abs(c).tolist()], dtype=object)
            for j in sub:
                text = text + " * " + long_[j][rows]
            first = parts == ""
            sign = np.where(c < 0, np.where(first, "-", " - "), np.where(first, "", " + "))
            parts = parts + sign.astype(object) + text
            lab = short[sub[0]][rows]
            for j in sub[1:]:
                lab = lab + " * " + short[j][rows]
            labels.append(terms.signed(lab, c, first=not labels))
        model[rows] = parts
        lab = labels[0]
        for more in labels[1:]:
            lab = lab + more
        term[rows] = lab
        combination[rows] = " + ".join(subset_label(s, names) for s in shape)
    return model, term, combination


# ---------------------------------------------------------------------- evaluate
def table_params(models: pd.DataFrame) -> list[str]:
    """The parameter names of a multi-parameter model table ([] for a single-parameter
    one)."""
    return [str(c)[6:-1] for c in models.columns if str(c).startswith("p_exp[")]


def point_values(values: Any, names: list[str] | tuple[str, ...]) -> tuple[np.ndarray, bool]:
    """Points to evaluate models at as a (points, parameters) array, and whether a single
    point was given. Accepts a mapping or Series (name -> value(s)), a DataFrame with a
    column per parameter, a 2-D array (points, parameters) or one point as a sequence."""
    k = len(names)
    single = False
    if isinstance(values, (Mapping, pd.Series, pd.DataFrame)):
        keys = [str(c) for c in (values.columns if isinstance(values, pd.DataFrame) else values)]
        missing = [n for n in names if n not in keys]
        if missing:
            raise ShapeError(
                f"no value of parameter {missing[0]!r} (the model's parameters: {', '.join(names)})"
            )
        lookup = dict(zip(keys, values.columns if isinstance(values, pd.DataFrame) else values))
        cols = [np.asarray(values[lookup[n]], dtype=float) for n in names]
        single = all(np.ndim(c) == 0 for c in cols)
        V = np.column_stack([np.atleast_1d(c) for c in cols])
    else:
        try:
            V = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise ShapeError(
                f"values {values!r}: expected numbers, one per parameter ({', '.join(names)})"
            ) from None
        if V.ndim == 1:
            single, V = True, V.reshape(1, -1)
        if V.ndim != 2 or V.shape[1] != k:
            raise ShapeError(
                f"values of shape {np.shape(values)}: expected one value per parameter "
                f"({', '.join(names)}) per point, shape (points, {k})"
            )
    return V, single


def evaluate_table(models: pd.DataFrame, V: np.ndarray) -> np.ndarray:
    """Every model of a multi-parameter table at the points ``V`` (points, parameters):
    shape (models, points)."""
    names = table_params(models)
    k = len(names)
    with np.errstate(all="ignore"):
        factors = []
        for j, name in enumerate(names):
            pe = models[f"p_exp[{name}]"].to_numpy(dtype=float)
            le = models[f"log_exp[{name}]"].to_numpy(dtype=float)
            factors.append(evaluate(0.0, 1.0, pe, le, V[:, j]))  # each model's term, (F, V)
        out = models["c0"].to_numpy(dtype=float)[:, None] + np.zeros((1, len(V)))
        for s in subsets(k):
            c = models[f"c[{subset_label(s, tuple(names))}]"].to_numpy(dtype=float)[:, None]
            prod = np.prod([factors[j] for j in s], axis=0)
            out = out + np.where(c != 0, c * prod, 0.0)
    return out
