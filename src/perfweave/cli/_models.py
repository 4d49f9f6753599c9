"""``perfweave models``: Extra-P's performance model of every call path of a scaling study.

Reads the runs into an ensemble, models a metric over a numeric metadata parameter for
every node (:meth:`Ensemble.models`) and prints the call paths that grow fastest: sorted by
the value predicted at ``--target`` when given, else by asymptotic growth (the term's
exponents), then by the value at the largest measured parameter.

Several parameters (``--param mpi.world.size --param problem_size`` or
``--param mpi.world.size,problem_size``) give Extra-P's multi-parameter models, sorted by
the value predicted at ``--target`` (one value per parameter: ``--target 4096,1e6``), else
at the largest measured value of every parameter.
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
    cmd.add_argument(
        "--param",
        required=True,
        action="append",
        help="numeric metadata column, e.g. mpi.world.size; repeat it (or give a comma "
        "list) for a multi-parameter model",
    )
    cmd.add_argument("--metric", help="metric to model (default: the default metric)")
    cmd.add_argument("--format", help="the input format (detected when left out)")
    cmd.add_argument("--agg", default="mean", choices=("mean", "median", "min", "max"))
    cmd.add_argument("--top", type=int, default=20, help="show this many call paths (0: all)")
    cmd.add_argument(
        "--target",
        help="also predict each call path at this value (several parameters: one value "
        "each, comma-separated)",
    )
    cmd.add_argument("--csv", action="store_true", help="print CSV instead of a text table")
    cmd.set_defaults(func=_models)


def _models(args: argparse.Namespace) -> int:
    from perfweave.ensemble import Ensemble
    from perfweave.errors import ShapeError
    from perfweave.scaling import growth_order, predict

    if args.top < 0:
        raise ShapeError(f"--top {args.top}: expected a count >= 0")
    ens = Ensemble.from_files(
        args.paths[0] if len(args.paths) == 1 else args.paths, reader=args.format, progress=False
    )
    metric = args.metric or ens.default_metric
    params = _params(args.param, ens.metadata.columns)
    target = _target(args.target, params)
    if len(params) > 1:
        return _multi(args, ens, metric, params, target)
    (param,) = params
    fits = ens.models(metric, param, agg=args.agg)
    unit = _unit(ens, metric)
    largest = float(np.nanmax(ens.metadata[param].to_numpy(dtype=float)))
    table = pd.DataFrame({"growth": growth_order(fits)})
    table["at_max"] = predict(fits, largest)
    if target is not None:
        table["at_target"] = predict(fits, target[0])
        keys = ["at_target", "growth"]
    else:
        keys = ["growth", "at_max"]
    order, out = _ranked(ens, fits, table, keys, args.top)
    if target is not None:
        out[f"at {param}={target[0]:g}{unit}"] = table.loc[order, "at_target"]
    out[f"at {largest:g}{unit}"] = table.loc[order, "at_max"]
    has = fits["reason"] == ""
    head = (
        f"{metric!r} over {param!r}: {len(ens)} runs, {len(fits)} call paths "
        f"({(has & (fits['c1'] != 0)).sum()} growing or shrinking, "
        f"{(has & (fits['c1'] == 0)).sum()} constant, {(~has).sum()} without a model)"
    )
    return _print(args, out, fits, order, head)


def _params(given: list[str], columns: pd.Index) -> list[str]:
    """The parameters of ``--param`` (repeated, or comma lists; a metadata column whose
    name holds a comma is taken whole)."""
    out: list[str] = []
    for item in given:
        out += [item] if item in columns else [p.strip() for p in item.split(",") if p.strip()]
    return out


def _target(text: str | None, params: list[str]) -> list[float] | None:
    from perfweave.errors import ShapeError

    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ShapeError(
            f"--target {text!r}: expected {'a number' if len(params) == 1 else 'numbers'} "
            f"(one per parameter: {', '.join(params)})"
        ) from None
    if len(values) != len(params):
        raise ShapeError(
            f"--target {text!r} has {len(values)} value(s) for {len(params)} parameter(s) "
            f"({', '.join(params)}): give one value each, comma-separated"
        )
    return values


def _multi(args, ens, metric, params: list[str], target: list[float] | None) -> int:
    from perfweave.scaling import predict

    fits = ens.models(metric, params, agg=args.agg)
    unit = _unit(ens, metric)
    largest = {p: float(np.nanmax(ens.metadata[p].to_numpy(dtype=float))) for p in params}
    table = pd.DataFrame({"at_max": predict(fits, largest)})
    if target is not None:
        table["at_target"] = predict(fits, dict(zip(params, target)))
        keys = ["at_target", "at_max"]
    else:
        keys = ["at_max"]
    order, out = _ranked(ens, fits, table, keys, args.top)
    if target is not None:
        at = ",".join(f"{p}={v:g}" for p, v in zip(params, target))
        out[f"at {at}{unit}"] = table.loc[order, "at_target"]
    out["at " + ",".join(f"{v:g}" for v in largest.values()) + unit] = table.loc[order, "at_max"]
    has = fits["reason"] == ""
    const = has & (fits["combination"] == "const")
    head = (
        f"{metric!r} over {', '.join(repr(p) for p in params)}: {len(ens)} runs, "
        f"{len(fits)} call paths ({(has & ~const).sum()} with terms, {const.sum()} "
        f"constant, {(~has).sum()} without a model)"
    )
    return _print(args, out, fits, order, head)


def _ranked(ens, fits: pd.DataFrame, table: pd.DataFrame, keys: list[str], top: int):
    """The nodes sorted by ``keys`` of ``table`` (largest first, the first ``top`` unless
    0), and the table to print: each one's call path, term and model."""
    from perfweave.calltree.graph import Node

    order = table.sort_values(keys, ascending=False, na_position="last").index
    if top:
        order = order[:top]
    out = pd.DataFrame(index=pd.Index(order, name="node"))
    out["path"] = [_short(" > ".join(str(n) for n in Node(ens.graph, i).path())) for i in order]
    out["term"] = fits.loc[order, "term"]
    out["model"] = fits.loc[order, "model"]
    return order, out


def _print(args, out: pd.DataFrame, fits: pd.DataFrame, order, head: str) -> int:
    out["smape"] = fits.loc[order, "smape"]
    out["ar2"] = fits.loc[order, "ar2"]
    out["note"] = (fits.loc[order, "reason"] + fits.loc[order, "note"]).where(lambda s: s != "", "")
    if not out["note"].astype(bool).any():
        out = out.drop(columns="note")
    if args.csv:
        out.to_csv(sys.stdout)
        return 0
    print(head)
    shown = out.copy()
    for col in shown.columns:
        if col.startswith("at "):
            shown[col] = shown[col].map(lambda v: "" if np.isnan(v) else f"{v:.4g}")
    shown["smape"] = shown["smape"].map(lambda v: "" if np.isnan(v) else f"{v:.1f}%")
    shown["ar2"] = shown["ar2"].map(lambda v: "" if np.isnan(v) else f"{v:.3f}")
    print(shown.to_string())
    return 0


def _unit(ens, metric) -> str:
    """`` (s)`` after a predicted value's header when the metric's unit is known."""
    unit = ens.unit_of(metric)
    return f" ({unit})" if unit else ""


def _short(path: str, width: int = 60) -> str:
    """A call path cut at the front (its end names the call) to ``width`` characters."""
    return path if len(path) <= width else "..." + path[-(width - 3) :]
