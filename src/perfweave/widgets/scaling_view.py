"""ScalingView: Extra-P's models of every call path of a scaling study, linked to the tree.

A thin view over :class:`perfweave.scaling.ScalingStudy`, which holds the study (the runs the
models are fitted to, the target, the focused node, the grouping) and answers every question
asked here. Composite widget (ipywidgets and bqplot):

- the :class:`CalltreeExplorer` in ensemble mode with two more sortable columns, the growth
  term of each call path with its model's quality (sorted by asymptotic order; a poor fit
  marked ⚠) and its value predicted at ``target`` with the interval of a new measurement:
  "which call path dominates at 4096 ranks?" is a click on a header;
- the chart of the focused node (the explorer's last selected row, its keyboard cursor, or
  :meth:`ScalingView.focus_node`; ``_scaling_chart.py``);
- the runs as a table with a check box each: excluding a run refits every model at once.

Every control has a Python method doing the same (``select_profiles``, ``focus_node``,
``set_target``, ``set_group_by``, ``set_log_axes``), and assigning a trait does it too; each
takes the one action path (:func:`perfweave.widgets._base.action`): a refused value keeps the
previous view, shows the message in the banner and, from Python, raises the
``perfweave.errors`` exception.

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

from perfweave.calltree.numbers import format_quantity
from perfweave.errors import ShapeError
from perfweave.scaling import ScalingStudy
from perfweave.scaling.flame import PredictedFlame
from perfweave.scaling.study import GROWTH_COLUMN
from perfweave.widgets._base import CompositeBase, action, static_file
from perfweave.widgets._scaling_chart import PLOT_WIDTH, ScalingChart
from perfweave.widgets.flame import FlameGraph

__all__ = ["GROWTH_COLUMN", "PLOT_WIDTH", "ScalingView"]

#: the view's style sheet (every rule inside ``.pw-scaling``)
CSS = f"<style>{static_file('scaling_view.css').read_text(encoding='utf-8')}</style>"


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
    #: what the middle shows: the calltree ("tree") or the flame graph at the target
    #: ("flame": each node's exclusive value predicted by its model, FlameGraph.at_scale)
    shown = traitlets.Unicode("tree")

    _revealing = False  # True while the view selects a row in the explorer itself
    _built = False  # the traits' observers redraw once the parts exist

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
        from perfweave.calltree.study import as_core
        from perfweave.widgets.explorer import CalltreeExplorer

        ens = as_core(ensemble)
        self._study = ScalingStudy(ens, param, metric, group_by, agg=agg, target=target)
        super().__init__()
        self.add_class("pw-scaling")
        self.explorer = CalltreeExplorer(ens, metrics=[metric], height=height)
        #: the flame graph at the target (built when first shown)
        self.flame: FlameGraph | None = None
        study = self._study
        self.set_trait("target", study.target)
        self.set_trait("log_axes", bool(log_axes))
        self.set_trait("group_by", study.group_by)
        self.set_trait("selected_profiles", study.selected_runs)
        self.set_trait("focused", study.focused)
        self._build()
        self._update_columns()
        self._chart.draw(self.log_axes)
        self._built = True
        self._resync()  # the controls (and the run count) from the traits
        self.explorer.observe(self._on_explorer_select, "selected_nodes")
        self.explorer.report_cursor = True
        self.explorer.observe(self._on_explorer_cursor, "cursor_node")

    # ------------------------------------------------------------------ public state
    @property
    def study(self) -> ScalingStudy:
        """The core study this view shows (change it through the view's methods)."""
        return self._study

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
        return self._study.models()

    @property
    def chart_data(self) -> pd.DataFrame:
        """One row per run of the focused node: ``param``, ``value``, ``run``, ``label``,
        ``group`` and ``selected``."""
        return self._study.chart_data()

    @property
    def group_models(self) -> pd.DataFrame:
        """The focused node's model per group of selected runs (the chart's curves)."""
        return self._study.group_models()

    def predict(self, value: float) -> pd.Series:
        """Every node's model at ``value`` (a Series indexed by node id)."""
        return self._study.predict_at(value)

    def target_column(self) -> str:
        """The header of the explorer's column of predictions at the target
        (:meth:`ScalingStudy.target_column`)."""
        return self._study.target_column()

    # ------------------------------------------------------------------ actions
    # Each action assigns a trait; its validator asks the study (a refused value: the banner
    # says why, the exception goes to the caller) and its observer tells the study and
    # redraws. Assigning the trait (``view.target = 4096``) does what the control does.
    @action
    def focus_node(self, node: Any) -> None:
        """Show ``node`` (an ensemble node id, or a unique name) in the chart, and its row
        in the explorer (opened, selected, scrolled to)."""
        self.focused = self._study.node_id(node)
        self._reveal(self.focused)

    @action
    def select_profiles(self, runs: Iterable[Hashable] | None) -> None:
        """Fit every model to these runs only (None: all runs) and redraw."""
        self.selected_profiles = self._study.check_selection(runs)

    @action
    def set_target(self, value: float) -> None:
        """Predict at ``value`` (the explorer's column and the chart's dashed line)."""
        self.target = self._study.check_target(value)

    @action
    def set_group_by(self, column: Any) -> None:
        """Color the runs, and fit one curve per group, by a metadata column (None: off)."""
        self.group_by = column

    @action
    def show(self, view: str) -> None:
        """Show the calltree ("tree") or the flame graph predicted at the target ("flame")."""
        self.shown = view

    @action
    def set_log_axes(self, log: bool = True) -> None:
        """Log (True) or linear chart axes."""
        self.log_axes = bool(log)

    @traitlets.validate("target")
    def _valid_target(self, proposal: dict) -> float:
        return self._guard(lambda: self._study.check_target(proposal["value"]))

    @traitlets.validate("group_by")
    def _valid_group_by(self, proposal: dict) -> Any:
        column = proposal["value"] if proposal["value"] != "" else None
        self._guard(lambda: self._study.check_group_by(column))
        return column

    @traitlets.validate("shown")
    def _valid_shown(self, proposal: dict) -> str:
        def check() -> str:
            if proposal["value"] not in ("tree", "flame"):
                raise ShapeError(f"shown is 'tree' or 'flame', not {proposal['value']!r}")
            return proposal["value"]

        return self._guard(check)

    @traitlets.validate("focused")
    def _valid_focused(self, proposal: dict) -> int:
        return self._guard(lambda: self._study.node_id(proposal["value"]))

    @traitlets.validate("selected_profiles")
    def _valid_profiles(self, proposal: dict) -> list:
        return self._guard(lambda: self._study.check_selection(proposal["value"]))

    @traitlets.observe("target", "group_by", "log_axes", "focused", "selected_profiles", "shown")
    def _apply(self, change: dict) -> None:
        """Tell the study what changed, then redraw what shows it."""
        if not self._built:
            return
        t0 = time.perf_counter()
        name, study = change["name"], self._study
        if name == "selected_profiles":
            study.select(change["new"])
            self._update_columns()
        elif name == "target":
            study.target = change["new"]
            self._update_columns()
        elif name == "group_by":
            study.set_group_by(change["new"])
            self._draw_runs()
        elif name == "focused":
            study.focused = change["new"]
        if name in ("shown", "target", "selected_profiles"):
            self._draw_middle()
        self._chart.draw(self.log_axes)
        if name == "selected_profiles":
            self.last_refit_ms = (time.perf_counter() - t0) * 1000
        self._succeeded()
        self._resync()

    def _reveal(self, nid: int) -> None:
        """Select the explorer's row of ensemble node ``nid`` and bring it into view, unless
        it is the row the person just chose there (or the explorer's tree has no such
        call path)."""
        row = self._study.in_view(self.explorer.graphframe.graph, nid)
        if row is None or self.explorer.selected_nodes == [row]:
            return
        self._revealing = True
        try:
            self.explorer.reveal(row)
        finally:
            self._revealing = False

    # ------------------------------------------------------------------ the explorer
    def _update_columns(self) -> None:
        """The explorer's columns of growth terms and predictions, on the tree it shows."""
        frame, keys = self._study.explorer_columns(self.explorer.graphframe.graph)
        self.explorer.set_extra_columns(frame, sort_keys=keys, units={})

    def _on_explorer_select(self, change: dict) -> None:
        if change["new"] and not self._revealing:
            self._follow(int(change["new"][-1]))

    def _on_explorer_cursor(self, change: dict) -> None:
        if change["new"] >= 0:
            self._follow(int(change["new"]))

    def _follow(self, nid: int) -> None:
        """Chart the explorer's node ``nid`` (of the tree it shows now)."""
        node = self._study.from_view(self.explorer.graphframe.graph, nid)
        if node is not None:  # the explorer's own row: charted, not revealed again
            self._from_control(lambda: setattr(self, "focused", node))

    def _flame_source(self) -> PredictedFlame:
        """The prediction at the target by models over the runs fitted."""
        study = self._study
        runs = study.ensemble.filter_profile(study.selected_runs)
        return PredictedFlame(runs, study.param, study.target, study.agg)

    def _draw_middle(self) -> None:
        """The calltree, or the flame graph at the target (built when first shown, then
        redrawn as the target or the runs change)."""
        if self.shown == "flame":
            if self.flame is None:
                self.flame = FlameGraph(self._flame_source(), self.metric, height=360)
            else:
                self.flame.set_source(self._flame_source())
            self._middle.children = (self.flame,)
        else:
            self._middle.children = (self.explorer,)

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        self._target_box = w.FloatText(
            value=self.target, description="target", layout=w.Layout(width="180px")
        )
        self._target_box.observe(
            lambda c: self._from_control(lambda: self.set_target(c["new"])), "value"
        )
        # a control keeps its own width: a narrow output wraps the row of controls instead of
        # squeezing the buttons into a column or cutting "flame at target" short
        keep = w.Layout(flex="0 0 auto")
        self._axes_box = w.ToggleButtons(
            options=[("linear", False), ("log", True)], value=self.log_axes, layout=keep
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
        self._chart = ScalingChart(self._study)
        self.chart = self._chart.figure
        self._title, self._model_text = self._chart.title, self._chart.model_text
        self._figures, self._quality = self._chart.figures, self._chart.quality
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
        self._shown_box = w.ToggleButtons(
            options=[("calltree", "tree"), ("flame at target", "flame")],
            value=self.shown,
            layout=keep,
        )
        self._shown_box.add_class("pw-scaling-shown")
        self._shown_box.style.button_width = "auto"  # as wide as "flame at target" in any font
        self._shown_box.observe(lambda c: self._from_control(lambda: self.show(c["new"])), "value")
        self._middle = w.Box([self.explorer], layout=w.Layout(width="100%"))
        self._middle.add_class("pw-scaling-middle")  # its widget may be narrower than its table
        controls = w.HBox(
            [self._target_box, self._axes_box, self._group_box, self._shown_box],
            layout=w.Layout(flex_flow="row wrap", align_items="center"),
        )
        runs = w.VBox(
            [w.HBox([self._all_button, self._runs_note]), self._runs_box],
            layout=w.Layout(flex="1 1 360px", min_width="260px"),
        )
        below = w.Box(
            [self._chart.box, runs],
            layout=w.Layout(display="flex", flex_flow="row wrap", width="100%"),
        )
        self._set_children(w.HTML(CSS), controls, self._middle, below)

    def _sync_controls(self) -> None:
        if not hasattr(self, "_target_box"):  # not built yet
            return
        self._target_box.value = self.target
        self._axes_box.value = self.log_axes
        self._group_box.value = self.group_by or ""
        self._shown_box.value = self.shown
        selected = self._study.selected
        for box, sel in zip(self._run_boxes, selected):
            box.value = bool(sel)
        self._runs_note.value = f"{int(selected.sum())} of {len(selected)} runs fitted"

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
        selected = study.selected
        self._run_boxes = [None] * len(study.runs)
        for run, row in table.iterrows():
            k = at[run]
            text = f"{row[param]:g}" if plain else str(row["label"])
            box = w.Checkbox(value=bool(selected[k]), description=text, indent=False, layout=auto)
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
        runs = [r for r, b in zip(self._study.runs, self._run_boxes) if b.value]
        self._from_control(lambda: self.select_profiles(runs))
