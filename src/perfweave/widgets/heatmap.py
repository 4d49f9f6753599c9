"""CountMatrixHeatmap: the send/recv count matrices of a CountsProfile as a zoomable heatmap.

A thin view over :class:`perfweave.counts.CallGroupStudy`, which holds what is looked at and
answers every question the view asks. The page gets the view aggregated to at most its canvas
resolution (``max_cells`` blocks per axis) as binary buffers (exact int64 block values, a
uint8 color per block, edges, marginals), so a 16,384-rank matrix never crosses the wire whole.
Every control is a trait and a method, and the study checks every trait before it moves. The
page's protocol is declared once, in ``_protocol`` (``js/src/heatmap/protocol.js`` is generated).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any

import traitlets

from perfweave.counts.blocks import Blocks
from perfweave.counts.matrix import CountMatrix
from perfweave.counts.profile import CallGroup, CountsProfile
from perfweave.counts.study import OPTIONS, CallGroupStudy, check_option, group_label
from perfweave.errors import MetadataError, PerfweaveError, ShapeError
from perfweave.widgets._base import Reply, WidgetBase, action, static_file
from perfweave.widgets._color import color_index
from perfweave.widgets._protocol import Action, Protocol
from perfweave.widgets._transport import pack

__all__ = ["CountMatrixHeatmap", "group_label"]

#: the reply key of a matrix's binary columns, and the columns it holds
MATRIX_KEY = "matrix"
# fmt: off
MATRIX_COLUMNS = (
    "values", "color", "row_edges", "col_edges", "row_sum", "row_max", "row_ranks", "col_sum",
    "col_max", "row_labels",
)
#: what the page's option selects say for each choice (the choices are the study's)
_WORDS = {"rows": "identical rows"}
#: seconds after a matrix reply before the other direction is prepared in the background
WARM_DELAY = 0.05
#: the traits a person (or the page) changes; each is checked by the study, then applied
_CONTROLS = (
    "lead_rank", "group_index", "direction", "unit", "scale", "reduce", "group_by", "max_cells",
    "height",
)
#: the traits that show the study's state: set by the widget only
_SHOWN = (
    "lead_ranks", "group_labels", "hosts_known", "view_state", "selection_state", "info",
    "load_errors", "note", "view_version",
)
# fmt: on


def _matrix_action(method: str, says: str, *args: str) -> Action:
    return Action(method, says, args, MATRIX_KEY, MATRIX_COLUMNS)


class CountMatrixHeatmap(WidgetBase):
    """Heatmap of the alltoallv (alltoall, allgatherv) count matrices of a profile.

    ``data``: a :class:`~perfweave.counts.CountsProfile` or a profiler results directory
    (read with :func:`perfweave.counts.read`; unreadable files are listed in
    ``load_errors``, the rest is shown). Rows are the ranks that send (``direction="send"``)
    or receive (``"recv"``); columns their peers.
    """

    _esm = static_file("heatmap.js")
    _css = static_file("heatmap.css")

    _protocol = Protocol(
        folder="heatmap",
        actions={
            # a saved page (perfweave export) draws the matrix at the widget's max_cells
            "matrix": Action(
                "_on_matrix", "Redrawing the matrix", ("max_cells",), MATRIX_KEY, MATRIX_COLUMNS, {}
            ),
            "set": _matrix_action("_on_set", "Changing this control", "name", "value"),
            "zoom": _matrix_action("_on_zoom", "Zooming in", "rows", "cols"),
            "zoom_out": _matrix_action("_on_zoom_out", "Zooming out"),
            "select": Action("_on_select", "Selecting", ("row_block", "col_block")),
        },
        read_only=("height", "max_cells", "view_state", "view_version"),
        controls={
            name: tuple((c, _WORDS.get(c, c)) for c in choices) for name, choices in OPTIONS.items()
        },
    )

    lead_ranks = traitlets.List(traitlets.Int()).tag(sync=True)
    lead_rank = traitlets.Int(0).tag(sync=True)
    group_labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    group_index = traitlets.Int(0).tag(sync=True)
    direction = traitlets.Unicode("send").tag(sync=True)
    unit = traitlets.Unicode("counts").tag(sync=True)
    scale = traitlets.Unicode("linear").tag(sync=True)
    #: rows are ranks (``"rank"``), rank groups of identical rows (``"rows"``) or hosts
    group_by = traitlets.Unicode("rank").tag(sync=True)
    #: whether a location file names the hosts of the call group shown
    hosts_known = traitlets.Bool(False).tag(sync=True)
    reduce = traitlets.Unicode("max").tag(sync=True)
    #: blocks per axis at most (the front end sets it from its canvas size)
    max_cells = traitlets.Int(512).tag(sync=True)
    #: the view, rows in units (ranks, rank groups or hosts: ``group_by``), columns in ranks
    view_state = traitlets.Dict().tag(sync=True)
    selection_state = traitlets.Dict().tag(sync=True)
    #: the study's summary of the call group shown (:meth:`CallGroupStudy.summary`)
    info = traitlets.Dict().tag(sync=True)
    load_errors = traitlets.List(traitlets.Unicode()).tag(sync=True)
    note = traitlets.Unicode("").tag(sync=True)
    height = traitlets.Int(520).tag(sync=True)
    #: bumped whenever Python changes what is shown; the browser then asks for the matrix
    view_version = traitlets.Int(0).tag(sync=True)

    #: True while the widget writes the study's state into its traits
    _mirroring = False

    def __init__(
        self,
        data: CountsProfile | str | os.PathLike[str],
        *,
        lead_rank: int | None = None,
        direction: str = "send",
        unit: str = "counts",
        scale: str = "linear",
        group_by: str = "rank",
        reduce: str = "max",
        max_cells: int = 512,
        height: int = 520,
    ) -> None:
        check_option("scale", scale)
        _check_height(height)
        self._study = CallGroupStudy.of(
            data,
            lead_rank=lead_rank,
            direction=direction,
            unit=unit,
            reduce=reduce,
            group_by=group_by,
            max_cells=max_cells,
        )
        self._drawn: Blocks | None = None  # the blocks the page was last told of
        profile = self._study.profile
        with self._mirror():
            super().__init__(
                load_errors=[str(e) for e in profile.errors],
                lead_ranks=[int(r) for r in profile.ranks],
                scale=scale,
                height=height,
            )
            self._show_study()
        if self._study.lead_rank is None:
            self.error = self._study.empty_reason

    # ------------------------------------------------------------------ public state
    @property
    def study(self) -> CallGroupStudy:
        """The core study this widget shows."""
        return self._study

    @property
    def profile(self) -> CountsProfile:
        return self._study.profile

    @property
    def call_group(self) -> CallGroup | None:
        """The call group shown."""
        return self._study.call_group

    @property
    def matrix(self) -> CountMatrix | None:
        """The CountMatrix shown (``call_group.send`` or ``.recv``)."""
        return self._study.matrix

    @property
    def view(self) -> dict:
        """``{"rows": (start, stop), "cols": (start, stop), "row_ranks", "col_ranks"}``:
        rows in units (ranks, or rank-group / host indices: ``group_by``), columns in ranks."""
        return self._study.view

    @property
    def selection(self) -> dict | None:
        """The selected block (:attr:`CallGroupStudy.selection`): ``ranks`` (rows), ``peers``
        (columns), ``direction``, the call group (``calls``, ``label``) and its ``total``."""
        return self._study.selection

    def blocks(self) -> Blocks | None:
        """The aggregated view as sent (values, colors, edges, marginals)."""
        return self._study.blocks

    @property
    def focus(self) -> dict | None:
        """The calls shown with :meth:`show_calls` (:attr:`CallGroupStudy.focus`)."""
        return self._study.focus

    @property
    def grouped(self) -> bool:
        """True when rows are rank groups of identical rows."""
        return self.group_by == "rows"

    # ------------------------------------------------------------------ controls
    @action
    def set_lead_rank(self, rank: int) -> CountMatrixHeatmap:
        self._set_control("lead_rank", rank)

    @action
    def set_call_group(self, group: int | str) -> CountMatrixHeatmap:
        """By index into ``group_labels``, by label, or by a call id it holds (``"call 3"``)."""
        self._set_control("group", group)

    @action
    def set_direction(self, direction: str) -> CountMatrixHeatmap:
        self._set_control("direction", direction)

    @action
    def set_unit(self, unit: str) -> CountMatrixHeatmap:
        self._set_control("unit", unit)

    @action
    def set_scale(self, scale: str) -> CountMatrixHeatmap:
        self._set_control("scale", scale)

    @action
    def set_reduce(self, reduce: str) -> CountMatrixHeatmap:
        self._set_control("reduce", reduce)

    @action
    def set_group_by(self, by: str) -> CountMatrixHeatmap:
        """Rows are ranks (``"rank"``), the core's rank groups of identical rows (``"rows"``)
        or hosts (``"host"``, where a location file names them: ``hosts_known``)."""
        self._set_control("group_by", by)

    def set_grouped(self, grouped: bool) -> CountMatrixHeatmap:
        """``set_group_by("rows")`` when ``grouped``, else ``set_group_by("rank")``."""
        return self.set_group_by("rows" if grouped else "rank")

    @action
    def zoom(
        self, rows: tuple[int, int], cols: tuple[int, int] | None = None
    ) -> CountMatrixHeatmap:
        """Show rows ``start .. stop - 1`` (units) and columns (ranks) of the matrix."""
        self._run(self._study.zoom, rows, cols)

    @action
    def zoom_out(self) -> CountMatrixHeatmap:
        """Back to the previous view (the whole matrix when there is none)."""
        self._run(self._study.zoom_out)

    def select(self, rows: tuple[int, int], cols: tuple[int, int] | None = None) -> dict:
        """Select units ``rows`` x columns ``cols`` (default: all columns of the view)."""
        self._guard(lambda: self._run(self._study.select, rows, cols))
        return self.selection

    @action
    def clear_selection(self) -> CountMatrixHeatmap:
        self._run(self._study.clear_selection)

    @action
    def show_calls(
        self, calls: Any, lead_rank: int | None = None, label: str = "the selected calls"
    ) -> CountMatrixHeatmap:
        """Show the call groups that hold ``calls`` of a lead rank (default: the one shown):
        the first of them unless the group shown is one, and the note under the title says
        how many of the calls each group holds and their share of the lead rank's bytes (a
        linked call site, :func:`perfweave.widgets.link`). ``clear_focus()`` ends it."""
        self._run(self._study.show_calls, calls, lead_rank, label)

    @action
    def clear_focus(self) -> CountMatrixHeatmap:
        """Stop showing the calls of :meth:`show_calls`."""
        self._run(self._study.clear_focus)

    # ------------------------------------------------------------------ page requests
    def _on_matrix(self, max_cells: int | None = None) -> Reply:
        if max_cells is not None and self._study.check("max_cells", max_cells) != self.max_cells:
            self._guard(lambda: self._set_control("max_cells", max_cells))
        reply = self._reply()
        self._warm_other_direction()
        return reply

    def _on_set(self, name: str, value: Any) -> Reply:
        if name not in ("lead_rank", "group", *OPTIONS):
            raise ShapeError(f"unknown control {name!r}")
        self._guard(lambda: self._set_control(name, value))
        reply = self._reply()
        if name in ("lead_rank", "group"):
            self._warm_other_direction()
        return reply

    def _on_zoom(self, rows: list, cols: list) -> Reply:
        self.zoom(rows, cols)
        return self._reply()

    def _on_zoom_out(self) -> Reply:
        self.zoom_out()
        return self._reply()

    def _on_select(self, row_block: int, col_block: int | None = None) -> Reply:
        self._guard(lambda: self._run(self._study.select_block, row_block, col_block))
        return {"ok": True, "selection": self.selection_state}, []

    def _reply(self) -> Reply:
        b = self._study.blocks
        if b is None:
            raise MetadataError(self._study.empty_reason or "nothing is shown")
        header, buffers = pack({name: getattr(b, name) for name in MATRIX_COLUMNS})
        meta = dict(lo=b.lo, hi=b.hi, exact=b.exact, view=self.view_state)
        meta.update(n_rows=len(self._study.units), n_cols=self._study.matrix.width)
        meta["version"] = self.view_version
        return {"ok": True, "meta": meta, MATRIX_KEY: {"columns": header}}, buffers

    def _warm_other_direction(self) -> None:
        """Once the page has its matrix, compute the other direction's column-side work for
        the same columns on a background thread, so a send/recv switch finds it kept."""
        work = self._study.warming()
        if work is not None:
            timer = threading.Timer(WARM_DELAY, work)
            timer.daemon = True
            timer.start()

    # ------------------------------------------------------------------ one path to the study
    def _set_control(self, name: str, value: Any) -> None:
        """Check a control's new value with the study, then apply it (``group`` is the call
        group: an index, a label or ``"call N"``)."""
        value = self._check(name, value)
        self._apply("group_index" if name == "group" else name, value)

    def _check(self, name: str, value: Any) -> Any:
        if name == "height":
            return _check_height(value)
        if name == "scale":
            check_option(name, value)
            return value
        return self._study.check("group" if name == "group_index" else name, value)

    def _apply(self, name: str, value: Any) -> None:
        """Apply a checked control value: the study changes, then the traits show it."""
        study = self._study
        if name == "height":
            self._show_study(height=value)
            return
        if study.call_group is None:
            raise MetadataError(study.empty_reason)
        if name == "lead_rank":
            study.set_lead_rank(value)
        elif name == "group_index":
            study.set_call_group(value)
        elif name != "scale":
            study.set_option(name, value)
        self._show_study(**({"scale": value} if name == "scale" else {}))

    def _run(self, change: Any, *args: Any) -> None:
        change(*args)
        self._show_study()

    @contextlib.contextmanager
    def _mirror(self) -> Iterator[None]:
        was, self._mirroring = self._mirroring, True
        try:
            yield
        finally:
            self._mirroring = was

    def _show_study(self, **own: Any) -> None:
        """Write the study's state into the traits (and ``own``: the widget's own traits);
        ``view_version`` moves last, once everything it versions is in place."""
        s = self._study
        b = s.blocks
        fresh, self._drawn = b is not self._drawn, b
        recolor = b is not None and (fresh or "scale" in own)
        with self.hold_sync(), self._mirror():
            for name, value in own.items():
                setattr(self, name, value)
            if recolor:
                b.color, b.lo, b.hi = color_index(b.values, self.scale)
            if s.lead_rank is not None:
                self.lead_rank, self.group_labels = s.lead_rank, list(s.group_labels)
                self.group_index, self.hosts_known = s.group_index, s.hosts_known
                self.info = s.summary()
            self.direction, self.unit, self.reduce = s.direction, s.unit, s.reduce
            self.group_by, self.max_cells, self.note = s.group_by, s.max_cells, s.note
            v = s.view
            self.view_state = {"rows": list(v["rows"]), "cols": list(v["cols"])} if v else {}
            self.selection_state = _selection_state(s.selection)
            if recolor:
                self.view_version += 1

    # ------------------------------------------------------------------ every trait checked
    @traitlets.validate(*_CONTROLS)
    def _valid_control(self, proposal: dict) -> Any:
        if self._mirroring:
            return proposal["value"]
        return self._refused_or(lambda: self._check(proposal["trait"].name, proposal["value"]))

    @traitlets.validate(*_SHOWN)
    def _valid_shown(self, proposal: dict) -> Any:
        if self._mirroring:
            return proposal["value"]
        refused = ShapeError(
            f"{proposal['trait'].name} shows the heatmap's state: change it with the widget's "
            "methods (set_call_group, zoom, select, ...)"
        )
        self._failed(refused)
        raise refused

    @traitlets.observe(*_CONTROLS)
    def _follow(self, change: dict) -> None:
        """A control trait set from Python (``hm.direction = "recv"``) changes the study."""
        if self._mirroring:
            return
        try:
            self._guard(lambda: self._apply(change["name"], change["new"]))
        except PerfweaveError:
            with self._mirror():
                self.set_trait(change["name"], change["old"])
            raise

    def _refused_or(self, check: Any) -> Any:
        """``check()``, with a refused value shown in the banner as well as raised."""
        try:
            return check()
        except PerfweaveError as exc:
            self._failed(exc)
            raise

    def _roll_back(self, before: dict[str, Any]) -> None:
        with self._mirror():  # the study put itself back: the traits follow it
            super()._roll_back(before)


def _selection_state(sel: dict | None) -> dict:
    """The selection as the page shows it (totals as text: exact past 2**53)."""
    if sel is None:
        return {}
    return {
        "rows": list(sel["rows"]),
        "cols": list(sel["cols"]),
        "ranks": sel["rows_text"],
        "peers": sel["peers_text"],
        "total": str(sel["total"]),
        "label": sel["label"],
    }


def _check_height(height: Any) -> int:
    if isinstance(height, bool) or not isinstance(height, int) or height < 1:
        raise ShapeError(f"height must be a positive number of pixels, not {height!r}")
    return height
