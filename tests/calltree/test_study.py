"""CalltreeStudy without a widget: the frame shown, its columns and values, the transforms
and their undo and replay, how an ensemble is shown, extra columns matched by call path,
and the one node lookup, on the bundled profiles."""

from __future__ import annotations

import glob

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree import CalltreeStudy, Step, replay
from perfweave.calltree.column_names import (
    exclusive_name,
    inclusive_name,
    side_name,
    split_stat_name,
    stat_name,
)
from perfweave.calltree.node_lookup import PathMatcher, find_node, match_nodes
from perfweave.errors import GraphError, NoRegionWarning, QueryError, ShapeError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
LULESH = "hatchet/caliper-lulesh-json/lulesh-annotation-profile.json"


@pytest.fixture(scope="module")
def lulesh(data_dir):
    return pw.read(str(data_dir / LULESH)).drop_index_levels()


@pytest.fixture(scope="module")
def mpi_ensemble(data_dir):
    files = sorted(glob.glob(str(data_dir / "thicket/mpi_scaling_cali/*.cali")))
    return pw.Ensemble.from_files(files)


def _node(gf, name: str) -> int:
    return int(np.flatnonzero(gf.graph.frames["name"].to_numpy() == name)[0])


def _paths(gf) -> list[tuple[str, ...]]:
    """Each node's call path of names, from the Node objects (not the path keys)."""
    return [
        tuple(str(n.frame["name"]) for n in gf.graph.node(i).path()) for i in range(len(gf.graph))
    ]


def test_the_view_holds_each_metric_per_node_and_its_total(lulesh):
    study = CalltreeStudy(lulesh)
    view = study.view
    assert study.mode == "frame"
    assert [c.key for c in view.columns] == ["time (inc)", "time"]
    assert [c.kind for c in view.columns] == ["inc", "exc"]
    df = lulesh.dataframe
    for key in ("time (inc)", "time"):
        np.testing.assert_array_equal(view.table[key][df.index.to_numpy()], df[key].to_numpy())
    roots = lulesh.graph.root_ids
    inc, exc = view.columns
    assert view.total(inc) == pytest.approx(float(df.loc[roots, "time (inc)"].sum()))
    assert view.total(exc) == pytest.approx(float(df["time"].abs().sum()))
    assert view.default_sort == "time (inc)"
    assert view.names[_node(lulesh, "LagrangeNodal")] == "LagrangeNodal"
    assert view.column("time (inc)") is inc
    with pytest.raises(ShapeError, match="no shown column 'nope'"):
        view.column("nope")


def test_transforms_replay_and_undo_in_order(lulesh):
    study = CalltreeStudy(lulesh)
    query = "name == 'main' or name =~ '^Lagrange'"
    study.apply(study.filter_step(query), memo="before the filter")
    expected = lulesh.filter(query, squash=True, multi_index_mode="any")
    assert study.data.graph == expected.graph
    assert sorted(study.view.names) == sorted(
        ["main", "LagrangeLeapFrog", "LagrangeElements", "LagrangeNodal"]
    )
    assert study.filter_query == query
    study.apply(study.focus_step("LagrangeLeapFrog"), memo="before the focus")
    assert list(study.view.names[study.data.graph.root_ids]) == ["LagrangeLeapFrog"]
    assert len(study.data.graph) == 3
    study.apply(study.drop_step("LagrangeNodal"))
    assert [s.kind for s in study.history] == ["filter", "focus", "drop"]
    assert replay(study.original, study.history).graph == study.data.graph
    assert study.replay().graph == study.data.graph
    assert study.undo() is None
    assert study.undo() == "before the focus"
    assert study.data.graph == expected.graph and [s.kind for s in study.history] == ["filter"]
    assert study.undo() == "before the filter"
    assert study.data is study.original and study.history == []
    with pytest.raises(QueryError, match="nothing to undo"):
        study.undo()


def test_a_failed_step_changes_nothing(lulesh):
    study = CalltreeStudy(lulesh)
    view = study.view
    with pytest.raises(QueryError):
        study.apply(study.filter_step("`time (inc)` >>> 3"))
    with pytest.raises(QueryError, match="needs a query"):
        study.filter_step("   ")
    with pytest.raises(GraphError, match="no node named 'nope'"):
        study.focus_step("nope")
    with pytest.raises(GraphError, match="no node 1000"):
        study.apply(Step("drop", node=1000, name="x"))
    assert study.view is view and study.history == []


