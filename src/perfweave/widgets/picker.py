"""ClassPicker: opreport's profile classes and axis, picked and seen live in a notebook.

A thin view over :mod:`perfweave.classes`: the source is parsed once and coded once
(:func:`perfweave.classes.load_source`, :class:`~perfweave.classes.SpecCodes`); a spec
change cuts the codes to the rows it selects, a merge or axis change re-arranges that
selection, and the widget draws from the core's report arrays. Controls are ipywidgets (the
spec with completion from the values present, merge toggles, the axis) and a bqplot bar
chart. The report and the inverted view are anywidget tables (:mod:`._picker_table`) that
draw only the rows and the page of class columns in view, from binary windows; the Classes
tab is an HTML table whose every value is escaped text.

Each control has a Python method (:meth:`ClassPicker.set_spec`, :meth:`~ClassPicker.set_merge`,
:meth:`~ClassPicker.set_axis`, :meth:`~ClassPicker.resolve`, :meth:`~ClassPicker.sort_by`,
:meth:`~ClassPicker.set_filter`, :meth:`~ClassPicker.set_by`, :meth:`~ClassPicker.show`).
The widget contract (:mod:`._base`): a change that opreport rejects (axis conflict, a spec
that selects nothing, an unknown tag) changes nothing; the method raises the
:mod:`perfweave.errors` exception, a control shows the message in the banner and snaps back.
After an axis conflict (and when a session that needs a merge opens on a view that resolves
it, said in the status line) the views that work are offered as buttons
(:func:`perfweave.classes.resolutions`).
"""

from __future__ import annotations

import functools
import re
import shlex
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import ipywidgets as widgets
import numpy as np
import pandas as pd
import traitlets

from perfweave.classes.archive import ArchiveLimits
from perfweave.classes.arrange import ProfileClasses, arrange
from perfweave.classes.axis import AXES
from perfweave.classes.invert import InvertedProfile, invert, invert_table
from perfweave.classes.merge_options import MergeOptions
from perfweave.classes.opreport_format import format_image_report
from perfweave.classes.profile_spec import TAGS, ProfileSpec
from perfweave.classes.report import ReportArrays, report_arrays
from perfweave.classes.resolve import Resolution, axis_merge, resolutions
from perfweave.classes.source import ClassSource, load_source, text
from perfweave.classes.spec_codes import SpecCodes
from perfweave.errors import AxisConflict, PerfweaveError, ShapeError, SpecError
from perfweave.widgets._base import CompositeBase
from perfweave.widgets._html import STYLE as TABLE_STYLE
from perfweave.widgets._html import esc as _esc
from perfweave.widgets._html import table as html_table
from perfweave.widgets._picker_table import ReportTable, TableData

MERGE_FLAGS = ("cpu", "tid", "tgid", "lib", "unitmask", "all")
AXIS_CHOICES = ("auto", *AXES)
VIEWS = ("report", "classes", "inverted", "opreport")
#: the two tables: the report and the inverted view
TABLES = ("report", "inverted")
#: images in the bar chart
TOP_IMAGES = 10
_TAG_COLUMN = {
    "event": "event",
    "count": "count",
    "unit-mask": "unitmask",
    "tgid": "tgid",
    "tid": "tid",
    "cpu": "cpu",
    "image": "image",
    "image-exclude": "image",
    "lib-image": "lib_image",
}


_STYLE = (
    "<style>"
    + TABLE_STYLE
    + """
.pw-picker-hint{color:var(--jp-ui-font-color2,#555);font-size:12px}
.pw-picker-nocounts{background:#fff8e1;border:1px solid #e0b000;color:#5c4400;
  padding:6px 10px;margin:4px 0;font-size:13px;line-height:1.45;white-space:normal}
.pw-picker .pw-picker-toggle{background:var(--jp-layout-color1,#fff);color:#555;
  border:1px solid #b9bec5;box-shadow:none}
.pw-picker .pw-picker-toggle.mod-active{background:#1f6feb;color:#fff;border-color:#1f6feb;
  font-weight:600;box-shadow:none}
.pw-picker .pw-picker-fix{background:#eef4ff;color:#0b4fc0;border:1px solid #8db4f5}
.pw-picker .pw-picker-offers .widget-label{font-weight:600}
.pw-picker .pw-picker-axis-shown{font-size:13px}
</style>"""
)


def _action(fn: Callable[..., ClassPicker]) -> Callable[..., ClassPicker]:
    """A public action under the widget contract (:meth:`CompositeBase._guard`)."""

    @functools.wraps(fn)
    def run(self: ClassPicker, *args: Any, **kwargs: Any) -> ClassPicker:
        return self._guard(lambda: fn(self, *args, **kwargs))

    return run


