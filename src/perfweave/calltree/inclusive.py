"""Inclusive sums over a graph: each node's value plus all its descendants' (each once).

Rows are laid out as a dense (node x rank/thread combination) matrix (:mod:`._layout`).
In a tree numbered children are added into parents level by level from the deepest (one
vectorised step per level, and the same summation order as a recursive sum, so no
cancellation error); a DAG sums over each node's reachable set instead. As in Hatchet,
a sum with no values at all (only NaN) stays NaN.

Where a node has several rows on one rank/thread (a sampling profile), the node's total
is spread over them so that summing them gives it once: each row keeps its own value and
the first row also carries the descendants' total (:func:`to_rows`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfweave.calltree import _dag
from perfweave.calltree._layout import Layout, layout


def subgraph_sums(graph, df: pd.DataFrame, columns: list[str]) -> dict[str, np.ndarray]:
    """Inclusive sum of each column, per row of ``df``: every column's values and presence
    stacked into one (node x cell) matrix, summed up the tree in one pass (a DAG's
    reachable sets are found once for all columns); a sum of no value stays NaN."""
    n = len(graph)
    lay = layout(df, n)
    values, dense, present = [], [], []
    for col in columns:
        v = df[col]
        if not pd.api.types.is_float_dtype(v.dtype):
            v = pd.to_numeric(v, errors="coerce")
        v = v.to_numpy(dtype=float, na_value=np.nan)
        d, p = lay.dense(v)
        values.append(v)
        dense.append(d)
        present.append(p.astype(float))
    if not columns:
        return {}
    width = dense[0].shape[1]
    stacked = np.concatenate(dense + present, axis=1)
    if graph.is_tree():
        total = up_sum(graph, stacked)
    else:
        total = np.zeros_like(stacked)
        for v, below in enumerate(_dag.descendants(graph, u) for u in range(n)):
            total[v] = stacked[below].sum(axis=0)
    k = len(columns)
    out = {}
    for j, col in enumerate(columns):
        sums = total[:, j * width : (j + 1) * width]
        count = total[:, (k + j) * width : (k + j + 1) * width]
        out[col] = to_rows(lay, values[j], dense[j], np.where(count > 0, sums, np.nan))
    return out


def to_rows(lay: Layout, values: np.ndarray, dense: np.ndarray, total: np.ndarray) -> np.ndarray:
    """A per-cell result back onto the rows: the cell's value where a cell has one row;
    where it has several, each row keeps its own value and the cell's first row also
    carries the rest (``total - dense``), so the rows of a cell sum to its total."""
    at = (lay.node, lay.combo)
    if not lay.has_duplicates():
        return total[at]
    rest = np.where(np.isnan(total), np.nan, total - dense)[at]
    first = lay.first_rows()
    own = np.where(np.isnan(values), 0.0, values)
    out = np.where(first, own + rest, values)
    # a first row with no value of its own and nothing below stays NaN
    return np.where(first & np.isnan(values) & np.isnan(total[at]), np.nan, out)


def up_sum(graph, dense: np.ndarray) -> np.ndarray:
    """Subtree sums of a (node x k) matrix in a tree, deepest level first.

    In preorder, the nodes of one level have non-decreasing parents, so each level's
    contribution is one ``reduceat`` over runs of equal parents, for all k columns at once.
    The rows are worked on in level order (each level one slice) with every level's runs
    and their parents' rows found before the loop, so a deep tree (20,000 levels of a
    million-node random tree) pays one slice, one ``reduceat`` and one scatter per level
    (a level of only children is added without the ``reduceat``: the same numbers).
    """
    total = dense.copy()
    n = len(total)
    if n == 0:
        return total
    depth = np.asarray(graph.depth)
    # level order (ascending ids within a level); a radix sort where the depths allow it
    key = depth.astype(np.uint16) if int(depth.max()) < 2**16 else depth
    order = np.argsort(key, kind="stable")
    level = depth[order]
    top = int(level[-1])
    bounds = np.searchsorted(level, np.arange(top + 2))
    at = np.empty(n, dtype=np.int64)  # each node's row in level order
    at[order] = np.arange(n)
    par = np.asarray(graph.parent)[order]
    new = np.ones(n, dtype=bool)  # a run of equal parents starts
    new[1:] = (par[1:] != par[:-1]) | (level[1:] != level[:-1])
    starts = np.flatnonzero(new)
    cut = np.searchsorted(starts, bounds).tolist()
    target = at[np.maximum(par[starts], 0)]  # the row of each run's parent
    local = starts - bounds[level[starts]]  # each run's start within its level
    rows = total[order]
    b = bounds.tolist()
    reduceat = np.add.reduceat
    for d in range(top, 0, -1):
        lo, hi, s0, s1 = b[d], b[d + 1], cut[d], cut[d + 1]
        if s1 - s0 == hi - lo:  # every parent has one child here
            rows[target[s0:s1]] += rows[lo:hi]
        else:
            rows[target[s0:s1]] += reduceat(rows[lo:hi], local[s0:s1], axis=0)
    total[order] = rows
    return total
