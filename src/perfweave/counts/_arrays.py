"""Sort-based replacements for ``np.unique`` (much slower on large int arrays in numpy 2.4)."""

from __future__ import annotations

import numpy as np


def unique_first_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct values, the first index of each, and each element's slot (1-D)."""
    values = np.asarray(values).reshape(-1)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.empty(ordered.size, dtype=bool)
    starts[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    slot_sorted = np.cumsum(starts) - 1
    inverse = np.empty(values.size, dtype=np.int64)
    inverse[order] = slot_sorted
    return ordered[starts], order[starts], inverse


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values of a 1-D array (a sorted input costs one pass)."""
    arr = np.asarray(values).reshape(-1)
    if arr.size > 1 and not bool((arr[1:] > arr[:-1]).all()):
        arr = np.sort(arr)
        keep = np.empty(arr.size, dtype=bool)
        keep[:1] = True
        np.not_equal(arr[1:], arr[:-1], out=keep[1:])
        arr = arr[keep]
    return arr
