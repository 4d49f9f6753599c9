"""``perfweave counts summary DIR`` and ``perfweave counts patterns DIR [--out DIR]``."""

from __future__ import annotations

import argparse
import sys
import warnings

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
