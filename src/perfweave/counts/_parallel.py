"""Parsing many count files at once on threads.

The count parsers spend their time in numpy, which releases the GIL, and most of the rest
of it writing new int64 matrices: on a virtual machine first touching new memory is slow,
and two threads fault pages in at once. Threads (not processes) keep the matrices in this
process without copying them back.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from perfweave.errors import ArgumentError, PerfweaveError

T = TypeVar("T")
R = TypeVar("R")

# more threads than this add little: the parse is bound by memory bandwidth
_MAX_DEFAULT_WORKERS = 8


def default_workers() -> int:
    """Threads to parse with: the CPUs this process may use, at most 8."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(_MAX_DEFAULT_WORKERS, n))


def map_files(
    fn: Callable[[T], R], items: Sequence[T], workers: int | None
) -> list[R | PerfweaveError]:
    """``fn`` of every item, in order, on ``workers`` threads (None: :func:`default_workers`).

    A :class:`PerfweaveError` is returned in the item's place rather than raised, so one bad
    file does not stop the others; any other exception propagates.
    """
    if workers is not None and workers < 1:
        raise ArgumentError(f"workers must be >= 1, got {workers}")
    n = min(len(items), default_workers() if workers is None else workers)

    def guarded(item: T) -> R | PerfweaveError:
        try:
            return fn(item)
        except PerfweaveError as exc:
            return exc

    if n <= 1:
        return [guarded(item) for item in items]
    with ThreadPoolExecutor(max_workers=n, thread_name_prefix="perfweave-counts") as pool:
        return list(pool.map(guarded, items))
