"""ScalingView (Python side) on the MPI scaling ensemble and a synthetic study with repeats:
every control equals its Python method, which equals the core (ScalingStudy/fit_models)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree.numbers import TIME_UNITS, ColumnFormat
from perfweave.errors import GraphError, MetadataError, ShapeError
from perfweave.scaling import ScalingStudy, fit_models
from perfweave.widgets.scaling_view import GROWTH_COLUMN, ScalingView

METRIC = "Avg time/rank"


@pytest.fixture(scope="module")
def mpi():
    return pw.datasets.mpi_scaling()


@pytest.fixture
def view(mpi) -> ScalingView:
    return ScalingView(mpi, param="mpi.world.size", metric=METRIC)


def _grouped_study(n_nodes: int = 60, seed: int = 4):
    """Two machines, 5 scales x 2 repeats each: machine b is twice as slow."""
    from perfweave.calltree.graph import Graph
    from perfweave.ensemble import Ensemble
    from perfweave.ensemble._table import dense_index

    rng = np.random.default_rng(seed)
    parent = np.concatenate([[-1], rng.integers(0, np.arange(1, n_nodes))])
    graph, _ = Graph._new(pd.DataFrame({"name": [f"n{i}" for i in range(n_nodes)]}), parent, None)
    sizes = np.tile(np.repeat([8, 16, 32, 64, 128], 2), 2)
    machine = np.repeat(["a", "b"], 10)
    base = 1.0 + 0.01 * sizes[None, :] ** 1.5 * (1 + np.arange(n_nodes))[:, None] / n_nodes
    values = base * np.where(machine == "b", 2.0, 1.0)[None, :]
    values *= 1 + 0.01 * rng.standard_normal(values.shape)
    profiles = [f"run{i:02d}" for i in range(20)]
    df = pd.DataFrame(
        {"time": values.ravel(), "name": np.repeat(graph.frames["name"].to_numpy(), 20)},
        index=dense_index(n_nodes, profiles),
    )
    meta = pd.DataFrame(
        {"size": sizes, "machine": machine}, index=pd.Index(profiles, name="profile")
    )
    return Ensemble(graph, df, meta, exc_metrics=["time"], default_metric="time")


def test_models_are_the_ensembles_models(view, mpi):
    expected = mpi.copy().models(METRIC, "mpi.world.size")
    pd.testing.assert_frame_equal(view.models[expected.columns], expected)
    assert "growth" in view.models.columns
    # it opens on the call path that grows fastest: MPI_Allreduce, p^(9/4)
    assert view.focused == 2 and view.models.loc[2, "term"] == "p^(9/4)"
    assert view.target == 2700.0  # 8 x 343, two significant digits


def written_in(cells: pd.Series) -> ColumnFormat:
    """The one format of a column of times (its step and decimals), read from a cell."""
    digits, unit = next(t for t in cells.dropna() if t[0].isdigit()).split(" ")[:2]
    return ColumnFormat(TIME_UNITS[unit], unit, len(digits.partition(".")[2]))


def test_explorer_shows_growth_and_prediction_columns(view):
    view.explorer.expand(5, subtree=True)
    shown = view.explorer.visible_rows()
    # the target lies 7.9 times past the largest measured scale (343): the header says so
    column = view.target_column()
    assert column == "at 2700 · 90% interval of a new run · 7.9x past data"
    assert GROWTH_COLUMN == "growth term · fit quality"
    assert GROWTH_COLUMN in shown.columns and column in shown.columns
    by_node = shown.set_index("node")
    at = pw.scaling.predict(view.models, view.target, interval=0.9)
    fmt = written_in(by_node[column])
    for node in by_node.index[:10]:
        # the prediction in the metric's unit, then the interval of new measurements
        low = max(at.loc[node, "low"], 0.0)  # a time: a lower bound below 0 is 0
        text = f"{fmt.text(at.loc[node, 'prediction'])} ({fmt.text(low)}"
        if at.loc[node, "prediction"] < 0:  # a time below 0 is no time
            text = "< 0: model invalid here"
        assert by_node.loc[node, column].startswith(text)
        term, quality = view.models.loc[node, ["term", "quality"]]
        marked = "⚠ poor" if quality == "poor" else quality  # a poor fit is marked
        assert by_node.loc[node, GROWTH_COLUMN] == f"{term} · {marked}"
    assert (by_node[column] == "< 0: model invalid here").any()  # MPI_Wait (node 24)
    # "which call path dominates at the target?": one sort, by the predicted value
    view.explorer.sort_by(column)
    assert view.explorer.sort_column == column
    first = view.explorer.visible_rows()["node"].iloc[0]
    assert at.loc[first, "prediction"] == at["prediction"].max()
    view.explorer.sort_by(GROWTH_COLUMN)
    first = view.explorer.visible_rows()["node"].iloc[0]
    assert view.models.loc[first, "growth"] == view.models["growth"].max()


def test_focus_and_chart_data(view, mpi):
    view.focus_node(11)
    data = view.chart_data
    assert list(data.columns) == ["param", "value", "run", "label", "group", "selected"]
    assert len(data) == len(mpi) and data["selected"].all()
    per_run = mpi.by_profile(METRIC).loc[11].drop("name")
    np.testing.assert_allclose(data["value"], per_run[data["label"]].to_numpy(float))
    view.focus_node("lulesh.cycle")
    assert view.focused == 11
    # one node lookup for every view (perfweave.calltree.node_lookup), one error class
    with pytest.raises(GraphError, match="nodes are named 'MPI_Irecv'"):
        view.focus_node("MPI_Irecv")
    assert view.error and view.focused == 11  # the previous view stays
    with pytest.raises(GraphError, match="no node 999"):
        view.focus_node(999)


def test_focusing_a_node_shows_its_row_in_the_explorer(view):
    """focus_node points the explorer at the same call path: MPI_Allreduce (a root far
    down a tree sorted by time) is selected and its row brought into view."""
    view.focus_node(2)
    assert view.explorer.selected_nodes == [2] and view.focused == 2
    assert 2 in set(view.explorer.visible_rows()["node"])
    view.explorer.focus(14)  # a subtree: its node 0 is the ensemble's node 14
    view.focus_node(14)
    assert view.explorer.selected_nodes == [0]
    view.focus_node(2)  # not in the focused subtree: the chart moves, the explorer stays
    assert view.focused == 2 and view.explorer.selected_nodes == [0]


def test_the_explorers_selection_focuses_the_chart(view):
    view.explorer.select([14])
    assert view.focused == 14
    assert view._title.value.endswith("LagrangeLeapFrog")


def test_the_chart_follows_the_explorers_keyboard_cursor(view):
    """The view asks the explorer's page to report where its keyboard cursor rests (a
    plain explorer's page does not); the chart follows, in the ensemble's node ids also
    after the explorer focused on a subtree."""
    ex = view.explorer
    assert ex.report_cursor and not pw.CalltreeExplorer(view.ensemble).report_cursor
    replies = []
    ex.send = lambda content, buffers=None: replies.append(content)

    def cursor(node):
        ex._on_msg(ex, {"type": "request", "id": 1, "action": "cursor", "args": {"node": node}}, [])
        return replies[-1]

    assert cursor(11)["ok"] and ex.cursor_node == 11
    assert view.focused == 11 and view._title.value.endswith("lulesh.cycle")
    ex.focus(14)  # LagrangeLeapFrog becomes node 0 of the shown tree
    assert cursor(0)["ok"] and view.focused == 14
    reply = cursor(10_000)  # an id the tree does not have: refused, the chart stays
    assert not reply["ok"] and "no node 10000" in reply["error"] and view.focused == 14


def test_chart_draws_points_fit_and_extrapolation(view):
    import bqplot as bq

    view.focus_node(2)
    lines = [m for m in view.chart.marks if isinstance(m, bq.Lines) and m.fill != "between"]
    points = [m for m in view.chart.marks if isinstance(m, bq.Scatter) and len(m.x)]
    assert len(lines) == 2 and lines[1].line_style == "dashed"
    assert lines[0].x[0] == 27 and lines[0].x[-1] == 343 and lines[1].x[-1] == view.target
    model = view.models.loc[2]
    np.testing.assert_allclose(
        lines[1].y[-1], model["c0"] + model["c1"] * view.target ** (9 / 4), rtol=1e-9
    )
    assert sorted(points[0].x) == [27, 64, 125, 216, 343]
    assert "1.92e-05 + 9.09e-09 * p^(9/4)" in view._model_text.value
    assert "SMAPE 45.1%" in view._figures.value
    # the prediction in the metric's unit, written as the explorer's cells write it
    assert view.target == 2700 and "mpi.world.size=2700: 477.6 ms" in view._figures.value
    assert view.chart.axes[1].label == "Avg time/rank"  # each tick says its unit
    # five decades of y: a tick per power of 10, not d3's crowd of 1-2-5 steps
    ticks = np.asarray(view.chart.axes[1].tick_values)
    np.testing.assert_allclose(np.log10(ticks), np.round(np.log10(ticks)))
    assert 3 <= len(ticks) <= 8
    assert isinstance(view.chart.axes[0].scale, bq.LogScale)  # the default
    view.set_log_axes(False)
    assert isinstance(view.chart.axes[0].scale, bq.LinearScale) and view._axes_box.value is False
    # round ticks from 0 to the target (bqplot's own spread from its padded domain: -50.5)
    assert list(view.chart.axes[0].tick_values) == [0, 500, 1000, 1500, 2000, 2500]
    view._axes_box.value = True  # the toggle does the same
    assert view.log_axes and isinstance(view.chart.axes[0].scale, bq.LogScale)


def test_excluding_runs_refits_every_model(view, mpi):
    runs = mpi.profiles
    keep = [r for r in runs if mpi.metadata.loc[r, "mpi.world.size"] != 343]
    view.focus_node(2)
    view.select_profiles(keep)
    assert view.selected_profiles == keep
    # four scales: fitted as Extra-P fits them, the note says so, never "good"
    assert (view.models["n"] == 4).all() and (view.models["reason"] == "").all()
    assert view.models["note"].str.contains("fitted on 4 distinct parameter values").all()
    assert not (view.models["quality"] == "good").any()
    assert "(4 scales)" in view._figures.value and "no model" not in view._model_text.value
    assert view.chart_data["selected"].sum() == 4
    # the run table's boxes follow
    assert sum(b.value for b in view._run_boxes) == 4
    # a box click does the same as select_profiles
    box = view._run_boxes[runs.index(runs[0])]
    box.value = False
    assert len(view.selected_profiles) == 3
    view.select_profiles(None)
    assert len(view.selected_profiles) == len(runs) and view.models.loc[2, "term"] == "p^(9/4)"
    with pytest.raises(MetadataError, match="no run 'nope'"):
        view.select_profiles(["nope"])
    with pytest.raises(MetadataError, match="at least one run"):
        view.select_profiles([])
    assert len(view.selected_profiles) == len(runs)  # unchanged


def test_target_control_and_method(view):
    view.set_target(4096)
    assert view.target == 4096 and view._target_box.value == 4096
    assert view.target_column().endswith("· 12x past data")
    assert view.target_column() in view.explorer.visible_rows().columns
    view._target_box.value = -3  # a bad value typed in the box: banner, box snaps back
    assert "positive" in view.error and view.target == 4096 and view._target_box.value == 4096
    assert view.banner.error == view.error
    view._target_box.value = 1000
    assert view.error == "" and view.target == 1000
    with pytest.raises(ShapeError, match="expected a number"):
        view.set_target("many")
    pd.testing.assert_series_equal(view.predict(1000), pw.scaling.predict(view.models, 1000.0))


def test_a_time_predicted_below_zero_is_not_shown_as_one(view, mpi):
    """MPI_Wait under CalcForceForNodes (node 24) shrinks as p^(1/4) log2(p) with a
    negative coefficient: at 4096 ranks its model is below 0. The explorer's column says the
    model is invalid there and the chart says why; ``predict`` still gives the model's
    value."""
    view.set_target(4096)
    assert view.models.loc[24, "c1"] < 0 and view.predict(4096)[24] < 0
    rows = view.explorer.expand(0, subtree=True).visible_rows().set_index("node")
    column = view.target_column()
    assert rows.loc[24, column] == "< 0: model invalid here"
    main = written_in(rows[column]).text(view.predict(4096)[5])
    assert rows.loc[5, column].startswith(main)
    view.focus_node(24)
    assert "< 0: model invalid here (the shrinking model crosses 0" in view._figures.value
    # in log axes the curve stops where the model reaches 0 (a gap, not a dive)
    lines = [
        m
        for m in view.chart.marks
        if getattr(m, "line_style", "") in ("solid", "dashed") and m.fill != "between"
    ]
    assert len(lines) == 2 and np.isnan(lines[1].y[-1])
    assert not any((np.asarray(m.y) <= 0).any() for m in lines)
    assert (mpi.dataframe.loc[24, METRIC] > 0).all()


def test_the_runs_are_a_table_of_their_metadata(view):
    """A check box per run with its scale, then the metadata that tell the runs apart; a
    header row names the columns."""
    cells = view._runs_box.children
    width = len(view._runs_box.layout.grid_template_columns.split())
    assert width == 4 and len(cells) == width * 6
    head = [c.value for c in cells[:width]]
    assert head == ["mpi.world.size", "numhosts", "elapsed_time", "figure_of_merit"]
    last = cells[-width:]
    assert last[0].description == "343" and last[0].value is True
    assert [c.value for c in last[1:]] == ["10", "52.57", "140,936"]
    last[0].value = False  # the box of the run at 343 ranks
    assert view.selected_profiles == [27, 64, 125, 216]


def test_group_by_colors_and_fits_per_group():
    ens = _grouped_study()
    view = ScalingView(ens, param="size", metric="time", group_by="machine")
    assert view.group_by == "machine"
    fits = view.group_models
    assert list(fits.index) == ["a", "b"] and (fits["reason"] == "").all()
    # machine b is twice as slow: its curve is twice as high
    ratio = pw.scaling.predict(fits, 128.0)
    assert ratio["b"] / ratio["a"] == pytest.approx(2.0, rel=0.05)
    import bqplot as bq

    colors = {m.colors[0] for m in view.chart.marks if isinstance(m, bq.Scatter) and len(m.x)}
    assert len(colors) == 2
    # a legend names the groups' curves, and the text gives each group's model
    fitted = [
        m
        for m in view.chart.marks
        if getattr(m, "line_style", "") == "solid" and getattr(m, "fill", "") != "between"
    ]
    assert [m.labels[0] for m in fitted] == ["a", "b"] and all(m.display_legend for m in fitted)
    a, b = (f"{fits.loc[g, 'model']} ({fits.loc[g, 'quality']})" for g in "ab")
    assert f"by machine: a: {a};  b: {b}" in view._model_text.value
    # without grouping: one curve over all runs (repeats folded by their mean)
    view.set_group_by(None)
    assert list(view.group_models.index) == [""] and view._group_box.value == ""  # "(none)"
    with pytest.raises(MetadataError, match="no metadata column 'rack'"):
        view.set_group_by("rack")
    x = ens.metadata["size"].to_numpy(float)
    Y = ens.dataframe["time"].to_numpy().reshape(len(ens.graph), len(ens))
    pd.testing.assert_frame_equal(
        view.models.drop(columns=["name", "growth"]).reset_index(drop=True), fit_models(x, Y)
    )


def test_study_is_usable_without_widgets():
    ens = _grouped_study(20)
    study = ScalingStudy(ens, "size", "time", group_by="machine")
    sel = study.mask([f"run{i:02d}" for i in range(10)])  # machine a only
    models = study.models(sel)
    x = ens.metadata["size"].to_numpy(float)[:10]
    Y = ens.dataframe["time"].to_numpy().reshape(20, 20)[:, :10]
    np.testing.assert_allclose(models["c1"], fit_models(x, Y)["c1"])
    assert list(study.group_models(3, sel).index) == ["a", "b"]
    assert study.group_models(3, sel).loc["b", "n"] == 0


def test_thicket_param_errors_show_before_building(mpi):
    with pytest.raises(MetadataError, match="no metadata column 'ranks'"):
        ScalingView(mpi, param="ranks", metric=METRIC)
    with pytest.raises(ShapeError, match="no metric 'time'"):
        ScalingView(mpi, param="mpi.world.size", metric="time")


def test_columns_follow_the_explorers_focus(view):
    """After the explorer focuses on a subtree (its tree renumbered), a refit still puts each
    call path's model on its row, and a click there focuses the chart on that call path."""
    view.explorer.focus(14)  # LagrangeLeapFrog
    view.explorer.expand(0, subtree=True)
    view.select_profiles(view.selected_profiles[1:])  # 4 runs: fitted, never good
    rows = view.explorer.visible_rows()
    assert rows[GROWTH_COLUMN].str.endswith(("· fair", "· ⚠ poor")).all()
    view.select_profiles(None)
    rows = view.explorer.visible_rows()
    names = view.models.set_index("name")
    calc = rows[rows["name"] == "CalcForceForNodes"].iloc[0]
    assert calc[GROWTH_COLUMN] == names.loc["CalcForceForNodes", "term"] + " · good"
    view.explorer.select([int(calc["node"])])
    assert view.models.loc[view.focused, "name"] == "CalcForceForNodes"


