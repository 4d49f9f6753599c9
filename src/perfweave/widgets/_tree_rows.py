"""The rows a tree table shows: a display tree, which of its nodes are open, a sort order
and the matches of a search.

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

from typing import Any

import numpy as np

from perfweave.calltree.display import (
    MAX_PATHS,
    children_csr,
    display_tree,
    gather_children,
    preorder,
)
from perfweave.calltree.forest import level_order
from perfweave.calltree.graph import Graph
from perfweave.errors import GraphError, QueryError, ShapeError

INT = np.int64


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
        self.node, self.parent = display_tree(graph, max_paths)
        m = len(self.node)
        self.expanded = np.zeros(m, bool)
        self.n_children = np.bincount(self.parent[self.parent >= 0], minlength=m).astype(INT)
        self._ptr, self._idx, self.roots = children_csr(self.parent, np.zeros(m, INT))
        #: display nodes a search matched, in row order, and the index of the current one
        self.matches = np.zeros(0, INT)
        self.current = -1
        self.sort_by(np.zeros(m), descending=True)

    def __len__(self) -> int:
        return len(self.node)

    # ------------------------------------------------------------------ order
    def sort_by(self, values: np.ndarray, descending: bool = True) -> None:
        """Sort every node's children (and the roots) by ``values`` (one per display node)."""
        pos, self.depth, self.size = preorder(self.parent, _sort_key(values, descending))
        self.pos = pos
        self.order = np.empty(len(pos), INT)
        self.order[pos] = np.arange(len(pos), dtype=INT)
        self._visible = None
        if len(self.matches):
            self.matches = self.matches[np.argsort(self.pos[self.matches])]

    # ------------------------------------------------------------------ search matches
    def set_matches(self, hit: np.ndarray) -> None:
        """Mark the display nodes of the graph nodes where ``hit`` (one bool per graph node)
        holds, in row order; the first becomes the current match."""
        vids = np.flatnonzero(np.asarray(hit, bool)[self.node])
        self.matches = vids[np.argsort(self.pos[vids])]
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
        self._visible = None

    def expand_subtree(self, vid: int) -> None:
        """Expand ``vid`` and everything below it."""
        p = self.pos[vid]
        self.expanded[self.order[p : p + self.size[vid]]] = True
        self._visible = None

    def expand_within(self, tops: np.ndarray | None, budget: int) -> tuple[int, int]:
        """Open everything below the display nodes ``tops`` (None: the whole forest) level
        by level from the top, while at most ``budget`` rows show (or as many as show now,
        if more). Where a level does not fit whole, its nodes open in row order while they
        fit. Returns (rows shown, rows that would show with everything opened): equal when
        the budget did not stop it."""
        m = len(self.node)
        tops = self.roots if tops is None else np.unique(np.asarray(tops, dtype=INT))
        self.expand_to(tops)
        # display nodes strictly below a top (by preorder position); tops below another
        # top are opened with it
        marks = np.zeros(m + 1, INT)
        np.add.at(marks, self.pos[tops] + 1, 1)
        np.add.at(marks, self.pos[tops] + self.size[tops], -1)
        below = (np.cumsum(marks[:m]) > 0)[self.pos]
        frontier = tops[~below[tops]]
        visible = self.visible()
        rows = len(visible)
        everything = rows - int(below[visible].sum()) + int(below.sum())
        budget = max(int(budget), rows)
        shown = self._shown_sizes()
        while len(frontier):
            closed = frontier[~self.expanded[frontier] & (self.n_children[frontier] > 0)]
            kids, counts = gather_children(self._ptr, self._idx, closed)
            owner = np.repeat(np.arange(len(closed)), counts)
            gain = np.bincount(owner, weights=shown[kids], minlength=len(closed)).astype(INT)
            if rows + int(gain.sum()) > budget:  # the part of this level that fits
                order = np.argsort(self.pos[closed])
                fits = np.cumsum(gain[order]) <= budget - rows
                self.expanded[closed[order][fits]] = True
                rows += int(gain[order][fits].sum())
                break
            self.expanded[closed] = True
            rows += int(gain.sum())
            frontier = gather_children(self._ptr, self._idx, frontier)[0]
        self._visible = None
        return rows, everything

    def _shown_sizes(self) -> np.ndarray:
        """Rows each display node shows with its subtree as it is open now (itself, and
        below it what its open descendants show), summed up from the deepest level."""
        m = len(self.node)
        shown = np.ones(m, INT)
        below = np.zeros(m, INT)
        for level in reversed(level_order(self.depth)):
            shown[level] = 1 + np.where(self.expanded[level], below[level], 0)
            up = self.parent[level]
            np.add.at(below, up[up >= 0], shown[level][up >= 0])
        return shown

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
            kids, counts = gather_children(self._ptr, self._idx, frontier)
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


def check_budget(budget: Any) -> int:
    """A row budget of "Expand all" (:meth:`TreeRows.expand_within`): a whole number of at
    least 1."""
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise ShapeError(
            f"the row budget of expand_all must be a whole number >= 1, not {budget!r}"
        )
    return int(budget)
