"""Integer-coded grouping helpers shared by arrange, invert and the perf folding.

Grouping object (string) columns with pandas is slow at 10^5..10^6 rows; these helpers
turn each column into integer codes once and combine them, one column at a time, into a
dense group id (``id * n_values + code``, re-ranked), so keys never overflow.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def codes_of(values, *, sort: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes and the distinct values (sorted, or in first-appearance order)."""
    codes, uniques = pd.factorize(np.asarray(values), sort=sort)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def group_ids(
    columns: Sequence[np.ndarray], *, lexicographic: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Group id per row and the first row of each group.

    ``lexicographic=True``: ids follow the lexicographic order of the (integer) key columns;
    ``False``: ids follow the order in which each group first appears.
    """
    ids = np.zeros(len(columns[0]), dtype=np.int64)
    for col in columns:
        codes, uniques = pd.factorize(np.asarray(col, dtype=np.int64), sort=lexicographic)
        ids, _ = pd.factorize(ids * len(uniques) + codes, sort=lexicographic)
    ids = ids.astype(np.int64)
    n = int(ids.max()) + 1 if len(ids) else 0
    return ids, min_per_id(ids, np.arange(len(ids), dtype=np.int64), n)


def min_per_id(ids: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """The smallest of the int64 ``values`` per id in ``0 .. n-1`` (int64's maximum for an
    id with none), e.g. the first row of each group."""
    out = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(out, ids, values)
    return out


def rows_by_group(ids: np.ndarray, n_groups: int) -> list[np.ndarray]:
    """Row positions of each group (in row order), as one array per group id."""
    order = np.argsort(ids, kind="stable")
    bounds = np.searchsorted(ids[order], np.arange(n_groups + 1))
    return [order[bounds[g] : bounds[g + 1]] for g in range(n_groups)]


def int_bincount(ids: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    """Exact int64 sums of ``weights`` per id in ``0 .. n-1`` (a float ``bincount`` while
    the sums stay below 2**53, where doubles are exact; ``np.add.at`` beyond)."""
    if len(weights) and int(np.abs(weights).sum()) >= 2**53:
        out = np.zeros(n, dtype=np.int64)
        np.add.at(out, ids, weights)
        return out
    return np.bincount(ids, weights=weights, minlength=n).astype(np.int64)


def sorted_codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for integer keys, by hashing (O(n)) and
    sorting only the distinct values: (code per key, sorted distinct keys)."""
    codes, uniques = pd.factorize(np.asarray(keys, dtype=np.int64), sort=True)
    return codes.astype(np.int64), np.asarray(uniques, dtype=np.int64)
