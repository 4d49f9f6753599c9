"""A class study: opreport's profile classes of one source, as a person picks them.

:class:`ClassStudy` reads a source once (an OProfile session or its archive, a sample-file
listing, a spec table or perf data: :func:`~perfweave.classes.load_source`) and holds the
choice on screen: the profile specification words, the ``--merge`` options, ``-x`` and the
axis. Each change arranges the selection into classes (opreport's rules) and becomes the
state only when it works; a change opreport refuses raises the
:mod:`perfweave.errors` exception and changes nothing, and after an axis conflict the
views that work are offered (:attr:`ClassStudy.offers`, :func:`resolutions`). It answers
every question a view asks: the classes, the report and the inverted view (each as a
table that a name filter and a sort only reorder: :class:`ReportRows`), opreport's text,
the ``perfweave opreport`` command of the choice, a status line, completions of spec
words. It is the computation behind :class:`perfweave.widgets.ClassPicker`, usable without
widgets; :func:`opreport_argv` is the command line the CLI reads.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from perfweave.classes.archive import ArchiveLimits
from perfweave.classes.arrange import ProfileClasses, arrange
from perfweave.classes.axis import AXES
from perfweave.classes.completion import complete, hint
from perfweave.classes.invert import InvertedProfile, invert, invert_table
from perfweave.classes.opreport import NO_FILES
from perfweave.classes.opreport_format import format_image_report
from perfweave.classes.opreport_merge import MergeOptions
from perfweave.classes.profile_spec import ProfileSpec
from perfweave.classes.report import ReportArrays, report_arrays
from perfweave.classes.report_rows import ReportRows, top_images
from perfweave.classes.resolve import Resolution, axis_merge, resolutions
from perfweave.classes.source import ClassSource, load_source, text
from perfweave.classes.spec_codes import SpecCodes
from perfweave.errors import AxisConflict, PerfweaveError, ShapeError, SpecError

#: what the axis choice may be: opreport's choice, or one axis (the others merged)
AXIS_CHOICES = ("auto", *AXES)
#: the two tables of a study: the report and the inverted view
TABLES = ("report", "inverted")
#: what a report row may be
REPORT_LEVELS = ("image", "application", "symbol")


def split_words(spec: str | Iterable[str]) -> list[str]:
    """Profile words from a string (split as a shell does) or a list."""
    if not isinstance(spec, str):
        return [str(w) for w in spec]
    try:
        return shlex.split(spec)
    except ValueError as exc:
        raise SpecError(f"cannot split the specification: {exc}") from exc


def opreport_argv(
    session_dir: str,
    spec: Sequence[str] = (),
    merge: str = "",
    exclude_dependent: bool = False,
    options: Sequence[str] = (),
) -> list[str]:
    """The arguments of ``perfweave opreport`` for a choice: ``--session-dir=DIR``, then
    ``options`` (e.g. an archive's raised limits), ``--merge``, ``-x`` and the spec words."""
    argv = [f"--session-dir={session_dir}", *options]
    if merge:
        argv.append(f"--merge={merge}")
    if exclude_dependent:
        argv.append("-x")
    return argv + list(spec)


def conflict_note(message: str) -> str:
    """Why a view was picked for a source that needs a merge, from opreport's conflict
    message (the two parameters the files differ by)."""
    found = re.search(r"parameter (\w+) with values.*conflicts with parameter (\w+)", message, re.S)
    if found is None:
        return "picked to resolve opreport's axis conflict"
    a, b = found.groups()
    return f"picked for you: unmerged, the files differ by {a} and by {b} (opreport refuses that)"


class ClassStudy:
    """The profile classes of ``source`` for one choice of spec, merge, ``-x`` and axis.

    ``source``: what :func:`~perfweave.classes.load_source` reads (``kind`` forces how a
    path is read, ``archive_limits`` caps a session archive). ``spec``: profile words (a
    string or list); ``merge``: opreport's ``--merge`` words. Nothing is arranged until
    :meth:`open` (or a change); :attr:`classes` is ``None`` until a choice worked.
    """

    def __init__(
        self,
        source: Any,
        spec: str | Iterable[str] = (),
        merge: str | Iterable[str] | MergeOptions = (),
        *,
        exclude_dependent: bool = False,
        kind: str | None = None,
        archive_limits: ArchiveLimits | None = None,
    ) -> None:
        self.source: ClassSource = load_source(source, kind, archive_limits=archive_limits)
        #: the profile words last asked for (the classes may be of an earlier choice)
        self.words: list[str] = split_words(spec)
        self.merge: MergeOptions = MergeOptions.parse(merge)
        self.exclude_dependent = bool(exclude_dependent)
        #: ``"auto"`` (opreport's axis) or the axis asked for
        self.axis_choice = "auto"
        #: what a report row is (:data:`REPORT_LEVELS`)
        self.by = "image"
        self.classes: ProfileClasses | None = None
        #: other valid views (after an axis conflict, or beside the view :meth:`open` chose)
        self.offers: list[Resolution] = []
        #: whether :attr:`offers` are ways out of a conflict (else alternatives)
        self.offers_fix = False
        #: how the classes shown came about, when the study chose them (:meth:`open`)
        self.chosen_note = ""
        #: per table: (column, descending) or None (the core's order), and the name filter
        self.sorts: dict[str, tuple[str, bool] | None] = dict.fromkeys(TABLES)
        self.filters: dict[str, str] = dict.fromkeys(TABLES, "")
        self._applied: dict[str, Any] | None = None
        self._report: ReportArrays | None = None
        self._report_frame: pd.DataFrame | None = None
        self._inverted: list[InvertedProfile] | None = None
        self._rows: dict[str, ReportRows | None] = dict.fromkeys(TABLES)
        self._selection: tuple[tuple, SpecCodes] | None = None

    # ------------------------------------------------------------------ choosing
    def open(self, axis: str = "auto") -> None:
        """The first arrangement, along ``axis`` (``"auto"``: opreport's). When opreport
        refuses it (an axis conflict) and a view resolves it, that view is shown, with a
        note saying why (:attr:`chosen_note`); else the error is raised."""
        try:
            self.set_axis(axis)
        except AxisConflict as exc:
            if not self.offers:
                raise
            self._apply_resolution(self.offers[0], note=conflict_note(str(exc)))

    def set_spec(self, spec: str | Iterable[str]) -> None:
        """Apply profile words (``"event:CPU_CLK_UNHALTED tgid:100"`` or a list)."""
        self.choose(split_words(spec), self.merge, self.exclude_dependent, self.axis_choice)

    def set_merge(
        self,
        merge: str | Iterable[str] | MergeOptions | None = None,
        *,
        exclude_dependent: bool | None = None,
    ) -> None:
        """Apply ``--merge`` words (``"cpu,tgid"``, ``["lib"]``, ``"all"``, ``""``) and/or
        ``-x``; the axis becomes opreport's choice."""
        xdep = self.exclude_dependent if exclude_dependent is None else bool(exclude_dependent)
        opts = self.merge if merge is None else MergeOptions.parse(merge)
        self.choose(self.words, opts, xdep, "auto")

    def check_axis(self, axis: str) -> None:
        """Raise a SpecError unless ``axis`` is one of :data:`AXIS_CHOICES`."""
        if axis not in AXIS_CHOICES:
            raise SpecError(f"unknown axis {axis!r}; choose from {AXIS_CHOICES}")

    def set_axis(self, axis: str) -> None:
        """Show the classes along ``axis``: the other tgid/tid/cpu axes merged (keeping
        the lib and unitmask choices); ``"auto"`` keeps the merge options."""
        self.check_axis(axis)
        merge = self.merge if axis == "auto" else axis_merge(axis, self.merge)
        self.choose(self.words, merge, self.exclude_dependent, axis)

    def resolve(self, which: int | Resolution = 0) -> None:
        """Show one of :attr:`offers` (its index or itself)."""
        if isinstance(which, Resolution):
            res = which
        elif isinstance(which, int) and 0 <= which < len(self.offers):
            res = self.offers[which]
        else:
            raise SpecError(f"no resolution {which!r}; {len(self.offers)} offered")
        self._apply_resolution(res)

    def _apply_resolution(self, res: Resolution, note: str = "") -> None:
        offers = [r for r in self.offers if r != res]
        words = list(self.words)
        if res.event:
            words = [w for w in words if not w.startswith("event:")] + res.words
        self.choose(words, res.merge, self.exclude_dependent, res.axis, offers=offers)
        self.chosen_note = note

    def choose(
        self,
        words: list[str],
        merge: MergeOptions,
        exclude_dependent: bool,
        axis_choice: str,
        offers: list[Resolution] | None = None,
    ) -> None:
        """Arrange the classes of one choice; only a choice that works becomes the state.
        A failure changes nothing but :attr:`offers` (after an axis conflict, the views
        that work)."""
        xdep = exclude_dependent
        self.source.check_nonempty()
        spec = ProfileSpec.parse(words)
        selected = self._selected(spec, words, xdep)
        try:
            merge = MergeOptions.parse(str(merge), exclude_dependent=xdep)
            classes = arrange(selected, merge, exclude_dependent=xdep)
            if axis_choice not in ("auto", classes.axis):
                raise AxisConflict(
                    f"these classes differ along the {classes.axis} axis, not {axis_choice}"
                )
            rep = self._make_report(classes, self.by)
        except AxisConflict:
            try:
                found = resolutions(selected, merge, exclude_dependent=xdep)
            except PerfweaveError:
                found = []
            if self.classes is not None:  # the view on screen is no way out to offer
                found = [r for r in found if r.event or r.merge != self.merge]
            self.offers, self.offers_fix = found, True
            raise
        self.words, self.merge, self.exclude_dependent = list(words), merge, xdep
        self.axis_choice = axis_choice
        self.offers, self.offers_fix = list(offers or []), False
        self.chosen_note = ""
        self.classes = classes
        self._set_report(rep)
        self._applied = {"spec": list(words), "merge": str(merge), "exclude_dependent": xdep}

    def _selected(self, spec: ProfileSpec, words: list[str], xdep: bool) -> SpecCodes:
        """The rows ``spec`` selects, as codes cut from the source's (computed once); a
        merge or axis change reuses the last selection."""
        key = (tuple(words), xdep)
        if self._selection is not None and self._selection[0] == key:
            return self._selection[1]
        sessions = spec.sessions()
        table = self.source.table(sessions)
        if table.empty:  # a session: tag naming a session without sample files (opreport's words)
            raise SpecError(NO_FILES)
        mask = self.source.mask(spec, sessions, exclude_dependent=xdep)
        selected = self.source.codes(sessions).take(mask)
        self._selection = (key, selected)
        return selected

    def set_by(self, by: str) -> None:
        """Report rows per ``"image"``, ``"application"`` or ``"symbol"`` (perf data); the
        report's sort is dropped."""
        if by not in REPORT_LEVELS:
            raise SpecError(f"unknown report level {by!r}")
        rep = self._make_report(self.classes, by)
        self.by = by
        self._set_report(rep)
        self.sorts["report"] = None

    def _set_report(self, rep: ReportArrays | None) -> None:
        self._report, self._report_frame, self._inverted = rep, None, None
        self._rows = {
            "report": None if rep is None else ReportRows.of_arrays(rep),
            "inverted": None,
        }

    @staticmethod
    def _make_report(classes: ProfileClasses | None, by: str) -> ReportArrays | None:
        if classes is None or "samples" not in classes.table:
            return None
        return report_arrays(classes, by=by)

    # ------------------------------------------------------------------ answers
    @property
    def axis(self) -> str | None:
        """The axis the classes differ along (opreport's), ``None`` before any result."""
        return self.classes.axis if self.classes is not None else None

    @property
    def applied(self) -> dict[str, Any] | None:
        """The spec, merge and -x of the classes held."""
        return None if self._applied is None else dict(self._applied)

    @property
    def report(self) -> pd.DataFrame | None:
        """The columnar report (``perfweave.classes.report(classes, by)``), ``None``
        without sample counts."""
        if self._report is not None and self._report_frame is None:
            self._report_frame = self._report.frame()  # built when first read
        return self._report_frame

    @property
    def inverted(self) -> list[InvertedProfile]:
        """One :class:`~perfweave.classes.InvertedProfile` per binary of the classes."""
        if self._inverted is None:
            self._inverted = invert(self.classes) if self.classes is not None else []
        return self._inverted

    @property
    def has_counts(self) -> bool:
        """Whether the classes carry sample counts (a report and opreport's text)."""
        return self.classes is not None and "samples" in self.classes.table

    @property
    def opreport_text(self) -> str:
        """What ``opreport`` prints for the classes ("" without sample counts)."""
        return format_image_report(self.classes) if self.has_counts else ""  # type: ignore[arg-type]

    @property
    def command_line(self) -> str:
        """The ``perfweave opreport ...`` command of the classes held (shell-quoted; only
        session directories and archives, which the command reads, else "")."""
        if self.source.kind != "session" or self._applied is None:
            return ""
        unpacked = self.source.unpacked
        argv = opreport_argv(
            self.source.label,  # the directory or archive given (the CLI takes both)
            self._applied["spec"],
            self._applied["merge"],
            self._applied["exclude_dependent"],
            unpacked.limits.cli_options() if unpacked is not None else (),
        )
        return " ".join(shlex.quote(a) for a in ["perfweave", "opreport", *argv])

    def report_levels(self) -> list[str]:
        """What a report row may be for these classes (``symbol`` where the data has them)."""
        symbols = self.classes is not None and "symbol" in self.classes.table
        return list(REPORT_LEVELS) if symbols else list(REPORT_LEVELS[:2])

    def status(self) -> str:
        """One line on what is held, in the words of opreport's options: the classes and
        their axis (and event), the merge, -x, why the study chose them, missing counts."""
        c = self.classes
        if c is None:
            return "no classes yet"
        many = "class" if len(c) == 1 else "classes"
        parts = [f"{len(c)} {many} along the {c.axis} axis"]
        if c.axis != "event" and len(c):
            t = c.classes[0].template
            if t.event and t.event != "all":  # perf report output names no event
                parts[0] += f", event {text(t.event)}" + (f":{t.count}" if t.count else "")
        parts.append(f"--merge={self.merge}" if str(self.merge) else "no merge")
        if self.exclude_dependent:
            parts.append("-x")
        if self.chosen_note:
            parts.append(self.chosen_note)
        if not self.source.has_samples or self.source.missing_counts:
            parts.append("no sample counts")
        return " · ".join(parts)

    def no_counts_text(self) -> str:
        """Why there is no report (the source has no sample counts) and what still shows."""
        why = self.source.missing_counts
        if not why and self.source.kind == "listing":
            why = (
                "the listed sample files were not found (beside the listing or in the current "
                "folder), so there are no sample counts"
            )
        why = why or "this source has no sample counts"
        return f"No report: {why}. The Classes and Inverted tabs still show what each class holds."

    def completions(self, typed: str) -> list[str]:
        """Completions of the last word of ``typed`` from the values present in the data."""
        return complete(typed, self.source.values())

    def hint(self, typed: str) -> str:
        """What may follow ``typed``: the tags, or the values of the tag being typed."""
        return hint(typed, self.source.values())

    # ------------------------------------------------------------------ tables
    def check_table(self, view: str) -> None:
        """Raise a ShapeError unless ``view`` is one of :data:`TABLES`."""
        if view not in TABLES:
            raise ShapeError(f"unknown table {view!r}; choose from {TABLES}")

    def rows(self, view: str = "report") -> ReportRows | None:
        """A table's rows (``None``: no report without sample counts, or no classes). The
        inverted view counts files where the source has no sample counts."""
        self.check_table(view)
        if view == "inverted" and self._rows["inverted"] is None and self.classes is not None:
            values = ("samples", "percent") if self.has_counts else ("files", "percent")
            self._rows["inverted"] = ReportRows.of(invert_table(self.classes), values)
        return self._rows[view]

    def row_order(self, view: str = "report") -> np.ndarray:
        """The positions of a table's rows as shown: filtered, then sorted."""
        rows = self.rows(view)
        if rows is None:
            return np.zeros(0, np.int64)
        return rows.order(self.filters[view], self.sorts[view])

    def table_view(self, view: str = "report") -> pd.DataFrame:
        """A table's rows as shown: flat columns (names, then ``"<class> samples"`` and
        ``"<class> %"``), filtered and sorted."""
        rows = self.rows(view)
        return pd.DataFrame() if rows is None else rows.frame(self.row_order(view))

    def sort_by(self, column: str, descending: bool = True, view: str = "report") -> None:
        """Sort a table by one of its columns; ``""`` restores the core's order."""
        rows = self.rows(view)
        cols = rows.columns() if rows is not None else []
        if column and column not in cols:
            raise ShapeError(f"no column {column!r} to sort by; columns: {cols}")
        self.sorts[view] = (column, bool(descending)) if column else None

    def set_filter(self, needle: str, view: str = "report") -> None:
        """Keep the rows of a table whose names contain ``needle`` (case-insensitive)."""
        self.check_table(view)
        self.filters[view] = str(needle or "")

    def top_images(self, k: int, n: int = 10) -> tuple[list[str], np.ndarray]:
        """The ``n`` images with most samples in class ``k`` among the report rows the
        filter keeps, and their samples (largest first)."""
        rows = self.rows("report")
        if rows is None:
            return [], np.zeros(0, np.int64)
        needle = self.filters["report"]
        return top_images(rows, n, k, rows.order(needle) if needle else None)
