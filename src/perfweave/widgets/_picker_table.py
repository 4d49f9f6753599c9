"""The ClassPicker's report table: an anywidget over binary row windows.

Python keeps the whole (filtered, sorted) table; the browser shows a virtual list of rows
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

from perfweave.widgets._base import Reply, WidgetBase, static_file
from perfweave.widgets._picker_source import text
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

    #: the column the rows are sorted by ("" in opreport's order), and the direction
    sort_column = traitlets.Unicode("").tag(sync=True)
    sort_descending = traitlets.Bool(True).tag(sync=True)

    _actions = {"rows": "_rows", "cols": "_cols", "sort": "_sort"}  # noqa: RUF012

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._keys: list[np.ndarray] = []
        self._names: list[str] = []
        self._samples = np.zeros((0, 0), np.int64)
        self._pct = np.zeros((0, 0), np.float64)
        self._viewport = (0, FIRST_WINDOW)
        #: called with (column, descending) when a header is clicked (the picker sorts)
        self.on_sort: Any = None

    def set_frame(self, frame: pd.DataFrame | None, note: str = "") -> None:
        """Show ``frame``: key columns first, then ``"<class> samples"``, ``"<class> %"``."""
        if frame is None or frame.empty and not len(frame.columns):
            keys: list[str] = []
            self._keys, self._names = [], []
            self._samples = np.zeros((0, 0), np.int64)
            self._pct = np.zeros((0, 0), np.float64)
        else:
            classes = [str(c)[: -len(" samples")] for c in frame.columns if _is_samples(c)]
            names = [text(c) for c in classes]
            keys = [c for c in frame.columns if not str(c).endswith((" samples", " %"))]
            self._keys = [np.array([text(v) for v in frame[c]], dtype=object) for c in keys]
            self._names = names
            n = len(frame)
            s = [frame[f"{c} samples"].to_numpy(dtype=np.int64) for c in classes]
            p = [frame[f"{c} %"].to_numpy(dtype=np.float64) for c in classes]
            self._samples = np.stack(s, axis=1) if s else np.zeros((n, 0), np.int64)
            self._pct = np.stack(p, axis=1) if p else np.zeros((n, 0), np.float64)
        with self.hold_sync():
            self.key_labels = [text(k) for k in keys]
            self.class_count = len(self._names)
            self.row_count = len(self._samples)
            if self.col_start >= max(1, self.class_count):
                self.col_start = 0
            self.note = note
            self.version += 1
        self._viewport = (0, self._viewport[1])
        payload, buffers = self._window(0, FIRST_WINDOW)
        self.send({"type": "push", **payload}, buffers)

    def rows_shown(self) -> list[list[str]]:
        """The key cells of every row (what the page lists, top to bottom)."""
        return [list(r) for r in zip(*self._keys)] if self._keys else []

    def classes_shown(self) -> list[str]:
        """The classes of the column page on screen."""
        return self._names[self.col_start : self.col_start + self.page]

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
        total = len(self._samples)
        start = max(0, min(start, max(0, total - 1)))
        count = max(1, min(MAX_WINDOW, count))
        self._viewport = (start, count)
        stop = min(total, start + count)
        c0, c1 = self.col_start, min(self.class_count, self.col_start + self.page)
        cols: dict[str, Any] = {}
        for i, k in enumerate(self._keys):
            cols[f"k{i}"] = k[start:stop].tolist()
        cols["samples"] = np.ascontiguousarray(self._samples[start:stop, c0:c1])
        cols["pct"] = np.ascontiguousarray(self._pct[start:stop, c0:c1])
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


def _is_samples(column: Any) -> bool:
    return str(column).endswith(" samples")
