"""Calls as intervals (calltree/_intervals.py): which call holds which, against a direct
reading of the rule, and the depth of a forest by pointer doubling."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.calltree._intervals import depth_of, nest


def _by_the_rule(thread, start, end, start_tie, end_tie) -> list[int]:
    """Each interval's parent read off the rule: of the intervals of its thread that hold
    it ((start, start tie) smaller, (end, end tie) larger), the last in (start, start tie,
    longest first, file order) order."""
    n = len(start)
    order = sorted(
        range(n), key=lambda i: (thread[i], start[i], start_tie[i], -end[i], -end_tie[i], i)
    )
    rank = {i: k for k, i in enumerate(order)}
    parents = []
    for i in range(n):
        holders = [
            j
            for j in range(n)
            if thread[j] == thread[i]
            and (start[j], start_tie[j]) < (start[i], start_tie[i])
            and (end[j], end_tie[j]) > (end[i], end_tie[i])
        ]
        parents.append(max(holders, key=rank.__getitem__) if holders else -1)
    return parents


intervals = st.lists(
    st.tuples(
        st.integers(0, 2),  # thread
        st.integers(0, 8),  # start
        st.integers(0, 8),  # length
        st.integers(0, 2),  # start tie
        st.integers(-2, 2),  # end tie
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=300, deadline=None)
@given(intervals, st.booleans())
def test_nest_follows_the_rule(spec, with_ties):
    """Random intervals, equal times, overlaps that do not nest, several threads: the
    parents are the rule's, and each depth is its parent's plus one."""
    thread, start, length, s_tie, e_tie = (np.array(c) for c in zip(*spec))
    end = start + length
    if not with_ties:
        s_tie, e_tie = np.zeros_like(s_tie), np.zeros_like(e_tie)
    parent, depth = nest(thread, start.astype(float), end.astype(float), s_tie, e_tie)
    assert parent.tolist() == _by_the_rule(thread, start, end, s_tie, e_tie)
    assert all(depth[i] == (0 if p < 0 else depth[p] + 1) for i, p in enumerate(parent))


def test_nest_of_a_deep_chain_and_of_siblings():
    n = 50_000
    start = np.arange(n, dtype=float)
    parent, depth = nest(np.zeros(n, np.int64), start, 2.0 * n - start)
    assert parent.tolist() == list(range(-1, n - 1)) and depth[-1] == n - 1
    parent, depth = nest(np.zeros(n, np.int64), start, start + 0.5)
    assert (parent == -1).all() and (depth == 0).all()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=40))
def test_depth_of_counts_the_ancestors(picks):
    parent = np.array([-1] + [p % (i + 1) if p < 25 else -1 for i, p in enumerate(picks[1:])])
    depth = depth_of(parent)
    for i, p in enumerate(parent):
        hops, at = 0, p
        while at >= 0:
            hops, at = hops + 1, parent[at]
        assert depth[i] == hops
