"""Pair coverings with a prescribed cyclic symmetry, as starting designs for the search.

The points are ``t`` orbits of size ``n`` under the shift ``x -> x + 1 (mod n)`` plus ``f``
fixed points: point ``j*n + r`` is residue ``r`` of orbit ``j``, points ``t*n ..`` are fixed.
A design is every shift of ``m`` *base blocks*, so it has ``m * n`` blocks, and a pair is
covered exactly when its *class* (orbit pair and residue difference, or fixed point and
orbit) occurs in some base block. Searching the few base blocks is far smaller than
searching the whole design, and near the Schönheim bound such symmetric designs often
exist where an unstructured search stalls (the single-orbit case ``t=1, f=0, m=1`` is a
cyclic difference cover, e.g. 39 blocks of 7 for 39 points, the bound).
"""

from __future__ import annotations

import math
import random

from perfweave.merge._budget import CLOCK_EVERY, Budget


def pair_classes(n: int, t: int, f: int) -> list[list[int]]:
    """``v x v`` class id of each pair (diagonal -1) for t orbits of n and f fixed points."""
    v = t * n + f
    tn = t * n
    ids: dict[tuple[int, ...], int] = {}
    table = [[-1] * v for _ in range(v)]
    for p in range(v):
        for q in range(p + 1, v):
            if q >= tn:  # q fixed: class (q, p's orbit or p itself when fixed)
                key: tuple[int, ...] = (q, p if p >= tn else -1 - p // n)
            else:  # both in orbits, p's orbit <= q's orbit
                d = (q % n - p % n) % n
                if p // n == q // n:
                    d = min(d, n - d)
                key = (p // n, q // n, d)
            table[p][q] = table[q][p] = ids.setdefault(key, len(ids))
    return table


def _expand(base: list[list[int]], n: int, t: int) -> list[list[int]]:
    """Every shift of every base block (fixed points stay), without repeats."""
    tn = t * n
    out: dict[tuple[int, ...], None] = {}
    for block in base:
        for s in range(n):
            shifted = tuple(sorted(p if p >= tn else p - p % n + (p + s) % n for p in block))
            out.setdefault(shifted, None)
    return [list(b) for b in out]


def orbit_cover(
    n: int, t: int, f: int, m: int, k: int, rng: random.Random, budget: Budget
) -> list[list[int]] | None:
    """A pair covering of ``t*n + f`` points made of the shifts of ``m`` base k-blocks.

    Simulated annealing over the base blocks on the number of uncovered pair classes: a
    move picks an uncovered class and a base block, and brings in a point that makes a
    pair of that class with a point of the block, in place of another of its points.
    ``None`` when the budget's moves run out first (or the classes cannot fit in m
    blocks); the moves made are charged to the budget.
    """
    v = t * n + f
    if k > v:
        return None
    table = pair_classes(n, t, f)
    n_cls = max(max(row) for row in table) + 1
    if n_cls > m * k * (k - 1) // 2:
        return None
    partners: list[dict[int, list[int]]] = [{} for _ in range(v)]  # point -> class -> points
    for p, row in enumerate(table):
        for q, c in enumerate(row):
            if c >= 0:
                partners[p].setdefault(c, []).append(q)
    state = _ClassCounts(n_cls)
    base = [rng.sample(range(v), k) for _ in range(m)]
    for block in base:
        for a in range(k):
            row = table[block[a]]
            for b in range(a + 1, k):
                state.add(row[block[b]])
    unc, rnd, exp = state.uncovered, rng.random, math.exp
    temp, step, limit = 0.6, 0, budget.left
    while unc:
        if step >= limit:
            budget.take(step)
            return None
        step += 1
        if not step & 1023:
            if not step % CLOCK_EVERY and budget.out_of_time():
                budget.take(step)
                return None
            temp = temp * 0.97 if temp > 0.15 else 0.6  # cool, then reheat to escape
        block = base[int(rnd() * m)]
        keep = int(rnd() * k)
        news = partners[block[keep]].get(unc[int(rnd() * len(unc))])
        if news is None:
            continue
        new = news[int(rnd() * len(news))]
        if new in block:
            continue
        i = int(rnd() * (k - 1))
        i += i >= keep
        old = block[i]
        delta = state.trade(table[old], table[new], block, i)
        if delta > 0 and rnd() >= exp(-delta / temp):
            state.trade(table[new], table[old], block, i)
            continue
        block[i] = new
    budget.take(step)
    return _expand(base, n, t)


class _ClassCounts:
    """How many base-block pairs fall in each class, and the list of uncovered classes."""

    def __init__(self, n_cls: int) -> None:
        self.count = [0] * n_cls
        self.uncovered = list(range(n_cls))
        self.pos = list(range(n_cls))

    def add(self, c: int) -> bool:
        """Count one more pair of class c; True if c was uncovered."""
        self.count[c] += 1
        if self.count[c] != 1:
            return False
        unc, pos = self.uncovered, self.pos
        last = unc.pop()
        if last != c:
            unc[pos[c]] = last
            pos[last] = pos[c]
        return True

    def trade(self, out_row: list[int], in_row: list[int], block: list[int], i: int) -> int:
        """Trade the point at ``block[i]`` (classes ``out_row``) for another (``in_row``);
        the change in the number of uncovered classes (``block`` itself is not changed).

        One pair less of each old class and one more of each new class, inlined (this is
        the symmetric search's inner loop)."""
        count, unc, pos = self.count, self.uncovered, self.pos
        delta = 0
        for j, w in enumerate(block):
            if j != i:
                c = out_row[w]
                count[c] -= 1
                if not count[c]:
                    pos[c] = len(unc)
                    unc.append(c)
                    delta += 1
        for j, w in enumerate(block):
            if j != i:
                c = in_row[w]
                count[c] += 1
                if count[c] == 1:
                    last = unc.pop()
                    if last != c:
                        unc[pos[c]] = last
                        pos[last] = pos[c]
                    delta -= 1
        return delta


def orbit_shapes(
    v: int, k: int, low: int, high: int, max_base: int = 12
) -> list[tuple[int, int, int, int]]:
    """``(n, t, f, m)`` with ``t*n + f == v``, ``f < k``, ``low <= m*n <= high`` and at most
    ``max_base`` base blocks, the ones with the most room to spare (fewest pair classes per
    pair of a base block) first."""
    shapes = []
    for t in range(1, v + 1):
        for f in range(k):
            n, rem = divmod(v - f, t)
            if rem or n < 5:  # shorter orbits barely shrink the search
                continue
            for m in range(1, high // n + 1):
                if low <= m * n <= high:
                    n_cls = t * (n // 2) + t * (t - 1) // 2 * n + f * t + f * (f - 1) // 2
                    room = m * k * (k - 1) // 2
                    if n_cls <= room and m <= max_base:
                        shapes.append((n_cls / room, m * n, n, t, f, m))
    shapes.sort()
    return [s[2:] for s in shapes]
