"""``perfweave opreport``: opreport's image-level report of an OProfile session directory.

Prints what ``opreport`` prints (class descriptions, column headers, application rows and
indented dependent-image rows) or opreport's error text with exit status 1. Options and
profile specification words may be mixed in any order, as with opreport.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from perfweave.errors import PerfweaveError

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _byte_count(value: str) -> int:
    """A byte count: a whole number with an optional binary unit, ``2G`` = 2 GiB."""
    number, unit = value.strip(), ""
    if number[-1:].upper() in _UNITS:
        number, unit = number[:-1], number[-1].upper()
    if not number.isdigit() or int(number) == 0:
        raise argparse.ArgumentTypeError(
            f"{value!r}: expected a positive byte count such as 1073741824, 512M or 2G"
        )
    return int(number) * _UNITS[unit]


def _member_count(value: str) -> int:
    if not value.isdigit() or int(value) == 0:
        raise argparse.ArgumentTypeError(f"{value!r}: expected a positive number of members")
    return int(value)


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--session-dir",
        required=True,
        metavar="DIR",
        help="the session directory (holding samples/current/...), or a .tar.gz of one",
    )
    parser.add_argument(
        "-m",
        "--merge",
        default="",
        metavar="LIST",
        help="merge by cpu, tid, tgid, lib, unitmask or all (comma list)",
    )
    parser.add_argument(
        "--verbose",
        choices=["sfile"],
        help="sfile: also list the matched sample files and dump the classes",
    )
    parser.add_argument(
        "-x",
        "--exclude-dependent",
        action="store_true",
        help="leave out libraries, kernel modules and anon regions",
    )
    parser.add_argument(
        "--archive-max-bytes",
        type=_byte_count,
        metavar="SIZE",
        help="a session archive may unpack to at most SIZE bytes (512M, 2G; default 1G)",
    )
    parser.add_argument(
        "--archive-max-members",
        type=_member_count,
        metavar="N",
        help="a session archive may hold at most N members (default 100000)",
    )


# opreport prints these itself, with a bare "error:" (pp/opreport_options.cpp), not through
# the "opreport error:" handler every other error goes to
_PLAIN_ERRORS = ("no sample files found:",)


def _standalone_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="perfweave opreport")
    _add_options(parser)
    parser.add_argument("specs", nargs="*")
    return parser


def run(argv: Sequence[str], out=None, err=None) -> int:
    """Run the command on ``argv`` (options and specs in any order); return the exit status."""
    from perfweave.classes.archive import ArchiveLimits
    from perfweave.classes.opreport import opreport
    from perfweave.classes.opreport_merge import MergeOptions

    out = out or sys.stdout
    err = err or sys.stderr
    args = _standalone_parser().parse_intermixed_args(list(argv))
    try:
        merge = MergeOptions.parse(args.merge, exclude_dependent=args.exclude_dependent)
    except PerfweaveError as exc:  # opreport prints these two without its "error:" prefix
        print(exc, file=err)
        return 1
    defaults = ArchiveLimits()
    limits = ArchiveLimits(
        max_bytes=args.archive_max_bytes or defaults.max_bytes,
        max_members=args.archive_max_members or defaults.max_members,
    )
    try:
        text = opreport(
            args.session_dir,
            args.specs,
            merge,
            exclude_dependent=args.exclude_dependent,
            verbose_sfile=args.verbose == "sfile",
            archive_limits=limits,
        )
    except PerfweaveError as exc:
        prefix = "error" if str(exc).startswith(_PLAIN_ERRORS) else "opreport error"
        print(f"{prefix}: {exc}", file=err)
        return 1
    out.write(text)
    return 0


def _func(args: argparse.Namespace) -> int:
    """The subcommand's arguments as the command line :func:`run` reads: the same
    :func:`~perfweave.classes.opreport_argv` a ClassPicker shows as its command."""
    from perfweave.classes.study import opreport_argv

    options = [f"--verbose={args.verbose}"] if args.verbose else []
    if args.archive_max_bytes:
        options.append(f"--archive-max-bytes={args.archive_max_bytes}")
    if args.archive_max_members:
        options.append(f"--archive-max-members={args.archive_max_members}")
    argv = opreport_argv(args.session_dir, args.rest, args.merge, args.exclude_dependent, options)
    return run(argv)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "opreport",
        help="opreport's image-level report of an OProfile session",
        description=__doc__,
    )
    _add_options(parser)
    parser.add_argument(
        "rest",
        nargs=argparse.REMAINDER,
        metavar="SPEC",
        help="profile specification words (event:..., tid:..., image names)",
    )
    parser.set_defaults(func=_func)
