"""Ensemble.models on the MPI scaling ensemble (5 runs, 27..343 ranks)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from perfweave.ensemble import Ensemble
from perfweave.errors import MetadataError, ShapeError
from perfweave.scaling import fit_models, predict
from perfweave.scaling.fit import FewParameterValues

from .conftest import THICKET

METRIC = "Avg time/rank"
PARAM = "mpi.world.size"


@pytest.fixture(scope="module")
def mpi() -> Ensemble:
    return Ensemble.from_files(str(THICKET / "mpi_scaling_cali"))


def test_one_row_per_node_and_thicket_columns(mpi):
    ens = mpi.copy()
    fits = ens.models(METRIC, PARAM)
    assert fits.index.name == "node" and fits.index.tolist() == list(range(len(ens.graph)))
    assert fits["name"].tolist() == ens.statsframe["name"].tolist()
    # the MPI_Allreduce under main grows with p^(9/4) (Extra-P's model of this node)
    row = fits.loc[2]
    assert row["name"] == "MPI_Allreduce" and row["model"] == "1.92e-05 + 9.09e-09 * p^(9/4)"
    sf = ens.statsframe
    for col, src in (("", "model"), ("_RSS", "rss"), ("_SMAPE", "smape"), ("_AR2", "ar2")):
        name = f"{METRIC}{col}_extrap-model"
        assert name in sf.columns
        assert sf[name].tolist() == fits[src].tolist()
    assert "Avg time/rank_extrap-model" not in mpi.statsframe.columns  # the copy was written


def test_models_equal_fit_models_of_the_node_by_profile_table(mpi):
    fits = mpi.copy().models("Max time/rank", PARAM, agg="median")
    x = mpi.metadata[PARAM].to_numpy(float)
    Y = mpi.dataframe["Max time/rank"].unstack("profile")[mpi.metadata.index].to_numpy()
    direct = fit_models(x, Y, agg="median")
    pd.testing.assert_frame_equal(fits.drop(columns="name").reset_index(drop=True), direct)


def test_rank_rows_are_averaged_per_profile(mpi):
    df = mpi.dataframe[[METRIC]]
    low, high = df * 0.8, df * 1.2
    low["rank"], high["rank"] = 0, 1
    ranked = pd.concat([low, high]).set_index("rank", append=True).sort_index()
    ens = Ensemble(mpi.graph, ranked, mpi.metadata, exc_metrics=[METRIC])
    a = ens.models(METRIC, PARAM)
    b = mpi.copy().models(METRIC, PARAM)
    assert a["term"].tolist() == b["term"].tolist()
    np.testing.assert_allclose(a["c0"], b["c0"], rtol=1e-9)


def test_node_missing_in_a_run_is_left_out(mpi):
    df = mpi.dataframe.copy()
    first = mpi.profiles[0]
    df.loc[(2, first), METRIC] = np.nan
    ens = mpi._replace(dataframe=df)
    with pytest.warns(FewParameterValues, match="1 of 45 model"):
        fits = ens.models(METRIC, PARAM)
    assert fits.loc[2, "n"] == 4 and "at least 5" in fits.loc[2, "note"]
    assert fits.loc[2, "reason"] == "" and fits.loc[2, "quality"] != "good"
    assert fits.loc[3, "n"] == 5 and fits.loc[3, "reason"] == fits.loc[3, "note"] == ""


def test_missing_parameter_column_is_named(mpi):
    with pytest.raises(MetadataError, match="no metadata column 'mpi.size'.*mpi.world.size"):
        mpi.copy().models(METRIC, "mpi.size")


def test_non_numeric_parameter_names_profile_and_value(mpi):
    meta = mpi.metadata.copy()
    meta[PARAM] = meta[PARAM].astype(object)
    bad = mpi.profiles[3]
    meta.loc[bad, PARAM] = "343 ranks"
    ens = mpi._replace(metadata=meta)
    with pytest.raises(MetadataError, match=rf"profile {bad!r} has '343 ranks'"):
        ens.models(METRIC, PARAM)
    assert f"{METRIC}_extrap-model" not in ens.statsframe.columns  # nothing half-written


def test_bad_metric(mpi):
    with pytest.raises(ShapeError, match="no metric 'time'"):
        mpi.copy().models("time", PARAM)
    with pytest.raises(ShapeError, match="not numeric"):
        mpi.copy().models("spot.channel", PARAM)


def test_model_columns_survive_a_json_round_trip(mpi):
    ens = mpi.copy()
    ens.models(METRIC, PARAM)
    back = Ensemble.from_json(ens.to_json())
    cols = [c for c in ens.statsframe.columns if str(c).endswith("_extrap-model")]
    assert len(cols) == 4
    assert back.statsframe.loc[2, f"{METRIC}_extrap-model"] == "1.92e-05 + 9.09e-09 * p^(9/4)"
    np.testing.assert_allclose(
        back.statsframe[f"{METRIC}_SMAPE_extrap-model"],
        ens.statsframe[f"{METRIC}_SMAPE_extrap-model"],
    )


def test_rank_rows_follow_the_one_reduction_rule():
    """GAMESS read per profile (16 ranks of 1 or 4 threads; many nodes measured on a few
    threads only): the values models are fitted to are the ones every view shows. A
    thread without a row for a node counts 0, so no node exceeds its parent (309 did
    when only the rows present were averaged)."""
    import perfweave as pw
    from perfweave.calltree.ranks import reduce_ranks
    from perfweave.ensemble.models import metric_matrix

    gf = pw.read("tests/data/hatchet-more/hpctoolkit-gamess", per_profile=True)
    half = gf.copy()
    half.dataframe["time (inc)"] = half.dataframe["time (inc)"] / 2
    ens = Ensemble.from_graphframes([gf, half], metadata=[{"run": 1}, {"run": 2}])
    matrix = metric_matrix(ens, "time (inc)")
    shown = reduce_ranks(gf, "time (inc)", "mean")["time (inc)"].to_numpy()
    np.testing.assert_allclose(matrix[:, 0], shown, rtol=1e-12)
    np.testing.assert_allclose(matrix[:, 1], shown / 2, rtol=1e-12)
    graph, value = ens.graph, np.nan_to_num(matrix[:, 0])  # NaN: no value in the profile
    for node in range(len(graph)):
        for child in graph.children_of(node):
            assert value[child] <= value[node] * (1 + 1e-12), (node, child)


def _extrap_value(row, x):
    """Extra-P's model (mpi_scaling_extrap.csv) at ``x``."""
    from fractions import Fraction

    poly, log = float(Fraction(str(row["poly"]))), float(Fraction(str(row["log"])))
    return row["c0"] + row["c1"] * x**poly * np.log2(x) ** log


