"""Block aggregation of a CountMatrix view for a screen, straight from its distinct rows.

What a heatmap (perfweave's CountMatrixHeatmap, or any plot of a 16k x 16k matrix) needs:
the matrix cut into at most as many blocks as the screen has pixels, each block reduced
over the cells it covers, with row and column marginals, so the dense matrix never exists.


A view is a range of display rows (*units*: ranks, rank groups, or hosts) and a range of
columns. It is cut into at most ``max_rows x max_cols`` blocks of consecutive units /
columns, and each block is reduced over every (rank, column) it covers: ``max`` or ``sum``
of the dense matrix's cells. The dense matrix is never built. A unit is a list of *parts*,
each a distinct row and the number of the unit's ranks that have it (one part per unit for
ranks and rank groups; a host has one part per distinct row among its ranks). The distinct
rows are first reduced over the column blocks (``reduceat``), then the parts over the row
blocks, each part weighted by its ranks for a sum. The result equals numpy on
``dense[ranks_of_block][:, cols_of_block]`` exactly (int64, or float64 when a sum could pass
2**63 - 1). The datatype size (``scale``) multiplies the reduced values, which is exact.

:class:`BlockAggregator` keeps the column-side work of a matrix (its rows reduced over the column
blocks, the per-column totals of a set of ranks) between calls, so a control that changes
only the row side (grouping), the unit, or comes back to a matrix already seen, redoes only
the small row-side step.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from perfweave.counts.matrix import CountMatrix
from perfweave.errors import ShapeError

INT64_MAX = np.iinfo(np.int64).max
REDUCES = ("max", "sum")
ROW_GROUPINGS = ("rank", "rows", "host")
#: the name of the unit of ranks a location file does not place on a host
UNKNOWN_HOST = "(unknown host)"


@dataclass(frozen=True)
class RowUnits:
    """Display rows of a matrix: each unit's parts (distinct row, ranks with it) and ranks."""

    part_start: np.ndarray  # offsets into the part arrays (len units + 1)
    part_row: np.ndarray  # distinct-row index of each part
    part_weight: np.ndarray  # ranks of each part
    rank_start: np.ndarray  # offsets into ``ranks`` (len units + 1)
    ranks: np.ndarray  # ranks of unit 0, then of unit 1, ... (sorted within a unit)
    names: tuple[str, ...] = field(default=())  # host of each unit (host units only)

    def __len__(self) -> int:
        return int(self.part_start.size - 1)

    def ranks_of(self, start: int, stop: int) -> np.ndarray:
        """Ranks of units ``start .. stop - 1`` (sorted)."""
        return np.sort(self.ranks[self.rank_start[start] : self.rank_start[stop]])


