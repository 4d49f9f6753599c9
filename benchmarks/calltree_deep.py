"""Deep calltrees (issue #16): reading a ``.cali`` region chain 2,500 / 10,000 / 20,000
levels deep against a flat tree of the same size, and a literal JSON chain read and written;
trace-event chains (issue #29): 10,000 / 30,000 / 100,000 strictly nested calls.

The deep files are the bundled ordered ``.cali`` profile's attributes with a chain of
regions, one snapshot per level (the shape a deeply recursive code gives). Reading must be
linear in the depth: the deep/flat ratio stays near 1 as the depth grows (it was 0.6 s at
depth 2,500 and 23 s at 20,000). Hatchet reads the same .cali file through caliper-reader
in the same run (capped), and the literal chain with ``from_literal``.

The trace-event chains are PerfFlowAspect traces of one thread whose calls each hold the
next (compact ``X`` events written as the calls return, and ``B``/``E`` pairs), against the
same number of calls one after another; Hatchet reads the compact chain with
``from_perfflowaspect``. Nesting must be linear too (10,000 nested calls took 5.7 s, 30,000
took 26 s and 100,000 took 252 s when the nesting step made one pass per depth level).

Reading a 1,000,000-event trace (issue #31, target 3 s on this machine): the nested chain
(the 96 MB file of the issue), the same calls one after another, 500,000 B/E pairs, and a
PyTorch-shaped trace (steps of nested CPU ops on four threads, kernels on a GPU stream),
each read in a fresh process by the trace-event reader (a calltree) and the PerfFlowAspect
reader (one node per call), ``--runs`` times (default 5): median and range of the CPU and
wall seconds of the read, of the process's peak memory and of the load when it began, with
``json.loads`` and orjson's parse of the same file for scale. ``--compare SRC`` (an older
checkout's ``src``) alternates its reads with this checkout's, so both see the same load.

``python -m benchmarks calltree_deep [DEPTH ...] [--trace DEPTH ...] [--million N]
[--runs R] [--compare SRC] [--only cali|literal|trace|million]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from benchmarks._common import Table, best_time, capped_time

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "hatchet"
CALI = DATA / "caliper-ordered-cali" / "230525-151052_1930517_eWbGeyrlBOPT.cali"
SNAPSHOT = "attr=117=120=123=127=125=130=133,data=1=1=1=1=1=1={k}"


def _head() -> list[str]:
    """The bundled profile's attribute and channel records (everything but its regions)."""
    out = []
    for line in CALI.read_text().splitlines():
        if line.startswith("__rec=node,id=33,"):
            break
        if not line.startswith("__rec=ctx"):
            out.append(line)
    return out


def cali_text(n: int, deep: bool) -> str:
    """``n`` regions, each with one snapshot: a chain (``deep``) or all under one root."""
    lines = _head()
    for k in range(n):
        if k == 0:
            parent = ""
        else:
            parent = f",parent={1000 + k - 1}" if deep else ",parent=1000"
        lines.append(f"__rec=node,id={1000 + k},attr=32,data=f{k}{parent}")
        lines.append(f"__rec=ctx,ref={1000 + k}=134," + SNAPSHOT.format(k=k))
    return "\n".join(lines) + "\n"


def literal_chain(n: int) -> list[dict]:
    node: dict = {"frame": {"name": "leaf"}, "metrics": {"time": 1.0}}
    for k in range(n - 1):
        node = {"frame": {"name": f"f{k}"}, "metrics": {"time": 1.0}, "children": [node]}
    return [node]


def _hatchet_cali(path: str) -> None:
    import hatchet

    hatchet.GraphFrame.from_caliperreader(path)


def _hatchet_literal(path: str) -> None:
    import hatchet

    from perfweave.calltree import deepjson

    hatchet.GraphFrame.from_literal(deepjson.loads(Path(path).read_text()))


