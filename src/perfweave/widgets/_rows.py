"""The rows a tree table shows: a display tree, which of its nodes are open, a sort order.

A calltree graph is shown as a *display tree*: for a tree it is the graph itself; a DAG is
unrolled so that a node reached along several paths gets one display node per path (each
path is a row of its own, as in every calltree viewer). Display nodes are numbered
``0..m-1`` and map to graph nodes through ``node``.

The visible rows are the display nodes all of whose ancestors are expanded, in preorder
with each node's children sorted by a value. Everything is computed with numpy over the
whole display tree (a few milliseconds per million nodes), so expanding, collapsing,
sorting and searching have no per-node Python loop; only the window of rows in view is
ever materialised for the browser.
"""

from __future__ import annotations

import numpy as np

from perfweave.calltree import _forest
from perfweave.calltree.graph import Graph
from perfweave.errors import GraphError

INT = np.int64

#: a DAG whose unrolled paths exceed this is refused (filter or focus it first)
MAX_PATHS = 5_000_000


def unroll(graph: Graph, max_paths: int = MAX_PATHS) -> tuple[np.ndarray, np.ndarray]:
    """Display tree of ``graph``: (graph node per display node, display parent or -1).

    A tree is its own display tree. A DAG is unrolled level by level, one display node per
    path from a root; a path never repeats a node (cycles are guarded, not followed).
    """
    n = len(graph)
    if graph.is_tree():
        return np.arange(n, dtype=INT), np.asarray(graph.parent, dtype=INT)
    ptr, idx = graph._child_ptr, graph._child_idx
    nodes = [graph.root_ids.astype(INT)]
    parents = [np.full(len(nodes[0]), -1, INT)]
    # each display node remembers its chain of ancestors as a set of graph nodes only
    # implicitly: a child equal to any ancestor is dropped by walking up ``anc_depth`` steps
    offset, total = 0, len(nodes[0])
    frontier = nodes[0]
    all_nodes = nodes[0]
    all_parents = parents[0]
    for _depth in range(n):
        if not len(frontier):
            break
        kids, counts = _forest.gather_children(ptr, idx, frontier)
        par = np.repeat(np.arange(offset, offset + len(frontier), dtype=INT), counts)
        keep = _not_on_path(kids, par, all_nodes, all_parents)
        kids, par = kids[keep], par[keep]
        total += len(kids)
        if total > max_paths:
            raise GraphError(
                f"this call graph has more than {max_paths:,} distinct call paths; "
                "filter or focus it before showing it as a tree"
            )
        offset += len(frontier)
        all_nodes = np.concatenate([all_nodes, kids])
        all_parents = np.concatenate([all_parents, par])
        frontier = kids
    return all_nodes, all_parents


def _not_on_path(
    kids: np.ndarray, par: np.ndarray, nodes: np.ndarray, parents: np.ndarray
) -> np.ndarray:
    """True for each candidate child whose graph node is not already on its own path."""
    keep = np.ones(len(kids), bool)
    cur = par.copy()
    while len(cur):
        live = cur >= 0
        if not live.any():
            break
        keep &= ~(live & (nodes[np.maximum(cur, 0)] == kids))
        cur = np.where(live, parents[np.maximum(cur, 0)], -1)
    return keep


def _sort_key(values: np.ndarray, descending: bool) -> np.ndarray:
    """Rank of each value (NaN last in either direction), as the int key tree_layout takes."""
    v = np.asarray(values, dtype=float)
    v = -v if descending else v
    v = np.where(np.isnan(v), np.inf, v)
    order = np.argsort(v, kind="stable")
    key = np.empty(len(v), INT)
    key[order] = np.arange(len(v), dtype=INT)
    return key


