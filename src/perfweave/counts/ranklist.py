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
from perfweave.counts._fields import MAX_RANKS, read_uint
from perfweave.errors import ParseError

__all__ = ["format_ranklist", "parse_ranklist"]


def parse_ranklist(
    text: str,
    *,
    path: str | None = None,
    line: int | None = None,
    limit: int = MAX_RANKS,
) -> np.ndarray:
    """Parse ``"1-5, 1024"`` (or ``"1-5,1024"``) into a sorted int64 array of ranks.

    Items may come in any order but must not overlap: a rank listed twice is an error, as
    is an empty item, a reversed range or anything that is not a non-negative integer below
    2**62. A list of more than ``limit`` ranks (default :data:`MAX_RANKS`) is refused before
    it is expanded. ``path`` and ``line`` only enrich the error message.
    """
    starts, stops = ranklist_spans(text, path=path, line=line)
    ranks = expand_spans(
        np.asarray(starts, dtype=np.int64),
        np.asarray(stops, dtype=np.int64),
        limit=limit,
        path=path,
        line=line,
    )
    if len(starts) > 1:
        ranks.sort()
        if bool((ranks[1:] == ranks[:-1]).any()):
            dup = int(ranks[1:][ranks[1:] == ranks[:-1]][0])
            raise ParseError(
                path, f"each rank listed once (rank {dup} repeats)", line=line, found=text
            )
    return ranks


def ranklist_spans(
    text: str, *, path: str | None = None, line: int | None = None
) -> tuple[list[int], list[int]]:
    """The half-open ``[start, stop)`` spans of a rank list, in the order written."""
    starts: list[int] = []
    stops: list[int] = []
    shown = text.strip() or text
    for raw in text.split(","):
        lo, sep, hi = raw.strip().partition("-")
        if not (_is_uint(lo) and (_is_uint(hi) if sep else True)):
            raise ParseError(path, "a rank list such as '0-3, 7'", line=line, found=shown)
        what = "a rank list of integer ranks"
        a = read_uint(lo, path=path, line=line, expected=what, found=shown)
        b = read_uint(hi, path=path, line=line, expected=what, found=shown) if sep else a
        if b < a:
            raise ParseError(
                path, "a rank range low-high with low <= high", line=line, found=raw.strip()
            )
        starts.append(a)
        stops.append(b + 1)
    return starts, stops


def expand_spans(
    starts: np.ndarray,
    stops: np.ndarray,
    *,
    limit: int = MAX_RANKS,
    path: str | None = None,
    line: int | None = None,
) -> np.ndarray:
    """All integers of the spans, span after span (one vectorised step for any number).

    More than ``limit`` integers in all is a ParseError (checked before allocating).
    """
    lengths = stops - starts
    total = float(lengths.sum(dtype=np.float64))  # float: a sum of huge spans cannot wrap
    if total > limit:
        raise ParseError(
            path,
            f"a rank list of at most {limit:,} ranks",
            line=line,
            found=f"{total:,.0f} ranks",
        )
    if starts.size == 1:
        return np.arange(starts[0], stops[0], dtype=np.int64)
    # a running index with a jump at each span start
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return offsets + np.arange(offsets.size, dtype=np.int64)


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
