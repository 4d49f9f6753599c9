"""Plan the subexperiments: which HEMs to read together in each run.

MUCH needs every pair of HEMs read together at least once: a *pair covering design*
C(v, k, 2) with v HEMs and blocks of k = ``n_pmcs``. No design can have fewer blocks than
the Schönheim bound ``ceil(v/k * ceil((v-1)/(k-1)))``; :func:`pair_covering_design` finds
one close to it. It starts from the smallest of a greedy covering, truncated projective
and affine planes, transversal designs with their groups covered recursively and (even
k >= 8) a twin blow-up; if that is above the bound it looks for a design with a cyclic
symmetry within 10 % of the bound (:mod:`perfweave.merge._orbits`); then simulated
annealing (Nurmela and Östergård's neighbourhood: make an uncovered pair covered by
swapping one point of a block) removes one block after each success. HRM only needs the
anchor in every run (:func:`hrm_design`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter

import numpy as np
import pandas as pd

from perfweave.errors import MergeError
from perfweave.merge._blocks import check_positive_int
from perfweave.merge._budget import CLOCK_EVERY, Budget
from perfweave.merge._geometry import (
    affine_plane,
    prime_power,
    projective_plane,
    transversal_design,
)
from perfweave.merge._orbits import orbit_cover, orbit_shapes
from perfweave.merge.bounds import covering_lower_bound, schonheim_bound

#: the search's default budget, in annealing moves (a few seconds on a laptop core)
DEFAULT_MOVES = 2_000_000
#: symmetric shapes tried per design, and the moves of their first runs
_MAX_SHAPES = 3
_FIRST_RUN = 100_000
#: moves at most for covering the groups of one transversal design
_GROUP_MOVES = 60_000
#: share of the moves (and most moves) the annealing has before the symmetric start
_ANNEAL_FIRST = 0.4
_ANNEAL_FIRST_MAX = 800_000


@dataclass(frozen=True)
class RunDesign:
    """Subexperiments to run: ``blocks`` lists the HEMs read together in each run.

    ``lower_bound`` is the least possible number of subexperiments for this kind of design
    (the Schönheim bound for pair coverings, counting only the non-anchor HEMs when an
    anchor is in every block); ``proven_bound`` the best lower bound perfweave can prove
    (:func:`perfweave.merge.covering_lower_bound`: Schönheim, Steiner or rank bound), so a
    design with ``proven_bound`` subexperiments is optimal.
    """

    hems: tuple[str, ...]
    n_pmcs: int
    blocks: tuple[tuple[str, ...], ...]
    lower_bound: int
    anchor: str | None = None
    kind: str = "pair covering"
    proven_bound: int = 0

    def __post_init__(self) -> None:
        if self.proven_bound < self.lower_bound:
            object.__setattr__(self, "proven_bound", self.lower_bound)

    @property
    def n_subexperiments(self) -> int:
        return len(self.blocks)

    def pair_counts(self) -> pd.DataFrame:
        """HEM x HEM count of subexperiments that read both (diagonal: reads of each HEM)."""
        pos = {h: i for i, h in enumerate(self.hems)}
        incidence = np.zeros((len(self.blocks), len(self.hems)), dtype=np.int64)
        for b, block in enumerate(self.blocks):
            incidence[b, [pos[h] for h in block]] = 1
        counts = incidence.T @ incidence
        return pd.DataFrame(counts, index=pd.Index(self.hems), columns=pd.Index(self.hems))

    def uncovered_pairs(self) -> list[tuple[str, str]]:
        """Pairs of HEMs never read together (empty for a pair covering design)."""
        counts = self.pair_counts().to_numpy()
        i, j = np.triu_indices(len(self.hems), 1)
        missing = counts[i, j] == 0
        return [(self.hems[a], self.hems[b]) for a, b in zip(i[missing], j[missing], strict=True)]

    def to_frame(self) -> pd.DataFrame:
        """One row per subexperiment, one column per PMC (empty PMCs are missing)."""
        rows = [list(b) + [None] * (self.n_pmcs - len(b)) for b in self.blocks]
        return pd.DataFrame(rows, columns=[f"pmc{i + 1}" for i in range(self.n_pmcs)])


def _names(hems: int | Sequence[str]) -> tuple[str, ...]:
    if isinstance(hems, int | np.integer) and not isinstance(hems, bool):
        if hems < 1:
            raise MergeError(f"need at least one HEM, got {hems}")
        return tuple(f"H{i + 1}" for i in range(int(hems)))
    names = tuple(str(h) for h in hems)
    if not names:
        raise MergeError("need at least one HEM")
    dup = sorted({h for h in names if names.count(h) > 1})
    if dup:
        raise MergeError(f"HEM(s) listed twice: {dup}")
    return names


def _split_anchor(names: tuple[str, ...], anchor: str | None) -> tuple[str, ...]:
    if anchor is None:
        return names
    if anchor not in names:
        raise MergeError(f"anchor HEM {anchor!r} is not among the HEMs {list(names)}")
    return tuple(h for h in names if h != anchor)


def hrm_design(hems: int | Sequence[str], n_pmcs: int, anchor: str) -> RunDesign:
    """HRM layout: the anchor in every subexperiment, the other HEMs in groups of n_pmcs - 1.

    The fewest runs HRM allows, ``ceil((v - 1) / (n_pmcs - 1))``; the last group may be
    smaller (its spare PMCs free).
    """
    names = _names(hems)
    check_positive_int("n_pmcs", n_pmcs)
    others = _split_anchor(names, anchor)
    if n_pmcs < 2 and others:
        raise MergeError("HRM needs n_pmcs >= 2: one PMC is taken by the anchor")
    size = n_pmcs - 1
    groups = [others[i : i + size] for i in range(0, len(others), size)] or [()]
    blocks = tuple((anchor, *g) for g in groups)
    return RunDesign(names, n_pmcs, blocks, len(groups), anchor, kind="hrm")


def _greedy(v: int, k: int, rng: random.Random) -> list[list[int]]:
    """Blocks built one at a time, each point chosen to cover the most uncovered pairs."""
    cov = [[False] * v for _ in range(v)]
    uncovered = v * (v - 1) // 2
    deficit = [v - 1] * v  # uncovered pairs at each point
    blocks = []
    while uncovered:
        start = max(range(v), key=lambda p: (deficit[p], rng.random()))
        block = [start]
        while len(block) < k:
            best, best_gain = -1, (-1, -1.0)
            for p in range(v):
                if p in block:
                    continue
                row = cov[p]
                gain = sum(1 for q in block if not row[q])
                key = (gain, deficit[p] + rng.random())
                if key > best_gain:
                    best, best_gain = p, key
            block.append(best)
        for a in range(k):
            for b in range(a + 1, k):
                p, q = block[a], block[b]
                if not cov[p][q]:
                    cov[p][q] = cov[q][p] = True
                    uncovered -= 1
                    deficit[p] -= 1
                    deficit[q] -= 1
        blocks.append(block)
    return blocks


class _Annealer:
    """Simulated annealing on a fixed number of blocks, minimising uncovered pairs."""

    def __init__(self, v: int, k: int, blocks: list[list[int]], rng: random.Random) -> None:
        self.v, self.k, self.rng = v, k, rng
        self.blocks = [list(b) for b in blocks]
        self.cov = [[0] * v for _ in range(v)]  # cov[p][q]: blocks holding both p and q
        self.where: list[set[int]] = [set() for _ in range(v)]
        for i, block in enumerate(self.blocks):
            self._add(i, block)
        self.unc: list[int] = []
        self.unc_pos = [-1] * (v * v)
        for a in range(v):
            for b in range(a + 1, v):
                if self.cov[a][b] == 0:
                    self._uncover(a * v + b)

    def _add(self, i: int, block: list[int]) -> None:
        cov = self.cov
        for p in block:
            self.where[p].add(i)
            row = cov[p]
            for q in block:
                if p != q:
                    row[q] += 1

    def _uncover(self, pid: int) -> None:
        self.unc_pos[pid] = len(self.unc)
        self.unc.append(pid)

    def _cover(self, pid: int) -> None:
        pos = self.unc_pos[pid]
        last = self.unc.pop()
        if last != pid:
            self.unc[pos] = last
            self.unc_pos[last] = pos
        self.unc_pos[pid] = -1

    def remove_weakest_block(self) -> None:
        """Drop the block covering the fewest pairs no other block covers."""
        v, cov = self.v, self.cov

        def unique(block: list[int]) -> int:
            return sum(1 for a in block for b in block if a < b and cov[a][b] == 1)

        i = min(range(len(self.blocks)), key=lambda j: unique(self.blocks[j]))
        block = self.blocks[i]
        for p in block:
            for q in block:
                if p != q:
                    cov[p][q] -= 1
                    if p < q and cov[p][q] == 0:
                        self._uncover(p * v + q)
        # move the last block into slot i
        last = len(self.blocks) - 1
        for p in block:
            self.where[p].discard(i)
        if i != last:
            moved = self.blocks[last]
            for p in moved:
                self.where[p].discard(last)
                self.where[p].add(i)
            self.blocks[i] = moved
        self.blocks.pop()

    def anneal(self, moves: int, budget: Budget, t_start: float = 0.4, t_end: float = 0.1) -> bool:
        """Cool from ``t_start`` to ``t_end`` over ``moves`` moves (fewer if the budget runs
        out); True as soon as every pair is covered. The moves made are charged to the
        budget."""
        v, k, cov, blocks, where = self.v, self.k, self.cov, self.blocks, self.where
        unc, rnd, exp = self.unc, self.rng.random, math.exp
        cover, uncover = self._cover, self._uncover
        cool = (t_end / t_start) ** (1.0 / max(moves, 1))
        temp = t_start
        limit = min(moves, budget.left)
        step = 0
        while step < limit and unc:
            if not step % CLOCK_EVERY and step and budget.out_of_time():
                break
            step += 1
            temp *= cool
            pid = unc[int(rnd() * len(unc))]
            x, y = divmod(pid, v)
            if rnd() < 0.5:
                x, y = y, x
            holders = where[x]
            if not holders:
                x, y = y, x
                holders = where[x]
                if not holders:
                    continue
            bi = tuple(holders)[int(rnd() * len(holders))]
            block = blocks[bi]
            # cov rows read through one C-level getter per row: the counts of a row
            # against every point of the block
            of_block = itemgetter(*block)
            cov_y = cov[y]
            gained = of_block(cov_y).count(0)  # pairs y would newly cover (y is not in it)
            z, delta = -1, k * k
            for c in block:
                if c == x:
                    continue
                # pairs only c covers in this block (the diagonal is 0, never 1)
                d = -gained + (cov_y[c] == 0) + of_block(cov[c]).count(1)
                if d < delta or (d == delta and rnd() < 0.5):
                    z, delta = c, d
            if delta > 0 and rnd() >= exp(-delta / temp):
                continue
            cov_z = cov[z]
            for w in block:
                if w != z:
                    c = cov_z[w] - 1
                    cov_z[w] = cov[w][z] = c
                    if c == 0:
                        uncover(min(z, w) * v + max(z, w))
                    c = cov_y[w] + 1
                    cov_y[w] = cov[w][y] = c
                    if c == 1:
                        cover(min(y, w) * v + max(y, w))
            block[block.index(z)] = y
            where[z].discard(bi)
            where[y].add(bi)
        budget.take(step)
        return not unc


def _restrict(blocks: list[list[int]], v: int) -> list[list[int]]:
    """Blocks on points ``0..v-1`` only, without blocks of fewer than two points."""
    out = [[p for p in b if p < v] for b in blocks]
    return [b for b in out if len(b) >= 2]


def _pack(blocks: list[list[int]], k: int) -> list[list[int]]:
    """Merge short blocks whose union fits in k points (first-fit decreasing)."""
    full = [b for b in blocks if len(b) >= k]
    short = sorted((b for b in blocks if len(b) < k), key=len, reverse=True)
    bins: list[list[int]] = []
    for block in short:
        for target in bins:
            if len(set(target) | set(block)) <= k:
                target[:] = sorted(set(target) | set(block))
                break
        else:
            bins.append(list(block))
    return full + bins


def _td_cover(v: int, k: int, q: int, rng: random.Random, budget: Budget) -> list[list[int]] | None:
    """TD(k, q) on k groups, each group plus the extra points covered recursively."""
    extra = v - k * q
    if extra < 0 and -extra >= q:
        return None
    blocks = transversal_design(k, q)
    if extra < 0:  # drop points from the end of the last group
        blocks = _restrict(blocks, v)
        groups = [list(range(g * q, min(g * q + q, v))) for g in range(k)]
        extras: list[int] = []
    else:
        groups = [list(range(g * q, g * q + q)) for g in range(k)]
        extras = list(range(k * q, v))
    sub_v = max(len(g) for g in groups) + len(extras)
    sub = _cover_pairs(sub_v, k, rng, 20_000, budget, depth=1)
    for group in groups:
        points = group + extras
        blocks.extend(_restrict([[points[p] for p in b if p < len(points)] for b in sub], v))
    return blocks


def _twins(v: int, k: int, rng: random.Random, budget: Budget) -> list[list[int]]:
    """Blow-up: cover ceil(v/2) super-points with blocks of k/2, each super-point a twin."""
    sub = _cover_pairs(-(-v // 2), k // 2, rng, 20_000, budget, depth=1)
    return _restrict([[p for s in b for p in (2 * s, 2 * s + 1)] for b in sub], v)


def _candidates(v: int, k: int, rng: random.Random, budget: Budget, depth: int):
    """Starting designs: greedy, and where they fit, geometry and transversal designs."""
    yield _greedy(v, k, rng)
    if depth > 0:
        return
    if k % 2 == 0 and k >= 8 and v > k:
        yield _twins(v, k, rng, budget.share(budget.left // 6))
    for q in range(2, v + 1):
        if prime_power(q) is None:
            continue
        if q + 1 <= k and q * q + q + 1 >= v and q * q + q + 1 <= 2 * v:
            yield _pack(_restrict(projective_plane(q), v), k)
        if q <= k and q * q >= v and q * q <= 2 * v:
            yield _pack(_restrict(affine_plane(q), v), k)
        if k <= q + 1 and k * q <= v + q - 1:
            # the groups are small: a short search covers them
            share = budget.share(min(budget.left // 6, _GROUP_MOVES))
            td = _td_cover(v, k, q, rng, share)
            if td is not None:
                yield _pack(td, k)


def _symmetric_start(
    v: int, k: int, bound: int, high: int, rng: random.Random, budget: Budget
) -> list[list[int]] | None:
    """A design with a cyclic symmetry and ``bound .. high`` blocks, or ``None``.

    Fresh runs over the shapes with the most room, in rounds of growing length (the
    length one search needs is heavy-tailed), until the budget is spent."""
    shapes = orbit_shapes(v, k, bound, high)[:_MAX_SHAPES]
    run = _FIRST_RUN
    while shapes and not budget.spent():
        for n, t, f, m in shapes:
            found = orbit_cover(n, t, f, m, k, rng, budget.share(run))
            if found is not None:
                return found
            if budget.spent():
                break
        run = run * 3 // 2
    return None


def _pad(blocks: list[list[int]], v: int, k: int, rng: random.Random) -> list[list[int]]:
    """Fill short blocks up to k points with random other points (only adds coverage)."""
    out = []
    for block in blocks:
        block = list(dict.fromkeys(block))
        free = [p for p in range(v) if p not in block]
        rng.shuffle(free)
        out.append(block + free[: k - len(block)])
    return out


def _descend(
    annealer: _Annealer, best: list[list[int]], bound: int, iterations: int, budget: Budget
) -> list[list[int]]:
    """Remove a block, re-cover every pair, repeat until the bound or the budget is spent;
    the smallest covering seen. Resumable: a level left unsolved is taken up again.

    Each failed attempt at a level cools twice as slowly as the one before: near the
    optimum a quick quench repeated never finds what one slow cooling finds (39 blocks of
    7 for 39 HEMs: a million-move cooling, where a hundred 100,000-move ones fail)."""
    attempt = iterations
    while len(best) > bound and not budget.spent():
        if len(annealer.blocks) == len(best):
            annealer.remove_weakest_block()
            attempt = iterations
        if annealer.anneal(attempt, budget):
            best = [list(b) for b in annealer.blocks]
        else:
            attempt *= 2
    return best


def _cover_pairs(
    v: int, k: int, rng: random.Random, iterations: int, budget: Budget, depth: int = 0
) -> list[list[int]]:
    if v <= k:
        return [list(range(v))]
    if k == 2:
        return [[a, b] for a in range(v) for b in range(a + 1, v)]
    bound = covering_lower_bound(v, k)
    best = min(_candidates(v, k, rng, budget, depth), key=len)
    annealer = _Annealer(v, k, _pad(best, v, k, rng), rng)
    if depth > 0:
        return _descend(annealer, best, bound, iterations, budget)
    # annealing first; then, wherever that stays above the bound, a symmetric start with
    # fewer blocks (within 10 % of the bound)
    first = budget.share(min(int(_ANNEAL_FIRST * budget.left), _ANNEAL_FIRST_MAX))
    best = _descend(annealer, best, bound, iterations, first)
    high = min(len(best) - 1, math.floor(1.1 * bound + 1e-9))
    if high >= bound:
        symmetric = _symmetric_start(v, k, bound, high, rng, budget.share(budget.left // 2))
        if symmetric is not None:
            best = symmetric
            annealer = _Annealer(v, k, _pad(best, v, k, rng), rng)
    return _descend(annealer, best, bound, iterations, budget)


def pair_covering_design(
    hems: int | Sequence[str],
    n_pmcs: int,
    anchor: str | None = None,
    seed: int | None = None,
    *,
    iterations: int = 100_000,
    max_moves: int = DEFAULT_MOVES,
    time_limit: float | None = None,
) -> RunDesign:
    """Subexperiments of ``n_pmcs`` HEMs in which every pair of HEMs is read together.

    ``hems`` is a list of names or a count (names ``H1``...). With ``anchor``, that HEM is
    in every subexperiment and the others are covered in blocks of ``n_pmcs - 1``. The
    search removes one subexperiment at a time while annealing can re-cover every pair
    (``iterations`` moves in the first attempt at each size, twice as many in each next
    one), ``max_moves`` annealing moves in all; the result always covers every pair, and
    the search stops early when it meets the best lower bound it can prove
    (``proven_bound``).

    The search is bounded by work, not by the clock: a given ``seed`` returns the same
    design on any machine, busy or quiet (about 2.5 s per million moves here).
    ``time_limit`` (seconds) is an opt-in cap on top; a search it stops depends on the
    machine's speed.
    """
    names = _names(hems)
    check_positive_int("n_pmcs", n_pmcs)
    check_positive_int("iterations", iterations)
    check_positive_int("max_moves", max_moves)
    if time_limit is not None and not time_limit > 0:
        raise MergeError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    others = _split_anchor(names, anchor)
    k = n_pmcs - (anchor is not None)
    v = len(others)
    if v > k and k < 2:
        raise MergeError(
            f"n_pmcs={n_pmcs} cannot read two HEMs together"
            + (" besides the anchor" if anchor is not None else "")
        )
    rng = random.Random(seed)
    budget = Budget.of(max_moves, time_limit)
    blocks = _cover_pairs(v, k, rng, iterations, budget) if v else [[]]
    lead = (anchor,) if anchor is not None else ()
    out = tuple(lead + tuple(others[p] for p in sorted(b)) for b in blocks)
    lower = schonheim_bound(v, k) if v else 1
    proven = covering_lower_bound(v, k) if v else 1
    return RunDesign(names, n_pmcs, out, lower, anchor, proven_bound=proven)
