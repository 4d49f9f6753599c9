"""The ClassPicker's report table: an anywidget over binary row windows.

Python keeps the table's arrays and a row order (:class:`TableData`: a filter or a sort only
reorders row positions); the browser shows a virtual list of rows
and one page of class columns at a time, and asks for the rows and classes in view. After
every change Python pushes the first window itself (no round trip), so a redraw costs one
message of at most ``MAX_WINDOW`` rows by ``PAGE`` classes whatever the table's size.
Every name reaches the page as text (``textContent``), never as markup.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import traitlets

from perfweave.classes.report import ReportArrays
from perfweave.classes.source import text
from perfweave.widgets._base import Reply, WidgetBase, static_file
from perfweave.widgets._transport import pack

#: classes (each a samples and a % column) shown side by side
PAGE = 6
#: most classes the browser may ask for side by side (it fits the page to its width)
MAX_PAGE = 24
#: most rows one window carries
MAX_WINDOW = 400
#: rows pushed after a change (the browser asks for more when scrolled)
FIRST_WINDOW = 80


class ReportTable(WidgetBase):
    """Rows of a report (key columns, then per class samples and %), drawn in view only."""

    _esm = static_file("picker.js")
    _css = static_file("picker.css")

    key_labels = traitlets.List().tag(sync=True)
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
    key_chars = traitlets.List().tag(sync=True)
    #: what the two numbers under each class are called
    value_labels = traitlets.List(["samples", "%"]).tag(sync=True)

    #: the column the rows are sorted by ("" in opreport's order), and the direction
    sort_column = traitlets.Unicode("").tag(sync=True)
    sort_descending = traitlets.Bool(True).tag(sync=True)

    _actions = {"rows": "_rows", "cols": "_cols", "sort": "_sort"}  # noqa: RUF012

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

    def rows_shown(self) -> list[list[str]]:
        """The key cells of every row (what the page lists, top to bottom)."""
        rows = self._rows_at(0, self.row_count)
        return [list(r) for r in zip(*(k[rows] for k in self._keys))] if self._keys else []

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


class TableData:
    """A report-shaped frame as arrays: key columns (names), then per class two numbers.

    Built once per report (:meth:`of`); a filter or a sort only computes a row order
    (:meth:`order`), and :meth:`frame` gives the rows as the flat DataFrame the table shows.
    """

    def __init__(
        self,
        keys: dict[str, np.ndarray],
        classes: list[str],
        samples: np.ndarray,
        pct: np.ndarray,
        values: tuple[str, str] = ("samples", "%"),
    ) -> None:
        self.keys = keys
        self.classes = classes
        self.samples = samples
        self.pct = pct
        self.values = values

    @classmethod
    def of(cls, frame: pd.DataFrame, values: tuple[str, str] = ("samples", "percent")) -> TableData:
        """From a frame with a (class, value) column MultiIndex and names in its index."""
        classes = [str(c) for c in dict.fromkeys(frame.columns.get_level_values(0))]
        index = frame.index
        keys = {
            str(name): index.get_level_values(i).to_numpy(dtype=object)
            for i, name in enumerate(index.names)
        }
        samples = frame.xs(values[0], axis=1, level=1).to_numpy(dtype=np.int64)
        pct = frame.xs(values[1], axis=1, level=1).to_numpy(dtype=np.float64)
        return cls(keys, classes, samples, pct, (values[0], "%"))

    @classmethod
    def of_arrays(cls, rep: ReportArrays) -> TableData:
        """From the core's report arrays (names from the index levels, used as they are)."""
        index = rep.index
        keys = {
            str(name): index.get_level_values(i).to_numpy(dtype=object)
            for i, name in enumerate(index.names)
        }
        return cls(keys, [str(c) for c in rep.labels], rep.samples, rep.percent)

    def __len__(self) -> int:
        return len(self.samples)

    def columns(self) -> list[str]:
        """Column names as the flat table has them: keys, then ``"<class> <value>"``."""
        a, b = self.values
        out = list(self.keys)
        for c in self.classes:
            out += [f"{c} {a}", f"{c} {b}"]
        return out

    def order(self, needle: str = "", sort: tuple[str, bool] | None = None) -> np.ndarray:
        """Row positions kept by the filter ``needle`` (case-insensitive, in any key), sorted
        by ``(column, descending)`` (stable: ties keep the report's order)."""
        rows = np.arange(len(self), dtype=np.int64)
        if needle:
            low = needle.lower()
            hit = np.zeros(len(self), dtype=bool)
            for values in self.keys.values():
                codes, uniques = pd.factorize(values)
                found = np.array([low in text(u).lower() for u in uniques] + [False])
                hit |= found[codes]
            rows = rows[hit]
        if sort is not None:
            col, desc = sort
            key = self._sort_key(col)
            if key is not None:
                k = key[rows]
                rows = rows[np.argsort(-k if desc else k, kind="stable")]
        return rows

    def _sort_key(self, column: str) -> np.ndarray | None:
        if column in self.keys:
            return pd.factorize(self.keys[column], sort=True)[0].astype(np.float64)
        a, b = self.values
        for j, c in enumerate(self.classes):
            if column == f"{c} {a}":
                return self.samples[:, j].astype(np.float64)
            if column == f"{c} {b}":
                return self.pct[:, j]
        return None

    def frame(self, rows: np.ndarray | None = None) -> pd.DataFrame:
        """The rows (all, or ``rows``) as a flat DataFrame with :meth:`columns`."""
        rows = np.arange(len(self)) if rows is None else rows
        data: dict[str, Any] = {k: v[rows] for k, v in self.keys.items()}
        a, b = self.values
        for j, c in enumerate(self.classes):
            data[f"{c} {a}"] = self.samples[rows, j]
            data[f"{c} {b}"] = self.pct[rows, j]
        return pd.DataFrame(data, columns=self.columns())


def _longest(names: np.ndarray) -> int:
    """Characters of the longest name (each distinct name measured once)."""
    uniques = pd.unique(names)
    return max((len(u) for u in uniques), default=0)
