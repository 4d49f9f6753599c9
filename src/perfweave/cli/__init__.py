"""The ``perfweave`` command line: one sub-command family per core part.

Each module listed in ``_COMMAND_MODULES`` defines ``register(subparsers)``, which adds its
sub-commands and sets ``func`` on them. Every error is printed as one line on stderr
with exit status 1 (2 for usage errors, as argparse does): a perfweave error says the
file, position and what was expected; any other exception (a bug, or bad input a reader
did not catch) names its type, the input given and how to see more. ``--debug`` prints
the full traceback instead. perfweave's warnings (a skipped input) print as one line each.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
import warnings
from collections.abc import Sequence

from perfweave import __version__
from perfweave.errors import PerfweaveError, PerfweaveWarning

_COMMAND_MODULES = (
    "calltree",
    "imbalance",
    "counts",
    "classes",
    "merge",
    "ensemble",
    "models",
    "apps",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="perfweave",
        description="Merge and explore performance profiles of HPC programs.",
    )
    parser.add_argument("--debug", action="store_true", help="print the full traceback of an error")
    parser.add_argument("--version", action="version", version=f"perfweave {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in _COMMAND_MODULES:
        importlib.import_module(f"perfweave.cli._{name}").register(subparsers)
    return parser


# argument names under which sub-commands take their input files
_INPUT_ARGS = ("file", "paths", "directory", "csv", "specs")


def _inputs(args: argparse.Namespace) -> str:
    """The input file(s) of a command line, for an error message ("" when none)."""
    for name in _INPUT_ARGS:
        value = getattr(args, name, None)
        if value:
            return value if isinstance(value, str) else ", ".join(map(str, value))
    return ""


def _one_line(text: str) -> str:
    """``text`` on one line, without control characters (it may quote file contents)."""
    flat = " ".join(str(text).split())
    flat = "".join(c if c.isprintable() else "?" for c in flat)
    return flat if len(flat) <= 300 else flat[:297] + "..."


def _show_warning(command: str):
    """A ``warnings.showwarning`` that prints perfweave's warnings as one line each."""
    default = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, PerfweaveWarning):
            print(f"perfweave {command}: warning: {_one_line(message)}", file=sys.stderr)
        else:
            default(message, category, filename, lineno, file, line)

    return show


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    prefix = f"perfweave {args.command}: error:"
    try:
        with warnings.catch_warnings():
            # every skipped input is printed, whatever filters the caller set
            warnings.simplefilter("always", PerfweaveWarning)
            warnings.showwarning = _show_warning(args.command)
            return int(args.func(args) or 0)
    except BrokenPipeError:  # e.g. `perfweave tree big.json | head`
        return 0
    except KeyboardInterrupt:
        print(f"perfweave {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.debug:
            traceback.print_exc()
        if isinstance(exc, PerfweaveError):
            print(f"{prefix} {_one_line(exc)}", file=sys.stderr)
        elif isinstance(exc, FileNotFoundError):
            print(f"{prefix} {_one_line(exc.filename)}: no such file", file=sys.stderr)
        elif isinstance(exc, OSError) and exc.filename is not None:
            print(f"{prefix} {_one_line(exc.filename)}: {exc.strerror}", file=sys.stderr)
        else:
            where = _inputs(args)
            what = f"reading {_one_line(where)}" if where else "running the command"
            detail = _one_line(f"{type(exc).__name__}: {exc}")
            hint = "" if args.debug else " (run with --debug for the traceback)"
            print(
                f"{prefix} unexpected failure {what}: {detail}{hint}",
                file=sys.stderr,
            )
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
