"""The flame graph at a scale not yet run (perfweave.scaling.flame) on the bundled MPI
scaling study (LULESH on 27 to 343 ranks, Caliper's inclusive-only ``Avg time/rank``)."""

from __future__ import annotations

import numpy as np
import pytest

import perfweave as pw
from perfweave.calltree.flame import exclusive_profiles
from perfweave.ensemble.models import metric_matrix, parameter
from perfweave.errors import ShapeError
from perfweave.scaling.flame import PredictedFlame, flame_at_scale

PARAM = "mpi.world.size"


@pytest.fixture(scope="module")
def ens():
    return pw.datasets.mpi_scaling()


@pytest.fixture(scope="module")
def predicted(ens):
    return PredictedFlame(ens, PARAM, 4096)


def test_an_inclusive_only_metric_is_made_exclusive_per_run_before_fitting(ens):
    got = exclusive_profiles(ens, "Avg time/rank")
    assert got.inclusive == "Avg time/rank" and got.unit == "s"
    inc = metric_matrix(ens, "Avg time/rank")
    parent = ens.graph.parent
    for node in range(len(ens.graph)):
        kids = np.flatnonzero(parent == node)
        for run in range(inc.shape[1]):
            if np.isnan(inc[node, run]):
                assert np.isnan(got.matrix[node, run])
                continue
            own = inc[node, run] - np.nansum(inc[kids, run])
            assert got.matrix[node, run] == pytest.approx(max(own, 0.0), abs=1e-12)


def test_each_node_is_its_own_models_prediction_never_below_zero(ens, predicted):
    layout = predicted.layout()
    models = predicted.predict().models
    exc = exclusive_profiles(ens).matrix
    x = parameter(ens, PARAM)
    below = 0
    for node in range(len(ens.graph)):
        if models["reason"].iloc[node]:
            assert layout.values.exclusive[node] == 0 and models["quality"].iloc[node] == ""
            continue
        one = pw.fit_model(x, exc[node])  # the node's model, fitted on its own
        value = one.predict(4096.0)
        below += value < 0
        assert layout.values.exclusive[node] == pytest.approx(max(value, 0.0), rel=1e-9)
        assert layout.values.quality[node] == one.quality
    assert below > 0  # the data has models that dip below zero at 4096: clamped, not drawn


def test_inclusive_values_are_the_predictions_summed_up_the_tree(ens, predicted):
    v = predicted.layout().values
    parent = ens.graph.parent
    for node in range(len(ens.graph)):
        kids = np.flatnonzero(parent == node)
        assert v.inclusive[node] == pytest.approx(v.exclusive[node] + v.inclusive[kids].sum())
        assert (v.inclusive[kids] <= v.inclusive[node] + 1e-12).all()


def test_the_title_says_the_scale_and_that_it_was_not_run(predicted):
    how = predicted.layout().values.how
    assert how.startswith(f"predicted at {PARAM} = 4,096 (not run; models over {PARAM} = 27, ")
    assert "343" in how
    measured = PredictedFlame(predicted.ensemble, PARAM, 343).layout().values.how
    assert "(measured;" in measured


def test_frames_carry_each_models_quality(predicted):
    frames = predicted.layout().frames()
    assert "quality" in frames.columns
    assert set(frames["quality"]) <= {"good", "fair", "poor", ""}
    assert (frames["quality"] == "poor").any()


def test_another_metric_and_the_one_call_agree(ens, predicted):
    a = flame_at_scale(ens, PARAM, 4096, metric="Max time/rank")
    b = predicted.layout("Max time/rank")
    np.testing.assert_array_equal(a.values.inclusive, b.values.inclusive)
    assert a.metric == "Max time/rank"
    assert not np.array_equal(b.values.inclusive, predicted.layout().values.inclusive)


@pytest.mark.parametrize("target", [0, -8, "many", float("nan")])
def test_a_target_that_is_no_scale_is_refused(ens, target):
    with pytest.raises(ShapeError, match="target must be a"):
        PredictedFlame(ens, PARAM, target)


def test_an_unknown_metric_is_named(predicted):
    with pytest.raises(ShapeError, match="no metric 'Avg tme/rank'"):
        predicted.layout("Avg tme/rank")


def test_few_scales_fit_rough_models_without_a_warning(ens):
    import warnings

    four = ens.filter_profile(list(ens.profiles)[1:])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        layout = PredictedFlame(four, PARAM, 4096).layout()
    assert "good" not in set(layout.values.quality)  # four scales: never good
    assert "models over mpi.world.size = 64, 125, 216, 343" in layout.values.how