def test_model_cells_eval_as_thickets_model_wrapper_and_extrap(mpi):
    """Thicket's habit: ``statsframe.dataframe.at[node, '<metric>_extrap-model'].eval(x)``;
    the values are Extra-P 4.2's models' (tests/data/scaling/mpi_scaling_extrap.csv)."""
    from tests.conftest import DATA

    ens = mpi.copy()
    ens.models(METRIC, PARAM)
    extrap = pd.read_csv(DATA / "scaling" / "mpi_scaling_extrap.csv")
    extrap = extrap[extrap["metric"] == METRIC].set_index("node")
    column = ens.statsframe.dataframe[f"{METRIC}_extrap-model"]
    xs = np.array([27.0, 343.0, 512.0, 4096.0])
    assert len(extrap) == len(column) == 45
    for node, cell in column.items():
        want = extrap.loc[node]
        assert ens.statsframe.loc[node, "name"] == want["name"]
        assert cell.param_name == PARAM
        assert cell.eval(512) == pytest.approx(_extrap_value(want, 512.0), rel=1e-6, abs=1e-12)
        np.testing.assert_allclose(cell.eval(xs), _extrap_value(want, xs), rtol=1e-6, atol=1e-12)
    # still the model text: it prints, compares and is written to JSON as before
    assert column[2] == "1.92e-05 + 9.09e-09 * p^(9/4)" and isinstance(column[2], str)
    assert f"{METRIC}_extrap-model" in ens.to_json()


