"""MergePanel: watch an HRM or MUCH merge of hardware-event subexperiments change live.

A view over :mod:`perfweave.merge`: a :class:`~perfweave.merge.MuchMerger` holds the cached
intermediates, so moving ``dep_lvl`` or ``n_sims`` recomputes only what depends on it.
ipywidgets controls (sliders send on release: a drag never queues a backlog), bqplot
charts and labelled correlation matrices (:mod:`._matrix`). Every control has a Python
setter that does the same as the control. The widget contract (:mod:`._base`): a failing
setting keeps the previous result on screen, says why in the banner, puts the controls
back at the settings of that result and, called from Python, raises the core's
:class:`~perfweave.errors.MergeError`. The settings of the result on screen are a
:class:`~perfweave.merge.MergeSettings`; validation (``dep_lvl``'s range included) is the
core's. A view that cannot be computed (MUCH when HEM pairs were never read together, HRM's
pooled correlation) is one "not available: why" line, never an empty chart.

    panel = MergePanel(pm.process_raw_experiments(raw, 6))      # or MergePanel(raw, n_pmcs=6)
    panel.set_dep_lvl(0.9); panel.set_n_sims(200)
    panel.result        # merged DataFrame
    panel.diagnostics   # MuchResult (MUCH) or HrmDetails (HRM)
"""

from __future__ import annotations

import base64
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import numpy as np
import pandas as pd
import traitlets

import perfweave.merge as pm
from perfweave.errors import MergeError, PerfweaveError
from perfweave.merge.independence import DEP_LVL_RANGE
from perfweave.merge.quantiles import r_seq_probs
from perfweave.merge.settings import N_RUNS_RANGE, N_SIMS_RANGE, MergeSettings, check_int
from perfweave.widgets._base import CompositeBase
from perfweave.widgets._html import STYLE as TABLE_STYLE
from perfweave.widgets._html import esc as _esc
from perfweave.widgets._html import table as html_table
from perfweave.widgets._matrix import CorrelationMatrix
from perfweave.widgets._merge_views import (
    MERGED_COLOR,
    POOLED_COLOR,
    LinesView,
    ScatterView,
    color_bar_html,
    index_ticks,
    shares,
    title_html,
    value_ticks,
)

__all__ = ["HrmDetails", "MergePanel"]

PREVIEW_ROWS = 10


@dataclass(frozen=True)
class HrmDetails:
    """What an HRM merge used: the anchor, its pooled readings and the quantiles taken."""

    anchor: str
    pooled: np.ndarray
    probabilities: np.ndarray
    quantiles: np.ndarray
    n_rows: int
    merged: pd.DataFrame


#: labels of the panel wrap instead of being cut with an ellipsis (status, pair, messages)
PANEL_CSS = (
    "<style>.pw-merge-panel .widget-label{white-space:normal;height:auto;"
    "line-height:1.4;overflow:visible}"
    ".pw-merge-panel .bqplot .axis text{font-size:11px}"
    # the Tab's stacked panel keeps the height of its first layout (lumino positions the
    # pages absolutely): let the shown page set the height, so nothing below is clipped
    ".pw-merge-panel .widget-tab-contents,.pw-merge-panel .lm-TabPanel-stackedPanel"
    "{height:auto!important;overflow:visible!important}"
    ".pw-merge-panel .lm-TabPanel-stackedPanel>.lm-Widget"
    "{position:relative!important;top:auto!important;left:auto!important;"
    "width:auto!important;height:auto!important}"
    ".pw-merge-na{font-size:14px;padding:10px 12px;margin:6px 0;border:1px dashed #b9bec5;"
    "border-radius:4px;color:var(--jp-ui-font-color1,#1f2328)}"
    ".pw-merge-keyline{font-size:12px;display:flex;gap:18px;align-items:center}"
    ".pw-merge-swatch{display:inline-block;width:18px;height:3px;margin-right:6px;"
    "vertical-align:middle}" + TABLE_STYLE + "</style>"
)


def _row(children: list[widgets.Widget]) -> widgets.Box:
    """A row that wraps onto the next line when the output area is narrower than it."""
    return widgets.Box(
        children,
        layout=widgets.Layout(
            display="flex", flex_flow="row wrap", align_items="flex-start", width="100%"
        ),
    )


def _common_hems(subs: Sequence[pd.DataFrame]) -> list[str]:
    if len(subs) == 0:
        return []
    common = [str(c) for c in subs[0].columns]
    for sub in subs[1:]:
        have = {str(c) for c in sub.columns}
        common = [c for c in common if c in have]
    return common


