"""``perfweave counts summary | patterns | sites DIR``: the count matrices on the command line."""

from __future__ import annotations

import argparse
import sys
import warnings

from perfweave.counts.sites import METRICS, WRAPPERS
from perfweave.errors import PerfweaveError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "counts", help="count matrices of MPI collectives (collective profiler results)"
    )
    sub = parser.add_subparsers(dest="counts_command", metavar="ACTION")
    sub.required = True

    summary = sub.add_parser("summary", help="what a results directory holds, per lead rank")
    summary.add_argument("directory", help="a collective profiler results directory")
    summary.add_argument(
        "--threshold", type=int, default=200, help="large-message threshold in bytes (200)"
    )
    summary.add_argument("--strict", action="store_true", help="fail on the first bad file")
    _workers_option(summary)
    summary.set_defaults(func=_summary)

    patterns = sub.add_parser("patterns", help="communication patterns per lead rank")
    patterns.add_argument("directory", help="a collective profiler results directory")
    patterns.add_argument(
        "--out", help="write patterns-job<J>-rank<R>.md and patterns-summary-... here"
    )
    patterns.add_argument("--strict", action="store_true", help="fail on the first bad file")
    _workers_option(patterns)
    patterns.set_defaults(func=_patterns)

    sites = sub.add_parser(
        "sites",
        help="call sites: the backtraces woven with the counts and timings into a calltree",
        description="One line per call site (calls, bytes sent and received summed over "
        "ranks, execution and late-arrival times: mean and max over ranks of each rank's "
        "sum, communicators, call groups, caller frame, backtrace files), then the calltree "
        "of the call sites (outermost frame at the root). NaN where a file is missing (no "
        "timings, no counts for a call), never 0. rank is the COMM_WORLD rank where a "
        "location file maps the communicator, else the communicator rank. Frames are named "
        "by their symbol, else module and address (wrf.exe [0x3314863]) or module and "
        "offset (prog+0x13f4); --binary resolves a program's frames to functions and source "
        "lines. See docs/counts.md.",
    )
    sites.add_argument("directory", help="a collective profiler results directory")
    sites.add_argument(
        "--wrappers",
        choices=WRAPPERS,
        default="drop",
        help="the profiler's own frames (its lib<collective>_*.so): drop (default) replaces "
        "them with one leaf named for the MPI function the program called (MPI_Alltoallv); "
        "keep shows them, with the frame type 'profiler'",
    )
    sites.add_argument(
        "--binary",
        action="append",
        metavar="PATH",
        help="the program (or a shared library) the backtraces name, as an ELF file with its "
        "symbols: frames of the module of that file name are named by function, offset and "
        "source line (file:line, from its DWARF line table), read with pyelftools "
        "(pip install perfweave[symbols]); the file is only read, never run. Repeat for "
        "several modules",
    )
    sites.add_argument(
        "--metric",
        help="metric of the tree (default: time (inc), or bytes_sent (inc) without timings); "
        "one of " + ", ".join(f"'{m}', '{m} (inc)'" for m in METRICS),
    )
    sites.add_argument(
        "--aggregate",
        choices=("mean", "sum", "max", "min"),
        default="mean",
        help="how the tree combines a node's ranks (default: mean; a rank without a row for "
        "a node took no part in its calls and counts 0)",
    )
    sites.add_argument("--depth", type=_positive, help="show this many levels of the tree")
    sites.add_argument("--csv", action="store_true", help="print only the call-site table, as CSV")
    sites.add_argument("--strict", action="store_true", help="fail on the first bad file")
    _workers_option(sites)
    sites.set_defaults(func=_sites)


def _workers_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers",
        type=_positive,
        default=None,
        help="threads parsing per-call files (default: the CPUs available, at most 8)",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _load(args):
    from perfweave.counts import read

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        profile = read(args.directory, strict=args.strict, workers=args.workers)
    for exc in profile.errors:
        print(f"perfweave counts: skipped: {exc}", file=sys.stderr)
    if not profile.groups:
        raise PerfweaveError(f"{args.directory}: no readable count files")
    return profile


def _tally_text(values) -> str:
    counts = values.value_counts(sort=False).sort_index()
    return ", ".join(f"{k} ({v} calls)" for k, v in counts.items())


