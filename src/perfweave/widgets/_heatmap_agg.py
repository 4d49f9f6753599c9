"""Block aggregation of a CountMatrix view, straight from its distinct rows.

A view is a range of display rows (*units*: ranks, or rank groups when grouped) and a
range of columns. It is cut into at most ``max_rows x max_cols`` blocks of consecutive
units / columns, and each block is reduced over every (rank, column) it covers: ``max``
or ``sum`` of the dense matrix's cells. The dense matrix is never built: the distinct
rows are first reduced over the column blocks (``reduceat``), then the units over the row
blocks, with each unit weighted by its number of ranks for a sum. The result equals numpy
on ``dense[ranks_of_block][:, cols_of_block]`` exactly (int64, or float64 when a sum could
pass 2**63 - 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from perfweave.counts.matrix import CountMatrix
from perfweave.errors import ShapeError

INT64_MAX = np.iinfo(np.int64).max
REDUCES = ("max", "sum")


@dataclass(frozen=True)
class Units:
    """Display rows of a matrix: the distinct row, rank count and ranks of each."""

    row: np.ndarray  # distinct-row index of each unit
    weight: np.ndarray  # ranks per unit
    rank_start: np.ndarray  # offsets into ``ranks`` (len units + 1)
    ranks: np.ndarray  # ranks of unit 0, then of unit 1, ...

    def __len__(self) -> int:
        return int(self.row.size)

    def ranks_of(self, start: int, stop: int) -> np.ndarray:
        """Ranks of units ``start .. stop - 1`` (sorted)."""
        return np.sort(self.ranks[self.rank_start[start] : self.rank_start[stop]])


def units_of(matrix: CountMatrix, grouped: bool) -> Units:
    """One unit per rank, or one per rank group (distinct row, ordered by first rank)."""
    if not grouped:
        n = matrix.n_ranks
        return Units(matrix.row_of_rank, np.ones(n, np.int64), np.arange(n + 1), np.arange(n))
    order = np.argsort(matrix.row_of_rank, kind="stable")
    weight = np.bincount(matrix.row_of_rank, minlength=matrix.rows.shape[0]).astype(np.int64)
    start = np.concatenate([[0], np.cumsum(weight)])
    return Units(np.arange(matrix.rows.shape[0]), weight, start, order)


def edges(start: int, stop: int, max_blocks: int) -> np.ndarray:
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


def aggregate(
    rows: np.ndarray,
    units: Units,
    row_range: tuple[int, int],
    col_range: tuple[int, int],
    max_rows: int,
    max_cols: int,
    reduce: str = "max",
    scale: int = 1,
) -> Blocks:
    """Aggregate ``rows[units.row] * scale`` over a view (see the module docstring)."""
    if reduce not in REDUCES:
        raise ShapeError(f"unknown reduction {reduce!r}; choose max or sum")
    r0, r1 = row_range
    c0, c1 = col_range
    re_ = edges(r0, r1, max_rows)
    ce = edges(c0, c1, max_cols)
    sub = rows[:, c0:c1]
    unit_rows = units.row[r0:r1]
    weight = units.weight[r0:r1]
    n_ranks_view = int(weight.sum())
    peak = int(np.abs(sub).max()) * abs(scale) if sub.size else 0
    # a sum (and every marginal) covers at most each cell of the view once per rank
    sums_fit = peak == 0 or peak <= INT64_MAX // max(1, n_ranks_view * (c1 - c0))
    cells_fit = peak <= INT64_MAX
    exact = sums_fit or (reduce == "max" and cells_fit)
    dtype = np.int64 if sums_fit else np.float64
    vdtype = np.int64 if exact else np.float64
    sub_v = sub.astype(vdtype) * vdtype(scale)
    sub = sub_v if vdtype is dtype else sub.astype(dtype) * dtype(scale)
    cstarts = ce[:-1] - c0
    rstarts = re_[:-1] - r0
    # totals of each distinct row over the view's columns
    row_total = sub.sum(axis=1)
    per_unit_total = row_total[unit_rows]
    block_ranks = np.add.reduceat(weight, rstarts)
    row_sum = np.add.reduceat(per_unit_total * weight, rstarts)
    row_max = np.maximum.reduceat(per_unit_total, rstarts)
    # the distinct rows used, reduced over the column blocks
    used, inverse = np.unique(unit_rows, return_inverse=True)
    su = sub[used] if used.size < sub.shape[0] else sub
    inverse = inverse.reshape(-1) if used.size < sub.shape[0] else unit_rows
    if reduce == "max":
        colred = np.maximum.reduceat(
            sub_v[used] if used.size < sub.shape[0] else sub_v, cstarts, axis=1
        )
        values = np.maximum.reduceat(colred[inverse], rstarts, axis=0)
    else:
        colred = np.add.reduceat(su, cstarts, axis=1)
        values = np.add.reduceat(colred[inverse] * weight[:, None], rstarts, axis=0)
    # column marginals: the view's ranks' counts per column
    ranks_per_row = np.bincount(inverse, weights=weight, minlength=su.shape[0])
    ranks_per_row = np.rint(ranks_per_row).astype(np.int64)
    col_per_col = ranks_per_row.astype(dtype) @ su
    col_sum = np.add.reduceat(col_per_col, cstarts)
    col_max = np.maximum.reduceat(col_per_col, cstarts)
    return Blocks(
        values=np.ascontiguousarray(values),
        row_edges=re_,
        col_edges=ce,
        row_sum=row_sum,
        row_max=row_max,
        row_ranks=block_ranks,
        col_sum=col_sum,
        col_max=col_max,
        exact=exact,
        sums_exact=sums_fit,
    )


def colour_index(values: np.ndarray, scale: str) -> tuple[np.ndarray, float, float]:
    """uint8 colour of every value (0: zero, 1..255 low to high) and the scale's range."""
    v = values.astype(np.float64)
    pos = v > 0
    out = np.zeros(v.shape, np.uint8)
    if not pos.any():
        return out, 0.0, 0.0
    hi = float(v[pos].max())
    if scale == "log":
        lo = float(v[pos].min())
        if hi > lo:
            t = (np.log(v[pos]) - np.log(lo)) / (np.log(hi) - np.log(lo))
        else:
            t = np.ones(int(pos.sum()))
    elif scale == "linear":
        lo = 0.0
        t = v[pos] / hi
    else:
        raise ShapeError(f"unknown colour scale {scale!r}; choose linear or log")
    out[pos] = 1 + np.clip(np.floor(t * 254.999), 0, 254).astype(np.uint8)
    return out, lo, hi
