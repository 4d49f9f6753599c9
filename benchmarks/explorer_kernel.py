"""CalltreeExplorer's kernel side, no browser: what opening a view and acting on it costs in
Python (the browser benchmark, ``python -m benchmarks widgets``, times the same from a page).

Scenarios: a 1e5-node frame with one row per node, the same tree with 64 ranks per node (the
rank view: the per-rank glyph matrix and the imbalance column from
``GraphFrame.load_imbalance``), and ``extra columns`` set on the first. No peer has such a
widget, so there is no ratio. ``--nodes N --ranks R`` change the sizes.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from benchmarks._common import best_cpu, best_time
from benchmarks.calltree import synthetic


def _frames(n: int, ranks: int):
    from perfweave.calltree._build import build_graphframe

    frames, parent, data = synthetic(n)
    one = build_graphframe(frames, data, parent=parent, exc_metrics=["time"])
    rng = np.random.default_rng(0)
    rows = pd.DataFrame(
        {
            "node": np.repeat(data["node"].to_numpy(), ranks),
            "rank": np.tile(np.arange(ranks), len(data)),
            "time": np.repeat(data["time"].to_numpy(), ranks)
            * rng.uniform(0.5, 1.5, len(data) * ranks),
        }
    )
    many = build_graphframe(frames, rows, parent=parent, exc_metrics=["time"])
    return one.update_inclusive_columns(), many.update_inclusive_columns()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks explorer_kernel")
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--ranks", type=int, default=64)
    args = parser.parse_args(argv)
    from perfweave.widgets import CalltreeExplorer

    one, many = _frames(args.nodes, args.ranks)
    print(f"CalltreeExplorer, kernel side ({args.nodes:,} nodes; ranks: {args.ranks})")
    print(f"{'scenario':<44} {'wall s':>8} {'cpu s':>8}")
    for label, frame in (("frame, one row per node", one), (f"frame x {args.ranks} ranks", many)):
        wall, ex = best_time(lambda f=frame: CalltreeExplorer(f))
        cpu = best_cpu(lambda f=frame: CalltreeExplorer(f))
        print(f"{'open: ' + label:<44} {wall:8.3f} {cpu:8.3f}")
        wall, _ = best_time(lambda e=ex: e._on_rows(0, 300))
        print(f"{'  300-row window':<44} {wall:8.4f} {'':>8}")
        key = ex.columns[-1]["key"]
        wall, _ = best_time(lambda e=ex, k=key: e.sort_by(k))
        print(f"{'  sort by ' + key:<44} {wall:8.4f} {'':>8}")
        wall, _ = best_time(lambda e=ex: e.select(int(e.visible_rows()["node"].iloc[1])))
        print(f"{'  select a row (top ranks)':<44} {wall:8.4f} {'':>8}")
    ex = CalltreeExplorer(one)
    extra = pd.DataFrame(
        {"model": np.where(np.arange(args.nodes) % 2, "n log n", "n^2"), "r2": 0.9},
        index=np.arange(args.nodes),
    )
    wall, _ = best_time(lambda: ex.set_extra_columns(extra))
    print(f"{'set_extra_columns (2 columns, every node)':<44} {wall:8.3f} {'':>8}")
    wall, _ = best_time(lambda: ex.filter("`time (inc)` > 1%"), repeat=1)
    print(f"{'  filter keeping them on their paths':<44} {wall:8.3f} {'':>8}")
