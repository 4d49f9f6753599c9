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

``python -m benchmarks calltree_deep [DEPTH ...] [--trace DEPTH ...] [--only cali|literal|trace]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
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

    from perfweave.calltree import _deepjson

    hatchet.GraphFrame.from_literal(_deepjson.loads(Path(path).read_text()))


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


def main(argv: list[str]) -> None:
    import perfweave as pw
    from perfweave.calltree import _deepjson

    ap = argparse.ArgumentParser(prog="python -m benchmarks calltree_deep")
    ap.add_argument("depths", nargs="*", type=int, default=[2_500, 10_000, 20_000])
    ap.add_argument("--trace", nargs="+", type=int, default=[10_000, 30_000, 100_000])
    ap.add_argument("--only", choices=("cali", "literal", "trace"))
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
            path.write_text(_deepjson.dumps(literal_chain(n)))
            t_read, gf = best_time(lambda p=path: pw.read(p, format="literal"), repeat=2)
            t_write, _ = best_time(lambda g=gf: _deepjson.dumps(g.to_literal()), repeat=2)
            peer = capped_time(_hatchet_literal, (str(path),), cap=60.0)
            table.add_row(
                f"literal chain, depth {n:,}: read / write",
                f"{t_read:.3f} / {t_write:.3f} s",
                "",
                "",
                f"{peer:.3f} s (read)" if isinstance(peer, float) else str(peer)[:60],
            )
    table.print()
