"""MergePanel's correlation matrices: a small anywidget drawing an HTML grid.

Rows and columns are labelled with abbreviated HEM names (:func:`abbreviate`; the full name
on hover), each cell is colored on a diverging red-white-blue scale from ``-top`` to
``+top`` and, while cells are large enough, shows its value in black or white, whichever
reads on that color. A click on a cell sets :attr:`CorrelationMatrix.selected`; a matrix
that cannot be computed shows one "not available: why" line (:meth:`unavailable`) instead
of a grid. The values travel as one float64 buffer (row-major), never as a JSON list. The
page sends no request (a click sets ``selected``); its protocol is declared in ``_protocol``
(``js/src/matrix/protocol.js`` is generated from it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import traitlets

from perfweave.errors import ShapeError
from perfweave.widgets._base import WidgetBase, static_file
from perfweave.widgets._protocol import Protocol

#: most characters of an abbreviated HEM name
ABBREV_WIDTH = 16


def abbreviate(names: Sequence[str], width: int = ABBREV_WIDTH) -> list[str]:
    """Short unique labels: a name longer than ``width`` keeps the first 4, then 3, then 2
    letters of each ``_``-separated word (``CYCLES_LSU_SCHEDULE_STALLED`` ->
    ``CYC_LSU_SCH_STA``), cut to ``width``; a label two names share gets ``~1``, ``~2``."""
    out = []
    for name in names:
        label = name
        if len(name) > width:
            parts = [p for p in name.split("_") if p]
            for k in (4, 3, 2):
                label = "_".join(p[:k] for p in parts)
                if len(label) <= width:
                    break
            label = label[:width]
        out.append(label)
    seen: dict[str, int] = {}
    for i, label in enumerate(out):
        if out.count(label) > 1:
            seen[label] = seen.get(label, 0) + 1
            out[i] = f"{label}~{seen[label]}"
    return out


class CorrelationMatrix(WidgetBase):
    """One labelled correlation-like matrix (see the module docstring)."""

    _esm = static_file("matrix.js")
    _css = static_file("matrix.css")

    #: no requests: a click sets ``selected``; the page redraws on every trait
    _protocol = Protocol(folder="matrix", actions={})

    #: full HEM names (hover) and their abbreviations (labels), row order = column order
    names = traitlets.List(traitlets.Unicode()).tag(sync=True)
    labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    #: the n x n values, float64 row-major (NaN: no value)
    values = traitlets.Bytes(b"").tag(sync=True)
    #: the color scale runs from -top (red) through 0 (white) to +top (blue)
    top = traitlets.Float(1.0).tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    #: "" or why the matrix is not available (shown instead of the grid)
    note = traitlets.Unicode("").tag(sync=True)
    #: the picked cell [row, column], or []
    selected = traitlets.List(traitlets.Int()).tag(sync=True)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        #: called with (row, column) when a cell is clicked in the page
        self.on_pick: Callable[[int, int], None] | None = None
        self._quiet = False
        self.observe(self._on_selected, "selected")

    @traitlets.validate("selected")
    def _check_selected(self, proposal: dict) -> list[int]:
        cell = [int(v) for v in proposal["value"]]
        n = len(self.names)
        if cell and (len(cell) != 2 or not all(0 <= v < n for v in cell)):
            raise ShapeError(f"cell {cell} is not [row, column] of this {n} x {n} matrix")
        return cell

    @traitlets.validate("top")
    def _check_top(self, proposal: dict) -> float:
        top = float(proposal["value"])
        if not (np.isfinite(top) and top > 0):
            raise ShapeError(f"the color scale's top must be a positive number, not {top}")
        return top

    def show(self, matrix: np.ndarray, names: Sequence[str], title: str, top: float) -> None:
        """Draw ``matrix`` (n x n) labelled by ``names`` on the scale -top..+top."""
        values = np.ascontiguousarray(matrix, dtype="<f8")
        names = [str(n) for n in names]
        if values.shape != (len(names), len(names)):
            raise ShapeError(
                f"a {len(names)}-HEM matrix needs {len(names)} x {len(names)} values, "
                f"not {values.shape}"
            )
        with self.hold_sync():
            self.names = names
            self.labels = abbreviate(names)
            self.values = values.tobytes()
            self.top = float(top)
            self.title = title
            self.note = ""

    def unavailable(self, title: str, why: str) -> None:
        """Show one line, ``"<title> not available: <why>"``, instead of the grid."""
        with self.hold_sync():
            self.title = title
            self.note = f"not available: {why}"
            self.values = b""
            self.names, self.labels = [], []
            self._set_selected([])

    def mark_cell(self, i: int | None, j: int | None) -> None:
        """Outline cell (i, j) (None, or a matrix not available: no cell), without calling
        :attr:`on_pick`."""
        none = i is None or j is None or not self.names
        self._set_selected([] if none else [int(i), int(j)])

    def matrix(self) -> np.ndarray:
        """The values drawn (n x n; empty when not available)."""
        n = len(self.names)
        return np.frombuffer(self.values, dtype="<f8").reshape(n, n) if n else np.zeros((0, 0))

    def _set_selected(self, cell: list[int]) -> None:
        self._quiet = True
        try:
            self.selected = cell
        finally:
            self._quiet = False

    def _on_selected(self, change: dict) -> None:
        cell = change["new"]
        if self._quiet or len(cell) != 2 or self.on_pick is None:
            return
        self.on_pick(int(cell[0]), int(cell[1]))
