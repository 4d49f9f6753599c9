"""Forest algorithms (calltree/_forest.py) on deep trees: the Euler-tour layout and the
merging by doubling give what the level-by-level versions give, cycles included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.calltree import _forest
from perfweave.calltree._intervals import depth_of
from perfweave.errors import GraphError


@st.composite
def forests(draw, cycles: bool = False):
    """A parent array (ids shuffled) with sort keys; with ``cycles``, one node may be
    re-parented so that some nodes no longer reach a root."""
    n = draw(st.integers(1, 40))
    parent = [-1] + [
        draw(st.integers(-1, i - 1)) if draw(st.booleans()) else i - 1 for i in range(1, n)
    ]
    perm = np.array(draw(st.permutations(range(n))))
    inv = np.argsort(perm)
    parent = np.array(parent)[perm]
    parent = np.where(parent >= 0, inv[np.maximum(parent, 0)], -1)
    if cycles and n > 2:
        k, to = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        if k != to:
            parent[k] = to
    key = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    return parent.astype(np.int64), key.astype(np.int64)


def _outcome(fn):
    try:
        return [a.tolist() for a in fn()]
    except GraphError as exc:
        return str(exc)


@settings(max_examples=300, deadline=None)
@given(forests(cycles=True))
def test_euler_layout_is_the_level_layout(forest):
    parent, key = forest
    ptr, idx, roots = _forest.children_csr(parent, key)
    levels = _outcome(lambda: _forest.tree_layout(parent, key))
    euler = _outcome(lambda: _forest.euler_layout(parent, ptr, idx, roots))
    assert euler == levels


@settings(max_examples=300, deadline=None)
@given(forests(), st.booleans())
def test_merging_by_doubling_is_merging_level_by_level(forest, with_dup):
    parent, key = forest
    depth = depth_of(parent)
    code = key % 2
    dup = (key // 2) if with_dup else None
    expected = _forest.merge_groups(parent, depth, code, dup)  # level by level: shallow
    assert _forest._merge_groups_deep(parent, depth, code, dup).tolist() == expected.tolist()


@pytest.mark.parametrize("n", [_forest.DEEP_LEVELS + 1, 30_000])
def test_a_deep_chain_is_laid_out_and_merged(n):
    """A chain deeper than DEEP_LEVELS takes the Euler tour and the doubling; a second
    chain of the same frames merges into the first."""
    parent = np.arange(-1, n - 1)
    pos, depth, size = _forest.tree_layout(parent, np.zeros(n, np.int64))
    assert pos.tolist() == depth.tolist() == list(range(n))
    assert size.tolist() == list(range(n, 0, -1))
    twice = np.r_[parent, np.where(parent >= 0, parent + n, -1)]
    group = _forest.merge_groups(twice, np.r_[depth, depth], np.r_[depth, depth] % 7)
    assert group.tolist() == list(range(n)) * 2


def test_a_cycle_below_a_deep_chain_is_named():
    n = _forest.DEEP_LEVELS + 10
    parent = np.r_[np.arange(-1, n - 1), [n + 1, n]]  # two nodes holding each other
    with pytest.raises(GraphError, match=rf"node {n} is not reachable from any root"):
        _forest.tree_layout(parent, np.zeros(n + 2, np.int64))
