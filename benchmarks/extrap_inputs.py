"""Reader benchmark: Extra-P's input formats, perfweave's ``Ensemble.from_extrap`` against
Extra-P's own readers on the same files in the same run.

Run with ``python -m benchmarks extrap_inputs [--venv DIR] [--no-peer]``. For the largest
test input of each format (``tests/data/extrap``) it times ``Ensemble.from_extrap`` (best
of 5: wall clock and CPU seconds) and Extra-P 4.2's reader of that format
(``read_experiment``, best of 3) in a process of Extra-P's venv (see
:mod:`benchmarks.extrap_reference`; created when missing). Extra-P's figure is its reading
only; perfweave's includes laying the ensemble out.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import warnings
from pathlib import Path

from benchmarks._common import Table, best_cpu, best_time

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "extrap"
#: (input, Extra-P's reader): the largest of each format
CASES = (
    ("json/input_10.JSON", "json"),
    ("jsonlines/complete_matrix_2p.jsonl", "json"),
    ("talpas/talpas_5.txt", "talpas"),
    ("text/three_parameter_3.txt", "text"),
    ("cubeset/multi_parameter", "cube"),
)
_EXTRAP_TIMER = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from extrap.fileio.file_reader import all_readers
out = {}
for path, fmt in json.loads(sys.argv[1]):
    reader = next(r for r in all_readers.values() if fmt == r.NAME)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        reader().read_experiment(path)
        best = min(best, time.perf_counter() - t0)
    out[path] = best
print(json.dumps(out))
"""


def extrap_times(venv: Path) -> dict[str, float]:
    """Extra-P's reading time of every case (best of 3), in its own venv."""
    from benchmarks.extrap_reference import ensure_venv

    py = ensure_venv(venv)
    cases = [(str(DATA / rel), fmt) for rel, fmt in CASES]
    done = subprocess.run(
        [str(py), "-c", _EXTRAP_TIMER, json.dumps(cases)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)


def main(argv: list[str]) -> None:
    from benchmarks.extrap_reference import DEFAULT_VENV

    ap = argparse.ArgumentParser(prog="python -m benchmarks extrap_inputs")
    ap.add_argument("--venv", type=Path, default=DEFAULT_VENV, help="Extra-P's venv")
    ap.add_argument("--no-peer", action="store_true", help="skip Extra-P")
    args = ap.parse_args(argv)
    import perfweave as pw

    peer = {} if args.no_peer else extrap_times(args.venv)
    table = Table(
        "Extra-P's inputs: Ensemble.from_extrap against Extra-P 4.2's readers",
        header=("input", "profiles", "perfweave", "CPU", "Extra-P", "Extra-P/perfweave"),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pw.Ensemble.from_extrap(DATA / CASES[0][0])  # imports out of the figures
        for rel, _ in CASES:
            path = DATA / rel
            wall, ens = best_time(lambda: pw.Ensemble.from_extrap(path), repeat=5)
            cpu = best_cpu(lambda: pw.Ensemble.from_extrap(path), repeat=5)
            theirs = peer.get(str(path))
            table.add_row(
                rel,
                f"{len(ens):,}",
                f"{wall:.4f} s",
                f"{cpu:.4f} s",
                "not run" if theirs is None else f"{theirs:.4f} s",
                "" if theirs is None else f"{theirs / wall:,.1f}x",
            )
    table.print()


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
