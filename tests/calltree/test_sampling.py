"""A sampling profile keeps several rows per node: a node's value is the sum of its rows.

The file (tests/data/calltree-sampling/, synthetic, written in the layout of a Caliper
sampling profile) has nodes with 2 and 3 rows and 3 records without a region path.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import perfweave as pw
from perfweave.errors import NoRegionWarning

SAMPLING = "tests/data/calltree-sampling/sampling-profile.cali"
# (region path without its last level + sampled function) -> samples, from the generator
EXPECTED = {
    ("main",): 2,
    ("main", "solve", "relax_kernel"): 40 + 25 + 7,
    ("main", "solve", "__memset"): 5 + 3,
    ("main", "MPI_Allreduce"): 12 + 6,
    ("main", "poll"): 2,
    ("main", "setup_matrix"): 15 + 4,
    ("main", "malloc"): 3,
    ("MPI_Init",): 1,
    ("(no region)", "pthread_cond_timedwait"): 30 + 9,
    ("(no region)", "__poll"): 4,
}


def _read():
    with pytest.warns(NoRegionWarning) as caught:
        gf = pw.read(SAMPLING)
    return gf, str(caught[0].message)


def _path(gf, nid):
    return tuple(n.frame["name"] for n in gf.graph.node(nid).path())


def test_records_without_a_region_are_kept_and_counted():
    gf, message = _read()
    assert "43 of 168 samples (3 of 16 records) have no region path" in message
    assert "'(no region)'" in message
    roots = [n.frame["name"] for n in gf.graph.roots]
    assert "(no region)" in roots
    total = gf.dataframe["count"].sum()
    assert total == sum(EXPECTED.values()) == 168  # no sample lost


def test_node_values_sum_a_nodes_rows():
    gf, _ = _read()
    rows = gf.dataframe.groupby(level="node").size()
    assert rows.max() == 3 and (rows > 1).sum() == 5  # several rows per node, no rank level
    values = gf.node_values("count")
    got = {_path(gf, v): c for v, c in values["count"].items() if c > 0}
    assert got == EXPECTED
    assert (
        values.attrs["perfweave.node_values"] == "the sum of each node's rows (18 rows, 12 nodes)"
    )
    assert gf.node_values("time")["time"].sum() == pytest.approx(0.168)


def test_update_inclusive_columns_does_not_over_count():
    gf, _ = _read()
    gf.update_inclusive_columns()
    df = gf.dataframe
    # summing the inclusive column over a node's rows gives its inclusive value once
    inc = gf.node_values("count (inc)")["count (inc)"]
    main = next(r.nid for r in gf.graph.roots if r.frame["name"] == "main")
    assert inc[main] == 2 + 72 + 8 + 18 + 2 + 19 + 3
    roots = gf.graph.root_ids
    assert inc[roots].sum() == df["count"].sum() == 168
    for v in range(len(gf.graph)):  # every node: own rows + children's inclusive
        kids = gf.graph.children_of(v)
        own = df["count"].loc[[v]].sum()
        assert inc[v] == own + inc[kids].sum()
    # generate_exclusive_columns takes it back to the exclusive rows
    gf.exc_metrics.remove("count")
    gf.dataframe = gf.dataframe.rename(columns={"count": "count_orig"})
    gf.generate_exclusive_columns("count (inc)")
    np.testing.assert_array_equal(gf.dataframe["count"], gf.dataframe["count_orig"])


def test_tree_prints_the_sums_and_says_so():
    gf, _ = _read()
    text = gf.tree("count", color=False, precision=0)
    lines = text.splitlines()
    assert lines[0] == "# count: the sum of each node's rows (18 rows, 12 nodes)"
    assert any(line.endswith("72 relax_kernel") for line in lines)  # not the first row, 40
    assert any(line.endswith("39 pthread_cond_timedwait") for line in lines)


def test_writers_give_the_sums():
    gf, _ = _read()
    folded = dict(line.rsplit(" ", 1) for line in gf.to_flamegraph("count").splitlines())
    assert folded["main;solve;relax_kernel"] == "72"
    assert folded["(no region);pthread_cond_timedwait"] == "39"
    literal = gf.to_literal()
    main = next(entry for entry in literal if entry["name"] == "main")
    assert main["metrics"]["count"] == 2


@pytest.mark.parametrize("extra", [[], ["--aggregate", "sum"], ["--aggregate", "max"]])
def test_cli_tree_prints_the_sums(extra):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfweave",
            "tree",
            SAMPLING,
            "--metric",
            "count",
            "--color",
            "never",
            "--precision",
            "0",
            *extra,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = out.stdout.splitlines()
    assert lines[0] == "# each node: the sum of its rows (18 rows)"
    assert any(line.endswith("72 relax_kernel") for line in lines)
    assert "43 of 168 samples" in out.stderr
    inclusive = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfweave",
            "tree",
            SAMPLING,
            "--metric",
            "count (inc)",
            "--color",
            "never",
            "--precision",
            "0",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert "124 main" in inclusive


@pytest.mark.peer
def test_hatchet_reads_the_same_rows_but_drops_the_unplaced_samples():
    import hatchet

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = hatchet.GraphFrame.from_caliperreader(SAMPLING)
    gf, _ = _read()
    placed = gf.dataframe[gf.dataframe["count"] > 0]
    in_region = [_path(gf, v)[0] != "(no region)" for v in placed.index]
    ours = sorted(placed[in_region]["count"].tolist())
    assert sorted(theirs.dataframe["count"].tolist()) == ours
    assert theirs.dataframe["count"].sum() == 168 - 43
