"""The rows a tree table shows: a display tree, which of its nodes are open, a sort order
and the matches of a search.

A calltree graph is shown as a *display tree*: for a tree it is the graph itself; a DAG is
unrolled so that a node reached along several paths gets one display node per path (each
path is a row of its own, as in every calltree viewer). Display nodes are numbered
``0..m-1`` and map to graph nodes through ``node``.

The visible rows are the display nodes all of whose ancestors are expanded, in preorder
with each node's children sorted by a value. Nothing is laid out over the whole tree to
show them: the open part of the tree (the roots and the children of every open row) is
gathered level by level and put in row order on its own (:func:`preorder_of`), so opening
a view, a toggle or a sort costs in proportion to the rows shown, not to the tree. What
does concern the whole tree (the rows above a search's matches, a subtree, "Expand all")
works on the tree's *canonical* preorder, which does not depend on the sort: for a tree
graph it is the graph's own numbering, so nothing is computed for it. Everything is numpy,
with no per-node Python loop; only the window of rows in view is ever materialised for the
browser.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfweave.calltree.display import (
    MAX_PATHS,
    children_csr,
    display_tree,
    gather_children,
    preorder,
    preorder_of,
)
from perfweave.calltree.forest import level_order
from perfweave.calltree.graph import Graph
from perfweave.errors import GraphError, QueryError, ShapeError

INT = np.int64
#: open levels gathered one by one before the visible rows are found by a pass over the
#: canonical preorder instead (a deep open path: one pass, not a numpy call per level)
GATHER_LEVELS = 64


def _sort_key(values: np.ndarray, descending: bool) -> np.ndarray:
    """Rank of each value (NaN last in either direction), as the int key preorder takes."""
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
        self._tree = graph.is_tree()
        self._node: np.ndarray | None = None  # a tree's: its own ids, made on first use
        self._n_children: np.ndarray | None = None  # made on first use
        if self._tree:  # the graph is its own display tree: its children, as they are
            self.parent = np.asarray(graph.parent, dtype=INT)
            self._ptr, self._idx = graph.children_csr()
            self.roots = graph.root_ids
        else:
            self._node, self.parent = display_tree(graph, max_paths)
            self._ptr, self._idx, self.roots = children_csr(
                self.parent, np.zeros(len(self.parent), INT)
            )
        m = self._m = len(self.parent)
        self.expanded = np.zeros(m, bool)
        #: display nodes a search matched, in row order, and the index of the current one
        self.matches = np.zeros(0, INT)
        self.current = -1
        self._values: np.ndarray | None = None  # None: no sort yet (rows in id order)
        self._descending = True
        #: (pos, order, depth, size) of the canonical preorder, made on first use
        self._canon: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._visible: np.ndarray | None = None
        self._rows_by_id: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return self._m

    @property
    def node(self) -> np.ndarray:
        """The graph node of each display node."""
        if self._node is None:
            self._node = np.arange(self._m, dtype=INT)
        return self._node

    def node_of(self, vids: np.ndarray) -> np.ndarray:
        """The graph nodes of some display nodes (a tree's are the same ids)."""
        vids = np.asarray(vids, dtype=INT)
        return vids.copy() if self._tree else self.node[vids]

    @property
    def n_children(self) -> np.ndarray:
        """How many children each display node has."""
        if self._n_children is None:
            self._n_children = np.diff(self._ptr)
        return self._n_children

    def n_children_of(self, vids: np.ndarray) -> np.ndarray:
        """How many children some display nodes have."""
        vids = np.asarray(vids, dtype=INT)
        return self._ptr[vids + 1] - self._ptr[vids]

    @property
    def depth(self) -> np.ndarray:
        """Depth of each display node (roots: 0)."""
        return self.graph.depth if self._tree else self._canonical()[2]

    def _canonical(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(pos, order, depth, size)`` of the display tree in canonical preorder (children
        by id): a display node's subtree is ``order[pos : pos + size]`` in it, as in any
        preorder, whatever the sort."""
        if self._canon is None:
            m = self._m
            sizes = self.graph.subtree_size
            if self._tree and sizes is not None:  # ids are canonical preorder
                ids = np.arange(m, dtype=INT)
                self._canon = (ids, ids, self.graph.depth, np.asarray(sizes, dtype=INT))
            else:
                pos, depth, size = preorder(self.parent, np.zeros(m, INT))
                order = np.empty(m, INT)
                order[pos] = np.arange(m, dtype=INT)
                self._canon = (pos, order, depth, size)
        return self._canon

    def _changed(self) -> None:
        """The open rows or their order changed: the visible rows are found again."""
        self._visible = None
        self._rows_by_id = None

    # ------------------------------------------------------------------ order
    def sort_by(self, values: np.ndarray, descending: bool = True) -> None:
        """Sort every node's children (and the roots) by ``values`` (one per display node,
        NaN last; ties in display node order)."""
        self._values = np.asarray(values, dtype=float)
        self._descending = bool(descending)
        self._changed()
        if len(self.matches):
            self.matches = self._in_row_order(self.matches)

    def of_graph(self, values: np.ndarray) -> np.ndarray:
        """Per display node, ``values`` given per graph node (for a tree, the same array)."""
        return values if self._tree else values[self.node]

    def _ordered(self, members: np.ndarray) -> np.ndarray:
        """``members`` (ascending ids, closed under parents) in row order."""
        if self._values is None:
            key = np.zeros(len(members), INT)
        else:
            key = _sort_key(self._values[members], self._descending)
        return preorder_of(self.parent, members, key)

    def _in_row_order(self, vids: np.ndarray) -> np.ndarray:
        """Display nodes ``vids`` in the order their rows come (with all rows open), from
        the preorder of them and their ancestors alone."""
        vids = np.asarray(vids, dtype=INT)
        if not len(vids):
            return vids
        members = self._above(vids)
        members[vids] = True
        members = np.flatnonzero(members)
        ordered = self._ordered(members)
        rank = np.empty(len(members), INT)
        rank[np.searchsorted(members, ordered)] = np.arange(len(members), dtype=INT)
        return vids[np.argsort(rank[np.searchsorted(members, vids)], kind="stable")]

    def _above(self, vids: np.ndarray) -> np.ndarray:
        """Whether each display node is a proper ancestor of one of ``vids``."""
        pos, _, _, size = self._canonical()
        m = self._m
        marks = np.bincount(pos[np.asarray(vids, dtype=INT)], minlength=m)
        before = np.concatenate([[0], np.cumsum(marks)])  # marks at positions < p
        return (before[pos + size] - before[pos + 1]) > 0

    # ------------------------------------------------------------------ search matches
    def clear_matches(self) -> None:
        """No search matches."""
        self.matches = np.zeros(0, INT)
        self.current = -1

    def set_matches(self, hit: np.ndarray) -> None:
        """Mark the display nodes of the graph nodes where ``hit`` (one bool per graph node)
        holds, in row order; the first becomes the current match."""
        vids = np.flatnonzero(np.asarray(hit, bool)[self.node])
        self.matches = self._in_row_order(vids)
        self.current = 0 if len(vids) else -1

    def step_match(self, step: int) -> int:
        """Move the current match ``step`` matches on (round the end); its display node."""
        if not len(self.matches):
            raise QueryError("no search matches to move between")
        self.current = (self.current + int(step)) % len(self.matches)
        return int(self.matches[self.current])

    def current_match(self) -> int:
        """The current match's display node (-1: none)."""
        return int(self.matches[self.current]) if self.current >= 0 else -1

    def match_state(self) -> dict[str, int]:
        """How many matches, which is current (from 1) and its graph node (-1: none)."""
        cur = self.current_match()
        node = int(self.node[cur]) if cur >= 0 else -1
        return {"count": len(self.matches), "current": self.current + 1, "node": node}

    # ------------------------------------------------------------------ state
    def set_expanded(self, vids: np.ndarray, value: bool = True) -> None:
        vids = np.asarray(vids, dtype=INT)
        self.expanded[vids] = value
        self._changed()

    def expand_subtree(self, vid: int) -> None:
        """Expand ``vid`` and everything below it."""
        pos, order, _, size = self._canonical()
        p = pos[vid]
        self.expanded[order[p : p + size[vid]]] = True
        self._changed()

    def expand_within(self, tops: np.ndarray | None, budget: int) -> tuple[int, int]:
        """Open everything below the display nodes ``tops`` (None: the whole forest) level
        by level from the top, while at most ``budget`` rows show (or as many as show now,
        if more). Where a level does not fit whole, its nodes open in row order while they
        fit. Returns (rows shown, rows that would show with everything opened): equal when
        the budget did not stop it."""
        m = self._m
        tops = self.roots if tops is None else np.unique(np.asarray(tops, dtype=INT))
        self.expand_to(tops)
        # display nodes strictly below a top (by canonical preorder position); tops below
        # another top are opened with it
        pos, _, _, size = self._canonical()
        marks = np.zeros(m + 1, INT)
        np.add.at(marks, pos[tops] + 1, 1)
        np.add.at(marks, pos[tops] + size[tops], -1)
        below = (np.cumsum(marks[:m]) > 0)[pos]
        frontier = tops[~below[tops]]
        visible = self.visible()
        rows = len(visible)
        everything = rows - int(below[visible].sum()) + int(below.sum())
        budget = max(int(budget), rows)
        shown = self._shown_sizes()
        while len(frontier):
            closed = frontier[~self.expanded[frontier] & (self.n_children_of(frontier) > 0)]
            kids, counts = gather_children(self._ptr, self._idx, closed)
            owner = np.repeat(np.arange(len(closed)), counts)
            gain = np.bincount(owner, weights=shown[kids], minlength=len(closed)).astype(INT)
            if rows + int(gain.sum()) > budget:  # the part of this level that fits
                self._changed()  # the frontier shows: its rows, in row order
                order = np.argsort(self.row_of(closed), kind="stable")
                fits = np.cumsum(gain[order]) <= budget - rows
                self.expanded[closed[order][fits]] = True
                rows += int(gain[order][fits].sum())
                break
            self.expanded[closed] = True
            rows += int(gain.sum())
            frontier = gather_children(self._ptr, self._idx, frontier)[0]
        self._changed()
        return rows, everything

    def _shown_sizes(self) -> np.ndarray:
        """Rows each display node shows with its subtree as it is open now (itself, and
        below it what its open descendants show), summed up from the deepest level."""
        m = self._m
        shown = np.ones(m, INT)
        below = np.zeros(m, INT)
        for level in reversed(level_order(self.depth)):
            shown[level] = 1 + np.where(self.expanded[level], below[level], 0)
            up = self.parent[level]
            np.add.at(below, up[up >= 0], shown[level][up >= 0])
        return shown

    def expand_to(self, vids: np.ndarray) -> None:
        """Expand every proper ancestor of ``vids`` so that they become visible."""
        if not len(vids) or not self._m:
            return
        self.expanded |= self._above(vids)
        self._changed()

    def hot_path(self, values: np.ndarray, levels: int, widest: int = 1000) -> None:
        """Expand the roots, then from each its largest child along ``levels`` levels.

        Leaves are not marked open, and the path stops before a node with more than
        ``widest`` children (a person opens such a node when they want its rows).
        """
        self.expanded[self.roots[self.n_children_of(self.roots) > 0]] = True
        values = np.asarray(values, dtype=float)
        frontier = self.roots
        for _ in range(levels):
            kids, counts = gather_children(self._ptr, self._idx, frontier)
            if not len(kids):
                break
            owner = np.repeat(np.arange(len(frontier)), counts)
            v = values[kids]  # only the children looked at, not the whole tree
            v = np.where(np.isnan(v), -np.inf, v)
            order = np.lexsort((-v, owner))
            first = np.ones(len(order), bool)
            first[1:] = owner[order][1:] != owner[order][:-1]
            best = kids[order][first]
            count = self.n_children_of(best)
            best = best[(count > 0) & (count <= widest)]
            self.expanded[best] = True
            frontier = best
        self._changed()

    # ------------------------------------------------------------------ visible rows
    def visible(self) -> np.ndarray:
        """Display nodes shown as rows, top to bottom."""
        if self._visible is None:
            self._visible = self._ordered(self._open_part())
        return self._visible

    def _open_part(self) -> np.ndarray:
        """The display nodes all of whose ancestors are expanded (ascending ids): gathered
        level by level from the roots while few levels are open, else by one pass over the
        canonical preorder."""
        found = [self.roots]
        frontier = self.roots
        for _ in range(GATHER_LEVELS):
            frontier = frontier[self.expanded[frontier]]
            if not len(frontier):
                return np.sort(np.concatenate(found))
            frontier = gather_children(self._ptr, self._idx, frontier)[0]
            found.append(frontier)
        if not self.expanded[frontier].any():
            return np.sort(np.concatenate(found))
        m = self._m
        pos, order, _, size = self._canonical()
        closed = ~self.expanded & (size > 1)
        start = pos[closed] + 1
        end = pos[closed] + size[closed]
        diff = np.bincount(start, minlength=m + 1) - np.bincount(end, minlength=m + 1)
        hidden = np.cumsum(diff[:m]) > 0  # by canonical position
        return np.sort(order[~hidden])

    def row_of(self, vids: np.ndarray) -> np.ndarray:
        """Row index of each display node (-1 where it is hidden, or for -1)."""
        rows = self.visible()
        if self._rows_by_id is None:
            by_id = np.argsort(rows, kind="stable")
            self._rows_by_id = (rows[by_id], by_id)
        ids, row = self._rows_by_id
        vids = np.asarray(vids, dtype=INT)
        if not len(ids):
            return np.full(vids.shape, -1, INT)
        at = np.minimum(np.searchsorted(ids, vids), len(ids) - 1)
        return np.where(ids[at] == vids, row[at], -1)

    def vids_of_nodes(self, nodes: np.ndarray) -> np.ndarray:
        """Every display node of the given graph nodes (a DAG node may have several)."""
        mask = np.zeros(len(self.graph), bool)
        mask[np.asarray(nodes, dtype=INT)] = True
        return np.flatnonzero(mask[self.node])

    def check(self, vid: int) -> int:
        if not 0 <= vid < self._m:
            raise GraphError(f"no row {vid}: the tree shows {self._m} nodes")
        return int(vid)


def check_budget(budget: Any) -> int:
    """A row budget of "Expand all" (:meth:`TreeRows.expand_within`): a whole number of at
    least 1."""
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise ShapeError(
            f"the row budget of expand_all must be a whole number >= 1, not {budget!r}"
        )
    return int(budget)
