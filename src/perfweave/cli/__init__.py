"""The ``perfweave`` command line: one sub-command family per core part.

Each module listed in ``_COMMAND_MODULES`` defines ``register(subparsers)``, which adds its
sub-commands and sets ``func`` on them. Errors from perfweave are printed as one line on
stderr with exit status 1 (2 for usage errors, as argparse does); no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from perfweave.errors import PerfweaveError

_COMMAND_MODULES = ("calltree", "counts", "classes", "merge", "ensemble")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="perfweave",
        description="Merge and explore performance profiles of HPC programs.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in _COMMAND_MODULES:
        importlib.import_module(f"perfweave.cli._{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except PerfweaveError as exc:
        print(f"perfweave {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except FileNotFoundError as exc:
        print(f"perfweave {args.command}: error: {exc.filename}: no such file", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `perfweave tree big.json | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
