"""Reader benchmark: a synthetic Caliper json-split profile of 1e5 nodes (target <= 2 s).

Run with ``python -m benchmarks.calltree_readers [--nodes N] [--ranks R ...] [--no-peer]``;
Hatchet runs on the 1-rank case only unless ``--peer-all``.
The file has a ``path`` region hierarchy, ``mpi.rank`` and exclusive/inclusive time, with
a tenth of the (node, rank) records left out so the reader has rows to fill in.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

from benchmarks._common import Table, best_time, capped_time, peak_traced_mb

TARGET_S = 2.0


def make_json_split(path: Path, n_nodes: int, n_ranks: int, seed: int = 0) -> int:
    """Write a json-split file of ``n_nodes`` regions x ``n_ranks``; returns its record count."""
    rng = np.random.default_rng(seed)
    # node i's parent is a random earlier node at 30-90 % of i: a bushy tree ~25 deep
    parent = np.full(n_nodes, -1, np.int64)
    if n_nodes > 1:
        frac = rng.uniform(0.3, 0.9, n_nodes - 1)
        parent[1:] = np.minimum(
            (np.arange(1, n_nodes) * frac).astype(np.int64), np.arange(n_nodes - 1)
        )
    nodes = [
        {"label": f"region_{i % 5000}", "column": "path", "parent": int(p)}
        if p >= 0
        else {"label": f"region_{i % 5000}", "column": "path"}
        for i, p in enumerate(parent.tolist())
    ]
    node = np.repeat(np.arange(n_nodes), n_ranks)
    rank = np.tile(np.arange(n_ranks), n_nodes)
    keep = rng.random(len(node)) > 0.1
    keep[: n_ranks * 2] = True  # every rank appears
    node, rank = node[keep], rank[keep]
    exc = np.round(rng.random(len(node)) * 1e3, 3)
    data = [
        [float(e), int(r), float(e * 2), int(n)]
        for e, r, n in zip(exc.tolist(), rank.tolist(), node.tolist())
    ]
    doc = {
        "data": data,
        "columns": ["sum#time.duration", "mpi.rank", "inclusive#sum#time.duration", "path"],
        "column_metadata": [
            {"is_value": True},
            {"is_value": True},
            {"is_value": True},
            {"is_value": False},
        ],
        "nodes": nodes,
        "cali.caliper.version": "2.10.0",
        "mpi.world.size": n_ranks,
    }
    path.write_text(json.dumps(doc))
    return len(data)


def _hatchet_read(path: str) -> None:  # pragma: no cover - runs in a subprocess
    import hatchet

    hatchet.GraphFrame.from_caliper(path, node_ordering=False)


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.calltree_readers")
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--no-peer", action="store_true", help="skip llnl-hatchet")
    ap.add_argument("--peer-cap", type=float, default=90.0, help="seconds allowed to Hatchet")
    ap.add_argument(
        "--peer-all", action="store_true", help="run Hatchet on every case (default: 1 rank)"
    )
    args = ap.parse_args(argv)

    from perfweave.calltree.readers import caliper_json

    table = Table(f"calltree readers: Caliper json-split, {args.nodes:,} region nodes")
    try:
        import hatchet  # noqa: F401

        have_peer = not args.no_peer
    except ImportError:
        have_peer = False
    with tempfile.TemporaryDirectory() as tmp:
        for ranks in args.ranks:
            path = Path(tmp) / f"synthetic-{ranks}.json"
            n_records = make_json_split(path, args.nodes, ranks)
            size_mb = path.stat().st_size / 2**20
            t, gf = best_time(lambda p=path: caliper_json.read(p, node_ordering=False), repeat=3)
            mem, _ = peak_traced_mb(lambda p=path: caliper_json.read(p, node_ordering=False))
            peer = None
            if have_peer and (ranks <= 1 or args.peer_all):
                peer = capped_time(_hatchet_read, (str(path),), cap=args.peer_cap)
            case = f"from_caliper x {ranks} rank{'s' * (ranks > 1)} ({n_records:,} records, {size_mb:.0f} MB)"
            table.add(case, t, TARGET_S, peer)
            table.add_row(
                f"  peak traced memory, {len(gf.dataframe):,} rows", f"{mem:.0f} MB", "", "", ""
            )
    table.print()


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