def test_one_node_lookup_with_one_error(data_dir, lulesh):
    cpi = pw.read(str(data_dir / "hatchet/hpctoolkit-cpi-database"))
    study = CalltreeStudy(cpi)
    names = pd.Series(study.view.names)
    shared = names[names.duplicated()].iloc[0]
    count = int((names == shared).sum())
    with pytest.raises(GraphError, match=f"{count} nodes are named"):
        study.find_node(shared)
    np.testing.assert_array_equal(study.find_nodes(shared), np.flatnonzero(names == shared))
    node = _node(lulesh, "TimeIncrement")
    assert find_node(CalltreeStudy(lulesh).view.names, "TimeIncrement") == node
    assert find_node(CalltreeStudy(lulesh).view.names, lulesh.graph.node(node)) == node
    for bad in (len(lulesh.graph), -1, True, 2.0):
        with pytest.raises(GraphError, match="no node"):
            CalltreeStudy(lulesh).find_node(bad)


def test_an_ensemble_shows_a_statistic_over_its_profiles(mpi_ensemble):
    study = CalltreeStudy(mpi_ensemble)
    assert study.mode == "ensemble"
    metric = str(mpi_ensemble.default_metric)
    key = stat_name(metric, "mean")
    assert study.view.column(key).label == f"{metric} (mean)"
    matrix = study.view.glyph["matrix"]
    assert matrix.shape == (len(mpi_ensemble.graph), len(mpi_ensemble.profiles))
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(study.view.table[key], np.nanmean(matrix, axis=1))
    study.restyle(stat="max")
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(
            study.view.table[stat_name(metric, "max")], np.nanmax(matrix, axis=1)
        )
    assert study.view.glyph["state"]["stat"] == "max"
    view = study.view
    with pytest.raises(ShapeError, match="no metadata column 'nope'"):
        study.restyle(color_by="nope")
    with pytest.raises(ShapeError, match="unknown statistic 'mode'"):
        study.restyle(stat="mode")
    assert study.view is view and study.stat == "max" and study.color_by is None
    size = "mpi.world.size"
    study.restyle(color_by=size)
    state = study.view.glyph["state"]
    sizes = mpi_ensemble.metadata[size].astype(str).to_numpy()
    assert [state["categories"][c] for c in state["codes"]] == list(sizes)


def test_a_frame_refuses_ensemble_options_and_a_comparison_shows_both_sides(data_dir, lulesh):
    study = CalltreeStudy(lulesh)
    with pytest.raises(ShapeError, match="for ensembles"):
        study.restyle(color_by="x")
    with pytest.raises(ShapeError, match="across is for a frame with ranks"):
        CalltreeStudy(lulesh, compare=lulesh).restyle(across="threads")
    other = lulesh.copy()
    other.dataframe["time"] = other.dataframe["time"] * 2
    other.dataframe["time (inc)"] = other.dataframe["time (inc)"] * 2
    both = CalltreeStudy(lulesh, compare=other)
    assert both.mode == "compare"
    keys = [c.key for c in both.view.columns]
    a, b = side_name("time (inc)", "a"), side_name("time (inc)", "b")
    assert keys[:3] == [a, b, "time (inc)"]
    table = both.view.table
    np.testing.assert_allclose(table["time (inc)"], table[a] - table[b])
    np.testing.assert_allclose(table[b], 2 * table[a])
    assert both.view.default_sort == a


def test_exclusive_only_frames_get_their_inclusive_columns(data_dir):
    with pytest.warns(NoRegionWarning):
        gf = pw.read(str(data_dir / "calltree-sampling/sampling-profile.cali"))
    assert gf.inc_metrics == []
    study = CalltreeStudy(gf)
    keys = [c.key for c in study.view.columns]
    assert keys[:2] == [inclusive_name("time"), "time"]
    assert inclusive_name("count") in keys and "count" not in keys
    inc = study.view.table[inclusive_name("time")]
    exc = study.view.table["time"]
    root = int(gf.graph.root_ids[0])
    assert inc[root] == pytest.approx(float(np.nansum(exc[gf.graph.subtree(root)])))


