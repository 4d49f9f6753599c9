"""A scaling study of an ensemble: the models of every node over the runs a person chose,
the value they predict at a target scale, and the points and curves of one node per group
of runs.

:class:`ScalingStudy` holds an ensemble's metric as a (nodes, runs) matrix and the runs'
parameter values once, so that refitting every model after a change of the runs that
count is one :func:`fit_models` call on the chosen columns (no ensemble is rebuilt). It
holds the state of the study — the runs the models are fitted to (:meth:`select`), the
parameter value predicted (:attr:`target`), the node looked at (:attr:`focused`), the
grouping of the runs (:meth:`set_group_by`) — and answers every question a view of it
asks: the explorer's columns of growth terms and predictions, the chart's points, curves
and interval band, the texts about the focused model and how far to trust it. It is the
core of :class:`perfweave.widgets.ScalingView` (a thin view over it) and works without
widgets.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.node_lookup import PathMatcher, find_node
from perfweave.errors import MetadataError, ShapeError
from perfweave.scaling import _study_chart, _study_runs, _study_views
from perfweave.scaling._study_chart import GroupCurve
from perfweave.scaling._study_views import GROWTH_COLUMN, LEVEL, FocusText
from perfweave.scaling.fit import FewParameterValues, fit_models
from perfweave.scaling.interval import never_negative
from perfweave.scaling.model import evaluate, growth_order, predict

__all__ = ["GROWTH_COLUMN", "LEVEL", "FocusText", "GroupCurve", "ScalingStudy"]


class ScalingStudy:
    """``metric`` of every node of ``ensemble`` over the metadata column ``param``.

    ``group_by`` (a metadata column, optional) splits the runs into groups, each with its
    own curve in :meth:`group_models`; ``target`` is the parameter value predicted
    (default: :meth:`default_target`). Every run counts until :meth:`select` says which.
    """

    def __init__(
        self,
        ensemble: Any,
        param: Any,
        metric: Any,
        group_by: Any = None,
        agg: str = "mean",
        target: float | None = None,
    ) -> None:
        x = ensemble.parameter_values(param)  # the ensemble's own rule (scaling is below it)
        if isinstance(x, pd.DataFrame):  # a list of parameters
            if x.shape[1] != 1:
                raise MetadataError(
                    f"a scaling study (ScalingView) models one parameter, not {x.shape[1]} "
                    f"({', '.join(repr(p) for p in x.columns)}); for multi-parameter models "
                    "use Ensemble.models(metric, param=[...]) or perfweave.fit_models"
                )
            (param,) = x.columns
            x = x[param].to_numpy(dtype=float)
        self.ensemble = ensemble
        self.param = param
        self.metric = metric
        self.agg = agg
        self.x = np.asarray(x, dtype=float)
        self.values = ensemble.metric_matrix(metric)
        self.runs = list(ensemble.metadata.index)
        self.labels = ensemble.labels.reindex(ensemble.metadata.index).astype(str).to_numpy()
        names = ensemble.graph.frames.get("name")
        self.names = (
            names.astype(str).to_numpy() if names is not None else np.arange(len(ensemble.graph))
        )
        self.group_by = None
        self.groups = np.full(len(self.runs), "", dtype=object)
        self.set_group_by(group_by)
        self._matcher: PathMatcher | None = None  # the explorer's trees to the ensemble
        self._selected = np.ones(len(self.runs), bool)
        self._fits: pd.DataFrame | None = None  # the models of the selected runs
        self._focused: int | None = None  # None: the node that grows fastest
        self._matched: tuple[Any, np.ndarray] | None = None  # (a tree, its ensemble ids)
        self._target = self.default_target() if target is None else self.check_target(target)

    # ------------------------------------------------------------------ runs
    def check_group_by(self, column: Any) -> None:
        """Raise a MetadataError naming ``column`` unless it is a metadata column or None."""
        meta = self.ensemble.metadata
        if column is not None and column not in meta.columns:
            cols = ", ".join(str(c) for c in list(meta.columns)[:15])
            raise MetadataError(f"no metadata column {column!r} to group runs by (columns: {cols})")

    def set_group_by(self, column: Any) -> None:
        """Group the runs by a metadata column (None: one group)."""
        self.check_group_by(column)
        if column is None:
            self.group_by, self.groups = None, np.full(len(self.runs), "", dtype=object)
            return
        values = self.ensemble.metadata[column]
        self.group_by = column
        self.groups = np.where(values.isna(), "(none)", values.astype(str)).astype(object)

    def run_table(self, max_columns: int = 4) -> pd.DataFrame:
        """The runs as a person chooses among them: one row per run (indexed by run id, in
        the order of the parameter), its ``label``, the parameter, the group column (when
        grouping) and up to ``max_columns`` more metadata columns that tell the runs apart
        (values that differ between runs and are not a copy of the parameter or of the
        label; file paths keep only the parts that differ, a launch date reads as a date)."""
        return _study_runs.run_table(self, max_columns)

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

    def check_selection(self, runs: Iterable[Hashable] | None) -> list:
        """The run ids ``runs`` (None: all runs) in the runs' order; a MetadataError for an
        id that is not a run, or for no run at all (a model needs measurements)."""
        mask = self.mask(runs)
        if not mask.any():
            raise MetadataError("select at least one run (no run is selected)")
        return [r for r, s in zip(self.runs, mask) if s]

    def select(self, runs: Iterable[Hashable] | None) -> pd.DataFrame:
        """Fit every model to these runs only (None: all runs); returns the new models. A
        refused selection (:meth:`check_selection`) changes nothing."""
        mask = self.mask(self.check_selection(runs))
        if self._fits is not None and (mask == self._selected).all():
            return self._fits
        fits = self.models(mask)
        self._selected, self._fits = mask, fits
        return fits

    @property
    def selected(self) -> np.ndarray:
        """The runs the models are fitted to, as a mask over :attr:`runs` (a copy)."""
        return self._selected.copy()

    @property
    def selected_runs(self) -> list:
        """The ids of the runs the models are fitted to, in the runs' order."""
        return [r for r, s in zip(self.runs, self._selected) if s]

    # ------------------------------------------------------------------ target and focus
    def default_target(self) -> float:
        """Eight times the largest parameter value (rounded to 2 significant digits)."""
        top = float(np.nanmax(self.x)) * 8 if len(self.x) else 1.0
        return float(f"{top:.2g}") if top > 0 else 1.0

    @staticmethod
    def check_target(value: Any) -> float:
        """``value`` as a parameter value to predict at: a positive finite number, else a
        ShapeError naming it."""
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ShapeError(f"target {value!r}: expected a number (a parameter value)") from None
        if not np.isfinite(v) or v <= 0:
            raise ShapeError(f"target {value!r}: expected a positive finite number")
        return v

    @property
    def target(self) -> float:
        """The parameter value predicted (a bad value is a ShapeError and changes nothing)."""
        return self._target

    @target.setter
    def target(self, value: Any) -> None:
        self._target = self.check_target(value)

    def node_id(self, node: Any) -> int:
        """The ensemble's node id of ``node``: an id, a Node, or a name only one node has;
        else a GraphError naming it (:func:`perfweave.calltree.node_lookup.find_node`)."""
        return find_node(self.names, node, "the ensemble")

    @property
    def focused(self) -> int:
        """The node looked at (by default the one whose model grows fastest, else node 0);
        assigning takes what :meth:`node_id` takes."""
        if self._focused is None:
            growth = self.models()["growth"].to_numpy()
            grows = np.isfinite(growth).any() and np.nanmax(growth) > 0
            self._focused = int(np.nanargmax(growth)) if grows else 0
        return self._focused

    @focused.setter
    def focused(self, node: Any) -> None:
        self._focused = self.node_id(node)

    @property
    def unit(self) -> str:
        """The metric's unit (the ensemble's reader's, or what the name declares)."""
        return self.ensemble.unit_of(self.metric)

    def path_text(self, node: int, width: int = 90) -> str:
        """The call path of ``node``, ``a > b > c`` (its end, when longer than ``width``)."""
        from perfweave.calltree.graph import Node

        names = [str(n) for n in Node(self.ensemble.graph, node).paths()[0]]
        text = " > ".join(names)
        return text if len(text) <= width else "..." + text[-(width - 3) :]

    # ------------------------------------------------------------------ models
    def models(self, selected: np.ndarray | None = None) -> pd.DataFrame:
        """Every node's model, with ``name`` and ``growth`` (:func:`growth_order`), indexed
        by node id: over the runs of :meth:`select` (all until then), or of the mask
        ``selected``. Fewer than 5 distinct values are fitted without a warning: the study
        refits whenever runs are unticked, and each such model's ``note`` and ``quality``
        say it (never "good")."""
        if selected is None:
            if self._fits is None:
                self._fits = self.models(self._selected)
            return self._fits
        sel = np.asarray(selected, bool)
        nodes = pd.Index(np.arange(len(self.values), dtype=np.int64), name="node")
        with _few_values_said_by_the_table():
            fits = fit_models(self.x[sel], pd.DataFrame(self.values[:, sel], index=nodes), self.agg)
        fits.insert(0, "name", self.names)
        fits["growth"] = growth_order(fits)
        return fits

    @staticmethod
    def predict(
        models: pd.DataFrame, value: float, interval: float | None = None
    ) -> pd.Series | pd.DataFrame:
        """Every model's value at ``value``; with ``interval`` (e.g. 0.9) a DataFrame of
        ``prediction``, ``low`` and ``high`` (:func:`perfweave.scaling.predict`)."""
        return predict(models, float(value), interval=interval)

    def predict_at(self, value: Any, interval: float | None = None) -> pd.Series | pd.DataFrame:
        """Every node's current model (:meth:`models`) at ``value`` (checked as a target);
        a Series indexed by node id, or with ``interval`` its DataFrame."""
        return self.predict(self.models(), self.check_target(value), interval)

    @functools.cached_property
    def never_negative(self) -> np.ndarray:
        """Per node: no measured value is below 0 (a time, a count), so a prediction below
        0 is no value (:func:`perfweave.scaling.interval.shown`)."""
        return never_negative(self.values)

    def largest(self, selected: np.ndarray | None = None) -> float:
        """The largest parameter value of the selected runs (NaN: none)."""
        sel = self._selected if selected is None else np.asarray(selected, bool)
        return float(np.max(self.x[sel])) if sel.any() else np.nan

    def past_data(self, value: float, selected: np.ndarray | None = None) -> float:
        """How far ``value`` lies past the largest measured parameter value: ``value``
        over it (above 1: a prediction there is an extrapolation)."""
        return float(value) / self.largest(selected)

    # ------------------------------------------------------------------ what a view writes
    def target_column(self, selected: np.ndarray | None = None) -> str:
        """The header of the column of predictions at the target, with how far that lies
        past the largest measured value when it does:
        ``at 2700 · 90% interval of a new run · 7.9x past data``."""
        past = self.past_data(self.target, selected)
        head = f"at {self.target:g} · {LEVEL:.0%} interval of a new run"
        return head + (f" · {past:.2g}x past data" if past > 1 else "")

    def explorer_columns(self, graph: Any = None) -> tuple[pd.DataFrame, dict[str, pd.Series]]:
        """The two columns a calltree view shows beside its tree, and their sort keys,
        indexed by the node ids of ``graph`` (the tree it shows, made from the ensemble's by
        filters, a focus, drops; None: the ensemble's own): :data:`GROWTH_COLUMN`, the
        growth term with the model's quality (a poor one marked ⚠), sorted by asymptotic
        order; and :meth:`target_column`, the prediction at the target with the interval of
        a new run, every cell in one format (a time below 0 is no value), sorted by the
        prediction."""
        return _study_views.explorer_columns(self, self.to_ensemble(graph))

    def intervals(self, models: pd.DataFrame | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) at the target of the models predicted largest there (NaN for the
        others: the bootstrap costs a few ms per model; :data:`INTERVAL_ROWS` of them)."""
        return _study_views.intervals(self, self.models() if models is None else models)

    def fit_warning(self, fits: pd.DataFrame | None = None) -> str:
        """The warning a chart of the focused node shows when a curve it draws is a poor fit
        (``""`` if none): the reason for one curve, the groups for several."""
        return _study_views.fit_warning(self, self.group_models() if fits is None else fits)

    def focus_text(self, fits: pd.DataFrame | None = None) -> FocusText:
        """What a view writes about the focused node: its path, its model (and each
        group's, from ``fits`` or :meth:`group_models`), the figures with the prediction at
        the target and its interval, how far to trust it."""
        return _study_views.focus_text(self, fits)

    # ------------------------------------------------------------------ chart
    @staticmethod
    def band(
        model: pd.DataFrame, lo: float, hi: float, level: float, points: int = 64, log: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``points`` x values between ``lo`` and ``hi`` (log-spaced when ``log``) and the
        ``low`` and ``high`` bounds there of the interval of the one model in ``model`` (a
        one-row table of :meth:`models` or :meth:`group_models`)."""
        if not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo:
            return np.array([]), np.array([]), np.array([])
        xs = np.geomspace(lo, hi, points) if log and lo > 0 else np.linspace(lo, hi, points)
        got = predict(model, xs, interval=level)
        return xs, got["low"].to_numpy()[0], got["high"].to_numpy()[0]

    def chart_data(
        self, node: int | None = None, selected: np.ndarray | None = None
    ) -> pd.DataFrame:
        """One row per run of ``node`` (default: the focused one): the parameter value, the
        metric value, the run id, its label, its group and whether it is selected (default:
        by :meth:`select`)."""
        node = self.focused if node is None else node
        sel = self._selected if selected is None else np.asarray(selected, bool)
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

    def group_models(
        self, node: int | None = None, selected: np.ndarray | None = None
    ) -> pd.DataFrame:
        """The model of ``node`` (default: the focused one) per group of selected runs (one
        row per group, indexed by the group; one row ``""`` without grouping)."""
        node = self.focused if node is None else node
        sel = self._selected if selected is None else np.asarray(selected, bool)
        groups = pd.unique(self.groups)
        rows = np.where(sel[None, :] & (self.groups[None, :] == groups[:, None]), 1.0, np.nan)
        Y = pd.DataFrame(rows * self.values[node][None, :], index=pd.Index(groups, name="group"))
        with _few_values_said_by_the_table():
            return fit_models(self.x, Y, agg=self.agg)

    def measured_range(self, log: bool = False) -> tuple[float, float]:
        """The smallest and largest parameter value of the focused node's points a chart
        draws (on a log chart those above 0; NaN, NaN: none)."""
        data = self.chart_data()
        drawn = data["value"].notna()
        if log:
            drawn &= (data["param"] > 0) & (data["value"] > 0)
        x = data.loc[drawn, "param"]
        return (float(x.min()), float(x.max())) if len(x) else (np.nan, np.nan)

    def group_curves(
        self, log: bool = False, fits: pd.DataFrame | None = None, points: int = 64
    ) -> list[GroupCurve]:
        """The focused node's model per group (``fits``, default :meth:`group_models`) as a
        chart draws it on linear or log axes: each :class:`GroupCurve` over the measured
        range, dashed on to the target, with the :data:`LEVEL` interval of a new run."""
        return _study_chart.group_curves(self, log, fits, points)

    # ------------------------------------------------------------------ trees
    def to_ensemble(self, graph: Any) -> np.ndarray | None:
        """For each node of ``graph`` (a tree a view shows), the ensemble's node id on the
        same call path (-1: none), matched once per tree (:meth:`match_nodes`); None for
        the ensemble's own tree (or None)."""
        if graph is None or graph is self.ensemble.graph:
            return None
        if self._matched is None or self._matched[0] is not graph:
            self._matched = (graph, self.match_nodes(graph))
        return self._matched[1]

    def from_view(self, graph: Any, node: int) -> int | None:
        """The ensemble's node id of node ``node`` of ``graph`` (None: not a node of it, or
        no call path of the ensemble)."""
        if not 0 <= node < len(graph if graph is not None else self.ensemble.graph):
            return None
        to_ens = self.to_ensemble(graph)
        found = node if to_ens is None else int(to_ens[node])
        return found if found >= 0 else None

    def in_view(self, graph: Any, node: int) -> int | None:
        """The first node of ``graph`` on the call path of the ensemble's ``node`` (None:
        the tree has no such call path)."""
        to_ens = self.to_ensemble(graph)
        if to_ens is None:
            return int(node)
        hits = np.flatnonzero(to_ens == node)
        return int(hits[0]) if len(hits) else None

    def match_nodes(self, graph: Any) -> np.ndarray:
        """For each node of ``graph``, a tree made from the ensemble's by filters, squashes,
        drops or a focus (as a calltree view shows it), the ensemble's node id on the same
        call path (-1: none): the core's one call-path matcher
        (:class:`perfweave.calltree.node_lookup.PathMatcher`, its keys computed once)."""
        if self._matcher is None:
            self._matcher = PathMatcher(self.ensemble.graph)
        return self._matcher.match(graph)

    @staticmethod
    def curve(model: pd.Series, lo: float, hi: float, points: int = 64, log: bool = False):
        """``points`` (x, y) of a model between ``lo`` and ``hi`` (log-spaced when ``log``)."""
        if not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo:
            return np.array([]), np.array([])
        xs = np.geomspace(lo, hi, points) if log and lo > 0 else np.linspace(lo, hi, points)
        ys = evaluate(model["c0"], model["c1"], model["p_exp"], model["log_exp"], xs)[0]
        return xs, ys


@contextlib.contextmanager
def _few_values_said_by_the_table():
    """Fits on fewer than 5 values without the FewParameterValues warning (the rows'
    ``note`` and ``quality`` say it where the study shows a model)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewParameterValues)
        yield
