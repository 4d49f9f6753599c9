"""Finite-field geometry for covering designs: GF(q), affine/projective planes, TDs.

Only what :mod:`perfweave.merge.design` needs: blocks as lists of point ids for the
projective plane PG(2, q), the affine plane AG(2, q) and the transversal design TD(k, q),
for prime powers q (up to a few hundred).
"""

from __future__ import annotations

from functools import cache
from itertools import product

import numpy as np

from perfweave.errors import ArgumentError


def prime_power(q: int) -> tuple[int, int] | None:
    """``(p, n)`` with ``q == p**n`` for a prime ``p``, else ``None``."""
    if q < 2:
        return None
    p = next(d for d in range(2, q + 1) if q % d == 0)
    n, rest = 0, q
    while rest % p == 0:
        rest //= p
        n += 1
    return (p, n) if rest == 1 else None


def _poly_mulmod(a: list[int], b: list[int], mod: list[int], p: int) -> list[int]:
    n = len(mod) - 1
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] = (out[i + j] + x * y) % p
    for d in range(len(out) - 1, n - 1, -1):  # reduce by the monic modulus
        c = out[d]
        if c:
            for i in range(n + 1):
                out[d - n + i] = (out[d - n + i] - c * mod[i]) % p
    return (out + [0] * n)[:n]


def _irreducible(p: int, n: int) -> list[int]:
    """A monic irreducible polynomial of degree n over GF(p) (coefficients low to high)."""
    for tail in product(range(p), repeat=n):
        mod = [*tail, 1]
        if mod[0] == 0:
            continue
        # irreducible iff no root-free factorisation: test all monic divisors of degree <= n/2
        if all(_has_no_factor(mod, d, p) for d in range(1, n // 2 + 1)):
            return mod
    raise AssertionError("no irreducible polynomial found")  # pragma: no cover


def _has_no_factor(mod: list[int], degree: int, p: int) -> bool:
    for tail in product(range(p), repeat=degree):
        div = [*tail, 1]
        rem = list(mod)
        for d in range(len(rem) - 1, degree - 1, -1):
            c = rem[d]
            if c:
                for i in range(degree + 1):
                    rem[d - degree + i] = (rem[d - degree + i] - c * div[i]) % p
        if not any(rem[:degree]):
            return False
    return True


@cache
def field_tables(q: int) -> tuple[np.ndarray, np.ndarray]:
    """Addition and multiplication tables of GF(q) (elements 0..q-1, 0 and 1 as usual)."""
    pn = prime_power(q)
    if pn is None:
        raise ArgumentError(f"{q} is not a prime power")
    p, n = pn
    if n == 1:
        e = np.arange(q)
        return (e[:, None] + e[None, :]) % q, (e[:, None] * e[None, :]) % q
    mod = _irreducible(p, n)
    digits = [[(x // p**i) % p for i in range(n)] for x in range(q)]

    def value(d: list[int]) -> int:
        return sum(c * p**i for i, c in enumerate(d))

    add = np.array([[value([(a + b) % p for a, b in zip(x, y)]) for y in digits] for x in digits])
    mul = np.array([[value(_poly_mulmod(x, y, mod, p)) for y in digits] for x in digits])
    return add, mul


def transversal_design(k: int, q: int) -> list[list[int]]:
    """TD(k, q) for a prime power q >= k - 1: k groups of q points (group g holds points
    ``g*q .. g*q+q-1``), q**2 blocks each meeting every group once, every pair of points
    from different groups in exactly one block."""
    if k > q + 1:
        raise ArgumentError(f"TD({k}, {q}) needs k <= q + 1")
    add, mul = field_tables(q)
    blocks = []
    for a in range(q):
        for b in range(q):
            # line y = a*x + b evaluated at the first min(k, q) field elements, plus slope a
            block = [g * q + int(add[mul[a, g], b]) for g in range(min(k, q))]
            if k == q + 1:
                block.append(q * q + a)
            blocks.append(block)
    return blocks


def projective_plane(q: int) -> list[list[int]]:
    """Lines of PG(2, q): q*q + q + 1 points and lines, q + 1 points per line."""
    add, mul = field_tables(q)
    lines = []
    inf = q * q  # points at infinity: q*q + slope, q*q + q for the vertical direction
    for a in range(q):
        for b in range(q):
            lines.append([x * q + int(add[mul[a, x], b]) for x in range(q)] + [inf + a])
    for c in range(q):
        lines.append([c * q + y for y in range(q)] + [inf + q])
    lines.append([inf + s for s in range(q + 1)])
    return lines


def affine_plane(q: int) -> list[list[int]]:
    """Lines of AG(2, q): q*q points, q*q + q lines of q points."""
    return [[p for p in line if p < q * q] for line in projective_plane(q)[:-1]]
