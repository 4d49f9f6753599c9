"""Run one part's benchmark (``python -m benchmarks counts``) or all of them."""

from __future__ import annotations

import importlib
import sys

PARTS = (
    "calltree",
    "calltree_readers",
    "calltree_readers2",
    "calltree_readers3",
    "calltree_cube",
    "extrap_inputs",
    "calltree_samples",
    "calltree_deep",
    "calltree_analysis",
    "flame",
    "ensemble",
    "models",
    "counts",
    "counts_sites",
    "classes",
    "merge",
    "widgets",
    "explorer_kernel",
    "fuzz",  # last: it caps the address space of the process
)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in {"-h", "--help"}:
        print(f"usage: python -m benchmarks {{{','.join(PARTS)},all}} [options]")
        return 0 if argv else 2
    part, rest = argv[0], argv[1:]
    names = PARTS if part == "all" else (part,)
    for name in names:
        if name not in PARTS:
            print(
                f"unknown benchmark {name!r}; choose from {', '.join(PARTS)}, all", file=sys.stderr
            )
            return 2
        module = importlib.import_module(f"benchmarks.{name}")
        module.main(rest)
    return 0


sys.exit(main(sys.argv[1:]))
