"""Rank-range grouping: the ranks whose rows are identical, with their ranklist label.

This is the structure the profiler's compact files use and the heatmap widget shows:
one entry per distinct row, ``(label, ranks, row)``, ordered by first rank.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from perfweave.counts.matrix import CountMatrix
from perfweave.counts.ranklist import format_ranklist

__all__ = ["RankGroup", "group_ranks", "rank_groups"]


class RankGroup(NamedTuple):
    """Ranks sharing one row of counts; ``label`` is their ranklist (``"0-3, 7"``)."""

    label: str
    ranks: np.ndarray
    row: np.ndarray


def rank_groups(matrix: CountMatrix | np.ndarray, sep: str = ", ") -> list[RankGroup]:
    """Group the ranks of ``matrix`` (a CountMatrix or a dense 2-D array) by identical row."""
    m = matrix if isinstance(matrix, CountMatrix) else CountMatrix.from_dense(matrix)
    order = np.argsort(m.row_of_rank, kind="stable")
    bounds = np.searchsorted(m.row_of_rank[order], np.arange(m.rows.shape[0] + 1))
    groups = []
    for k in range(m.rows.shape[0]):
        ranks = order[bounds[k] : bounds[k + 1]]
        groups.append(RankGroup(format_ranklist(ranks, sep=sep), ranks, m.rows[k]))
    return groups


def group_ranks(matrix: np.ndarray) -> CountMatrix:
    """The compact (distinct rows + row per rank) form of a dense count matrix."""
    return CountMatrix.from_dense(matrix)
