"""Shared helpers: subexperiments as float blocks, and the squared-distance outlier rule."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from perfweave.errors import MergeError

#: rows whose squared distance from the block means has a z-score >= this are outliers
OUTLIER_Z = 3.0


def check_positive_int(name: str, value: object) -> None:
    """Raise :class:`MergeError` unless ``value`` is an int (not a bool) >= 1."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise MergeError(f"{name} must be a positive integer, got {value!r}")


def float_blocks(subexperiments: Sequence[pd.DataFrame]) -> list[tuple[list[str], np.ndarray]]:
    """Each subexperiment as (column names, float array); missing values are an error."""
    if len(subexperiments) == 0:
        raise MergeError("no subexperiments given")
    out = []
    for i, sub in enumerate(subexperiments):
        names = [str(c) for c in sub.columns]
        if len(set(names)) != len(names):
            raise MergeError(f"subexperiment {i} names a HEM twice: {names}")
        try:
            values = sub.to_numpy(dtype=float, copy=True)
        except (TypeError, ValueError):
            raise MergeError(f"subexperiment {i} holds non-numeric readings") from None
        if values.shape[0] == 0:
            raise MergeError(
                f"subexperiment {i} has no rows (HEMs {names}); every subexperiment needs "
                "readings (process_raw_experiments names a column without any)"
            )
        if np.isnan(values).any():
            raise MergeError(
                f"subexperiment {i} has missing values; process_raw_experiments drops such rows"
            )
        out.append((names, values))
    return out


def hem_dtypes(subexperiments: Sequence[pd.DataFrame]) -> dict[str, np.dtype]:
    """Each HEM's column dtype (so pooled readings can keep integer counts integer)."""
    return {str(c): s[c].dtype for s in subexperiments for c in s.columns}


def keep_mask(squared: np.ndarray) -> np.ndarray:
    """Rows (axis 0) that are not outliers of each column of squared distances.

    A row is an outlier when ``(m - mean(m)) / sd(m) >= 3`` (sd with n - 1); a constant
    column has no outliers.
    """
    n = squared.shape[0]
    if n < 2:
        return np.ones(squared.shape, dtype=bool)
    mean = squared.mean(axis=0)
    sd = squared.std(axis=0, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (squared - mean) / sd
    return ~(z >= OUTLIER_Z)
