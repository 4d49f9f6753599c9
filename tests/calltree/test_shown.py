"""What a tree view shows: a frame with only exclusive metrics gets its inclusive columns
(one rule for tree(), the CLI and the explorer), and a node without a name says what
identifies it.

Data: the synthetic Caliper sampling profiles of tests/data/calltree-sampling/ (only
exclusive ``time`` and ``count``; ``sampling-unresolved.cali`` adds samples whose function
the sampler could not name) and Hatchet's Caliper cpi call-path profile (4 ranks, only
exclusive metrics).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree._build import build_graphframe
from perfweave.calltree.display import node_names
from perfweave.calltree.shown import with_inclusive
from perfweave.errors import NoRegionWarning

SAMPLING = "tests/data/calltree-sampling/sampling-profile.cali"
UNRESOLVED = "tests/data/calltree-sampling/sampling-unresolved.cali"
CPI = "tests/data/hatchet/caliper-cpi-json/cpi-callpath-profile.json"
LULESH = "tests/data/hatchet/caliper-lulesh-json/lulesh-annotation-profile.json"


def _read(path, **options):
    with pytest.warns(NoRegionWarning):
        return pw.read(path, **options)


def _named(gf, name):
    return int(np.flatnonzero(gf.graph.frames["name"].to_numpy() == name)[0])


def _subtree_sums(gf, metric):
    """Each node's value plus its descendants', by walking the graph (the reference)."""
    own = gf.node_values(metric)[metric].to_numpy()
    return np.array([own[gf.graph.subtree(v)].sum() for v in range(len(gf.graph))])


def test_only_exclusive_metrics_get_inclusive_columns_and_the_default():
    gf = _read(SAMPLING)
    assert gf.inc_metrics == [] and gf.default_metric == "time"
    shown = with_inclusive(gf)
    assert shown.inc_metrics == ["count (inc)", "time (inc)"]
    assert shown.default_metric == "time (inc)"  # views sort and open by it
    for metric in ("count", "time"):
        got = shown.node_values(f"{metric} (inc)")[f"{metric} (inc)"].to_numpy()
        np.testing.assert_allclose(got, _subtree_sums(gf, metric), rtol=1e-12)
    main = _named(gf, "main")
    assert shown.dataframe.loc[main, "count (inc)"] == 124  # 2 of its own + 122 below
    # the user's frame is not changed
    assert "time (inc)" not in gf.dataframe.columns and gf.default_metric == "time"
    assert with_inclusive(shown) is shown  # nothing missing any more


def test_ranks_are_summed_per_rank_before_any_reduction():
    gf = pw.read(CPI)
    shown = with_inclusive(gf)
    assert shown.index_levels == ["rank"] and shown.default_metric == "time (inc)"
    for rank in range(4):
        one = gf.dataframe.xs(rank, level="rank")["time"]
        own = one.reindex(range(len(gf.graph))).fillna(0).to_numpy()
        want = [own[gf.graph.subtree(v)].sum() for v in range(len(gf.graph))]
        got = shown.dataframe.xs(rank, level="rank")["time (inc)"]
        np.testing.assert_allclose(got.to_numpy(), np.asarray(want)[got.index], rtol=1e-12)


def test_frames_with_inclusive_metrics_are_shown_as_they_are():
    gf = pw.read(LULESH)
    assert with_inclusive(gf) is gf
    # an inclusive column asked for by name is computed for any frame
    spec = pd.DataFrame({"node": [0, 1, 2], "time": [1.0, 2.0, 3.0], "time (inc)": [6.0, 2, 3]})
    spec["count"] = [5, 1, 1]
    frame = build_graphframe(
        pd.DataFrame({"name": ["main", "a", "b"]}),
        spec,
        parent=[-1, 0, 0],
        exc_metrics=["time", "count"],
        inc_metrics=["time (inc)"],
    )
    assert with_inclusive(frame) is frame
    asked = with_inclusive(frame, ["count (inc)"])
    assert asked.dataframe["count (inc)"].tolist() == [7, 1, 1]
    assert asked.default_metric == frame.default_metric
    assert asked.dataframe["time (inc)"].tolist() == [6, 2, 3]  # measured: kept


def test_a_point_in_time_is_never_summed():
    frame = build_graphframe(
        pd.DataFrame({"name": ["main", "a"]}),
        pd.DataFrame({"node": [0, 1], "dur": [1.0, 2.0], "ts": [1.7e9, 1.7e9 + 1]}),
        parent=[-1, 0],
        exc_metrics=["dur", "ts"],
        inc_metrics=[],
        default_metric="dur",
    )
    shown = with_inclusive(frame, ["ts (inc)"])
    assert shown.inc_metrics == ["dur (inc)"] and "ts (inc)" not in shown.dataframe


def test_tree_shows_the_inclusive_column_of_a_sampling_profile():
    gf = _read(SAMPLING)
    lines = gf.tree(color=False).splitlines()
    # inner nodes read as the time spent below them, not 0.000
    assert "0.124 main" in lines and any(line.endswith("0.080 solve") for line in lines)
    assert any(line.endswith("0.043 (no region)") for line in lines)
    exclusive = gf.tree("time", color=False).splitlines()
    assert any(line.endswith("0.000 solve") for line in exclusive)  # asked: as measured
    assert "time (inc)" not in gf.dataframe.columns  # tree() did not change the frame
    # an inclusive column asked for by name needs no update_inclusive_columns() first
    assert "124 main" in gf.tree("count (inc)", color=False, precision=0).splitlines()


def test_the_cli_and_tree_print_the_same_inclusive_tree():
    done = subprocess.run(
        [sys.executable, "-m", "perfweave", "tree", SAMPLING, "--color", "never"],
        capture_output=True,
        text=True,
        check=True,
    )
    gf = _read(SAMPLING)
    assert done.stdout == gf.tree(color=False)
    assert "0.124 main" in done.stdout.splitlines()
    ranks = subprocess.run(
        [sys.executable, "-m", "perfweave", "tree", CPI, "--color", "never"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    # inclusive sums per rank, then the mean over the ranks (not the sums of means)
    shown = with_inclusive(pw.read(CPI))
    mean = shown.dataframe["time (inc)"].groupby(level="node").mean()
    root = int(shown.graph.root_ids[np.argmax(mean.loc[shown.graph.root_ids])])
    name = shown.graph.frame(root)["name"]
    assert f"{mean.loc[root]:.3f} {name}" in ranks


def test_nodes_without_a_name_say_where_they_sit():
    gf = _read(UNRESOLVED)
    names = node_names(gf.graph, gf.dataframe)
    blank = np.flatnonzero(gf.graph.frames["name"].to_numpy() == "")
    assert len(blank) == 3  # the sampler named the module, not the function
    parents = [names[gf.graph.parent[v]] for v in blank]
    assert sorted(names[blank]) == sorted(f"(unnamed) under {p}" for p in parents)
    assert sorted(parents) == ["(no region)", "main", "solve"]
    text = gf.tree(color=False)
    assert "0.011 (unnamed) under solve" in text and "0.005 (unnamed) under (no region)" in text
    assert not any(line.rstrip().endswith(("0", "1", "5")) for line in text.splitlines())


def test_an_unnamed_node_is_named_by_its_other_attributes_first():
    gf = pw.GraphFrame.from_literal(
        [
            {
                "frame": {"name": "main", "type": "function"},
                "metrics": {"time": 1.0},
                "children": [
                    {"frame": {"name": " ", "type": "loop"}, "metrics": {"time": 2.0}},
                    {"frame": {"type": "function", "module": "libx.so"}, "metrics": {"time": 3.0}},
                ],
            },
            {"frame": {"name": "", "type": "function"}, "metrics": {"time": 4.0}},
        ]
    )
    names = set(node_names(gf.graph, gf.dataframe))
    assert names == {"main", "(unnamed) under main", "module=libx.so", "(unnamed root)"}
