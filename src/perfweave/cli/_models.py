"""``perfweave models``: Extra-P's performance model of every call path of a scaling study.

Reads the runs into an ensemble, models a metric over a numeric metadata parameter for
every node (:meth:`Ensemble.models`) and prints the call paths that grow fastest: sorted by
the value predicted at ``--target`` when given, else by asymptotic growth (the term's
exponents), then by the value at the largest measured parameter.

Several parameters (``--param mpi.world.size --param problem_size`` or
``--param mpi.world.size,problem_size``) give Extra-P's multi-parameter models, sorted by
the value predicted at ``--target`` (one value per parameter: ``--target 4096,1e6``), else
at the largest measured value of every parameter.

Every row says how far to trust its model (``quality``: good, fair, POOR; see
:mod:`perfweave.scaling.quality`); a prediction at ``--target`` comes with its 90 %
interval (:mod:`perfweave.scaling.interval`), and one below 0 of a metric never measured
below 0 is written as no value.
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
    cmd.add_argument(
        "--extrap",
        action="store_true",
        help="read the one path as an Extra-P experiment (its text, JSON, JSON Lines or "
        "Talpas file, a directory of Cube experiments, a .extra-p file; --format names "
        "which when detection should not decide)",
    )
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
    if args.extrap:  # one Extra-P experiment: a profile per point and repetition
        if len(args.paths) != 1:
            raise ShapeError(f"--extrap reads one experiment, not {len(args.paths)} paths")
        ens = Ensemble.from_extrap(args.paths[0], format=args.format)
    else:
        # a file that is not a profile (a directory's README.md) is skipped with one
        # warning line naming it, as Ensemble.from_files(on_error="skip") does
        ens = Ensemble.from_files(
            args.paths[0] if len(args.paths) == 1 else args.paths,
            reader=args.format,
            progress=False,
            on_error="skip",
        )
    metric = args.metric or ens.default_metric
    params = _params(args.param, ens.metadata.columns)
    target = _target(args.target, params)
    if len(params) > 1:
        return _multi(args, ens, metric, params, target)
    (param,) = params
    fits = ens.models(metric, param, agg=args.agg)
    _check_some_model(ens, fits, [param])
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
        name = f"at {param}={target[0]:g}{unit}"
        _with_interval(out, ens, metric, fits, order, target[0], name)
    _at(out, ens, metric, order, f"at {largest:g}{unit}", table.loc[order, "at_max"])
    has = fits["reason"] == ""
    head = (
        f"{metric!r} over {param!r}: {len(ens)} runs, {len(fits)} call paths "
        f"({(has & (fits['c1'] != 0)).sum()} growing or shrinking, "
        f"{(has & (fits['c1'] == 0)).sum()} constant, {(~has).sum()} without a model)"
    )
    return _print(args, out, fits, order, head + _past([param], target, {param: largest}))


def _past(params: list[str], target: list[float] | None, largest: dict[str, float]) -> str:
    """A line saying how far ``target`` lies past the measured values ("" when inside)."""
    if target is None:
        return ""
    past = [
        f"{p}={v:g} is {v / largest[p]:.3g}x the largest measured ({largest[p]:g})"
        for p, v in zip(params, target)
        if v > largest[p]
    ]
    inside = "" if past else "inside the measured values; "
    return (
        "\n" + "; ".join(past) + ": an extrapolation" if past else ""
    ) + f"\n{inside}low and high hold {LEVEL:.0%} of new measurements at the target"


#: the share of new measurements a printed interval holds
LEVEL = 0.9


def _with_interval(out: pd.DataFrame, ens, metric, fits: pd.DataFrame, order, at, name) -> None:
    """Add the prediction at ``at`` (a value, or a mapping of parameter values) and its
    interval to ``out`` for the rows ``order``."""
    from perfweave.scaling import predict

    got = predict(fits.loc[order], at, interval=LEVEL)
    _at(out, ens, metric, order, name, got["prediction"], got["low"], got["high"])


def _at(out: pd.DataFrame, ens, metric, order, name: str, pred, low=None, high=None) -> None:
    """Add predicted values (and an interval) to ``out`` by the rule every view applies
    (:func:`perfweave.scaling.interval.shown`: no time below 0)."""
    from perfweave.ensemble.models import metric_matrix
    from perfweave.scaling.interval import never_negative, shown

    nonnegative = never_negative(metric_matrix(ens, metric))[np.asarray(order, dtype=np.int64)]
    bounds = (pred, pred) if low is None else (low, high)
    value, lo, hi, invalid = shown(pred, *bounds, nonnegative)
    out[name] = value
    if low is not None:
        out[f"{LEVEL:.0%} low"] = lo
        out[f"{LEVEL:.0%} high"] = hi
    out.attrs.setdefault("invalid", {})[name] = invalid
    # a prediction and its interval are written in one format, in the metric's unit
    together = [name] + ([f"{LEVEL:.0%} low", f"{LEVEL:.0%} high"] if low is not None else [])
    out.attrs.setdefault("quantities", {})[name] = (ens.unit_of(metric), together)


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
    _check_some_model(ens, fits, params)
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
        _with_interval(out, ens, metric, fits, order, dict(zip(params, target)), f"at {at}{unit}")
    name = "at " + ",".join(f"{v:g}" for v in largest.values()) + unit
    _at(out, ens, metric, order, name, table.loc[order, "at_max"])
    has = fits["reason"] == ""
    const = has & (fits["combination"] == "const")
    head = (
        f"{metric!r} over {', '.join(repr(p) for p in params)}: {len(ens)} runs, "
        f"{len(fits)} call paths ({(has & ~const).sum()} with terms, {const.sum()} "
        f"constant, {(~has).sum()} without a model)"
    )
    return _print(args, out, fits, order, head + _past(params, target, largest))


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
    from perfweave.scaling import quality
    from perfweave.scaling.interval import INVALID

    out["smape"] = fits.loc[order, "smape"]
    out["ar2"] = fits.loc[order, "ar2"]
    out["quality"] = fits.loc[order, "quality"]
    out["note"] = (fits.loc[order, "reason"] + fits.loc[order, "note"]).where(lambda s: s != "", "")
    if not out["note"].astype(bool).any():
        out = out.drop(columns="note")
    if args.csv:
        out.to_csv(sys.stdout)
        return 0
    print(head)
    invalid = out.attrs.get("invalid", {})
    text = _quantities(out)
    for col in text.columns:
        if col in invalid:
            text[col] = np.where(invalid[col], INVALID, text[col])
    text["smape"] = text["smape"].map(lambda v: "" if np.isnan(v) else f"{v:.1f}%")
    text["ar2"] = text["ar2"].map(lambda v: "" if np.isnan(v) else f"{v:.3f}")
    poor = text["quality"] == "poor"
    text["quality"] = text["quality"].where(~poor, "POOR")  # marked: do not extrapolate it
    print(text.to_string())
    if poor.any():
        print(
            f"POOR: SMAPE above {quality.SMAPE_POOR:g}%, or a growth term that fits worse than "
            "the mean (AR2 below 0); good: SMAPE at most "
            f"{quality.SMAPE_GOOD:g}% and AR2 at least {quality.AR2_GOOD:g} (docs/models.md)"
        )
    return 0


def _quantities(out: pd.DataFrame) -> pd.DataFrame:
    """``out`` with its predicted values as text: a prediction and its interval in one
    format (:func:`perfweave.calltree.numbers.column_format`: one step, the same
    decimals, never ``50.8`` above ``1.476``), the header saying the step's unit."""
    from perfweave.calltree.numbers import column_format

    text = out.copy()
    renames = {}
    for name, (unit, together) in out.attrs.get("quantities", {}).items():
        fmt = column_format(out[together].to_numpy(dtype=float), unit)
        for col in together:
            text[col] = [fmt.text(v, missing="") for v in out[col]]
            text[col] = [t.removesuffix(f" {fmt.unit}") for t in text[col]]
        if unit and fmt.unit != unit:  # the header names the unit the cells are in
            renames[name] = name.removesuffix(f" ({unit})") + f" ({fmt.unit})"
    return text.rename(columns=renames)


def _check_some_model(ens, fits: pd.DataFrame, params: list[str]) -> None:
    """Raise one clear error when no call path can be modelled for one reason (a single
    profile, runs at too few parameter values), instead of a row per call path saying it."""
    from perfweave.errors import ShapeError

    reasons = fits["reason"].unique()
    if len(fits) and len(reasons) == 1 and reasons[0] != "":
        files = ens.metadata.get("file", ens.labels)
        runs = f"1 run ({files.iloc[0]})" if len(ens) == 1 else f"{len(ens)} runs"
        values = "; ".join(
            f"{p} = {', '.join(f'{v:g}' for v in sorted(ens.metadata[p].dropna().unique()))}"
            for p in params
        )
        raise ShapeError(
            f"{runs} at {values}: no call path can be modelled ({reasons[0]}); give runs "
            "at more values of the parameter"
        )


def _unit(ens, metric) -> str:
    """`` (s)`` after a predicted value's header when the metric's unit is known."""
    unit = ens.unit_of(metric)
    return f" ({unit})" if unit else ""


def _short(path: str, width: int = 60) -> str:
    """A call path cut at the front (its end names the call) to ``width`` characters."""
    return path if len(path) <= width else "..." + path[-(width - 3) :]
