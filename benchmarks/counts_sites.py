"""Benchmark of the call-site weave (``CountsProfile.call_sites``).

- WRF: the real run bundled in tests/data (all 964 alltoallv calls of 160 ranks, 10
  backtraces, communicator 0's timings): read and weave times.
- synthetic: one lead rank, 4,096 ranks x 1,000 calls on two communicators, 50 distinct
  count matrices per direction, 20 call sites (stacks of 12-16 frames sharing their outer
  frames), execution and late-arrival times for every rank of every call (8.2 million
  times). Target (issue 33): the weave in <= 1 s.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks._common import Table, best_cpu, best_time
from benchmarks.counts import make_compact_set
from perfweave.counts import read
from perfweave.errors import UnmatchedCallsWarning

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "counts"


def make_backtraces(d: Path, n_calls: int, n_sites: int, seed: int = 3) -> None:
    """``n_sites`` backtrace files: call c is made from site ``c % n_sites`` on
    communicator ``site % 2``; stacks share their outer frames as a program's do."""
    rng = np.random.default_rng(seed)
    outer = ["./app() [0x400f69]", "/lib64/libc.so.6(__libc_start_main+0xf5) [0x2ae1d9ba9555]"]
    outer += [f"./app() [0x{0x418000 + k * 0x40:x}]" for k in range(3)]
    middle = [f"./app() [0x{a:x}]" for a in rng.integers(0x500000, 0x3000000, size=12)]
    wrapper = [
        "/opt/cp/liballtoallv_backtrace.so(_mpi_alltoallv+0xd4) [0x2ae1d7064bc4]",
        "/opt/cp/liballtoallv_backtrace.so(MPI_Alltoallv+0x7d) [0x2ae1d7065028]",
    ]
    calls = np.arange(n_calls)
    for site in range(n_sites):
        depth = int(rng.integers(5, 9))
        path = list(rng.choice(middle, size=depth, replace=False))
        inner = f"./app() [0x{0x3300000 + site * 0x10:x}]"
        frames = wrapper + [inner] + path[::-1] + outer[::-1]
        mine = calls[calls % n_sites == site]
        text = (
            "FORMAT_VERSION: 9\n\nstack trace for /home/u/app pid=4242\n\n# Trace\n\n"
            + "\n".join(frames)
            + f"\n\n# Context 0\n\nCommunicator: {site % 2}\nCommunicator rank: 0\n"
            + "COMM_WORLD rank: 0\nCalls: "
            + ", ".join(map(str, mine.tolist()))
            + "\n\n"
        )
        (d / f"alltoallv_backtrace_rank0_trace{site}.md").write_text(text)


def make_timings(d: Path, n_ranks: int, n_calls: int, n_sites: int) -> int:
    """Execution and late-arrival files of both communicators; returns their bytes."""
    rng = np.random.default_rng(11)
    calls = np.arange(n_calls)
    total = 0
    for measure in ("execution", "late_arrival"):
        for comm in (0, 1):
            mine = calls[(calls % n_sites) % 2 == comm]
            parts = ["FORMAT_VERSION: 9\n\n"]
            for c in mine.tolist():
                values = rng.random(n_ranks) * 0.05
                parts.append(f"# Call {c}\n" + "\n".join(f"{v:.6f}" for v in values) + "\n\n")
            path = d / f"alltoallv_{measure}_times.rank0_comm{comm}_job0.md"
            path.write_text("".join(parts))
            total += path.stat().st_size
    return total


def _weave(profile):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedCallsWarning)
        return profile.call_sites()


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks counts_sites")
    ap.add_argument("--quick", action="store_true", help="a smaller synthetic set (smoke run)")
    args = ap.parse_args(argv)
    n_ranks, n_calls, n_sites = (512, 200, 20) if args.quick else (4096, 1000, 20)
    table = Table(
        f"call sites: WRF (964 calls, 160 ranks) and synthetic ({n_ranks} ranks x {n_calls} "
        f"calls, {n_sites} sites, timings of every rank)",
        header=("case", "perfweave", "target", "", ""),
    )
    with tempfile.TemporaryDirectory(prefix="perfweave-sites-bench-") as tmp:
        wrf = Path(tmp) / "wrf"
        shutil.copytree(DATA / "wrf_all_calls", wrf)
        for name in ("execution", "late_arrival"):
            f = f"alltoallv_{name}_times.rank0_comm0_job5471563.md"
            shutil.copy(DATA / "wrf_160ranks_niagara_job5471563" / f, wrf / f)
        t_read, prof = best_time(lambda: read(wrf), repeat=3)
        t_weave, gf = best_time(lambda: _weave(prof), repeat=5)
        table.add("WRF: read(directory)", t_read)
        table.add(
            f"WRF: call_sites() -> {len(gf.graph)} nodes, {len(gf.dataframe):,} rows", t_weave
        )

        syn = Path(tmp) / "synthetic"
        syn.mkdir()
        t0 = time.perf_counter()
        make_compact_set(syn, n_ranks, n_calls, 50, 32)
        make_backtraces(syn, n_calls, n_sites)
        tsize = make_timings(syn, n_ranks, n_calls, n_sites)
        print(
            f"generated the synthetic set ({tsize / 1e6:.0f} MB of timings) in "
            f"{time.perf_counter() - t0:.1f} s"
        )
        t_sread, sprof = best_time(lambda: read(syn), repeat=1)
        table.add(f"synthetic: read(directory), {len(sprof.timings):,} times", t_sread)
        t_sweave, sgf = best_time(lambda: _weave(sprof), repeat=3)
        table.add(
            f"synthetic: call_sites() -> {len(sgf.graph)} nodes, {len(sgf.dataframe):,} rows",
            t_sweave,
            target=1.0,
        )
        # on a shared machine wall time includes waiting for a core: the CPU time is the work
        table.add("  CPU time of call_sites()", best_cpu(lambda: _weave(sprof), repeat=3))
        t_imb, _ = best_time(lambda: sgf.load_imbalance("time (inc)"), repeat=3)
        table.add("synthetic: load_imbalance('time (inc)') of the tree", t_imb)
    table.print()


if __name__ == "__main__":  # pragma: no cover
    import sys

    main(sys.argv[1:])
