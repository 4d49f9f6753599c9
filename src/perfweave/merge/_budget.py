"""The design search's budget: counted in annealing moves, so a seeded search repeats
exactly on any machine and under any load; a wall-clock cap only when the caller asks."""

from __future__ import annotations

import time

#: moves between two looks at the clock (only when a time cap was asked for)
CLOCK_EVERY = 4096


class Budget:
    """Moves the search may still make, and an optional deadline (``time.perf_counter``).

    Each stage runs on a :meth:`share` of the moves; what a share spends is charged to its
    parent too. With ``deadline=None`` the work done never depends on the machine."""

    __slots__ = ("left", "deadline", "_parent")

    def __init__(self, moves: int, deadline: float | None = None, parent: Budget | None = None):
        self.left = max(int(moves), 0)
        self.deadline = deadline
        self._parent = parent

    @classmethod
    def of(cls, moves: int, time_limit: float | None) -> Budget:
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        return cls(moves, deadline)

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def spent(self) -> bool:
        """True once the moves are used up or the opt-in deadline has passed."""
        return self.left <= 0 or self.out_of_time()

    def share(self, moves: int) -> Budget:
        """At most ``moves`` of the moves left, as a budget of its own."""
        return Budget(min(int(moves), self.left), self.deadline, self)

    def take(self, n: int) -> None:
        """Charge ``n`` moves here and to every budget this one is a share of."""
        budget: Budget | None = self
        while budget is not None:
            budget.left -= n
            budget = budget._parent
