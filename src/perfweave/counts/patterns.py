"""Communication patterns, as the upstream post-mortem tools define them.

For one call and one direction (send or receive), the pattern is how many ranks talk to
how many peers: for every rank the number of non-zero counts in its row (itself
included), rows with none skipped, tallied as ``{peers: ranks}``. Calls whose send and
receive tallies are both equal share a pattern; patterns are numbered by first call.

A pattern is also put in a category from its send tally, as upstream does: 1 -> N when
``peers > 100 * ranks``, N -> n when ``0.9 * peers <= ranks <= 1.1 * peers``, N -> 1 when
``100 * peers < ranks``; calls that move no data at all are "empty".

Deliberate differences from upstream (``docs/counts.md``): patterns in the N -> 1 and
N -> n sections of the summary are numbered 0, 1, 2, ... (upstream prints ``#0`` for
all of them); a pattern is listed once per category even if several of its tallies
qualify (upstream repeats it); lines of one tally with equal rank counts are ordered by
number of peers (upstream's order is unstable); every call is analysed, also when the
``calls a-b`` header of the file does not cover it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from perfweave.counts.matrix import CountMatrix
from perfweave.counts.ranklist import format_ranklist

__all__ = [
    "Pattern",
    "PatternReport",
    "detect_patterns",
    "format_patterns",
    "format_patterns_summary",
    "tally",
    "write_patterns",
]

Tally = tuple[tuple[int, int], ...]  # ((peers, ranks), ...) sorted by (ranks, peers)


def tally(matrix: CountMatrix, comm_size: int | None = None) -> Tally:
    """``((peers, ranks), ...)``: how many ranks have how many non-zero counts.

    A row of one count for a communicator of ``comm_size > 1`` (Alltoall, Allgatherv's
    send side) sends that count to every peer, so it counts as ``comm_size`` peers.
    """
    peers = np.count_nonzero(matrix.rows, axis=1)
    if comm_size is not None and comm_size > 1 and matrix.width == 1:
        peers = peers * comm_size
    weights = np.bincount(matrix.row_of_rank, minlength=matrix.rows.shape[0])
    nz = peers > 0
    if not nz.any():
        return ()
    per_peers = np.bincount(peers[nz], weights=weights[nz]).astype(np.int64)
    keys = np.flatnonzero(per_peers)
    vals = per_peers[keys]
    order = np.lexsort((keys, vals))
    return tuple((int(keys[i]), int(vals[i])) for i in order)


@dataclass(eq=False)
class Pattern:
    """Calls that share a send tally and a receive tally."""

    number: int
    calls: np.ndarray
    send: Tally
    recv: Tally

    @property
    def n_calls(self) -> int:
        return int(self.calls.size)


@dataclass(eq=False)
class PatternReport:
    """All patterns of one lead rank, with the upstream categories."""

    collective: str
    total_calls: int
    patterns: list[Pattern] = field(default_factory=list)
    one_to_n: list[Pattern] = field(default_factory=list)
    n_to_one: list[Pattern] = field(default_factory=list)
    n_to_n: list[Pattern] = field(default_factory=list)
    empty: list[Pattern] = field(default_factory=list)
    lead_rank: int | None = None
    job: int | None = None

    def to_frame(self):
        """One row per (pattern, direction, peers): ``pattern, calls, direction, peers, ranks``."""
        import pandas as pd

        rows = [
            (p.number, p.n_calls, direction, peers, ranks)
            for p in self.patterns
            for direction, t in (("send", p.send), ("recv", p.recv))
            for peers, ranks in t
        ]
        return pd.DataFrame(rows, columns=["pattern", "calls", "direction", "peers", "ranks"])


def _categories(send: Tally) -> set[str]:
    cats = set()
    for peers, ranks in send:
        if peers > ranks * 100:
            cats.add("one_to_n")
        elif 0.9 * peers <= ranks <= 1.1 * peers:
            cats.add("n_to_n")
        elif peers * 100 < ranks:
            cats.add("n_to_one")
    return cats


def detect_patterns(groups: Sequence) -> PatternReport:
    """Patterns of the CallGroups of one lead rank (tallies are computed once per group)."""
    keyed: dict[tuple[Tally, Tally], list[np.ndarray]] = {}
    empty_calls = []
    cache: dict[tuple[int, int], Tally] = {}  # matrices are shared between groups

    def cached(m: CountMatrix, comm_size: int) -> Tally:
        key = (id(m), comm_size)
        if key not in cache:
            cache[key] = tally(m, comm_size)
        return cache[key]

    for g in groups:
        s = cached(g.send, g.comm_size)
        r = cached(g.recv, g.comm_size)
        keyed.setdefault((s, r), []).append(g.calls)
        if not s and not r:
            empty_calls.append(g.calls)
    collective = groups[0].collective if groups else "Alltoallv"
    total = int(sum(int(g.calls.size) for g in groups))
    report = PatternReport(
        collective=collective,
        total_calls=total,
        lead_rank=groups[0].lead_rank if groups else None,
        job=groups[0].job if groups else None,
    )
    found = []
    for (s, r), parts in keyed.items():
        calls = np.sort(np.concatenate(parts))
        found.append(Pattern(-1, calls, s, r))
    found.sort(key=lambda p: int(p.calls[0]))
    for i, p in enumerate(found):
        p.number = i
        report.patterns.append(p)
        cats = _categories(p.send)
        for name in ("one_to_n", "n_to_one", "n_to_n"):
            if name in cats:
                getattr(report, name).append(p)
    if empty_calls:
        calls = np.sort(np.concatenate(empty_calls))
        report.empty = [Pattern(i, calls[i : i + 1], (), ()) for i in range(calls.size)]
    return report


def _pattern_text(p: Pattern, number: int, total: int, collective: str) -> str:
    out = [
        f"## Pattern #{number} ({p.n_calls}/{total} {collective.lower()} calls)\n\n",
        f"{collective} calls: {format_ranklist(p.calls, sep=',')}\n\n",
    ]
    out += [f"{ranks} ranks sent to {peers} other ranks\n\n" for peers, ranks in p.send]
    out += [f"{ranks} ranks recv'd from {peers} other ranks\n\n" for peers, ranks in p.recv]
    out.append("\n")
    return "".join(out)


def format_patterns(report: PatternReport) -> str:
    """Text of ``patterns-job<J>-rank<R>.md``."""
    body = "".join(
        _pattern_text(p, p.number, report.total_calls, report.collective) for p in report.patterns
    )
    return "# Patterns\n" + body


def format_patterns_summary(report: PatternReport) -> str:
    """Text of ``patterns-summary-job<J>-rank<R>.md`` (1 -> N, N -> 1, N -> n sections)."""
    if not (report.one_to_n or report.n_to_one or report.n_to_n):
        return "Nothing special detected; no summary"
    out = []
    for title, items, lead in (
        ("# 1 to N patterns\n\n", report.one_to_n, ""),
        ("# N to 1 patterns\n\n", report.n_to_one, "\n"),
        ("# N to n patterns\n\n", report.n_to_n, "\n"),
    ):
        if items:
            out.append(lead + title)
            out += [
                _pattern_text(p, k, report.total_calls, report.collective)
                for k, p in enumerate(items)
            ]
    return "".join(out)


def write_patterns(
    report: PatternReport,
    directory: str | os.PathLike[str],
    *,
    job: int | None = None,
    rank: int | None = None,
) -> tuple[Path, Path]:
    """Write ``patterns-job<J>-rank<R>.md`` and ``patterns-summary-job<J>-rank<R>.md``."""
    job = (report.job if report.job is not None else 0) if job is None else job
    rank = (report.lead_rank if report.lead_rank is not None else 0) if rank is None else rank
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    p1 = d / f"patterns-job{job}-rank{rank}.md"
    p2 = d / f"patterns-summary-job{job}-rank{rank}.md"
    p1.write_text(format_patterns(report), encoding="utf-8")
    p2.write_text(format_patterns_summary(report), encoding="utf-8")
    return p1, p2
