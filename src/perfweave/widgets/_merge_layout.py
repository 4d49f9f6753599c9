"""MergePanel's layout and drawing: its controls, tabs, charts and tables, drawn from its study.

:class:`MergeLayout` builds the widgets once and redraws them from the panel's
:class:`~perfweave.merge.MergeStudy` (``self._study``); the panel (:mod:`.merge_panel`) holds
the actions. Every number and matrix shown is the study's; this module only places them.
"""

from __future__ import annotations

import base64
from typing import Any

import ipywidgets as widgets
import numpy as np
import pandas as pd

from perfweave.merge import DEP_LVL_RANGE, HrmDetails, MergeStudy, MuchResult, Unavailable
from perfweave.merge.settings import N_RUNS_RANGE, N_SIMS_RANGE
from perfweave.widgets._base import static_file
from perfweave.widgets._html import STYLE as TABLE_STYLE
from perfweave.widgets._html import esc, table
from perfweave.widgets._matrix import CorrelationMatrix
from perfweave.widgets._merge_views import (
    MERGED_COLOR,
    POOLED_COLOR,
    LinesView,
    ScatterView,
    color_bar_html,
    title_html,
)

PREVIEW_ROWS = 10
#: the panel's style (a composite has no ``_css``: one hidden HTML widget carries it)
PANEL_CSS = (
    f"<style>{static_file('merge_panel.css').read_text(encoding='utf-8')}{TABLE_STYLE}</style>"
)


def _row(children: list[Any]) -> widgets.Box:
    """A row that wraps onto the next line when the output area is narrower than it."""
    flex = {"display": "flex", "flex_flow": "row wrap", "align_items": "flex-start"}
    return widgets.Box(children, layout=widgets.Layout(width="100%", **flex))


def _classed(widget: Any, cls: str) -> Any:
    """``widget`` with the class ``cls`` (what the tests and the page's CSS find it by)."""
    widget.add_class(cls)
    return widget


def _html(cls: str, scroll: bool = False) -> widgets.HTML:
    """An HTML widget with a class; ``scroll``: a box that scrolls when its content is wider."""
    if scroll:
        return _classed(widgets.HTML(layout=widgets.Layout(max_width="100%", overflow="auto")), cls)
    return _classed(widgets.HTML(""), cls)


