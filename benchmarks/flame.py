"""Flame graph benchmark: the core layout and the widget's reply on a synthetic calltree.

``python -m benchmarks.flame [--sizes 100000,1000000] [--width 1200]``

A random tree (each node's parent drawn among the nodes just before it, so it is deep: about
2,000 levels at 100,000 nodes and 20,000 at a million, far deeper than real calltrees) with
an exclusive time per node. The
figures: ``flame_layout`` (inclusive sums by the core's rule, the x layout, no loop over
nodes), a zoom and a search on the layout, and the widget's reply to the page (the frames at
least one pixel wide on a ``--width`` canvas with the sums the page gathers narrower ones
from, packed as binary columns). Nothing asserts;
the issue's targets (first draw 0.3 s, zoom 50 ms, search 100 ms) are printed beside them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd


def tree(n: int, seed: int = 3):
    from perfweave.calltree._build import build_graphframe

    rng = np.random.default_rng(seed)
    back = np.minimum(rng.geometric(0.02, size=n - 1), np.arange(1, n))
    parent = np.r_[-1, np.arange(1, n) - back]
    names = [f"f{i % 5000}" for i in range(n)]
    return build_graphframe(
        pd.DataFrame({"name": names}),
        pd.DataFrame({"node": np.arange(n), "time": rng.exponential(1.0, n)}),
        parent=parent,
        exc_metrics=["time"],
        inc_metrics=[],
        default_metric="time",
    )


def readers_tree(n: int, levels: int = 100, seed: int = 3):
    """A calltree as readers give one: ``levels`` deep (fanning out by 4 from the root, then
    about ``n / levels`` calls a level, each under a random call of the level above, a few
    callers holding many callees), an exclusive time per node and its inclusive column
    already present (``update_inclusive_columns``, as a profile that measured both has)."""
    from perfweave.calltree._build import build_graphframe

    rng = np.random.default_rng(seed)
    plateau = n // levels
    while sum(min(4**k, plateau) for k in range(levels)) < n:
        plateau += 1
    size = [min(4**k, plateau) for k in range(levels)]
    size[-1] -= sum(size) - n
    start = np.r_[0, np.cumsum(size)]
    parent = [np.array([-1])]
    for k in range(1, levels):
        weight = rng.pareto(1.5, size[k - 1]) + 0.1
        pick = rng.choice(size[k - 1], size=size[k], p=weight / weight.sum())
        parent.append(np.sort(pick) + start[k - 1])
    names = [f"f{i % 5000}" for i in range(n)]
    gf = build_graphframe(
        pd.DataFrame({"name": names}),
        pd.DataFrame({"node": np.arange(n), "time": rng.exponential(1.0, n)}),
        parent=np.concatenate(parent),
        exc_metrics=["time"],
        inc_metrics=[],
        default_metric="time",
    )
    return gf.update_inclusive_columns()


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.flame")
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--width", type=int, default=1200)
    args = ap.parse_args(argv)
    from perfweave.calltree.flame import flame_layout
    from perfweave.widgets.flame import FlameGraph

    print(
        f"{'nodes':>9} {'depth':>5} {'layout s':>9} {'zoom s':>8} {'search s':>9} "
        f"{'reply s':>8} {'frames sent':>11}"
    )
    for n in (int(s) for s in args.sizes.split(",")):
        gf, build = timed(lambda: tree(n))
        layout, t_layout = timed(lambda: flame_layout(gf))
        big = int(np.argsort(layout.x1 - layout.x0)[-50])  # a wide inner node
        _, t_zoom = timed(lambda: layout.frames(zoom=big, min_width=1 / args.width))
        _, t_search = timed(lambda: layout.search("^f12"))
        fg = FlameGraph(gf)
        _, t_reply = timed(lambda: fg._held_reply(None, args.width, 1, None))
        sent = fg._held_reply(None, args.width, 1, None)[0]["meta"]["shown"]
        depth = int(gf.graph.depth.max()) + 1
        print(
            f"{n:>9,} {depth:>5} {t_layout:>9.3f} {t_zoom:>8.3f} {t_search:>9.3f} "
            f"{t_reply:>8.3f} {sent:>11,}   (tree built in {build:.1f} s)"
        )
    print("targets (issue 32, page side): first draw <= 0.3 s, zoom <= 50 ms, search <= 100 ms")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
