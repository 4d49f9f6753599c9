"""A scaling study of an ensemble: the models of every node over chosen runs, and the
points and curves of one node per group of runs.

:class:`ScalingStudy` holds an ensemble's metric as a (nodes, runs) matrix and the runs'
parameter values once, so that refitting every model after a change of the runs that
count is one :func:`fit_models` call on the chosen columns (no ensemble is rebuilt). It is
the computation behind :class:`perfweave.widgets.ScalingView`, usable without widgets.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from perfweave.errors import MetadataError
from perfweave.scaling.fit import FewParameterValues, fit_models
from perfweave.scaling.interval import never_negative
from perfweave.scaling.model import evaluate, growth_order, predict


class ScalingStudy:
    """``metric`` of every node of ``ensemble`` over the metadata column ``param``.

    ``group_by`` (a metadata column, optional) splits the runs into groups, each with its
    own curve in :meth:`group_models`.
    """

    def __init__(
        self, ensemble: Any, param: Any, metric: Any, group_by: Any = None, agg: str = "mean"
    ) -> None:
        from perfweave.ensemble.models import is_param_list, metric_matrix, parameter

        if is_param_list(ensemble, param):
            if len(param) != 1:
                raise MetadataError(
                    f"a scaling study (ScalingView) models one parameter, not {len(param)} "
                    f"({', '.join(repr(p) for p in param)}); for multi-parameter models use "
                    "Ensemble.models(metric, param=[...]) or perfweave.fit_models"
                )
            (param,) = param
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
        self._keys: np.ndarray | None = None  # call-path keys of the ensemble's nodes

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
        meta = self.ensemble.metadata
        order = np.argsort(self.x, kind="stable")
        table = pd.DataFrame({"label": self.labels}, index=pd.Index(self.runs, name="run"))
        table[str(self.param)] = self.x
        if self.group_by is not None:
            table[str(self.group_by)] = self.groups
        shown = {str(self.param), str(self.group_by)}
        extra = 0
        for column in meta.columns:
            if extra == max_columns:
                break
            if str(column) in shown:
                continue
            values = meta[column]
            if values.map(lambda v: isinstance(v, (list, tuple, dict, set))).any():
                continue  # a list of libraries tells no run apart at a glance
            text = values.astype(str)
            if text.nunique() < 2:
                continue
            numbers = pd.to_numeric(values, errors="coerce")
            if numbers.notna().all() and np.array_equal(numbers.to_numpy(float), self.x):
                continue  # another name for the parameter (jobsize = mpi.world.size)
            if str(column) == "file":
                values = pd.Series(_distinct_parts(text.tolist()), index=values.index)
                if (values.to_numpy() == self.labels).all():
                    continue  # the labels say it already (RAJAPerf: gcc10.3.1_1048576/O3/3)
            elif "date" in str(column).lower() and _epoch_seconds(numbers):
                values = pd.to_datetime(numbers, unit="s").dt.strftime("%Y-%m-%d %H:%M:%S")
            table[str(column)] = values.to_numpy()
            extra += 1
        return table.iloc[order]

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
        ``growth`` (:func:`growth_order`), indexed by node id. Fewer than 5 distinct values
        are fitted without a warning: the study refits whenever runs are unticked, and each
        such model's ``note`` and ``quality`` say it (never "good")."""
        sel = np.ones(len(self.runs), bool) if selected is None else np.asarray(selected, bool)
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

    @functools.cached_property
    def never_negative(self) -> np.ndarray:
        """Per node: no measured value is below 0 (a time, a count), so a prediction below
        0 is no value (:func:`perfweave.scaling.interval.shown`)."""
        return never_negative(self.values)

    def largest(self, selected: np.ndarray | None = None) -> float:
        """The largest parameter value of the selected runs (NaN: none)."""
        sel = np.ones(len(self.runs), bool) if selected is None else np.asarray(selected, bool)
        return float(np.max(self.x[sel])) if sel.any() else np.nan

    def past_data(self, value: float, selected: np.ndarray | None = None) -> float:
        """How far ``value`` lies past the largest measured parameter value: ``value``
        over it (above 1: a prediction there is an extrapolation)."""
        return float(value) / self.largest(selected)

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
        Y = pd.DataFrame(rows * self.values[node][None, :], index=pd.Index(groups, name="group"))
        with _few_values_said_by_the_table():
            return fit_models(self.x, Y, agg=self.agg)

    def match_nodes(self, graph: Any) -> np.ndarray:
        """For each node of ``graph``, a tree made from the ensemble's by filters, squashes,
        drops or a focus (as a calltree view shows it), the ensemble's node id on the same
        call path (-1: none). A node that became a root (a focus) is matched with the
        ensemble's node of that name whose subtree matches best."""
        from perfweave.calltree.display import path_keys
        from perfweave.ensemble._subgraph import subgraph

        own = self.ensemble.graph
        if graph is own:
            return np.arange(len(own), dtype=np.int64)
        if self._keys is None:
            self._keys = path_keys(own)
        keys = path_keys(graph)
        out = _lookup(self._keys, np.arange(len(own)), keys)
        if (out >= 0).all():
            return out
        names = np.asarray(graph.frames["name"].astype(str)) if "name" in graph.frames else None
        roots = [r for r in np.flatnonzero(np.asarray(graph.parent) < 0) if out[r] < 0]
        depth = np.asarray(own.depth)
        for r in roots[:20]:
            if names is None:
                break
            best, best_hits = None, 0
            for c in np.flatnonzero(self.names == names[r])[:50]:
                after = np.flatnonzero(depth[c + 1 :] <= depth[c])
                stop = c + 1 + (after[0] if len(after) else len(own) - c - 1)
                keep = np.zeros(len(own), bool)
                keep[c:stop] = True  # a subtree is contiguous in preorder
                sub, old_to_new = subgraph(own, keep)
                new_to_old = np.empty(len(sub), np.int64)
                new_to_old[old_to_new[keep]] = np.flatnonzero(keep)
                hits = _lookup(path_keys(sub), new_to_old, keys)
                count = int(((hits >= 0) & (out < 0)).sum())
                if count > best_hits:
                    best, best_hits = hits, count
            if best is not None:
                out = np.where((out < 0) & (best >= 0), best, out)
        return out

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


def _distinct_parts(paths: list[str]) -> list[str]:
    """The paths without the folders and file names they all share: ``27_cores.cali`` for
    ``.../mpi_scaling/27_cores.cali``, ``gcc10.3.1_1048576/O3/3`` for
    ``.../quartz/gcc10.3.1_1048576/O3/3/Base_Seq-default.cali``."""
    parts = [p.replace("\\", "/").split("/") for p in paths]
    shortest = min(len(p) for p in parts)
    head = 0
    while head < shortest - 1 and len({p[head] for p in parts}) == 1:
        head += 1
    tail = 0
    while tail < shortest - head - 1 and len({p[-1 - tail] for p in parts}) == 1:
        tail += 1
    return ["/".join(p[head : len(p) - tail]) for p in parts]


def _epoch_seconds(numbers: pd.Series) -> bool:
    """Whether the numbers read as Unix times of this era (2001 .. 2096)."""
    return bool(numbers.notna().all() and numbers.between(1e9, 4e9).all())


def _lookup(keys: np.ndarray, ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """``ids`` at the positions of ``wanted`` in ``keys`` (the first of repeated keys; -1
    where absent)."""
    table = pd.Series(np.asarray(ids, dtype=np.int64), index=keys)
    table = table[~table.index.duplicated()]
    return table.reindex(wanted).fillna(-1).to_numpy(dtype=np.int64)
