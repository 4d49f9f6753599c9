"""ScalingView: Extra-P's models of every call path of a scaling study, linked to the tree.

One composite widget over :class:`perfweave.scaling.ScalingStudy`:

- the :class:`CalltreeExplorer` in ensemble mode with two more sortable columns, the growth
  term of each call path with its model's quality (sorted by asymptotic order; a poor fit
  marked ⚠) and its value predicted at ``target`` with the interval of a new measurement:
  "which call path dominates at 4096 ranks?" is a click on a header;
- a bqplot chart of the focused node (the explorer's last selected row, or
  :meth:`ScalingView.focus_node`): one point per run (colored by ``group_by``; unticked
  runs hollow, in their group's color), the fitted curve per group over the measured range, dashed on to the target,
  the interval shaded, a poor fit's warning, the model text, its error figures and
  quality, linear or log axes;
- the runs as a table with a check box each: excluding a run refits every model at once.

Every control has a Python method doing the same (``select_profiles``, ``focus_node``,
``set_target``, ``set_group_by``, ``set_log_axes``); a failed action keeps the previous view,
shows the message in the banner and, called from Python, raises the ``perfweave.errors``
exception.

    view = ScalingView(ens, param="mpi.world.size", metric="Avg time/rank")
    view.models                   # one row per node: term, coefficients, SMAPE, ...
    view.focus_node(2); view.chart_data
    view.select_profiles(ens.profiles[1:]); view.predict(4096)
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterable
from typing import Any

import ipywidgets as w
import numpy as np
import pandas as pd
import traitlets

from perfweave.calltree.numbers import ColumnFormat, axis_ticks, column_format, linear_ticks
from perfweave.errors import MetadataError, PerfweaveError, ShapeError
from perfweave.scaling import quality
from perfweave.scaling.interval import INVALID, shown
from perfweave.scaling.study import ScalingStudy
from perfweave.widgets._base import CompositeBase
from perfweave.widgets._html import format_quantity
from perfweave.widgets._transport import js_number_text

__all__ = ["ScalingView"]

#: category10, the colors of the groups of runs
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
POOR = "#c62828"  # the color of a poor fit's warning
GROWTH = "growth"  # the models' sort key of asymptotic growth (growth_order)
#: the explorer's column of growth terms with their quality (wide enough for both)
GROWTH_COLUMN = "growth term · fit quality"
#: the share of new measurements the drawn and written intervals hold
LEVEL = 0.9
#: models whose interval the explorer's column writes: those predicted largest at the target
INTERVAL_ROWS = 64

CSS = (
    "<style>.pw-scaling .widget-label{white-space:normal;height:auto;line-height:1.4}"
    ".pw-scaling-model{font-family:monospace;font-size:12px}"
    ".pw-scaling-runs .widget-checkbox{width:auto}"
    ".pw-scaling-runs .pw-head{font-weight:bold;position:sticky;top:0;z-index:1;"
    "background:var(--jp-layout-color1,#fff)}"
    ".pw-scaling-runs .pw-num{justify-self:end}"
    ".pw-scaling .bqplot .axis text{font-size:11px}</style>"
)


def _round_ticks(top: float, count: int = 5) -> list[float]:
    """About ``count`` ticks from 0 to ``top`` in steps of 1, 2 or 5 times a power of 10."""
    if not top > 0:
        return [0.0]
    power = 10.0 ** np.floor(np.log10(top / count))
    step = next(m * power for m in (1, 2, 5, 10) if top / (m * power) <= count + 1)
    return [float(v) for v in np.arange(0.0, top + step * 0.5, step)]


def _log_ticks(values: np.ndarray) -> list[float] | None:
    """Ticks of a log axis over ``values``: powers of 10 over more than 3 decades, 1-2-5
    steps over 1 to 3, 1..9 steps within one (None: nothing to span)."""
    if not len(values):
        return None
    lo, hi = float(values.min()), float(values.max())
    decades = np.log10(hi / lo) if hi > lo else 0.0
    steps = (1,) if decades > 3 else (1, 2, 5) if decades > 1 else tuple(range(1, 10))
    out = [
        m * 10.0**k
        for k in range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1)
        for m in steps
    ]
    inside = [float(f"{t:.6g}") for t in out if lo <= t <= hi]
    return inside if len(inside) >= 2 else None


def _with_interval(value: float, low: float, high: float, fmt: ColumnFormat) -> str:
    """``477.6 ms (12.5 ms – 1,651.0 ms)``: a prediction and its interval in the format of
    their column (the prediction alone where there is no interval)."""
    text = fmt.text(value)
    if not (np.isfinite(low) and np.isfinite(high)):
        return text
    return f"{text} ({fmt.text(low)} – {fmt.text(high)})"


#: the smallest plot the chart draws (its box's min width and its height, less the
#: margins): ticks are spaced for it, so that their labels never collide
PLOT_WIDTH, PLOT_HEIGHT = 360 - 90, 320 - 70
#: the height of a tick label of the y axis (11 px text)
TICK_HEIGHT = 13.0


def _label_axis(axis: Any, ticks: Any, unit: str, log: bool, vertical: bool = False) -> None:
    """Give ``axis`` the ticks whose labels keep apart, written by the column rule
    (:func:`perfweave.calltree.numbers.axis_ticks`: ``800 ms``, never ``800m``; counts as
    counts, ``1,024``); bqplot's own ticks where there are none."""
    if ticks is None or not len(ticks):
        axis.tick_values, axis.tick_labels = None, {}
        return
    length, size = (PLOT_HEIGHT, TICK_HEIGHT) if vertical else (PLOT_WIDTH, None)
    kept, labels = axis_ticks(ticks, unit, length, log, size)
    axis.tick_labels = {js_number_text(t): text for t, text in zip(kept, labels)}
    axis.tick_values = kept


