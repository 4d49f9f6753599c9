"""ClassPicker: opreport's profile classes and axis, picked and seen live in a notebook.

A thin view over one :class:`perfweave.classes.ClassStudy`: the study reads the source once,
holds the choice of spec, merge, ``-x`` and axis, and answers every question the view asks
(the classes, the report and inverted tables with their filter and sort, opreport's text,
the command line, the status line, completions). The widget holds the controls and the
layout (:mod:`._picker_view`): ipywidgets (the spec with completion from the values present,
merge toggles, the axis) and a bqplot bar chart; the report and the inverted view are
anywidget tables (:mod:`._picker_table`) that draw only the rows and the page of class
columns in view, from binary windows; the Classes tab is an HTML table whose every value is
escaped text.

Each control has a Python method (:meth:`ClassPicker.set_spec`, :meth:`~ClassPicker.set_merge`,
:meth:`~ClassPicker.set_axis`, :meth:`~ClassPicker.resolve`, :meth:`~ClassPicker.sort_by`,
:meth:`~ClassPicker.set_filter`, :meth:`~ClassPicker.set_by`, :meth:`~ClassPicker.show`).
The widget contract (:mod:`._base`): every method is an :func:`~._base.action` (it returns
the widget, so calls chain: ``picker.set_spec(...).set_merge(...)``); a change
that opreport rejects (axis conflict, a spec that selects nothing, an unknown tag) changes
nothing; the method raises the :mod:`perfweave.errors` exception, a control shows the
message in the banner and snaps back. After an axis conflict (and when a session that needs
a merge opens on a view that resolves it, said in the status line) the views that work are
offered as buttons (:attr:`ClassPicker.resolutions`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd
import traitlets

from perfweave.classes import (
    ArchiveLimits,
    ClassStudy,
    InvertedProfile,
    MergeOptions,
    ProfileClasses,
    Resolution,
)
from perfweave.errors import AxisConflict, PerfweaveError, ShapeError
from perfweave.widgets._base import CompositeBase, action
from perfweave.widgets._picker_view import MERGE_FLAGS, VIEWS, PickerView, short_names

__all__ = ["ClassPicker", "short_names"]


class ClassPicker(PickerView, CompositeBase):
    """Pick opreport's profile classes (spec, merge options, axis) and see the report live.

    ``source``: an OProfile session directory, a sample-file listing, a spec table (or
    :class:`~perfweave.classes.SampleSpec` records) or perf data (``perf script`` text,
    ``perf report --stdio`` output, perf JSON, or a samples DataFrame). ``spec``: profile
    words (a string or list), ``merge``: opreport's ``--merge`` words, ``axis``: ``"auto"``
    (opreport's choice) or the axis to show (``event``, ``tgid``, ``tid``, ``cpu``: the
    other thread/cpu axes are merged). ``kind`` forces how a file path is read
    (``"session"``, ``"listing"``, ``"perf"``); ``archive_limits`` caps what a session
    archive may unpack to (:class:`~perfweave.classes.ArchiveLimits`). :attr:`study` is the
    :class:`~perfweave.classes.ClassStudy` it shows.

    The widget contract (:mod:`perfweave.widgets._base`): a method that fails raises the
    :mod:`perfweave.errors` exception and changes nothing; a control that fails shows the
    message in the banner and snaps back; :attr:`error` is the last message (``""``).
    """

    #: bumped after every redraw (and failed change), once ``last_update_ms`` is set
    updates = traitlets.Int(0)

    def __init__(
        self,
        source: Any,
        spec: str | Iterable[str] = (),
        merge: str | Iterable[str] = (),
        *,
        axis: str = "auto",
        exclude_dependent: bool = False,
        kind: str | None = None,
        archive_limits: ArchiveLimits | None = None,
    ) -> None:
        self._study = ClassStudy(
            source,
            spec,
            merge,
            exclude_dependent=exclude_dependent,
            kind=kind,
            archive_limits=archive_limits,
        )
        #: milliseconds the last control change took in Python (arrange + redraw built)
        self.last_update_ms = 0.0
        super().__init__()
        self._build()
        self._wire()
        self._set_children(*self._children)
        self.add_class("pw-picker")
        # an empty session or a spec that selects nothing: the banner says it
        with contextlib.suppress(PerfweaveError):
            self._guard(lambda: self._change(lambda: self._study.open(axis)))

    @traitlets.validate("updates")
    def _check_updates(self, proposal: dict) -> int:
        value = proposal["value"]
        if value < self.updates:
            raise ShapeError(f"updates counts redraws and only grows; not {value}")
        return value

    # ------------------------------------------------------------------ public state
    @property
    def study(self) -> ClassStudy:
        """The study this widget shows (usable without the widget)."""
        return self._study

    @property
    def classes(self) -> ProfileClasses | None:
        """The classes shown now (``None`` until a choice worked)."""
        return self._study.classes

    @property
    def report(self) -> pd.DataFrame | None:
        """The columnar report shown now (``perfweave.classes.report(classes, by)``)."""
        return self._study.report

    @property
    def inverted(self) -> list[InvertedProfile]:
        """One :class:`~perfweave.classes.InvertedProfile` per binary of the shown classes."""
        return self._study.inverted

    @property
    def spec(self) -> list[str]:
        """The profile words last asked for (the result may be of an earlier choice: see
        :attr:`applied`)."""
        return list(self._study.words)

    @property
    def merge(self) -> MergeOptions:
        return self._study.merge

    @property
    def exclude_dependent(self) -> bool:
        return self._study.exclude_dependent

    @property
    def axis(self) -> str | None:
        """The axis the shown classes differ along (opreport's), ``None`` before any result."""
        return self._study.axis

    @property
    def axis_choice(self) -> str:
        return self._study.axis_choice

    @property
    def applied(self) -> dict[str, Any] | None:
        """The spec, merge and -x of the result on screen."""
        return self._study.applied

    @property
    def opreport_text(self) -> str:
        """What ``opreport`` prints for the shown classes ("" without sample counts)."""
        return self._study.opreport_text

    @property
    def command_line(self) -> str:
        """The ``perfweave opreport ...`` command for the shown choice (session dirs only)."""
        return self._study.command_line

    @property
    def resolutions(self) -> list[Resolution]:
        """The other valid views offered as buttons (after an axis conflict, or beside the
        view the picker opened on when the source needs a merge)."""
        return list(self._study.offers)

    @property
    def view(self) -> str:
        """The open tab: ``"report"``, ``"classes"``, ``"inverted"`` or ``"opreport"``."""
        return VIEWS[self._tabs.selected_index or 0]

    def table_view(self, view: str = "report") -> pd.DataFrame:
        """The rows of a table (``"report"`` or ``"inverted"``) as it shows them: flat columns
        (names, then ``"<class> samples"`` and ``"<class> %"``), filtered and sorted."""
        return self._study.table_view(view)

    def inverted_table(self) -> pd.DataFrame:
        """The inverted view as the table shows it: per binary and application that used it,
        samples (files without sample counts) and % of the binary's, per class."""
        return self.table_view("inverted")

    def completions(self, typed: str) -> list[str]:
        """Completions of the last word of ``typed`` from the values present in the data."""
        return self._study.completions(typed)

    # ------------------------------------------------------------------ actions (Python)
    @action
    def set_spec(self, spec: str | Iterable[str]) -> None:
        """Apply profile words (``"event:CPU_CLK_UNHALTED tgid:100"`` or a list)."""
        self._change(lambda: self._study.set_spec(spec))

    @action
    def set_merge(
        self, merge: str | Iterable[str] | None = None, *, exclude_dependent: bool | None = None
    ) -> None:
        """Apply opreport's ``--merge`` words (``"cpu,tgid"``, ``["lib"]``, ``"all"``, ``""``)."""
        self._change(lambda: self._study.set_merge(merge, exclude_dependent=exclude_dependent))

    @action
    def set_axis(self, axis: str) -> None:
        """Show the classes along ``axis``: merge the other tgid/tid/cpu axes (keeping the
        lib and unitmask choices); ``"auto"`` leaves the merge options as they are. When
        the axis cannot be shown (two events along cpu), nothing changes and the views that
        work are offered."""
        self._change(lambda: self._study.set_axis(axis))

    @action
    def resolve(self, which: int | Resolution = 0) -> None:
        """Show one of :attr:`resolutions` (its index or itself): what its button does."""
        self._change(lambda: self._study.resolve(which))

    @action
    def set_by(self, by: str) -> None:
        """Report rows per ``"image"``, ``"application"`` or ``"symbol"`` (perf data)."""
        self._study.set_by(by)
        self._resync()
        self._draw()

    @action
    def sort_by(self, column: str, descending: bool = True, view: str = "report") -> None:
        """Sort a table (``"report"`` or ``"inverted"``) by a column of :meth:`table_view`
        (e.g. ``"tgid:100 samples"``); ``""`` restores the core's order."""
        self._study.sort_by(column, descending, view)
        self._resync()
        self._draw_table(view)

    @action
    def set_filter(self, needle: str, view: str = "report") -> None:
        """Keep the rows of a table whose names contain ``needle`` (case-insensitive)."""
        self._study.set_filter(needle, view)
        self._resync()
        self._draw_table(view)
        if view == "report":
            self._draw_chart()  # the chart shows the images the filter keeps

    @action
    def show(self, view: str) -> None:
        """Open a tab: ``"report"``, ``"classes"``, ``"inverted"`` or ``"opreport"``."""
        if view not in VIEWS:
            raise ShapeError(f"unknown view {view!r}; choose from {VIEWS}")
        self._tabs.selected_index = VIEWS.index(view)
        self._draw_tab()

    def _change(self, choose: Callable[[], None]) -> None:
        """Run a change of the study's choice and draw it; after an axis conflict the views
        that work are offered (the study changed nothing else)."""
        t0 = time.perf_counter()
        try:
            choose()
        except AxisConflict:
            self._draw_offers()
            raise
        self._draw()
        self.last_update_ms = (time.perf_counter() - t0) * 1000

    def _failed(self, exc: BaseException) -> None:
        super()._failed(exc)
        self.updates += 1  # after the message is set (notebook hooks read both)

    def _succeeded(self) -> None:
        super()._succeeded()
        self.updates += 1

    # ------------------------------------------------------------------ control callbacks
    def _wire(self) -> None:
        """Each control calls its action through the control path (banner, snap back)."""
        ctl = self._from_control
        for box in (*self._toggles.values(), self._xdep_box):
            box.observe(self._on_toggle, "value")
        self._axis_box.observe(lambda ch: ctl(lambda: self.set_axis(ch["new"])), "value")
        self._by_box.observe(lambda ch: ctl(lambda: self.set_by(ch["new"])), "value")
        self._filter_box.observe(lambda ch: ctl(lambda: self.set_filter(ch["new"])), "value")
        self._inv_filter.observe(
            lambda ch: ctl(lambda: self.set_filter(ch["new"], "inverted")), "value"
        )
        self._table.on_sort = lambda col, desc: ctl(lambda: self.sort_by(col, desc))
        self._inv_table.on_sort = lambda col, desc: ctl(
            lambda: self.sort_by(col, desc, view="inverted")
        )
        self._chart_class.observe(
            lambda ch: None if self._syncing else self._draw_chart(), names="value"
        )
        self._tabs.observe(self._draw_tab, "selected_index")
        self._resync()

    def _on_toggle(self, change: dict) -> None:
        if self._syncing:
            return
        owner, toggles = change["owner"], self._toggles
        if owner is toggles["all"] and not change["new"]:
            words: list[str] = []
        elif owner is toggles["all"]:
            words = ["all"]
        else:
            words = [f for f in MERGE_FLAGS[:-1] if toggles[f].value]
            if owner is toggles["tid"] and not change["new"] and self._study.merge.tgid:
                words = [w for w in words if w != "tgid"]  # tgid implies tid
        xdep = self._xdep_box.value
        self._from_control(lambda: self.set_merge(words, exclude_dependent=xdep))

    def _completions(self, typed: str) -> tuple[list[str], str]:
        """What the spec box offers for ``typed``: its completions and the one-line hint."""
        try:
            options = self.completions(typed)
        except Exception:  # completion never breaks typing
            options = []
        return options, self._study.hint(typed)
