"""Rank lists in the collective profiler's compressed notation (``0-3, 7``).

The profiler writes sorted, duplicate-free integer lists as comma-separated singletons and
inclusive ranges. Compact count files use ``", "`` between items, the Go tools ``","``;
both are read. Formatting is exact, so ``format_ranklist(parse_ranklist(s)) == s`` for any
list the profiler writes.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from perfweave.counts._arrays import sorted_unique
from perfweave.errors import ParseError

__all__ = ["format_ranklist", "parse_ranklist"]


def parse_ranklist(text: str, *, path: str | None = None, line: int | None = None) -> np.ndarray:
    """Parse ``"1-5, 1024"`` (or ``"1-5,1024"``) into a sorted int64 array of ranks.

    Items may come in any order but must not overlap: a rank listed twice is an error, as
    is an empty item, a reversed range or anything that is not a non-negative integer.
    ``path`` and ``line`` only enrich the error message.
    """
    items = text.strip().split(",")
    starts: list[int] = []
    stops: list[int] = []
    for raw in items:
        item = raw.strip()
        lo, sep, hi = item.partition("-")
        if not (_is_uint(lo) and (_is_uint(hi) if sep else True)):
            raise ParseError(
                path, "a rank list such as '0-3, 7'", line=line, found=text.strip() or text
            )
        a = int(lo)
        b = int(hi) if sep else a
        if b < a:
            raise ParseError(path, "a rank range low-high with low <= high", line=line, found=item)
        starts.append(a)
        stops.append(b + 1)
    lengths = np.subtract(stops, starts)
    if len(items) == 1:
        return np.arange(starts[0], stops[0], dtype=np.int64)
    total = int(lengths.sum())
    # vectorised expansion of the ranges: a running index with a jump at each range start
    offsets = np.repeat(np.asarray(starts, dtype=np.int64) - np.cumsum(lengths) + lengths, lengths)
    ranks = offsets + np.arange(total, dtype=np.int64)
    ranks.sort()
    if total > 1 and bool((ranks[1:] == ranks[:-1]).any()):
        dup = int(ranks[1:][ranks[1:] == ranks[:-1]][0])
        raise ParseError(path, f"each rank listed once (rank {dup} repeats)", line=line, found=text)
    return ranks


def format_ranklist(ranks: Iterable[int] | np.ndarray, sep: str = ", ") -> str:
    """Format ranks in the compressed notation: ``[0, 1, 2, 3, 7] -> "0-3, 7"``.

    The ranks are sorted and duplicates merged; runs of two or more consecutive ranks become
    ``a-b`` (as upstream does). ``sep=","`` gives the Go tools' and pattern files' style.
    """
    arr = sorted_unique(np.asarray(ranks if isinstance(ranks, np.ndarray) else list(ranks)))
    if arr.size == 0:
        return ""
    breaks = np.flatnonzero(np.diff(arr) != 1) + 1
    firsts = arr[np.concatenate(([0], breaks))]
    lasts = arr[np.concatenate((breaks - 1, [arr.size - 1]))]
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in zip(firsts.tolist(), lasts.tolist())]
    return sep.join(parts)


def _is_uint(text: str) -> bool:
    return text.isascii() and text.isdigit()
