"""``python -m benchmarks fuzz --seconds N``: a longer mutation fuzz of every parser.

Runs each target of ``benchmarks/_fuzz_counts_classes_merge.py``,
``benchmarks/_fuzz_counts_sites.py``, ``benchmarks/_fuzz_calltree.py`` and
``benchmarks/_fuzz_extrap.py`` for its share of ``--seconds`` and prints, per target, the
inputs tried, the inputs that failed (raised anything but a ``perfweave.errors`` exception,
or took over ``--slow`` seconds) and the distinct failures, each with the kept input. The
address space is capped (``--memory-gb``) so a parse that tries to allocate tens of GiB
fails with MemoryError (and is reported) instead of taking the shared machine down.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
from pathlib import Path

from benchmarks import (
    _fuzz_calltree,
    _fuzz_counts_classes_merge,
    _fuzz_counts_sites,
    _fuzz_extrap,
)
from benchmarks._fuzz_core import FuzzReport, Target, format_reports, fuzz


def all_targets() -> list[Target]:
    """The targets of every fuzz target module."""
    return [
        *_fuzz_counts_classes_merge.TARGETS,
        *_fuzz_counts_sites.TARGETS,
        *_fuzz_calltree.TARGETS,
        *_fuzz_extrap.TARGETS,
    ]


def _cap_memory(gb: float) -> None:
    limit = int(gb * 2**30)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def main(argv: list[str]) -> list[FuzzReport]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks fuzz", description=__doc__)
    parser.add_argument("--seconds", type=float, default=60.0, help="total time, shared")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slow", type=float, default=5.0, help="seconds per input: too slow")
    parser.add_argument("--memory-gb", type=float, default=4.0, help="address-space cap")
    parser.add_argument("--target", action="append", default=[], help="name prefix to run")
    parser.add_argument("--workdir", type=Path, default=None, help="keep failing inputs here")
    args = parser.parse_args(argv)
    targets = [t for t in all_targets() if not args.target or t.name.startswith(tuple(args.target))]
    if not targets:
        print("no fuzz target matches", args.target, file=sys.stderr)
        return []
    _cap_memory(args.memory_gb)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="perfweave-fuzz-"))
    share = args.seconds / len(targets)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"fuzz: {len(targets)} targets, {share:.1f} s each, seed {args.seed}, "
        f"load average {load} (2 cores shared), failing inputs kept in {workdir}"
    )
    reports = []
    for target in targets:
        report = fuzz(target, share, args.seed, workdir, slow_seconds=args.slow)
        reports.append(report)
        print(
            f"  {report.target:<30} {report.tried:>7} tried {report.failing_inputs:>6} "
            f"failing {len(report.failures):>3} distinct",
            flush=True,
        )
    print()
    print(format_reports(reports))
    tried = sum(r.tried for r in reports)
    distinct = sum(len(r.failures) for r in reports)
    print(f"\ntotal: {tried} inputs tried, {distinct} distinct failures")
    return reports