def test_assigning_the_traits_does_what_the_controls_do(view, mpi):
    """``view.target = 1000`` and the other traits act as the target box, the run boxes,
    the color menu and the axes toggle do; a refused value changes nothing."""
    import bqplot as bq

    view.target = 1000
    assert view.target_column().startswith("at 1000 ·")
    assert view.target_column() in view.explorer.visible_rows().columns
    assert view._target_box.value == 1000 and "mpi.world.size=1000" in view._figures.value
    with pytest.raises(ShapeError, match="positive"):
        view.target = -1
    assert view.target == 1000 and "positive" in view.error
    view.focused = 14
    assert view._title.value.endswith("LagrangeLeapFrog") and view.error == ""
    keep = list(mpi.profiles[1:])
    view.selected_profiles = keep
    assert [b.value for b in view._run_boxes].count(False) == 1
    assert view.models.loc[2, "n"] == 4 and view.models.loc[2, "quality"] != "good"
    with pytest.raises(MetadataError, match="at least one run"):
        view.selected_profiles = []
    assert view.selected_profiles == keep
    view.group_by = "numhosts"
    assert view._group_box.value == "numhosts" and len(view.group_models) == 5
    view.log_axes = False
    assert isinstance(view.chart.axes[0].scale, bq.LinearScale) and not view._axes_box.value


