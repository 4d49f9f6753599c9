"""The ClassPicker's report table: an anywidget over binary row windows.

Python keeps the table's arrays and a row order (the study's
:class:`~perfweave.classes.ReportRows`: a filter or a sort only reorders row positions); the
browser shows a virtual list of rows
and one page of class columns at a time, and asks for the rows and classes in view. After
every change Python pushes the first window itself (no round trip), so a redraw costs one
message of at most ``MAX_WINDOW`` rows by ``PAGE`` classes whatever the table's size.
Every name reaches the page as text (``textContent``), never as markup. The page's requests
are declared once, in ``ReportTable._protocol`` (``js/src/picker/protocol.js`` is generated
from it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import traitlets

from perfweave.classes import ReportRows, text
from perfweave.classes.study import TABLES
from perfweave.errors import ShapeError
from perfweave.widgets._base import Reply, WidgetBase, static_file
from perfweave.widgets._protocol import Action, Protocol
from perfweave.widgets._transport import pack

#: classes (each a samples and a % column) shown side by side
PAGE = 6
#: most classes the browser may ask for side by side (it fits the page to its width)
MAX_PAGE = 24
#: most rows one window carries
MAX_WINDOW = 400
#: rows pushed after a change (the browser asks for more when scrolled)
FIRST_WINDOW = 80
#: the reply key of a window's binary columns: ``k0``, ``k1``, ... the names of each key
#: column (at most three: application, image, symbol), then samples and % (rows x classes)
ROWS_KEY = "rows"
_WINDOW = ("k0", "k1", "k2", "samples", "pct")


class ReportTable(WidgetBase):
    """Rows of a report (key columns, then per class samples and %), drawn in view only."""

    _esm = static_file("picker.js")
    _css = static_file("picker.css")

    key_labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    class_count = traitlets.Int(0).tag(sync=True)
    row_count = traitlets.Int(0).tag(sync=True)
    col_start = traitlets.Int(0).tag(sync=True)
    page = traitlets.Int(PAGE).tag(sync=True)
    height = traitlets.Int(340).tag(sync=True)
    version = traitlets.Int(0).tag(sync=True)
    note = traitlets.Unicode("").tag(sync=True)
    #: "report" or "inverted" (the page marks the table with pw-picker-reportlist / -invlist)
    kind = traitlets.Unicode("report").tag(sync=True)
    #: the longest name of each key column, in characters (the page sizes columns by it)
    key_chars = traitlets.List(traitlets.Int()).tag(sync=True)
    #: what the two numbers under each class are called
    value_labels = traitlets.List(traitlets.Unicode(), ["samples", "%"]).tag(sync=True)

    #: the column the rows are sorted by ("" in opreport's order), and the direction
    sort_column = traitlets.Unicode("").tag(sync=True)
    sort_descending = traitlets.Bool(True).tag(sync=True)

    _protocol = Protocol(
        folder="picker",
        actions={
            # a saved page (perfweave export) shows the first rows and page of classes
            "rows": Action(
                "_rows",
                "Showing more rows",
                ("start", "count", "version"),
                ROWS_KEY,
                _WINDOW,
                first_draw={"start": 0, "count": 2000},
            ),
            "cols": Action(
                "_cols",
                "Showing more classes",
                ("start", "count", "col_start", "page"),
                ROWS_KEY,
                _WINDOW,
                first_draw={},
            ),
            "sort": Action("_sort", "Sorting", ("column", "start", "count"), ROWS_KEY, _WINDOW),
        },
        # the page redraws its bar on a new note; every other trait it reads when a window
        # arrives (Python pushes one after each change)
        read_only=(
            "class_count",
            "col_start",
            "height",
            "key_chars",
            "key_labels",
            "kind",
            "page",
            "row_count",
            "sort_column",
            "sort_descending",
            "value_labels",
            "version",
        ),
    )

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # kind=, layout=
        self._keys: list[np.ndarray] = []
        self._names: list[str] = []
        self._samples = np.zeros((0, 0), np.int64)
        self._pct = np.zeros((0, 0), np.float64)
        self._order: np.ndarray | None = None
        self._viewport = (0, FIRST_WINDOW)
        #: called with (column, descending) when a header is clicked (the picker sorts)
        self.on_sort: Any = None

    @traitlets.validate("kind")
    def _check_kind(self, proposal: dict) -> str:
        value = proposal["value"]
        if value not in TABLES:
            raise ShapeError(f"a picker table is one of {TABLES}, not {value!r}")
        return value

    @traitlets.validate("height")
    def _check_height(self, proposal: dict) -> int:
        value = proposal["value"]
        if value < 1:
            raise ShapeError(f"the table's height is a positive number of pixels, not {value}")
        return value

    def show(
        self,
        rows: ReportRows | None,
        order: np.ndarray | None = None,
        sort: tuple[str, bool] | None = None,
    ) -> None:
        """Show rows ``order`` of a study's table (nothing when ``rows`` is None), sorted by
        ``sort`` (column, descending; the header marks it), the two numbers under each
        class named as the table names them."""
        if rows is None:
            self.set_data({}, [], np.zeros((0, 0), np.int64), np.zeros((0, 0)))
            return
        with self.hold_sync():
            self.sort_column = sort[0] if sort else ""
            self.sort_descending = sort[1] if sort else True
            self.value_labels = list(rows.values)
        self.set_data(rows.keys, rows.classes, rows.samples, rows.pct, order)

    def set_data(
        self,
        keys: dict[str, np.ndarray],
        classes: list[str],
        samples: np.ndarray,
        pct: np.ndarray,
        order: np.ndarray | None = None,
        note: str = "",
    ) -> None:
        """Show rows ``order`` (all, in order, when ``None``) of ``keys`` (label -> names per
        row), ``samples`` and ``pct`` (rows x classes); nothing is copied per row."""
        self._keys = [_as_text(k) for k in keys.values()]
        self._names = [text(c) for c in classes]
        self._samples = samples
        self._pct = pct
        self._order = order
        with self.hold_sync():
            self.key_labels = [text(k) for k in keys]
            self.key_chars = [_longest(k) for k in self._keys]
            self.class_count = len(self._names)
            self.row_count = len(samples) if order is None else len(order)
            if self.col_start >= max(1, self.class_count):
                self.col_start = 0
            self.note = note
            self.version += 1
        self._viewport = (0, self._viewport[1])
        payload, buffers = self._window(0, FIRST_WINDOW)
        self._push("rows", payload, buffers)

    def _rows_at(self, start: int, stop: int) -> np.ndarray | slice:
        return slice(start, stop) if self._order is None else self._order[start:stop]

    # ------------------------------------------------------------------ requests
    def _rows(self, start: int = 0, count: int = FIRST_WINDOW, version: int = -1) -> Reply:
        return self._window(int(start), int(count))

    def _cols(
        self, start: int = 0, count: int = FIRST_WINDOW, col_start: int = 0, page: int = 0
    ) -> Reply:
        if page > 0:
            self.page = max(1, min(MAX_PAGE, int(page)))
        last = max(0, self.class_count - 1)
        self.col_start = max(0, min(int(col_start), last))
        return self._window(int(start), int(count))

    def _sort(self, column: str = "", start: int = 0, count: int = FIRST_WINDOW) -> Reply:
        """A header click: sort by ``column`` (descending first, a second click flips)."""
        desc = not self.sort_descending if column == self.sort_column else True
        if self.on_sort is not None:
            self.on_sort(str(column), desc)
        return self._window(int(start), int(count))

    def _window(self, start: int, count: int) -> Reply:
        total = self.row_count
        start = max(0, min(start, max(0, total - 1)))
        count = max(1, min(MAX_WINDOW, count))
        self._viewport = (start, count)
        stop = min(total, start + count)
        c0, c1 = self.col_start, min(self.class_count, self.col_start + self.page)
        cols: dict[str, Any] = {}
        rows = self._rows_at(start, stop)
        for i, k in enumerate(self._keys):
            cols[f"k{i}"] = k[rows].tolist()
        cols["samples"] = np.ascontiguousarray(self._samples[rows, c0:c1], dtype=np.int64)
        cols["pct"] = np.ascontiguousarray(self._pct[rows, c0:c1], dtype=np.float64)
        header, buffers = pack(cols)
        payload = {
            "ok": True,
            "version": self.version,
            "classes": self._names[c0:c1],
            "col_start": c0,
            "class_count": self.class_count,
            "rows": {"start": start, "total": total, "columns": header},
        }
        return payload, buffers


def _as_text(values: np.ndarray) -> np.ndarray:
    """Names as displayable text, converting each distinct name once."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    shown = np.array([text(u) for u in uniques] + [""], dtype=object)
    return shown[codes]  # code -1 (a missing name) shows as ""


def _longest(names: np.ndarray) -> int:
    """Characters of the longest name (each distinct name measured once)."""
    uniques = pd.unique(names)
    return max((len(u) for u in uniques), default=0)
