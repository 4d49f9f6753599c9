"""Reader benchmark (HPCToolkit, TAU, gprof2dot DOT, cProfile) on synthetic profiles.

Run with ``python -m benchmarks.calltree_readers2 [--nodes N ...] [--no-peer]``. Each case
writes one synthetic profile to a temporary directory, reads it with perfweave (best of
3) and, unless ``--no-peer``, with llnl-hatchet in a forked process under a time cap.
"""

from __future__ import annotations

import argparse
import marshal
import tempfile
from pathlib import Path

import numpy as np

from benchmarks._common import Table, best_time, capped_time, peak_traced_mb

CAP_S = 120.0


def _tree(n: int, rng: np.random.Generator) -> np.ndarray:
    """Parent of each of ``n`` nodes: a random earlier node at 30-90 % of its index."""
    parent = np.full(n, -1, np.int64)
    if n > 1:
        frac = rng.uniform(0.3, 0.9, n - 1)
        parent[1:] = (np.arange(1, n) * frac).astype(np.int64)
    return parent


def _children(parent: np.ndarray) -> list[list[int]]:
    kids: list[list[int]] = [[] for _ in range(len(parent))]
    for i, p in enumerate(parent.tolist()):
        if p >= 0:
            kids[p].append(i)
    return kids


def make_hpctoolkit(d: Path, n_procs: int, n_ranks: int, seed: int = 0) -> int:
    """A database of ``n_procs`` procedure frames, each called through a C element and
    holding one statement: 2 * n_procs graph nodes. Returns the number of graph nodes."""
    rng = np.random.default_rng(seed)
    kids = _children(_tree(n_procs, rng))
    out: list[str] = []
    next_id = 2
    stack: list[tuple[int, bool]] = [(0, False)]
    while stack:  # iterative nesting: PF { S, C { PF ... } ... }
        node, closing = stack.pop()
        if closing:
            out.append("</PF>" if node == 0 else "</PF></C>")
            continue
        if node:
            out.append(f'<C i="{next_id}" s="1" l="{node % 97 + 1}">')
            next_id += 1
        out.append(f'<PF i="{next_id}" s="1" l="{node % 50}" lm="1" f="2" n="{3 + node % 500}">')
        out.append(f'<S i="{next_id + 1}" s="1" l="{node % 89}"/>')
        next_id += 2
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(kids[node]))
    procs = "".join(f'<Procedure i="{3 + k}" n="proc_{k}"/>' for k in range(500))
    d.mkdir(parents=True)
    (d / "experiment.xml").write_text(
        '<?xml version="1.0"?>\n<HPCToolkitExperiment version="2.0">\n'
        '<SecCallPathProfile i="0" n="bench"><SecHeader>\n<MetricDBTable>'
        '<MetricDB i="0" n="CPUTIME (usec) (I)"/><MetricDB i="1" n="CPUTIME (usec) (E)"/>'
        '</MetricDBTable>\n<LoadModuleTable><LoadModule i="1" n="bench"/></LoadModuleTable>\n'
        '<FileTable><File i="2" n="src/bench.c"/></FileTable>\n'
        f"<ProcedureTable>{procs}</ProcedureTable>\n</SecHeader>\n<SecCallPathProfileData>\n"
        + "\n".join(out)
        + "\n</SecCallPathProfileData>\n</SecCallPathProfile>\n</HPCToolkitExperiment>\n"
    )
    n_ids = next_id
    for r in range(n_ranks):
        head = b"HPCPROF-metricdb__01.10b" + n_ids.to_bytes(4, "big") + (2).to_bytes(4, "big")
        vals = rng.integers(0, 10**6, (n_ids, 2)).astype(">f8")
        (d / f"1.bench-{r:06d}-000-a8c0-{1000 + r}-0.metric-db").write_bytes(head + vals.tobytes())
    return 2 * n_procs


def make_tau(d: Path, n_nodes: int, n_ranks: int, seed: int = 0) -> int:
    """Callpath profiles of ``n_nodes`` timers on ``n_ranks`` ranks."""
    rng = np.random.default_rng(seed)
    parent = _tree(n_nodes, rng)
    paths = [".TAU application"]
    for i in range(1, n_nodes):
        paths.append(f"{paths[parent[i]]} => f{i}()")
    d.mkdir(parents=True)
    for r in range(n_ranks):
        vals = rng.integers(1, 10**5, n_nodes)
        lines = [f"{n_nodes} templated_functions_MULTI_TIME"]
        lines.append(
            "# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Metric Name"
            "</name><value>TIME</value></attribute></metadata>"
        )
        lines += [f'"{p}" 1 0 {v} {v * 2} 0 GROUP="TAU_CALLPATH"' for p, v in zip(paths, vals)]
        lines += ["0 aggregates", "0 userevents"]
        (d / f"profile.{r}.0.0").write_text("\n".join(lines) + "\n")
    return n_nodes