def trace_events(n: int, deep: bool, verbose: bool, names: int = 40) -> list[dict]:
    """``n`` calls of one thread: each inside the one before (``deep``) or one after
    another, as compact ``X`` events in return order or as ``B``/``E`` pairs; ``names``
    distinct function names in turn."""
    start = list(range(n)) if deep else [3 * k for k in range(n)]
    end = [2 * n - k for k in range(n)] if deep else [3 * k + 2 for k in range(n)]
    base = {"cat": "bench.py", "pid": 1, "tid": 1}
    if verbose:
        begins = [{**base, "name": f"f{k % names}", "ph": "B", "ts": start[k]} for k in range(n)]
        ends = [{**base, "name": f"f{k % names}", "ph": "E", "ts": end[k]} for k in range(n)]
        if deep:
            return begins + ends[::-1]
        return [e for pair in zip(begins, ends) for e in pair]
    order = range(n - 1, -1, -1) if deep else range(n)
    return [
        {**base, "name": f"f{k % names}", "ph": "X", "ts": start[k], "dur": end[k] - start[k]}
        for k in order
    ]


def _write_trace(path: Path, events: list[dict]) -> Path:
    path.write_text("[\n" + ",\n".join(json.dumps(e) for e in events) + "\n]\n")
    return path


def _hatchet_trace(path: str) -> None:
    import hatchet

    with contextlib.redirect_stdout(io.StringIO()):  # it prints a line per event
        hatchet.GraphFrame.from_perfflowaspect(path)