def _dedupe_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """First copy of each HEM of an HRM table (repeats are named ``NAME.1``, ...)."""
    base = [str(c) for c in frame.columns]
    seen: set[str] = set()
    keep = []
    for c in base:
        root = c
        if "." in c and c.rsplit(".", 1)[0] in base and c.rsplit(".", 1)[1].isdigit():
            root = c.rsplit(".", 1)[0]
        if root not in seen:
            seen.add(root)
            keep.append(c)
    return frame[keep]


class MergePanel(CompositeBase):
    """Live HRM / MUCH merge of subexperiments (see the module docstring).

    ``subexperiments``: the result of :func:`perfweave.merge.process_raw_experiments`, or a
    raw DataFrame (or CSV path) together with ``n_pmcs``; then ``n_pmcs`` is a control too.
    The other arguments are the fields of :class:`~perfweave.merge.MergeSettings`.
    """

    #: bumped after every successful redraw (for tests and notebook hooks)
    view_version = traitlets.Int(0)

    def __init__(
        self,
        subexperiments: Sequence[pd.DataFrame] | pd.DataFrame | str | Path,
        n_pmcs: int | None = None,
        *,
        method: str = "much",
        anchor: str | None = None,
        dep_lvl: float = 0.85,
        n_sims: int = 100,
        n_runs: int = 1000,
        seed: int = 0,
    ) -> None:
        raw = None
        if isinstance(subexperiments, pd.DataFrame | str | Path):
            if n_pmcs is None:
                raise MergeError("a raw table needs n_pmcs (the HEMs read per run)")
            raw = subexperiments
            subs = pm.process_raw_experiments(raw, n_pmcs)
        else:
            subs = subexperiments
            if len(subs) == 0:
                raise MergeError("MergePanel needs at least one subexperiment")
        super().__init__(layout=widgets.Layout(width="100%", max_width="100%"))
        self._raw = raw
        self._result: pd.DataFrame | None = None
        self._diagnostics: pm.MuchResult | HrmDetails | None = None
        self._pair: tuple[str, str] | None = None
        self._design: pm.RunDesign | None = None
        self._matrix_names: list[str] = []
        self.last_compute_ms = 0.0
        self.last_draw_ms = 0.0
        self._build_widgets()
        self._set_children(self._style, self._header, self._status, self._tabs)
        self.add_class("pw-merge-panel")
        self._load(subs, n_pmcs)
        first = (self._anchors or [None])[0]
        settings = MergeSettings(
            method, anchor if anchor is not None else first, dep_lvl, n_sims, n_runs, seed
        ).checked()  # a bad argument is the caller's error: raised
        self._settings = settings
        # a merge that cannot be computed is said in the banner and in the panel
        self._from_control(lambda: self._apply(settings))
        self._draw_unavailable()
        self._design_hems.value = "\n".join(
            dict.fromkeys(str(c) for sub in self._subs for c in sub.columns)
        )
        self._design_pmcs.value = max(len(s.columns) for s in self._subs)

    # ------------------------------------------------------------------ public state
    @property
    def result(self) -> pd.DataFrame | None:
        """The merged DataFrame on screen (a copy)."""
        return None if self._result is None else self._result.copy()

    @property
    def diagnostics(self) -> pm.MuchResult | HrmDetails | None:
        """MuchResult of the MUCH merge on screen, or HrmDetails of the HRM merge."""
        return self._diagnostics

    @property
    def settings(self) -> MergeSettings:
        """The settings of the result on screen (or of the first try, before any result)."""
        return self._settings

    @property
    def method(self) -> str:
        return self._settings.method

    @property
    def anchors(self) -> list[str]:
        """HEMs present in every subexperiment (the possible HRM anchors)."""
        return list(self._anchors)

    @property
    def kept(self) -> list[str]:
        """HEMs of the merge on screen (MUCH: kept at dep_lvl)."""
        return [] if self._result is None else [str(c) for c in self._result.columns]

    @property
    def dropped(self) -> pd.DataFrame:
        """HEMs dropped as dependent at the dep_lvl on screen, the kept HEM that dropped
        each and their r (:func:`perfweave.merge.drop_reasons`)."""
        if self._settings.method != "much" or self._cor is None:
            return pm.drop_reasons(pd.DataFrame(), 1.0)
        return pm.drop_reasons(self._cor, self._settings.dep_lvl)

    @property
    def pair(self) -> tuple[str, str] | None:
        """The two HEMs of the scatter (x, y)."""
        return self._pair

    @property
    def design(self) -> pm.RunDesign | None:
        return self._design

    # ------------------------------------------------------------------ setters
    def set_method(self, method: str) -> MergePanel:
        """``"much"`` or ``"hrm"``."""
        return self._set(method=method)

    def set_anchor(self, anchor: str) -> MergePanel:
        """The HRM anchor (switches to HRM)."""
        return self._set(method="hrm", anchor=anchor)

    def set_dep_lvl(self, dep_lvl: float) -> MergePanel:
        return self._set(dep_lvl=dep_lvl)

    def set_n_sims(self, n_sims: int) -> MergePanel:
        return self._set(n_sims=n_sims)

    def set_n_runs(self, n_runs: int) -> MergePanel:
        return self._set(n_runs=n_runs)

    def set_seed(self, seed: int) -> MergePanel:
        return self._set(seed=seed)

    def set_n_pmcs(self, n_pmcs: int) -> MergePanel:
        """Re-split the raw table into subexperiments of ``n_pmcs`` (raw input only)."""
        return self._guard(lambda: self._set_n_pmcs(n_pmcs))

    def _set_n_pmcs(self, n_pmcs: int) -> MergePanel:
        if self._raw is None:
            raise MergeError("n_pmcs can change only when the panel got a raw table")
        old = (self._subs, self._n_pmcs)
        try:
            n = check_int("n_pmcs", n_pmcs, 1)
            subs = pm.process_raw_experiments(self._raw, n)
            self._load(subs, n)
            anchor = self._settings.anchor
            if anchor not in self._anchors:
                anchor = (self._anchors or [None])[0]
            self._apply(self._settings.with_(anchor=anchor))
        except PerfweaveError:
            self._load(*old)
            raise
        return self

    def pick_pair(self, x_hem: str, y_hem: str) -> MergePanel:
        """Scatter and marginals of two HEMs of the merged table (a matrix click does this)."""
        return self._guard(lambda: self._pick_pair(x_hem, y_hem))

    def _pick_pair(self, x_hem: str, y_hem: str) -> MergePanel:
        names = self.kept
        for h in (x_hem, y_hem):
            if h not in names:
                raise MergeError(f"HEM {h!r} is not in the merged table (has: {', '.join(names)})")
        self._pair = (x_hem, y_hem)
        self._draw_pair()
        self.view_version += 1
        return self

    # ------------------------------------------------------------------ design tab
    def build_design(
        self,
        hems: int | Sequence[str] | None = None,
        n_pmcs: int | None = None,
        *,
        anchor: str | None = None,
        seed: int = 0,
        max_moves: int = pm.DEFAULT_MOVES,
        time_limit: float | None = None,
    ) -> pm.RunDesign:
        """A pair covering design (the same as :func:`perfweave.merge.pair_covering_design`)."""
        if hems is None:
            hems = [h.strip() for h in self._design_hems.value.splitlines() if h.strip()]
        if n_pmcs is None:
            n_pmcs = self._design_pmcs.value
        if anchor is None and self._design_anchor.value.strip():
            anchor = self._design_anchor.value.strip()
        design = self._guard(
            lambda: pm.pair_covering_design(
                hems, n_pmcs, anchor=anchor, seed=seed, max_moves=max_moves, time_limit=time_limit
            )
        )
        self._design = design
        self._design_hems.value = "\n".join(h for h in design.hems)
        self._design_pmcs.value = design.n_pmcs
        self._draw_design()
        self.view_version += 1
        return design

    def design_csv(self) -> str:
        """The design on screen as CSV (one row per subexperiment, one column per PMC)."""
        if self._design is None:
            raise MergeError("no design built yet: call build_design() first")
        return _design_frame(self._design).to_csv(index=False)

    def export_design(self, path: str | Path) -> Path:
        """Write :meth:`design_csv` to ``path``."""
        path = Path(path)
        path.write_text(self.design_csv())
        return path

    # ------------------------------------------------------------------ internals
    def _load(self, subs: Sequence[pd.DataFrame], n_pmcs: int | None) -> None:
        self._subs = subs
        self._n_pmcs = n_pmcs
        self._anchors = _common_hems(subs)
        self._merger = pm.MuchMerger(subs)
        try:
            self._cor: pd.DataFrame | None = self._merger.correlation
            self._cor_error = ""
        except PerfweaveError as exc:
            self._cor = None
            self._cor_error = str(exc)

    def _set(self, **changes: Any) -> MergePanel:
        return self._guard(lambda: self._apply(self._settings.with_(**changes)))

    def _compute(self, s: MergeSettings):
        if s.method == "hrm":
            anchor = s.anchor
            if anchor is None:
                raise MergeError(
                    "no HEM is read in every subexperiment, so HRM has no anchor; use MUCH"
                )
            merged = pm.hrm_merge(self._subs, anchor)
            pooled = np.concatenate([np.asarray(sub[anchor]) for sub in self._subs])
            details = HrmDetails(
                anchor=anchor,
                pooled=pooled,
                probabilities=r_seq_probs(len(merged)),
                quantiles=merged[anchor].to_numpy(),
                n_rows=len(merged),
                merged=merged,
            )
            return merged, details
        if self._cor is None:
            raise MergeError(self._cor_error)
        kept = self._merger.independent(s.dep_lvl)
        if len(kept) < 2:
            raise MergeError(
                f"at dep_lvl={s.dep_lvl:g} only {len(kept)} HEM is kept "
                f"({', '.join(map(str, kept.columns))}): nothing to merge; raise dep_lvl"
            )
        result = self._merger.merge(s.n_runs, s.n_sims, s.dep_lvl, s.seed)
        return result.merged, result

    def _apply(self, s: MergeSettings) -> MergePanel:
        """Compute the merge of ``s`` (checked settings); only a merge that worked is shown."""
        start = time.perf_counter()
        merged, details = self._compute(s)
        self.last_compute_ms = (time.perf_counter() - start) * 1000
        self._settings = s
        self._result = merged
        self._diagnostics = details
        names = self._shown_names()
        if self._pair is None or not all(h in names for h in self._pair):
            self._pair = (names[0], names[1]) if len(names) > 1 else None
        start = time.perf_counter()
        self._draw()
        self._resync()
        self._draw_unavailable()
        self.last_draw_ms = (time.perf_counter() - start) * 1000
        self.view_version += 1
        return self

    def _shown_names(self) -> list[str]:
        if self._result is None:
            return []
        if self._settings.method == "hrm":
            return [str(c) for c in _dedupe_columns(self._result).columns]
        return [str(c) for c in self._result.columns]

    # ------------------------------------------------------------------ widgets
    def _build_widgets(self) -> None:
        self._method_w = widgets.ToggleButtons(
            options=[("MUCH", "much"), ("HRM", "hrm")],
            description="method",
            tooltips=["Gaussian copula merge (every pair read together)", "anchor-rank merge"],
            style={"button_width": "70px"},
        )
        self._anchor_w = widgets.Dropdown(
            description="anchor", layout=widgets.Layout(width="340px")
        )
        self._dep_w = widgets.FloatSlider(
            value=0.85,
            min=DEP_LVL_RANGE[0],
            max=DEP_LVL_RANGE[1],
            step=0.01,
            description="dep_lvl",
            continuous_update=False,
            readout_format=".2f",
            style={"description_width": "60px"},
            layout=widgets.Layout(width="330px", min_width="260px"),
        )
        self._sims_w = widgets.IntSlider(
            value=100,
            min=N_SIMS_RANGE[0],
            max=N_SIMS_RANGE[1],
            step=10,
            description="n_sims",
            continuous_update=False,
            style={"description_width": "60px"},
            layout=widgets.Layout(width="330px", min_width="260px"),
        )
        self._runs_w = widgets.BoundedIntText(
            value=1000,
            min=N_RUNS_RANGE[0],
            max=N_RUNS_RANGE[1],
            description="n_runs",
            style={"description_width": "50px"},
            layout=widgets.Layout(width="160px"),
        )
        self._seed_w = widgets.BoundedIntText(
            value=0,
            min=0,
            max=2**63 - 1,
            description="seed",
            style={"description_width": "50px"},
            layout=widgets.Layout(width="160px"),
        )
        self._pmcs_w = widgets.BoundedIntText(
            value=1,
            min=1,
            max=10_000,
            description="n_pmcs",
            layout=widgets.Layout(width="170px"),
        )
        for control, key in [
            (self._method_w, "method"),
            (self._anchor_w, "anchor"),
            (self._dep_w, "dep_lvl"),
            (self._sims_w, "n_sims"),
            (self._runs_w, "n_runs"),
            (self._seed_w, "seed"),
        ]:
            control.observe(self._on_control(key), names="value")
        self._pmcs_w.observe(self._on_pmcs, names="value")
        for c, cls in [
            (self._method_w, "pw-merge-method"),
            (self._anchor_w, "pw-merge-anchor"),
            (self._dep_w, "pw-merge-dep"),
            (self._sims_w, "pw-merge-sims"),
            (self._runs_w, "pw-merge-runs"),
            (self._seed_w, "pw-merge-seed"),
            (self._pmcs_w, "pw-merge-pmcs"),
        ]:
            c.add_class(cls)
        self._much_box = _row([self._dep_w, self._sims_w, self._runs_w, self._seed_w])
        self._header = widgets.VBox(
            [_row([self._method_w, self._anchor_w, self._pmcs_w]), self._much_box],
            layout=widgets.Layout(width="100%"),
        )
        self._status = widgets.Label("")
        self._status.add_class("pw-merge-status")
        self._style = widgets.HTML(PANEL_CSS, layout=widgets.Layout(display="none"))
        #: "<method> not available: why": the Merge tab while no merge could be computed
        self._none = widgets.HTML("")
        self._none.add_class("pw-merge-unavailable")

        # merge tab
        self._target = CorrelationMatrix()
        self._achieved = CorrelationMatrix()
        self._diff = CorrelationMatrix()
        for view, cls in (
            (self._target, "pw-merge-target"),
            (self._achieved, "pw-merge-achieved"),
            (self._diff, "pw-merge-diff"),
        ):
            view.on_pick = self._on_cell_pick
            view.add_class(cls)
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
        self._anchor_chart.figure.add_class("pw-merge-anchor-chart")
        self._marg_x = LinesView("x marginal", "reading", "% in bin", marker=False)
        self._marg_y = LinesView("y marginal", "reading", "% in bin", marker=False)
        self._scatter = ScatterView()
        self._scores.figure.add_class("pw-merge-scores")
        self._marg_x.figure.add_class("pw-merge-marg-x")
        self._marg_y.figure.add_class("pw-merge-marg-y")
        self._scatter.figure.add_class("pw-merge-scatter")
        self._legend = widgets.HTML("")
        self._legend.add_class("pw-merge-legend")
        self._kept_html = widgets.HTML(layout=widgets.Layout(max_width="100%", overflow="auto"))
        self._kept_html.add_class("pw-merge-kept")
        self._preview_html = widgets.HTML(layout=widgets.Layout(max_width="100%", overflow="auto"))
        self._preview_html.add_class("pw-merge-preview")
        self._preview_html.add_class("pw-merge-scroll")  # many columns: scrolls sideways
        self._preview_title = widgets.HTML("")
        self._hrm_html = widgets.HTML(layout=widgets.Layout(max_width="100%", overflow="auto"))
        self._hrm_html.add_class("pw-merge-hrm")
        self._pair_label = widgets.Label("")
        self._pair_label.add_class("pw-merge-pair")
        # one key for the marginals (a legend inside a chart covers its curves)
        self._pair_key = widgets.HTML(
            '<div class="pw-merge-keyline">'
            f'<span><span class="pw-merge-swatch" style="background:{MERGED_COLOR}"></span>'
            "merged runs</span>"
            f'<span><span class="pw-merge-swatch" style="background:{POOLED_COLOR}"></span>'
            "pooled readings of the subexperiments</span></div>"
        )
        # MUCH shows its scores here, HRM its anchor: the figure is swapped in, not hidden
        # (a bqplot figure first drawn while hidden draws negative sizes)
        self._chart_row = _row([self._scores.figure, self._hrm_html, self._kept_html])
        self._matrix_row = _row([self._target, self._achieved, self._diff])
        self._pair_row = _row([self._marg_x.figure, self._marg_y.figure, self._scatter.figure])
        self._merge_body = widgets.VBox(
            [
                self._legend,
                self._matrix_row,
                self._chart_row,
                self._pair_label,
                self._pair_key,
                self._pair_row,
                self._preview_title,
                self._preview_html,
            ]
        )
        # design tab
        self._design_hems = widgets.Textarea(
            description="HEMs",
            placeholder="one HEM per line",
            layout=widgets.Layout(height="180px"),
        )
        self._design_pmcs = widgets.BoundedIntText(
            value=6, min=2, max=64, description="PMCs", layout=widgets.Layout(width="170px")
        )
        self._design_anchor = widgets.Text(description="anchor", placeholder="(none)")
        self._design_button = widgets.Button(description="Build design", button_style="primary")
        self._design_button.add_class("pw-merge-build")
        self._design_button.on_click(self._on_build)
        self._design_summary = widgets.Label("")
        self._design_summary.add_class("pw-merge-design-summary")
        self._design_link = widgets.HTML("")
        self._design_link.add_class("pw-merge-design-csv")
        self._design_table = widgets.HTML("")
        self._design_table.add_class("pw-merge-design-table")
        design_tab = widgets.VBox(
            [
                widgets.HBox(
                    [
                        self._design_hems,
                        widgets.VBox([self._design_pmcs, self._design_anchor, self._design_button]),
                    ]
                ),
                self._design_summary,
                self._design_link,
                self._design_table,
            ]
        )
        self._design_tab = design_tab
        self._tabs = widgets.Tab(
            children=[self._merge_body, design_tab], titles=("Merge", "Design")
        )

    def _sync_controls(self) -> None:
        """Controls show the settings of the result on screen (without recomputing)."""
        s = self._settings
        self._anchor_w.options = self._anchors
        self._anchor_w.value = s.anchor if s.anchor in self._anchors else None
        self._method_w.value = s.method
        self._dep_w.value = s.dep_lvl
        self._sims_w.value = s.n_sims
        self._runs_w.value = s.n_runs
        self._seed_w.value = s.seed
        if self._n_pmcs is not None:
            self._pmcs_w.value = self._n_pmcs
        hrm = s.method == "hrm"
        self._anchor_w.layout.display = "" if hrm else "none"
        self._much_box.layout.display = "none" if hrm else ""
        self._pmcs_w.layout.display = "none" if self._raw is None else ""

    def _draw_unavailable(self) -> None:
        """No merge yet: the Merge tab is one line saying which and why, instead of empty
        charts (the charts are left out, not hidden: a bqplot figure first drawn hidden
        draws negative sizes)."""
        first = self._none if self._result is None else self._merge_body
        if self._tabs.children[0] is not first:
            self._tabs.children = (first, self._design_tab)
            self._tabs.titles = ("Merge", "Design")
        if self._result is not None:
            return
        name = "MUCH" if self._settings.method == "much" else "HRM"
        why = (self.error or "no merge computed").split(":")[0]  # the details: the banner
        other = "HRM (pick an anchor)" if name == "MUCH" else "MUCH"
        self._none.value = (
            f'<div class="pw-merge-na"><b>{name} not available</b>: {_esc(why)} '
            f"(the banner above has the details). Try {other}, or plan runs that read every "
            "pair together in the Design tab.</div>"
        )

    def _on_control(self, key: str):
        def handler(change: dict) -> None:
            if self._syncing:
                return
            changes = {key: change["new"]}
            if key == "anchor":
                if change["new"] is None:
                    return
                changes["method"] = "hrm"
            self._from_control(lambda: self._set(**changes))
            self._draw_unavailable()

        return handler

    def _on_pmcs(self, change: dict) -> None:
        if self._syncing or self._raw is None:
            return
        self._from_control(lambda: self.set_n_pmcs(change["new"]))

    def _on_cell_pick(self, i: int, j: int) -> None:
        """A click on matrix cell (row i, column j): x is the column's HEM, y the row's."""
        names = self._matrix_names
        if 0 <= i < len(names) and 0 <= j < len(names) and self._pair != (names[j], names[i]):
            self._from_control(lambda: self.pick_pair(names[j], names[i]))

    def _on_build(self, _button: Any) -> None:
        self._from_control(self.build_design)

    # ------------------------------------------------------------------ drawing
    def _draw(self) -> None:
        s = self._settings
        diag = self._diagnostics
        names = self._shown_names()
        self._matrix_names = names
        if isinstance(diag, pm.MuchResult):
            target = diag.target.to_numpy(dtype=float)
            achieved = diag.achieved.to_numpy(dtype=float)
            self._target.show(target, names, f"target ({len(names)} kept HEMs)", 1.0)
            self._achieved.show(achieved, names, "achieved (chosen simulation)", 1.0)
            diff = achieved - target
            rmse = float(np.sqrt(np.mean(diff**2)))
            legend = self._show_diff(diff, names, f"achieved − target (RMSE {rmse:.3f})")
            self._draw_scores(diag)
            dropped = pm.drop_reasons(self._cor, s.dep_lvl).rename(
                columns={"dropped": "dropped HEM", "kept": "dropped by (kept HEM)"}
            )
            kept = pd.DataFrame({"kept HEM": names})
            self._kept_html.value = (
                title_html(f"kept at dep_lvl {s.dep_lvl:.2f}")
                + html_table(kept)
                + title_html(f"dropped ({len(dropped)}): r > dep_lvl with a kept HEM")
                + html_table(dropped, decimals={"r": 3})
            )
            self._hrm_html.value = ""
            self._hrm_html.layout.display = "none"
            self._show_chart(self._scores)
            self._preview_title.value = title_html(f"merged table (first {PREVIEW_ROWS} runs)")
        else:
            merged = _dedupe_columns(self._result)
            with np.errstate(invalid="ignore", divide="ignore"):  # constant HEM: NaN cell
                values = merged.to_numpy(dtype=float)
                achieved = np.atleast_2d(np.corrcoef(values, rowvar=False))
            self._achieved.show(achieved, names, "HRM merged correlation", 1.0)
            if self._cor is not None and all(n in self._cor.columns for n in names):
                target = self._cor.loc[names, names].to_numpy(dtype=float)
                self._target.show(target, names, "pooled correlation", 1.0)
                legend = self._show_diff(achieved - target, names, "merged − pooled")
            else:
                self._target.unavailable("pooled correlation", _pooled_why(self._cor_error))
                self._diff.layout.display = "none"  # merged − pooled: nothing to subtract
                legend = color_bar_html("correlation", 1.0)
            self._draw_anchor(diag)
            self._hrm_html.layout.display = ""
            q = diag.quantiles
            summary = pd.DataFrame(
                {
                    "": ["pooled anchor readings", "merged rows", "min", "median", "max"],
                    diag.anchor: [
                        len(diag.pooled),
                        diag.n_rows,
                        float(np.min(q)),
                        float(np.median(q)),
                        float(np.max(q)),
                    ],
                }
            )
            self._hrm_html.value = title_html(
                f"HRM on anchor {diag.anchor}: type-2 quantiles at {diag.n_rows} probabilities 0..1"
            ) + html_table(summary)
            kept = pd.DataFrame({"HEM": names})
            self._kept_html.value = title_html(
                f"{len(self._result.columns)} merged columns; first copy of each HEM:"
            ) + html_table(kept)
            repeats = len(self._result.columns) > len(names)
            self._preview_title.value = title_html(
                f"merged table (first {PREVIEW_ROWS} runs)"
                + (
                    "; a HEM read in several subexperiments has one column per "
                    "reading: NAME, NAME (2), ..."
                    if repeats
                    else ""
                )
            )
        if self._legend.value != legend:
            self._legend.value = legend
        self._draw_pair()
        self._preview_html.value = html_table(self._result.head(PREVIEW_ROWS))
        self._status.value = self._status_text()

    def _show_diff(self, diff: np.ndarray, names: list[str], title: str) -> str:
        """Show the difference matrix on one scale; the legend of the three matrices."""
        top = _top(diff)
        self._diff.show(diff, names, title, top)
        self._diff.layout.display = ""
        return color_bar_html("correlation", 1.0) + color_bar_html("difference", top)

    def _status_text(self) -> str:
        s = self._settings
        diag = self._diagnostics
        if isinstance(diag, pm.MuchResult):
            return (
                f"MUCH · dep_lvl {s.dep_lvl:.2f} · {len(diag.target)} kept, "
                f"{len(diag.dropped)} dropped · simulation {diag.chosen + 1} of "
                f"{len(diag.scores)} chosen (MSE {diag.scores[diag.chosen]:.3g}) · "
                f"{len(self._result)} runs, seed {s.seed} · computed in "
                f"{self.last_compute_ms:.0f} ms"
            )
        return (
            f"HRM · anchor {s.anchor} · {len(self._subs)} subexperiments · "
            f"{self._result.shape[0]} runs x {self._result.shape[1]} columns · computed in "
            f"{self.last_compute_ms:.0f} ms"
        )

    def _draw_scores(self, diag: pm.MuchResult) -> None:
        x = np.arange(1, len(diag.scores) + 1, dtype=float)
        v = self._scores
        with v.x.hold_sync():  # simulations 1..n_sims: integer ticks inside the data
            v.x.min = 1.0
            v.x.max = float(max(len(diag.scores), 2))
        # an explicit y domain: bqplot kept the placeholder's 0..1 domain after the data
        # changed, which flattened scores of ~1e-3 onto the axis
        scores = np.asarray(diag.scores, dtype=float)
        lo, hi = float(np.nanmin(scores)), float(np.nanmax(scores))
        pad = (hi - lo) * 0.08 or abs(hi) * 0.1 or 1e-12
        with v.y.hold_sync():
            v.y.min, v.y.max = max(lo - pad, 0.0), hi + pad
        v.figure.axes[1].tick_values = value_ticks(v.y.min, v.y.max)
        ticks = index_ticks(len(diag.scores))
        if not np.array_equal(v.figure.axes[0].tick_values, ticks):
            v.figure.axes[0].tick_values = ticks
        with v.lines.hold_sync():
            v.lines.x = x
            v.lines.y = np.asarray(diag.scores, dtype=float)
            v.lines.colors = ["#7f7f7f"]
            v.lines.labels = ["score"]
        with v.point.hold_sync():
            v.point.x = np.array([diag.chosen + 1.0])
            v.point.y = np.array([float(diag.scores[diag.chosen])])
            v.point.names = np.array([f"chosen #{diag.chosen + 1}"])
        v.figure.title = f"score (MSE to target) of {len(diag.scores)} simulations"

    def _draw_anchor(self, diag: HrmDetails) -> None:
        """HRM: the anchor's pooled readings as a cumulative curve (% of readings <= x) and
        the quantiles the merge took (dots, at most 40 of them), where the score chart is."""
        v = self._anchor_chart
        pooled = np.sort(np.asarray(diag.pooled, dtype=float))
        pooled = pooled[np.isfinite(pooled)]
        if len(pooled) == 0:
            self._chart_row.children = (self._hrm_html, self._kept_html)
            return
        probs = np.linspace(0.0, 1.0, min(len(pooled), 400))
        curve_x = np.quantile(pooled, probs)
        lo, hi = float(pooled[0]), float(pooled[-1])
        hi = hi if hi > lo else lo + 1.0
        with v.x.hold_sync():
            v.x.min, v.x.max = lo, hi
        with v.y.hold_sync():
            v.y.min, v.y.max = 0.0, 100.0
        v.figure.axes[0].tick_values = value_ticks(lo, hi, 4)
        v.figure.axes[1].tick_values = value_ticks(0.0, 100.0)
        v.figure.axes[0].label = diag.anchor
        with v.lines.hold_sync():
            v.lines.x = curve_x
            v.lines.y = 100 * probs
            v.lines.colors = ["#7f7f7f"]
            v.lines.labels = ["pooled"]
        step = max(1, len(diag.quantiles) // 40)
        with v.point.hold_sync():
            v.point.x = np.asarray(diag.quantiles, dtype=float)[::step]
            v.point.y = 100 * np.asarray(diag.probabilities, dtype=float)[::step]
            v.point.names = np.full(len(v.point.x), "")
            v.point.colors = [MERGED_COLOR] * len(v.point.x)
        v.figure.title = f"{len(pooled)} pooled readings, quantiles taken (dots)"
        self._show_chart(v)

    def _show_chart(self, view: LinesView) -> None:
        """Put the scores (MUCH) or anchor (HRM) chart in the row, if not there already."""
        children = (view.figure, self._hrm_html, self._kept_html)
        if tuple(self._chart_row.children) != children:
            self._chart_row.children = children

    def _draw_pair(self) -> None:
        if self._pair is None or self._result is None:
            self._pair_label.value = "(the merged table has fewer than two HEMs: no pair)"
            self._pair_row.layout.display = "none"
            self._pair_key.layout.display = "none"
            return
        self._pair_row.layout.display = ""
        self._pair_key.layout.display = ""
        x_name, y_name = self._pair
        merged = self._result
        x = merged[x_name].to_numpy(dtype=float)
        y = merged[y_name].to_numpy(dtype=float)
        r = float(np.corrcoef(x, y)[0, 1]) if np.std(x) > 0 and np.std(y) > 0 else float("nan")
        self._scatter.show(x, y, x_name, y_name, r)
        pooled = self._pooled_values((x_name, y_name))
        for view, name, axis, values in (
            (self._marg_x, x_name, "x", x),
            (self._marg_y, y_name, "y", y),
        ):
            centres, dens = shares(values, pooled[name])
            view.show_pair(centres, dens[0], dens[1])
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

    def _pooled_values(self, names: Sequence[str]) -> dict[str, np.ndarray]:
        """The pooled readings of the merged columns ``names`` (a renamed copy of a HEM,
        ``name.1``, has its HEM's readings)."""
        out: dict[str, np.ndarray] = {}
        cached = self._merger.pooled if self._cor is not None else {}
        hems = {str(c) for s in self._subs for c in s.columns}
        for key in names:
            if key in cached:
                out[key] = np.asarray(cached[key], dtype=float)
                continue
            root = key.rsplit(".", 1)[0] if key not in hems else key
            parts = [np.asarray(s[root], dtype=float) for s in self._subs if root in s.columns]
            out[key] = np.concatenate(parts) if parts else np.zeros(0)
        return out

    def _draw_design(self) -> None:
        d = self._design
        self._design_summary.value = (
            f"{d.n_subexperiments} subexperiments of {d.n_pmcs} PMCs for {len(d.hems)} HEMs"
            f"{' (anchor ' + d.anchor + ' in each)' if d.anchor else ''} · proven lower "
            f"bound {d.proven_bound} (Schönheim {d.lower_bound}) · "
            + (
                "optimal"
                if d.n_subexperiments <= d.proven_bound
                else f"{d.n_subexperiments - d.proven_bound} above the bound"
            )
            + f" · uncovered pairs: {len(d.uncovered_pairs())}"
        )
        frame = _design_frame(d)
        self._design_table.value = html_table(frame)
        payload = base64.b64encode(frame.to_csv(index=False).encode()).decode("ascii")
        self._design_link.value = (
            '<a class="pw-merge-csv-link" download="pair_covering_design.csv" '
            f'href="data:text/csv;base64,{payload}">⬇ Export design as CSV</a>'
        )


def _design_frame(design: pm.RunDesign) -> pd.DataFrame:
    """A design as a table: one row per subexperiment (numbered from 1), one column per PMC."""
    frame = design.to_frame()
    frame.insert(0, "subexperiment", range(1, len(frame) + 1))
    return frame


def _top(diff: np.ndarray) -> float:
    """The half-range of a difference scale: its largest |value| (at least 0.01)."""
    finite = np.abs(diff[np.isfinite(diff)])
    return max(float(finite.max()) if finite.size else 0.0, 0.01)


def _pooled_why(core_message: str) -> str:
    """Why HRM's pooled correlation is missing, from the core's message."""
    first = core_message.split(":")[0] if core_message else ""
    if "never read in the same subexperiment" in core_message:
        return f"{first} (a correlation needs both HEMs read in the same runs)"
    return core_message or "the subexperiments give no correlation"
