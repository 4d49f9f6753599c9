"""ScalingStudy without a widget: the state of a study (runs, target, focus, groups) and
every answer its views show, on the MPI scaling study of LULESH (5 runs, 27..343 ranks) and
the bundled matmul study (9 runs), checked against the core computations they are made of."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree.numbers import column_format, format_quantity
from perfweave.calltree.subgraph import subgraph
from perfweave.errors import GraphError, MetadataError, ShapeError
from perfweave.scaling import FewParameterValues, ScalingStudy, evaluate, predict, quality
from perfweave.scaling.interval import INVALID
from perfweave.scaling.study import GROWTH_COLUMN, LEVEL

METRIC = "Avg time/rank"


@pytest.fixture(scope="module")
def mpi():
    return pw.datasets.mpi_scaling()


@pytest.fixture
def study(mpi) -> ScalingStudy:
    return ScalingStudy(mpi, "mpi.world.size", METRIC)


def test_the_study_holds_runs_target_and_focus(study, mpi):
    sizes = mpi.metadata["mpi.world.size"]
    # the target defaults to 8 x the largest run, the focus to the fastest-growing model
    assert study.target == float(f"{8 * sizes.max():.2g}")
    growth = study.models()["growth"]
    assert study.focused == growth.idxmax()
    # selecting runs refits every model on them, once; the answers follow the selection
    keep = [r for r in mpi.profiles if sizes[r] != sizes.max()]
    models = study.select(keep)
    assert study.selected_runs == keep and study.models() is models
    assert (models["n"] == len(keep)).all() and study.largest() == sorted(sizes)[-2]
    assert study.chart_data()["selected"].tolist() == [r in keep for r in mpi.profiles]
    x = sizes[keep].to_numpy(float)
    with pytest.warns(FewParameterValues, match="45 of 45"):  # the study's rows say it
        Y = pw.scaling.fit_models(x, study.values[:, study.selected])
    assert models["note"].str.contains("fitted on 4 distinct parameter values").all()
    np.testing.assert_allclose(models["c1"].to_numpy(), Y["c1"].to_numpy())
    # a refused selection, target or node changes nothing and names what was wrong
    with pytest.raises(MetadataError, match="at least one run"):
        study.select([])
    with pytest.raises(MetadataError, match="no run 'nope'"):
        study.select(["nope"])
    assert study.selected_runs == keep and study.models() is models
    with pytest.raises(ShapeError, match="positive"):
        study.target = -1
    with pytest.raises(ShapeError, match="expected a number"):
        study.target = "many"
    study.target = 4096
    assert study.target == 4096.0
    with pytest.raises(GraphError, match="4 nodes are named 'MPI_Irecv'"):
        study.focused = "MPI_Irecv"
    with pytest.raises(GraphError, match="no node 999"):
        study.focused = 999
    study.focused = "lulesh.cycle"
    assert study.names[study.focused] == "lulesh.cycle"
    assert study.select(None) is not models and len(study.selected_runs) == len(mpi.profiles)


def test_the_explorer_columns_are_each_models_growth_and_prediction(study):
    """Growth term and quality (a poor fit marked), the prediction at the target with the
    interval of a new run in one format for the column; a shrinking time model below 0 is
    said to be invalid there, never written as a time."""
    study.target = 4096
    frame, keys = study.explorer_columns()
    column = study.target_column()
    assert column == f"at 4096 · {LEVEL:.0%} interval of a new run · 12x past data"
    assert list(frame.columns) == [GROWTH_COLUMN, column] == list(keys)
    models = study.models()
    at = predict(models, 4096.0, interval=LEVEL)
    # the column's one format, from every prediction and bound it writes
    ok = at["prediction"] >= 0
    fmt = column_format(at.loc[ok].clip(lower=0).to_numpy().ravel(), study.unit)
    for node, row in models.iterrows():
        marked = "⚠ poor" if row["quality"] == "poor" else row["quality"]
        assert frame.loc[node, GROWTH_COLUMN] == f"{row['term']} · {marked}"
        p, low, high = at.loc[node]
        if p < 0:  # MPI_Wait under CalcForceForNodes: its model shrinks below 0
            assert frame.loc[node, column] == INVALID and np.isnan(keys[column][node])
            continue
        text = f"{fmt.text(p)} ({fmt.text(max(low, 0.0))} – {fmt.text(high)})"
        assert frame.loc[node, column] == text
        assert keys[column][node] == p
    assert (frame[column] == INVALID).sum() == (at["prediction"] < 0).sum() >= 1
    pd.testing.assert_series_equal(keys[GROWTH_COLUMN], models["growth"], check_names=False)


def test_columns_and_nodes_on_a_tree_the_explorer_made(study, mpi):
    """A view focused on LagrangeLeapFrog (its node 0 is the ensemble's 14): the columns
    are indexed by the view's nodes and hold their call paths' models; nodes map back and
    forth once per tree."""
    depth = np.asarray(mpi.graph.depth)
    after = np.flatnonzero(depth[15:] <= depth[14])
    keep = np.zeros(len(mpi.graph), bool)
    keep[14 : 15 + after[0]] = True
    sub, old_to_new = subgraph(mpi.graph, keep)
    whole, _ = study.explorer_columns()
    shown, keys = study.explorer_columns(sub)
    assert list(shown.index) == list(range(len(sub)))
    ens_ids = np.flatnonzero(keep)
    pd.testing.assert_frame_equal(
        shown, whole.loc[ens_ids].set_axis(old_to_new[ens_ids]), check_names=False
    )
    assert study.to_ensemble(sub) is study.to_ensemble(sub)  # matched once
    assert study.to_ensemble(mpi.graph) is None and study.to_ensemble(None) is None
    assert study.from_view(sub, 0) == 14 and study.in_view(sub, 14) == 0
    assert study.in_view(sub, 2) is None  # MPI_Allreduce is outside the focused subtree
    assert study.from_view(sub, len(sub)) is None and study.in_view(None, 2) == 2


def test_what_a_view_writes_about_the_focused_model(study):
    """MPI_Barrier (node 10) at 4096 ranks fits poorly: the chart's warning and the quality
    line give the reason; the figures give the prediction, its interval (no time below 0)
    and how far the target lies past the data. A good constant and a shrinking model say
    so."""
    study.target, study.focused = 4096, 10
    row = study.models().loc[10]
    assert row["quality"] == "poor" and row["smape"] > quality.SMAPE_POOR
    why = quality.explain(row["smape"], row["ar2"], row["n"], row["c1"] == 0)
    assert study.fit_warning() == "⚠ " + why.replace("poor: ", "poor fit: ")
    text = study.focus_text()
    assert text.title == f"node 10: {study.path_text(10)}" and text.title.endswith("MPI_Barrier")
    assert text.poor and text.quality == f"⚠ {why}: do not trust its predictions"
    assert text.model == f"model: {row['model']}"
    got = predict(study.models().loc[[10]], 4096.0, interval=LEVEL).iloc[0]
    unit = study.unit
    said = (
        f"{format_quantity(got['prediction'], unit)}, 90% interval "
        f"{format_quantity(max(got['low'], 0.0), unit)} – {format_quantity(got['high'], unit)}"
    )
    assert f"mpi.world.size=4096: {said} (shaded)" in text.figures
    assert f"({row['n']} scales)" in text.figures
    assert f"⚠ {4096 / 343:.2g}x past the largest measured (343)" in text.figures
    constant = study.models()[lambda m: (m["c1"] == 0) & (m["quality"] == "good")].index[0]
    study.focused = int(constant)
    assert study.fit_warning() == "" and not study.focus_text().poor
    assert study.focus_text().model.endswith("(constant)")
    assert study.focus_text().quality.startswith("quality good: ")
    study.focused = 24  # MPI_Wait: decreasing, below 0 before 4096
    assert study.models().loc[24, "c1"] < 0
    text = study.focus_text()
    assert text.model.endswith("(decreasing)")
    assert f"{INVALID} (the shrinking model crosses 0 before 4096)" in text.figures


def test_group_curves_are_the_models_over_the_drawn_range(study, mpi):
    """Node 24's curve over the measured ranks, dashed on to the target: the model's values
    (a gap on log axes where it is below 0), and the band of the interval of a new run with
    no bound below 0."""
    study.target, study.focused = 4096, 24
    fits = study.group_models()
    model = fits.iloc[0]
    for log in (False, True):
        (curve,) = study.group_curves(log)
        assert curve.name == "fit" and curve.fitted
        xs, ys = curve.curve
        assert xs[0] == 27 and xs[-1] == 343
        value = evaluate(model["c0"], model["c1"], model["p_exp"], model["log_exp"], xs)[0]
        np.testing.assert_allclose(ys, np.where(value > 0, value, np.nan) if log else value)
        ex, ey = curve.extrapolation
        assert ex[0] == 343 and ex[-1] == pytest.approx(4096)
        end = evaluate(model["c0"], model["c1"], model["p_exp"], model["log_exp"], ex)[0]
        assert end[-1] < 0 and (np.isnan(ey[-1]) if log else ey[-1] == end[-1])
        bx, low, high = curve.band
        got = predict(fits, bx, interval=LEVEL)
        np.testing.assert_allclose(high, got["high"].to_numpy()[0])
        np.testing.assert_allclose(low, np.maximum(got["low"].to_numpy()[0], 0.0))
        if log:  # log-spaced: equal ratios
            np.testing.assert_allclose(np.diff(np.log(xs)), np.log(343 / 27) / 63)


def test_unticked_runs_stay_in_the_chart_and_groups_get_their_curves():
    """matmul: the run at x = 1 unticked is still a point of the chart (not of the fit),
    and its curve spans it; grouped by a column the study fits one curve per group."""
    mm = pw.datasets.matmul_scaling()
    study = ScalingStudy(mm, "x", "time")
    study.focused = 1
    first = [p for p in mm.profiles if mm.metadata.loc[p, "x"] == 1]
    study.select([p for p in mm.profiles if p not in first])
    data = study.chart_data()
    assert data.loc[~data["selected"], "param"].tolist() == [1.0]
    assert study.group_models().loc["", "n"] == 8
    (curve,) = study.group_curves(log=True)
    assert curve.curve[0][0] == 1.0 and curve.curve[0][-1] == 2000.0
    study.set_group_by("x")  # every run its own group: one point each, no model
    curves = study.group_curves()
    assert [c.name for c in curves] == [str(x) for x in mm.metadata["x"]]
    assert not any(c.fitted for c in curves) and all(len(c.curve[0]) == 0 for c in curves)
    assert study.fit_warning() == ""


def _many_nodes(n: int = 100, seed: int = 5) -> pw.Ensemble:
    """``n`` call paths over 6 scales, each growing as p^(1/2) with its own size and 3 %
    noise (more call paths than the column writes intervals for)."""
    from perfweave.calltree.graph import Graph
    from perfweave.ensemble._table import dense_index

    rng = np.random.default_rng(seed)
    parent = np.concatenate([[-1], np.zeros(n - 1, int)])
    names = [f"f{i}" for i in range(n)]
    graph, _ = Graph._new(pd.DataFrame({"name": names}), parent, None)
    ranks = np.array([8, 16, 32, 64, 128, 256])
    values = (1 + np.arange(n))[:, None] * np.sqrt(ranks)[None, :]
    values *= 1 + 0.03 * rng.standard_normal(values.shape)
    profiles = [f"run{r}" for r in ranks]
    df = pd.DataFrame(
        {"time": values.ravel(), "name": np.repeat(names, len(ranks))},
        index=dense_index(n, profiles),
    )
    meta = pd.DataFrame({"ranks": ranks}, index=pd.Index(profiles, name="profile"))
    return pw.Ensemble(graph, df, meta, exc_metrics=["time"], default_metric="time")


def test_intervals_are_written_for_the_largest_predictions():
    """The bootstrap costs a few ms per model: the column writes the interval of the 64
    call paths predicted largest at the target, the prediction alone for the others."""
    from perfweave.scaling._study_views import INTERVAL_ROWS

    study = ScalingStudy(_many_nodes(), "ranks", "time")
    low, high = study.intervals()
    at = study.predict(study.models(), study.target)
    largest = set(at.nlargest(INTERVAL_ROWS).index)
    assert (
        set(np.flatnonzero(np.isfinite(low))) == largest == set(np.flatnonzero(np.isfinite(high)))
    )
    frame, _ = study.explorer_columns()
    cells = frame[study.target_column()]
    assert cells[list(largest)].str.contains(" – ").all()
    assert not cells.drop(index=list(largest)).str.contains("[(–]").any()