class MergeLayout:
    """The widgets of a MergePanel and how they show its study (a mixin of the panel)."""

    # the panel's: its study, the handlers of its controls, the time of its last merge
    _study: MergeStudy
    _on_control: Any
    _on_pmcs: Any
    _on_cell_pick: Any
    _on_build: Any
    last_compute_ms: float

    # ------------------------------------------------------------------ building
    def _build_controls(self) -> None:
        narrow = {"description_width": "50px"}
        slider = {"description_width": "60px"}
        wide = widgets.Layout(width="330px", min_width="260px")
        self._method_w = widgets.ToggleButtons(
            options=[("MUCH", "much"), ("HRM", "hrm")],
            description="method",
            tooltips=["Gaussian copula merge (every pair read together)", "anchor-rank merge"],
            style={"button_width": "70px"},
        )
        self._anchor_w = widgets.Dropdown(description="anchor", layout={"width": "340px"})
        self._dep_w = widgets.FloatSlider(
            value=0.85,
            min=DEP_LVL_RANGE[0],
            max=DEP_LVL_RANGE[1],
            step=0.01,
            description="dep_lvl",
            continuous_update=False,
            readout_format=".2f",
            style=slider,
            layout=wide,
        )
        self._sims_w = widgets.IntSlider(
            value=100,
            min=N_SIMS_RANGE[0],
            max=N_SIMS_RANGE[1],
            step=10,
            description="n_sims",
            continuous_update=False,
            style=slider,
            layout=widgets.Layout(width="330px", min_width="260px"),
        )
        self._runs_w = widgets.BoundedIntText(
            value=1000,
            min=N_RUNS_RANGE[0],
            max=N_RUNS_RANGE[1],
            description="n_runs",
            style=narrow,
            layout={"width": "160px"},
        )
        self._seed_w = widgets.BoundedIntText(
            value=0,
            min=0,
            max=2**63 - 1,
            description="seed",
            style=narrow,
            layout={"width": "160px"},
        )
        self._pmcs_w = widgets.BoundedIntText(
            value=1, min=1, max=10_000, description="n_pmcs", layout={"width": "170px"}
        )
        for control, key, cls in [
            (self._method_w, "method", "method"),
            (self._anchor_w, "anchor", "anchor"),
            (self._dep_w, "dep_lvl", "dep"),
            (self._sims_w, "n_sims", "sims"),
            (self._runs_w, "n_runs", "runs"),
            (self._seed_w, "seed", "seed"),
        ]:
            control.add_class(f"pw-merge-{cls}")
            control.observe(self._on_control(key), names="value")
        self._pmcs_w.add_class("pw-merge-pmcs")
        self._pmcs_w.observe(self._on_pmcs, names="value")
        self._much_box = _row([self._dep_w, self._sims_w, self._runs_w, self._seed_w])
        self._header = widgets.VBox(
            [_row([self._method_w, self._anchor_w, self._pmcs_w]), self._much_box],
            layout=widgets.Layout(width="100%"),
        )
        self._status = _classed(widgets.Label(""), "pw-merge-status")
        self._style = widgets.HTML(PANEL_CSS, layout=widgets.Layout(display="none"))
        #: "<method> not available: why": the Merge tab while no merge could be computed
        self._none = _html("pw-merge-unavailable")

    def _build_merge_tab(self) -> None:
        self._target = _classed(CorrelationMatrix(), "pw-merge-target")
        self._achieved = _classed(CorrelationMatrix(), "pw-merge-achieved")
        self._diff = _classed(CorrelationMatrix(), "pw-merge-diff")
        for view in (self._target, self._achieved, self._diff):
            view.on_pick = self._on_cell_pick
        self._scores = LinesView(
            "score of every simulation",
            "simulation",
            "MSE",
            width=400,
            x_format="d",
            y_format=".1e",
        )
        self._anchor_chart = LinesView(
            "anchor", "reading", "% of readings <=", width=400, y_format=".0f"
        )
        self._marg_x = LinesView("x marginal", "reading", "% in bin", marker=False)
        self._marg_y = LinesView("y marginal", "reading", "% in bin", marker=False)
        self._scatter = ScatterView()
        for view, cls in (
            (self._anchor_chart, "anchor-chart"),
            (self._scores, "scores"),
            (self._marg_x, "marg-x"),
            (self._marg_y, "marg-y"),
            (self._scatter, "scatter"),
        ):
            view.figure.add_class(f"pw-merge-{cls}")
        self._legend = _html("pw-merge-legend")
        self._kept_html = _html("pw-merge-kept", scroll=True)
        self._preview_html = _html("pw-merge-preview", scroll=True)
        self._preview_html.add_class("pw-merge-scroll")  # many columns: scrolls sideways
        self._preview_title = widgets.HTML("")
        self._hrm_html = _html("pw-merge-hrm", scroll=True)
        self._pair_label = _classed(widgets.Label(""), "pw-merge-pair")
        # one key for the marginals (a legend inside a chart covers its curves)
        swatch = '<span><span class="pw-merge-swatch" style="background:{}"></span>{}</span>'
        self._pair_key = widgets.HTML(
            '<div class="pw-merge-keyline">'
            + swatch.format(MERGED_COLOR, "merged runs")
            + swatch.format(POOLED_COLOR, "pooled readings of the subexperiments")
            + "</div>"
        )
        # MUCH shows its scores here, HRM its anchor: the figure is swapped in, not hidden
        # (a bqplot figure first drawn while hidden draws negative sizes)
        self._chart_row = _row([self._scores.figure, self._hrm_html, self._kept_html])
        self._pair_row = _row([self._marg_x.figure, self._marg_y.figure, self._scatter.figure])
        self._merge_body = widgets.VBox(
            [
                self._legend,
                _row([self._target, self._achieved, self._diff]),
                self._chart_row,
                self._pair_label,
                self._pair_key,
                self._pair_row,
                self._preview_title,
                self._preview_html,
            ]
        )

    def _build_design_tab(self) -> None:
        self._design_hems = widgets.Textarea(
            description="HEMs", placeholder="one HEM per line", layout={"height": "180px"}
        )
        self._design_pmcs = widgets.BoundedIntText(
            value=6, min=2, max=64, description="PMCs", layout={"width": "170px"}
        )
        self._design_anchor = widgets.Text(description="anchor", placeholder="(none)")
        button = widgets.Button(description="Build design", button_style="primary")
        self._design_button = _classed(button, "pw-merge-build")
        self._design_button.on_click(self._on_build)
        self._design_summary = _classed(widgets.Label(""), "pw-merge-design-summary")
        self._design_link = _html("pw-merge-design-csv")
        self._design_table = _html("pw-merge-design-table")
        inputs = widgets.VBox([self._design_pmcs, self._design_anchor, self._design_button])
        self._design_tab = widgets.VBox(
            [
                widgets.HBox([self._design_hems, inputs]),
                self._design_summary,
                self._design_link,
                self._design_table,
            ]
        )
        self._tabs = widgets.Tab(
            children=[self._merge_body, self._design_tab], titles=("Merge", "Design")
        )

    # ------------------------------------------------------------------ controls
    def _sync_controls(self) -> None:
        """Controls show the settings of the result on screen (without recomputing)."""
        st = self._study
        s = st.settings
        self._anchor_w.options = st.anchors
        self._anchor_w.value = s.anchor if s.anchor in st.anchors else None
        self._method_w.value = s.method
        self._dep_w.value = s.dep_lvl
        self._sims_w.value = s.n_sims
        self._runs_w.value = s.n_runs
        self._seed_w.value = s.seed
        if st.n_pmcs is not None:
            self._pmcs_w.value = st.n_pmcs
        hrm = s.method == "hrm"
        self._anchor_w.layout.display = "" if hrm else "none"
        self._much_box.layout.display = "none" if hrm else ""
        self._pmcs_w.layout.display = "" if st.has_raw else "none"

    # ------------------------------------------------------------------ drawing
    def _draw_unavailable(self) -> None:
        """No merge yet: the Merge tab is one line saying which and why, instead of empty
        charts (left out, not hidden: a bqplot figure first drawn hidden draws negative
        sizes)."""
        st = self._study
        first = self._none if st.result is None else self._merge_body
        if self._tabs.children[0] is not first:
            self._tabs.children = (first, self._design_tab)
            self._tabs.titles = ("Merge", "Design")
        if st.result is not None:
            return
        why = st.refused
        name = why.what if why is not None else st.settings.method.upper()
        reason = why.reason if why is not None else "no merge computed"
        other = "HRM (pick an anchor)" if name == "MUCH" else "MUCH"
        self._none.value = (
            f'<div class="pw-merge-na"><b>{esc(name)} not available</b>: {esc(reason)} '
            f"(the banner above has the details). Try {other}, or plan runs that read every "
            "pair together in the Design tab.</div>"
        )

    def _draw(self) -> None:
        st = self._study
        diag = st.diagnostics
        names = st.names
        self._matrix_names = names
        achieved = st.achieved()
        target = st.target()
        if isinstance(diag, MuchResult):
            self._target.show(target, names, f"target ({len(names)} kept HEMs)", 1.0)
            self._achieved.show(achieved, names, "achieved (chosen simulation)", 1.0)
            diff = achieved - target
            rmse = float(np.sqrt(np.mean(diff**2)))
            legend = self._show_diff(diff, names, f"achieved − target (RMSE {rmse:.3f})")
            self._scores.show_scores(diag.scores, diag.chosen)
            self._draw_kept(names)
            self._hrm_html.value = ""
            self._hrm_html.layout.display = "none"
            self._show_chart(self._scores)
            preview = f"merged table (first {PREVIEW_ROWS} runs)"
        else:
            self._achieved.show(achieved, names, "HRM merged correlation", 1.0)
            if isinstance(target, Unavailable):
                self._target.unavailable("pooled correlation", target.reason)
                self._diff.layout.display = "none"  # merged − pooled: nothing to subtract
                legend = color_bar_html("correlation", 1.0)
            else:
                self._target.show(target, names, "pooled correlation", 1.0)
                legend = self._show_diff(achieved - target, names, "merged − pooled")
            preview = self._draw_hrm(diag, names)
        if self._legend.value != legend:
            self._legend.value = legend
        self._preview_title.value = title_html(preview)
        self._draw_pair()
        self._preview_html.value = table(st.result.head(PREVIEW_ROWS))
        self._status.value = self._status_text()

    def _draw_kept(self, names: list[str]) -> None:
        """MUCH: the kept HEMs, and each dropped one with the kept HEM that dropped it."""
        dep_lvl = self._study.settings.dep_lvl
        dropped = self._study.dropped.rename(
            columns={"dropped": "dropped HEM", "kept": "dropped by (kept HEM)"}
        )
        self._kept_html.value = (
            title_html(f"kept at dep_lvl {dep_lvl:.2f}")
            + table(pd.DataFrame({"kept HEM": names}))
            + title_html(f"dropped ({len(dropped)}): r > dep_lvl with a kept HEM")
            + table(dropped, decimals={"r": 3})
        )

    def _draw_hrm(self, diag: HrmDetails, names: list[str]) -> str:
        """HRM: the anchor chart, its summary and the merged HEMs; the preview's title."""
        if self._anchor_chart.show_anchor(diag):
            self._show_chart(self._anchor_chart)
        else:
            self._chart_row.children = (self._hrm_html, self._kept_html)
        self._hrm_html.layout.display = ""
        self._hrm_html.value = title_html(
            f"HRM on anchor {diag.anchor}: type-2 quantiles at {diag.n_rows} probabilities 0..1"
        ) + table(diag.summary())
        n_columns = len(self._study.result.columns)
        self._kept_html.value = title_html(
            f"{n_columns} merged columns; first copy of each HEM:"
        ) + table(pd.DataFrame({"HEM": names}))
        repeats = (
            "; a HEM read in several subexperiments has one column per reading: NAME, NAME (2), ..."
        )
        return f"merged table (first {PREVIEW_ROWS} runs)" + (
            repeats if n_columns > len(names) else ""
        )

    def _show_diff(self, diff: np.ndarray, names: list[str], title: str) -> str:
        """Show the difference matrix on one scale; the legend of the three matrices."""
        finite = np.abs(diff[np.isfinite(diff)])
        top = max(float(finite.max()) if finite.size else 0.0, 0.01)  # at least 0.01
        self._diff.show(diff, names, title, top)
        self._diff.layout.display = ""
        return color_bar_html("correlation", 1.0) + color_bar_html("difference", top)

    def _status_text(self) -> str:
        st = self._study
        s, diag, result = st.settings, st.diagnostics, st.result
        if isinstance(diag, MuchResult):
            return (
                f"MUCH · dep_lvl {s.dep_lvl:.2f} · {len(diag.target)} kept, "
                f"{len(diag.dropped)} dropped · simulation {diag.chosen + 1} of "
                f"{len(diag.scores)} chosen (MSE {diag.scores[diag.chosen]:.3g}) · "
                f"{len(result)} runs, seed {s.seed} · computed in "
                f"{self.last_compute_ms:.0f} ms"
            )
        return (
            f"HRM · anchor {s.anchor} · {len(st.subexperiments)} subexperiments · "
            f"{result.shape[0]} runs x {result.shape[1]} columns · computed in "
            f"{self.last_compute_ms:.0f} ms"
        )

    def _show_chart(self, view: LinesView) -> None:
        """Put the scores (MUCH) or anchor (HRM) chart in the row, if not there already."""
        children = (view.figure, self._hrm_html, self._kept_html)
        if tuple(self._chart_row.children) != children:
            self._chart_row.children = children

    def _draw_pair(self) -> None:
        st = self._study
        if st.pair is None or st.result is None:
            self._pair_label.value = "(the merged table has fewer than two HEMs: no pair)"
            self._pair_row.layout.display = "none"
            self._pair_key.layout.display = "none"
            return
        self._pair_row.layout.display = ""
        self._pair_key.layout.display = ""
        x_name, y_name = st.pair
        x, y, r = st.pair_values()
        self._scatter.show(x, y, x_name, y_name, r)
        for view, name, axis in ((self._marg_x, x_name, "x"), (self._marg_y, y_name, "y")):
            centres, merged, pooled = st.marginal(name)
            view.show_pair(centres, merged, pooled)
            view.figure.title = f"{axis}: {name}"
            view.figure.axes[0].label = name
        names = self._matrix_names
        if x_name in names and y_name in names:
            i, j = names.index(y_name), names.index(x_name)
            for m in (self._target, self._achieved, self._diff):
                m.mark_cell(i, j)
        self._pair_label.value = (
            f"x = {x_name}, y = {y_name} (click a matrix cell to pick another pair)"
        )

    def _draw_design(self) -> None:
        d = self._study.design
        if d is None:
            return
        above = d.n_subexperiments - d.proven_bound
        self._design_summary.value = (
            f"{d.n_subexperiments} subexperiments of {d.n_pmcs} PMCs for {len(d.hems)} HEMs"
            f"{' (anchor ' + d.anchor + ' in each)' if d.anchor else ''} · proven lower "
            f"bound {d.proven_bound} (Schönheim {d.lower_bound}) · "
            + ("optimal" if above <= 0 else f"{above} above the bound")
            + f" · uncovered pairs: {len(d.uncovered_pairs())}"
        )
        frame = self._study.design_frame()
        self._design_table.value = table(frame)
        payload = base64.b64encode(frame.to_csv(index=False).encode()).decode("ascii")
        self._design_link.value = (
            '<a class="pw-merge-csv-link" download="pair_covering_design.csv" '
            f'href="data:text/csv;base64,{payload}">⬇ Export design as CSV</a>'
        )