class ClassPicker(CompositeBase):
    """Pick opreport's profile classes (spec, merge options, axis) and see the report live.

    ``source``: an OProfile session directory, a sample-file listing, a spec table (or
    :class:`~perfweave.classes.SampleSpec` records) or perf data (``perf script`` text,
    ``perf report --stdio`` output, perf JSON, or a samples DataFrame). ``spec``: profile
    words (a string or list), ``merge``: opreport's ``--merge`` words, ``axis``: ``"auto"``
    (opreport's choice) or the axis to show (``event``, ``tgid``, ``tid``, ``cpu``: the
    other thread/cpu axes are merged). ``kind`` forces how a file path is read
    (``"session"``, ``"listing"``, ``"perf"``); ``archive_limits`` caps what a session
    archive may unpack to (:class:`~perfweave.classes.ArchiveLimits`).

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
        self._source: ClassSource = load_source(source, kind, archive_limits=archive_limits)
        self._words: list[str] = _words(spec)
        self._merge = MergeOptions.parse(merge)
        self._xdep = bool(exclude_dependent)
        self._axis_choice = "auto"
        #: other valid views offered as buttons (after a conflict, or beside a default)
        self._offers: list[Resolution] = []
        #: how the view on screen came about, when the picker chose it (said in the status)
        self._chosen_note = ""
        self._classes: ProfileClasses | None = None
        self._applied: dict[str, Any] | None = None
        self._report: ReportArrays | None = None
        self._report_frame: pd.DataFrame | None = None
        self._inverted: list[InvertedProfile] | None = None
        self._by = "image"
        #: per table: (column, descending) or None (the core's order), and the filter text
        self._sorts: dict[str, tuple[str, bool] | None] = dict.fromkeys(TABLES)
        self._filters: dict[str, str] = dict.fromkeys(TABLES, "")
        self._data: dict[str, TableData | None] = dict.fromkeys(TABLES)
        self._selection: tuple[tuple, SpecCodes] | None = None
        #: milliseconds the last control change took in Python (arrange + redraw built)
        self.last_update_ms = 0.0
        #: whether the offered views are ways out of a conflict (else alternatives)
        self._offers_fix = False
        super().__init__()
        self._build()
        self._set_children(*self._children)
        self.add_class("pw-picker")
        try:
            if axis != "auto":
                self.set_axis(axis)
            else:
                self._guard(lambda: self._attempt(self._words, self._merge, self._xdep, "auto"))
        except AxisConflict as exc:
            if self._offers:  # a session that needs a merge opens on a view that resolves it
                first = self._offers[0]
                note = _conflict_note(str(exc))
                self._from_control(lambda: self._apply_resolution(first, note=note))
        except PerfweaveError:
            pass  # an empty session, a spec that selects nothing: said in the banner

    # ------------------------------------------------------------------ public state
    @property
    def classes(self) -> ProfileClasses | None:
        """The classes shown now (``None`` until a choice worked)."""
        return self._classes

    @property
    def report(self) -> pd.DataFrame | None:
        """The columnar report shown now (``perfweave.classes.report(classes, by)``)."""
        if self._report is not None and self._report_frame is None:
            self._report_frame = self._report.frame()  # built when first read
        return self._report_frame

    @property
    def inverted(self) -> list[InvertedProfile]:
        """One :class:`~perfweave.classes.InvertedProfile` per binary of the shown classes."""
        if self._inverted is None:
            self._inverted = invert(self._classes) if self._classes is not None else []
        return self._inverted

    @property
    def spec(self) -> list[str]:
        """The profile words last asked for (the result may be of an earlier choice: see
        :attr:`applied`)."""
        return list(self._words)

    @property
    def merge(self) -> MergeOptions:
        return self._merge

    @property
    def exclude_dependent(self) -> bool:
        return self._xdep

    @property
    def axis(self) -> str | None:
        """The axis the shown classes differ along (opreport's), ``None`` before any result."""
        return self._classes.axis if self._classes is not None else None

    @property
    def axis_choice(self) -> str:
        return self._axis_choice

    @property
    def applied(self) -> dict[str, Any] | None:
        """The spec, merge and -x of the result on screen."""
        return None if self._applied is None else dict(self._applied)

    @property
    def opreport_text(self) -> str:
        """What ``opreport`` prints for the shown classes ("" without sample counts)."""
        if self._classes is None or "samples" not in self._classes.table:
            return ""
        return format_image_report(self._classes)

    @property
    def command_line(self) -> str:
        """The ``perfweave opreport ...`` command for the shown choice (session dirs only)."""
        if self._source.kind != "session" or self._applied is None:
            return ""
        unpacked = self._source.unpacked
        return command_line(
            self._source.label,  # the directory or archive given (the CLI takes both)
            self._applied["spec"],
            self._applied["merge"],
            self._applied["exclude_dependent"],
            unpacked.limits.cli_options() if unpacked is not None else (),
        )

    def table_view(self, view: str = "report") -> pd.DataFrame:
        """The rows of a table (``"report"`` or ``"inverted"``) as it shows them: flat columns
        (names, then ``"<class> samples"`` and ``"<class> %"``), filtered and sorted."""
        data = self._table_data(view)
        if data is None:
            return pd.DataFrame()
        return data.frame(data.order(self._filters[view], self._sorts[view]))

    def inverted_table(self) -> pd.DataFrame:
        """The inverted view as the table shows it: per binary and application that used it,
        samples (files without sample counts) and % of the binary's, per class."""
        return self.table_view("inverted")

    def _table_data(self, view: str) -> TableData | None:
        if view not in TABLES:
            raise ShapeError(f"unknown table {view!r}; choose from {TABLES}")
        if view == "inverted" and self._data["inverted"] is None and self._classes is not None:
            c = self._classes
            values = ("samples", "percent") if "samples" in c.table else ("files", "percent")
            self._data["inverted"] = TableData.of(invert_table(c), values)
        return self._data[view]

    def completions(self, typed: str) -> list[str]:
        """Completions of the last word of ``typed`` from the values present in the data."""
        return _complete(typed, self._source.values())

    # ------------------------------------------------------------------ actions (Python)
    @_action
    def set_spec(self, spec: str | Iterable[str]) -> ClassPicker:
        """Apply profile words (``"event:CPU_CLK_UNHALTED tgid:100"`` or a list)."""
        try:
            words = _words(spec)
        except ValueError as exc:
            raise SpecError(f"cannot split the specification: {exc}") from exc
        return self._attempt(words, self._merge, self._xdep, self._axis_choice)

    @_action
    def set_merge(
        self, merge: str | Iterable[str] | None = None, *, exclude_dependent: bool | None = None
    ) -> ClassPicker:
        """Apply opreport's ``--merge`` words (``"cpu,tgid"``, ``["lib"]``, ``"all"``, ``""``)."""
        xdep = self._xdep if exclude_dependent is None else bool(exclude_dependent)
        opts = self._merge if merge is None else MergeOptions.parse(merge)
        return self._attempt(self._words, opts, xdep, "auto")

    @_action
    def set_axis(self, axis: str) -> ClassPicker:
        """Show the classes along ``axis``: merge the other tgid/tid/cpu axes (keeping the
        lib and unitmask choices); ``"auto"`` leaves the merge options as they are. When
        the axis cannot be shown (two events along cpu), nothing changes and the views that
        work are offered."""
        if axis not in AXIS_CHOICES:
            raise SpecError(f"unknown axis {axis!r}; choose from {AXIS_CHOICES}")
        merge = self._merge if axis == "auto" else axis_merge(axis, self._merge)
        return self._attempt(self._words, merge, self._xdep, axis)

    @property
    def resolutions(self) -> list[Resolution]:
        """The other valid views offered as buttons (after an axis conflict, or beside the
        view the picker opened on when the source needs a merge)."""
        return list(self._offers)

    @_action
    def resolve(self, which: int | Resolution = 0) -> ClassPicker:
        """Show one of :attr:`resolutions` (its index or itself): what its button does."""
        if isinstance(which, Resolution):
            res = which
        elif isinstance(which, int) and 0 <= which < len(self._offers):
            res = self._offers[which]
        else:
            raise SpecError(f"no resolution {which!r}; {len(self._offers)} offered")
        return self._apply_resolution(res)

    def _apply_resolution(self, res: Resolution, note: str = "") -> ClassPicker:
        offers = [r for r in self._offers if r != res]
        words = list(self._words)
        if res.event:
            words = [w for w in words if not w.startswith("event:")] + res.words
        self._attempt(words, res.merge, self._xdep, res.axis, offers=offers)
        self._chosen_note = note
        self._draw_status()
        return self

    @_action
    def set_by(self, by: str) -> ClassPicker:
        """Report rows per ``"image"``, ``"application"`` or ``"symbol"`` (perf data)."""
        if by not in ("image", "application", "symbol"):
            raise SpecError(f"unknown report level {by!r}")
        old = self._by
        self._by = by
        try:
            rep = self._make_report(self._classes) if self._classes else None
        except PerfweaveError:
            self._by = old
            self._resync()
            raise
        self._set_report(rep)
        self._sorts["report"] = None
        self._resync()
        self._draw()
        return self

    @_action
    def sort_by(self, column: str, descending: bool = True, view: str = "report") -> ClassPicker:
        """Sort a table (``"report"`` or ``"inverted"``) by a column of :meth:`table_view`
        (e.g. ``"tgid:100 samples"``); ``""`` restores the core's order."""
        data = self._table_data(view)
        cols = data.columns() if data is not None else []
        if column and column not in cols:
            raise ShapeError(f"no column {column!r} to sort by; columns: {cols}")
        self._sorts[view] = (column, bool(descending)) if column else None
        self._resync()
        self._draw_table(view)
        return self

    @_action
    def set_filter(self, needle: str, view: str = "report") -> ClassPicker:
        """Keep the rows of a table whose names contain ``needle`` (case-insensitive)."""
        if view not in TABLES:
            raise ShapeError(f"unknown table {view!r}; choose from {TABLES}")
        self._filters[view] = str(needle or "")
        self._resync()
        self._draw_table(view)
        if view == "report":
            self._draw_chart()  # the chart shows the images the filter keeps
        return self

    @_action
    def show(self, view: str) -> ClassPicker:
        """Open a tab: ``"report"``, ``"classes"``, ``"inverted"`` or ``"opreport"``."""
        if view not in VIEWS:
            raise ShapeError(f"unknown view {view!r}; choose from {VIEWS}")
        self._tabs.selected_index = VIEWS.index(view)
        self._draw_tab()
        return self

    @property
    def view(self) -> str:
        return VIEWS[self._tabs.selected_index or 0]

    # ------------------------------------------------------------------ computing
    def _attempt(
        self,
        words: list[str],
        merge: MergeOptions,
        xdep: bool,
        axis_choice: str,
        offers: list[Resolution] | None = None,
    ) -> ClassPicker:
        """Arrange the classes of one choice; only a choice that works becomes the state
        (a failure leaves every setting, control and view as it was)."""
        t0 = time.perf_counter()
        try:
            self._source.check_nonempty()
            spec = ProfileSpec.parse(words)
            selected = self._selected(spec, words, xdep)
            merge = MergeOptions.parse(str(merge), exclude_dependent=xdep)
            classes = arrange(selected, merge, exclude_dependent=xdep)
            if axis_choice not in ("auto", classes.axis):
                raise AxisConflict(
                    f"these classes differ along the {classes.axis} axis, not {axis_choice}"
                )
            rep = self._make_report(classes)
        except AxisConflict:
            try:
                found = resolutions(selected, merge, exclude_dependent=xdep)
            except PerfweaveError:
                found = []
            if self._classes is not None:  # the view on screen is no way out to offer
                found = [r for r in found if r.event or r.merge != self._merge]
            self._offers, self._offers_fix = found, True
            self._draw_offers()
            raise
        self._words, self._merge, self._xdep = list(words), merge, xdep
        self._axis_choice = axis_choice
        self._offers, self._offers_fix = list(offers or []), False
        self._chosen_note = ""
        self._classes = classes
        self._set_report(rep)
        self._inverted = None
        self._applied = {
            "spec": list(self._words),
            "merge": str(self._merge),
            "exclude_dependent": self._xdep,
        }
        self._draw()
        self.last_update_ms = (time.perf_counter() - t0) * 1000
        return self

    def _selected(self, spec: ProfileSpec, words: list[str], xdep: bool) -> SpecCodes:
        """The rows ``spec`` selects, as codes cut from the source's (computed once); a
        merge or axis change reuses the last selection."""
        key = (tuple(words), xdep)
        if self._selection is not None and self._selection[0] == key:
            return self._selection[1]
        sessions = spec.sessions()
        table = self._source.table(sessions)
        if table.empty:
            raise SpecError("no sample files found: profile specification too strict ?")
        mask = self._source.mask(spec, sessions, exclude_dependent=xdep)
        selected = self._source.codes(sessions).take(mask)
        self._selection = (key, selected)
        return selected

    def _set_report(self, rep: ReportArrays | None) -> None:
        self._report = rep
        self._report_frame = None
        data = None if rep is None else TableData.of_arrays(rep)
        self._data = {"report": data, "inverted": None}

    def _make_report(self, classes: ProfileClasses | None) -> ReportArrays | None:
        if classes is None or "samples" not in classes.table:
            return None
        return report_arrays(classes, by=self._by)

    def _failed(self, exc: BaseException) -> None:
        super()._failed(exc)
        self.updates += 1  # after the message is set (notebook hooks read both)

    def _succeeded(self) -> None:
        super()._succeeded()
        self.updates += 1

    # ------------------------------------------------------------------ building the view
    def _build(self) -> None:
        src = self._source
        kind = {
            "session": "OProfile session ",
            "listing": "sample-file listing ",
            "perf": "perf data ",
        }
        self._title = widgets.Label(f"ClassPicker: {kind.get(src.kind, '')}{text(src.label)}")
        self._spec_box = widgets.Combobox(
            value=" ".join(self._words),
            placeholder="profile spec, e.g. event:CPU_CLK_UNHALTED tgid:100",
            options=[],
            ensure_option=False,
            continuous_update=True,
            description="spec",
            layout=widgets.Layout(width="520px"),
        )
        self._spec_box.add_class("pw-picker-spec")
        self._apply = widgets.Button(description="Apply", tooltip="apply the profile specification")
        self._apply.add_class("pw-picker-apply")
        self._hint = widgets.HTML()
        self._hint.add_class("pw-picker-hint")
        self._toggles = {}
        for flag in MERGE_FLAGS:
            tb = widgets.ToggleButton(
                description=flag, tooltip=f"--merge={flag}", layout=widgets.Layout(width="92px")
            )
            tb.add_class(f"pw-picker-merge-{flag}")
            tb.add_class("pw-picker-toggle")
            tb.observe(self._on_toggle, "value")
            self._toggles[flag] = tb
        self._xdep_box = widgets.ToggleButton(
            description="-x", tooltip="--exclude-dependent", layout=widgets.Layout(width="60px")
        )
        self._xdep_box.add_class("pw-picker-merge-x")
        self._xdep_box.add_class("pw-picker-toggle")
        self._xdep_box.observe(self._on_toggle, "value")
        self._axis_box = widgets.Dropdown(
            options=list(AXIS_CHOICES),
            value="auto",
            description="axis",
            layout=widgets.Layout(width="180px"),
        )
        self._axis_box.add_class("pw-picker-axis")
        self._axis_label = widgets.HTML(layout=widgets.Layout(flex="1 1 0", min_width="0"))
        self._axis_label.add_class("pw-picker-axis-shown")
        self._offers_label = widgets.Label("or show:")
        self._offer_buttons: list[widgets.Button] = []
        self._offers_box = widgets.HBox(
            [self._offers_label],
            layout=widgets.Layout(display="none", flex_flow="row wrap", align_items="center"),
        )
        self._offers_box.add_class("pw-picker-offers")
        self._classes_html = widgets.HTML(layout=widgets.Layout(max_width="100%", overflow="auto"))
        self._classes_html.add_class("pw-picker-classes")
        # report tab
        self._by_box = widgets.Dropdown(
            options=["image", "application"],
            value="image",
            description="rows",
            layout=widgets.Layout(width="200px"),
        )
        self._by_box.add_class("pw-picker-by")
        self._filter_box = widgets.Text(
            placeholder="filter names",
            description="filter",
            continuous_update=False,
            layout=widgets.Layout(width="240px"),
        )
        self._filter_box.add_class("pw-picker-filter")
        self._rows_label = widgets.Label()
        self._rows_label.add_class("pw-picker-rowcount")
        self._table = ReportTable(layout=widgets.Layout(width="100%"))
        self._table.add_class("pw-picker-report")
        self._table.on_sort = lambda col, desc: self._from_control(lambda: self.sort_by(col, desc))
        self._inv_filter = widgets.Text(
            placeholder="filter binaries and applications",
            description="filter",
            continuous_update=False,
            layout=widgets.Layout(width="320px"),
        )
        self._inv_filter.add_class("pw-picker-inv-filter")
        self._inv_rows = widgets.Label()
        self._inv_rows.add_class("pw-picker-inv-rowcount")
        self._inv_table = ReportTable(kind="inverted", layout=widgets.Layout(width="100%"))
        self._inv_table.add_class("pw-picker-inverted")
        self._inv_table.on_sort = lambda col, desc: self._from_control(
            lambda: self.sort_by(col, desc, view="inverted")
        )
        self._chart = _chart()
        self._chart_class = widgets.Dropdown(
            description="chart of", layout=widgets.Layout(width="360px")
        )
        self._chart_class.add_class("pw-picker-chart-class")
        self._chart_class.observe(
            lambda ch: None if self._syncing else self._draw_chart(), names="value"
        )
        self._text_area = widgets.Textarea(layout=widgets.Layout(width="100%", height="320px"))
        self._text_area.add_class("pw-picker-opreport")
        self._cmd = widgets.Textarea(
            description="command", rows=2, layout=widgets.Layout(width="100%", height="auto")
        )
        self._cmd.add_class("pw-picker-command")
        self._no_counts = widgets.HTML()
        self._no_counts.add_class("pw-picker-nocounts")
        #: the report tab with counts (without, it is the one _no_counts line: the table and
        #: the chart are left out, not hidden, as a bqplot figure drawn hidden breaks)
        self._report_parts = (
            widgets.HBox(
                [self._by_box, self._filter_box, self._rows_label],
                layout=widgets.Layout(flex_flow="row wrap", align_items="center"),
            ),
            self._table,
            self._chart_class,
            self._chart,
        )
        report_tab = self._report_tab = widgets.VBox(list(self._report_parts))
        self._tabs = widgets.Tab(
            children=[
                report_tab,
                self._classes_html,
                widgets.VBox(
                    [
                        widgets.HBox(
                            [self._inv_filter, self._inv_rows],
                            layout=widgets.Layout(flex_flow="row wrap", align_items="center"),
                        ),
                        self._inv_table,
                    ]
                ),
                widgets.VBox([self._cmd, self._text_area]),
            ]
        )
        for k, title in enumerate(["Report", "Classes", "Inverted", "opreport text"]):
            self._tabs.set_title(k, title)
        self._tabs.add_class("pw-picker-tabs")
        self._drawn_tabs: set[str] = set()
        self._tabs.observe(self._draw_tab, "selected_index")
        self._children = [
            widgets.HTML(_STYLE),
            self._title,
            widgets.HBox([self._spec_box, self._apply]),
            self._hint,
            widgets.HBox(
                [
                    widgets.Label("merge", layout=widgets.Layout(width="48px")),
                    *self._toggles.values(),
                    self._xdep_box,
                ],
                layout=widgets.Layout(flex_flow="row wrap"),
            ),
            widgets.HBox(
                [self._axis_box, self._axis_label], layout=widgets.Layout(align_items="center")
            ),
            self._offers_box,
            self._tabs,
        ]
        self._apply.on_click(
            lambda _b: self._from_control(lambda: self.set_spec(self._spec_box.value))
        )
        self._spec_box.observe(self._on_typing, "value")
        self._axis_box.observe(self._on_axis, "value")
        self._by_box.observe(self._on_by, "value")
        self._filter_box.observe(
            lambda ch: self._from_control(lambda: self.set_filter(ch["new"])), "value"
        )
        self._inv_filter.observe(
            lambda ch: self._from_control(lambda: self.set_filter(ch["new"], "inverted")), "value"
        )
        self._on_typing({"new": self._spec_box.value})
        self._resync()

    # ------------------------------------------------------------------ control callbacks
    def _on_toggle(self, change: dict) -> None:
        if self._syncing:
            return
        owner = change["owner"]
        if owner is self._toggles["all"] and not change["new"]:
            words: list[str] = []
        elif owner is self._toggles["all"]:
            words = ["all"]
        else:
            words = [f for f in MERGE_FLAGS[:-1] if self._toggles[f].value]
            if owner is self._toggles["tid"] and not change["new"] and self._merge.tgid:
                words = [w for w in words if w != "tgid"]  # tgid implies tid
        xdep = self._xdep_box.value
        self._from_control(lambda: self.set_merge(words, exclude_dependent=xdep))

    def _on_axis(self, change: dict) -> None:
        self._from_control(lambda: self.set_axis(change["new"]))

    def _on_by(self, change: dict) -> None:
        self._from_control(lambda: self.set_by(change["new"]))

    def _on_typing(self, change: dict) -> None:
        typed = change["new"] or ""
        try:
            options = self.completions(typed)
        except Exception:  # completion never breaks typing
            options = []
        self._spec_box.options = options[:60]
        self._hint.value = _esc(_hint(typed, self._source.values()))

    def _sync_controls(self) -> None:
        if _words_or_none(self._spec_box.value) != self._words:
            self._spec_box.value = " ".join(shlex.quote(w) for w in self._words)
        m = self._merge
        state = {
            "cpu": m.cpu,
            "tid": m.tid,
            "tgid": m.tgid,
            "lib": m.lib,
            "unitmask": m.unitmask,
            "all": m.is_all,
        }
        for flag, on in state.items():
            self._toggles[flag].value = bool(on)
            self._toggles[flag].description = ("✓ " if on else "") + flag
        self._xdep_box.description = ("✓ " if self._xdep else "") + "-x"
        self._xdep_box.value = self._xdep
        self._axis_box.value = self._axis_choice
        levels = ["image", "application"]
        if self._classes is not None and "symbol" in self._classes.table:
            levels.append("symbol")
        if list(self._by_box.options) != levels:
            self._by_box.options = levels
        self._by_box.value = self._by
        self._filter_box.value = self._filters["report"]
        self._inv_filter.value = self._filters["inverted"]

    # ------------------------------------------------------------------ drawing
    def _draw(self) -> None:
        c = self._classes
        if c is None:
            self._resync()
            self._axis_label.value = "no classes yet"
            return
        # the report table first: its window leaves for the page before the other updates
        self._draw_table()
        self._resync()
        self._draw_status()
        self._draw_offers()
        self._draw_chart()
        self._drawn_tabs: set[str] = set()
        self._draw_tab()
        self._cmd.value = text(self.command_line) or (
            "(the perfweave opreport command reads session directories; this source is "
            f"{self._source.kind})"
        )

    def _draw_status(self) -> None:
        """The status beside the axis: what is on screen, in the words of the controls."""
        c = self._classes
        if c is None:
            self._axis_label.value = "no classes yet"
            return
        many = "class" if len(c) == 1 else "classes"
        parts = [f"{len(c)} {many} along the {c.axis} axis"]
        if c.axis != "event" and len(c):
            t = c.classes[0].template
            if t.event and t.event != "all":  # perf report output names no event
                parts[0] += f", event {text(t.event)}" + (f":{t.count}" if t.count else "")
        parts.append(f"--merge={self._merge}" if str(self._merge) else "no merge")
        if self._xdep:
            parts.append("-x")
        if self._chosen_note:
            parts.append(self._chosen_note)
        if not self._source.has_samples or self._source.missing_counts:
            parts.append("no sample counts")
        self._axis_label.value = _esc(" · ".join(parts))

    def _draw_offers(self) -> None:
        """One button per other valid view (hidden when there is none)."""
        offers = self._offers
        if [b.description for b in self._offer_buttons] != [r.describe() for r in offers]:
            buttons = []
            for res in offers:
                b = widgets.Button(
                    description=res.describe(),
                    tooltip=f"show {res.describe()}",
                    layout=widgets.Layout(width="auto"),
                )
                b.add_class("pw-picker-fix")
                b.on_click(lambda _b, r=res: self._from_control(lambda: self.resolve(r)))
                buttons.append(b)
            self._offer_buttons = buttons
            self._offers_box.children = [self._offers_label, *buttons]
        self._offers_label.value = "resolve with:" if self._offers_fix else "or show:"
        self._offers_box.layout.display = "" if offers else "none"

    def _draw_tab(self, _change: Any = None) -> None:
        """Draw the inverted and opreport-text tabs only when they are open (lazily)."""
        view = self.view
        if self._classes is None or view in self._drawn_tabs:
            return
        self._drawn_tabs.add(view)
        if view == "classes":
            desc = self._classes.describe().reset_index()
            self._classes_html.value = html_table(desc, cls="pw-picker-classlist")
        elif view == "inverted":
            self._draw_table("inverted")
        elif view == "opreport":
            self._text_area.value = text(self.opreport_text) or (
                "(no sample counts in this source: opreport's text needs them)"
            )

    def _draw_table(self, view: str = "report") -> None:
        """Give a table its rows: the filter and sort only reorder row positions."""
        table, label = (
            (self._table, self._rows_label)
            if view == "report"
            else (self._inv_table, self._inv_rows)
        )
        if view == "inverted" and self.view != "inverted":
            self._drawn_tabs.discard("inverted")  # drawn when opened
            return
        data = self._table_data(view)
        if data is None:
            table.set_data({}, [], np.zeros((0, 0), np.int64), np.zeros((0, 0)))
            label.value = ""
            if view == "report":
                self._no_counts.value = _esc(self._no_counts_text())
                if tuple(self._report_tab.children) != (self._no_counts,):
                    self._report_tab.children = (self._no_counts,)
            return
        if view == "report" and tuple(self._report_tab.children) != self._report_parts:
            self._report_tab.children = self._report_parts
        order = data.order(self._filters[view], self._sorts[view])
        label.value = f"{len(order)} of {len(data)} rows"
        sort = self._sorts[view]
        with table.hold_sync():
            table.sort_column = sort[0] if sort else ""
            table.sort_descending = sort[1] if sort else True
            table.value_labels = list(data.values)
        table.set_data(data.keys, data.classes, data.samples, data.pct, order)

    def _no_counts_text(self) -> str:
        why = self._source.missing_counts
        if not why and self._source.kind == "listing":
            why = (
                "the listed sample files were not found (beside the listing or in the current "
                "folder), so there are no sample counts"
            )
        why = why or "this source has no sample counts"
        return f"No report: {why}. The Classes and Inverted tabs still show what each class holds."

    def _draw_chart(self, _change: Any = None) -> None:
        """Bars of the top images (those the name filter keeps) of the class picked beside
        the chart (bqplot 0.13 draws no bars from a 2-D ``y``, so one class at a time),
        horizontal: the image names read level, beside their bars."""
        fig, bars = self._chart, self._chart.marks[0]
        data = self._data["report"]
        if data is None or self._classes is None:
            bars.x, bars.y = [], []
            return
        labels = [text(n) for n in self._classes.names]
        self._syncing = True
        try:
            if list(self._chart_class.options) != labels:  # 200 classes: send only a change
                self._chart_class.options = labels
            if self._chart_class.value not in labels:
                self._chart_class.value = labels[0]
        finally:
            self._syncing = False
        k = labels.index(self._chart_class.value)
        needle = self._filters["report"]
        rows = data.order(needle) if needle else None
        names, counts = top_images(data, TOP_IMAGES, k, rows)
        shown = short_names([text(n) for n in names])
        longest = max((len(n) for n in shown), default=4)
        with bars.hold_sync():
            # top bar first: the ordinal axis runs bottom-up, so give the names reversed
            bars.x = shown[::-1]
            bars.y = counts.astype(np.float64)[::-1]
        fig.fig_margin = {"top": 40, "bottom": 50, "left": min(300, 16 + 7 * longest), "right": 30}
        fig.layout.height = f"{max(160, 90 + 26 * len(names))}px"
        top = float(counts.max()) if len(counts) else 1.0
        with fig.axes[1].scale.hold_sync():
            fig.axes[1].scale.min, fig.axes[1].scale.max = 0.0, top * 1.05
        fig.axes[1].tick_values = _count_ticks(top)  # whole samples, no repeated labels
        matching = f" matching {needle!r}" if needle else ""
        if len(names) > 1:
            fig.title = f"top {len(names)} images{matching} of {labels[k]} by samples"
        elif names:
            fig.title = f"the one image{matching} with samples in {labels[k]}"
        else:
            fig.title = f"no image{matching} has samples in {labels[k]}"


# ---------------------------------------------------------------------- helpers
def _conflict_note(message: str) -> str:
    """Why the picker chose the view it opened on, from opreport's conflict message."""
    found = re.search(r"parameter (\w+) with values.*conflicts with parameter (\w+)", message, re.S)
    if found is None:
        return "picked to resolve opreport's axis conflict"
    a, b = found.groups()
    return f"picked for you: unmerged, the files differ by {a} and by {b} (opreport refuses that)"


def _words(spec: str | Iterable[str]) -> list[str]:
    if isinstance(spec, str):
        return shlex.split(spec)
    return [str(w) for w in spec]


def _words_or_none(value: str) -> list[str] | None:
    try:
        return shlex.split(value or "")
    except ValueError:
        return None


def _describe(applied: dict[str, Any]) -> str:
    parts = [" ".join(applied["spec"]) or "(no spec)"]
    parts.append(f"--merge={applied['merge']}" if applied["merge"] else "no merge")
    if applied["exclude_dependent"]:
        parts.append("-x")
    return ", ".join(parts)


def command_line(
    session_dir: str, spec: Sequence[str], merge: str, xdep: bool, options: Sequence[str] = ()
) -> str:
    """``perfweave opreport --session-dir=DIR [OPTIONS] [--merge=..] [-x] SPEC...``
    (shell-quoted); ``options``: e.g. a session archive's raised limits."""
    argv = ["perfweave", "opreport", f"--session-dir={session_dir}", *options]
    if merge:
        argv.append(f"--merge={merge}")
    if xdep:
        argv.append("-x")
    argv += list(spec)
    return " ".join(shlex.quote(a) for a in argv)


def top_images(
    data: TableData, n: int, k: int, rows: np.ndarray | None = None
) -> tuple[list[str], np.ndarray]:
    """The ``n`` images with most samples in class ``k`` (report column order) among
    ``rows`` (all by default) and those samples, largest first (images without samples in
    that class left out; ties in the order the report first lists them)."""
    level = "image" if "image" in data.keys else next(iter(data.keys))
    keys = data.keys[level] if rows is None else data.keys[level][rows]
    samples = data.samples[:, k] if rows is None else data.samples[rows, k]
    codes, names = pd.factorize(keys)
    per_image = np.bincount(codes, weights=samples, minlength=len(names))
    per_image = per_image.astype(np.int64)
    kept = np.flatnonzero(per_image > 0)
    top = kept[np.argsort(-per_image[kept], kind="stable")[:n]]
    return [str(names[i]) for i in top], per_image[top]


def _count_ticks(top: float, n: int = 5) -> np.ndarray:
    """About ``n`` whole-number ticks from 0 to ``top`` at a round step (1, 2, 5, 10, ...)."""
    raw = max(top / n, 1.0)
    mag = 10 ** np.floor(np.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    return np.arange(0.0, top + step * 1e-9, step)


def short_names(paths: list[str]) -> list[str]:
    """Image paths as the chart labels them: the file name, or the whole path where two
    images share a file name."""
    base = [p.rsplit("/", 1)[-1] or p for p in paths]
    return [b if base.count(b) == 1 else p for b, p in zip(base, paths)]


def _chart():
    import bqplot as bq

    xs = bq.OrdinalScale()
    ys = bq.LinearScale(min=0.0)
    bars = bq.Bars(
        x=[], y=[], scales={"x": xs, "y": ys}, colors=["#4c72b0"], orientation="horizontal"
    )
    ax_names = bq.Axis(scale=xs, orientation="vertical", tick_style={"font-size": "12px"})
    ax_samples = bq.Axis(
        scale=ys, orientation="horizontal", label="samples", tick_format=",d", num_ticks=6
    )
    fig = bq.Figure(
        marks=[bars],
        axes=[ax_names, ax_samples],
        title="top images by samples",
        fig_margin={"top": 40, "bottom": 50, "left": 120, "right": 30},
        layout=widgets.Layout(width="100%", height="320px"),
        title_style={"font-size": "14px"},
    )
    fig.add_class("pw-picker-chart")
    return fig


def _values_for(tag: str, table: pd.DataFrame) -> list[str]:
    col = _TAG_COLUMN.get(tag)
    if tag == "session":
        return ["current"]
    if col is None or col not in table:
        return []
    vals = pd.unique(table[col].astype(object))
    vals = [text(v) for v in vals if v != ""]
    if col in ("tgid", "tid", "cpu", "count", "unitmask"):
        return sorted(vals, key=lambda v: (not v.isdigit(), int(v) if v.isdigit() else 0, v))
    return sorted(vals)


def _complete(typed: str, table: pd.DataFrame) -> list[str]:
    """Whole-line completions of the last word: tags, then values of the tag typed."""
    head, _, last = typed.rpartition(" ")
    prefix = head + " " if head else ""
    tag, sep, value = last.partition(":")
    if not sep:
        tags = [t + ":" for t in TAGS if t.startswith(tag)]
        return [prefix + t for t in tags]
    done, _, partial = value.rpartition(",")
    start = f"{tag}:{done}," if done else f"{tag}:"
    return [prefix + start + v for v in _values_for(tag, table) if v.startswith(partial)]


def _hint(typed: str, table: pd.DataFrame) -> str:
    last = typed.rpartition(" ")[2]
    tag, sep, _ = last.partition(":")
    if sep and tag in TAGS:
        vals = _values_for(tag, table)
        more = f" ... ({len(vals)} values)" if len(vals) > 12 else ""
        return f"{tag}: " + ", ".join(vals[:12]) + more if vals else f"{tag}: (no values listed)"
    return "tags: " + " ".join(TAGS) + "  (other words name images or libraries)"
