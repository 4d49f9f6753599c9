"""Vectorised algorithms on forests stored as parent arrays.

Every function works level by level with numpy: the number of numpy calls grows with the
depth of the tree, never with the number of nodes. Node ids are positions in the arrays;
``-1`` stands for "no parent". The layout of a very deep tree (a trace of deeply nested
calls) is the exception: it ranks an Euler tour of the tree instead, in about log2(n) passes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfweave.errors import GraphError

INT = np.int64
#: trees with more levels than this are laid out by ranking an Euler tour (about log2(n)
#: numpy passes) instead of level by level (a few passes per level: 100,000 levels took
#: seconds)
DEEP_LEVELS = 256


def children_csr(parent: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Children of every node as CSR (ptr, idx), each node's children sorted by (key, id).

    Also returns the roots (nodes with parent -1) sorted the same way.
    """
    n = len(parent)
    key = np.asarray(key, dtype=INT)
    span = int(key.max()) - int(key.min()) + 1 if n else 1
    if (n + 1) * span < 2**62:  # one stable sort on (parent, key); ties keep id order
        order = np.argsort((parent + 1) * span + (key - (key.min() if n else 0)), kind="stable")
    else:
        order = np.lexsort((np.arange(n, dtype=INT), key, parent))
    par_sorted = parent[order]
    n_roots = int(np.searchsorted(par_sorted, 0))  # parents of -1 sort first
    roots = order[:n_roots]
    idx = order[n_roots:]
    counts = np.bincount(parent[idx], minlength=n) if len(idx) else np.zeros(n, INT)
    ptr = np.zeros(n + 1, dtype=INT)
    np.cumsum(counts, out=ptr[1:])
    return ptr, idx, roots


