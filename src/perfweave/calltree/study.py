"""CalltreeStudy: a calltree being studied, and every answer a calltree view needs.

A study holds a GraphFrame, an Ensemble or a comparison of two frames (``a - b`` beside
each side's values), the transforms applied to it (filter, squash, focus, drop:
:class:`~perfweave.calltree.steps.Step`, undone in order) and how it is shown (the
metrics, an ensemble's statistic and profile colours, what a rank spread compares, extra
columns put beside the tree). Its :attr:`~CalltreeStudy.view` is the shown frame as a
:class:`CalltreeView`: the columns, one value per node of each, the node names, the sort
keys, the spread glyph's data. The explorer widget is a view over a study; scripts and
tests use one without a widget:

>>> study = CalltreeStudy(gf)                          # doctest: +SKIP
>>> study.apply(study.filter_step("`time (inc)` > 5%"))  # doctest: +SKIP
>>> replay(study.original, study.history).graph == study.data.graph  # doctest: +SKIP
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.column_names import inclusive_name, side_name
from perfweave.calltree.compare import side_by_side
from perfweave.calltree.display import NodeNames, node_names
from perfweave.calltree.glyphs import (
    RankView,
    category_columns,
    profile_categories,
    profile_matrix,
)
from perfweave.calltree.graphframe import GraphFrame
from perfweave.calltree.node_lookup import PathMatcher, find_node, find_nodes
from perfweave.calltree.ranks import check_across
from perfweave.calltree.shown import with_inclusive
from perfweave.calltree.steps import Step, replay
from perfweave.calltree.view_columns import (
    EXTRA_KINDS,
    PLAIN_KINDS,
    STATS,
    Column,
    ExtraColumns,
    column_total,
    columns_for,
    default_metrics,
    derived_metrics,
    is_ensemble,
    node_table,
)
from perfweave.errors import GraphError, QueryError, ShapeError


def as_core(data: Any) -> Any:
    """A perfweave GraphFrame/Ensemble, converting llnl-hatchet/llnl-thicket objects."""
    from perfweave.ensemble.ensemble import Ensemble

    if isinstance(data, (GraphFrame, Ensemble)):
        return data
    kind = type(data).__module__.split(".")[0]
    if kind == "hatchet":
        return GraphFrame.from_hatchet(data)
    if kind == "thicket":
        return Ensemble.from_thicket(data)
    raise ShapeError(
        "a calltree view shows a perfweave GraphFrame or Ensemble (or an llnl-hatchet "
        f"GraphFrame / llnl-thicket Thicket), not {type(data).__name__}"
    )


def check_stat(stat: Any) -> str:
    """``stat`` if it is a statistic a view shows per node (:data:`STATS`)."""
    if stat not in STATS:
        raise ShapeError(f"unknown statistic {stat!r}; choose from {', '.join(STATS)}")
    return stat


@dataclass(frozen=True)
class CalltreeView:
    """The shown frame: its columns, their per-node values, names, sort keys and glyph."""

    data: Any
    columns: list[Column]
    table: dict[str, np.ndarray]
    #: the nodes' names, worked out as they are asked for (:attr:`names`, :meth:`names_of`)
    node_names: NodeNames
    sort_keys: dict[str, np.ndarray]
    #: an ensemble's profile matrix ({"matrix", "codes", "state"}) or a rank spread's
    glyph: dict | None
    ranks: RankView | None
    #: the column a view sorts by first (the default metric's inclusive column)
    default_sort: str

    @property
    def names(self) -> np.ndarray:
        """Every node's name (:func:`~perfweave.calltree.display.node_names`)."""
        return self.node_names.all

    def names_of(self, nodes: np.ndarray) -> np.ndarray:
        """The names of some nodes, without working out every node's (a window of rows)."""
        return self.node_names.of(nodes)

    def column(self, name: str) -> Column:
        """The shown column of a key or header label."""
        for c in self.columns:
            if name in (c.key, c.label):
                return c
        shown = ", ".join(c.key for c in self.columns)
        raise ShapeError(f"no shown column {name!r}; shown: {shown}")

    def total(self, column: Column) -> float:
        """What bars and percentages of ``column`` are relative to."""
        return column_total(column, self.table[column.key], self.data.graph.root_ids)

    def specs(self) -> list[dict[str, Any]]:
        """Every column as a page receives it (with its total and number format)."""
        return [c.spec(self.total(c), self.table[c.key]) for c in self.columns]

    def sort_values(self, key: str) -> np.ndarray:
        """The float values a view sorts rows by for column ``key`` (an extra text
        column's numeric sort key)."""
        values = self.sort_keys[key] if key in self.sort_keys else self.table[key]
        return np.asarray(values, dtype=float)

    def matching(self, pattern: str) -> np.ndarray:
        """Whether each node's name matches the regular expression ``pattern``."""
        try:
            re.compile(pattern)
        except re.error as exc:
            raise QueryError(f"search {pattern!r}: bad regular expression: {exc}") from exc
        return pd.Series(self.names).str.contains(pattern, regex=True).to_numpy(dtype=bool)

    def details(self, node: int) -> dict[str, Any]:
        """What to say about one selected node (its largest ranks), or {}."""
        if self.ranks is None:
            return {}
        return self.ranks.top(node, str(self.names_of(np.array([node]))[0]))


