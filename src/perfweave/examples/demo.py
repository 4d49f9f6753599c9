"""``make demo``: perfweave on the bundled example profiles, part by part.

Run as ``python -m perfweave.examples.demo``. Each section uses only the public API, so
it doubles as a tour of what perfweave does.
"""

from __future__ import annotations

import sys

import perfweave as pw
from perfweave.examples import path


def section(title: str) -> None:
    print(f"\n{'=' * 78}\n{title}\n{'=' * 78}")


def calltree() -> None:
    section("Calltree core: a Caliper profile of cpi (4 MPI ranks)")
    gf = pw.read(path("cpi-callpath-profile.json"), node_ordering=False)
    print(gf)
    gf.drop_index_levels()  # mean over ranks
    gf.update_inclusive_columns()
    print(gf.tree("time (inc)", depth=4, color=None if sys.stdout.isatty() else False))
    section("filter + squash: only MPI calls and main, inclusive time recomputed")
    mpi = gf.filter("name =~ '^MPI_' or name == 'main'")
    print(mpi.tree("time (inc)", color=None if sys.stdout.isatty() else False))
    section("arithmetic on the union graph: the Hatchet example minus its filtered self")
    lit = pw.read(path("hatchet-graph-literal.json"))
    diff = lit - lit.filter("time > 5")
    print(diff.tree("time", depth=3, color=False))


def main() -> int:
    calltree()
    return 0


if __name__ == "__main__":
    sys.exit(main())
