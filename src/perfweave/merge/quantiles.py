"""Sample quantiles of Hyndman & Fan type 2 (R's ``quantile(x, probs, type = 2)``).

Type 2 inverts the empirical CDF and averages at its discontinuities: with ``n`` sorted
values and ``j = floor(n p)``, the quantile is ``x[j+1]`` (1-based) when ``n p`` is not an
integer and the mean of ``x[j]`` and ``x[j+1]`` when it is; ``p = 0`` and ``p = 1`` give the
minimum and maximum. The arithmetic follows R's step by step (``n * p`` in double, an exact
comparison against its floor) so that results match R to the last bit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from perfweave.errors import ArgumentError


def r_seq_probs(n: int) -> np.ndarray:
    """R's ``seq(0, 1, length.out = n)``: ``0``, ``i * (1 / (n - 1))``, ..., ``1``."""
    if n <= 0:
        return np.empty(0)
    if n == 1:
        return np.zeros(1)
    probs = np.arange(n, dtype=float) * (1.0 / (n - 1))
    probs[-1] = 1.0
    return probs


def quantile_type2(x: ArrayLike, probs: ArrayLike) -> np.ndarray:
    """Type-2 quantiles of ``x`` at ``probs`` (each in [0, 1]); ``x`` is not modified."""
    values = np.sort(np.asarray(x, dtype=float).ravel())
    p = np.asarray(probs, dtype=float)
    n = values.size
    if n == 0:
        return np.full(p.shape, np.nan)
    if np.any(np.isnan(values)):
        raise ArgumentError("quantile_type2: x holds NaN")
    if np.any((p < 0) | (p > 1)):
        raise ArgumentError("quantile_type2: probs must lie in [0, 1]")
    nppm = n * p
    j = np.floor(nppm).astype(np.intp)
    upper = nppm > j  # strictly between order statistics: take x[j+1]
    # pad like R: x[0], x[0], x..., x[n-1], x[n-1]; 0-based x_(j) (1-based) is padded[j + 1]
    padded = np.concatenate([values[:1], values[:1], values, values[-1:], values[-1:]])
    lo = padded[j + 1]
    hi = padded[j + 2]
    return np.where(upper, hi, np.where(lo != hi, 0.5 * lo + 0.5 * hi, lo))
