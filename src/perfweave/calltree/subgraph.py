"""Restricting a graph to a set of nodes, keeping ancestors, with one old->new id map.

Public for the packages above calltree: an Ensemble keeps the nodes its filters and
queries select, a scaling study matches a reduced tree to its ensemble's.
"""

from __future__ import annotations

import numpy as np

from perfweave.calltree.graph import Graph

INT = np.int64


def ancestor_closure(graph: Graph, keep: np.ndarray) -> np.ndarray:
    """``keep`` plus every ancestor of a kept node (a boolean mask over node ids).

    Trees use the preorder layout (a node is kept when its subtree holds a kept node);
    DAGs propagate to parents level by level, deepest first.
    """
    keep = np.asarray(keep, dtype=bool)
    n = len(graph)
    if graph.is_tree():
        size = graph._size
        counts = np.concatenate([[0], np.cumsum(keep, dtype=INT)])
        start = np.arange(n, dtype=INT)
        return counts[start + size] - counts[start] > 0
    out = keep.copy()
    child = np.repeat(np.arange(n, dtype=INT), np.diff(graph._parent_ptr))
    parent = graph._parent_idx
    depth = graph.depth
    for d in range(int(depth.max(initial=0)), 0, -1):
        sel = (depth[child] == d) & out[child]
        out[parent[sel]] = True
    return out


def subgraph(graph: Graph, keep: np.ndarray) -> tuple[Graph, np.ndarray]:
    """The graph induced by the nodes of ``keep`` (an ancestor-closed mask) and the map
    old id -> new id (-1 for dropped nodes).

    Unlike :meth:`Graph.squash`, siblings with equal frames stay apart: in a union graph
    they are distinct nodes (a frame repeated among siblings pairs up in order).
    """
    keep = np.asarray(keep, dtype=bool)
    n = len(graph)
    if keep.all():
        return graph, np.arange(n, dtype=INT)
    kept = np.flatnonzero(keep)
    compact = np.full(n, -1, INT)
    compact[kept] = np.arange(len(kept), dtype=INT)
    frames = graph.frames.iloc[kept].reset_index(drop=True)
    order_key = None if graph._order_key is None else np.asarray(graph._order_key)[kept]
    codes = (graph._code[kept], graph._rank[kept])  # the kept frames' codes, not recomputed
    if graph.is_tree():
        parent = graph.parent[kept]
        new_parent = np.where(parent >= 0, compact[np.maximum(parent, 0)], -1)
        sub, pos = Graph._new(frames, new_parent, None, order_key, codes=codes)
    else:
        child = np.repeat(np.arange(n, dtype=INT), np.diff(graph._parent_ptr))
        parent = graph._parent_idx
        sel = keep[child] & keep[parent]
        edges = (compact[parent[sel]], compact[child[sel]])
        sub, pos = Graph._new(frames, None, edges, order_key, codes=codes)
    old_to_new = np.full(n, -1, INT)
    old_to_new[kept] = pos
    return sub, old_to_new
