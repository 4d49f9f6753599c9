"""MergePanel: watch an HRM or MUCH merge of hardware-event subexperiments change live.

A thin view over one :class:`~perfweave.merge.MergeStudy`, which holds the subexperiments,
the cached intermediates of the merge (moving ``dep_lvl`` or ``n_sims`` recomputes only what
depends on it), the merge on show and why another is not available. ipywidgets controls
(sliders send on release: a drag never queues a backlog), bqplot charts and labelled
correlation matrices (:mod:`._matrix`), laid out and drawn by :mod:`._merge_layout`. Every
control has a Python method that does the same (an :func:`~._base.action`): a failing setting
keeps the previous result on screen, says why in the banner, puts the controls back at the
settings of that result and, called from Python, raises the core's
:class:`~perfweave.errors.MergeError`. A view that cannot be computed (MUCH when HEM pairs
were never read together, HRM's pooled correlation) is one "not available: why" line, never
an empty chart; the why is the study's :class:`~perfweave.merge.Unavailable`.

    panel = MergePanel(pm.process_raw_experiments(raw, 6))      # or MergePanel(raw, n_pmcs=6)
    panel.set_dep_lvl(0.9); panel.set_n_sims(200)
    panel.result        # merged DataFrame
    panel.diagnostics   # MuchResult (MUCH) or HrmDetails (HRM)
    panel.study         # the MergeStudy behind it
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import pandas as pd
import traitlets

from perfweave.merge import (
    DEFAULT_MOVES,
    HrmDetails,
    MergeSettings,
    MergeStudy,
    MuchResult,
    RunDesign,
)
from perfweave.widgets._base import CompositeBase, action
from perfweave.widgets._merge_layout import MergeLayout

__all__ = ["MergePanel"]


class MergePanel(MergeLayout, CompositeBase):
    """Live HRM / MUCH merge of subexperiments (see the module docstring).

    ``subexperiments``: a :class:`~perfweave.merge.MergeStudy`, the result of
    :func:`perfweave.merge.process_raw_experiments`, or a raw DataFrame (or CSV path)
    together with ``n_pmcs``; then ``n_pmcs`` is a control too. The other arguments are the
    fields of :class:`~perfweave.merge.MergeSettings`; those not given are the study's
    settings (a new study's: MUCH at dep_lvl 0.85, 100 simulations, 1000 runs, seed 0, the
    first HEM read in every subexperiment as the HRM anchor).
    """

    #: bumped after every successful redraw (for tests and notebook hooks)
    view_version = traitlets.Int(0)

    def __init__(
        self,
        subexperiments: MergeStudy | Sequence[pd.DataFrame] | pd.DataFrame | str | Path,
        n_pmcs: int | None = None,
        *,
        method: str | None = None,
        anchor: str | None = None,
        dep_lvl: float | None = None,
        n_sims: int | None = None,
        n_runs: int | None = None,
        seed: int | None = None,
    ) -> None:
        if isinstance(subexperiments, MergeStudy):
            study = subexperiments
        else:
            study = MergeStudy(subexperiments, n_pmcs)
        given = {
            "method": method,
            "anchor": anchor,
            "dep_lvl": dep_lvl,
            "n_sims": n_sims,
            "n_runs": n_runs,
            "seed": seed,
        }
        # a bad argument is the caller's error: raised
        settings = study.settings.with_(**{k: v for k, v in given.items() if v is not None})
        super().__init__(layout=widgets.Layout(width="100%", max_width="100%"))
        self._study = study
        self._matrix_names: list[str] = []
        self.last_compute_ms = 0.0
        self.last_draw_ms = 0.0
        self._build_controls()
        self._build_merge_tab()
        self._build_design_tab()
        self._set_children(self._style, self._header, self._status, self._tabs)
        self.add_class("pw-merge-panel")
        # a merge that cannot be computed is said in the banner and in the panel
        self._from_control(lambda: self._apply(settings))
        self._draw_unavailable()
        self._design_hems.value = "\n".join(study.hems)
        self._design_pmcs.value = max(len(s.columns) for s in study.subexperiments)
        if study.design is not None:
            self._draw_design()

    # ------------------------------------------------------------------ public state
    @property
    def study(self) -> MergeStudy:
        """The study this panel shows."""
        return self._study

    @property
    def result(self) -> pd.DataFrame | None:
        """The merged DataFrame on screen (a copy)."""
        result = self._study.result
        return None if result is None else result.copy()

    @property
    def diagnostics(self) -> MuchResult | HrmDetails | None:
        """MuchResult of the MUCH merge on screen, or HrmDetails of the HRM merge."""
        return self._study.diagnostics

    @property
    def settings(self) -> MergeSettings:
        """The settings of the result on screen (or of the first try, before any result)."""
        return self._study.settings

    @property
    def method(self) -> str:
        return self._study.settings.method

    @property
    def anchors(self) -> list[str]:
        """HEMs present in every subexperiment (the possible HRM anchors)."""
        return list(self._study.anchors)

    @property
    def kept(self) -> list[str]:
        """HEMs of the merge on screen (MUCH: kept at dep_lvl)."""
        return self._study.kept

    @property
    def dropped(self) -> pd.DataFrame:
        """HEMs dropped as dependent at the dep_lvl on screen, the kept HEM that dropped
        each and their r (:func:`perfweave.merge.drop_reasons`)."""
        return self._study.dropped

    @property
    def pair(self) -> tuple[str, str] | None:
        """The two HEMs of the scatter (x, y)."""
        return self._study.pair

    @property
    def design(self) -> RunDesign | None:
        return self._study.design

    # ------------------------------------------------------------------ actions
    @action
    def set_method(self, method: str) -> None:
        """``"much"`` or ``"hrm"``."""
        self._change(method=method)

    @action
    def set_anchor(self, anchor: str) -> None:
        """The HRM anchor (switches to HRM)."""
        self._change(method="hrm", anchor=anchor)

    @action
    def set_dep_lvl(self, dep_lvl: float) -> None:
        self._change(dep_lvl=dep_lvl)

    @action
    def set_n_sims(self, n_sims: int) -> None:
        self._change(n_sims=n_sims)

    @action
    def set_n_runs(self, n_runs: int) -> None:
        self._change(n_runs=n_runs)

    @action
    def set_seed(self, seed: int) -> None:
        self._change(seed=seed)

    @action
    def set_n_pmcs(self, n_pmcs: int) -> None:
        """Re-split the raw table into subexperiments of ``n_pmcs`` (raw input only)."""
        self._timed(lambda: self._study.set_n_pmcs(n_pmcs))

    @action
    def pick_pair(self, x_hem: str, y_hem: str) -> None:
        """Scatter and marginals of two HEMs of the merged table (a matrix click does this)."""
        self._study.pick_pair(x_hem, y_hem)
        self._draw_pair()
        self.view_version += 1

    def build_design(
        self,
        hems: int | Sequence[str] | None = None,
        n_pmcs: int | None = None,
        *,
        anchor: str | None = None,
        seed: int = 0,
        max_moves: int = DEFAULT_MOVES,
        time_limit: float | None = None,
    ) -> RunDesign:
        """A pair covering design (the same as :func:`perfweave.merge.pair_covering_design`)
        of the Design tab's HEMs, PMCs and anchor unless given."""
        if hems is None:
            hems = [h.strip() for h in self._design_hems.value.splitlines() if h.strip()]
        if n_pmcs is None:
            n_pmcs = self._design_pmcs.value
        if anchor is None and self._design_anchor.value.strip():
            anchor = self._design_anchor.value.strip()
        design = self._guard(
            lambda: self._study.build_design(
                hems, n_pmcs, anchor=anchor, seed=seed, max_moves=max_moves, time_limit=time_limit
            )
        )
        self._design_hems.value = "\n".join(design.hems)
        self._design_pmcs.value = design.n_pmcs
        self._draw_design()
        self.view_version += 1
        return design

    def design_csv(self) -> str:
        """The design on screen as CSV (one row per subexperiment, one column per PMC)."""
        return self._study.design_frame().to_csv(index=False)

    def export_design(self, path: str | Path) -> Path:
        """Write :meth:`design_csv` to ``path``."""
        path = Path(path)
        path.write_text(self.design_csv())
        return path

    # ------------------------------------------------------------------ internals
    def _change(self, **changes: Any) -> None:
        self._timed(lambda: self._study.change(**changes))

    def _apply(self, settings: MergeSettings) -> None:
        self._timed(lambda: self._study.apply(settings))

    def _timed(self, merge: Any) -> None:
        """Run the study's merge, then draw its result (only a merge that worked is shown)."""
        start = time.perf_counter()
        merge()
        self.last_compute_ms = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        self._draw()
        self._resync()
        self._draw_unavailable()
        self.last_draw_ms = (time.perf_counter() - start) * 1000
        self.view_version += 1

    def _on_control(self, key: str):
        def handler(change: dict) -> None:
            if self._syncing:
                return
            changes = {key: change["new"]}
            if key == "anchor":
                if change["new"] is None:
                    return
                changes["method"] = "hrm"
            self._from_control(lambda: self._change(**changes))
            self._draw_unavailable()

        return handler

    def _on_pmcs(self, change: dict) -> None:
        if self._syncing or not self._study.has_raw:
            return
        self._from_control(lambda: self.set_n_pmcs(change["new"]))

    def _on_cell_pick(self, i: int, j: int) -> None:
        """A click on matrix cell (row i, column j): x is the column's HEM, y the row's."""
        names = self._matrix_names
        if 0 <= i < len(names) and 0 <= j < len(names) and self.pair != (names[j], names[i]):
            self._from_control(lambda: self.pick_pair(names[j], names[i]))

    def _on_build(self, _button: Any) -> None:
        self._from_control(self.build_design)
