from __future__ import annotations

import itertools
import random
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.errors import MergeError
from perfweave.merge import hrm_design, pair_covering_design, schonheim_bound
from perfweave.merge._budget import Budget
from perfweave.merge._geometry import (
    affine_plane,
    field_tables,
    prime_power,
    projective_plane,
    transversal_design,
)
from perfweave.merge._orbits import orbit_cover, orbit_shapes, pair_classes


def _pair_counts(blocks, v):
    counts = np.zeros((v, v), dtype=int)
    for block in blocks:
        for a, b in itertools.combinations(block, 2):
            counts[a, b] += 1
            counts[b, a] += 1
    return counts


@pytest.mark.parametrize(
    ("v", "k", "bound"), [(50, 6, 84), (7, 3, 7), (16, 6, 8), (13, 4, 13), (6, 6, 1), (10, 2, 45)]
)
def test_schonheim_bound(v, k, bound):
    assert schonheim_bound(v, k) == bound


def test_vignette_run_count_is_below_the_bound():
    # mergingTools' vignette plans 82 subexperiments for 50 HEMs on 6 PMCs: impossible
    assert schonheim_bound(50, 6) > 82


@pytest.mark.parametrize("q", [2, 3, 4, 5, 7, 8, 9])
def test_projective_plane_covers_each_pair_once(q):
    lines = projective_plane(q)
    v = q * q + q + 1
    assert len(lines) == v and all(len(line) == q + 1 for line in lines)
    counts = _pair_counts(lines, v)
    assert (counts[~np.eye(v, dtype=bool)] == 1).all()


@pytest.mark.parametrize(("k", "q"), [(4, 4), (6, 8), (5, 5), (8, 7), (3, 9)])
def test_transversal_design(k, q):
    blocks = transversal_design(k, q)
    assert len(blocks) == q * q
    counts = _pair_counts(blocks, k * q)
    group = np.arange(k * q) // q
    across = group[:, None] != group[None, :]
    assert (counts[across] == 1).all() and (counts[~across] == 0).all()


def test_field_tables_are_a_field():
    for q in (4, 8, 9, 16):
        add, mul = field_tables(q)
        nonzero = mul[1:, 1:]
        assert all(sorted(row) == list(range(1, q)) for row in nonzero)  # inverses exist
        assert all(sorted(row) == list(range(q)) for row in add)
    assert prime_power(12) is None and prime_power(27) == (3, 3)
    assert len(affine_plane(4)) == 20


@pytest.mark.parametrize(("v", "k"), [(5, 3), (12, 4), (16, 6), (23, 5), (31, 6), (30, 7), (9, 9)])
def test_designs_cover_every_pair(v, k):
    design = pair_covering_design(v, k, seed=1, max_moves=100_000)
    assert design.uncovered_pairs() == []
    assert all(len(b) <= k and len(set(b)) == len(b) for b in design.blocks)
    assert design.lower_bound == schonheim_bound(v, k)
    assert design.n_subexperiments >= design.lower_bound


def test_exact_designs_where_planes_exist():
    assert pair_covering_design(31, 6, seed=0, max_moves=200_000).n_subexperiments == 31
    assert pair_covering_design(49, 7, seed=0, max_moves=200_000).n_subexperiments == 56


def test_vignette_size_within_ten_percent():
    design = pair_covering_design(50, 6, seed=0, max_moves=800_000)
    assert design.uncovered_pairs() == []
    assert design.n_subexperiments <= 1.1 * 84


def test_named_hems_with_anchor():
    hems = [f"E{i}" for i in range(16)]
    design = pair_covering_design(hems, 6, anchor="E3", seed=2, max_moves=200_000)
    assert all(block[0] == "E3" for block in design.blocks)
    assert design.uncovered_pairs() == []
    assert design.lower_bound == schonheim_bound(15, 5)
    counts = design.pair_counts()
    assert counts.loc["E3", "E3"] == design.n_subexperiments
    frame = design.to_frame()
    assert frame.shape == (design.n_subexperiments, 6)


def test_hrm_design_layout():
    hems = ["CYC"] + [f"H{i}" for i in range(12)]
    design = hrm_design(hems, 6, "CYC")
    assert design.n_subexperiments == 3 == design.lower_bound
    assert [len(b) for b in design.blocks] == [6, 6, 3]
    assert sorted(h for b in design.blocks for h in b[1:]) == sorted(hems[1:])


def test_bad_design_requests():
    with pytest.raises(MergeError, match="anchor"):
        hrm_design(["a", "b"], 2, "z")
    with pytest.raises(MergeError, match="cannot read two HEMs"):
        pair_covering_design(5, 2, anchor="H1")
    with pytest.raises(MergeError, match="listed twice"):
        pair_covering_design(["a", "a", "b"], 2)
    with pytest.raises(MergeError, match="positive integer"):
        pair_covering_design(5, 0)