def _trace_rows(table: Table, tmp: str, depths: list[int]) -> None:
    import perfweave as pw

    for n in depths:
        for verbose in (False, True):
            form = "B/E pairs" if verbose else "X events"
            deep = _write_trace(Path(tmp) / f"deep{n}{verbose}.pfw", trace_events(n, True, verbose))
            flat = _write_trace(
                Path(tmp) / f"flat{n}{verbose}.pfw", trace_events(n, False, verbose)
            )
            t_deep, gf = best_time(lambda p=deep: pw.read(p), repeat=2)
            assert int(gf.graph.depth.max()) == n - 1
            t_flat, _ = best_time(lambda p=flat: pw.read(p), repeat=2)
            peer = "" if verbose else capped_time(_hatchet_trace, (str(deep),), cap=60.0)
            table.add_row(
                f"trace {form}, {n:,} nested calls",
                f"{t_deep:.3f} s",
                f"{t_flat:.3f} s",
                f"{t_deep / t_flat:.1f}x",
                f"{peer:.3f} s" if isinstance(peer, float) else str(peer)[:60],
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_merged, _ = best_time(
                lambda p=Path(tmp) / f"deep{n}False.pfw": pw.read(p, merge_calls=True), repeat=1
            )
        table.add_row(
            f"trace X events, {n:,} nested calls, merge_calls", f"{t_merged:.3f} s", "", "", ""
        )


def pytorch_like(n: int) -> list[dict]:
    """About ``n`` X events in the shape of a PyTorch profiler trace: profiler steps, each
    holding 12 ops of two nested levels with a kernel launch, on four CPU threads, and one
    kernel per launch on stream 7 of GPU 0 (pid 0); args hold per-call ids as PyTorch's do."""
    events: list[dict] = []
    t, step, k = 0.0, 0, 0
    while len(events) < n:
        tid = 100 + step % 4
        cpu = {"pid": 4242, "tid": tid}
        start = t
        ops = []
        for op in range(12):
            o = t + 1
            ops.append(("aten::linear" if op % 2 else "aten::relu", o, 9.0))
            ops.append(("aten::addmm" if op % 2 else "aten::clamp_min", o + 1, 6.0))
            ops.append(("cudaLaunchKernel", o + 2, 2.0))
            events.append(
                {
                    "ph": "X",
                    "cat": "kernel",
                    "name": f"kernel_{op % 5}",
                    "pid": 0,
                    "tid": 7,
                    "ts": o + 3,
                    "dur": 4.0,
                    "args": {"correlation": k},
                }
            )
            k += 1
            t += 10
        events.append(
            {
                "ph": "X",
                "cat": "user_annotation",
                "name": f"ProfilerStep#{step}",
                **cpu,
                "ts": start,
                "dur": t - start + 1,
                "args": {"External id": k},
            }
        )
        for name, ts, dur in ops:
            events.append(
                {
                    "ph": "X",
                    "cat": "cpu_op",
                    "name": name,
                    **cpu,
                    "ts": ts,
                    "dur": dur,
                    "args": {"External id": k},
                }
            )
            k += 1
        t += 2
        step += 1
    return events[:n]


#: a read in a fresh process: CPU and wall seconds of the read alone, peak memory, and the
#: load (1-minute average) when it began; the code read is whatever ``perfweave`` the child
#: imports (PYTHONPATH picks an older checkout's src/ for a before/after comparison)
_READ = """
import json, os, sys, time, warnings
import perfweave as pw
from perfweave.calltree.readers import perfflowaspect, trace_event  # imports not timed
import perfweave.calltree.graph
path, fmt = sys.argv[1], sys.argv[2]
warnings.simplefilter("ignore")
load = os.getloadavg()[0]
c0, t0 = time.process_time(), time.perf_counter()
if fmt == "json.loads":
    json.loads(open(path, "rb").read())
elif fmt == "orjson":
    import orjson
    orjson.loads(open(path, "rb").read())
else:
    gf = pw.read(path, format=fmt)
cpu, wall = time.process_time() - c0, time.perf_counter() - t0
# this process's peak (VmHWM: ru_maxrss would count the parent's memory from before exec)
peak = next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM"))
print(json.dumps({"cpu": cpu, "wall": wall, "peak": peak / 1024, "load": load}))
"""


def _fresh_read(path: Path, fmt: str, src: str | None = None) -> dict:
    """CPU and wall seconds, peak MB and load of one read of ``path`` as ``fmt`` in a fresh
    interpreter, with ``src`` first on its path if given."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    out = subprocess.run(
        [sys.executable, "-c", _READ, str(path), fmt], capture_output=True, text=True, env=env
    )
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _spread(values: list[float], fmt: str = "{:.2f}") -> str:
    """Median (range) of ``values``."""
    values = sorted(values)
    mid = len(values) // 2
    median = values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2
    if len(values) == 1:
        return fmt.format(median)
    return f"{fmt.format(median)} ({fmt.format(values[0])}-{fmt.format(values[-1])})"


def _million_rows(table: Table, tmp: str, n: int, runs: int, compare: str | None) -> None:
    """Each trace read ``runs`` times by each reader in fresh processes (the versions and
    the readers alternate, so all see the same load, and each round starts one read later):
    median (range) of CPU and wall seconds, of the peak memory and of the load when each
    read began."""
    cases = [
        (f"{n:,} X events, nested chain", lambda: trace_events(n, True, False)),
        (f"{n:,} X events, one after another", lambda: trace_events(n, False, False)),
        (f"{n // 2:,} B/E pairs ({n:,} events)", lambda: trace_events(n // 2, False, True)),
        (f"{n:,} X events, PyTorch-shaped", lambda: pytorch_like(n)),
    ]
    versions = [("", None)] + ([(f" [{compare}]", compare)] if compare else [])
    for label, make in cases:
        path = _write_trace(Path(tmp) / "million.json", make())
        size = path.stat().st_size / 1e6
        parse = {fmt: _fresh_read(path, fmt)["cpu"] for fmt in ("json.loads", "orjson")}
        reads = [(fmt, v) for fmt in ("trace-event", "perfflowaspect") for v in versions]
        got: dict[tuple[str, str], list[dict]] = {(fmt, v[0]): [] for fmt, v in reads}
        for k in range(runs):
            # each round starts one read later: a read's place in a round (the first read
            # after the json.loads parses or after the largest read) is no one's alone
            for fmt, (version, src) in reads[k % len(reads) :] + reads[: k % len(reads)]:
                got[(fmt, version)].append(_fresh_read(path, fmt, src))
        for (fmt, version), rows in got.items():
            table.add_row(
                f"{label} ({size:.0f} MB), {fmt}{version}",
                _spread([r["cpu"] for r in rows]),
                _spread([r["wall"] for r in rows]),
                _spread([r["peak"] for r in rows], "{:,.0f}"),  # Python and perfweave: ~110 MB
                _spread([r["load"] for r in rows], "{:.1f}"),
                f"{parse['json.loads']:.2f} s / {parse['orjson']:.2f} s",
            )


def main(argv: list[str]) -> None:
    import perfweave as pw
    from perfweave.calltree import deepjson

    ap = argparse.ArgumentParser(prog="python -m benchmarks calltree_deep")
    ap.add_argument("depths", nargs="*", type=int, default=[2_500, 10_000, 20_000])
    ap.add_argument("--trace", nargs="+", type=int, default=[10_000, 30_000, 100_000])
    ap.add_argument("--million", type=int, default=1_000_000, help="events of the large trace")
    ap.add_argument("--only", choices=("cali", "literal", "trace", "million"))
    ap.add_argument("--runs", type=int, default=5, help="fresh reads of each large trace")
    ap.add_argument(
        "--compare",
        metavar="SRC",
        help="another checkout's src directory (git worktree add /tmp/old <commit>; "
        "--compare /tmp/old/src): its large-trace reads alternate with this one's",
    )
    args = ap.parse_args(argv)
    depths = args.depths
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    table = Table(
        f"deep calltrees (load average {load}, 2 cores shared)",
        header=("case", "perfweave", "flat tree", "deep/flat", "hatchet"),
    )
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "trace"):
            _trace_rows(table, tmp, args.trace)
        if args.only in (None, "trace", "million"):
            million = Table(
                f"a {args.million:,}-event trace read, median (range) of {args.runs} fresh runs "
                f"(2 cores shared)",
                header=(
                    "case",
                    "CPU s",
                    "wall s",
                    "peak MB",
                    "load (1 min)",
                    "json.loads / orjson (CPU)",
                ),
            )
            _million_rows(million, tmp, args.million, args.runs, args.compare)
            million.print()
        for n in depths if args.only in (None, "cali") else []:
            deep, flat = Path(tmp) / f"deep{n}.cali", Path(tmp) / f"flat{n}.cali"
            deep.write_text(cali_text(n, True))
            flat.write_text(cali_text(n, False))
            t_deep, gf = best_time(lambda p=deep: pw.read(p), repeat=2)
            assert int(gf.graph.depth.max()) == n - 1
            t_flat, _ = best_time(lambda p=flat: pw.read(p), repeat=2)
            peer = capped_time(_hatchet_cali, (str(deep),), cap=60.0)
            table.add_row(
                f".cali chain, depth {n:,}",
                f"{t_deep:.3f} s",
                f"{t_flat:.3f} s",
                f"{t_deep / t_flat:.1f}x",
                f"{peer:.3f} s" if isinstance(peer, float) else str(peer)[:60],
            )
        for n in depths if args.only in (None, "literal") else []:
            path = Path(tmp) / f"lit{n}.json"
            path.write_text(deepjson.dumps(literal_chain(n)))
            t_read, gf = best_time(lambda p=path: pw.read(p, format="literal"), repeat=2)
            t_write, _ = best_time(lambda g=gf: deepjson.dumps(g.to_literal()), repeat=2)
            peer = capped_time(_hatchet_literal, (str(path),), cap=60.0)
            table.add_row(
                f"literal chain, depth {n:,}: read / write",
                f"{t_read:.3f} / {t_write:.3f} s",
                "",
                "",
                f"{peer:.3f} s (read)" if isinstance(peer, float) else str(peer)[:60],
            )
    if args.only != "million":
        table.print()