def gather_children(
    ptr: np.ndarray, idx: np.ndarray, nodes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Children of ``nodes`` (grouped by node, in CSR order) and how many each node has."""
    starts = ptr[nodes]
    counts = ptr[nodes + 1] - starts
    total = int(counts.sum())
    if total == 0:
        return np.empty(0, INT), counts
    offsets = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    return idx[offsets + np.arange(total, dtype=INT)], counts


def bfs_levels(
    ptr: np.ndarray, idx: np.ndarray, roots: np.ndarray, n: int, max_levels: int | None = None
) -> list[np.ndarray] | None:
    """Nodes level by level from the roots (each level grouped by parent, in CSR order).

    Raises GraphError when some node cannot be reached from a root (its parent chain is a
    cycle), naming one such node. Returns None when the forest has more than
    ``max_levels`` levels.
    """
    levels = []
    frontier = roots.astype(INT)
    seen = 0
    while len(frontier):
        if max_levels is not None and len(levels) == max_levels:
            return None
        levels.append(frontier)
        seen += len(frontier)
        if seen > n:  # only possible when a node has several parents: not a tree
            raise GraphError("graph is not a tree (a node was reached twice)")
        frontier, _ = gather_children(ptr, idx, frontier)
    if seen != n:
        reached = np.zeros(n, bool)
        reached[np.concatenate(levels) if levels else np.empty(0, INT)] = True
        _unreachable(reached)
    return levels


def _unreachable(reached: np.ndarray) -> None:
    lost = int(np.flatnonzero(~reached)[0])
    raise GraphError(f"node {lost} is not reachable from any root: its parents form a cycle")


def tree_layout(parent: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Canonical preorder of a forest.

    Roots and each node's children are visited in (key, id) order. Returns ``pos`` (old id
    -> preorder position), ``depth`` and ``size`` (subtree sizes), the latter two indexed
    by old id.
    """
    n = len(parent)
    ptr, idx, roots = children_csr(parent, key)
    levels = bfs_levels(ptr, idx, roots, n, max_levels=DEEP_LEVELS)
    if levels is None:
        return euler_layout(parent, ptr, idx, roots)
    depth = np.empty(n, INT)
    for d, level in enumerate(levels):
        depth[level] = d
    size = np.ones(n, INT)
    for level in reversed(levels[1:]):
        par = parent[level]
        if 8 * len(level) >= n:  # a wide level: one dense pass
            size += np.bincount(par, weights=size[level], minlength=n).astype(INT)
        else:  # a narrow one (deep trees): the level's runs of siblings, no n-sized pass
            first = np.flatnonzero(np.r_[True, par[1:] != par[:-1]])
            size[par[first]] += np.add.reduceat(size[level], first)
    pos = np.empty(n, INT)
    if n == 0:
        return pos, depth, size
    rsize = size[roots]
    pos[roots] = np.cumsum(rsize) - rsize
    for level in levels[1:]:
        par = parent[level]
        lsize = size[level]
        cs = np.cumsum(lsize)
        # exclusive cumsum restarted at each parent's first child (levels are grouped by parent)
        first = np.ones(len(level), bool)
        first[1:] = par[1:] != par[:-1]
        group_start = np.maximum.accumulate(np.where(first, np.arange(len(level)), 0))
        before = (cs - lsize) - (cs[group_start] - lsize[group_start])
        pos[level] = pos[par] + 1 + before
    return pos, depth, size


def euler_layout(
    parent: np.ndarray, ptr: np.ndarray, idx: np.ndarray, roots: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`tree_layout`'s (pos, depth, size) from an Euler tour, whatever the depth.

    The tour enters a node, tours its children in CSR order and leaves it; roots follow
    one another. Each of the 2n steps points to the next, and list ranking by pointer
    jumping (about log2(2n) passes) counts, for every step, the entries after it and the
    entries minus exits after it: a node's preorder position is the number of entries
    before its own, its subtree size the entries between its entry and its exit, its depth
    the nodes entered and not left before it. A node on a cycle never reaches the tour's
    end: GraphError, as :func:`bfs_levels` says it.
    """
    n = len(parent)
    nodes = np.arange(n, dtype=INT)
    end = 2 * n  # after the last step; it points to itself
    has_kids = ptr[1:] > ptr[:-1]
    first_child = idx[np.minimum(ptr[:-1], max(len(idx) - 1, 0))] if len(idx) else nodes
    next_sibling = np.full(n, -1, INT)
    if len(idx) > 1:
        same = parent[idx[1:]] == parent[idx[:-1]]
        next_sibling[idx[:-1][same]] = idx[1:][same]
    next_sibling[roots[:-1]] = roots[1:]
    leave_to = np.where(parent >= 0, n + parent, end)
    succ = np.concatenate(
        [
            np.where(has_kids, first_child, n + nodes),  # entering a node
            np.where(next_sibling >= 0, next_sibling, leave_to),  # leaving it
            [end],
        ]
    )
    entries = np.r_[np.ones(n, INT), np.zeros(n + 1, INT)]
    balance = np.r_[np.ones(n, INT), -np.ones(n, INT), 0]
    for _ in range(int(np.ceil(np.log2(2 * n + 1))) + 1):
        if (succ == end).all():
            break
        entries, balance, succ = entries + entries[succ], balance + balance[succ], succ[succ]
    reached = succ[:n] == end
    if not reached.all():
        _unreachable(reached)
    pos = n - entries[:n]
    return pos, -balance[:n], entries[:n] - entries[n : 2 * n]


def level_order(depth: np.ndarray) -> list[np.ndarray]:
    """Node ids grouped by depth (ascending ids within a level)."""
    if len(depth) == 0:
        return []
    order = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2))
    return [order[bounds[d] : bounds[d + 1]] for d in range(len(bounds) - 1)]


def merge_groups(
    parent: np.ndarray, depth: np.ndarray, frame_code: np.ndarray, dup: np.ndarray | None = None
) -> np.ndarray:
    """Group nodes that have the same (group of parent, frame[, dup]) top-down.

    This is how graphs merge: two roots with equal frames become one node, then children
    with equal frames under merged parents, and so on. ``dup`` (an occurrence number among
    same-frame siblings) keeps duplicates apart where they must stay apart (union).
    Returns a group id per node, numbered 0..G-1 level by level.
    """
    n = len(parent)
    if n and int(np.max(depth)) >= DEEP_LEVELS:
        return _merge_groups_deep(parent, np.asarray(depth, dtype=INT), frame_code, dup)
    group = np.empty(n, INT)
    next_id = 0
    for level in level_order(depth):
        par = parent[level]
        pg = np.where(par >= 0, group[np.maximum(par, 0)], -1)
        cols = [pg, frame_code[level]] if dup is None else [pg, frame_code[level], dup[level]]
        codes = _factorize_rows(cols)
        group[level] = codes + next_id
        next_id += int(codes.max()) + 1 if len(codes) else 0
    return group


def _merge_groups_deep(
    parent: np.ndarray, depth: np.ndarray, frame_code: np.ndarray, dup: np.ndarray | None
) -> np.ndarray:
    """:func:`merge_groups` of a deep forest in about log2(depth) passes, by doubling.

    After round k a node's label names the frames (and dups) of the 2**k nodes ending at
    it on its path from the root (the whole path when that is shorter): round k+1 pairs
    a node's label with that of its ancestor 2**k levels up. Nodes with equal labels at
    equal depths have equal paths: one group. Groups are then numbered as merge_groups
    numbers them: level by level, each level in the order of its first node.
    """
    n = len(parent)
    label = _factorize_rows([frame_code] if dup is None else [frame_code, dup])
    up = np.asarray(parent, dtype=INT).copy()  # the ancestor 2**k levels up, -1 past the root
    reach = 1
    while reach <= int(depth.max()):
        has = up >= 0
        at = np.maximum(up, 0)
        label = _factorize_rows([label, np.where(has, label[at], -1)])
        up = np.where(has, up[at], -1)
        reach *= 2
    group = _factorize_rows([depth, label])
    first = np.full(int(group.max()) + 1, n, INT)
    np.minimum.at(first, group, np.arange(n, dtype=INT))
    rank = np.empty(len(first), INT)
    rank[np.lexsort((first, depth[first]))] = np.arange(len(first), dtype=INT)
    return rank[group]


def _factorize_rows(cols: list[np.ndarray]) -> np.ndarray:
    """Dense codes (0..k-1) for the distinct rows of several integer columns (>= -1)."""
    n = len(cols[0])
    if n == 0:
        return np.zeros(0, INT)
    spans = [int(c.max()) + 2 for c in cols]
    if float(np.prod(np.array(spans, dtype=float))) < 2**62:  # one mixed-radix key
        key = np.zeros(n, INT)
        for col, span in zip(cols, spans):
            key = key * span + (col.astype(INT) + 1)
        return pd.factorize(key)[0].astype(INT)
    combined = np.zeros(n, INT)
    for col in cols:
        c, uniq = pd.factorize(col)
        combined, _ = pd.factorize(combined * (len(uniq) + 1) + c)
    return combined.astype(INT)


def occurrence(parent: np.ndarray, frame_code: np.ndarray) -> np.ndarray:
    """For each node, how many earlier siblings (by id) share its frame: 0, 1, 2 ..."""
    n = len(parent)
    if n == 0:
        return np.zeros(0, INT)
    keys = _factorize_rows([parent, frame_code])
    if int(keys.max()) + 1 == n:  # no two siblings share a frame (the usual case)
        return np.zeros(n, INT)
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    first = np.ones(n, bool)
    first[1:] = k[1:] != k[:-1]
    start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    out = np.empty(n, INT)
    out[order] = np.arange(n) - start
    return out


def squash_links(
    parent: np.ndarray, depth: np.ndarray, keep: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For every node, its closest proper ancestor with ``keep`` set (-1 if none), and how
    many of its proper ancestors are kept: a kept node's depth once the others are gone."""
    n = len(parent)
    nearest = np.full(n, -1, INT)
    above = np.zeros(n, INT)
    for level in level_order(depth)[1:]:
        par = parent[level]
        kept_par = keep[par]
        nearest[level] = np.where(kept_par, par, nearest[par])
        above[level] = above[par] + kept_par
    return nearest, above