def _default_target(x: np.ndarray) -> float:
    """Eight times the largest parameter value (rounded to 2 significant digits)."""
    top = float(np.nanmax(x)) * 8 if len(x) else 1.0
    return float(f"{top:.2g}") if top > 0 else 1.0


class ScalingView(CompositeBase):
    """Scaling models of every call path, the chart of one, and the runs that count.

    ``ensemble``: a perfweave Ensemble (or an llnl-thicket Thicket); ``param``: the numeric
    metadata column the runs scale over; ``metric``: the metric modelled; ``group_by``: a
    metadata column whose groups get their own color and curve; ``target``: the
    parameter value predicted (default: 8 x the largest measured).
    """

    #: the parameter value predicted in the explorer's column and drawn in the chart
    target = traitlets.Float(1.0)
    #: metadata column grouping the runs (None: one group)
    group_by = traitlets.Any(None)
    #: log (True, the default: runs span decades) or linear axes in the chart
    log_axes = traitlets.Bool(True)
    #: node id (of the ensemble) shown in the chart
    focused = traitlets.Int(0)
    #: ids of the runs the models are fitted to
    selected_profiles = traitlets.List()
    #: milliseconds the last refit of every model took (with the explorer's update)
    last_refit_ms = traitlets.Float(0.0)

    _revealing = False  # True while the view selects a row in the explorer itself
    _built = False  # the traits' observers redraw once the parts exist
    _matched: tuple | None = None  # (tree the explorer shows, its ensemble node ids)

    def __init__(
        self,
        ensemble: Any,
        param: Any = "mpi.world.size",
        metric: Any = "Avg time/rank",
        group_by: Any = None,
        *,
        target: float | None = None,
        agg: str = "mean",
        log_axes: bool = True,
        height: int = 420,
    ) -> None:
        from perfweave.widgets import _source
        from perfweave.widgets.explorer import CalltreeExplorer

        ens = _source.as_core(ensemble)
        self._study = ScalingStudy(ens, param, metric, group_by, agg=agg)
        self._selected = np.ones(len(self._study.runs), bool)
        self._models = self._study.models(self._selected)
        tgt = _default_target(self._study.x) if target is None else self._check_target(target)
        super().__init__()
        self.add_class("pw-scaling")
        self.explorer = CalltreeExplorer(ens, metrics=[metric], height=height)
        self.set_trait("target", tgt)
        self.set_trait("log_axes", bool(log_axes))
        self.set_trait("group_by", self._study.group_by)
        self.set_trait("selected_profiles", list(self._study.runs))
        self.set_trait("focused", self._initial_focus())
        self._build()
        self._update_columns()
        self._draw_chart()
        self._built = True
        self._resync()  # the controls (and the run count) from the traits
        self.explorer.observe(self._on_explorer_select, "selected_nodes")
        self.explorer.report_cursor = True
        self.explorer.observe(self._on_explorer_cursor, "cursor_node")

    # ------------------------------------------------------------------ public state
    @property
    def ensemble(self) -> Any:
        return self._study.ensemble

    @property
    def param(self) -> Any:
        return self._study.param

    @property
    def metric(self) -> Any:
        return self._study.metric

    @property
    def models(self) -> pd.DataFrame:
        """One row per node (ensemble node ids): name, model, growth term, figures."""
        return self._models

    @property
    def chart_data(self) -> pd.DataFrame:
        """One row per run of the focused node: ``param``, ``value``, ``run``, ``label``,
        ``group`` and ``selected``."""
        return self._study.chart_data(self.focused, self._selected)

    @property
    def group_models(self) -> pd.DataFrame:
        """The focused node's model per group of selected runs (the chart's curves)."""
        return self._study.group_models(self.focused, self._selected)

    def predict(self, value: float) -> pd.Series:
        """Every node's model at ``value`` (a Series indexed by node id)."""
        value = self._check_target(value)
        return self._study.predict(self._models, value)

    # ------------------------------------------------------------------ actions
    # Each action assigns a trait; its validator refuses a bad value (the banner says why,
    # the exception goes to the caller) and its observer redraws. Assigning the trait
    # directly (``view.target = 4096``) therefore does what the control and the method do.
    def focus_node(self, node: Any) -> ScalingView:
        """Show ``node`` (an ensemble node id, or a unique name) in the chart, and its row
        in the explorer (opened, selected, scrolled to)."""

        def run() -> None:
            nid = self._node_id(node)
            self.focused = nid
            self._reveal(nid)

        self._guard(run)
        return self

    def select_profiles(self, runs: Iterable[Hashable] | None) -> ScalingView:
        """Fit every model to these runs only (None: all runs) and redraw."""
        return self._assign("selected_profiles", list(self._study.runs if runs is None else runs))

    def set_target(self, value: float) -> ScalingView:
        """Predict at ``value`` (the explorer's column and the chart's dashed line)."""
        return self._assign("target", self._guard(lambda: self._check_target(value)))

    def set_group_by(self, column: Any) -> ScalingView:
        """Color the runs, and fit one curve per group, by a metadata column (None: off)."""
        return self._assign("group_by", column)

    def set_log_axes(self, log: bool = True) -> ScalingView:
        """Log (True) or linear chart axes."""
        return self._assign("log_axes", bool(log))

    def _assign(self, name: str, value: Any) -> ScalingView:
        """Set trait ``name`` as a Python-side action (its observer redraws and puts the
        controls back; a refused value raises, with the banner)."""
        self._guard(lambda: setattr(self, name, value))
        return self

    @traitlets.validate("target")
    def _valid_target(self, proposal: dict) -> float:
        return self._valid(lambda: self._check_target(proposal["value"]))

    @traitlets.validate("group_by")
    def _valid_group_by(self, proposal: dict) -> Any:
        column = proposal["value"] if proposal["value"] != "" else None
        self._valid(lambda: self._study.check_group_by(column))
        return column

    @traitlets.validate("focused")
    def _valid_focused(self, proposal: dict) -> int:
        return self._valid(lambda: self._node_id(proposal["value"]))

    @traitlets.validate("selected_profiles")
    def _valid_profiles(self, proposal: dict) -> list:
        def check() -> list:
            mask = self._study.mask(proposal["value"])
            if not mask.any():
                raise MetadataError("select at least one run (no run is selected)")
            return [r for r, s in zip(self._study.runs, mask) if s]  # in the runs' order

        return self._valid(check)

    def _valid(self, check: Any) -> Any:
        """``check()``, with a refused value shown in the banner as well as raised."""
        try:
            return check()
        except PerfweaveError as exc:
            self._failed(exc)
            raise

    @traitlets.observe("target", "group_by", "log_axes", "focused", "selected_profiles")
    def _apply(self, change: dict) -> None:
        if not self._built:
            return
        name = change["name"]
        if name == "selected_profiles":
            mask = self._study.mask(change["new"])
            if (mask == self._selected).all():  # set by the refit itself
                return
            self._refit(mask)
        elif name == "target":
            self._update_columns()
        elif name == "group_by":
            self._study.set_group_by(change["new"])
            self._draw_runs()
        if name != "selected_profiles":
            self._draw_chart()
        self._succeeded()
        self._resync()

    def _reveal(self, nid: int) -> None:
        """Select the explorer's row of ensemble node ``nid`` and bring it into view, unless
        it is the row the person just chose there (or the explorer's tree has no such
        call path)."""
        to_ens = self._shown_to_ensemble()
        shown = np.flatnonzero(to_ens == nid) if to_ens is not None else np.array([nid])
        if not len(shown) or self.explorer.selected_nodes == [int(shown[0])]:
            return
        self._revealing = True
        try:
            self.explorer.reveal(int(shown[0]))
        finally:
            self._revealing = False

    # ------------------------------------------------------------------ internals
    def _check_target(self, value: Any) -> float:
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ShapeError(f"target {value!r}: expected a number (a parameter value)") from None
        if not np.isfinite(v) or v <= 0:
            raise ShapeError(f"target {value!r}: expected a positive finite number")
        return v

    def _initial_focus(self) -> int:
        """The node that grows fastest (else node 0)."""
        growth = self._models[GROWTH].to_numpy()
        if np.isfinite(growth).any() and np.nanmax(growth) > 0:
            return int(np.nanargmax(growth))
        return 0

    def _node_id(self, node: Any) -> int:
        n = len(self._study.names)
        if isinstance(node, (int, np.integer)) and not isinstance(node, bool):
            if 0 <= int(node) < n:
                return int(node)
            raise ShapeError(f"no node {node} (the ensemble has nodes 0..{n - 1})")
        if hasattr(node, "nid"):
            return self._node_id(int(node.nid))
        hits = np.flatnonzero(self._study.names == str(node))
        if len(hits) == 1:
            return int(hits[0])
        if not len(hits):
            raise ShapeError(f"no node named {node!r}")
        raise ShapeError(f"{len(hits)} nodes are named {node!r}: give a node id ({hits[:5]})")

    def _refit(self, mask: np.ndarray) -> None:
        """Refit every model to the runs of ``mask``; the explorer's columns are replaced
        before anything else changes (if that fails, the view stays as it was)."""
        t0 = time.perf_counter()
        models = self._study.models(mask)
        self._update_columns(models, mask)
        self._selected = mask
        self._models = models
        self.set_trait("selected_profiles", [r for r, s in zip(self._study.runs, mask) if s])
        self._draw_chart()
        self.last_refit_ms = (time.perf_counter() - t0) * 1000

    def _shown_to_ensemble(self) -> np.ndarray | None:
        """For each node of the tree the explorer shows now, its ensemble node id (-1: none);
        None while the explorer shows the ensemble's own tree."""
        shown = self.explorer.graphframe.graph
        if shown is self._study.ensemble.graph:
            return None
        if self._matched is None or self._matched[0] is not shown:  # once per shown tree
            self._matched = (shown, self._study.match_nodes(shown))
        return self._matched[1]

    def target_column(self, selected: np.ndarray | None = None) -> str:
        """The header of the explorer's column of predictions at the target, with how far
        that lies past the largest measured value when it does:
        ``at 2700 · 90% interval of a new run · 7.9x past data``."""
        past = self._study.past_data(self.target, self._selected if selected is None else selected)
        head = f"at {self.target:g} · {LEVEL:.0%} interval of a new run"
        return head + (f" · {past:.2g}x past data" if past > 1 else "")

    def _extra_columns(
        self, models: pd.DataFrame, selected: np.ndarray
    ) -> tuple[pd.DataFrame, dict, dict]:
        """The explorer's extra columns, indexed by the node ids of the tree it shows: the
        growth term with the model's quality (a poor one marked ⚠), and the prediction at
        the target with its interval (a time below 0 is no value)."""
        has = models["reason"] == ""
        growth = (
            models["term"] + " · " + models["quality"].where(models["quality"] != "poor", "⚠ poor")
        )
        at = self._study.predict(models, self.target)
        low, high = self._interval(models, at)
        value, low, high, invalid = shown(at, low, high, self._study.never_negative)
        # one format for the column: its predictions and intervals (never 1,616 s over 507.9 s)
        written = has.to_numpy() & ~np.asarray(invalid, dtype=bool)
        fmt = column_format(np.concatenate([a[written] for a in (value, low, high)]), self._unit)
        texts = [_with_interval(v, lo, hi, fmt) for v, lo, hi in zip(value, low, high)]
        texts = np.where(invalid, INVALID, np.asarray(texts, dtype=object))
        column = self.target_column(selected)
        frame = pd.DataFrame(
            {GROWTH_COLUMN: growth.where(has, None), column: pd.Series(texts, index=models.index)}
        )
        frame[column] = frame[column].where(has, None)
        keys = pd.DataFrame({GROWTH_COLUMN: models[GROWTH], column: value}, index=models.index)
        to_ens = self._shown_to_ensemble()
        if to_ens is not None:  # the explorer filtered, focused or dropped: match by path
            found = to_ens >= 0
            frame = frame.iloc[to_ens[found]].set_axis(np.flatnonzero(found))
            keys = keys.iloc[to_ens[found]].set_axis(frame.index)
        return frame, {GROWTH_COLUMN: keys[GROWTH_COLUMN], column: keys[column]}, {}

    def _interval(self, models: pd.DataFrame, at: pd.Series) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) at the target of the :data:`INTERVAL_ROWS` models predicted largest
        there (NaN for the others: the bootstrap costs a few ms per model; the chart draws
        the focused node's interval whatever its rank)."""
        low = np.full(len(models), np.nan)
        high = low.copy()
        has = (models["reason"] == "").to_numpy()
        valid = np.where(has & ~(at.to_numpy() < 0), at.to_numpy(), -np.inf)
        rows = np.argsort(-valid, kind="stable")[:INTERVAL_ROWS]
        rows = np.sort(rows[has[rows]])
        if len(rows):
            got = self._study.predict(models.iloc[rows], self.target, interval=LEVEL)
            low[rows], high[rows] = got["low"].to_numpy(), got["high"].to_numpy()
        return low, high

    @property
    def _unit(self) -> str:
        """The metric's unit (the ensemble's reader's, or what the name declares)."""
        return self._study.ensemble.unit_of(self.metric)

    def _update_columns(self, models: pd.DataFrame | None = None, selected=None) -> None:
        frame, keys, units = self._extra_columns(
            self._models if models is None else models,
            self._selected if selected is None else selected,
        )
        self.explorer.set_extra_columns(frame, sort_keys=keys, units=units)

    def _on_explorer_select(self, change: dict) -> None:
        if change["new"] and not self._revealing:
            self._follow(int(change["new"][-1]))

    def _on_explorer_cursor(self, change: dict) -> None:
        if change["new"] >= 0:
            self._follow(int(change["new"]))

    def _follow(self, nid: int) -> None:
        """Chart the explorer's node ``nid`` (of the tree it shows now)."""
        if not 0 <= nid < len(self.explorer.graphframe.graph):
            return
        to_ens = self._shown_to_ensemble()
        if to_ens is not None:
            nid = int(to_ens[nid])
            if nid < 0:
                return
        # the explorer's own row: charted, not revealed again (the cursor moves freely)
        self._from_control(lambda: setattr(self, "focused", nid))

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        import bqplot as bq

        self._target_box = w.FloatText(
            value=self.target, description="target", layout=w.Layout(width="180px")
        )
        self._target_box.observe(
            lambda c: self._from_control(lambda: self.set_target(c["new"])), "value"
        )
        self._axes_box = w.ToggleButtons(
            options=[("linear", False), ("log", True)], value=self.log_axes
        )
        self._axes_box.style.button_width = "60px"
        self._axes_box.observe(
            lambda c: self._from_control(lambda: self.set_log_axes(c["new"])), "value"
        )
        meta_cols = [str(c) for c in self._study.ensemble.metadata.columns]
        # "" stands for no grouping: a Dropdown shows a value of None as no choice at all
        self._group_box = w.Dropdown(
            options=[("(none)", "")] + [(c, c) for c in meta_cols],
            value=self.group_by or "",
            description="color by",
            layout=w.Layout(width="260px"),
        )
        self._group_box.observe(
            lambda c: self._from_control(lambda: self.set_group_by(c["new"] or None)), "value"
        )
        self._title = w.Label(layout=w.Layout(width="100%"))
        self._model_text = w.Label(layout=w.Layout(width="100%"))
        self._model_text.add_class("pw-scaling-model")
        self._figures = w.Label(layout=w.Layout(width="100%"))
        self._quality = w.Label(layout=w.Layout(width="100%"))
        self._quality.add_class("pw-scaling-quality")
        self.chart = bq.Figure(
            marks=[],
            axes=[],
            fig_margin={"top": 20, "bottom": 50, "left": 70, "right": 20},
            layout=w.Layout(width="100%", height="320px"),
            legend_location="top-left",
            padding_x=0.03,  # a point at the edge of the range is drawn whole
            padding_y=0.05,
        )
        self.chart.add_class("pw-scaling-chart")
        self._runs_box = w.GridBox(
            layout=w.Layout(
                width="100%",  # wider tables scroll inside the panel
                max_height="240px",
                overflow="auto",
                grid_gap="0 14px",
                align_items="center",
                align_content="flex-start",  # a long table scrolls from its header
                grid_auto_rows="max-content",  # rows of labels keep their height
            )
        )
        self._runs_box.add_class("pw-scaling-runs")
        self._all_button = w.Button(description="all runs", layout=w.Layout(width="90px"))
        self._all_button.on_click(lambda _b: self._from_control(lambda: self.select_profiles(None)))
        self._runs_note = w.Label()
        self._draw_runs()
        controls = w.HBox([self._target_box, self._axes_box, self._group_box])
        chart_box = w.VBox(
            [self._title, self.chart, self._model_text, self._figures, self._quality],
            layout=w.Layout(flex="1 1 420px", min_width="360px"),
        )
        runs = w.VBox(
            [w.HBox([self._all_button, self._runs_note]), self._runs_box],
            layout=w.Layout(flex="1 1 360px", min_width="260px"),
        )
        below = w.Box(
            [chart_box, runs],
            layout=w.Layout(display="flex", flex_flow="row wrap", width="100%"),
        )
        self._set_children(w.HTML(CSS), controls, self.explorer, below)

    def _sync_controls(self) -> None:
        if not hasattr(self, "_target_box"):  # not built yet
            return
        self._target_box.value = self.target
        self._axes_box.value = self.log_axes
        self._group_box.value = self.group_by or ""
        for box, sel in zip(self._run_boxes, self._selected):
            box.value = bool(sel)
        self._runs_note.value = f"{int(self._selected.sum())} of {len(self._selected)} runs fitted"

    def _draw_runs(self) -> None:
        """The run table (:meth:`ScalingStudy.run_table`): a check box per run with its
        parameter value (or label), then its group and the metadata that tell runs apart."""
        study = self._study
        table = study.run_table(max_columns=3)
        param = str(study.param)
        # a label that only repeats the parameter ("mpi.world.size=27") gives way to it
        plain = all(
            lab == f"{param}={x:g}" for lab, x in zip(table["label"], table[param].to_numpy())
        )
        first = param if plain else "run"
        columns = [c for c in table.columns if c != "label" and not (plain and c == param)]
        auto = w.Layout(width="auto")  # one layout model for every cell: as wide as its text
        cells: list[w.Widget] = [self._cell(first, auto, head=True)]
        cells += [self._cell(c, auto, head=True) for c in columns]
        at = {run: k for k, run in enumerate(study.runs)}
        self._run_boxes = [None] * len(study.runs)
        for run, row in table.iterrows():
            k = at[run]
            text = f"{row[param]:g}" if plain else str(row["label"])
            box = w.Checkbox(
                value=bool(self._selected[k]), description=text, indent=False, layout=auto
            )
            box.observe(self._on_run_box, "value")
            self._run_boxes[k] = box
            cells.append(box)
            cells += [self._cell(row[c], auto) for c in columns]
        self._runs_box.children = cells
        self._runs_box.layout.grid_template_columns = " ".join(["max-content"] * (1 + len(columns)))

    @staticmethod
    def _cell(value: Any, layout: w.Layout, head: bool = False) -> w.Label:
        """One cell of the run table: a header, a number (4 significant digits, right) or
        text (cut at 28 characters; the whole in its tooltip)."""
        number = isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
        if number and float(value).is_integer():
            text = f"{int(value):,}"
        else:
            text = format_quantity(float(value)) if number else str(value)
        short = text if len(text) <= 28 else text[:27] + "…"
        cell = w.Label(short, tooltip=text if short != text else None, layout=layout)
        cell.add_class("pw-head" if head else "pw-num" if number else "pw-text")
        return cell

    def _on_run_box(self, _change: dict) -> None:
        if self._syncing:
            return
        mask = np.array([b.value for b in self._run_boxes], bool)
        runs = [r for r, s in zip(self._study.runs, mask) if s]
        self._from_control(lambda: self.select_profiles(runs))

    def _draw_chart(self) -> None:
        """Points of the focused node per run, a curve per group, dashed to the target, the
        interval of new measurements as a band, a poor fit's warning in the chart.

        Scales, axes and marks are bqplot widgets: they are made once per kind and then only
        given new data, so a redraw sends a few arrays instead of new widget models."""
        if not hasattr(self, "chart"):  # not built yet
            return
        log = self.log_axes
        sx, sy, ax_x, ax_y = self._axes(log)
        data = self.chart_data
        positive = (data["param"] > 0) & (data["value"] > 0) if log else data["value"].notna()
        data = data[positive & data["value"].notna()]
        fits = self.group_models
        groups = list(fits.index)
        colors = {g: PALETTE[i % len(PALETTE)] for i, g in enumerate(groups)}
        lo = float(data["param"].min()) if len(data) else np.nan
        hi = float(data["param"].max()) if len(data) else np.nan
        nonnegative = bool(self._study.never_negative[self.focused])
        # the same marks every time (empty where there is nothing to draw): a redraw then
        # only sends data, never new mark models for the page to build
        none = np.zeros(0)
        bands: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        specs: list[tuple[str, dict]] = []
        for i, g in enumerate(groups):
            fit = fits.iloc[i]
            name = str(g) if self._study.group_by is not None else "fit"
            curve = extra = (none, none)
            band = (none, none, none)
            if fit["reason"] == "":
                curve = ScalingStudy.curve(fit, lo, hi, log=log)
                if self.target > hi:
                    extra = ScalingStudy.curve(fit, hi, self.target, log=log)
                band = ScalingStudy.band(fits.iloc[[i]], lo, max(hi, self.target), LEVEL, log=log)
                xs, low, high = band
                low, high = shown(np.zeros_like(low), low, high, nonnegative)[1:3]
                band = (xs, low, high)
                if log:  # a log axis has no place for values at or below 0: a gap
                    curve, extra = ((xs, np.where(ys > 0, ys, np.nan)) for xs, ys in (curve, extra))
            bands.append(band)
            style = {"colors": [colors[g]]}
            legend = self._study.group_by is not None  # a legend names the groups' colors
            specs.append(
                (
                    "fit",
                    {"x": curve[0], "y": curve[1], **style, "labels": [name],
                     "display_legend": legend},
                )
            )  # fmt: skip
            specs.append(("extrapolation", {"x": extra[0], "y": extra[1], **style}))
        for g in groups:
            pts = data[(data["group"] == g) & data["selected"]]
            xy = {"x": pts["param"].to_numpy(), "y": pts["value"].to_numpy()}
            specs.append(("runs", {**xy, "colors": [colors[g]]}))
        for g in groups:  # unticked runs: hollow rings in their group's color
            out = data[(data["group"] == g) & ~data["selected"]]
            xy = {"x": out["param"].to_numpy(), "y": out["value"].to_numpy()}
            specs.append(("excluded", {**xy, "colors": [colors[g]]}))
        drawn = np.concatenate(
            [np.asarray(v["y"], float) for _, v in specs] + [b[1] for b in bands]
        )
        floor = np.nanmin(drawn[drawn > 0]) if log and (drawn > 0).any() else 0.0
        band_specs = []
        for g, (xs, low, high) in zip(groups, bands):
            if log:  # a bound at 0 is the bottom of the chart; no band where high <= 0
                low = np.where(high > 0, np.maximum(low, floor), np.nan)
                high = np.where(high > 0, high, np.nan)
            y = np.vstack([low, high]) if len(xs) else np.zeros((2, 0))
            band_specs.append(("band", {"x": xs, "y": y, "fill_colors": [colors[g]]}))
        warning = self._warning(fits)
        specs = band_specs + specs + [("quality", {"text": [warning]})]
        marks = self._marks([kind for kind, _ in specs], sx, sy)
        if log:  # ticks at the measured scales and the target (d3's log ticks crowd)
            ticks = sorted({*self._study.x[self._study.x > 0].tolist(), self.target})
        else:  # round steps from 0 (bqplot spreads num_ticks over its padded domain)
            ticks = _round_ticks(max(hi if np.isfinite(hi) else 0.0, self.target))
        with self.chart.hold_sync():
            for mark, (_, values) in zip(marks, specs):
                with mark.hold_sync():
                    for name, value in values.items():
                        setattr(mark, name, value)
            _label_axis(ax_x, ticks, "", log)
            ys = [np.ravel(np.asarray(v["y"], float)) for k, v in specs if k != "quality"]
            values = np.concatenate(ys or [none])
            values = values[np.isfinite(values) & ((values > 0) if log else True)]
            if log:  # d3's log ticks crowd a span of a few decades (2, 1, 900m, 800m, ...)
                y_ticks = _log_ticks(values) or sorted({values.min(), values.max()})
            else:
                y_ticks = linear_ticks(values.min(), values.max()) if len(values) else None
            _label_axis(ax_y, y_ticks, self._unit, log, vertical=True)
            if list(self.chart.marks) != marks:
                self.chart.marks = marks
            if list(self.chart.axes) != [ax_x, ax_y]:
                self.chart.axes = [ax_x, ax_y]
        self._write_model(fits)

    def _warning(self, fits: pd.DataFrame) -> str:
        """The text drawn in the chart when a curve it shows is a poor fit ("" if none)."""
        poor = fits[(fits["reason"] == "") & (fits["quality"] == "poor")]
        if not len(poor):
            return ""
        if self._study.group_by is None:
            row = poor.iloc[0]
            why = quality.explain(row["smape"], row["ar2"], row["n"], row["c1"] == 0)
            return f"⚠ {why.replace('poor: ', 'poor fit: ')}"
        return "⚠ poor fit: " + ", ".join(str(g) for g in poor.index)

    def _write_model(self, fits: pd.DataFrame) -> None:
        """The texts under the chart: the focused node's path, model, figures with the
        prediction at the target and its interval, and the model's quality."""
        node = self.focused
        row = self._models.loc[node]
        self._title.value = f"node {node}: {self._path(node)}"
        self._quality.value = ""
        if row["reason"]:
            self._model_text.value = f"no model: {row['reason']}"
            self._figures.value = ""
        else:
            got = self._study.predict(self._models.loc[[node]], self.target, interval=LEVEL)
            value, low, high, invalid = shown(
                got["prediction"], got["low"], got["high"], self._study.never_negative[[node]]
            )
            kind = " (constant)" if row["c1"] == 0 else " (decreasing)" if row["c1"] < 0 else ""
            self._model_text.value = f"model: {row['model']}{kind}"
            if invalid[0]:
                said = f"{INVALID} (the shrinking model crosses 0 before {self.target:g})"
            else:
                said = format_quantity(value[0], self._unit)
                if np.isfinite(low[0]):
                    said += (
                        f", {LEVEL:.0%} interval {format_quantity(low[0], self._unit)} – "
                        f"{format_quantity(high[0], self._unit)} (shaded)"
                    )
            past = self._study.past_data(self.target, self._selected)
            if past > 1:
                largest = self._study.largest(self._selected)
                said += f"; ⚠ {past:.2g}x past the largest measured ({largest:g})"
            self._figures.value = (
                f"SMAPE {row['smape']:.1f}%  AR2 {row['ar2']:.3f}  ({row['n']} scales)  ·  at "
                f"{self.param}={self.target:g}: {said}"
            )
            why = quality.explain(row["smape"], row["ar2"], row["n"], row["c1"] == 0)
            poor = row["quality"] == "poor"
            self._quality.value = (
                f"⚠ {why}: do not trust its predictions" if poor else f"quality {why}"
            )
            self._quality.style.text_color = POOR if poor else None
            self._quality.style.font_weight = "bold" if poor else ""
        if self._study.group_by is not None:  # the curves drawn: one model per group
            each = [
                f"{g}: {fit['model'] if not fit['reason'] else 'no model'}"
                + (f" ({fit['quality']})" if not fit["reason"] else "")
                for g, fit in fits.iterrows()
            ]
            self._model_text.value = (
                f"{self._model_text.value} (all runs)  ·  by {self._study.group_by}: "
                + ";  ".join(each)
            )

    def _axes(self, log: bool):
        """The (x scale, y scale, x axis, y axis) of linear or log axes, made once each."""
        import bqplot as bq

        cache = self.__dict__.setdefault("_axes_cache", {})
        if log not in cache:
            # a linear x axis starts at 0: scales are counts of ranks or sizes
            sx, sy = (
                (bq.LogScale(), bq.LogScale())
                if log
                else (bq.LinearScale(min=0.0), bq.LinearScale())
            )
            # tick labels are set with the ticks (_label_axis: "800 ms", "1,024"); the
            # format is bqplot's fallback only, never an SI suffix ("800m")
            fmt = {"tick_format": ",~r"} if log else {"tick_format": ",~r", "num_ticks": 6}
            ax_x = bq.Axis(scale=sx, label=str(self.param), **fmt)
            ax_y = bq.Axis(
                scale=sy, orientation="vertical", tick_format=",~r", label_offset="55px",
                label=str(self.metric),  # each tick says its unit
            )  # fmt: skip
            cache[log] = (sx, sy, ax_x, ax_y)
        return cache[log]

    def _marks(self, kinds: list[str], sx: Any, sy: Any) -> list[Any]:
        """Marks of the given kinds on these scales: the current ones when they are of the
        same kinds and scales, new ones otherwise."""
        import bqplot as bq

        current = list(self.chart.marks)
        same = len(current) == len(kinds) and all(
            getattr(m, "_pw_kind", None) == k and m.scales["x"] is sx
            for m, k in zip(current, kinds)
        )
        if same:
            return current
        scales = {"x": sx, "y": sy}
        made = []
        for kind in kinds:
            if kind == "fit":
                mark = bq.Lines(x=[], y=[], scales=scales, stroke_width=2)
            elif kind == "extrapolation":
                mark = bq.Lines(x=[], y=[], scales=scales, stroke_width=2, line_style="dashed")
            elif kind == "runs":
                tip = bq.Tooltip(fields=["x", "y"], labels=[str(self.param), "value"])
                mark = bq.Scatter(
                    x=[], y=[], scales=scales, default_size=48, stroke="white", tooltip=tip
                )
            elif kind == "excluded":  # a ring: the run is not in the fit
                tip = bq.Tooltip(fields=["x", "y"], labels=[str(self.param), "unticked"])
                mark = bq.Scatter(
                    x=[], y=[], scales=scales, default_size=48, fill=False, stroke_width=2,
                    tooltip=tip,
                )  # fmt: skip
            elif kind == "band":  # the interval of new measurements, under the curves
                mark = bq.Lines(
                    x=[], y=[[], []], scales=scales, fill="between", fill_opacities=[0.16],
                    stroke_width=0, opacities=[0.0, 0.0],
                )  # fmt: skip
            else:  # "quality": a poor fit's warning, at the chart's top left
                place = {
                    "x": bq.LinearScale(min=0.0, max=1.0),
                    "y": bq.LinearScale(min=0.0, max=1.0),
                }
                mark = bq.Label(
                    x=[0.02], y=[0.95], text=[""], scales=place, colors=[POOR], default_size=13,
                    font_weight="bold", align="start",
                )  # fmt: skip
            mark._pw_kind = kind
            made.append(mark)
        return made

    def _path(self, node: int) -> str:
        from perfweave.calltree.graph import Node

        names = [str(n) for n in Node(self._study.ensemble.graph, node).paths()[0]]
        text = " > ".join(names)
        return text if len(text) <= 90 else "..." + text[-87:]
