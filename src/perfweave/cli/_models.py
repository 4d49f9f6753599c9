"""``perfweave models``: Extra-P's performance model of every call path of a scaling study.

Reads the runs into an ensemble, models a metric over a numeric metadata parameter for
every node (:meth:`Ensemble.models`) and prints the call paths that grow fastest: sorted by
the value predicted at ``--target`` when given, else by asymptotic growth (the term's
exponents), then by the value at the largest measured parameter.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd


def register(subparsers) -> None:
    cmd = subparsers.add_parser(
        "models",
        help="performance models (Extra-P's PMNF) of every call path over a run parameter",
        description=__doc__.split("\n\n")[0],
    )
    cmd.add_argument("paths", nargs="+", help="profile files, directories or glob patterns")
    cmd.add_argument("--param", required=True, help="numeric metadata column, e.g. mpi.world.size")
    cmd.add_argument("--metric", help="metric to model (default: the default metric)")
    cmd.add_argument("--format", help="the input format (detected when left out)")
    cmd.add_argument("--agg", default="mean", choices=("mean", "median", "min", "max"))
    cmd.add_argument("--top", type=int, default=20, help="show this many call paths (0: all)")
    cmd.add_argument("--target", type=float, help="also predict each call path at this value")
    cmd.add_argument("--csv", action="store_true", help="print CSV instead of a text table")
    cmd.set_defaults(func=_models)


def _models(args: argparse.Namespace) -> int:
    from perfweave.calltree.graph import Node
    from perfweave.ensemble import Ensemble
    from perfweave.errors import ShapeError
    from perfweave.scaling import growth_order, predict

    if args.top < 0:
        raise ShapeError(f"--top {args.top}: expected a count >= 0")
    ens = Ensemble.from_files(
        args.paths[0] if len(args.paths) == 1 else args.paths, reader=args.format, progress=False
    )
    metric = args.metric or ens.default_metric
    fits = ens.models(metric, args.param, agg=args.agg)
    largest = float(np.nanmax(ens.metadata[args.param].to_numpy(dtype=float)))
    table = pd.DataFrame({"growth": growth_order(fits)})
    table["at_max"] = predict(fits, largest)
    if args.target is not None:
        table["at_target"] = predict(fits, args.target)
        keys = ["at_target", "growth"]
    else:
        keys = ["growth", "at_max"]
    order = table.sort_values(keys, ascending=False, na_position="last").index
    if args.top:
        order = order[: args.top]
    out = pd.DataFrame(index=pd.Index(order, name="node"))
    out["path"] = [_short(" > ".join(str(n) for n in Node(ens.graph, i).path())) for i in order]
    out["term"] = fits.loc[order, "term"]
    out["model"] = fits.loc[order, "model"]
    if args.target is not None:
        out[f"at {args.param}={args.target:g}"] = table.loc[order, "at_target"]
    out[f"at {largest:g}"] = table.loc[order, "at_max"]
    out["smape"] = fits.loc[order, "smape"]
    out["ar2"] = fits.loc[order, "ar2"]
    out["note"] = (fits.loc[order, "reason"] + fits.loc[order, "note"]).where(lambda s: s != "", "")
    if not out["note"].astype(bool).any():
        out = out.drop(columns="note")
    if args.csv:
        out.to_csv(sys.stdout)
        return 0
    has = fits["reason"] == ""
    print(
        f"{metric!r} over {args.param!r}: {len(ens)} runs, {len(fits)} call paths "
        f"({(has & (fits['c1'] != 0)).sum()} growing or shrinking, "
        f"{(has & (fits['c1'] == 0)).sum()} constant, {(~has).sum()} without a model)"
    )
    shown = out.copy()
    for col in shown.columns:
        if col.startswith("at "):
            shown[col] = shown[col].map(lambda v: "" if np.isnan(v) else f"{v:.4g}")
    shown["smape"] = shown["smape"].map(lambda v: "" if np.isnan(v) else f"{v:.1f}%")
    shown["ar2"] = shown["ar2"].map(lambda v: "" if np.isnan(v) else f"{v:.3f}")
    print(shown.to_string())
    return 0


def _short(path: str, width: int = 60) -> str:
    """A call path cut at the front (its end names the call) to ``width`` characters."""
    return path if len(path) <= width else "..." + path[-(width - 3) :]
