"""``perfweave tree | convert | info``: the calltree core on the command line."""

from __future__ import annotations

import argparse
import sys


def register(subparsers) -> None:
    tree = subparsers.add_parser("tree", help="print a profile's calltree as text")
    tree.add_argument("file", help="a profile in any supported format (file or directory)")
    tree.add_argument("--format", help="the input format (detected when left out)")
    tree.add_argument(
        "--metric", help="metric column to show (default: the profile's default metric)"
    )
    tree.add_argument("--depth", type=int, help="show this many levels at most")
    tree.add_argument(
        "--threshold", type=float, help="hide nodes below this fraction of the largest value"
    )
    tree.add_argument("--precision", type=int, default=3, help="decimals shown (default 3)")
    tree.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    tree.set_defaults(func=_tree)

    convert = subparsers.add_parser("convert", help="write a profile in another format")
    convert.add_argument("file")
    convert.add_argument("--format", help="the input format (detected when left out)")
    convert.add_argument("--to", required=True, choices=("json", "literal", "dot", "folded"))
    convert.add_argument("--metric", help="metric for dot/folded output")
    convert.add_argument("-o", "--output", help="output file (default: standard output)")
    convert.set_defaults(func=_convert)

    info = subparsers.add_parser(
        "info", help="format, nodes, roots, ranks and metrics of a profile"
    )
    info.add_argument("file")
    info.add_argument("--format", help="the input format (detected when left out)")
    info.set_defaults(func=_info)


def _load(args):
    from perfweave.calltree.readers import detect, read

    fmt = args.format or detect(args.file)
    return fmt, read(args.file, format=fmt)


def _tree(args: argparse.Namespace) -> int:
    _, gf = _load(args)
    color = {"auto": None, "always": True, "never": False}[args.color]
    sys.stdout.write(
        gf.tree(
            metric_column=args.metric,
            depth=args.depth,
            threshold=args.threshold,
            precision=args.precision,
            color=color,
        )
    )
    return 0


def _convert(args: argparse.Namespace) -> int:
    import json

    _, gf = _load(args)
    if args.to == "json":
        text = gf.to_json()
    elif args.to == "literal":
        from perfweave.calltree.graphframe import _json_default

        text = json.dumps(gf.to_literal(), indent=1, default=_json_default)
    elif args.to == "dot":
        text = gf.to_dot(metric=args.metric)
    else:
        text = gf.to_flamegraph(metric=args.metric)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _info(args: argparse.Namespace) -> int:
    fmt, gf = _load(args)
    df = gf.dataframe
    lines = [
        f"file:     {args.file}",
        f"format:   {fmt}",
        f"graph:    {'tree' if gf.graph.is_tree() else 'DAG'}, {len(gf.graph)} nodes, {len(gf.graph.root_ids)} roots",
        f"rows:     {len(df)} (index: {', '.join(map(str, df.index.names))})",
    ]
    for level in gf.index_levels:
        values = df.index.get_level_values(level).unique()
        lines.append(f"{level + 's:':<10}{len(values)} ({values.min()}..{values.max()})")
    lines.append(f"exclusive: {', '.join(map(str, gf.exc_metrics)) or '-'}")
    lines.append(f"inclusive: {', '.join(map(str, gf.inc_metrics)) or '-'}")
    lines.append(f"default:   {gf.default_metric}")
    print("\n".join(lines))
    return 0
