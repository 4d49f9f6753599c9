"""Calltree analyses: load_imbalance, node_values, flat_profile, hot_path, groupby_aggregate,
subtree/subgraph sums, generate_exclusive_columns; llnl-hatchet where it has the operation.

``python -m benchmarks calltree_analysis [--nodes 100000] [--ranks 64] [--peer-nodes 2000]
[--cap 60]``

The large case is a fan-out-4 tree of ``--nodes`` nodes on ``--ranks`` ranks (target:
``load_imbalance`` <= 0.2 s at 1e5 x 64; CPU time is printed too, as the wall time of a
shared machine includes waiting for a core). Hatchet's per-node loops are compared on a
smaller tree (``--peer-nodes`` x 4 ranks), both libraries on the same data in this run,
Hatchet in a forked process capped at ``--cap`` seconds (its set-up not timed). Hatchet
(llnl-hatchet) has no load_imbalance / flat_profile / hot_path (they are Chopper's, from the
separate ``hatchet`` package, which cannot be installed beside it).
"""

from __future__ import annotations

import argparse
import time

from benchmarks._common import Table, best_cpu, best_time, capped_time
from benchmarks.calltree import make_gf


def _hatchet(n: int, ranks: int):
    import hatchet as ht

    gf = make_gf(n, ranks)
    gf.update_inclusive_columns()
    return ht.GraphFrame.from_json(gf.to_json())


def _ht_op(n: int, ranks: int, op: str) -> float:
    g = _hatchet(n, ranks)
    if op == "generate_exclusive_columns":
        g.exc_metrics = []
        g.dataframe = g.dataframe.drop(columns=["time"])
    t0 = time.perf_counter()
    if op in ("subtree_sum", "subgraph_sum"):
        getattr(g, op)(["time"], ["time (sum)"])
    elif op == "generate_exclusive_columns":
        g.generate_exclusive_columns()
    else:
        g.groupby_aggregate("name", {"time": "sum", "time (inc)": "sum"})
    return time.perf_counter() - t0


def _ours_op(gf, op: str):
    gf = gf.copy()
    if op in ("subtree_sum", "subgraph_sum"):
        getattr(gf, op)(["time"], ["time (sum)"])
    elif op == "generate_exclusive_columns":
        gf.exc_metrics = []
        gf.dataframe = gf.dataframe.drop(columns=["time"])
        gf.generate_exclusive_columns()
    else:
        return gf.groupby_aggregate("name", {"time": "sum", "time (inc)": "sum"})
    return gf


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks calltree_analysis")
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--peer-nodes", type=int, default=2_000)
    ap.add_argument("--cap", type=float, default=60.0)
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args(argv)
    try:
        import hatchet  # noqa: F401

        peer = not args.no_peer
    except ImportError:
        peer = False
        print("llnl-hatchet is not installed: peer columns left empty (pip install -e '.[bench]')")

    n, k = args.nodes, args.ranks
    big = make_gf(n, k)
    big.update_inclusive_columns()
    table = Table(
        f"calltree analyses: perfweave ({n:.0e} nodes x {k} ranks; best of 3) "
        f"and llnl-hatchet ({args.peer_nodes} nodes x 4 ranks, once, capped)"
    )
    size = f"{n:.0e} x {k}"

    def case(label: str, fn, target: float | None = None, repeat: int = 3) -> None:
        """Wall time (best of ``repeat``) and this process's CPU time: on a shared machine
        the wall time includes waiting for a core."""
        t, _ = best_time(fn, repeat)
        table.add(f"{label} @ {size}", t, target)
        table.add("  CPU time of this process", best_cpu(fn, repeat), target)

    case("load_imbalance('time')", lambda: big.load_imbalance("time"), 0.2)
    case("load_imbalance(2 metrics)", lambda: big.load_imbalance(["time", "time (inc)"]))
    case("node_values (2 metrics)", lambda: big.node_values())
    case("flat_profile", lambda: big.flat_profile())
    case("hot_path", lambda: big.hot_path())
    for op in ("subtree_sum", "generate_exclusive_columns", "groupby_aggregate"):
        case(op, lambda op=op: _ours_op(big, op), repeat=1)

    small = make_gf(args.peer_nodes, 4)
    small.update_inclusive_columns()
    small_size = f"{args.peer_nodes:.0e} x 4"
    for op in ("subtree_sum", "subgraph_sum", "generate_exclusive_columns", "groupby_aggregate"):
        t, _ = best_time(lambda op=op: _ours_op(small, op))
        ht = capped_time(_ht_op, (args.peer_nodes, 4, op), args.cap) if peer else None
        table.add(f"{op} @ {small_size}", t, None, ht)
    table.print()


if __name__ == "__main__":  # pragma: no cover
    import sys

    main(sys.argv[1:])
