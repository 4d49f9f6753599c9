"""CountMatrix: an NxW count matrix stored as its distinct rows plus one row index per rank.

The profiler writes rows shared by many ranks once (``Rank(s) 0-1023: ...``), and real
matrices have few distinct rows, so this form keeps a 4,096-rank matrix small and makes
the rank-range groups (what the heatmap shows) free. ``dense()`` gives the full int64
array when it is wanted.
"""

from __future__ import annotations

import hashlib
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from perfweave.counts._arrays import unique_first_inverse
from perfweave.errors import ShapeError

if TYPE_CHECKING:
    from perfweave.counts.grouping import RankGroup

__all__ = ["CountMatrix"]


class CountMatrix:
    """Counts of ``n_ranks`` ranks, each a row of ``width`` int64 counts.

    ``rows[k]`` is the k-th distinct row (ordered by the first rank using it) and
    ``row_of_rank[r]`` the row of rank ``r``. Instances are immutable (arrays read-only)
    and compare equal when their counts are equal.
    """

    __slots__ = ("__dict__", "row_of_rank", "rows")

    def __init__(
        self,
        rows: np.ndarray,
        row_of_rank: np.ndarray,
        *,
        _fresh: bool = False,
        _owned: bool = False,
    ):
        """Rows in any order, repeats allowed; they are merged and reordered by first rank.

        The arrays given are never modified (internal callers pass ``_fresh`` for arrays
        that are already canonical and owned by nobody else, ``_owned`` for new ``rows``
        that may be kept uncopied when they are canonical already).
        """
        rows = np.asarray(rows, dtype=np.int64)
        row_of_rank = np.asarray(row_of_rank, dtype=np.int64)
        if rows.ndim != 2 or row_of_rank.ndim != 1:
            raise ShapeError("CountMatrix needs 2-D rows and a 1-D row index per rank")
        if row_of_rank.size and (row_of_rank.min() < 0 or row_of_rank.max() >= rows.shape[0]):
            raise ShapeError(f"row index out of range 0..{rows.shape[0] - 1}")
        if not _fresh:
            rows, row_of_rank = _canonical(rows, row_of_rank, owned=_owned)
        rows.setflags(write=False)
        row_of_rank.setflags(write=False)
        self.rows = rows
        self.row_of_rank = row_of_rank

    @classmethod
    def from_dense(cls, matrix: np.ndarray) -> CountMatrix:
        """Build from a full ``(n_ranks, width)`` array (a copy is kept, input untouched)."""
        dense = np.asarray(matrix, dtype=np.int64)
        if dense.ndim != 2:
            raise ShapeError(f"a count matrix must be 2-D, got shape {dense.shape}")
        return cls(*_distinct_rows(dense), _fresh=True)

    @classmethod
    def _adopt_dense(cls, matrix: np.ndarray) -> CountMatrix:
        """:meth:`from_dense` for a new int64 array that nobody else holds (a parser's
        output): when its rows are all distinct it becomes ``rows`` itself, uncopied."""
        return cls(*_distinct_rows(matrix, owned=True), _fresh=True)

    @property
    def n_ranks(self) -> int:
        return int(self.row_of_rank.shape[0])

    @property
    def width(self) -> int:
        return int(self.rows.shape[1])

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_ranks, self.width)

    def dense(self) -> np.ndarray:
        """The full ``(n_ranks, width)`` int64 matrix (a new array)."""
        return self.rows[self.row_of_rank]

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = self.dense()
        return out if dtype is None else out.astype(dtype)

    @cached_property
    def groups(self) -> list[RankGroup]:
        """Rank-range groups: (ranklist label, ranks, row) per distinct row, by first rank."""
        from perfweave.counts.grouping import rank_groups

        return rank_groups(self)

    @cached_property
    def fingerprint(self) -> bytes:
        """A digest of the counts: equal matrices have equal fingerprints."""
        h = hashlib.blake2b(digest_size=16)
        h.update(np.asarray(self.rows.shape, dtype=np.int64).tobytes())
        h.update(np.ascontiguousarray(self.rows).tobytes())
        h.update(np.ascontiguousarray(self.row_of_rank).tobytes())
        return h.digest()

    def rank_sums(self) -> np.ndarray:
        """Sum of each rank's row (int64, one value per rank)."""
        return self.rows.sum(axis=1)[self.row_of_rank]

    def nonzero_per_rank(self) -> np.ndarray:
        """Number of non-zero counts in each rank's row."""
        return np.count_nonzero(self.rows, axis=1)[self.row_of_rank]

    def column_sums(self) -> np.ndarray:
        """Sum over ranks of each column, without building the dense matrix."""
        weights = np.bincount(self.row_of_rank, minlength=self.rows.shape[0])
        return weights @ self.rows

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CountMatrix):
            return NotImplemented
        return self.fingerprint == other.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def __repr__(self) -> str:
        return (
            f"CountMatrix({self.n_ranks} ranks x {self.width}, {self.rows.shape[0]} distinct rows)"
        )


