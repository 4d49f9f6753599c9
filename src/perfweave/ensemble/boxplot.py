"""Box-plot statistics per node across profiles (Thicket's ``calc_boxplot_statistics``).

For quartiles ``(a, b, c)`` (default 0.25, 0.5, 0.75), each node's values across profiles
give ``q1, q2, q3`` (numpy's linear quantiles of the valid values), ``iqr = q3 - q1``, the
fences ``q1 - 1.5 iqr`` and ``q3 + 1.5 iqr``, and the outliers: the list of profiles whose
value lies outside the fences. Columns are named as Thicket names them,
``<column>_q1(0.25, 0.5, 0.75)`` ... ``<column>_outliers(0.25, 0.5, 0.75)``. The quantiles
come from one sort of the (nodes x profiles) matrix; the outlier lists from one mask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from perfweave.ensemble import stats as _stats
from perfweave.ensemble.ensemble import Ensemble
from perfweave.ensemble.significance import matrix
from perfweave.errors import ShapeError

PARTS = ("q1", "q2", "q3", "iqr", "lowerfence", "upperfence", "outliers")


def calc_boxplot_statistics(
    ens: Ensemble,
    columns: Sequence[Any],
    quartiles: Sequence[float] = (0.25, 0.5, 0.75),
) -> list[Any]:
    """Add the box-plot statistics of ``columns`` to ``ens.statsframe``; returns the names."""
    quartiles = [float(q) for q in quartiles]
    if len(quartiles) != 3 or not all(0 <= q <= 1 for q in quartiles):
        raise ShapeError(f"quartiles takes three numbers between 0 and 1, got {quartiles!r}")
    columns = _stats._check_columns(ens, columns)
    suffix = str(tuple(quartiles))
    profiles = np.asarray(ens.metadata.index, dtype=object)
    out: dict[Any, Any] = {}
    for col in columns:
        mat = matrix(ens, col)
        count = (~np.isnan(mat)).sum(axis=1)
        q1, q2, q3 = _stats._row_quantiles(np.sort(mat, axis=1), count, quartiles)
        iqr = q3 - q1
        low, high = q1 - 1.5 * iqr, q3 + 1.5 * iqr
        with np.errstate(invalid="ignore"):
            outside = (mat > high[:, None]) | (mat < low[:, None])
        values = [q1, q2, q3, iqr, low, high, outlier_lists(outside, profiles)]
        for part, v in zip(PARTS, values):
            out[_label(col, part + suffix)] = v
    return _stats._set(ens, out)


def _label(col: Any, name: str) -> Any:
    return (col[0], f"{col[1]}_{name}") if isinstance(col, tuple) else f"{col}_{name}"


def outlier_lists(outside: np.ndarray, profiles: np.ndarray) -> np.ndarray:
    """One list per row of the profiles where ``outside`` is True (an object array)."""
    rows, cols = np.nonzero(outside)
    bounds = np.searchsorted(rows, np.arange(1, len(outside)))
    chosen = profiles[cols].tolist()
    out = np.empty(len(outside), dtype=object)
    starts = np.concatenate([[0], bounds]).tolist()
    ends = np.concatenate([bounds, [len(rows)]]).tolist()
    out[:] = [chosen[s:e] for s, e in zip(starts, ends)]
    return out
