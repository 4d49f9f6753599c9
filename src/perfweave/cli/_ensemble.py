"""``perfweave ensemble``: build an ensemble of many profiles and summarise it."""

from __future__ import annotations

import argparse
import sys


def register(subparsers) -> None:
    ens = subparsers.add_parser(
        "ensemble",
        help="unify many profiles into one ensemble: summary, statistics, tree or JSON",
    )
    ens.add_argument("paths", nargs="+", help="profile files, directories or glob patterns")
    ens.add_argument("--format", help="the input format (detected when left out)")
    ens.add_argument("--profile-key", help="metadata field that identifies each profile")
    ens.add_argument(
        "--intersection", action="store_true", help="keep only nodes present in every profile"
    )
    ens.add_argument(
        "--skip-errors", action="store_true", help="skip unreadable files (listed on stderr)"
    )
    ens.add_argument(
        "--jobs",
        type=_positive,
        help="read files in this many processes (default: all cores for 256 files or more)",
    )
    ens.add_argument("--metric", help="metric for --stats / --tree (default: default metric)")
    ens.add_argument(
        "--stats", action="store_true", help="print per-node statistics across profiles (CSV)"
    )
    ens.add_argument(
        "--tree",
        metavar="STAT",
        nargs="?",
        const="mean",
        help="print the calltree with a statistic (mean by default)",
    )
    ens.add_argument("--json", metavar="FILE", help="write the ensemble as JSON to FILE")
    ens.set_defaults(func=_ensemble)


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, found {text!r}")
    return n


def _paths(items: list[str]):
    return items[0] if len(items) == 1 else items


def _ensemble(args: argparse.Namespace) -> int:
    from perfweave.ensemble import Ensemble

    ens = Ensemble.from_files(
        _paths(args.paths),
        reader=args.format,
        intersection=args.intersection,
        workers=args.jobs,
        profile_key=args.profile_key,
        on_error="skip" if args.skip_errors else "raise",
        progress=False,
    )
    # each skipped file (ens.errors) was named on stderr by its SkippedInputWarning
    metric = args.metric or ens.default_metric
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            fh.write(ens.to_json())
    if args.stats:
        names = ens.stats([metric], percentiles=[0.25, 0.75])
        ens.statsframe[["name", *names]].to_csv(sys.stdout)
    elif args.tree:
        ens.stats([metric], stats=[args.tree])
        sys.stdout.write(ens.tree(f"{metric}_{args.tree}", color=False))
    else:
        _summary(ens)
    return 0


def _summary(ens) -> None:
    out = sys.stdout
    from perfweave.ensemble.labels import summary

    out.write(f"profiles: {len(ens)}\n")
    out.write(f"labels:   {summary(ens.labels.tolist(), limit=8)}\n")
    out.write(f"nodes:    {len(ens.graph)} (union of all calltrees)\n")
    out.write(f"rows:     {len(ens.dataframe)} (node x profile)\n")
    out.write(f"metrics:  {', '.join(map(str, ens.exc_metrics + ens.inc_metrics))}\n")
    out.write(f"default:  {ens.default_metric}\n")
    cols = [str(c) for c in ens.metadata.columns]
    shown = ", ".join(cols[:12]) + (f", ... ({len(cols)} in all)" if len(cols) > 12 else "")
    out.write(f"metadata: {shown}\n")