def make_dot(p: Path, n_nodes: int, seed: int = 0) -> int:
    """A gprof2dot-style DAG: a tree plus one extra caller for a tenth of the nodes."""
    rng = np.random.default_rng(seed)
    parent = _tree(n_nodes, rng)
    lines = ["digraph {", "  node [shape=box, style=filled];"]
    for i in range(n_nodes):
        inc, exc = rng.uniform(0, 100), rng.uniform(0, 10)
        label = f"libbench.so\\nfn_{i}\\n{inc:.2f}%\\n({exc:.2f}%)\\n{i}\u00d7"
        lines.append(f'  "fn_{i}" [color="#0d0d73", label="{label}"];')
        if parent[i] >= 0:
            lines.append(f'  "fn_{parent[i]}" -> "fn_{i}" [label="1.00%\\n1\u00d7"];')
            if i % 10 == 0 and parent[i] > 0:
                lines.append(f'  "fn_{parent[parent[i]]}" -> "fn_{i}";')
    lines.append("}")
    p.write_text("\n".join(lines), encoding="utf-8")
    return n_nodes


def make_pstats(p: Path, n_funcs: int, seed: int = 0) -> int:
    """A pstats dict of ``n_funcs`` functions with tree callers plus some recursion."""
    rng = np.random.default_rng(seed)
    parent = _tree(n_funcs, rng)
    keys = [(f"mod{i % 50}.py", i, f"fn_{i}") for i in range(n_funcs)]
    stats = {}
    for i, k in enumerate(keys):
        callers = {}
        if parent[i] >= 0:
            callers[keys[parent[i]]] = (1, 1, 0.1, 0.2)
        if i % 7 == 0:
            callers[k] = (1, 1, 0.1, 0.1)  # recursion
        stats[k] = (1, 1, float(rng.uniform()), float(rng.uniform() * 2), callers)
    p.write_bytes(marshal.dumps(stats))
    return n_funcs


def _hatchet(method: str, path: str) -> None:  # runs in the forked peer process
    import hatchet as ht

    getattr(ht.GraphFrame, method)(path)


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.calltree_readers2")
    ap.add_argument("--hpc-procs", type=int, nargs="+", default=[5_000, 50_000])
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--tau-nodes", type=int, default=2_000)
    ap.add_argument("--tau-ranks", type=int, default=16)
    ap.add_argument("--dot-nodes", type=int, default=5_000)
    ap.add_argument("--pstats-funcs", type=int, default=5_000)
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args(argv)

    from perfweave import GraphFrame

    table = Table("calltree readers (synthetic profiles)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cases = []
        for n in args.hpc_procs:
            d = root / f"hpc{n}"
            nodes = make_hpctoolkit(d, n, args.ranks)
            cases.append(
                (f"from_hpctoolkit {nodes:,} nodes x {args.ranks} ranks", "from_hpctoolkit", d)
            )
        d = root / "tau"
        nodes = make_tau(d, args.tau_nodes, args.tau_ranks)
        cases.append((f"from_tau {nodes:,} nodes x {args.tau_ranks} ranks", "from_tau", d))
        p = root / "graph.dot"
        nodes = make_dot(p, args.dot_nodes)
        cases.append((f"from_gprof_dot {nodes:,} nodes", "from_gprof_dot", p))
        p = root / "run.pstats"
        nodes = make_pstats(p, args.pstats_funcs)
        cases.append((f"from_cprofile {nodes:,} functions", "from_cprofile", p))

        for label, method, path in cases:
            secs, gf = best_time(lambda m=method, q=path: getattr(GraphFrame, m)(q))
            peak, _ = peak_traced_mb(lambda m=method, q=path: getattr(GraphFrame, m)(q))
            peer = None if args.no_peer else capped_time(_hatchet, (method, str(path)), CAP_S)
            table.add(label, secs, None, peer)
            table.rows[-1][2] = f"peak {peak:,.0f} MB"
    table.header = ("case", "perfweave", "memory", "hatchet", "hatchet/perfweave")
    table.print()


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