def _covering_exists(v: int, k: int, b: int) -> bool:
    """Exhaustive search (first block fixed by symmetry): is there a C(v, k, 2) with b blocks?"""
    pair = {p: i for i, p in enumerate(itertools.combinations(range(v), 2))}
    masks = np.array(
        [
            sum(1 << pair[p] for p in itertools.combinations(block, 2))
            for block in itertools.combinations(range(v), k)
        ],
        dtype=np.uint64,
    )
    full = np.uint64((1 << len(pair)) - 1)
    first, rest = masks[0], masks[1:]
    for combo in itertools.combinations(range(len(rest)), b - 2):
        acc = first
        for c in combo:
            acc |= rest[c]
        if np.any((acc | rest) == full):
            return True
    return False


@pytest.mark.parametrize(("v", "k"), [(7, 4), (9, 5)])
def test_small_cases_where_the_bound_is_unreachable(v, k):
    # Schönheim says 4, but no 4-block covering exists: the optimum, 5, is 25% above it
    assert schonheim_bound(v, k) == 4
    assert not _covering_exists(v, k, 4)
    assert _covering_exists(v, k, 5)
    assert pair_covering_design(v, k, seed=0, max_moves=100_000).n_subexperiments == 5


def _shift(p: int, n: int, t: int) -> int:
    return p if p >= t * n else p - p % n + (p + 1) % n


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 9), st.integers(1, 4), st.integers(0, 4))
def test_pair_classes_are_the_orbits_of_pairs_under_the_shift(n, t, f):
    table = np.array(pair_classes(n, t, f))
    v = t * n + f
    p, q = np.triu_indices(v, 1)
    ids = table[p, q]
    # the shift keeps each class, and pairs in one class are joined by shifting
    sp = np.array([_shift(x, n, t) for x in range(v)])
    assert (table[sp[p], sp[q]] == ids).all()
    orbit_of = {}
    for a, b, c in zip(p, q, ids, strict=True):
        pairs = {(a, b)}
        x, y = a, b
        for _ in range(n):
            x, y = _shift(x, n, t), _shift(y, n, t)
            pairs.add((min(x, y), max(x, y)))
        orbit_of.setdefault(c, frozenset(pairs))
        assert orbit_of[c] == frozenset(pairs)
    within = t * (n // 2) + t * (t - 1) // 2 * n + f * t + f * (f - 1) // 2
    assert len(orbit_of) == within == ids.max() + 1


@pytest.mark.parametrize(
    ("shape", "k"), [((39, 1, 0, 1), 7), ((13, 3, 0, 3), 7), ((20, 2, 0, 2), 7), ((9, 3, 2, 5), 5)]
)
def test_symmetric_designs_cover_every_pair(shape, k):
    n, t, f, m = shape
    v = t * n + f
    blocks = orbit_cover(n, t, f, m, k, random.Random(0), Budget(10**8))
    assert blocks is not None and len(blocks) == m * n
    assert all(len(set(b)) == k for b in blocks)
    counts = _pair_counts(blocks, v)
    assert (counts[~np.eye(v, dtype=bool)] >= 1).all()
    # the design is its own image under the shift
    shifted = {tuple(sorted(_shift(p, n, t) for p in b)) for b in blocks}
    assert shifted == {tuple(sorted(b)) for b in blocks}


def test_orbit_shapes_fit_the_window():
    shapes = orbit_shapes(40, 7, 40, 44)
    assert (20, 2, 0, 2) in shapes
    for n, t, f, m in shapes:
        assert t * n + f == 40 and 40 <= m * n <= 44 and f < 7
    assert orbit_cover(7, 1, 0, 1, 3, random.Random(0), Budget(400_000)) is not None
    assert orbit_cover(8, 1, 0, 1, 3, random.Random(0), Budget(400_000)) is None  # 4 > 3


@pytest.mark.parametrize(("v", "k"), [(39, 7), (40, 7)])
def test_symmetric_start_reaches_the_bound(v, k):
    # the default budget: the search stops as soon as it meets the bound
    design = pair_covering_design(v, k, seed=0)
    assert design.uncovered_pairs() == []
    assert design.n_subexperiments == schonheim_bound(v, k) == v


def test_a_seeded_search_does_not_depend_on_the_clock(monkeypatch):
    """Same seed, same design, however slow the machine: a clock that jumps an hour at
    every reading (a machine 10^6 times slower) changes nothing without a time cap."""
    quiet = pair_covering_design(24, 6, seed=3, max_moves=300_000)
    now = [0.0]

    def slow_clock() -> float:
        now[0] += 3600.0
        return now[0]

    monkeypatch.setattr(time, "perf_counter", slow_clock)
    busy = pair_covering_design(24, 6, seed=3, max_moves=300_000)
    assert busy.blocks == quiet.blocks
    assert busy.uncovered_pairs() == []
    # the opt-in cap does read the clock: stopped at once, it still covers every pair
    capped = pair_covering_design(24, 6, seed=3, max_moves=300_000, time_limit=1.0)
    assert capped.uncovered_pairs() == []
    assert capped.n_subexperiments >= quiet.n_subexperiments


def test_the_search_budget_is_checked():
    with pytest.raises(MergeError, match="max_moves"):
        pair_covering_design(10, 4, max_moves=0)
    with pytest.raises(MergeError, match="time_limit"):
        pair_covering_design(10, 4, time_limit=-1.0)