def row_units(matrix: CountMatrix, by: str = "rank", hosts: np.ndarray | None = None) -> RowUnits:
    """RowUnits of ``matrix``: one per rank (``by="rank"``), per rank group (``"rows"``: a
    distinct row, ordered by first rank), or per host (``"host"``: ``hosts`` names each
    rank's host, None for unknown; hosts ordered by first rank)."""
    n, n_rows = matrix.n_ranks, matrix.rows.shape[0]
    if by == "rank":
        one = np.arange(n + 1)
        return RowUnits(one, matrix.row_of_rank, np.ones(n, np.int64), one, np.arange(n))
    if by == "rows":
        order = np.argsort(matrix.row_of_rank, kind="stable")
        weight = np.bincount(matrix.row_of_rank, minlength=n_rows).astype(np.int64)
        start = np.concatenate([[0], np.cumsum(weight)])
        return RowUnits(np.arange(n_rows + 1), np.arange(n_rows), weight, start, order)
    if by != "host":
        raise ShapeError(f"group rows by one of {', '.join(ROW_GROUPINGS)}, not {by!r}")
    if hosts is None or len(hosts) != n:
        raise ShapeError(f"host grouping needs a host per rank ({n}), not {hosts!r}")
    names = pd.Series(hosts, dtype=object).fillna(UNKNOWN_HOST).to_numpy()
    code, uniq = pd.factorize(names, sort=False)  # in order of first rank
    code = code.astype(np.int64)
    k = uniq.size
    order = np.argsort(code, kind="stable")
    rank_start = np.concatenate([[0], np.cumsum(np.bincount(code, minlength=k))])
    key, weight = np.unique(code * n_rows + matrix.row_of_rank, return_counts=True)
    part_start = np.searchsorted(key // n_rows, np.arange(k + 1))
    return RowUnits(
        part_start,
        key % n_rows,
        weight.astype(np.int64),
        rank_start,
        order,
        tuple(str(x) for x in uniq),
    )


def block_edges(start: int, stop: int, max_blocks: int) -> np.ndarray:
    """Block edges over ``start .. stop``: at most ``max_blocks`` blocks of near-equal size."""
    n = stop - start
    if n <= 0:
        raise ShapeError(f"empty range {start}..{stop}")
    k = min(n, max(1, int(max_blocks)))
    return start + (np.arange(k + 1, dtype=np.int64) * n) // k


@dataclass
class Blocks:
    values: np.ndarray  # (row blocks, col blocks), int64 (float64 if a sum could overflow)
    row_edges: np.ndarray  # unit edges
    col_edges: np.ndarray  # column edges
    row_sum: np.ndarray  # per row block: sum over its ranks and the view's columns
    row_max: np.ndarray  # per row block: largest per-rank total (over the view's columns)
    row_ranks: np.ndarray  # ranks per row block
    col_sum: np.ndarray  # per column block: sum over the view's ranks and its columns
    col_max: np.ndarray  # per column block: largest per-column total
    exact: bool  # False when the values were computed in float64
    sums_exact: bool = True  # False when the marginals were computed in float64


class BlockAggregator:
    """:func:`aggregate_blocks` that keeps column-side results between calls: the most recent
    ones, up to ``keep_bytes`` together (the newest is always kept)."""

    def __init__(self, keep_bytes: int = 256 << 20) -> None:
        self.keep_bytes = keep_bytes
        self._memo: OrderedDict[tuple, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._lock = threading.RLock()  # warm() may run on another thread

    def _cached(self, rows: np.ndarray, key: tuple, make) -> np.ndarray:
        # the rows are kept with the result so that their id is not reused meanwhile
        full = (id(rows), rows.shape, *key)
        with self._lock:
            hit = self._memo.get(full)
            if hit is not None and hit[0] is rows:
                self._memo.move_to_end(full)
                return hit[1]
            out = make()
            if self.keep_bytes > 0:
                self._memo[full] = (rows, out)
                held = sum(v.nbytes for _, v in self._memo.values())
                while held > self.keep_bytes and len(self._memo) > 1:
                    held -= self._memo.popitem(last=False)[1][1].nbytes
            return out

    def warm(self, matrix: CountMatrix, col_range: tuple[int, int], max_cols: int) -> None:
        """Compute and keep the column-side work of ``matrix`` over ``col_range`` (both
        reductions, the per-column totals of all its ranks) ahead of its first view."""
        units = row_units(matrix)
        for reduce in REDUCES:
            self.aggregate(matrix.rows, units, (0, len(units)), col_range, 1, max_cols, reduce)

    def peak(self, rows: np.ndarray) -> int:
        """Largest absolute count of ``rows`` (0 when every count is zero)."""
        lo, hi = self._range(rows)
        return max(hi, -lo)

    def _range(self, rows: np.ndarray) -> tuple[int, int]:
        """Smallest and largest count of ``rows`` (0, 0 when there are none)."""
        out = self._cached(rows, ("range",), lambda: np.asarray(_range(rows), dtype=object))
        return int(out[0]), int(out[1])

    def aggregate(
        self,
        rows: np.ndarray,
        units: RowUnits,
        row_range: tuple[int, int],
        col_range: tuple[int, int],
        max_rows: int,
        max_cols: int,
        reduce: str = "max",
        scale: int = 1,
    ) -> Blocks:
        """Aggregate the view of ``rows`` (distinct rows) ``* scale`` (module docstring)."""
        if reduce not in REDUCES:
            raise ShapeError(f"unknown reduction {reduce!r}; choose max or sum")
        r0, r1 = row_range
        c0, c1 = col_range
        re_ = block_edges(r0, r1, max_rows)
        ce = block_edges(c0, c1, max_cols)
        cstarts = ce[:-1] - c0
        ps = units.part_start
        p0, p1 = int(ps[r0]), int(ps[r1])
        prow = units.part_row[p0:p1]
        pw = units.part_weight[p0:p1]
        pstarts = ps[re_[:-1]] - p0
        n_ranks_view = int(pw.sum())
        width = c1 - c0
        scale = int(scale)

        # the distinct rows the view's ranks use: a zoom into part of a matrix whose ranks
        # have rows of their own reads only those (the column-side work of every distinct
        # row is kept for views that use most of them)
        used = np.unique(prow)
        if 2 * used.size <= rows.shape[0]:
            tag: tuple = ("rows", hashlib.blake2b(used.tobytes(), digest_size=16).digest())
            local = np.searchsorted(used, prow)
            held: list[np.ndarray] = []

            def src() -> np.ndarray:  # the used rows over the view's columns, copied once
                if not held:
                    held.append(rows[used, c0:c1])
                return held[0]

            n_src = used.size
        else:
            tag, local, n_src = (), prow, rows.shape[0]

            def src() -> np.ndarray:
                return rows[:, c0:c1]

        ckey = (c0, c1, ce.size, *tag)
        # int64 unless a sum could pass 2**63 - 1: bounded by the view's total when the
        # counts are >= 0 (they are in profiler files), else by peak x cells
        peak = self.peak(rows)
        cells_fit = peak * abs(scale) <= INT64_MAX
        if peak * width > INT64_MAX:  # even one row's total over the view may not fit
            sums_fit = False
        elif self._range(rows)[0] >= 0:
            totals = self._colsum(rows, src, ckey, cstarts, np.int64).sum(axis=1)
            bound = float(totals[local].astype(np.float64) @ pw.astype(np.float64)) * abs(scale)
            sums_fit = bound < 2.0**62  # float rounding is far below the margin to 2**63
        else:
            sums_fit = peak * abs(scale) * n_ranks_view * width <= INT64_MAX
        exact = sums_fit or (reduce == "max" and cells_fit)
        dtype = np.int64 if sums_fit else np.float64

        # the distinct rows each part uses, once per (row block, distinct row)
        block_of_part = np.repeat(np.arange(re_.size - 1), np.diff(np.append(pstarts, p1 - p0)))
        pair, pair_inv = np.unique(block_of_part * n_src + local, return_inverse=True)
        pair_row = pair % n_src
        pair_w = np.bincount(pair_inv.reshape(-1), weights=pw, minlength=pair.size)
        pair_w = np.rint(pair_w).astype(np.int64)
        pair_starts = np.searchsorted(pair // n_src, np.arange(re_.size - 1))

        if reduce == "max":
            colred = self._cached(
                rows, ("max", *ckey), lambda: np.maximum.reduceat(src(), cstarts, axis=1)
            )
            values = np.maximum.reduceat(colred[pair_row], pair_starts, axis=0)
            values = _times(values, scale, np.int64 if exact else np.float64)
        else:
            colsum = self._colsum(rows, src, ckey, cstarts, dtype)
            values = np.add.reduceat(colsum[pair_row] * pair_w[:, None].astype(dtype), pair_starts)
            values = _times(values, scale, dtype)

        # row marginals: each part's total over the view's columns
        total = self._colsum(rows, src, ckey, cstarts, dtype).sum(axis=1)
        per_part = _times(total[local], scale, dtype)
        block_ranks = np.add.reduceat(pw, pstarts)
        row_sum = np.add.reduceat(per_part * pw.astype(dtype), pstarts)
        row_max = np.maximum.reduceat(per_part, pstarts)

        # column marginals: the view's ranks' total of every column
        weights = np.bincount(local, weights=pw, minlength=n_src)
        weights = np.rint(weights).astype(np.int64)
        digest = hashlib.blake2b(weights.tobytes(), digest_size=16).digest()
        per_col = self._cached(
            rows,
            ("cols", c0, c1, dtype.__name__, digest, *tag),
            lambda: _weighted_columns(weights, src(), dtype),
        )
        per_col = _times(per_col, scale, dtype)
        return Blocks(
            values=np.ascontiguousarray(values),
            row_edges=re_,
            col_edges=ce,
            row_sum=row_sum,
            row_max=row_max,
            row_ranks=block_ranks,
            col_sum=np.add.reduceat(per_col, cstarts),
            col_max=np.maximum.reduceat(per_col, cstarts),
            exact=exact,
            sums_exact=sums_fit,
        )

    def _colsum(self, rows: np.ndarray, src, ckey: tuple, cstarts: np.ndarray, dtype) -> np.ndarray:
        """The rows ``src()`` summed over each column block (kept under ``ckey``)."""
        return self._cached(
            rows,
            ("sum", dtype.__name__, *ckey),
            lambda: np.add.reduceat(src().astype(dtype, copy=False), cstarts, axis=1),
        )


def aggregate_blocks(
    rows: np.ndarray,
    units: RowUnits,
    row_range: tuple[int, int],
    col_range: tuple[int, int],
    max_rows: int,
    max_cols: int,
    reduce: str = "max",
    scale: int = 1,
) -> Blocks:
    """One aggregation, nothing kept (see :class:`BlockAggregator`)."""
    return BlockAggregator(keep_bytes=0).aggregate(
        rows, units, row_range, col_range, max_rows, max_cols, reduce, scale
    )


def _range(rows: np.ndarray) -> tuple[int, int]:
    return (int(rows.min()), int(rows.max())) if rows.size else (0, 0)


def _times(values: np.ndarray, scale: int, dtype) -> np.ndarray:
    out = values.astype(dtype, copy=False)
    return out if scale == 1 else out * dtype(scale)


def _weighted_columns(weights: np.ndarray, sub: np.ndarray, dtype) -> np.ndarray:
    """``weights @ sub`` exactly (einsum runs int64 far faster than matmul does)."""
    used = np.flatnonzero(weights)
    if used.size < weights.size // 2:
        weights, sub = weights[used], sub[used]
    if dtype is np.int64:
        return np.einsum("i,ij->j", weights, sub)
    return np.einsum("i,ij->j", weights.astype(np.float64), sub.astype(np.float64))
