"""Profile classes at scale: ``python -m benchmarks classes [--paths N] [--samples N]``.

* 100,000 synthetic OProfile sample file paths over 64 CPUs, 2,000 threads (200 processes
  of 10 threads, 20 programs) and 4 events, each program with 5 dependent images: parse
  the paths, arrange them (``--merge=cpu,tgid``, and one event split by CPU) and invert.
  Target: parse + arrange + invert <= 2 s. Then a picker's control change on the same table:
  :class:`~perfweave.classes.SpecCodes` once, re-arrange + report per merge choice.
* A ``perf script`` text of 1,000,000 samples (flat format with locations): parse into
  samples and fold into spec rows. Target: parse <= 10 s.

There is no peer in Python for opreport's classification, so the table has no peer column.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks._common import Table, best_cpu, best_time, peak_traced_mb
from perfweave.classes import (
    SpecCodes,
    arrange,
    invert,
    parse_sample_paths,
    perf_sample_specs,
    read_perf_script,
    report,
)

EVENTS = ("CPU_CLK_UNHALTED", "RETIRED_INSTRUCTIONS", "DATA_CACHE_MISSES", "BRANCH_MISSES")
LIBS = ("libc.so.6", "libm.so.6", "libpthread.so.0", "libstdc++.so.6", "ld-linux-x86-64.so.2")


def synthetic_paths(n: int = 100_000, threads: int = 2000, cpus: int = 64) -> list[str]:
    """``n`` distinct sample file paths (event x thread x (cpu, image) combinations)."""
    i = np.arange(n)
    event = i % len(EVENTS)
    thread = (i // len(EVENTS)) % threads
    rest = i // (len(EVENTS) * threads)
    cpu = (rest * 5 + thread) % cpus
    lib = rest % (len(LIBS) + 1)
    tgid = 10_000 + (thread // 10) * 10
    tid = tgid + thread % 10
    program = (tgid // 10) % 20
    out = []
    for e, c, li, g, t, p in zip(event, cpu, lib, tgid, tid, program):
        app = f"/opt/app{p:02d}/bin/solver{p:02d}"
        dep = f"{{root}}{app}" if li == 0 else f"{{root}}/usr/lib/{LIBS[li - 1]}"
        out.append(
            f"/data/session/samples/current/{{root}}{app}/{{dep}}/{dep}/"
            f"{EVENTS[e]}.100000.0.{g}.{t}.{c}"
        )
    return out


def synthetic_perf_script(n: int = 1_000_000) -> str:
    """``n`` flat ``perf script`` sample lines over 8 processes, 2 events, 64 CPUs."""
    rng = np.random.default_rng(5)
    pid = rng.integers(0, 8, n)
    cpu = rng.integers(0, 64, n)
    ev = rng.integers(0, 2, n)
    sym = rng.integers(0, 50, n)
    lib = rng.integers(0, 3, n)
    comms = [f"solver{k}" for k in range(8)]
    dsos = ["/opt/bin/solver{k}", "/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]"]
    events = ("cycles:u", "instructions:u")
    lines = [
        f"{comms[p]} {4000 + p}/{4000 + p} [{c:03d}] {1000 + k * 1e-4:.6f}: 250000 "
        f"{events[e]}:  {0x401000 + s * 64:x} func_{s}+0x1c ({dsos[li].format(k=p)})"
        for k, (p, c, e, s, li) in enumerate(zip(pid, cpu, ev, sym, lib))
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks classes")
    parser.add_argument("--paths", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    paths = synthetic_paths(args.paths)
    table = Table(
        f"profile classes ({args.paths:,} sample paths, 64 CPUs, 2,000 threads, "
        f"4 events; perf script {args.samples:,} samples)"
    )

    t_parse, parsed = best_time(lambda: parse_sample_paths(paths), args.repeat)
    specs = parsed.table
    t_arrange, classes = best_time(lambda: arrange(specs, "cpu,tgid"), args.repeat)
    t_invert, inverted = best_time(lambda: invert(classes), args.repeat)
    one_event = specs[specs["event"] == EVENTS[0]]
    t_cpu, by_cpu = best_time(lambda: arrange(one_event, "tgid"), args.repeat)
    t_total, _ = best_time(
        lambda: invert(arrange(parse_sample_paths(paths).table, "cpu,tgid")), args.repeat
    )
    cpu_total = best_cpu(lambda: invert(arrange(parse_sample_paths(paths).table, "cpu,tgid")))
    mem, _ = peak_traced_mb(lambda: invert(arrange(parse_sample_paths(paths).table, "cpu,tgid")))

    table.add("parse sample paths", t_parse)
    table.add(f"arrange --merge=cpu,tgid ({len(classes)} classes)", t_arrange)
    table.add(f"invert ({len(inverted)} binaries)", t_invert)
    table.add(f"arrange one event --merge=tgid ({len(by_cpu)} cpu classes)", t_cpu)
    table.add("parse + arrange + invert", t_total, target=2.0)
    table.add("parse + arrange + invert (CPU time)", cpu_total, target=2.0)
    table.add("  peak traced memory", mem, unit="MB")

    # a picker's control change: the codes of the table computed once, then every merge
    # choice only re-arranges integers and sums the report (samples: one per file)
    counted = specs.assign(samples=np.arange(len(specs), dtype=np.int64) % 997 + 1)
    t_codes, codes = best_time(lambda: SpecCodes.of(counted), args.repeat)
    table.add("SpecCodes of the table (once per source)", t_codes)
    one = codes.take((counted["event"] == EVENTS[0]).to_numpy())  # a spec: one event
    for label, sel, merge in (
        ("", codes, "cpu,tgid"),
        (" one event", one, "tgid"),
        ("", codes, "all"),
    ):
        t_re, again = best_time(lambda s=sel, m=merge: report(arrange(s, m)), args.repeat)
        n = again.shape[1] // 2
        table.add(f"re-arrange + report{label} --merge={merge} ({n} classes)", t_re)

    text = synthetic_perf_script(args.samples)
    t_perf, samples = best_time(lambda: read_perf_script(text=text), max(1, args.repeat - 2))
    cpu_perf = best_cpu(lambda: read_perf_script(text=text))
    t_fold, folded = best_time(lambda: perf_sample_specs(samples), args.repeat)
    table.add(
        f"perf script parse ({len(samples):,} samples, {len(text) / 2**20:.0f} MB)",
        t_perf,
        target=10.0,
    )
    table.add("perf script parse (CPU time)", cpu_perf, target=10.0)
    table.add(f"perf samples -> spec rows ({len(folded):,} rows)", t_fold)
    table.print()
