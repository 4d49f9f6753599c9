"""The proofs behind the design benchmark's "unattainable" rows: small pair coverings
solved exactly (benchmarks/merge.py's integer program), checked against designs we build."""

from __future__ import annotations

import pytest

from benchmarks.merge import _MAX_POINTS, max_points, target_blocks, unattainable
from perfweave.merge import pair_covering_design


@pytest.mark.peer("scipy")
@pytest.mark.parametrize("k", [4, 5, 6, 7, 8])
def test_four_blocks_stored_maximum_is_reproved(k):
    assert max_points(4, k, 60) == _MAX_POINTS[(4, k)]


@pytest.mark.peer("scipy")
def test_seven_blocks_of_seven_reproved():
    assert max_points(7, 7, 120) == _MAX_POINTS[(7, 7)] == 15


@pytest.mark.parametrize(("b", "k"), sorted(_MAX_POINTS))
def test_stored_maxima_are_reached_by_real_designs(b, k):
    """Each stored maximum m is attained: a covering of m points with b blocks of k exists
    (our search finds one), so the table never understates what b blocks can do."""
    most = _MAX_POINTS[(b, k)]
    design = pair_covering_design(most, k, seed=1, max_moves=400_000)
    assert design.uncovered_pairs() == []
    assert design.n_subexperiments <= b
    assert design.proven_bound <= b  # our bounds agree with the integer program


def test_unattainable_reasons():
    assert target_blocks(7, 4) == 4
    assert unattainable(7, 4, None) == "rank bound: >= 5 blocks"
    assert unattainable(16, 7, None) == "7 blocks of 7 cover at most 15 points (ILP)"
    # no S(2,7,43) exists, which lifts the bound from 43 to 44 only: the target is 47
    assert target_blocks(43, 7) == 47 and unattainable(43, 7, None) is None
    assert unattainable(20, 4, None) is None  # met by our designs
    assert unattainable(36, 8, None) is None  # target 25, rank bound 24: not proven either way
