"""Reader benchmark: Score-P / Cube 4 profiles (``.cubex``), against pycubexr and Hatchet.

Run with ``python -m benchmarks calltree_cube [--no-peer]``. Reads every bundled Cube file
(``tests/data/cube``) with ``perfweave.read`` (best of 7: wall clock, and CPU seconds,
which a shared machine does not inflate). Beside it, two references in the same run:

* ``pycubexr``: pycubexr alone opening the file and decoding every metric's values (what
  perfweave's reader builds on; the rest of perfweave's time is the frame);
* ``peer``: llnl-hatchet's ``GraphFrame.from_scorep`` on the same file in a forked
  process (best of 3), where the installed release has it; the output says when it has not.
"""

from __future__ import annotations

import argparse
import contextlib
import time
import warnings
from pathlib import Path

from benchmarks._common import Table, best_cpu, best_time, capped_time

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "cube"


def _files() -> list[Path]:
    return sorted(DATA.rglob("*.cubex"))


def _label(path: Path) -> str:
    return str(path.relative_to(DATA))


def _pycubexr(path: Path) -> None:
    """pycubexr's own work: the archive, anchor.xml and every metric's values."""
    from pycubexr import CubexParser
    from pycubexr.utils.exceptions import MissingMetricError, UnsupportedMetricFormatError

    with CubexParser(path) as cube:
        for metric in cube.all_metrics():
            with contextlib.suppress(MissingMetricError, UnsupportedMetricFormatError):
                cube.get_metric_values(metric, cache=False)


def _hatchet(path: str) -> float:
    import hatchet as ht

    warnings.simplefilter("ignore")
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        ht.GraphFrame.from_scorep(path)
        best = min(best, time.perf_counter() - t0)
    return best


def _peer_status(no_peer: bool) -> tuple[bool, str]:
    """Whether Hatchet can be timed, and a sentence saying so."""
    if no_peer:
        return False, "peer: not run (--no-peer)"
    try:
        import hatchet
    except ImportError:
        return False, "peer: llnl-hatchet is not installed (pip install -e '.[bench]')"
    version = getattr(hatchet, "__version__", "?")
    if not hasattr(hatchet.GraphFrame, "from_scorep"):
        return False, (
            f"peer: llnl-hatchet {version} (installed) has no GraphFrame.from_scorep, "
            "so there is no peer timing; only the repository hatchet/hatchet carries it"
        )
    return True, f"peer: llnl-hatchet {version} GraphFrame.from_scorep, same files, same run"


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks calltree_cube")
    ap.add_argument("--no-peer", action="store_true", help="skip llnl-hatchet")
    ap.add_argument("--peer-cap", type=float, default=120.0, help="seconds allowed to Hatchet")
    args = ap.parse_args(argv)
    have_peer, peer_note = _peer_status(args.no_peer)

    import perfweave

    table = Table(
        "calltree readers: Score-P / Cube 4 (.cubex)",
        header=("case", "perfweave", "CPU", "pycubexr alone", "peer", "peer/perfweave"),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the value-type example's skipped metrics: named
        perfweave.read(_files()[0])  # imports (pycubexr, pandas paths) out of the figures
        for path in _files():
            gf = perfweave.read(path)
            wall, _ = best_time(lambda: perfweave.read(path), repeat=7)
            cpu = best_cpu(lambda: perfweave.read(path), repeat=7)
            alone, _ = best_time(lambda: _pycubexr(path), repeat=7)
            peer = capped_time(_hatchet, (str(path),), cap=args.peer_cap) if have_peer else None
            ratio = f"{peer / wall:,.1f}x" if isinstance(peer, float) else ""
            shown = "" if peer is None else (f"{peer:.4f} s" if isinstance(peer, float) else peer)
            rows = len(gf.dataframe)
            table.add_row(
                f"{_label(path)} ({len(gf.graph)} nodes, {rows:,} rows)",
                f"{wall:.4f} s",
                f"{cpu:.4f} s",
                f"{alone:.4f} s",
                shown,
                ratio,
            )
    table.print()
    print(peer_note)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
