"""Deep calltrees (issue #16): reading a ``.cali`` region chain 2,500 / 10,000 / 20,000
levels deep against a flat tree of the same size, and a literal JSON chain read and written.

The deep files are the bundled ordered ``.cali`` profile's attributes with a chain of
regions, one snapshot per level (the shape a deeply recursive code gives). Reading must be
linear in the depth: the deep/flat ratio stays near 1 as the depth grows (it was 0.6 s at
depth 2,500 and 23 s at 20,000). Hatchet reads the same .cali file through caliper-reader
in the same run (capped), and the literal chain with ``from_literal``.
"""

from __future__ import annotations

import os
import tempfile
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


def main(argv: list[str]) -> None:
    import perfweave as pw
    from perfweave.calltree import _deepjson

    depths = [int(a) for a in argv] or [2_500, 10_000, 20_000]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    table = Table(
        f"deep calltrees (load average {load}, 2 cores shared)",
        header=("case", "perfweave", "flat tree", "deep/flat", "hatchet"),
    )
    with tempfile.TemporaryDirectory() as tmp:
        for n in depths:
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
        for n in depths:
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
