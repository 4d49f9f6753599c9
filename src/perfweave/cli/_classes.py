"""``perfweave opreport``: opreport's image-level report of an OProfile session directory.

Prints what ``opreport`` prints (class descriptions, column headers, application rows and
indented dependent-image rows) or opreport's error text with exit status 1. Options and
profile specification words may be mixed in any order, as with opreport.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from perfweave.errors import PerfweaveError, SpecError


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


# opreport prints these itself, with a bare "error:" (pp/opreport_options.cpp), not through
# the "opreport error:" handler every other error goes to
_PLAIN_ERRORS = ("no sample files found:",)


def _standalone_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="perfweave opreport")
    _add_options(parser)
    parser.add_argument("specs", nargs="*")
    return parser


_ARCHIVES = (".tar.gz", ".tgz", ".tar")


@contextlib.contextmanager
def _session(path: str) -> Iterator[str]:
    """The session directory itself, or a .tar.gz of one unpacked into a temporary folder
    (regular files and folders only) for the duration of the report."""
    if not (path.endswith(_ARCHIVES) and os.path.isfile(path)):
        yield path
        return
    import tarfile
    import tempfile

    with tempfile.TemporaryDirectory(prefix="perfweave-session-") as tmp:
        try:
            with tarfile.open(path) as tar:
                members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]
                for m in members:
                    if m.name.startswith("/") or ".." in Path(m.name).parts:
                        raise SpecError(f"{path}: archive member {m.name!r} leaves the session")
                # the "data" filter (Python >= 3.12, and 3.10.12/3.11.4 backports) also
                # refuses links and device files; Python 3.14 warns without a filter
                safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
                tar.extractall(tmp, members=members, **safe)
        except tarfile.TarError as exc:
            raise SpecError(f"{path}: not a readable session archive ({exc})") from None
        inner = [p for p in Path(tmp).iterdir()]
        root = inner[0] if len(inner) == 1 and (inner[0] / "samples").is_dir() else Path(tmp)
        yield str(root)


def run(argv: Sequence[str], out=None, err=None) -> int:
    """Run the command on ``argv`` (options and specs in any order); return the exit status."""
    from perfweave.classes.merge_options import MergeOptions
    from perfweave.classes.opreport import opreport

    out = out or sys.stdout
    err = err or sys.stderr
    args = _standalone_parser().parse_intermixed_args(list(argv))
    try:
        merge = MergeOptions.parse(args.merge, exclude_dependent=args.exclude_dependent)
    except PerfweaveError as exc:  # opreport prints these two without its "error:" prefix
        print(exc, file=err)
        return 1
    try:
        with _session(args.session_dir) as session_dir:
            text = opreport(
                session_dir,
                args.specs,
                merge,
                exclude_dependent=args.exclude_dependent,
                verbose_sfile=args.verbose == "sfile",
            )
    except PerfweaveError as exc:
        prefix = "error" if str(exc).startswith(_PLAIN_ERRORS) else "opreport error"
        print(f"{prefix}: {exc}", file=err)
        return 1
    out.write(text)
    return 0


def _func(args: argparse.Namespace) -> int:
    argv = [f"--session-dir={args.session_dir}"]
    if args.merge:
        argv.append(f"--merge={args.merge}")
    if args.exclude_dependent:
        argv.append("--exclude-dependent")
    if args.verbose:
        argv.append(f"--verbose={args.verbose}")
    return run(argv + list(args.rest))


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
