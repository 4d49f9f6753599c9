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


def ensemble() -> None:
    section("Ensemble: an MPI strong-scaling study, 5 runs (27..343 ranks) on one calltree")
    runs = sorted(path("mpi_scaling").glob("*.cali"))
    ens = pw.Ensemble.from_files(runs)
    print(ens)
    print(ens.metadata[["mpi.world.size"]].sort_values("mpi.world.size").T.to_string())
    ens.stats(["Avg time/rank"])
    column = ens.correlate("Avg time/rank", "mpi.world.size")
    top = ens.statsframe.sort_values(column, ascending=False).head(5)
    print(f"\nnodes whose time grows most with the number of ranks ({column}):")
    print(top[["name", "Avg time/rank_mean", column]].to_string())
    print(ens.tree("Avg time/rank_mean", depth=3, color=False))


def counts() -> None:
    section("Count matrices: an alltoallv run profiled by the MPI collective profiler")
    profile = pw.read_counts(path("alltoallv"))
    group = profile.groups[0]
    print(
        f"{len(profile.groups)} call group(s); first: calls {group.calls}, comm size {group.comm_size}"
    )
    print("send counts (rows = ranks):")
    print(group.send.dense())
    for g in group.send.groups:
        print(f"ranks {g.label} send the same row: {g.row.tolist()}")
    from perfweave.counts import detect_patterns, format_patterns_summary

    print(format_patterns_summary(detect_patterns(profile.groups)))


def classes() -> None:
    import tarfile
    import tempfile

    from perfweave.classes import opreport

    section("Profile classes: opreport on an OProfile session, merged over CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(path("opsession_sep.tar.gz")) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(tmp, filter="data")
            else:  # older Pythons: our own archive, regular files only
                tar.extractall(tmp)
        session = tmp
        print(opreport(session, merge="cpu,tid,tgid"))
        section("... and the same session without merging: opreport's axis conflict")
        from perfweave.errors import AxisConflict

        try:
            opreport(session)
        except AxisConflict as exc:
            print(exc)


def merge() -> None:
    from perfweave.merge import hrm_merge, load_vignette, much_merge, process_raw_experiments

    section("HEM merging: HRM and MUCH on the mergingTools vignette (T2080 board)")
    hrm = process_raw_experiments(load_vignette("hrm"), n_pmcs=6)
    merged = hrm_merge(list(hrm), anchor_hem="PROCESSOR_CYCLES")
    print(f"HRM: {len(hrm)} subexperiments -> {merged.shape[0]} rows x {merged.shape[1]} HEMs")
    print(merged.describe().T[["mean", "min", "max"]].round(1).head(8))
    much = process_raw_experiments(load_vignette("much"), n_pmcs=6)
    result = much_merge(list(much), n_runs=1000, n_sims=100, dep_lvl=0.85, seed=1)
    print(
        f"MUCH: {len(much)} subexperiments -> {result.merged.shape}; best simulation {result.chosen}"
    )


def main() -> int:
    calltree()
    ensemble()
    counts()
    classes()
    merge()
    return 0


if __name__ == "__main__":
    sys.exit(main())
