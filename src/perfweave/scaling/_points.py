"""Measurement points of many functions: checked, repeats folded per parameter value.

Input is ``x`` (one parameter value per measurement column, repeats allowed) and ``Y``
(one function per row). Output is the distinct parameter values, sorted, and one value
per function and distinct parameter value: the ``agg`` of that function's finite
measurements there (NaN where it has none), as Extra-P folds the repetitions of a
measurement point into one value before modelling.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from perfweave.errors import ShapeError

AGGS = ("mean", "median", "min", "max")


def parameter_values(x: Any, name: str = "x") -> np.ndarray:
    """``x`` as a 1-D float array of finite numbers; a non-numeric or non-finite value is
    an error naming its position and the value."""
    raw = np.asarray(x.to_numpy() if isinstance(x, (pd.Series, pd.Index)) else x)
    if raw.ndim != 1:
        raw = raw.squeeze() if raw.size > 1 else raw.reshape(-1)
        if raw.ndim != 1:
            raise ShapeError(
                f"{name} must hold one parameter value per measurement (1-D), not shape "
                f"{np.shape(x)}"
            )
    if raw.dtype.kind in "iuf":
        values = raw.astype(float)
    else:
        values = pd.to_numeric(pd.Series(raw, dtype=object), errors="coerce").to_numpy(float)
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        i = int(bad[0])
        value = raw[i].item() if hasattr(raw[i], "item") else raw[i]
        raise ShapeError(
            f"{name}[{i}] is {value!r}: expected a finite number (a parameter value such as 64)"
        )
    return values


def measurement_matrix(Y: Any, n_columns: int) -> np.ndarray:
    """``Y`` as a 2-D float array with ``n_columns`` columns (a 1-D ``Y`` is one function);
    infinite values count as missing (NaN)."""
    arr = Y.to_numpy(dtype=float, na_value=np.nan) if isinstance(Y, pd.DataFrame) else Y
    try:
        arr = np.array(arr, dtype=float, ndmin=2)
    except (TypeError, ValueError) as exc:
        raise ShapeError(f"measurements must be numbers (one function per row): {exc}") from None
    if arr.ndim != 2:
        raise ShapeError(f"measurements must be 2-D (one function per row), not shape {arr.shape}")
    if arr.shape[1] != n_columns:
        raise ShapeError(
            f"measurements have {arr.shape[1]} columns but there are {n_columns} parameter "
            "values (one per column)"
        )
    arr[np.isinf(arr)] = np.nan
    return arr


def fold_repeats(x: np.ndarray, Y: np.ndarray, agg: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``x`` (sorted) and ``Y`` folded onto them with ``agg``."""
    if agg not in AGGS:
        raise ShapeError(f"agg {agg!r}: choose one of {', '.join(AGGS)}")
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    if len(values) == len(x):  # no repeats: only reorder
        out = np.empty_like(Y)
        out[:, inverse] = Y
        return values, out
    order = np.argsort(inverse, kind="stable")
    Ys = Y[:, order]
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    finite = ~np.isnan(Ys)
    if agg == "mean":
        sums = np.add.reduceat(np.where(finite, Ys, 0.0), starts, axis=1)
        n = np.add.reduceat(finite, starts, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return values, np.where(n > 0, sums / np.maximum(n, 1), np.nan)
    if agg in ("min", "max"):
        fill = np.inf if agg == "min" else -np.inf
        red = np.minimum if agg == "min" else np.maximum
        out = red.reduceat(np.where(finite, Ys, fill), starts, axis=1)
        return values, np.where(np.isinf(out), np.nan, out)
    # median: one numpy call per distinct value (there are few), never per function
    out = np.full((Y.shape[0], len(values)), np.nan)
    with np.errstate(all="ignore"), _quiet():
        for k, (s, c) in enumerate(zip(starts, counts)):
            out[:, k] = np.nanmedian(Ys[:, s : s + c], axis=1)
    return values, out


class _quiet:
    """Silence numpy's 'All-NaN slice' warning (such a value simply stays NaN)."""

    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)
