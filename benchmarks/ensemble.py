"""Ensemble benchmark: reading, building, concat, intersection and statistics, with
llnl-thicket timed on the same data in the same run (under a time cap).

``python -m benchmarks ensemble`` runs every case of issue 3 and the statistics filters of
issue 22; ``--quick`` a small subset for development; ``--only read`` the .cali reading
case alone, ``--only read-many`` 10,000 .cali files read with the default settings (issue
34: median and range of five fresh runs; ``--compare SRC`` alternates with an older
checkout), ``--only filter-stats`` the statistics filters alone; ``--cap S`` bounds each
Thicket run (default 60 s; ``--filter-cap`` the filter_stats one, whose Thicket takes
minutes to build).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks._common import (
    Table,
    best_cpu,
    best_time,
    capped_time,
    max_rss_mb,
    peak_traced_mb,
)
from perfweave.calltree._build import build_graphframe
from perfweave.ensemble import Ensemble

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "thicket"


# ---------------------------------------------------------------------- synthetic data
def base_tree(rng: np.random.Generator, n: int) -> np.ndarray:
    """Parent ids of a random recursive tree of ``n`` nodes (node i hangs under j < i)."""
    parent = np.full(n, -1, np.int64)
    parent[1:] = (rng.random(n - 1) * np.arange(1, n)).astype(np.int64)
    return parent


def variant(rng, parent: np.ndarray, pool_parent: np.ndarray, change: float = 0.1):
    """A profile's tree: the base minus some of its leaves, plus as many nodes from a pool
    of optional nodes (so ``change`` of the nodes differ from the base in all, and the
    union stays near the base plus the pool, as for runs of one program).
    Returns (names, parent)."""
    n = len(parent)
    k = max(1, int(n * change / 2))
    is_leaf = np.ones(n, bool)
    is_leaf[parent[parent >= 0]] = False
    leaves = np.flatnonzero(is_leaf)
    drop = rng.choice(leaves, size=min(k, len(leaves) - 1), replace=False)
    keep = np.ones(n, bool)
    keep[drop] = False
    kept = np.flatnonzero(keep)
    compact = np.full(n, -1, np.int64)
    compact[kept] = np.arange(len(kept))
    kept_parent = np.where(parent[kept] >= 0, compact[np.maximum(parent[kept], 0)], -1)
    extra = rng.choice(len(pool_parent), size=min(k, len(pool_parent)), replace=False)
    names = np.concatenate(
        [np.char.add("n", kept.astype(str)), np.char.add("x", extra.astype(str))]
    )
    return names, np.concatenate([kept_parent, compact[pool_parent[extra]]])


def pool(rng, parent: np.ndarray, change: float = 0.1) -> np.ndarray:
    """Parents (internal base nodes) of ``change * n`` optional nodes."""
    is_leaf = np.ones(len(parent), bool)
    is_leaf[parent[parent >= 0]] = False
    internal = np.flatnonzero(~is_leaf)
    return rng.choice(internal, size=max(1, int(len(parent) * change)))


def graphframe(rng, names, parent, meta):
    n = len(names)
    t = rng.random(n)
    data = pd.DataFrame({"node": np.arange(n), "time": t, "time (inc)": t * 2})
    return build_graphframe(
        pd.DataFrame({"name": names}),
        data,
        parent=parent,
        exc_metrics=["time"],
        inc_metrics=["time (inc)"],
        metadata=meta,
    )


def synthetic(p: int, n: int, seed: int = 0, change: float = 0.1):
    """P GraphFrames of ``n``-node trees whose shapes differ by ``change``."""
    rng = np.random.default_rng(seed)
    parent = base_tree(rng, n)
    optional = pool(rng, parent, change)
    out = []
    for i in range(p):
        names, par = variant(rng, parent, optional, change)
        out.append(graphframe(rng, names, par, {"run": i, "ranks": int(2 ** (i % 7))}))
    return out


def overlapping(p: int, n: int, overlap: float = 0.5, seed: int = 1):
    """P trees of ``n`` nodes sharing ``overlap`` of their nodes (the rest unique)."""
    rng = np.random.default_rng(seed)
    parent = base_tree(rng, n)
    shared = int(n * overlap)
    out = []
    for i in range(p):
        names = np.char.add("n", np.arange(n).astype(str))
        names[shared:] = np.char.add(f"p{i}_", np.arange(n - shared).astype(str))
        out.append(graphframe(rng, names, parent, {"run": i}))
    return out


# ---------------------------------------------------------------------- Thicket side
def _hatchet_gf(gf):
    """A Hatchet GraphFrame with the same tree and values (built through its literal)."""
    import hatchet

    names = gf.graph.frames["name"].tolist()
    parent = gf.graph.parent
    t = gf.dataframe["time"].to_numpy()
    ti = gf.dataframe["time (inc)"].to_numpy()
    kids: list[list[int]] = [[] for _ in names]
    for c, par in enumerate(parent.tolist()):
        if par >= 0:
            kids[par].append(c)

    def lit(i):
        return {
            "frame": {"name": names[i], "type": "function"},
            "metrics": {"time": float(t[i]), "time (inc)": float(ti[i])},
            "children": [lit(c) for c in kids[i]],
        }

    roots = [i for i, par in enumerate(parent.tolist()) if par < 0]
    return hatchet.GraphFrame.from_literal([lit(r) for r in roots])


def _thickets(gfs):
    import thicket

    return [
        thicket.Thicket.thicketize_graphframe(_hatchet_gf(gf), f"profile{i}")
        for i, gf in enumerate(gfs)
    ]


def _thicket_concat(ths):
    import thicket

    thicket.Thicket.concat_thickets([t.deepcopy() for t in ths], disable_tqdm=True)


def _thicket_read(files):
    import thicket

    thicket.Thicket.from_caliperreader(files, disable_tqdm=True)


def _thicket_intersection(th):
    th.intersection()


def _peer(fn, args, cap, enabled):
    if not enabled:
        return None
    warnings.simplefilter("ignore")
    return capped_time(fn, args, cap)


# ---------------------------------------------------------------------- cases
# one timed read in a fresh interpreter: the code under test is whatever ``perfweave`` the
# child imports (PYTHONPATH picks an older checkout's src/ for a before/after comparison)
_READ_CHILD = """
import json, os, resource, sys, time
from perfweave.ensemble import Ensemble
files = open(sys.argv[1]).read().split()
workers = None if sys.argv[2] == "default" else int(sys.argv[2])
load = os.getloadavg()[0]
t0, c0 = time.perf_counter(), time.process_time()
ens = Ensemble.from_files(files, profile_key="file", workers=workers, progress=False)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": cpu, "readers_cpu": kids.ru_utime + kids.ru_stime,
                  "load": load, "profiles": len(ens), "nodes": len(ens.graph)}))
