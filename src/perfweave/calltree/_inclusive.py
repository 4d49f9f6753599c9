"""Inclusive sums over a graph: each node's value plus all its descendants' (each once).

Rows are laid out as a dense (node x rank/thread combination) matrix. In a tree numbered
children are added into parents level by level from the deepest (one vectorised step per
level, and the same summation order as a recursive sum, so no cancellation error); a DAG
sums over each node's reachable set instead. As in Hatchet, a sum
with no values at all (only NaN) stays NaN.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfweave.calltree import _dag


def row_layout(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, int]:
    """(node id, column of the rank/thread combination, number of combinations) per row."""
    node = np.asarray(df.index.get_level_values("node"), dtype=np.int64)
    others = [lvl for lvl in df.index.names if lvl != "node"]
    if not others:
        return node, np.zeros(len(df), np.int64), 1
    if len(others) == 1:
        codes, uniq = pd.factorize(df.index.get_level_values(others[0]))
    else:
        codes, uniq = pd.factorize(
            pd.MultiIndex.from_arrays([df.index.get_level_values(o) for o in others])
        )
    return node, codes.astype(np.int64), max(len(uniq), 1)


def subgraph_sums(graph, df: pd.DataFrame, columns: list[str]) -> dict[str, np.ndarray]:
    """Inclusive sum of each column, per row of ``df`` (a DAG's reachable sets are found
    once for all columns)."""
    n = len(graph)
    node, combo, k = row_layout(df)
    reach = None if graph.is_tree() else [_dag.descendants(graph, v) for v in range(n)]
    out = {}
    for col in columns:
        values = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=float)
        ok = ~np.isnan(values)
        flat = node[ok] * k + combo[ok]
        dense = np.bincount(flat, weights=values[ok], minlength=n * k).reshape(n, k)
        present = np.bincount(flat, minlength=n * k).astype(float).reshape(n, k)
        if reach is None:
            total = _up_sum(graph, dense)
            count = _up_sum(graph, present)
        else:
            total = np.zeros((n, k))
            count = np.zeros((n, k))
            for v, below in enumerate(reach):
                total[v] = dense[below].sum(axis=0)
                count[v] = present[below].sum(axis=0)
        result = np.where(count > 0, total, np.nan)
        out[col] = result[node, combo]
    return out


def _up_sum(graph, dense: np.ndarray) -> np.ndarray:
    """Subtree sums of a (node x k) matrix in a tree, deepest level first.

    In preorder, the nodes of one level have non-decreasing parents, so each level's
    contribution is one ``reduceat`` over runs of equal parents, for all k columns at once.
    """
    from perfweave.calltree._forest import level_order

    total = dense.copy()
    parent = graph.parent
    for level in reversed(level_order(graph.depth)[1:]):
        par = parent[level]
        starts = np.flatnonzero(np.r_[True, par[1:] != par[:-1]])
        total[par[starts]] += np.add.reduceat(total[level], starts, axis=0)
    return total
