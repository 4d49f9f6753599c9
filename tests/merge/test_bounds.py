"""Lower bounds on pair covering designs: known covering numbers, and never above a design
that exists."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.errors import MergeError
from perfweave.merge import (
    covering_lower_bound,
    eigenvalue_bound,
    pair_covering_design,
    rank_bound,
    schonheim_bound,
)


@pytest.mark.parametrize(
    ("v", "k", "covering_number"),
    [
        (7, 4, 5),  # Mills: C(v,4,2) = Schönheim + 1 for v = 7, 9, 10
        (9, 4, 8),
        (16, 6, 10),  # Schönheim says 8; the rank bound 10 is met by our design
    ],
)
def test_rank_bound_reaches_known_covering_numbers(v, k, covering_number):
    assert schonheim_bound(v, k) < covering_number
    assert rank_bound(v, k) == covering_lower_bound(v, k) == covering_number
    design = pair_covering_design(v, k, seed=0)
    assert design.uncovered_pairs() == []
    assert design.n_subexperiments == design.proven_bound == covering_number  # optimal


def test_rank_bound_examples():
    # 29 HEMs, 8 PMCs: Schönheim 15; r = 4, h = 5, so b*8 >= 4b + 5(29-b): b >= 145/9
    assert schonheim_bound(29, 8) == 15 and rank_bound(29, 8) == 17
    assert rank_bound(12, 7) == 0  # h == r: no point can be light
    assert rank_bound(5, 2) == 0 and rank_bound(4, 6) == 0


@pytest.mark.parametrize("v", range(4, 61))
def test_triples_never_beat_fort_hedlund(v):
    # C(v,3,2) equals the Schönheim bound for every v (Fort and Hedlund 1958)
    assert rank_bound(v, 3) <= schonheim_bound(v, 3) == covering_lower_bound(v, 3)


def test_missing_steiner_systems_add_one():
    assert covering_lower_bound(43, 7) == schonheim_bound(43, 7) + 1 == 44
    assert covering_lower_bound(36, 6) == 43 and covering_lower_bound(46, 6) == 70
    assert covering_lower_bound(49, 7) == schonheim_bound(49, 7) == 56  # AG(2,7) exists
    assert covering_lower_bound(57, 8) == 57  # PG(2,7) exists


def test_trivial_sizes_and_errors():
    assert covering_lower_bound(5, 6) == 1 and covering_lower_bound(0, 4) == 0
    with pytest.raises(MergeError, match="cannot cover pairs"):
        schonheim_bound(5, 1)


@settings(max_examples=30, deadline=None)
@given(st.integers(5, 30), st.integers(3, 8))
def test_no_design_beats_the_proven_bound(v, k):
    design = pair_covering_design(v, k, seed=1, max_moves=100_000)
    assert design.uncovered_pairs() == []
    assert schonheim_bound(v, k) <= design.proven_bound <= design.n_subexperiments


@pytest.mark.parametrize(
    ("v", "k", "rank", "eigen"),
    [(24, 7, 15, 16), (25, 7, 16, 17), (21, 6, 15, 16), (36, 8, 24, 25), (29, 8, 17, 17)],
)
def test_eigenvalue_bound_sharpens_the_rank_bound(v, k, rank, eigen):
    assert rank_bound(v, k) == rank
    assert eigenvalue_bound(v, k) == covering_lower_bound(v, k) == eigen


def test_eigenvalue_bound_allows_every_design_we_build():
    # C(10,4,2) = 9 (Mills) and C(24,7,2) <= 17: the bounds stay at or below them
    assert eigenvalue_bound(10, 4) == 8
    design = pair_covering_design(24, 7, seed=0, max_moves=300_000)
    assert design.uncovered_pairs() == []
    assert design.proven_bound == 16 <= design.n_subexperiments