"""


def _timed_read(list_file: str, workers: str, src: str | None) -> dict:
    """One ``Ensemble.from_files`` of the listed files in a fresh ``python -c`` (started
    by fork, as a plain script is), with ``src`` first on its path if given."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    out = subprocess.run(
        [sys.executable, "-c", _READ_CHILD, list_file, workers],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _spread(values: list[float], unit: str = " s") -> str:
    return f"{np.median(values):.2f}{unit} ({min(values):.2f}-{max(values):.2f})"


def read_many(n_files: int, runs: int, compare: str | None, serial: bool) -> None:
    """``n_files`` RAJAPerf .cali files (the 5 quartz runs copied) read with the default
    settings (all cores from 256 files on), ``runs`` times, each in a fresh interpreter:
    median and range of the wall time, of the CPU time of the calling process and of its
    reader processes, and the machine's load (1-minute average) before each run.

    ``compare`` is another checkout's ``src`` directory (``git worktree add /tmp/old
    <commit>``): its runs alternate with this checkout's, so both see the same load.
    ``serial`` adds ``workers=1`` (one process) runs.
    """
    import os

    here = str(Path(__file__).resolve().parent.parent / "src")
    versions = [("this checkout", here)] + ([(f"{compare}", compare)] if compare else [])
    cases = [("default", "default")] + ([("one process (workers=1)", "1")] if serial else [])
    src = sorted((DATA / "rajaperf" / "quartz").rglob("*.cali"))
    table = Table(
        f"ensemble: reading {n_files:,} RAJAPerf .cali files, median (range) of {runs} runs"
    )
    table.header = ("case", "wall", "target", "CPU: caller + readers", "load (1 min)")
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i in range(n_files):
            dst = Path(tmp) / f"run{i:05d}.cali"
            shutil.copy(src[i % len(src)], dst)
            files.append(str(dst))
        list_file = str(Path(tmp) / "files.txt")
        Path(list_file).write_text("\n".join(files))
        got: dict[tuple[str, str], list[dict]] = {}
        for _ in range(runs):  # versions and cases alternate within each round
            for label, workers in cases:
                for name, path in versions:
                    got.setdefault((name, label), []).append(_timed_read(list_file, workers, path))
    for (name, label), rows in got.items():
        walls = [r["wall"] for r in rows]
        cpus = [r["cpu"] + r["readers_cpu"] for r in rows]
        target = ""
        if label == "default" and n_files == 10_000 and runs >= 5:  # issue 34's target
            ok = np.median(walls) <= 15
            target = "<= 15 s" + (" ok" if ok else " MISSED")
        table.add_row(
            f"{name}, {label}: {rows[0]['profiles']} profiles",
            _spread(walls),
            target,
            _spread(cpus),
            _spread([r["load"] for r in rows], ""),
        )
    table.add_row("", "", "", f"{_usable_cores()} usable cores", f"{os.getloadavg()[0]:.2f} at end")
    table.print()


