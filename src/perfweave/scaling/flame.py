"""The flame graph at a scale not yet run: every node's exclusive value predicted by its model.

Each node's **exclusive** value per run (:func:`perfweave.calltree.flame.exclusive_profiles`:
the metric's exclusive partner, or for an inclusive-only metric such as Caliper's
``Avg time/rank`` the inclusive value minus the children's, per run, before fitting) is
modelled over the parameter by :func:`~perfweave.scaling.fit.fit_models`, predicted at the
target and clamped at zero (a model may dip below it; a time cannot). Inclusive values are
the predicted exclusive values summed up the tree again, so no child is wider than its parent
and the picture adds up. A node without a model (too few runs measured it) is predicted 0 and
its quality is ""; each node's model quality (``good``, ``fair``, ``poor``:
:mod:`perfweave.scaling.quality`) goes with the frames, so a view can mark the guesses. Over
fewer than five scales the models are fitted as Extra-P fits them, without the
``FewParameterValues`` warning: their quality (never ``good``) and the title's list of
scales say it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.display import node_names
from perfweave.calltree.flame import (
    FlameLayout,
    NodeValues,
    exclusive_profiles,
    flame_metrics,
    layout_x,
    node_attribute,
    subtree_totals,
)
from perfweave.errors import ShapeError
from perfweave.scaling.fit import FewParameterValues, fit_models
from perfweave.scaling.model import predict


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"


@dataclass(frozen=True)
class Prediction:
    """What a predicted flame graph holds besides its layout: the models fitted per node
    (one row per graph node, :func:`fit_models`' columns) and the scales measured."""

    layout: FlameLayout
    models: pd.DataFrame
    measured: np.ndarray


class PredictedFlame:
    """The flame graph of ``ensemble`` predicted at ``param = target`` by models fitted over
    its runs (see the module docstring). :meth:`layout` lays out one metric's prediction;
    a FlameGraph draws it (``pw.FlameGraph.at_scale``)."""

    def __init__(self, ensemble: Any, param: Any, target: float, agg: str = "mean") -> None:
        self.ensemble = ensemble
        self.param = param
        self.x = ensemble.parameter_values(param)  # the ensemble says, scaling never imports it
        try:
            self.target = float(target)
        except (TypeError, ValueError):
            raise ShapeError(f"target must be a number ({param} = ?), not {target!r}") from None
        if not np.isfinite(self.target) or self.target <= 0:
            raise ShapeError(f"target must be a positive number ({param} = ?), not {target!r}")
        self.agg = agg
        self._predictions: dict[Any, Prediction] = {}

    @property
    def measured(self) -> np.ndarray:
        """The distinct parameter values the runs measured, in order."""
        return np.unique(self.x[np.isfinite(self.x)])

    @property
    def metrics(self) -> list[str]:
        """The metrics a prediction can be drawn by (as a measured flame graph offers)."""
        return flame_metrics(self.ensemble)

    def predict(self, metric: Any = None) -> Prediction:
        """The prediction for ``metric`` (default: the ensemble's default metric)."""
        key = None if metric is None else str(metric)
        if key not in self._predictions:
            self._predictions[key] = self._predict(metric)
        return self._predictions[key]

    def layout(self, metric: Any = None) -> FlameLayout:
        """The laid-out predicted flame graph of ``metric``."""
        return self.predict(metric).layout

    def _predict(self, metric: Any) -> Prediction:
        ens = self.ensemble
        graph = ens.graph
        profiles = exclusive_profiles(ens, metric)
        with warnings.catch_warnings():  # few scales: each model's quality says so
            warnings.simplefilter("ignore", FewParameterValues)
            models = fit_models(self.x, profiles.matrix, self.agg)
        models.index = pd.RangeIndex(len(graph), name="node")
        predicted = predict(models, self.target).to_numpy(dtype=float)
        exclusive = np.maximum(np.nan_to_num(predicted, nan=0.0), 0.0)
        inclusive = subtree_totals(graph, exclusive)
        quality = models["quality"].astype(str).to_numpy(dtype=object)
        measured = self.measured
        beyond = "not run" if self.target not in set(measured.tolist()) else "measured"
        how = (
            f"predicted at {self.param} = {_number(self.target)} ({beyond}; models over "
            f"{self.param} = {', '.join(_number(v) for v in measured)})"
        )
        values = NodeValues(
            graph,
            node_names(graph, ens.dataframe),
            inclusive,
            exclusive,
            profiles.inclusive,
            profiles.unit,
            how,
            np.empty((len(graph), 0)),
            "runs",
            node_attribute(graph, ens.dataframe, "module"),
            quality,
        )
        x0, x1, total = layout_x(graph, inclusive)
        return Prediction(FlameLayout(values, x0, x1, total), models, measured)


def flame_at_scale(
    ensemble: Any, param: Any, target: float, metric: Any = None, agg: str = "mean"
) -> FlameLayout:
    """The flame graph of ``ensemble`` predicted at ``param = target`` (one call)."""
    return PredictedFlame(ensemble, param, target, agg).layout(metric)