def test_extra_columns_follow_their_call_paths_through_a_filter_and_a_focus(lulesh):
    study = CalltreeStudy(lulesh)
    names = ["LagrangeElements", "LagrangeNodal", "TimeIncrement"]
    frame = pd.DataFrame({"model": ["n", "n^2", "1"]}, index=[_node(lulesh, n) for n in names])
    study.set_extras(frame, sort_keys={"model": pd.Series([1.0, 2.0, 0.0], index=frame.index)})
    study.apply(study.filter_step("name != 'CalcForceForNodes'"))
    study.apply(study.focus_step("LagrangeLeapFrog"))
    view = study.view
    got = dict(zip(view.names, view.table["model"]))
    assert got["LagrangeElements"] == "n" and got["LagrangeNodal"] == "n^2"
    assert "TimeIncrement" not in got  # outside the focus
    assert got["LagrangeLeapFrog"] == "–"
    keys = dict(zip(view.names, view.sort_values("model")))
    assert keys["LagrangeNodal"] == 2.0 and np.isnan(keys["LagrangeLeapFrog"])
    with pytest.raises(ShapeError, match="name of a metric column"):
        study.set_extras(pd.DataFrame({"time": [1.0]}, index=[0]))
    assert study.view is view
    study.set_extras(None)
    assert [c.key for c in study.view.columns] == ["time (inc)", "time"]


def test_the_path_matcher_finds_each_node_on_its_call_path(lulesh):
    reference = CalltreeStudy(lulesh)
    filtered = lulesh.filter("`time (inc)` > 1000000", squash=True)  # whole subtrees go
    assert 1 < len(filtered.graph) < len(lulesh.graph)
    keep = np.zeros(len(lulesh.graph), bool)
    keep[lulesh.graph.subtree(_node(lulesh, "LagrangeNodal"))] = True
    focused = lulesh.filter(keep)
    paths = _paths(lulesh)
    for shown in (filtered, lulesh):
        got = match_nodes(shown.graph, lulesh.graph)
        assert (got >= 0).all()
        shown_paths = _paths(shown)
        assert all(paths[got[i]] == shown_paths[i] for i in range(len(shown_paths)))
    matcher = PathMatcher(lulesh.graph, reference.view.names)
    got = matcher.match(focused.graph)
    assert (got >= 0).all()  # the focused root is matched by its subtree
    focused_paths = _paths(focused)
    root = _node(lulesh, "LagrangeNodal")
    assert all(paths[got[i]][-len(p) :] == p for i, p in enumerate(focused_paths))
    assert got[int(focused.graph.root_ids[0])] == root
    assert matcher.match(lulesh.graph).tolist() == list(range(len(lulesh.graph)))


def test_the_derived_column_names_are_written_once():
    assert inclusive_name("time") == "time (inc)" and inclusive_name("bytes (exc)") == "bytes"
    assert exclusive_name(inclusive_name("time")) == "time"
    assert side_name("time (inc)", "b") == "time [b] (inc)"
    assert inclusive_name(side_name("time", "a")) == side_name("time (inc)", "a")
    assert split_stat_name(stat_name("Avg time/rank", "std")) == ("Avg time/rank", "std")


def test_extra_columns_given_on_the_original_are_matched_to_the_shown_tree(mpi_ensemble):
    """A linked view computes per node of the ensemble it was given (a model per node) and
    hands its results over on that tree: the study matches them to the tree it shows."""
    study = CalltreeStudy(mpi_ensemble)
    study.apply(study.filter_step("name =~ '^(?:main|lulesh.cycle|LagrangeLeapFrog|MPI_.*)$'"))
    original = study.original
    names = pd.Series(CalltreeStudy(original).view.names)
    wanted = names[names.isin(["main", "LagrangeLeapFrog"])]
    frame = pd.DataFrame({"score": np.arange(len(wanted), dtype=float)}, index=wanted.index)
    study.set_extras(frame, on=original)
    view = study.view
    shown = dict(zip(view.names, view.table["score"]))
    assert {n: shown[n] for n in ("main", "LagrangeLeapFrog")} == dict(
        zip(wanted.to_numpy(), frame["score"])
    )
    assert len(study.data.graph) < len(original.graph)
    matcher = study._matcher(original)
    study.set_extras(frame * 2, on=original)  # a refit: the same tree's matcher
    assert study._matcher(original) is matcher
    with pytest.raises(ShapeError, match="no node"):
        study.set_extras(pd.DataFrame({"x": [1.0]}, index=[len(original.graph)]), on=original)