def test_model_cell_display_draws_the_model_over_the_measured_points(mpi):
    import matplotlib  # the plot extra, in the test extra too

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ens = mpi.copy()
    ens.models(METRIC, PARAM)
    cell = ens.statsframe.dataframe.at[2, f"{METRIC}_extrap-model"]
    fig, ax = cell.display(RSS=True)
    try:
        curve, points = ax.get_lines()
        x = curve.get_xdata()
        assert x[0] == 27 and x[-1] == pytest.approx(1.5 * 343)
        np.testing.assert_allclose(curve.get_ydata(), cell.eval(x))
        # the points: each size's value of the node, from the performance table itself
        measured = ens.dataframe.xs(2, level="node")[METRIC].groupby(ens.metadata[PARAM]).mean()
        np.testing.assert_allclose(points.get_xdata(), measured.index.to_numpy(float))
        np.testing.assert_allclose(points.get_ydata(), measured.to_numpy())
        assert points.get_label() == "MPI_Allreduce"
        assert curve.get_label() == f"1.92e-05 + 9.09e-09 * p^(9/4) ({cell.model.quality})"
        assert ax.get_xlabel() == PARAM and ax.get_ylabel() == f"{METRIC} (s)"
        rss = [t.get_text() for t in ax.texts]
        assert rss == [f"RSS = {cell.model.rss:.6g}"]
        # past the largest size, the 90 % range of a new measurement, never below zero
        (band,) = ax.collections
        ys = np.concatenate([p.vertices[:, 1] for p in band.get_paths()])
        assert ys.min() >= 0 and ys.max() > cell.eval(1.5 * 343)
    finally:
        plt.close(fig)
    fig, ax = cell.display(False)  # Thicket's positional RSS
    assert len(ax.texts) == 0
    plt.close(fig)


def test_model_cells_of_several_parameters_evaluate_and_refuse_a_plot(mpi):
    meta = mpi.metadata.copy()
    meta["q"] = [1.0, 2.0, 1.0, 2.0, 1.0]
    ens = mpi._replace(metadata=meta)
    with pytest.warns(FewParameterValues):
        fits = ens.models(METRIC, [PARAM, "q"])
    cell = ens.statsframe.at[2, f"{METRIC}_extrap-model"]
    assert cell == fits.loc[2, "model"] and cell.param_name == [PARAM, "q"]
    point = {PARAM: 512.0, "q": 2.0}
    assert cell.eval(point) == pytest.approx(predict(fits.loc[[2]], point).iloc[0], rel=1e-12)
    assert np.isfinite(cell.eval(point))
    with pytest.raises(ShapeError, match=r"one parameter; this one has 2 \(mpi.world.size, q\)"):
        cell.display()


def test_parameter_values_and_metric_matrix_are_what_models_are_fitted_to(mpi):
    """The ensemble answers what a scaling study asks of it (scaling never imports the
    ensemble package): its parameter values and metric matrix, from which fit_models
    gives the models Ensemble.models gives."""
    x = mpi.parameter_values(PARAM)
    np.testing.assert_array_equal(x, mpi.metadata[PARAM].to_numpy(dtype=float))
    Y = mpi.metric_matrix(METRIC)
    assert Y.shape == (len(mpi.graph), len(mpi.metadata))
    for j, profile in enumerate(mpi.metadata.index):
        assert Y[2, j] == mpi.dataframe.loc[(2, profile), METRIC]
    fits = fit_models(x, Y)
    assert fits["model"].tolist() == mpi.copy().models(METRIC, PARAM)["model"].tolist()


def test_parameter_values_of_several_columns_and_of_a_missing_one(mpi):
    ens = mpi.copy()
    ens.metadata["size"] = 2.0 * ens.metadata[PARAM]
    both = ens.parameter_values([PARAM, "size"])
    assert list(both.columns) == [PARAM, "size"]
    np.testing.assert_array_equal(both["size"], 2.0 * ens.metadata[PARAM].to_numpy(float))
    with pytest.raises(MetadataError, match="no metadata column 'ranks' to model over"):
        ens.parameter_values("ranks")