def _thicket_filter_stats(gfs, cut: float) -> float:
    """Thicket's filter_stats on the same profiles: the Thicket is built and its std
    computed in this (forked) process; only the filter is timed."""
    import time

    import thicket

    th = thicket.Thicket.concat_thickets(_thickets(gfs), disable_tqdm=True)
    # the literal-built Thickets have no metadata, and filter_stats' profile check
    # rejects an empty metadata table: one row per profile, as a read would give
    th.metadata = pd.DataFrame(
        {"run": range(len(th.profile))}, index=pd.Index(th.profile, name="profile")
    )
    thicket.stats.std(th, columns=["time"])
    t0 = time.perf_counter()
    th.filter_stats(lambda row: row["time_std"] > cut)
    return time.perf_counter() - t0


def filter_stats_case(table: Table, quick: bool, peer: bool, cap: float) -> None:
    """``filter_stats`` on ensembles of P profiles of N-node trees (issue 22: 10,000 nodes
    x 100 profiles <= 0.1 s): a row callable, the same as a query string, and a
    ``query_stats`` call-path query; half the nodes kept. Thicket runs the same filter on
    the same profiles (its build is not timed, only capped)."""
    for n, p in [(1000, 20)] if quick else [(1000, 100), (10_000, 100)]:
        gfs = synthetic(p, n, seed=3)
        ens = Ensemble.from_graphframes(gfs, profile_key="run")
        ens.stats(["time"], stats=["mean", "std"])
        spread = np.unique(ens.statsframe["time_std"].dropna())
        cut = float(spread[len(spread) // 2])
        label = f"{len(ens.graph):,} nodes x {p} profiles"
        t, out = best_time(lambda: ens.filter_stats(lambda row: row["time_std"] > cut), repeat=5)
        cpu = best_cpu(lambda: ens.filter_stats(lambda row: row["time_std"] > cut), repeat=5)
        target = 0.1 if n == 10_000 and p == 100 else None
        table.add(
            f"filter_stats (row callable), {label}, {len(out.graph):,} kept",
            t,
            target,
            _peer(_thicket_filter_stats, (gfs, cut), cap, peer),
        )
        table.add("  same, CPU time of this process", cpu, target)
        t, _ = best_time(lambda: ens.filter_stats(f"`time_std` > {cut!r}"), repeat=5)
        table.add(f"filter_stats (query string), {label}", t, target)
        t, _ = best_time(lambda: ens.query_stats(["*", {"name": "n1.*"}]), repeat=3)
        table.add(f"query_stats (call-path query), {label}", t)


def _usable_cores() -> int:
    from perfweave.ensemble.build import _usable_cores as cores

    return cores()


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks ensemble")
    ap.add_argument("--quick", action="store_true", help="small sizes only (development)")
    ap.add_argument("--cap", type=float, default=60.0, help="time cap per Thicket run (s)")
    ap.add_argument("--no-peer", action="store_true", help="do not time llnl-thicket")
    ap.add_argument(
        "--only",
        choices=["read", "read-many", "filter-stats"],
        help="run only this case: 'read' (100 .cali files), 'read-many' (--files .cali files "
        "read in one process and on all cores), 'filter-stats' (statistics filters, with "
        "Thicket's filter_stats under --filter-cap)",
    )
    ap.add_argument(
        "--filter-cap",
        type=float,
        default=1800.0,
        help="time cap of Thicket's filter_stats case (s): building its 100-profile Thicket "
        "of 10,000-node trees takes many minutes",
    )
    ap.add_argument("--files", type=int, default=10_000, help="file count of 'read-many'")
    ap.add_argument("--runs", type=int, default=5, help="timed runs of 'read-many' (median, range)")
    ap.add_argument(
        "--compare",
        metavar="SRC",
        help="'read-many' also runs the perfweave in this src directory (an older checkout: "
        "git worktree add /tmp/old <commit>; --compare /tmp/old/src), alternating with this one",
    )
    ap.add_argument("--serial", action="store_true", help="'read-many' also times workers=1")
    args = ap.parse_args(argv)
    if args.only == "read-many":
        read_many(args.files, args.runs, args.compare, args.serial)
        return
    try:
        import thicket  # noqa: F401

        peer = not args.no_peer
    except ImportError:
        peer = False
    warnings.simplefilter("ignore")
    quick, cap = args.quick, args.cap
    if args.only == "filter-stats":
        table = Table("ensemble: statistics filters (issue 22)")
        filter_stats_case(table, quick, peer, args.filter_cap)
        table.print()
        return
    table = Table("ensemble (issue 3)")

    # 1. reading 100 RAJAPerf .cali files (74 nodes each): 5 runs copied 20 times
    n_files = 20 if quick else 100
    src = sorted((DATA / "rajaperf" / "quartz").rglob("*.cali"))
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i in range(n_files):
            dst = Path(tmp) / f"run{i:03d}.cali"
            shutil.copy(src[i % len(src)], dst)
            files.append(str(dst))
        t, ens = best_time(
            lambda: Ensemble.from_files(files, profile_key="file"), repeat=1 if not quick else 2
        )
        table.add(
            f"read {n_files} RAJAPerf .cali ({len(ens.graph)} nodes)",
            t,
            1.0 if n_files == 100 else None,
            _peer(_thicket_read, (files,), cap, peer),
        )
        with ProcessPoolExecutor(max_workers=2) as ex:
            t, _ = best_time(
                lambda: Ensemble.from_files(files, profile_key="file", executor=ex, progress=False),
                repeat=1,
            )
        table.add("  same, 2 reader processes", t, 1.0 if n_files == 100 else None)
        th_read = None
        if peer:
            import thicket

            th_read = thicket.Thicket.from_caliperreader(files[:100], disable_tqdm=True)
        t, _ = best_time(lambda: ens.intersection(), repeat=3)
        table.add(
            f"intersection, {n_files} RAJAPerf profiles",
            t,
            0.1,
            _peer(_thicket_intersection, (th_read,), cap, peer and th_read is not None),
        )

    if args.only == "read":
        table.print()
        return

    # 2. concat of 4 single-profile ensembles of 1e3 / 1e4 nodes with 50% overlap
    for n in (1000,) if quick else (1000, 10000):
        gfs = overlapping(4, n)
        parts = [Ensemble.from_graphframes([gf], profile_key="run") for gf in gfs]
        t, _ = best_time(lambda parts=parts: Ensemble.concat(parts), repeat=3)
        ths = _thickets(gfs) if peer else None
        table.add(
            f"concat 4 x {n:.0e} nodes, 50% overlap",
            t,
            0.2 if n == 10000 else None,
            _peer(_thicket_concat, (ths,), cap, peer),
        )

    # 3. building from in-memory GraphFrames: P x 1,000 nodes, shapes differ by 10%
    big = None
    for p in (10, 100) if quick else (10, 100, 1000):
        gfs = synthetic(p, 1000)
        t, ens = best_time(
            lambda gfs=gfs: Ensemble.from_graphframes(gfs, profile_key="run"),
            repeat=1 if p == 1000 else 3,
        )
        ths = _thickets(gfs) if peer and p <= 100 else None
        table.add(
            f"build {p} x 1e3-node ensemble ({len(ens.graph)} union nodes)",
            t,
            3.0 if p == 1000 else None,
            _peer(_thicket_concat, (ths,), cap, ths is not None)
            if p <= 100
            else ("not run" if peer else None),
        )
        if p == 100:
            t, _ = best_time(lambda ens=ens: ens.intersection(), repeat=3)
            table.add("intersection, 100 x 1e3-node profiles", t, 0.1)
        big = ens

    # 4. statistics over all profiles of the largest ensemble
    p_big = len(big)
    t, _ = best_time(lambda: big.stats(["time", "time (inc)"], percentiles=[0.25, 0.75]), repeat=3)
    table.add(f"full stats pass, {p_big} profiles x 2 metrics", t, 1.0 if p_big == 1000 else None)
    t, _ = best_time(lambda: big.correlate("time", "ranks"), repeat=3)
    table.add(f"correlation with metadata, {p_big} profiles", t)

    # 5. concat of two halves of the largest ensemble
    half = p_big // 2
    first = big.filter_profile(big.profiles[:half])
    second = big.filter_profile(big.profiles[half:])
    t, _ = best_time(lambda: Ensemble.concat([first, second]), repeat=3)
    table.add(f"concat two {half}-profile ensembles", t, 2.0 if half == 500 else None)

    # 6. 100 profiles of 1e5 nodes (time and traced peak memory)
    if not quick:
        gfs = synthetic(100, 100_000, seed=5)
        rss0 = max_rss_mb()
        t, ens = best_time(lambda: Ensemble.from_graphframes(gfs, profile_key="run"), repeat=1)
        del ens
        mb, _ = peak_traced_mb(lambda: Ensemble.from_graphframes(gfs, profile_key="run"))
        table.add("build 100 x 1e5-node ensemble", t, 20.0)
        table.add_row(
            "  peak memory of that build (traced)",
            f"{mb / 1024:.2f} GB",
            "<= 4 GB" + (" ok" if mb <= 4096 else " MISSED"),
            f"process max RSS {max(max_rss_mb(), rss0) / 1024:.2f} GB",
            "",
        )
    filter_stats_case(table, quick, peer, args.filter_cap)
    table.print()
    # 7. issue 34: 10,000 .cali files with the default settings, median of five fresh runs
    read_many(500 if quick else args.files, 2 if quick else args.runs, args.compare, args.serial)
