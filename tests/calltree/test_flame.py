"""Flame graph layout (perfweave.calltree.flame) on the bundled profiles."""

from __future__ import annotations

import glob
import re

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree.flame import FRAME_COLUMNS, flame_frames, flame_layout
from perfweave.calltree.shown import with_inclusive
from perfweave.errors import GraphError, NoRegionWarning, QueryError, ShapeError

DATA = "tests/data"
EPS = 1e-12


@pytest.fixture(scope="module")
def lulesh():
    return pw.read(f"{DATA}/hatchet/caliper-lulesh-json/lulesh-annotation-profile.json")


@pytest.fixture(scope="module")
def cpi():  # HPCToolkit, 4 ranks
    return pw.read(f"{DATA}/hatchet/hpctoolkit-cpi-database")


@pytest.fixture(scope="module")
def sampling():  # a Caliper sampling profile: exclusive metrics only, several roots
    with pytest.warns(NoRegionWarning):
        return pw.read(f"{DATA}/calltree-sampling/sampling-profile.cali")


@pytest.fixture(scope="module")
def rajaperf():
    files = sorted(
        glob.glob(f"{DATA}/thicket/rajaperf/quartz/gcc10.3.1_1048576/**/*.cali", recursive=True)
    )
    return pw.Ensemble.from_files(files)


def assert_nested(frames: pd.DataFrame, graph) -> None:
    """Every child inside its parent's span, siblings side by side, roots across [0, 1]."""
    by_node = frames.set_index("node")
    parent = graph.parent[frames["node"].to_numpy()]
    inner = frames[parent >= 0]
    p = by_node.loc[graph.parent[inner["node"].to_numpy()]]
    assert (inner["x0"].to_numpy() >= p["x0"].to_numpy() - EPS).all()
    assert (inner["x1"].to_numpy() <= p["x1"].to_numpy() + EPS).all()
    assert (frames["x1"] >= frames["x0"]).all()
    # siblings never overlap
    for _, group in frames.assign(parent=parent).groupby("parent"):
        g = group.sort_values("x0")
        assert (g["x0"].to_numpy()[1:] >= g["x1"].to_numpy()[:-1] - EPS).all()


def test_frames_have_the_documented_columns(lulesh):
    frames = flame_frames(lulesh)
    assert list(frames.columns) == list(FRAME_COLUMNS)
    assert len(frames) == len(lulesh.graph)
    assert frames["node"].tolist() == list(range(len(lulesh.graph)))


def test_widths_are_the_inclusive_values_and_children_nest(lulesh):
    layout = flame_layout(lulesh)
    frames = layout.frames()
    assert layout.metric == "time (inc)"
    values = lulesh.node_values("time (inc)")["time (inc)"].to_numpy()
    np.testing.assert_allclose(frames["value"], values)
    roots = lulesh.graph.root_ids
    assert layout.total == pytest.approx(values[roots].sum())
    np.testing.assert_allclose(frames["x1"] - frames["x0"], values / layout.total, atol=1e-12)
    assert_nested(frames, lulesh.graph)
    # child <= parent
    parent = lulesh.graph.parent
    has = parent >= 0
    assert (values[has] <= values[parent[has]] + 1e-9).all()
    # the exclusive partner column, reduced by the same rule
    exc = lulesh.node_values("time")["time"].to_numpy()
    np.testing.assert_allclose(frames["exclusive"], exc)


def test_ranks_are_reduced_by_the_core_rule(cpi):
    layout = flame_layout(cpi)
    frames = layout.frames()
    expected = cpi.node_values(layout.metric)[layout.metric].to_numpy()
    np.testing.assert_allclose(frames["value"], np.nan_to_num(expected))
    assert "4 ranks" in layout.values.how
    assert layout.values.samples.shape == (len(cpi.graph), 4)
    assert_nested(frames, cpi.graph)
    parent = cpi.graph.parent
    has = parent >= 0
    v = frames["value"].to_numpy()
    assert (v[has] <= v[parent[has]] + 1e-9).all()


