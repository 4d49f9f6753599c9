"""A sampling profile has several records per node: read summed (one row per node), the
raw rows on request (``sampled_rows="keep"``), where a node's value is the sum of its rows.

The file (tests/data/calltree-sampling/, synthetic, written in the layout of a Caliper
sampling profile) has nodes with 2 and 3 records and 3 records without a region path.
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


def _read(**options):
    with pytest.warns(NoRegionWarning) as caught:
        gf = pw.read(SAMPLING, **options)
    return gf, str(caught[0].message)


def test_read_sums_a_nodes_records_and_keeps_the_raw_rows_on_request():
    gf, _ = _read()
    raw, _ = _read(sampled_rows="keep")
    assert not gf.dataframe.index.has_duplicates  # one row per node, as every profile
    assert len(gf.dataframe) == len(gf.graph) == 12 and len(raw.dataframe) == 18
    assert gf.exc_metrics == raw.exc_metrics == ["count", "time"]
    summed = raw.dataframe.groupby(level="node")[["count", "time"]].sum()
    np.testing.assert_array_equal(gf.dataframe["count"], summed["count"])
    np.testing.assert_allclose(gf.dataframe["time"], summed["time"], rtol=1e-12)
    # the raw rows say what tells them apart: the sampled module and the call stack
    parts = ["module", "source.function#callpath.address"]
    placed = raw.dataframe[raw.dataframe["count"] > 0]
    assert not placed.set_index(parts, append=True).index.has_duplicates
    stacks = placed.loc[[_node_named(raw, "relax_kernel")], parts[1]].tolist()
    assert sorted(stacks) == [
        "_start/__libc_start_main/main/solve/cycle/cycle",
        "_start/__libc_start_main/main/solve/cycle/relax",
        "_start/__libc_start_main/main/solve/relax",
    ]
    with pytest.raises(pw.errors.OptionError, match="sampled_rows='all': expected one of"):
        pw.read(SAMPLING, sampled_rows="all")


def _node_named(gf, name):
    return int(np.flatnonzero(gf.graph.frames["name"].to_numpy() == name)[0])


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
    gf, _ = _read(sampled_rows="keep")
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
    gf, _ = _read(sampled_rows="keep")
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
    raw, _ = _read(sampled_rows="keep")
    text = raw.tree("count", color=False, precision=0)
    lines = text.splitlines()
    assert lines[0] == "# count: the sum of each node's rows (18 rows, 12 nodes)"
    assert any(line.endswith("72 relax_kernel") for line in lines)  # not the first row, 40
    assert any(line.endswith("39 pthread_cond_timedwait") for line in lines)
    gf, _ = _read()  # read summed: the same numbers, nothing to say
    assert gf.tree("count", color=False, precision=0).splitlines() == lines[1:]


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
    assert any(line.endswith("72 relax_kernel") for line in lines)
    assert "43 of 168 samples" in out.stderr
    keep = ["-O", "sampled_rows=keep"]
    raw = subprocess.run(
        [sys.executable, "-m", "perfweave", "tree", SAMPLING, "--metric", "count", "--color"]
        + ["never", "--precision", "0", *keep, *extra],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert raw == ["# each node: the sum of its rows (18 rows)", *lines]
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
    gf, _ = _read(sampled_rows="keep")
    placed = gf.dataframe[gf.dataframe["count"] > 0]
    in_region = [_path(gf, v)[0] != "(no region)" for v in placed.index]
    ours = sorted(placed[in_region]["count"].tolist())
    assert sorted(theirs.dataframe["count"].tolist()) == ours
    assert theirs.dataframe["count"].sum() == 168 - 43
