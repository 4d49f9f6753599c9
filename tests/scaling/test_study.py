"""ScalingStudy.match_nodes: nodes of a derived tree back to the ensemble's node ids."""

from __future__ import annotations

import numpy as np
import pandas as pd

import perfweave as pw
from perfweave.calltree.subgraph import ancestor_closure, subgraph
from perfweave.scaling import ScalingStudy


def _study():
    ens = pw.datasets.mpi_scaling()
    return ens, ScalingStudy(ens, "mpi.world.size", "Avg time/rank")


def test_same_tree_and_a_pruned_tree():
    ens, study = _study()
    assert (study.match_nodes(ens.graph) == np.arange(len(ens.graph))).all()
    keep = np.zeros(len(ens.graph), bool)
    keep[[16, 18, 24]] = True
    keep = ancestor_closure(ens.graph, keep)  # a filter keeps the paths to what it keeps
    sub, old_to_new = subgraph(ens.graph, keep)
    got = study.match_nodes(sub)
    assert (got[old_to_new[keep]] == np.flatnonzero(keep)).all()


def test_a_focused_subtree_is_matched_below_its_new_root():
    ens, study = _study()
    depth = np.asarray(ens.graph.depth)
    after = np.flatnonzero(depth[15:] <= depth[14])
    keep = np.zeros(len(ens.graph), bool)
    keep[14 : 15 + after[0]] = True  # LagrangeLeapFrog and everything below it
    sub, old_to_new = subgraph(ens.graph, keep)
    assert len(sub) == keep.sum() and (np.asarray(sub.parent) < 0).sum() == 1
    got = study.match_nodes(sub)
    assert (got[old_to_new[keep]] == np.flatnonzero(keep)).all()


def test_run_table_shows_what_tells_the_runs_apart():
    ens, study = _study()
    table = study.run_table()
    assert list(table.index) == [27, 64, 125, 216, 343]  # in the parameter's order
    # the parameter, then metadata that differ between runs: not jobsize (a copy of the
    # parameter), not the libraries (a list), not the user (one value); files by name
    assert list(table.columns) == [
        "label", "mpi.world.size", "numhosts", "elapsed_time", "figure_of_merit", "file"
    ]  # fmt: skip
    assert table["file"].tolist()[0] == "27_cores.cali"
    assert table.loc[343, "numhosts"] == ens.metadata.loc[343, "numhosts"] == 10
    assert list(study.run_table(max_columns=1).columns) == ["label", "mpi.world.size", "numhosts"]
    # grouping puts the group column right after the parameter
    study.set_group_by("numhosts")
    assert list(study.run_table(max_columns=1).columns)[:4] == [
        "label", "mpi.world.size", "numhosts", "elapsed_time"
    ]  # fmt: skip


def test_run_table_keeps_what_differs_in_paths_and_reads_dates():
    """RAJAPerf on quartz: the files differ only in their folders, which the labels already
    give (no file column); the launch date is a Unix time, shown as a date."""
    quartz = pw.datasets.rajaperf("quartz")
    table = ScalingStudy(quartz, "ProblemSizeRunParam", "Avg time/rank").run_table()
    assert "file" not in table.columns
    assert table["label"].tolist()[-1] == "gcc10.3.1_2097152/O3/1"
    run = table.index[0]
    stamp = int(quartz.metadata.loc[run, "launchdate"])
    expected = pd.Timestamp(stamp, unit="s").strftime("%Y-%m-%d %H:%M:%S")
    assert table.loc[run, "launchdate"] == expected and expected.startswith("2023-07-29")