def test_a_sampling_profile_gets_its_inclusive_values(sampling):
    layout = flame_layout(sampling)
    shown = with_inclusive(sampling)
    assert layout.metric == shown.default_metric == "time (inc)"
    frames = layout.frames()
    expected = shown.node_values("time (inc)")["time (inc)"].to_numpy()
    np.testing.assert_allclose(frames["value"], np.nan_to_num(expected))
    np.testing.assert_allclose(
        frames["exclusive"], np.nan_to_num(sampling.node_values("time")["time"].to_numpy())
    )
    # a forest: the roots share the width, side by side, summing to all of it
    roots = frames[frames["depth"] == 0].sort_values("x0")
    assert len(roots) > 1
    assert roots["x0"].iloc[0] == 0
    assert roots["x1"].iloc[-1] == pytest.approx(1.0)
    np.testing.assert_allclose(roots["x0"].to_numpy()[1:], roots["x1"].to_numpy()[:-1])
    assert_nested(frames, sampling.graph)
    # an inner node of a sampling profile is as wide as the time below it, not its own 0
    solve = frames[frames["name"] == "solve"].iloc[0]
    assert solve["exclusive"] == 0 and solve["value"] > 0


def test_an_ensemble_draws_a_statistic_over_its_profiles(rajaperf):
    layout = flame_layout(rajaperf)
    assert layout.metric == "Avg time/rank"
    col = rajaperf.stats(["Avg time/rank"], stats=["mean"])[0]
    expected = np.nan_to_num(rajaperf.statsframe[col].to_numpy(dtype=float))
    frames = layout.frames()
    np.testing.assert_allclose(frames["value"], expected)
    assert layout.values.how == "mean over 4 profiles"
    assert_nested(frames, rajaperf.graph)
    maxed = flame_layout(rajaperf, statistic="max").frames()
    assert (maxed["value"].to_numpy() >= frames["value"].to_numpy() - 1e-12).all()
    with pytest.raises(ShapeError, match="statistic 'std'"):
        flame_layout(rajaperf, statistic="std")


def test_children_that_overflow_their_parent_are_scaled_into_it():
    gf = pw.GraphFrame.from_lists(("main", ("a", "x"), "b"))
    names = gf.dataframe["name"].tolist()
    inc = {"main": 10.0, "a": 8.0, "x": 9.0, "b": 6.0}  # a + b > main, x > a
    gf.dataframe["time (inc)"] = [inc[n] for n in names]
    frames = flame_frames(gf)
    assert_nested(frames, gf.graph)
    by = frames.set_index("name")
    assert by.loc["main", "x1"] == 1.0
    # a and b keep their ratio inside main; x fills a
    assert (by.loc["a", "x1"] - by.loc["a", "x0"]) / (by.loc["b", "x1"] - by.loc["b", "x0"]) == (
        pytest.approx(8 / 6)
    )
    assert by.loc["b", "x1"] == pytest.approx(1.0)
    assert by.loc["x", "x1"] - by.loc["x", "x0"] == pytest.approx(
        by.loc["a", "x1"] - by.loc["a", "x0"]
    )
    assert by.loc["x", "value"] == 9.0  # the number stays what was measured


def test_zoom_rebases_a_subtree_to_the_width(lulesh):
    layout = flame_layout(lulesh)
    full = layout.frames().set_index("node")
    target = int(full[full["name"] == "LagrangeElements"].index[0])
    zoomed = layout.zoom(target).set_index("node")
    sub = np.arange(target, target + len(lulesh.graph.subtree(target)))
    path = layout.path(target)
    assert path[-1] == target and lulesh.graph.parent[path[1]] == path[0]
    assert set(zoomed.index) == set(sub) | set(path)
    assert zoomed.loc[target, "x0"] == 0 and zoomed.loc[target, "x1"] == 1
    for a in path[:-1]:  # the ancestors span the width (the breadcrumb)
        assert (zoomed.loc[a, "x0"], zoomed.loc[a, "x1"]) == (0, 1)
    span = full.loc[target, "x1"] - full.loc[target, "x0"]
    np.testing.assert_allclose(
        zoomed.loc[sub, "x1"] - zoomed.loc[sub, "x0"],
        (full.loc[sub, "x1"] - full.loc[sub, "x0"]) / span,
    )
    assert_nested(zoomed.reset_index(), lulesh.graph)
    # by name: the widest node of that name
    assert layout.zoom("LagrangeElements").equals(layout.zoom(target))


def test_min_width_leaves_out_narrow_frames(lulesh):
    layout = flame_layout(lulesh)
    frames = layout.frames(min_width=0.01)
    assert ((frames["x1"] - frames["x0"]) >= 0.01).all()
    everything = layout.frames()
    assert len(frames) == int(((everything["x1"] - everything["x0"]) >= 0.01).sum())


def _top_matches(graph, names, pattern):
    hit = np.array([re.search(pattern, n) is not None for n in names])
    top = []
    for v in np.flatnonzero(hit):
        p, covered = graph.parent[v], False
        while p >= 0:
            covered |= bool(hit[p])
            p = graph.parent[p]
        if not covered:
            top.append(v)
    return hit, top


