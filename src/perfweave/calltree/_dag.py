"""Graph algorithms for DAGs (nodes with several parents), in plain Python.

Call DAGs come from small formats (gprof2dot, cProfile); trees, which every large format
produces, take the vectorised paths in graph.py and _forest.py instead. The semantics are
those of the tree paths: union merges equal frames along matching paths, squash rewires
each kept node to its nearest kept ancestors and merges same-frame siblings.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

INT = np.int64


def _children(g, n: int) -> list[int]:
    return g.children_of(n).tolist()


def union_dag(a, b):
    """Union of two graphs (either may be a DAG): (graph, map_a, map_b)."""
    from perfweave.calltree.graph import Graph, _joint_frames

    na = len(a)
    code, rank, table, row_of_code = _joint_frames([a, b])
    kids = [sorted((c for c in _children(a, n)), key=lambda c: (rank[c], c)) for n in range(na)]
    kids += [
        sorted((c + na for c in _children(b, n)), key=lambda c: (rank[c], c)) for n in range(len(b))
    ]
    new_of: dict[int, int] = {}
    reps: list[int] = []
    edges: set[tuple[int, int]] = set()

    def make(*olds: int) -> int:
        me = len(reps)
        reps.append(olds[0])
        for o in olds:
            new_of[o] = me
        return me

    def connect(parent: int, child: int, out: list[int]) -> None:
        if parent >= 0:
            edges.add((parent, child))
        out.append(child)

    def merge(left: list[int], right: list[int], parent: int) -> list[int]:
        out: list[int] = []
        i = j = 0
        while i < len(left) or j < len(right):
            x = left[i] if i < len(left) else None
            y = right[j] if j < len(right) else None
            if y is None or (x is not None and rank[x] < rank[y]):
                new = new_of.get(x)
                if new is None:
                    new = make(x)
                    merge(kids[x], [], new)
                connect(parent, new, out)
                i += 1
            elif x is None or rank[x] > rank[y]:
                new = new_of.get(y)
                if new is None:
                    new = make(y)
                    merge([], kids[y], new)
                connect(parent, new, out)
                j += 1
            else:
                mx, my = new_of.get(x), new_of.get(y)
                new = mx if mx is not None else my
                if new is None:
                    new = make(x, y)
                new_of.setdefault(x, new)
                new_of.setdefault(y, new)
                merge(kids[x] if mx is None else [], kids[y] if my is None else [], new)
                connect(parent, new, out)
                i += 1
                j += 1
        return out

    roots_a = sorted(a.root_ids.tolist(), key=lambda r: (rank[r], r))
    roots_b = sorted((r + na for r in b.root_ids.tolist()), key=lambda r: (rank[r], r))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * (na + len(b)) + 1000))
    try:
        merge(roots_a, roots_b, -1)
    finally:
        sys.setrecursionlimit(limit)
    src = np.array([e[0] for e in edges], dtype=INT)
    dst = np.array([e[1] for e in edges], dtype=INT)
    reps = np.asarray(reps, dtype=INT)
    union, pos = Graph._new(
        table.iloc[row_of_code[code[reps]]], None, (src, dst), codes=(code[reps], rank[reps])
    )
    old = np.array([new_of[i] for i in range(na + len(b))], dtype=INT)
    mapped = pos[old]
    return union, mapped[:na], mapped[na:]


def squash_dag(g, keep: np.ndarray):
    """Squash a DAG onto the kept nodes: (graph, old->new map with -1 for removed)."""
    from perfweave.calltree.graph import Graph

    n = len(g)
    connections: dict[int, set[int]] = {i: {i} for i in np.flatnonzero(keep).tolist()}
    roots: list[int] = []
    edges: set[tuple[int, int]] = set()
    visited: set[int] = set()

    def rewire(node: int, new_parent: int) -> set[int]:
        for c in connections.get(node, ()):
            if new_parent >= 0:
                edges.add((new_parent, c))
            elif c not in roots:
                roots.append(c)
        me = node if keep[node] else -1
        transitive: set[int] = set()
        if node not in visited:
            visited.add(node)
            for child in _children(g, node):
                transitive |= rewire(child, me if me >= 0 else new_parent)
        if me >= 0:
            return {me}
        connections.setdefault(node, set()).update(transitive)
        return connections[node]

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * n + 1000))
    try:
        for r in g.root_ids.tolist():
            rewire(r, -1)
    finally:
        sys.setrecursionlimit(limit)
    kept = np.flatnonzero(keep)
    index = np.full(n, -1, INT)
    index[kept] = np.arange(len(kept))
    src = np.array([index[s] for s, _ in edges], dtype=INT)
    dst = np.array([index[d] for _, d in edges], dtype=INT)
    code = g._code[kept]
    group = _merge_siblings(len(kept), src, dst, code)
    reps = np.full(int(group.max()) + 1 if len(group) else 0, len(kept), INT)
    np.minimum.at(reps, group, np.arange(len(kept), dtype=INT))
    gsrc, gdst = group[src], group[dst]
    ok = gsrc != gdst
    chosen = kept[reps]
    new, pos = Graph._new(
        g.frames.iloc[chosen], None, (gsrc[ok], gdst[ok]), codes=(g._code[chosen], g._rank[chosen])
    )
    out = np.full(n, -1, INT)
    out[kept] = pos[group]
    return new, out


def _merge_siblings(m: int, src: np.ndarray, dst: np.ndarray, code: np.ndarray) -> np.ndarray:
    """Union-find merge of nodes that are siblings (same parent group, or both roots)
    with equal frames, repeated until nothing changes. Returns dense group ids."""
    parent = list(range(m))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    has_parent = np.zeros(m, bool)
    has_parent[dst] = True
    changed = True
    while changed:
        changed = False
        seen: dict[tuple[int, int], int] = {}
        for r in np.flatnonzero(~has_parent).tolist():
            key = (-1, int(code[r]))
            if key in seen and find(seen[key]) != find(r):
                parent[find(r)] = find(seen[key])
                changed = True
            seen.setdefault(key, r)
        for s, d in zip(src.tolist(), dst.tolist()):
            key = (find(s), int(code[d]))
            if key in seen and find(seen[key]) != find(d):
                parent[find(d)] = find(seen[key])
                changed = True
            seen.setdefault(key, d)
    roots = np.array([find(i) for i in range(m)], dtype=INT)
    return pd.factorize(roots)[0].astype(INT)


def descendants(g, n: int) -> np.ndarray:
    """``n`` and every node reachable from it, each once."""
    seen = {n}
    stack = [n]
    while stack:
        for c in _children(g, stack.pop()):
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return np.fromiter(seen, INT)
