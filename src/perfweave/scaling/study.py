"""A scaling study of an ensemble: the models of every node over chosen runs, and the
points and curves of one node per group of runs.

:class:`ScalingStudy` holds an ensemble's metric as a (nodes, runs) matrix and the runs'
parameter values once, so that refitting every model after a change of the runs that
count is one :func:`fit_models` call on the chosen columns (no ensemble is rebuilt). It is
the computation behind :class:`perfweave.widgets.ScalingView`, usable without widgets.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from perfweave.errors import MetadataError
from perfweave.scaling.fit import fit_models
from perfweave.scaling.model import evaluate, growth_order, predict


class ScalingStudy:
    """``metric`` of every node of ``ensemble`` over the metadata column ``param``.

    ``group_by`` (a metadata column, optional) splits the runs into groups, each with its
    own curve in :meth:`group_models`.
    """

    def __init__(
        self, ensemble: Any, param: Any, metric: Any, group_by: Any = None, agg: str = "mean"
    ) -> None:
        from perfweave.ensemble.models import metric_matrix, parameter

        self.ensemble = ensemble
        self.param = param
        self.metric = metric
        self.agg = agg
        self.x = parameter(ensemble, param)
        self.values = metric_matrix(ensemble, metric)
        self.runs = list(ensemble.metadata.index)
        self.labels = ensemble.labels.reindex(ensemble.metadata.index).astype(str).to_numpy()
        names = ensemble.graph.frames.get("name")
        self.names = (
            names.astype(str).to_numpy() if names is not None else np.arange(len(ensemble.graph))
        )
        self.group_by = None
        self.groups = np.full(len(self.runs), "", dtype=object)
        self.set_group_by(group_by)

    # ------------------------------------------------------------------ runs
    def set_group_by(self, column: Any) -> None:
        """Group the runs by a metadata column (None: one group)."""
        if column is None:
            self.group_by, self.groups = None, np.full(len(self.runs), "", dtype=object)
            return
        meta = self.ensemble.metadata
        if column not in meta.columns:
            cols = ", ".join(str(c) for c in list(meta.columns)[:15])
            raise MetadataError(f"no metadata column {column!r} to group runs by (columns: {cols})")
        values = meta[column]
        self.group_by = column
        self.groups = np.where(values.isna(), "(none)", values.astype(str)).astype(object)

    def mask(self, runs: Iterable[Hashable] | None) -> np.ndarray:
        """A boolean mask over the runs for a list of run ids (None: all runs); an id that is
        not a run is an error naming it."""
        if runs is None:
            return np.ones(len(self.runs), bool)
        wanted = list(runs)
        index = pd.Index(self.runs)
        at = index.get_indexer(wanted)
        if (at < 0).any():
            bad = wanted[int(np.flatnonzero(at < 0)[0])]
            raise MetadataError(
                f"no run {bad!r} in this ensemble ({len(self.runs)} runs, e.g. {self.runs[:3]})"
            )
        out = np.zeros(len(self.runs), bool)
        out[at] = True
        return out

    # ------------------------------------------------------------------ models
    def models(self, selected: np.ndarray | None = None) -> pd.DataFrame:
        """Every node's model over the selected runs (all by default), with ``name`` and
        ``growth`` (:func:`growth_order`), indexed by node id."""
        sel = np.ones(len(self.runs), bool) if selected is None else np.asarray(selected, bool)
        fits = fit_models(self.x[sel], self.values[:, sel], agg=self.agg)
        fits.index = pd.Index(np.arange(len(fits), dtype=np.int64), name="node")
        fits.insert(0, "name", self.names)
        fits["growth"] = growth_order(fits)
        return fits

    @staticmethod
    def predict(models: pd.DataFrame, value: float) -> pd.Series:
        """Every model's value at ``value``."""
        return predict(models, float(value))

    def chart_data(self, node: int, selected: np.ndarray | None = None) -> pd.DataFrame:
        """One row per run of ``node``: the parameter value, the metric value, the run id,
        its label, its group and whether it is selected."""
        sel = np.ones(len(self.runs), bool) if selected is None else np.asarray(selected, bool)
        return pd.DataFrame(
            {
                "param": self.x,
                "value": self.values[node],
                "run": self.runs,
                "label": self.labels,
                "group": self.groups,
                "selected": sel,
            }
        )

    def group_models(self, node: int, selected: np.ndarray | None = None) -> pd.DataFrame:
        """The model of ``node`` per group of selected runs (one row per group, indexed by
        the group; one row ``""`` without grouping)."""
        sel = np.ones(len(self.runs), bool) if selected is None else np.asarray(selected, bool)
        groups = pd.unique(self.groups)
        rows = np.where(sel[None, :] & (self.groups[None, :] == groups[:, None]), 1.0, np.nan)
        Y = rows * self.values[node][None, :]
        fits = fit_models(self.x, Y, agg=self.agg)
        fits.index = pd.Index(groups, name="group")
        return fits

    @staticmethod
    def curve(model: pd.Series, lo: float, hi: float, points: int = 64, log: bool = False):
        """``points`` (x, y) of a model between ``lo`` and ``hi`` (log-spaced when ``log``)."""
        if not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo:
            return np.array([]), np.array([])
        xs = np.geomspace(lo, hi, points) if log and lo > 0 else np.linspace(lo, hi, points)
        ys = evaluate(model["c0"], model["c1"], model["p_exp"], model["log_exp"], xs)[0]
        return xs, ys
