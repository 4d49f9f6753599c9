"""Path matching with Hatchet's semantics, as boolean node masks and frontier propagation.

A pattern is a list of steps ``(quantifier, mask)`` with quantifier ``"."`` (exactly one
node) or ``"*"`` (zero or more); ``mask[v]`` says whether node ``v`` satisfies the step's
predicate. Hatchet's matcher (``QueryEngine``) is a depth-first search; this module
computes the same set of nodes (every node on every matched path) as reachability in the
product of the graph and the pattern:

* ``E[j][v]``: a partial match ends at ``v`` and step ``j`` comes next;
* ``S[j][v]``: ``v`` was taken by the ``"*"`` of step ``j``, which goes on below ``v``.

Hatchet's rules, kept exactly: a match starts at any node satisfying step 0 (or, when
step 0 is ``"*"``, also at a node satisfying step 1); a ``"*"`` stops at the first child
that satisfies the next step (it never walks through such a node); a ``"*"`` at a leaf
matches zero nodes; a ``"*"`` that is not the last step must end above a node satisfying
the next step; a trailing ``"*"`` takes every satisfying descendant chain. A node is kept
when one of its states is reachable from a start (forward pass, step by step) and can
reach a complete match (backward pass). Each pass runs one array operation per step, and
``"*"`` steps propagate frontiers level by level through the CSR arrays, so the cost is
O(steps x (nodes + edges)) numpy work with no per-node Python.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from perfweave.calltree.graph import Graph

INT = np.int64


class _Csr:
    """The arrays of a graph the matcher needs (built once per match)."""

    def __init__(self, graph: Graph) -> None:
        self.n = len(graph)
        self.cptr = graph._child_ptr
        self.cidx = graph._child_idx
        self.pptr = graph._parent_ptr
        self.pidx = graph._parent_idx
        self.src = np.repeat(np.arange(self.n, dtype=INT), np.diff(self.cptr))
        self.leaf = np.diff(self.cptr) == 0
        self.tree = graph.is_tree()

    def any_child(self, mask: np.ndarray) -> np.ndarray:
        """Nodes with at least one child in ``mask``."""
        out = np.zeros(self.n, bool)
        out[self.src[mask[self.cidx]]] = True
        return out

    def children_in(self, parents: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Nodes in ``mask`` with at least one parent in ``parents``."""
        out = np.zeros(self.n, bool)
        out[self.cidx[parents[self.src] & mask[self.cidx]]] = True
        return out

    def down(self, seeds: np.ndarray, allowed: np.ndarray) -> np.ndarray:
        """Nodes reached from ``seeds`` by child steps through ``allowed`` nodes only
        (the seeds themselves are not included unless reached)."""
        reached = np.zeros(self.n, bool)
        frontier = np.flatnonzero(seeds)
        while frontier.size:
            kids = _gather(self.cptr, self.cidx, frontier)
            kids = kids[allowed[kids] & ~reached[kids]]
            if not self.tree:
                kids = np.unique(kids)
            reached[kids] = True
            frontier = kids
        return reached

    def up(self, good: np.ndarray, marked: np.ndarray, allowed: np.ndarray) -> None:
        """In place: parents of ``good`` nodes become ``marked``; marked ``allowed``
        nodes become good, and so on upwards."""
        frontier = np.flatnonzero(good)
        while frontier.size:
            par = _gather(self.pptr, self.pidx, frontier)
            par = par[~marked[par]]
            if not self.tree:
                par = np.unique(par)
            marked[par] = True
            par = par[allowed[par] & ~good[par]]
            good[par] = True
            frontier = par


def _gather(ptr: np.ndarray, idx: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Concatenated CSR rows of ``ids``."""
    starts = ptr[ids]
    counts = ptr[ids + 1] - starts
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, INT)
    ends = np.cumsum(counts)
    offsets = np.repeat(starts - (ends - counts), counts) + np.arange(total, dtype=INT)
    return idx[offsets]


def match(graph: Graph, steps: Sequence[tuple[str, np.ndarray]]) -> np.ndarray:
    """Boolean mask of the nodes on any path matching ``steps`` (Hatchet's semantics)."""
    g = _Csr(graph)
    k = len(steps)
    quant = [q for q, _ in steps]
    masks = [np.asarray(m, dtype=bool) for _, m in steps]
    last = k - 1

    def allowed(j: int) -> np.ndarray:
        # a "*" node must satisfy its step and must not satisfy the next one
        return masks[j] & ~masks[j + 1] if j < last else masks[j]

    # ---- forward: states reachable from a start
    E = [np.zeros(g.n, bool) for _ in range(k + 1)]
    S: dict[int, np.ndarray] = {}
    if quant[0] == ".":
        E[1] |= masks[0]
    else:
        E[0] |= masks[0]
        if k > 1:
            E[2 if quant[1] == "." else 0] |= masks[1]
    for j in range(k):
        if quant[j] == ".":
            E[j + 1] |= g.children_in(E[j], masks[j])
            continue
        E[j + 1] |= E[j] & g.leaf
        star = g.down(E[j] & ~g.leaf, allowed(j))
        S[j] = star
        expanding = (E[j] | star) & ~g.leaf
        if j < last:
            E[j + 1] |= expanding & g.any_child(masks[j + 1])
        else:
            E[k] |= (expanding & g.any_child(~masks[j])) | (star & g.leaf)

    # ---- backward: states from which a complete match is reachable
    co = [np.zeros(g.n, bool) for _ in range(k + 1)]
    co[k][:] = True
    co_star: dict[int, np.ndarray] = {}
    for j in range(last, -1, -1):
        if quant[j] == ".":
            co[j] = g.any_child(masks[j] & co[j + 1])
            continue
        ok = allowed(j)
        if j < last:
            local = g.any_child(masks[j + 1]) & co[j + 1]
        else:
            local = g.any_child(~masks[j])
        good = ok & np.where(g.leaf, j == last, local)
        expands = local.copy()  # T(u, j) completes
        g.up(good, expands, ok)
        co_star[j] = np.where(g.leaf, j == last, expands)
        co[j] = np.where(g.leaf, co[j + 1], expands)

    keep = np.zeros(g.n, bool)
    for j in range(k + 1):
        keep |= E[j] & co[j]
    for j, star in S.items():
        keep |= star & co_star[j]
    return keep