def test_the_chart_shades_the_interval_and_marks_a_poor_fit(view):
    """MPI_Barrier (SMAPE 89 %) at 4096 ranks: the band is the interval of new measurements
    of :func:`perfweave.scaling.predict` from the first run to the target (no time below 0:
    on a linear axis its lower bound stops at 0, on a log axis at the chart's floor); the
    chart and the text under it say the fit is poor, and how far the target lies past the
    data."""
    import bqplot as bq

    view.set_target(4096).focus_node(10)
    band = [m for m in view.chart.marks if isinstance(m, bq.Lines) and m.fill == "between"]
    assert len(band) == 1
    xs, (low, high) = np.asarray(band[0].x), np.asarray(band[0].y)
    assert xs[0] == 27 and xs[-1] == pytest.approx(4096)
    got = pw.scaling.predict(view.group_models, xs, interval=0.9)
    got_low, got_high = got["low"].to_numpy()[0], got["high"].to_numpy()[0]
    np.testing.assert_allclose(high, got_high)
    above = got_low > 0  # (MPI_Barrier's whole interval reaches 0)
    np.testing.assert_allclose(low[above], got_low[above])
    assert (low[~above] == low.min()).all() and low.min() > 0  # the log axis' floor
    label = [m for m in view.chart.marks if isinstance(m, bq.Label)][0]
    assert label.text[0] == "⚠ poor fit: SMAPE 89% is above 50%"
    assert view._quality.value.startswith("⚠ poor: SMAPE 89% is above 50%")
    assert view._quality.style.text_color == "#c62828"
    assert "90% interval 0 s – " in view._figures.value
    assert "12x past the largest measured (343)" in view._figures.value
    view.set_log_axes(False)
    band = [m for m in view.chart.marks if isinstance(m, bq.Lines) and m.fill == "between"]
    low = np.asarray(band[0].y)[0]
    np.testing.assert_allclose(low, np.maximum(got_low, 0.0))
    view.focus_node(18)  # CalcVolumeForceForElems: a good constant
    label = [m for m in view.chart.marks if isinstance(m, bq.Label)][0]
    assert label.text[0] == "" and view._quality.value == "quality good: SMAPE 2.1%"
    assert view._model_text.value.endswith("(constant)")
    view.focus_node(41)  # CalcTimeConstraintsForElems shrinks
    assert view._model_text.value == "model: 0.159 - 2.2e-07 * p^(5/3) (decreasing)"


