"""Call graphs with recursion (cProfile, gprof2dot) made acyclic for the DAG core.

Flat profilers record caller -> callee edges per function, so recursion shows up as a
self edge or a longer cycle. A depth-first search from the roots (functions nobody calls,
in the file's order) keeps every edge except those that return to a function still on
the search path (the "back edges"); what is left is a DAG with the same nodes and every
other call edge. A cycle that no root reaches starts its own search at its first node.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def back_edges(n: int, src: Sequence[int], dst: Sequence[int]) -> np.ndarray:
    """Mask of the edges (``src[k] -> dst[k]``) that close a cycle, found by DFS."""
    src_a = np.asarray(src, dtype=np.int64)
    dst_a = np.asarray(dst, dtype=np.int64)
    out_edges: list[list[int]] = [[] for _ in range(n)]
    for k, s in enumerate(src_a.tolist()):
        out_edges[s].append(k)
    indeg = np.bincount(dst_a, minlength=n)
    state = np.zeros(n, np.int8)  # 0 new, 1 on the search path, 2 done
    back = np.zeros(len(src_a), bool)
    dst_list = dst_a.tolist()
    starts = [v for v in range(n) if indeg[v] == 0] + list(range(n))
    for start in starts:
        if state[start]:
            continue
        state[start] = 1
        stack = [(start, iter(out_edges[start]))]
        while stack:
            node, edges = stack[-1]
            k = next(edges, None)
            if k is None:
                state[node] = 2
                stack.pop()
                continue
            child = dst_list[k]
            if state[child] == 1:
                back[k] = True
            elif state[child] == 0:
                state[child] = 1
                stack.append((child, iter(out_edges[child])))
    return back