class CalltreeStudy:
    """A GraphFrame, Ensemble or comparison being studied (see the module text).

    ``metrics``: the columns shown (default: the inclusive then the exclusive metrics);
    ``compare``: a second GraphFrame, shown as ``data - compare`` on the union tree beside
    each side's values; ``stat``: an ensemble's statistic per node; ``glyph_metric``: the
    metric whose spread is drawn; ``color_by``: the metadata column colouring an ensemble's
    profiles; ``across``: what a frame's rank spread compares (``"ranks"`` or
    ``"threads"``). A frame with only exclusive metrics gets its inclusive columns
    (:func:`~perfweave.calltree.shown.with_inclusive`); :attr:`original` holds them.
    """

    def __init__(
        self,
        data: Any,
        metrics: Sequence[str] | None = None,
        *,
        compare: Any = None,
        stat: str = "mean",
        glyph_metric: str | None = None,
        color_by: str | None = None,
        across: str | None = None,
    ) -> None:
        given = as_core(data)
        data = _shown(given)
        derived = derived_metrics(data) if data is not given and compare is None else None
        _check_nonempty(data)
        if compare is not None:
            other = _shown(as_core(compare))
            if is_ensemble(data) or is_ensemble(other):
                raise ShapeError("compare mode takes two GraphFrames, not ensembles")
            _check_nonempty(other)
            data = side_by_side(data, other)
        check_stat(stat)
        if is_ensemble(data):
            data = data.copy()
        self.compare = compare is not None
        self.metrics = list(metrics) if metrics is not None else derived
        self.stat = stat
        self.glyph_metric = glyph_metric
        self.color_by = color_by
        self.across = across
        self.extras: ExtraColumns | None = None
        #: the frame the study was opened on (``replay(original, history)`` is :attr:`data`)
        self.original = data
        self._steps: list[Step] = []
        self._undo: list[tuple[CalltreeView, Any]] = []
        self._matrix_held: tuple | None = None  # (ensemble, metric, its profile matrix)
        self._matcher_held: PathMatcher | None = None
        self.view = self._view_of(data)

    # ------------------------------------------------------------------ state
    @property
    def mode(self) -> str:
        """``"compare"``, ``"ensemble"`` or ``"frame"``."""
        return "compare" if self.compare else "ensemble" if is_ensemble(self.data) else "frame"

    @property
    def data(self) -> Any:
        """The frame shown now (after the transforms)."""
        return self.view.data

    @property
    def history(self) -> list[Step]:
        """The transforms applied so far, in order."""
        return list(self._steps)

    @property
    def filter_query(self) -> str:
        """The query of the last filter in the history ("" when none)."""
        filters = [s.query or "" for s in self._steps if s.kind == "filter"]
        return filters[-1] if filters else ""

    def find_node(self, node: Any) -> int:
        """The one shown node meant by an id, a Node or a unique name (GraphError if none
        or several)."""
        return find_node(self.view.node_names, node)  # names only to look one up

    def find_nodes(self, nodes: Any) -> np.ndarray:
        """The shown nodes meant by ids, Nodes or names (every node of a name)."""
        return find_nodes(self.view.node_names, nodes)

    # ------------------------------------------------------------------ transforms
    def filter_step(self, query: Any, squash: bool = True) -> Step:
        """The step of a filter typed by a person: a core query; on an ensemble, a query on
        statistics (```time_std` > 0.1``) filters its statistics table."""
        if not isinstance(query, str) or not query.strip():
            raise QueryError("the filter needs a query, e.g. `time (inc)` > 5%")
        query = query.strip()
        stats = False
        if is_ensemble(self.data):
            from perfweave.ensemble.filter import statistic_columns

            stats = bool(statistic_columns(self.data, query))
        return Step("filter", query=query, squash=squash or stats, stats=stats)

    def focus_step(self, node: Any) -> Step:
        """The step keeping only ``node`` and its descendants."""
        nid = self.find_node(node)
        return Step("focus", node=nid, name=str(self.view.names_of(np.array([nid]))[0]))

    def drop_step(self, node: Any, subtree: bool = True) -> Step:
        """The step removing ``node`` with its subtree (or only the node)."""
        nid = self.find_node(node)
        name = str(self.view.names_of(np.array([nid]))[0])
        return Step("drop", node=nid, name=name, subtree=subtree)

    def apply(self, step: Step, memo: Any = None) -> CalltreeView:
        """Apply ``step`` to the shown frame; on failure nothing changes. ``memo``: what the
        caller wants back from :meth:`undo` (a view's open rows and sort)."""
        view = self._view_of(step.apply(self.data))
        self._undo.append((self.view, memo))
        self._steps.append(step)
        self.view = view
        return view

    def undo(self) -> Any:
        """Take back the last step; returns the memo given with it."""
        if not self._undo:
            raise QueryError("nothing to undo")
        self.view, memo = self._undo.pop()
        self._steps.pop()
        return memo

    def replay(self) -> Any:
        """:func:`~perfweave.calltree.steps.replay` of the history on :attr:`original`."""
        return replay(self.original, self._steps)

    # ------------------------------------------------------------------ how it is shown
    def restyle(self, **options: Any) -> CalltreeView:
        """Show the same frame with another ``stat``, ``color_by`` or ``across``; on
        failure nothing changes."""
        if "stat" in options:
            check_stat(options["stat"])
        if "across" in options:
            if self.mode != "frame":
                raise ShapeError("across is for a frame with ranks/threads; this shows more")
            check_across(self.data.index_levels, options["across"])
        if ("stat" in options or "color_by" in options) and self.mode != "ensemble":
            raise ShapeError("statistics and colors are for ensembles; this explorer shows a frame")
        before = {k: getattr(self, k) for k in options}
        for k, v in options.items():
            setattr(self, k, v)
        try:
            self.view = self._view_of(self.data)
        except Exception:
            for k, v in before.items():
                setattr(self, k, v)
            raise
        return self.view

    def set_extras(
        self, frame: Any, sort_keys: Any = None, units: Any = None, on: Any = None
    ) -> CalltreeView:
        """Put extra per-node columns beside the metrics (None removes them); they follow
        their call paths through later transforms
        (:class:`~perfweave.calltree.view_columns.ExtraColumns`). ``frame`` is indexed by
        node ids of ``on`` (a GraphFrame or Ensemble; default: the shown frame): results
        computed on :attr:`original` (a scaling model per node of the ensemble) are given
        on it and matched to the shown tree here, once per tree."""
        view = self.view
        extras = None
        if frame is not None:
            extras = ExtraColumns.of(frame, sort_keys, self._matcher(on), units)
            metric_keys = {c.key for c in view.columns if c.kind not in EXTRA_KINDS}
            clash = metric_keys & set(extras.names)
            if clash:
                raise ShapeError(
                    f"extra column {sorted(clash)[0]!r} has the name of a metric column"
                )
        columns = [c for c in view.columns if c.kind not in EXTRA_KINDS]
        table = {c.key: view.table[c.key] for c in columns}
        sort_keys_on: dict[str, np.ndarray] = {}
        if extras is not None:
            extra_cols, extra_table, sort_keys_on = extras.on(view.data.graph, view.names)
            columns += extra_cols
            table.update(extra_table)
        self.extras = extras
        self.view = replace(view, columns=columns, table=table, sort_keys=sort_keys_on)
        return self.view

    # ------------------------------------------------------------------ internals
    def _matcher(self, on: Any) -> PathMatcher:
        """The call-path matcher of the frame ``on`` (None: the shown frame), kept while
        extra columns come on the same tree (a linked view replaces them after every
        refit: the tree's path keys are computed once)."""
        data = self.data if on is None else as_core(on)
        held = self._matcher_held
        if held is not None and held.graph is data.graph:
            return held
        names = self.view.names if on is None else node_names(data.graph, data.dataframe)
        self._matcher_held = PathMatcher(data.graph, names)
        return self._matcher_held

    def _view_of(self, data: Any) -> CalltreeView:
        """``data`` as shown with the study's options (nothing of the study changes)."""
        metrics = self.metrics or default_metrics(data, self.compare)
        columns = columns_for(data, metrics, self.compare, self.stat)
        matrices: dict = {}
        table = node_table(data, columns, matrices)
        names = NodeNames(data.graph, data.dataframe)
        default = _default_sort(columns, data)
        ranks = None
        if not self.compare and not is_ensemble(data) and data.index_levels:
            metric = self.glyph_metric or default
            ranks = RankView.of(data, metric, matrices, self.across)
            columns = columns + ranks.columns
            table.update(ranks.table())
        sort_keys: dict[str, np.ndarray] = {}
        if self.extras is not None:
            extra_cols, extra_table, sort_keys = self.extras.on(data.graph, names.all)
            columns = columns + extra_cols
            table.update(extra_table)
        glyph = self._ensemble_glyph(data, metrics) if is_ensemble(data) else None
        if ranks is not None:
            glyph = {"matrix": ranks.matrix, "state": ranks.glyph_state()}
        return CalltreeView(data, columns, table, names, sort_keys, glyph, ranks, default)

    def _ensemble_glyph(self, ens: Any, metrics: Sequence[str]) -> dict:
        metric = self.glyph_metric or metrics[0]
        if metric not in ens.dataframe.columns:
            raise ShapeError(f"no metric column {metric!r} for the distribution glyph")
        held = self._matrix_held  # the same frame shown again (a restyle): reuse
        if held is not None and held[0] is ens and held[1] == metric:
            matrix = held[2]
        else:
            matrix = profile_matrix(ens, metric)
            self._matrix_held = (ens, metric, matrix)
        codes, names = profile_categories(ens, self.color_by)
        return {
            "matrix": matrix,
            "codes": codes,
            "state": {
                "metric": str(metric),
                "unit": ens.unit_of(metric),  # the tooltip's quartiles say it, as the ranks'
                "stat": self.stat,
                # readable labels (the ids are 18-digit hashes), in profile order
                "profiles": [str(label) for label in ens.labels],
                "color_by": self.color_by or "",
                "categories": names,
                "codes": codes.tolist(),
                "stats": list(STATS),
                "color_columns": category_columns(ens),
            },
        }


def _shown(data: Any) -> Any:
    """A frame as tree views show it: a frame with only exclusive metrics gets their
    inclusive columns (the core's one rule, used by ``tree()`` and the CLI too)."""
    return with_inclusive(data) if isinstance(data, GraphFrame) else data


def _check_nonempty(data: Any) -> None:
    if len(data.graph) == 0 or len(data.dataframe) == 0:
        raise GraphError("the frame has no nodes or no rows: there is nothing to explore")


def _default_sort(columns: Sequence[Column], data: Any) -> str:
    """The default metric's inclusive column (its a side when comparing), else the first
    inclusive column: the hot path then follows where the time goes."""
    preferred = inclusive_name(str(data.default_metric))
    names = {preferred, side_name(preferred, "a")}
    shown = [c for c in columns if c.kind not in ("diff", *PLAIN_KINDS)]
    for c in shown:
        if c.key in names or c.key.startswith(f"{preferred}_") or c.label == preferred:
            return c.key
    incl = [c.key for c in shown if c.kind == "inc"]
    own = [c.key for c in shown if c.key == str(data.default_metric)]
    return (incl or own or [c.key for c in shown])[0]
