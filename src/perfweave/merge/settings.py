"""The settings of one HEM merge (what MergePanel shows and a notebook can pass around)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from perfweave.errors import MergeError
from perfweave.merge.independence import check_dep_lvl

METHODS = ("much", "hrm")
#: simulations MUCH tries (more only takes longer), runs it draws, and the seed's floor
N_SIMS_RANGE = (10, 1000)
N_RUNS_RANGE = (2, 1_000_000)


def check_int(name: str, value: Any, lo: int, hi: int | None = None) -> int:
    """``value`` as an int in ``[lo, hi]``, or a :class:`MergeError` naming it."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise MergeError(f"{name} must be an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        upper = f" and at most {hi}" if hi is not None else ""
        raise MergeError(f"{name} must be at least {lo}{upper}, got {value}")
    return int(value)


@dataclass(frozen=True)
class MergeSettings:
    """One merge: ``method`` (``"much"`` or ``"hrm"``), the HRM ``anchor``, and MUCH's
    ``dep_lvl`` (dependence threshold), ``n_sims`` (simulations tried), ``n_runs`` (runs
    drawn) and ``seed``. :meth:`checked` validates every field (the core's rules, one place)
    and :meth:`with_` gives a checked copy with some fields changed."""

    method: str = "much"
    anchor: str | None = None
    dep_lvl: float = 0.85
    n_sims: int = 100
    n_runs: int = 1000
    seed: int = 0

    def checked(self) -> MergeSettings:
        """These settings with numbers normalised, or a :class:`MergeError` naming the first
        bad value and what is expected."""
        if self.method not in METHODS:
            raise MergeError(f"method must be 'much' or 'hrm', got {self.method!r}")
        return replace(
            self,
            dep_lvl=check_dep_lvl(self.dep_lvl),
            n_sims=check_int("n_sims", self.n_sims, *N_SIMS_RANGE),
            n_runs=check_int("n_runs", self.n_runs, *N_RUNS_RANGE),
            seed=check_int("seed", self.seed, 0),
        )

    def with_(self, **changes: Any) -> MergeSettings:
        """A checked copy with ``changes`` applied."""
        unknown = set(changes) - set(self.__dataclass_fields__)
        if unknown:
            raise MergeError(f"unknown merge setting(s) {sorted(unknown)}")
        return replace(self, **changes).checked()
