"""Benchmark of perfweave.counts on synthetic collective-profiler results.

- compact set: send/recv-counters files of one lead rank, 4,096 ranks x 1,000 calls with
  50 distinct count matrices per direction (32 distinct rows each, rank ranges as the
  profiler writes them);
- per-call set: counts.rank0_call<N>.md files, 1,024 ranks x 100 calls (10 distinct).

Figures: read time and MB/s of count text (target >= 100 MB/s), patterns for all calls
(target <= 2 s), memory of the call groups, and a pure-Python line-by-line parser of the
same files timed in the same run (ratio printed). Per-call files are parsed on the default
threads of ``read_percall_files`` (the CPUs available) and on one thread; the floor row
times writing as many new int64 arrays as the files parse to on one thread, which no
one-thread parser gets below where first touching memory is slow (it is on this VM, see
docs/counts.md).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks._common import Table, best_time, peak_traced_mb
from perfweave.counts import (
    CompactBlock,
    CountMatrix,
    detect_patterns,
    read,
    read_compact,
    read_percall,
    read_percall_files,
    write_compact,
)
from perfweave.counts._parallel import default_workers


def _matrix(rng: np.random.Generator, n: int, distinct_rows: int) -> CountMatrix:
    rows = rng.integers(0, 5000, size=(distinct_rows, n))
    rows[rng.random(rows.shape) < 0.6] = 0  # sparse, as real alltoallv counts are
    # contiguous rank ranges per row (plus some scatter) as in real files
    row_of_rank = np.sort(rng.integers(0, distinct_rows, size=n))
    swap = rng.choice(n, size=n // 16, replace=False)
    row_of_rank[swap] = rng.integers(0, distinct_rows, size=swap.size)
    return CountMatrix(rows, row_of_rank)


def make_compact_set(d: Path, n_ranks: int, n_calls: int, n_distinct: int, rows: int) -> int:
    """Write send/recv compact files; returns their total size in bytes."""
    rng = np.random.default_rng(42)
    calls = np.arange(n_calls)
    total = 0
    for kind, assign in (("send", calls % n_distinct), ("recv", (calls // 20) % n_distinct)):
        blocks = []
        for k in range(n_distinct):
            mine = calls[assign == k]
            if mine.size:
                m = _matrix(rng, n_ranks, rows)
                blocks.append(CompactBlock("Alltoallv", n_ranks, 8, mine, m, (0, n_calls - 1)))
        path = write_compact(blocks, d / f"{kind}-counters.job0.rank0.txt", style="profiler")
        total += path.stat().st_size
    return total


def make_percall_set(d: Path, n_ranks: int, n_calls: int, n_distinct: int) -> int:
    rng = np.random.default_rng(7)
    contents = []
    for _ in range(n_distinct):
        send = rng.integers(0, 100, size=(n_ranks, n_ranks))
        send[rng.random(send.shape) < 0.9] = 0
        lines = ["Send datatype size: 4", "Recv datatype size: 4", f"Comm size: {n_ranks}", ""]
        lines.append("Send counts")
        lines += [" ".join(map(str, r)) + " " for r in send.tolist()]
        lines += ["", "", "Recv counts"]
        lines += [" ".join(map(str, r)) + " " for r in send.T.tolist()]
        contents.append("\n".join(lines))
    total = 0
    for c in range(n_calls):
        first = d / f"counts.rank0_call{c % n_distinct}.md"
        path = d / f"counts.rank0_call{c}.md"
        if c < n_distinct:
            path.write_text(contents[c])
        else:
            os.link(first, path)
        total += path.stat().st_size
    return total


def python_parse_compact(path: Path) -> list:
    """Line-by-line pure-Python reader of a compact file (the peer of the numpy parser)."""
    blocks, rows, in_data = [], [], False
    with open(path) as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line == "BEGINNING DATA":
                in_data, rows = True, []
            elif line == "END DATA":
                in_data = False
                blocks.append(rows)
            elif in_data:
                head, _, tail = line.partition(":")
                rows.append((head[8:], [int(x) for x in tail.split()]))
    return blocks


def python_parse_percall(path: Path) -> tuple[list, list]:
    send, recv, target = [], [], None
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if line == "Send counts":
                target = send
            elif line == "Recv counts":
                target = recv
            elif line and target is not None:
                target.append([int(x) for x in line.split()])
    return send, recv


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks counts")
    ap.add_argument("--quick", action="store_true", help="smaller sets (smoke run)")
    args = ap.parse_args(argv)
    n_ranks, n_calls, pc_ranks, pc_calls = (4096, 1000, 1024, 100)
    if args.quick:
        n_ranks, n_calls, pc_ranks, pc_calls = (512, 200, 256, 20)

    with tempfile.TemporaryDirectory(prefix="perfweave-counts-bench-") as tmp:
        cdir, pdir = Path(tmp) / "compact", Path(tmp) / "percall"
        cdir.mkdir()
        pdir.mkdir()
        t0 = time.perf_counter()
        csize = make_compact_set(cdir, n_ranks, n_calls, 50, 32)
        psize = make_percall_set(pdir, pc_ranks, pc_calls, 10)
        print(
            f"generated {csize / 1e6:.1f} MB compact + {psize / 1e6:.1f} MB per-call text "
            f"in {time.perf_counter() - t0:.1f} s"
        )

        table = Table(
            f"counts: compact {n_ranks} ranks x {n_calls} calls (50 distinct matrices), "
            f"per-call {pc_ranks} ranks x {pc_calls} calls",
            header=("case", "perfweave", "target", "pure Python", "speed-up"),
        )
        files = sorted(cdir.glob("*.txt"))
        t_read, _ = best_time(lambda: [read_compact(p) for p in files], repeat=3)
        t_py, _ = best_time(lambda: [python_parse_compact(p) for p in files], repeat=1)
        table.add("parse compact files", t_read, peer=t_py)
        mbps = csize / 1e6 / t_read
        table.add_row(
            "  = count text rate",
            f"{mbps:,.0f} MB/s",
            f">= 100 MB/s{' ok' if mbps >= 100 else ' MISSED'}",
            f"{csize / 1e6 / t_py:,.0f} MB/s",
            "",
        )

        body = " ".join(
            line.partition(":")[2]
            for p in files
            for line in p.read_text().split("\n")
            if line.startswith("Rank(s)")
        )
        t_c, _ = best_time(lambda: np.fromstring(body, dtype=np.int64, sep=" "), repeat=3)
        table.add_row(
            "  numpy C parser alone (np.fromstring)",
            f"{len(body) / 1e6 / t_c:,.0f} MB/s",
            "",
            "",
            "",
        )
        t_prof, prof = best_time(lambda: read(cdir), repeat=2)
        table.add("read(directory) -> CountsProfile", t_prof)
        groups = prof.call_groups(0)
        t_pat, report = best_time(lambda: detect_patterns(groups), repeat=3)
        table.add(f"patterns, all {n_calls} calls ({len(groups)} call groups)", t_pat, target=2.0)

        distinct = {id(m): m for g in groups for m in (g.send, g.recv)}
        held = sum(m.rows.nbytes + m.row_of_rank.nbytes for m in distinct.values()) / 2**20
        dense = n_calls * 2 * n_ranks * n_ranks * 8 / 2**30
        peak, _ = peak_traced_mb(lambda: read(cdir))
        table.add_row(
            "matrices held (distinct only)", f"{held:,.1f} MB", f"{len(distinct)} matrices", "", ""
        )
        table.add_row("  dense per-call equivalent", f"{dense:,.0f} GB", "", "", "")
        table.add_row("  peak traced memory of read()", f"{peak:,.0f} MB", "", "", "")

        pfiles = sorted(pdir.glob("*.md"))
        workers = default_workers()
        # every parse below keeps its matrices until the end, so each writes memory as new to
        # the process (and to the VM) as a user's first read would
        t_pc, held_threads = best_time(lambda: read_percall_files(pfiles), repeat=1)
        table.add(f"parse {len(pfiles)} per-call files, {workers} threads", t_pc)
        pmbps = psize / 1e6 / t_pc
        table.add_row(
            "  = count text rate",
            f"{pmbps:,.0f} MB/s",
            f">= 100 MB/s{' ok' if pmbps >= 100 else ' MISSED'}",
            "",
            "",
        )
        cpu0 = time.process_time()
        t_pc1, held_one = best_time(lambda: read_percall_files(pfiles, workers=1), repeat=1)
        cpu_pc = time.process_time() - cpu0  # the parse's own CPU time (user + sys)
        table.add(f"parse {len(pfiles)} per-call files, 1 thread", t_pc1)
        table.add_row("  = count text rate", f"{psize / 1e6 / t_pc1:,.0f} MB/s", "", "", "")
        table.add_row(
            "  = rate by CPU time (not waiting for others)",
            f"{psize / 1e6 / cpu_pc:,.0f} MB/s",
            "",
            "",
            "",
        )
        # a floor no one-thread parser gets below: as many new int64 arrays as the files parse
        # to, written while the parsed matrices are held (so its memory is as new as theirs)
        shape = (pc_ranks, pc_ranks)
        t_fill, filled = best_time(
            lambda: [np.ones(shape, dtype=np.int64) for _k in range(2 * len(pfiles))], repeat=1
        )
        gb = 2 * len(pfiles) * pc_ranks * pc_ranks * 8 / 1e9
        table.add(f"  floor: write {gb:.1f} GB of new int64 arrays (no parsing)", t_fill)
        table.add_row(
            "  = count text rate at that floor", f"{psize / 1e6 / t_fill:,.0f} MB/s", "", "", ""
        )
        del held_threads, held_one, filled
        sub = pfiles[:10]
        sub_size = sum(p.stat().st_size for p in sub) / 1e6
        t_sub, _ = best_time(lambda: [read_percall(p) for p in sub], repeat=1)
        t_sub_py, _ = best_time(lambda: [python_parse_percall(p) for p in sub], repeat=1)
        table.add(f"parse 10 per-call files ({sub_size:.0f} MB)", t_sub, peer=t_sub_py)
        t_pprof, pprof = best_time(lambda: read(pdir), repeat=1)
        table.add(f"read(per-call directory): {len(pprof.groups)} call groups", t_pprof)
        table.print()
        print(
            f"patterns: {len(report.patterns)}; summary categories 1->N {len(report.one_to_n)}, "
            f"N->1 {len(report.n_to_one)}, N->n {len(report.n_to_n)}"
        )


if __name__ == "__main__":  # pragma: no cover
    import sys

    main(sys.argv[1:])