def test_unticked_runs_are_drawn_hollow_in_their_groups_color():
    """An unticked run stays in the chart where it was measured, as a hollow ring of its
    group's color (not a filled point: it is out of the fit); on the bundled study of 9
    runs every model is refitted on the 8 others and moves."""
    mm = pw.datasets.matmul_scaling()
    view = ScalingView(mm, param="x", metric="time")
    view.focus_node(1)  # init_mat
    before = view.models.loc[1, "model"]
    first = [p for p in mm.profiles if mm.metadata.loc[p, "x"] == 1]
    view.select_profiles([p for p in mm.profiles if p not in first])
    assert view.models.loc[1, "model"] != before and (view.models["n"] == 8).all()
    marks = {getattr(m, "_pw_kind", ""): m for m in view.chart.marks}
    ring, runs = marks["excluded"], marks["runs"]
    assert ring.fill is False and runs.fill is True
    assert list(ring.x) == [1.0] and len(runs.x) == 8
    assert list(ring.colors) == list(runs.colors)  # the group's color, hollow
    view.select_profiles(None)
    marks = {getattr(m, "_pw_kind", ""): m for m in view.chart.marks}
    assert len(marks["excluded"].x) == 0 and len(marks["runs"].x) == 9


def test_the_style_sheet_is_a_file_scoped_to_the_view(view):
    """The view's CSS is a .css file shipped with the bundles (as the anywidgets' are), put
    on the page by the view, every rule inside ``.pw-scaling`` (several widgets share a
    page)."""
    import re

    from perfweave.widgets._base import static_file

    css = static_file("scaling_view.css").read_text(encoding="utf-8")
    body = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    selectors = [s.strip() for head in re.findall(r"([^{}]+)\{", body) for s in head.split(",")]
    assert len(selectors) >= 6 and all(s.startswith(".pw-scaling ") for s in selectors)
    style = view.children[1]
    assert style.value == f"<style>{css}</style>" and "pw-scaling" in view._dom_classes


def test_the_flame_at_the_target_follows_the_target_and_the_runs(view, mpi):
    from perfweave.scaling.flame import PredictedFlame

    assert view.shown == "tree" and view.flame is None  # built when first shown
    view.show("flame")
    assert view._middle.children == (view.flame,)
    view.set_target(4096)
    view.select_profiles(view.study.selected_runs[1:])
    alone = PredictedFlame(mpi.filter_profile(view.study.selected_runs), "mpi.world.size", 4096)
    np.testing.assert_allclose(
        view.flame.layout.values.inclusive, alone.layout("Avg time/rank").values.inclusive
    )
    assert "= 4,096 (not run; models over mpi.world.size = 64, 125" in view.flame.title
    with pytest.raises(ShapeError, match="'tree' or 'flame'"):
        view.show("icicle")
    assert view.shown == "flame" and "'tree' or 'flame'" in view.error
    view.show("tree")
    assert view._middle.children == (view.explorer,) and view.error == ""
