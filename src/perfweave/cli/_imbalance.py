"""``perfweave imbalance``: where the ranks of a profile lose time, largest loss first.

One line per node from ``GraphFrame.load_imbalance``: the excess (max - mean over the
compared ranks or threads, in the metric's unit: the time the slowest one spends beyond
the average), the max and mean, the POP load-balance efficiency (mean / max), Chopper's
imbalance ratio (max / mean) and the ranks with the largest values. Sorted by the excess
unless ``--sort`` says otherwise (a ratio ranks tiny calls first).
"""

from __future__ import annotations

import argparse
import sys

from perfweave.calltree.ranks import ACROSS

#: sort keys and whether larger is worse (efficiency: smaller is worse)
_SORTS = {"excess": True, "imbalance": True, "max": True, "mean": True, "efficiency": False}


def register(subparsers) -> None:
    cmd = subparsers.add_parser(
        "imbalance", help="where the ranks of a multi-rank profile lose time (max - mean)"
    )
    cmd.add_argument("file", help="a profile with rank/thread levels (file or directory)")
    cmd.add_argument("--format", help="the input format (detected when left out)")
    cmd.add_argument("--metric", help="metric column (default: the profile's default metric)")
    cmd.add_argument(
        "--across",
        choices=ACROSS,
        help="compare each rank, its threads summed (the default where there are ranks), "
        "or every thread",
    )
    cmd.add_argument(
        "--sort",
        choices=tuple(_SORTS),
        default="excess",
        help="order of the lines (default: excess = max - mean, the largest loss first; "
        "efficiency: the lowest first)",
    )
    cmd.add_argument("--top", type=int, default=20, help="lines shown (default 20)")
    cmd.add_argument("--precision", type=int, default=3, help="decimals shown (default 3)")
    from perfweave.cli._calltree import _reader_option

    _reader_option(cmd)
    cmd.set_defaults(func=_imbalance)


def _imbalance(args: argparse.Namespace) -> int:
    import numpy as np

    from perfweave.calltree.display import node_names
    from perfweave.calltree.numbers import fixed_text
    from perfweave.calltree.ranks import check_across, compared
    from perfweave.cli._calltree import _load
    from perfweave.errors import PerfweaveError

    if args.top < 1:
        raise PerfweaveError(f"--top {args.top}: expected a positive number of lines")
    _, gf = _load(args)
    if not gf.index_levels:
        raise PerfweaveError(
            f"{args.file}: the profile has no rank or thread levels (index: "
            f"{', '.join(map(str, gf.dataframe.index.names))}); read it per rank "
            "(e.g. -O per_profile=true for an HPCToolkit database)"
        )
    metric = args.metric or gf.default_metric
    across = check_across(gf.index_levels, args.across)
    li = gf.load_imbalance(metric, top=3, across=across)
    df = li.dataframe
    key = df[f"{metric}.{args.sort}"].to_numpy(dtype=float)
    worse_first = -key if _SORTS[args.sort] else key
    order = np.lexsort((df.index.to_numpy(), np.where(np.isnan(key), np.inf, worse_first)))
    order = order[: args.top]
    names = node_names(gf.graph, gf.dataframe)
    unit = gf.unit_of(metric)
    p = args.precision
    what = compared(gf.index_levels, across)
    sys.stdout.write(
        f"# {metric} over {what}; sorted by {_SORT_WORDS[args.sort]}; "
        f"{len(order)} of {len(df)} nodes\n"
    )
    head = [f"excess{_in(unit)}", f"max{_in(unit)}", f"mean{_in(unit)}", "efficiency", "ratio"]
    has_ranks, has_threads = (f"{metric}.top_{u}" in df.columns for u in ("ranks", "threads"))
    tops = (
        "top rank:thread"
        if has_ranks and has_threads
        else f"top {'ranks' if has_ranks else 'threads'}"
    )
    rows = []
    for i in order:
        row = df.iloc[i]
        rows.append(
            [
                # a value that is not 0 never reads as 0 (the rule of every column)
                fixed_text(row[f"{metric}.excess"], p, thousands=True),
                fixed_text(row[f"{metric}.max"], p, thousands=True),
                fixed_text(row[f"{metric}.mean"], p, thousands=True),
                fixed_text(row[f"{metric}.efficiency"], 2),
                f"{fixed_text(row[f'{metric}.imbalance'], 2)}x",
                _units(row, metric),
                f"{names[int(df.index[i])]} (node {int(df.index[i])})",
            ]
        )
    cells = [head + [tops, "name"], *rows]
    widths = [max(len(r[c]) for r in cells) for c in range(len(head) + 1)]
    for r in cells:
        numbers = "  ".join(r[c].rjust(widths[c]) for c in range(len(head)))
        sys.stdout.write(f"{numbers}  {r[len(head)].ljust(widths[-1])}  {_printable(r[-1])}\n")
    return 0


_SORT_WORDS = {
    "excess": "excess = max - mean (the slowest's time beyond the average), largest first",
    "imbalance": "imbalance = max / mean, largest first",
    "max": "max, largest first",
    "mean": "mean, largest first",
    "efficiency": "efficiency = mean / max, lowest first",
}


def _in(unit: str) -> str:
    return f" ({unit})" if unit else ""


def _units(row, metric: str) -> str:
    """The ranks (rank:thread where every thread is compared) with the largest values."""
    ranks = row.get(f"{metric}.top_ranks")
    threads = row.get(f"{metric}.top_threads")
    if ranks is not None and threads is not None:
        return ",".join(f"{r}:{t}" for r, t in zip(ranks, threads))
    return ",".join(str(v) for v in (ranks if ranks is not None else threads))


def _printable(text: str) -> str:
    from perfweave.calltree.writers import printable

    return printable(text)
