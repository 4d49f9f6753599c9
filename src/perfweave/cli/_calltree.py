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
    _rank_options(tree)
    _reader_option(tree)
    tree.set_defaults(func=_tree)

    convert = subparsers.add_parser("convert", help="write a profile in another format")
    convert.add_argument("file")
    convert.add_argument("--format", help="the input format (detected when left out)")
    convert.add_argument(
        "--to",
        required=True,
        choices=("json", "literal", "dot", "folded"),
        help="output format. json: Hatchet's GraphFrame JSON (every column, the metric lists); "
        "literal: Hatchet's literal (one value per node and column); dot: Graphviz, one "
        "metric (--metric), names and exact values kept in perfweave_* attributes. "
        "perfweave tree/info/convert and perfweave.read detect and read these three back. "
        "folded: display-only (for flame graph tools; perfweave does not read it back), one "
        "'a;b;c value' line per node with a non-zero value, where a name's ';' is written "
        "\\x3b, '\\' as \\\\, a newline as \\n and other control characters as \\xNN "
        "(reversible with perfweave.calltree.folded.parse_folded; see docs/calltree.md)",
    )
    convert.add_argument(
        "--metric", help="metric for dot/folded output (default: the default metric)"
    )
    convert.add_argument("-o", "--output", help="output file (default: standard output)")
    _rank_options(convert)
    _reader_option(convert)
    convert.set_defaults(func=_convert)

    info = subparsers.add_parser(
        "info", help="format, nodes, roots, ranks and metrics of a profile"
    )
    info.add_argument("file")
    info.add_argument("--format", help="the input format (detected when left out)")
    _reader_option(info)
    info.set_defaults(func=_info)


_AGGREGATES = ("mean", "sum", "min", "max", "median")


def _reader_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-O",
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a reader option, e.g. -O merge_calls=true, -O per_profile=true, "
        '-O metric_names=\'["time","gpuop"]\' (VALUE as JSON, else text; repeatable)',
    )


def _options(pairs: list[str]) -> dict:
    """``KEY=VALUE`` pairs as reader options: VALUE parsed as JSON (numbers, true/false,
    lists), else kept as text. Never evaluated."""
    import json

    from perfweave.errors import OptionError

    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.isidentifier():
            raise OptionError(f"-O {pair!r}: expected KEY=VALUE with a Python name as KEY")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def _rank_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--aggregate",
        choices=_AGGREGATES,
        default="mean",
        help="how the ranks/threads of a multi-rank profile are combined per node (default: "
        "mean; a rank/thread without a row for a node counts 0, see docs/calltree.md); the "
        "output says which was used",
    )
    parser.add_argument(
        "--rank", type=int, help="show this one rank (its threads aggregated) instead"
    )


def _prepare(args: argparse.Namespace, gf, metric: str | None) -> tuple[object, str]:
    """One value per node: the chosen rank, or the ranks/threads aggregated; inclusive
    columns as every tree view has them (``calltree.shown``). Returns (frame, note)."""
    import numpy as np

    from perfweave.calltree.analysis import combine_rows
    from perfweave.calltree.ranks import rank_cells
    from perfweave.calltree.shown import with_inclusive
    from perfweave.errors import PerfweaveError

    notes = []
    # inclusive columns before ranks/threads are reduced: the rule of tree() and the explorer
    gf = with_inclusive(gf, [metric] if metric else [])
    combined = combine_rows(gf)  # a node's several rows per rank/thread are its parts
    if combined is not gf.dataframe:
        notes.append(f"each node: the sum of its rows ({len(gf.dataframe)} rows)")
        gf = gf._derive(gf.graph, combined)
    df = gf.dataframe
    note = ""
    if args.rank is not None:
        if "rank" not in gf.index_levels:
            raise PerfweaveError(f"{args.file}: --rank {args.rank}: the profile has no ranks")
        ranks = df.index.get_level_values("rank").unique()
        if args.rank not in set(ranks.tolist()):
            raise PerfweaveError(
                f"{args.file}: --rank {args.rank}: no such rank; expected one of "
                f"{ranks.min()}..{ranks.max()} ({len(ranks)} ranks)"
            )
        gf = gf._derive(gf.graph, df.xs(args.rank, level="rank"))
        note = f"rank {args.rank} of {len(ranks)}"
        if gf.index_levels:  # threads of that rank
            gf.drop_index_levels(getattr(np, args.aggregate))
            note += f", {args.aggregate} over its threads"
        if _zero_where_unmeasured(gf, df):
            note += f"; a node with no row in rank {args.rank} counts 0"
    elif gf.index_levels:
        # said by the one rule of reducing ranks and threads (calltree.ranks)
        shown = [m for m in (metric or gf.default_metric,) if m in df.columns]
        said = rank_cells(gf, shown, "threads").describe(args.aggregate)
        gf = gf.copy()
        gf.drop_index_levels(getattr(np, args.aggregate))
        note = f"{said} (--aggregate sum|min|max|median, --rank N)"
    return gf, "; ".join(notes + ([note] if note else []))


def _zero_where_unmeasured(gf, every_rank) -> bool:
    """Give the nodes of one rank's frame ``gf`` (one row per node) that another rank has a
    value for and it has none a row: 0 for additive metrics, by the rule every reduction
    over ranks follows (``calltree.ranks.unmeasured_zero``). Whether any was added."""
    import numpy as np
    import pandas as pd

    from perfweave.calltree.ranks import unmeasured_zero

    df = gf.dataframe
    if df.index.nlevels != 1:
        return False
    n = len(gf.graph)
    present = np.zeros(n, bool)
    present[np.asarray(df.index, dtype=np.int64)] = True
    zero = {
        m: np.flatnonzero(unmeasured_zero(every_rank, n, m) & ~present)
        for m in gf.exc_metrics + gf.inc_metrics
        if m in df.columns
    }
    missing = np.unique(np.concatenate([np.zeros(0, np.int64), *zero.values()]))
    if not len(missing):
        return False
    df = df.reindex(pd.Index(np.union1d(np.asarray(df.index), missing), name=df.index.name))
    for m, nodes in zero.items():
        df.loc[nodes, m] = 0.0
    gf.dataframe = df
    return True


def _load(args):
    from perfweave.calltree.readers import detect, read

    fmt = args.format or detect(args.file)
    return fmt, read(args.file, format=fmt, **_options(args.option))


def _tree(args: argparse.Namespace) -> int:
    _, gf = _load(args)
    gf, note = _prepare(args, gf, args.metric)
    if note:
        sys.stdout.write(f"# {note}\n")
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
    _, gf = _load(args)
    gf, note = _prepare(args, gf, args.metric)
    if note:
        print(f"perfweave convert: {note}", file=sys.stderr)
    if args.to == "json":
        text = gf.to_json()
    elif args.to == "literal":
        from perfweave.calltree.deepjson import dumps, numpy_default  # any depth of tree

        text = dumps(gf.to_literal(), indent=1, default=numpy_default)
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
    # the unit of every metric that has one (the reader's, or what its name declares)
    units = [f"{m} in {gf.unit_of(m)}" for m in gf.exc_metrics + gf.inc_metrics if gf.unit_of(m)]
    lines.append(f"units:     {', '.join(units) or '-'}")
    lines.append(f"default:   {gf.default_metric}")
    print("\n".join(lines))
    return 0
