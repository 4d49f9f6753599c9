"""Timing, peak-memory and table helpers shared by the benchmarks.

Figures are wall-clock seconds, the best of ``repeat`` runs, measured in this process;
peer libraries (llnl-hatchet, llnl-thicket) run the same operation on the same data in the
same run, with a time cap so a slow peer cannot stall the whole benchmark.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import resource
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def best_time(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Best wall time of ``repeat`` calls of ``fn`` and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def best_cpu(fn: Callable[[], Any], repeat: int = 1) -> float:
    """Best CPU seconds of this process over ``repeat`` calls of ``fn`` (on a shared
    machine wall time includes waiting for a core; CPU time is the work itself)."""
    best = float("inf")
    for _ in range(repeat):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def peak_traced_mb(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Peak Python/numpy heap allocation (MB) while ``fn`` runs, from tracemalloc."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20, result


def max_rss_mb() -> float:
    """Peak resident set size of this process so far (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(conn, fn, args):  # pragma: no cover - runs in a subprocess
    try:
        t0 = time.perf_counter()
        result = fn(*args)
        # a function may time its own operation (leaving out its set-up) and return it
        conn.send(result if isinstance(result, float) else time.perf_counter() - t0)
    except Exception as exc:  # report the peer's failure instead of hanging
        conn.send(f"error: {type(exc).__name__}: {exc}")
    conn.close()


def capped_time(fn: Callable[..., Any], args: tuple = (), cap: float = 60.0) -> float | str:
    """Time ``fn(*args)`` in a forked process; ``'> cap s'`` when it does not finish in time."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, fn, args))
    proc.start()
    if parent.poll(cap):
        out = parent.recv()
        proc.join()
        return out
    proc.kill()
    proc.join()
    return f"> {cap:g} s"


@dataclass
class Table:
    """A printed table of benchmark rows (label, perfweave s, target, peer s, ratio)."""

    title: str
    rows: list[list[str]] = field(default_factory=list)
    header: tuple[str, ...] = ("case", "perfweave", "target", "peer", "peer/perfweave")

    def add(
        self,
        case: str,
        ours: float,
        target: float | None = None,
        peer: float | str | None = None,
        unit: str = "s",
    ) -> None:
        ratio = ""
        if isinstance(peer, float) and ours > 0:
            ratio = f"{peer / ours:,.1f}x"
        elif isinstance(peer, str) and peer.startswith(">") and ours > 0:
            ratio = f"> {float(peer.split()[1]) / ours:,.0f}x"
        met = "" if target is None else (" ok" if ours <= target else " MISSED")
        self.rows.append(
            [
                case,
                f"{ours:.4f} {unit}",
                "" if target is None else f"<= {target:g} {unit}{met}",
                "" if peer is None else (f"{peer:.3f} s" if isinstance(peer, float) else peer),
                ratio,
            ]
        )

    def add_row(self, *cells: str) -> None:
        self.rows.append([str(c) for c in cells])

    def print(self) -> None:
        widths = [
            max(len(h), *(len(r[i]) for r in self.rows)) if self.rows else len(h)
            for i, h in enumerate(self.header)
        ]
        print(f"\n## {self.title}")
        print(" | ".join(h.ljust(w) for h, w in zip(self.header, widths)))
        print("-+-".join("-" * w for w in widths))
        for row in self.rows:
            print(" | ".join(c.ljust(w) for c, w in zip(row, widths)))