class TreeRows:
    """Expansion state and visible rows of a display tree."""

    def __init__(self, graph: Graph, max_paths: int = MAX_PATHS) -> None:
        self.graph = graph
        self.node, self.parent = unroll(graph, max_paths)
        m = len(self.node)
        self.expanded = np.zeros(m, bool)
        self.n_children = np.bincount(self.parent[self.parent >= 0], minlength=m).astype(INT)
        self._ptr, self._idx, self.roots = _forest.children_csr(self.parent, np.zeros(m, INT))
        self.sort_by(np.zeros(m), descending=True)

    def __len__(self) -> int:
        return len(self.node)

    # ------------------------------------------------------------------ order
    def sort_by(self, values: np.ndarray, descending: bool = True) -> None:
        """Sort every node's children (and the roots) by ``values`` (one per display node)."""
        pos, self.depth, self.size = _forest.tree_layout(self.parent, _sort_key(values, descending))
        self.pos = pos
        self.order = np.empty(len(pos), INT)
        self.order[pos] = np.arange(len(pos), dtype=INT)
        self._visible = None

    # ------------------------------------------------------------------ state
    def set_expanded(self, vids: np.ndarray, value: bool = True) -> None:
        vids = np.asarray(vids, dtype=INT)
        self.expanded[vids] = value
        self._visible = None

    def expand_subtree(self, vid: int) -> None:
        """Expand ``vid`` and everything below it."""
        p = self.pos[vid]
        self.expanded[self.order[p : p + self.size[vid]]] = True
        self._visible = None

    def expand_to(self, vids: np.ndarray) -> None:
        """Expand every proper ancestor of ``vids`` so that they become visible."""
        m = len(self.node)
        if not len(vids) or not m:
            return
        marks = np.zeros(m + 1, INT)
        np.add.at(marks, self.pos[np.asarray(vids, dtype=INT)], 1)
        before = np.concatenate([[0], np.cumsum(marks)])  # marks at positions < p
        start = self.pos + 1
        end = self.pos + self.size
        has = (before[end] - before[start]) > 0
        self.expanded |= has
        self._visible = None

    def hot_path(self, values: np.ndarray, levels: int, widest: int = 1000) -> None:
        """Expand the roots, then from each its largest child along ``levels`` levels.

        Leaves are not marked open, and the path stops before a node with more than
        ``widest`` children (a person opens such a node when they want its rows).
        """
        self.expanded[self.roots[self.n_children[self.roots] > 0]] = True
        v = np.where(np.isnan(values), -np.inf, values)
        frontier = self.roots
        for _ in range(levels):
            kids, counts = _forest.gather_children(self._ptr, self._idx, frontier)
            if not len(kids):
                break
            owner = np.repeat(np.arange(len(frontier)), counts)
            order = np.lexsort((-v[kids], owner))
            first = np.ones(len(order), bool)
            first[1:] = owner[order][1:] != owner[order][:-1]
            best = kids[order][first]
            best = best[(self.n_children[best] > 0) & (self.n_children[best] <= widest)]
            self.expanded[best] = True
            frontier = best
        self._visible = None

    # ------------------------------------------------------------------ visible rows
    def visible(self) -> np.ndarray:
        """Display nodes shown as rows, top to bottom."""
        if self._visible is None:
            m = len(self.node)
            closed = ~self.expanded & (self.size > 1)
            start = self.pos[closed] + 1
            end = self.pos[closed] + self.size[closed]
            diff = np.bincount(start, minlength=m + 1) - np.bincount(end, minlength=m + 1)
            hidden = np.cumsum(diff[:m]) > 0
            self._visible = self.order[~hidden]
            self._row_of = None
        return self._visible

    def row_of(self, vids: np.ndarray) -> np.ndarray:
        """Row index of each display node (-1 where it is hidden)."""
        rows = self.visible()
        if self._row_of is None:
            self._row_of = np.full(len(self.node) + 1, -1, INT)  # [-1] answers for "no parent"
            self._row_of[rows] = np.arange(len(rows), dtype=INT)
        return self._row_of[np.asarray(vids, dtype=INT)]

    def vids_of_nodes(self, nodes: np.ndarray) -> np.ndarray:
        """Every display node of the given graph nodes (a DAG node may have several)."""
        mask = np.zeros(len(self.graph), bool)
        mask[np.asarray(nodes, dtype=INT)] = True
        return np.flatnonzero(mask[self.node])

    def check(self, vid: int) -> int:
        if not 0 <= vid < len(self.node):
            raise GraphError(f"no row {vid}: the tree shows {len(self.node)} nodes")
        return int(vid)
