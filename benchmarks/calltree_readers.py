"""Reader benchmark: a synthetic Caliper json-split profile of 1e5 nodes (target <= 2 s),
and the native .cali reader on RAJAPerf files and a synthetic stream.

Run with ``python -m benchmarks.calltree_readers [--nodes N] [--ranks R ...] [--no-peer]``;
Hatchet runs on the 1-rank case only unless ``--peer-all``; ``--only cali`` / ``--only
json`` runs one table.
The json-split file has a ``path`` region hierarchy, ``mpi.rank`` and exclusive/inclusive
time, with a tenth of the (node, rank) records left out so the reader has rows to fill in.
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


RAJAPERF = Path(__file__).resolve().parent.parent / "tests" / "data" / "thicket" / "rajaperf"
CALI_HEADER = (
    "__rec=node,id=20,attr=10,data=2069,parent=5\n"  # as-value double
    "__rec=node,id=21,attr=8,data=sum#time.duration,parent=20\n"
    "__rec=node,id=22,attr=10,data=268,parent=3\n"  # nested string
    "__rec=node,id=23,attr=8,data=region,parent=22\n"
    "__rec=node,id=24,attr=10,data=13,parent=1\n"  # as-value int
    "__rec=node,id=25,attr=8,data=mpi.rank,parent=24\n"
)


def make_cali(path: Path, n_nodes: int, n_ranks: int, seed: int = 0) -> int:
    """Write a .cali stream of ``n_nodes`` regions x ``n_ranks``; returns its record count."""
    rng = np.random.default_rng(seed)
    parent = np.full(n_nodes, -1, np.int64)
    if n_nodes > 1:
        frac = rng.uniform(0.3, 0.9, n_nodes - 1)
        parent[1:] = np.minimum(
            (np.arange(1, n_nodes) * frac).astype(np.int64), np.arange(n_nodes - 1)
        )
    lines = [CALI_HEADER]
    for i, p in enumerate(parent.tolist()):
        up = f",parent={100 + p}" if p >= 0 else ""
        lines.append(f"__rec=node,id={100 + i},attr=23,data=region_{i}{up}\n")
    times = np.round(rng.random((n_nodes, n_ranks)) * 1e3, 3)
    for i in range(n_nodes):
        for r in range(n_ranks):
            lines.append(f"__rec=ctx,ref={100 + i},attr=21=25,data={times[i, r]}={r}\n")
    path.write_text("".join(lines))
    return n_nodes * n_ranks


def _caliperreader_parse(path: str) -> None:
    import caliperreader

    caliperreader.CaliperReader().read(path)


def _hatchet_cali(paths: list[str]) -> float:  # pragma: no cover - runs in a subprocess
    import time

    import hatchet

    t0 = time.perf_counter()
    for p in paths:
        hatchet.GraphFrame.from_caliperreader(p)
    return (time.perf_counter() - t0) / len(paths)


def cali_table(args) -> Table:
    """Native .cali: per-file time on the RAJAPerf files, and a synthetic stream."""
    import time

    from perfweave.calltree.readers import cali

    table = Table("calltree readers: native .cali")
    files = [str(p) for p in sorted((RAJAPERF / "quartz").rglob("*.cali"))]
    reps = 20

    def per_file(fn) -> float:
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(reps):
                for f in files:
                    fn(f)
            best = min(best, (time.perf_counter() - t0) / (reps * len(files)))
        return best

    peer = None
    if args.have_peer:
        peer = capped_time(_hatchet_cali, (files,), cap=args.peer_cap)
    table.add(
        f"RAJAPerf .cali, 74 nodes, per file ({len(files)} files)", per_file(cali.read), 0.01, peer
    )
    table.add("  caliper-reader's parse alone, per file", per_file(_caliperreader_parse))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic.cali"
        n_records = make_cali(path, args.cali_nodes, 4)
        t, gf = best_time(lambda: cali.read(path, node_ordering=False), repeat=3)
        size_mb = path.stat().st_size / 2**20
        table.add(
            f"synthetic .cali, {args.cali_nodes:,} regions x 4 ranks ({n_records:,} records, "
            f"{size_mb:.0f} MB)",
            t,
        )
        t, _ = best_time(lambda: _caliperreader_parse(str(path)), repeat=1)
        table.add("  caliper-reader's parse alone", t)
    return table


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
    ap.add_argument("--cali-nodes", type=int, default=20_000, help="regions of the .cali case")
    ap.add_argument("--only", choices=["json", "cali"], help="run one table")
    args = ap.parse_args(argv)

    from perfweave.calltree.readers import caliper_json

    try:
        import hatchet  # noqa: F401

        have_peer = not args.no_peer
    except ImportError:
        have_peer = False
    args.have_peer = have_peer
    if args.only != "json":
        cali_table(args).print()
    if args.only == "cali":
        return
    table = Table(f"calltree readers: Caliper json-split, {args.nodes:,} region nodes")
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