def test_search_counts_a_match_under_a_matching_ancestor_once(lulesh):
    layout = flame_layout(lulesh)
    names = layout.values.names
    hit, top = _top_matches(lulesh.graph, names, "Calc")
    # the pattern matches nested nodes, so a plain sum would count time twice
    assert len(top) < hit.sum()
    found = layout.search("Calc")
    assert found.nodes.tolist() == np.flatnonzero(hit).tolist()
    values = layout.values.inclusive
    assert found.value == pytest.approx(values[top].sum())
    assert found.share == pytest.approx(values[top].sum() / layout.total)
    assert 0 < found.share <= 1
    assert found.value < values[hit].sum()


def test_search_share_of_the_zoomed_frame(lulesh):
    layout = flame_layout(lulesh)
    target = layout.node_id("LagrangeElements")
    found = layout.search("EOS", zoom=target)
    values = layout.values.inclusive
    _, top = _top_matches(lulesh.graph, layout.values.names, "EOS")
    assert found.zoom_share == pytest.approx(values[top].sum() / values[target])
    assert layout.search("Lagrange", zoom=target).zoom_share == 1.0  # an ancestor matches


def test_bad_input_is_a_perfweave_error(lulesh):
    with pytest.raises(ShapeError, match="no metric 'nope'"):
        flame_layout(lulesh, metric="nope")
    layout = flame_layout(lulesh)
    with pytest.raises(QueryError, match="bad regular expression"):
        layout.search("Calc(")
    with pytest.raises(GraphError, match="no node 9999"):
        layout.zoom(9999)
    with pytest.raises(GraphError, match="no node named 'nope'"):
        layout.zoom("nope")
    with pytest.raises(ShapeError, match="GraphFrame or Ensemble"):
        flame_layout([1, 2])


def test_an_exclusive_metric_asks_for_its_inclusive_partner(lulesh, sampling):
    assert flame_layout(lulesh, metric="time").metric == "time (inc)"
    assert flame_layout(sampling, metric="count").metric == "count (inc)"


@pytest.fixture(scope="module")
def forest():
    """A random forest of 3,000 nodes (a third of them roots), heavy-tailed times: many
    frames narrower than a pixel between wide siblings, and narrow roots."""
    from perfweave.calltree._build import build_graphframe

    rng = np.random.default_rng(1)
    n = 3000
    back = rng.integers(1, 21, n)
    parent = np.where(rng.random(n) < 0.3, -1, np.arange(n) - back)
    parent[parent < 0] = -1
    return build_graphframe(
        pd.DataFrame({"name": [f"g{i % 50}" for i in range(n)]}),
        pd.DataFrame({"node": np.arange(n), "time": rng.exponential(1.0, n) ** 3}),
        parent=parent,
        exc_metrics=["time"],
        inc_metrics=[],
        default_metric="time",
    )


def _siblings(layout, parent: int) -> np.ndarray:
    if parent < 0:
        return layout.graph.root_ids
    ptr, idx = layout.graph.children_csr()
    return idx[ptr[parent] : ptr[parent + 1]]


@pytest.mark.parametrize("data", ["rajaperf", "forest"])
def test_frame_sums_give_every_gathered_run(data, request):
    """What FrameSums promises: each run FlameLayout.narrow gathers, found again from the
    drawn siblings around it (or its parent's start and end) alone: its node count, its
    inclusive and exclusive sums and its right edge."""
    layout = flame_layout(request.getfixturevalue(data))
    sums = layout.sums
    inc = layout.values.inclusive
    checked = 0
    for zoom in (None, int(np.argsort(layout.x1 - layout.x0)[-3])):
        for min_width in (1 / 300, 1 / 3000):
            drawn = set(layout.frames(zoom=zoom, min_width=min_width)["node"].tolist())
            for run in layout.narrow(zoom=zoom, min_width=min_width).itertuples():
                p = int(run.parent)
                kids = [int(k) for k in _siblings(layout, p)]
                edges = [(k, layout.x0[k], layout.x1[k]) for k in kids if k in drawn]
                span = 1.0 if zoom is None else layout.x1[zoom] - layout.x0[zoom]
                left = 0.0 if zoom is None else layout.x0[zoom]
                x0 = left + run.x0 * span
                x1 = left + run.x1 * span
                prev = max((e for e in edges if e[2] <= x0 + EPS), key=lambda e: e[2], default=None)
                nxt = min((e for e in edges if e[1] >= x1 - EPS), key=lambda e: e[1], default=None)
                if p < 0:
                    start_id, end_id = 0, len(layout.graph)
                    start_excl, end_excl = 0.0, sums.forest_exclusive
                    end_value, end_x = sums.forest_value, sums.forest_x1
                else:
                    start_id, end_id = p + 1, p + int(sums.size[p])
                    start_excl = sums.excl_start[p] + layout.values.exclusive[p]
                    end_excl = sums.excl_start[p] + sums.excl_subtree[p]
                    end_value, end_x = sums.child_value[p], sums.child_x1[p]
                if prev is not None:
                    k = prev[0]
                    start_id = k + int(sums.size[k])
                    start_excl = sums.excl_start[k] + sums.excl_subtree[k]
                    start_value = sums.value_before[k] + inc[k]
                else:
                    start_value = 0.0
                if nxt is not None:
                    k = nxt[0]
                    end_id, end_excl, end_value, end_x = (
                        k,
                        sums.excl_start[k],
                        sums.value_before[k],
                        layout.x0[k],
                    )
                assert end_id - start_id == run.hidden
                assert end_value - start_value == pytest.approx(run.value, rel=1e-9, abs=1e-9)
                assert end_excl - start_excl == pytest.approx(run.exclusive, rel=1e-9, abs=1e-9)
                assert (end_x - left) / span == pytest.approx(run.x1, rel=1e-12, abs=1e-12)
                checked += 1
    assert checked > (50 if data == "forest" else 0)