def _summary(args: argparse.Namespace) -> int:
    from perfweave.counts import message_totals

    profile = _load(args)
    n_calls = sum(g.n_calls for g in profile.groups)
    print(
        f"{args.directory}: {len(profile.ranks)} lead ranks, {len(profile.groups)} call groups, "
        f"{n_calls} calls"
    )
    for rank in profile.ranks:
        groups = profile.call_groups(rank)
        stats = profile.stats(rank, threshold=args.threshold)
        report = profile.patterns(rank)
        send = {g.send.fingerprint for g in groups}
        recv = {g.recv.fingerprint for g in groups}
        tot = message_totals(stats)
        print(f"\nlead rank {rank} (job {groups[0].job}): {groups[0].collective}")
        print(
            f"  calls: {len(stats)} in {len(groups)} groups "
            f"({len(send)} distinct send / {len(recv)} distinct recv matrices)"
        )
        print(f"  communicator sizes: {_tally_text(stats['comm_size'])}")
        print(f"  send datatype sizes: {_tally_text(stats['send_datatype_size'])}")
        print(f"  recv datatype sizes: {_tally_text(stats['recv_datatype_size'])}")
        print(
            f"  send messages: {tot['send_messages']}, large {tot['send_large']}, small "
            f"{tot['send_small']} (non-zero {tot['send_small_nonzero']}; threshold "
            f"{args.threshold} bytes); bytes sent {tot['send_bytes']}"
        )
        print(
            f"  patterns: {len(report.patterns)} (1->N {len(report.one_to_n)}, N->1 "
            f"{len(report.n_to_one)}, N->n {len(report.n_to_n)}; empty calls "
            f"{len(report.empty)})"
        )
    if not profile.timings.empty:
        t = profile.timings
        print(f"\ntimings: {len(t)} values over {t['call'].nunique()} calls")
    if not profile.locations.empty:
        hosts = profile.locations["hostname"].nunique()
        print(f"locations: {hosts} hosts")
    if profile.errors:
        print(f"\n{len(profile.errors)} unreadable files (see stderr)")
    return 0


def _patterns(args: argparse.Namespace) -> int:
    from perfweave.counts import format_patterns, format_patterns_summary, write_patterns

    profile = _load(args)
    keys = sorted({(g.job if g.job is not None else 0, g.lead_rank) for g in profile.groups})
    for job, rank in keys:
        report = profile.patterns(
            rank, job=job if any(g.job == job for g in profile.groups) else None
        )
        if args.out:
            p1, p2 = write_patterns(report, args.out, job=job, rank=rank)
            print(f"wrote {p1} and {p2}")
        else:
            print(f"<!-- lead rank {rank}, job {job} -->")
            print(format_patterns(report), end="")
            print(format_patterns_summary(report))
    return 0


#: the call-site table's columns as printed: (column, header, format)
_SITE_COLUMNS = (
    ("calls", "calls", "{:,.0f}"),
    ("bytes_sent", "bytes sent", "{:,.0f}"),
    ("bytes_received", "bytes received", "{:,.0f}"),
    ("time_mean", "time mean (s)", "{:.6f}"),
    ("time_max", "time max (s)", "{:.6f}"),
    ("late_arrival_mean", "late mean (s)", "{:.6f}"),
    ("late_arrival_max", "late max (s)", "{:.6f}"),
    ("comms", "comms", "{}"),
    ("groups", "call groups", "{}"),
    ("caller", "caller", "{}"),
    ("traces", "backtraces", "{}"),
)


def _sites(args: argparse.Namespace) -> int:
    import numpy as np

    from perfweave.errors import MetadataError

    gf = _load(args).call_sites(wrappers=args.wrappers, binary=args.binary)
    table = gf.metadata["call_sites"]
    if args.csv:
        sys.stdout.write(table.to_csv())
        return 0
    n_ranks = gf.dataframe.index.get_level_values("rank").nunique()
    kind = {
        "COMM_WORLD": "COMM_WORLD ranks, from the location files",
        "communicator": "communicator ranks: no location file maps them to COMM_WORLD",
        "mixed": "COMM_WORLD ranks where a location file maps them, else communicator ranks",
    }[gf.metadata["rank"]]
    print(
        f"# {args.directory}: {len(table)} call sites, {int(table['calls'].sum()):,} calls, "
        f"{n_ranks} ranks ({kind})"
    )
    rows = [["site"] + [header for _, header, _ in _SITE_COLUMNS]]
    for site, rec in table.iterrows():
        rows.append(
            [str(site)]
            + [
                "NaN" if isinstance(rec[c], float) and np.isnan(rec[c]) else fmt.format(rec[c])
                for c, _, fmt in _SITE_COLUMNS
            ]
        )
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    for r in rows:
        print(
            "  ".join(
                v.rjust(w) if k < 8 else v.ljust(w) for k, (v, w) in enumerate(zip(r, widths))
            ).rstrip()
        )
    metric = args.metric or gf.default_metric
    if metric not in gf.dataframe.columns or metric == "site":
        raise MetadataError(
            f"--metric {metric!r}: no such metric; one of "
            + ", ".join(gf.exc_metrics + gf.inc_metrics)
        )
    shown = gf.copy()
    shown.drop_index_levels(getattr(np, args.aggregate))
    print(f"\n# {metric}: {args.aggregate} over {n_ranks} ranks (--aggregate, --metric)")
    sys.stdout.write(shown.tree(metric_column=metric, depth=args.depth, color=False))
    return 0
