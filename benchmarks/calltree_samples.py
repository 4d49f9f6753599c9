"""Reader benchmark: sampled call stacks, Linux ``perf script`` text and speedscope JSON.

Run with ``python -m benchmarks calltree_samples [--samples N] [--events N]``. The files are
generated: ``--samples`` stacks drawn from one synthetic program (1,000 functions in a call
tree about 20 levels deep, 4 processes of 2 threads, a tenth of the frames unresolved
``[unknown]`` addresses), written as ``perf script`` prints them and as a speedscope
document with one sampled profile per thread; plus a speedscope evented profile of
``--events`` open/close events. No Python peer reads these formats into a calltree, so the
figures are perfweave's alone: read time (best of 3, wall clock, and CPU seconds, which a
shared machine does not inflate) and the file size.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

from benchmarks._common import Table, best_cpu, best_time

FUNCTIONS = 1_000
THREADS = [(1000 + p, 1000 + p + t) for p in range(4) for t in range(2)]


def _program(rng: np.random.Generator) -> tuple[np.ndarray, list[str], list[str]]:
    """A call tree of ``FUNCTIONS`` functions: each one's parent, name and module."""
    parent = np.full(FUNCTIONS, -1)
    for f in range(1, FUNCTIONS):
        parent[f] = int(rng.integers(max(0, f - 60), f))  # deep: parents are recent
    names = [f"fn_{f}" if rng.random() > 0.1 else "[unknown]" for f in range(FUNCTIONS)]
    modules = [f"/usr/lib/lib{f % 7}.so" for f in range(FUNCTIONS)]
    return parent, names, modules


def _stack(parent: np.ndarray, leaf: int) -> list[int]:
    out = [leaf]
    while parent[out[-1]] >= 0:
        out.append(int(parent[out[-1]]))
    return out  # leaf first, as perf prints it


def make_stacks(n_samples: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    parent, names, modules = _program(rng)
    leaves = rng.integers(0, FUNCTIONS, n_samples)
    threads = rng.integers(0, len(THREADS), n_samples)
    cache: dict[int, list[int]] = {}
    stacks = [cache.setdefault(int(f), _stack(parent, int(f))) for f in leaves]
    return stacks, threads, names, modules


def make_perf_script(path: Path, n_samples: int, seed: int = 0) -> int:
    """``perf script`` output of ``n_samples`` samples (pid/tid, CPU, time, period, event)."""
    stacks, threads, names, modules = make_stacks(n_samples, seed)
    lines = []
    for k, (stack, t) in enumerate(zip(stacks, threads)):
        pid, tid = THREADS[t]
        lines.append(f"bench {pid}/{tid} [{t % 4:03d}] {1000 + k * 1e-3:.6f}: 1001001 cpu-clock:")
        for depth, f in enumerate(stack):
            offset = f"+0x{(k * 7 + depth) % 256:x}" if names[f] != "[unknown]" else ""
            lines.append(f"\t{0x400000 + 64 * f:16x} {names[f]}{offset} ({modules[f]})")
        lines.append("")
    path.write_text("\n".join(lines) + "\n")
    return sum(map(len, stacks))


def make_speedscope_sampled(path: Path, n_samples: int, seed: int = 0) -> int:
    """The same stacks as one speedscope sampled profile per thread (root first)."""
    stacks, threads, names, modules = make_stacks(n_samples, seed)
    profiles = []
    for t, (pid, tid) in enumerate(THREADS):
        mine = [stacks[k][::-1] for k in np.flatnonzero(threads == t)]
        profiles.append(
            {
                "type": "sampled",
                "name": f"Process {pid} Thread {tid}",
                "unit": "seconds",
                "startValue": 0,
                "endValue": len(mine) * 0.01,
                "samples": mine,
                "weights": [0.01] * len(mine),
            }  # fmt: skip
        )
    frames = [{"name": n, "file": m, "line": f} for f, (n, m) in enumerate(zip(names, modules))]
    doc = {"$schema": "https://www.speedscope.app/file-format-schema.json",
           "shared": {"frames": frames}, "profiles": profiles, "exporter": "perfweave-bench"}  # fmt: skip
    path.write_text(json.dumps(doc, separators=(",", ":")))
    return sum(map(len, stacks))


def make_speedscope_evented(path: Path, n_events: int, seed: int = 0) -> int:
    """One evented profile: ``n_events`` O/C events of nested calls (depth up to 24)."""
    rng = np.random.default_rng(seed)
    events, stack, at = [], [], 0
    while len(events) + len(stack) < n_events:
        at += int(rng.integers(1, 50))
        if stack and (len(stack) >= 24 or rng.random() < 0.45):
            events.append({"type": "C", "frame": stack.pop(), "at": at})
        else:
            stack.append(int(rng.integers(0, 200)))
            events.append({"type": "O", "frame": stack[-1], "at": at})
    while stack:
        at += 1
        events.append({"type": "C", "frame": stack.pop(), "at": at})
    doc = {
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": {"frames": [{"name": f"f{k}"} for k in range(200)]},
        "profiles": [{"type": "evented", "name": "main", "unit": "microseconds",
                      "startValue": 0, "endValue": at, "events": events}],
    }  # fmt: skip
    path.write_text(json.dumps(doc, separators=(",", ":")))
    return len(events)


def _measure(table: Table, label: str, path: Path) -> None:
    import perfweave

    wall, gf = best_time(lambda: perfweave.read(path), repeat=3)
    cpu = best_cpu(lambda: perfweave.read(path), repeat=1)
    size = path.stat().st_size / 2**20
    table.add_row(label, f"{wall:.3f} s", f"{cpu:.3f} s", f"{size:.1f} MB", f"{len(gf.graph):,}")


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks calltree_samples")
    ap.add_argument("--samples", type=int, default=100_000, help="stacks of the sampled files")
    ap.add_argument("--events", type=int, default=1_000_000, help="events of the evented file")
    args = ap.parse_args(argv)
    table = Table(
        "calltree readers: perf script and speedscope JSON (generated files)",
        header=("case", "read (best of 3)", "CPU", "file", "nodes"),
    )
    with tempfile.TemporaryDirectory() as tmp:
        perf = Path(tmp) / "bench.perf.txt"
        frames = make_perf_script(perf, args.samples)
        _measure(table, f"perf script, {args.samples:,} samples ({frames:,} frame lines)", perf)
        perf.unlink()
        sampled = Path(tmp) / "sampled.speedscope.json"
        frames = make_speedscope_sampled(sampled, args.samples)
        _measure(
            table, f"speedscope sampled, {args.samples:,} samples ({frames:,} frames)", sampled
        )
        sampled.unlink()
        evented = Path(tmp) / "evented.speedscope.json"
        n = make_speedscope_evented(evented, args.events)
        _measure(table, f"speedscope evented, {n:,} events", evented)
    table.print()
