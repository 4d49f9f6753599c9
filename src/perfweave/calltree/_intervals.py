"""Calls as time intervals: which call holds which, found in O(n log n) numpy steps.

A trace records each call as an interval on a thread; the calltree is how the intervals
nest. :func:`nest` gives every interval its parent: of the intervals of the same thread
that strictly contain it (start before it, end after it), the one that comes last in
(start, longest first) order. Where intervals nest properly that is the innermost one;
where two overlap without nesting (a broken trace) it is still one that contains it.

Ties are broken by optional secondary keys: an interval contains another when its
(start, start tie) pair is smaller and its (end, end tie) pair larger. With ties all 0,
two intervals that share a start or an end are not nested (Hatchet's rule for traces).

The search is the "previous greater element" of each interval's end among the intervals
that start before it, done for all intervals at once with a sparse table of range maxima:
about log2(n) numpy passes whatever the depth (a pass per depth level made a 100,000-deep
trace take minutes).
"""

from __future__ import annotations

import numpy as np

INT = np.int64


def nest(
    thread: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    start_tie: np.ndarray | None = None,
    end_tie: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Parent (index, -1 for none) and depth of each interval (see the module docstring).

    ``thread`` (integer codes) keeps threads apart; ``start_tie``/``end_tie`` order
    intervals whose start/end times are equal (default: not ordered, so not nested).
    """
    n = len(start)
    parent = np.full(n, -1, INT)
    if not n:
        return parent, np.zeros(0, INT)
    zeros = np.zeros(n, INT)
    s_rank = _dense_rank(np.asarray(start), zeros if start_tie is None else start_tie)
    e_rank = _dense_rank(np.asarray(end), zeros if end_tie is None else end_tie)
    th = np.asarray(thread, dtype=INT)
    th = np.unique(th, return_inverse=True)[1].reshape(-1).astype(INT)  # codes 0..k-1
    if float(n) ** 3 < 2**62:  # (thread, start, longest first) as one integer key
        order = np.argsort((th * n + s_rank) * n + (n - 1 - e_rank), kind="stable")
    else:
        order = np.lexsort((np.arange(n), -e_rank, s_rank, th))
    t, s, e = th[order], s_rank[order], e_rank[order]
    idx = np.arange(n, dtype=INT)
    thread_first = _run_first(t)
    start_first = _run_first(t * (n + 1) + s)  # first of each (thread, start) run
    found = _previous_greater(e, t, lo=thread_first, hi=start_first)
    ok = found >= 0
    parent[order[idx[ok]]] = order[found[ok]]
    return parent, depth_of(parent)


def depth_of(parent: np.ndarray) -> np.ndarray:
    """Depth of every node of a forest given as parent indices (-1 for roots), by pointer
    doubling: about log2(depth) numpy passes."""
    parent = np.asarray(parent, dtype=INT)
    hops = (parent >= 0).astype(INT)  # edges from each node up to jump[node]
    jump = parent.copy()
    live = np.flatnonzero(jump >= 0)
    while len(live):
        up = jump[live]
        hops[live], jump[live] = hops[live] + hops[up], jump[up]  # both from the old arrays
        live = live[jump[live] >= 0]
    return hops


def _dense_rank(value: np.ndarray, tie: np.ndarray) -> np.ndarray:
    """0-based rank of each (value, tie) pair, equal pairs equal ranks."""
    order = np.lexsort((tie, value))
    v, t = value[order], np.asarray(tie)[order]
    new = np.r_[True, (v[1:] != v[:-1]) | (t[1:] != t[:-1])]
    rank = np.empty(len(value), INT)
    rank[order] = np.cumsum(new) - 1
    return rank


def _run_first(key: np.ndarray) -> np.ndarray:
    """For each position of a sorted key, the first position of its run of equal keys."""
    new = np.r_[True, key[1:] != key[:-1]]
    return np.maximum.accumulate(np.where(new, np.arange(len(key), dtype=INT), 0))


def _previous_greater(
    value: np.ndarray, segment: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> np.ndarray:
    """For each i, the largest j with lo[i] <= j < hi[i] and value[j] > value[i], or -1.

    ``value`` holds ranks (0..n-1), ``segment`` sorted codes with ``lo`` the first position
    of each one's run. Two checks settle most: the position just before ``hi`` (a call's
    parent in a well-nested trace) and the running maximum of the segment up to it (none).
    The rest: binary lifting over a sparse table of maxima. From hi[i], skip leftwards the
    longest block (tried in powers of two, largest first) whose maximum is <= value[i]; the
    position just left of where the skipping stops is the answer.
    """
    n = len(value)
    found = np.full(n, -1, INT)
    before = hi - 1
    has = before >= lo
    at = np.maximum(before, 0)
    near = has & (value[at] > value)
    found[near] = before[near]
    running = np.maximum.accumulate(segment * (n + 1) + value) - segment * (n + 1)
    rest = np.flatnonzero(has & ~near & (running[at] > value))
    if not len(rest):
        return found
    small = value.astype(np.int32) if n < 2**31 else value
    table = [small]
    while 2 ** len(table) <= n:
        half, prev = 2 ** (len(table) - 1), table[-1]
        table.append(np.maximum(prev[:-half], prev[half:]))
    x, low, pos = small[rest], lo[rest], hi[rest].astype(INT)
    for k in range(len(table) - 1, -1, -1):
        step = 2**k
        cand = np.flatnonzero(pos - step >= low)
        if len(cand):
            skip = cand[table[k][pos[cand] - step] <= x[cand]]
            pos[skip] -= step
    found[rest] = pos - 1  # the running maximum says a greater value is there
    return found
