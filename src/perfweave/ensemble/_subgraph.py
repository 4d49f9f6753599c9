"""Restricting a graph to a set of nodes, keeping ancestors, with one old->new id map."""

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
    """The graph on the nodes of ``keep`` (ancestor-closed) and the old->new id map
    (-1 for dropped nodes); the graph itself when every node is kept."""
    keep = np.asarray(keep, dtype=bool)
    if keep.all():
        return graph, np.arange(len(graph), dtype=INT)
    return graph.squash(keep)
