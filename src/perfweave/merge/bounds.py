"""Lower bounds on the number of runs of a pair covering design, C(v, k, 2).

Three bounds, each proved below or classical:

- **Schönheim**: every point needs ``r = ceil((v-1)/(k-1))`` blocks to meet the other v-1
  points, so ``C >= ceil(v * r / k)``.
- **Steiner**: when the Schönheim count is exactly the size of a Steiner system S(2, k, v)
  (every pair in exactly one block), that system must exist; it cannot for S(2, 7, 43)
  (no projective plane of order 6, Bruck-Ryser) nor S(2, 6, 36) and S(2, 6, 46) (the known
  exceptions for blocks of 6), and a Steiner system with fewer blocks than points
  contradicts Fisher's inequality.
- **Rank** (a Fisher-type bound for coverings with few blocks): let N be the v x b
  incidence matrix and M = N Nᵀ. Off its diagonal M counts the blocks each pair shares
  (>= 1); on it, the blocks ``r_p`` of each point. Write M = J + E, with J all ones: E has
  ``r_p - 1`` on the diagonal and the pairs' excess ``λ_pq - 1 >= 0`` off it, whose row sum
  is at most ``e_p = r_p (k-1) - (v-1)``. Call a point *light* when ``e_p < r_p - 1``, that
  is ``r_p (k-2) < v - 2``. On the light points E is strictly diagonally dominant, so
  positive definite, and so is the light points' part of M = E + J; its rank, the number
  of light points, is at most rank(N) <= b. Every light point is in at least r blocks and
  every other point in at least ``h = ceil((v-2)/(k-2))``, and the blocks hold at most b*k
  incidences, so ``b k >= b r + (v - b) h`` whenever b < v.

The rank bound is what makes many small cases of the benchmark provably unattainable
within 10 % of Schönheim (e.g. 8 blocks for 9 HEMs of 4 PMCs, Mills' C(9,4,2) = 8, and 17
blocks for 29 HEMs of 8 PMCs, where Schönheim allows 15).
"""

from __future__ import annotations

from perfweave.errors import MergeError

__all__ = ["covering_lower_bound", "rank_bound", "schonheim_bound"]

#: (v, k) of Steiner systems S(2, k, v) whose counting conditions hold but which do not exist
_NO_STEINER = frozenset({(43, 7), (36, 6), (46, 6)})


def schonheim_bound(v: int, k: int) -> int:
    """Schönheim lower bound on the number of k-blocks covering all pairs of v points."""
    if v <= 1:
        return 1 if v == 1 else 0
    if k < 2:
        raise MergeError(f"blocks of {k} HEM(s) cannot cover pairs")
    inner = -(-(v - 1) // (k - 1))
    return -(-v * inner // k)


def rank_bound(v: int, k: int) -> int:
    """The rank (Fisher-type) lower bound of the module docstring; 0 where it says nothing
    (blocks of 2 or fewer, or no point can be light)."""
    if k <= 2 or v <= k:
        return 0
    r = -(-(v - 1) // (k - 1))  # blocks of a light point, at least
    h = -(-(v - 2) // (k - 2))  # blocks of any other point, at least
    if h <= r:
        return 0
    # smallest b < v with b*k >= b*r + (v-b)*h; none: b >= v
    b = -(-v * h // (k - r + h))
    return min(b, v)


def _steiner_bound(v: int, k: int) -> int:
    """Schönheim + 1 where meeting Schönheim needs a Steiner system that cannot exist."""
    bound = schonheim_bound(v, k)
    if v <= k or bound * k * (k - 1) != v * (v - 1):
        return bound  # the bound leaves some pair slots spare: not a Steiner system
    if bound < v or (v, k) in _NO_STEINER:
        return bound + 1
    return bound


def covering_lower_bound(v: int, k: int) -> int:
    """The best of the Schönheim, Steiner and rank bounds on C(v, k, 2)."""
    if v <= k:
        return 1 if v >= 1 else 0
    return max(_steiner_bound(v, k), rank_bound(v, k))