def test_band_is_the_frames_between_two_widths(rajaperf):
    layout = flame_layout(rajaperf)
    w = layout.x1 - layout.x0
    assert layout.band(None, 1e-3).tolist() == np.flatnonzero(w >= 1e-3).tolist()
    zoom = int(np.argsort(w)[-2])
    end = zoom + int(layout.sums.size[zoom])
    inside = np.arange(zoom, end)
    keep = inside[(w[inside] >= 1e-4) & (w[inside] < 1e-3)]
    assert layout.band(zoom, 1e-4, 1e-3).tolist() == keep.tolist() and len(keep) > 0
    with pytest.raises(GraphError):
        layout.band(10**7, 0.0)


def _deep_forest(n: int = 20_000, seed: int = 11):
    """A random forest of three trees, deep (each parent a few nodes before its child), with
    nodes of many children and heavy-tailed exclusive times."""
    from perfweave.calltree._build import build_graphframe

    rng = np.random.default_rng(seed)
    back = np.minimum(rng.geometric(0.05, size=n - 1), np.arange(1, n))
    parent = np.r_[-1, np.arange(1, n) - back]
    parent[[n // 3, 2 * n // 3]] = -1
    return build_graphframe(
        pd.DataFrame({"name": [f"f{i % 97}" for i in range(n)]}),
        pd.DataFrame({"node": np.arange(n), "time": rng.exponential(1.0, n) ** 3}),
        parent=parent,
        exc_metrics=["time"],
        inc_metrics=[],
        default_metric="time",
    )


@pytest.mark.parametrize("data", ["lulesh", "cpi", "sampling", "rajaperf", "deep"])
def test_the_sums_of_some_nodes_are_the_sums_bit_for_bit(data, request):
    """FlameLayout.sums_of (what a reply of some frames needs) equals FlameLayout.sums at
    those nodes exactly, worked out alone or after the whole sums, for every node, a random
    half, the roots, the leaves and none."""
    source = _deep_forest() if data == "deep" else request.getfixturevalue(data)
    n = len(source.graph)
    rng = np.random.default_rng(2)
    leaves = np.flatnonzero(np.diff(source.graph.children_csr()[0]) == 0)
    picks = {
        "all": np.arange(n),
        "half": np.sort(rng.choice(n, size=n // 2, replace=False)),
        "roots": np.asarray(source.graph.root_ids),
        "leaves": leaves,
        "none": np.zeros(0, dtype=np.int64),
    }
    for name, nodes in picks.items():
        lazy = flame_layout(source).sums_of(nodes)  # before any whole sums exist
        layout = flame_layout(source)
        whole = layout.sums
        for field in ("size", "value_before", "child_value", "child_x1", "excl_start"):
            got, want = getattr(lazy, field), getattr(whole, field)[nodes]
            assert got.dtype == want.dtype, (name, field)
            np.testing.assert_array_equal(got, want, err_msg=f"{name}: {field}")
        np.testing.assert_array_equal(lazy.excl_subtree, whole.excl_subtree[nodes])
        for field in ("forest_value", "forest_x1", "forest_exclusive"):
            assert getattr(lazy, field) == getattr(whole, field), (name, field)
        again = layout.sums_of(nodes)  # read from the whole sums once they exist
        np.testing.assert_array_equal(again.value_before, lazy.value_before)