_LEAD_COLUMNS = 128


def _all_distinct(keys: np.ndarray) -> bool:
    srt = np.sort(keys)
    return not bool((srt[1:] == srt[:-1]).any())


def _as_rows(dense: np.ndarray, owned: bool) -> np.ndarray:
    """``dense`` itself as the rows when it is the caller's to give, else a copy."""
    return np.ascontiguousarray(dense) if owned else dense.copy()


@lru_cache(maxsize=64)
def _row_hash_weights(width: int) -> np.ndarray:
    """Fixed odd int64 weights of the row hash (read-only, one array per width)."""
    weights = np.random.default_rng(0x5EED).integers(1, 1 << 62, size=width) | 1
    weights.setflags(write=False)
    return weights


def _distinct_rows(dense: np.ndarray, *, owned: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``dense`` by first rank, and the row index of every rank.

    ``owned``: ``dense`` is the caller's to give away, so it may be returned as the rows.
    """
    n = dense.shape[0]
    if n == 0:
        return dense.reshape(0, dense.shape[1]).copy(), np.zeros(0, dtype=np.int64)
    # hash each row with fixed odd weights (wrapping int64 arithmetic), then confirm exactly
    weights = _row_hash_weights(dense.shape[1])
    with np.errstate(over="ignore"):
        # rows that differ in their first columns differ: often proof enough, and cheap
        lead = min(dense.shape[1], _LEAD_COLUMNS)
        if lead < dense.shape[1] and _all_distinct(dense[:, :lead] @ weights[:lead]):
            return _as_rows(dense, owned), np.arange(n, dtype=np.int64)
        keys = dense @ weights if dense.shape[1] else np.zeros(n, dtype=np.int64)
    _, first, inverse = unique_first_inverse(keys)
    if first.size == n:  # all keys differ, so all rows differ: nothing to merge or confirm
        return _as_rows(dense, owned), np.arange(n, dtype=np.int64)
    order = np.argsort(first, kind="stable")
    rank_of_slot = np.empty_like(order)
    rank_of_slot[order] = np.arange(order.size)
    row_of_rank = rank_of_slot[inverse.reshape(-1)]
    rows = dense[first[order]]
    if not np.array_equal(rows[row_of_rank], dense):  # a hash collision: exact fallback
        uniq, first, inverse = np.unique(dense, axis=0, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank_of_slot = np.empty_like(order)
        rank_of_slot[order] = np.arange(order.size)
        row_of_rank = rank_of_slot[inverse.reshape(-1)]
        rows = uniq[order]
    return np.ascontiguousarray(rows), row_of_rank.astype(np.int64)


def _canonical(
    rows: np.ndarray, row_of_rank: np.ndarray, *, owned: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Merge duplicate rows, drop unused ones and order rows by first rank (``owned``:
    ``rows`` may be returned as they are when they need none of that)."""
    uniq_rows, uniq_index = _distinct_rows(rows, owned=owned)
    # row index per rank in terms of the distinct rows, then renumber by first rank
    per_rank = uniq_index[row_of_rank]
    if per_rank.size == 0:
        return uniq_rows[:0], per_rank
    used, first, _ = unique_first_inverse(per_rank)
    order = np.argsort(first, kind="stable")
    kept = used[order]
    if kept.size == uniq_rows.shape[0] and bool((kept == np.arange(kept.size)).all()):
        return uniq_rows, per_rank  # every row used and already in first-rank order
    new_id = np.empty(uniq_rows.shape[0], dtype=np.int64)
    new_id[used[order]] = np.arange(order.size)
    return np.ascontiguousarray(uniq_rows[used[order]]), new_id[per_rank]
