"""CountMatrixHeatmap: the send/recv count matrices of a CountsProfile as a zoomable heatmap.

A thin view over :mod:`perfweave.counts`. Python holds the profile; the browser gets the
view aggregated to at most its canvas resolution (``max_cells`` blocks per axis, each the
``max`` or ``sum`` of the cells it covers) as binary buffers: the exact block values
(int64; float64 only when a sum could pass 2**63 - 1), a uint8 color index per block,
the block edges and the row/column marginals. Zooming re-aggregates the new range, so a
16,384-rank matrix never crosses the wire whole. Every control is a trait or a method.
"""

from __future__ import annotations

import os
import threading
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import traitlets

from perfweave.counts.blocks import ROW_GROUPINGS as GROUP_BY
from perfweave.counts.blocks import BlockAggregator, RowUnits, row_units
from perfweave.counts.profile import CallGroup, CountsProfile
from perfweave.counts.ranklist import format_ranklist
from perfweave.counts.stats import call_stats
from perfweave.errors import MetadataError, PerfweaveError, ShapeError
from perfweave.widgets._base import Reply, WidgetBase, static_file
from perfweave.widgets._color import color_index
from perfweave.widgets._transport import pack

DIRECTIONS = ("send", "recv")
UNITS = ("counts", "bytes")
SCALES = ("linear", "log")
REDUCES = ("max", "sum")
#: the page's option controls: name -> (choices, whether a change resets zoom and selection)
_CONTROLS = {
    "direction": (DIRECTIONS, True),
    "unit": (UNITS, False),
    "scale": (SCALES, False),
    "reduce": (REDUCES, False),
    "group_by": (GROUP_BY, True),
}
#: most blocks per axis (900 x 900 int64 values + colors: 7.3 MB, under the 8 MB budget)
MAX_CELLS = 900
#: seconds after a matrix reply before the other direction is prepared in the background
WARM_DELAY = 0.05
#: a block label lists at most this many ranges before "..."
LABEL_RANGES = 6


def group_label(group: CallGroup) -> str:
    """``call 4`` for one call, ``calls 0-2, 5 (4 calls)`` for several."""
    n = group.n_calls
    if n == 1:
        return f"call {int(group.calls[0])}"
    return f"calls {format_ranklist(group.calls)} ({n:,} calls)"


class CountMatrixHeatmap(WidgetBase):
    """Heatmap of the alltoallv (alltoall, allgatherv) count matrices of a profile.

    ``data``: a :class:`~perfweave.counts.CountsProfile` or a profiler results directory
    (read with :func:`perfweave.counts.read`; unreadable files are listed in
    ``load_errors``, the rest is shown). Rows are the ranks that send (``direction="send"``)
    or receive (``"recv"``); columns their peers.
    """

    _esm = static_file("heatmap.js")
    _css = static_file("heatmap.css")

    lead_ranks = traitlets.List().tag(sync=True)
    lead_rank = traitlets.Int(0).tag(sync=True)
    group_labels = traitlets.List().tag(sync=True)
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
    info = traitlets.Dict().tag(sync=True)
    load_errors = traitlets.List().tag(sync=True)
    note = traitlets.Unicode("").tag(sync=True)
    height = traitlets.Int(520).tag(sync=True)
    #: bumped whenever Python changes what is shown; the browser then asks for the matrix
    view_version = traitlets.Int(0).tag(sync=True)

    _actions: ClassVar[dict[str, str]] = {
        "matrix": "_on_matrix",
        "set": "_on_set",
        "zoom": "_on_zoom",
        "zoom_out": "_on_zoom_out",
        "select": "_on_select",
    }

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
        errors: list[str] = []
        message = ""
        if isinstance(data, CountsProfile):
            profile = data
        elif isinstance(data, (str, os.PathLike)):
            import warnings

            from perfweave.counts.profile import read

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    profile = read(data)
                except PerfweaveError as exc:
                    profile, message = CountsProfile(), str(exc)
        else:
            raise ShapeError(
                f"CountMatrixHeatmap takes a CountsProfile or a directory, not {type(data).__name__}"
            )
        errors = [str(e) for e in profile.errors]
        self._profile = profile
        self._units: RowUnits | None = None
        self._blocks = None
        self._stack: list[dict] = []
        self._selection: dict | None = None
        self._info_cache: dict[tuple, Any] = {}
        self._focus: dict | None = None
        self._agg = BlockAggregator()
        self._fallback = ""
        super().__init__(load_errors=errors, height=height, lead_ranks=profile.ranks)
        for name, value, choices in (
            ("direction", direction, DIRECTIONS),
            ("unit", unit, UNITS),
            ("scale", scale, SCALES),
            ("reduce", reduce, REDUCES),
            ("group_by", group_by, GROUP_BY),
        ):
            _check(name, value, choices)
        self.set_trait("direction", direction)
        self.set_trait("unit", unit)
        self.set_trait("scale", scale)
        self.set_trait("reduce", reduce)
        self.set_trait("group_by", group_by)
        self.set_trait("max_cells", _cells(max_cells))
        if not profile.ranks:
            where = f" in {profile.directory}" if profile.directory else ""
            self.error = message or f"no count files{where}: nothing to show"
            return
        self._set_lead(profile.ranks[0] if lead_rank is None else lead_rank)

    # ------------------------------------------------------------------ public state
    @property
    def profile(self) -> CountsProfile:
        return self._profile

    @property
    def call_group(self) -> CallGroup | None:
        """The call group shown."""
        groups = self._groups()
        return groups[self.group_index] if groups else None

    @property
    def matrix(self):
        """The CountMatrix shown (``call_group.send`` or ``.recv``)."""
        g = self.call_group
        return None if g is None else getattr(g, self.direction)

    @property
    def view(self) -> dict:
        """``{"rows": (start, stop), "cols": (start, stop), "row_ranks", "col_ranks"}``:
        rows in units (ranks, or rank-group / host indices: ``group_by``), columns in ranks."""
        v = self.view_state
        if not v:
            return {}
        rows, cols = tuple(v["rows"]), tuple(v["cols"])
        return {
            "rows": rows,
            "cols": cols,
            "row_ranks": self._units.ranks_of(*rows),
            "col_ranks": np.arange(*cols),
        }

    @property
    def selection(self) -> dict | None:
        """The selected block: ``ranks`` (rows), ``peers`` (columns), ``direction``, the call
        group (``calls``, ``label``) and its ``value`` (as aggregated); None if none."""
        return None if self._selection is None else dict(self._selection)

    def blocks(self):
        """The aggregated view as sent (values, edges, marginals)."""
        return self._blocks

    @property
    def focus(self) -> dict | None:
        """The calls shown with :meth:`show_calls`: ``label``, ``lead_rank``, ``calls`` and
        ``groups`` (the core's :meth:`~perfweave.counts.CountsProfile.groups_of_calls`);
        None when none are."""
        return None if self._focus is None else dict(self._focus)

    # ------------------------------------------------------------------ controls
    def set_lead_rank(self, rank: int) -> CountMatrixHeatmap:
        return self._do(lambda: self._set_lead(rank))

    def set_call_group(self, group: int | str) -> CountMatrixHeatmap:
        """By index into ``group_labels``, by label, or by a call id it holds (``"call 3"``)."""
        return self._do(lambda: self._set_group(group))

    def set_direction(self, direction: str) -> CountMatrixHeatmap:
        return self._do(lambda: self._set_control("direction", direction))

    def set_unit(self, unit: str) -> CountMatrixHeatmap:
        return self._do(lambda: self._set_control("unit", unit))

    def set_scale(self, scale: str) -> CountMatrixHeatmap:
        return self._do(lambda: self._set_control("scale", scale))

    def set_reduce(self, reduce: str) -> CountMatrixHeatmap:
        return self._do(lambda: self._set_control("reduce", reduce))

    def set_group_by(self, by: str) -> CountMatrixHeatmap:
        """Rows are ranks (``"rank"``), the core's rank groups of identical rows (``"rows"``)
        or hosts (``"host"``, where a location file names them: ``hosts_known``)."""
        return self._do(lambda: self._set_control("group_by", by))

    def set_grouped(self, grouped: bool) -> CountMatrixHeatmap:
        """``set_group_by("rows")`` when ``grouped``, else ``set_group_by("rank")``."""
        return self.set_group_by("rows" if grouped else "rank")

    @property
    def grouped(self) -> bool:
        """True when rows are rank groups of identical rows."""
        return self.group_by == "rows"

    def set_max_cells(self, n: int) -> CountMatrixHeatmap:
        return self._do(lambda: self._set_option("max_cells", _cells(n), None))

    def zoom(
        self, rows: tuple[int, int], cols: tuple[int, int] | None = None
    ) -> CountMatrixHeatmap:
        """Show rows ``start .. stop - 1`` (units) and columns (ranks) of the matrix."""
        return self._do(lambda: self._zoom(rows, cols))

    def zoom_out(self) -> CountMatrixHeatmap:
        """Back to the previous view (the whole matrix when there is none)."""
        return self._do(self._zoom_out)

    def select(self, rows: tuple[int, int], cols: tuple[int, int] | None = None) -> dict:
        """Select units ``rows`` x columns ``cols`` (default: all columns of the view)."""
        self._do(lambda: self._select(rows, cols))
        return self.selection

    def clear_selection(self) -> CountMatrixHeatmap:
        def run() -> None:
            self._selection = None
            self.selection_state = {}

        return self._do(run)

    def show_calls(
        self, calls: Any, lead_rank: int | None = None, label: str = "the selected calls"
    ) -> CountMatrixHeatmap:
        """Show the call groups that hold ``calls`` of a lead rank (default: the one shown):
        the first of them unless the group shown is one, and the note under the title says
        how many of the calls each group holds and their share of the lead rank's bytes (a
        linked call site, :func:`perfweave.widgets.link`). ``clear_focus()`` ends it."""
        return self._do(lambda: self._focus_on(calls, lead_rank, label))

    def clear_focus(self) -> CountMatrixHeatmap:
        """Stop showing the calls of :meth:`show_calls`."""

        def run() -> None:
            self._focus = None
            if self._blocks is not None:
                self._aggregate()

        return self._do(run)

    # ------------------------------------------------------------------ handlers
    def _on_matrix(self, max_cells: int | None = None) -> Reply:
        if max_cells is not None:
            cells = _cells(max_cells)
            if cells != self.max_cells:
                self.max_cells = cells
                self._aggregate()
        reply = self._reply()
        self._warm_other_direction()
        return reply

    def _warm_other_direction(self) -> None:
        """Once the page has its matrix, compute the other direction's column-side work for
        the same columns on a background thread, so a send/recv switch finds it kept."""
        g = self.call_group
        if g is None or not self.view_state:
            return
        other = g.recv if self.direction == "send" else g.send
        cols = tuple(self.view_state["cols"])
        if other.width != self.matrix.width or other.n_ranks == 0:
            return
        timer = threading.Timer(WARM_DELAY, self._agg.warm, (other, cols, self.max_cells))
        timer.daemon = True
        timer.start()

    def _on_set(self, name: str, value: Any) -> Reply:
        if name not in ("lead_rank", "group", *_CONTROLS):
            raise ShapeError(f"unknown control {name!r}")
        self._run(lambda: self._set_control(name, value))
        reply = self._reply()
        if name in ("lead_rank", "group"):
            self._warm_other_direction()
        return reply

    def _on_zoom(self, rows: list, cols: list) -> Reply:
        self._run(lambda: self._zoom(rows, cols))
        return self._reply()

    def _on_zoom_out(self) -> Reply:
        self._run(self._zoom_out)
        return self._reply()

    def _on_select(self, row_block: int, col_block: int | None = None) -> Reply:
        b = self._require_blocks()
        if not 0 <= row_block < b.row_edges.size - 1:
            raise ShapeError(f"no row block {row_block}")
        rows = (int(b.row_edges[row_block]), int(b.row_edges[row_block + 1]))
        cols = None
        if col_block is not None:
            if not 0 <= col_block < b.col_edges.size - 1:
                raise ShapeError(f"no column block {col_block}")
            cols = (int(b.col_edges[col_block]), int(b.col_edges[col_block + 1]))
        self._run(lambda: self._select(rows, cols))
        return {"ok": True, "selection": self.selection_state}, []

    # ------------------------------------------------------------------ internals
    def _do(self, fn) -> CountMatrixHeatmap:
        self._guard(lambda: self._run(fn))
        return self

    def _run(self, fn) -> None:
        """Run ``fn``; on failure put every piece of state back as it was."""
        saved = (
            {k: getattr(self, k) for k in _STATE},
            self._units,
            self._blocks,
            list(self._stack),
            self._selection,
            self._focus,
        )
        try:
            with self.hold_sync():
                fn()
        except Exception:
            traits, self._units, self._blocks, self._stack, self._selection, self._focus = saved
            with self.hold_sync():
                for k, v in traits.items():
                    self.set_trait(k, v)
            raise
        self.error = ""

    def _require_blocks(self):
        if self._blocks is None:
            raise MetadataError(self.error or "nothing is shown")
        return self._blocks

    def _groups(self) -> list[CallGroup]:
        if not self._profile.ranks:
            return []
        return self._profile.call_groups(self.lead_rank)

    def _set_lead(self, rank: Any) -> None:
        if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
            raise ShapeError(f"lead rank must be an integer, not {rank!r}")
        groups = self._profile.call_groups(int(rank))  # MetadataError for an unknown rank
        self.lead_rank = int(rank)
        self.group_labels = [group_label(g) for g in groups]
        self.group_index = 0
        self._show(reset=True)

    def _set_group(self, group: Any) -> None:
        labels = list(self.group_labels)
        if isinstance(group, str):
            text = group.strip()
            if text in labels:
                index = labels.index(text)
            elif text.startswith("call ") and text[5:].strip().isdigit():
                g = self._profile.group_of(int(text[5:]), self.lead_rank)
                index = next(i for i, x in enumerate(self._groups()) if x is g)
            else:
                raise MetadataError(f"no call group {group!r}; call groups: {', '.join(labels)}")
        elif isinstance(group, (int, np.integer)) and not isinstance(group, bool):
            index = int(group)
            if not 0 <= index < len(labels):
                raise MetadataError(
                    f"call group {index} out of range 0..{len(labels) - 1} "
                    f"(lead rank {self.lead_rank} has {len(labels)} call groups)"
                )
        else:
            raise ShapeError(f"a call group is an index or a label, not {group!r}")
        self.group_index = index
        self._show(reset=True)

    def _set_control(self, name: str, value: Any) -> None:
        """Set one control the page has (``lead_rank``, ``group`` or one of ``_CONTROLS``)."""
        if name == "lead_rank":
            self._set_lead(value)
        elif name == "group":
            self._set_group(value)
        else:
            self._set_option(name, value, *_CONTROLS[name])

    def _set_option(self, name: str, value: Any, choices, reset: bool = False) -> None:
        if choices is not None:
            _check(name, value, choices)
        if self._blocks is None and self.error and not self.group_labels:
            raise MetadataError(self.error)
        if name == "group_by" and value == "host" and self._hosts() is None:
            g = self.call_group
            raise MetadataError(
                f"no location file names the hosts of {self.group_labels[self.group_index]} "
                f"of lead rank {self.lead_rank}: grouping by host needs the location file "
                f"{g.collective.lower()}_locations_comm<C>_rank{self.lead_rank}.md "
                f"whose calls include {int(g.calls[0])}"
            )
        self.set_trait(name, value)
        if not self.group_labels:
            return
        if name == "scale":  # the same blocks, new colors
            b = self._blocks
            b.color, b.lo, b.hi = color_index(b.values, self.scale)
            self.view_version += 1
        elif name in ("unit", "reduce", "max_cells"):
            self._aggregate()
        else:
            self._show(reset=reset)

    def _show(self, reset: bool) -> None:
        m = self.matrix
        if m is None:
            raise MetadataError("this profile holds no count data")
        if m.n_ranks == 0 or m.width == 0:
            raise ShapeError(
                f"the {self.direction} matrix of {self.group_labels[self.group_index]} is empty"
            )
        hosts = self._hosts()
        self.hosts_known = hosts is not None
        self._fallback = ""
        if self.group_by == "host" and hosts is None:
            self.group_by = "rank"
            self._fallback = (
                f"rows are ranks: no location file names the hosts of "
                f"{self.group_labels[self.group_index]}"
            )
        self._units = row_units(m, self.group_by, hosts)
        if reset or not self.view_state:
            self._stack = []
            self._selection = None
            self.selection_state = {}
            self.view_state = {"rows": [0, len(self._units)], "cols": [0, m.width]}
        key = (self.lead_rank, self.group_index, self.direction)
        if key not in self._info_cache:
            self._info_cache[key] = self._info()
        self.info = self._info_cache[key]
        self._aggregate()

    def _aggregate(self) -> None:
        m = self.matrix
        g = self.call_group
        v = self.view_state
        size = g.send_datatype_size if self.direction == "send" else g.recv_datatype_size
        factor = int(size) if self.unit == "bytes" else 1
        b = self._agg.aggregate(
            m.rows,
            self._units,
            tuple(v["rows"]),
            tuple(v["cols"]),
            self.max_cells,
            self.max_cells,
            self.reduce,
            factor,
        )
        b.color, b.lo, b.hi = color_index(b.values, self.scale)
        b.row_labels = self._row_labels(b.row_edges)
        self._blocks = b
        notes = [self._fallback] if self._fallback else []
        if self._agg.peak(m.rows) == 0:
            notes.append(
                f"every {self.direction} count of {self.group_labels[self.group_index]} is zero"
            )
        elif b.hi == 0:
            notes.append("every count in this view is zero")
        if not b.exact:
            notes.append("sums exceed 2**63 - 1: values are float64 (rounded)")
        elif not b.sums_exact:
            notes.append("marginal sums exceed 2**63 - 1: they are float64 (rounded)")
        if self._focus is not None:
            notes.insert(0, self._focus_note())
        self.note = "; ".join(notes)
        self.view_version += 1

    def _focus_on(self, calls: Any, lead_rank: Any, label: Any) -> None:
        try:
            wanted = np.unique(np.asarray(calls, dtype=np.int64).reshape(-1))
        except (TypeError, ValueError):
            raise ShapeError(f"calls must be call ids (integers), not {calls!r}") from None
        rank = self.lead_rank if lead_rank is None else lead_rank
        if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
            raise ShapeError(f"lead rank must be an integer, not {rank!r}")
        table = self._profile.groups_of_calls(wanted, int(rank))  # MetadataError: no such rank
        if table.empty:
            raise MetadataError(
                f"no call group of lead rank {int(rank)} holds {_plural(wanted.size, 'call')} "
                f"{format_ranklist(wanted)}"
            )
        self._focus = {
            "label": str(label),
            "lead_rank": int(rank),
            "calls": wanted,
            "groups": table,
        }
        if int(rank) != self.lead_rank:
            self._set_lead(int(rank))
        if self.group_index not in set(table["group"].tolist()):
            self._set_group(int(table["group"].iloc[0]))
        else:
            self._aggregate()

    def _focus_note(self) -> str:
        """What the note says of the calls shown with show_calls."""
        f = self._focus
        t = f["groups"]
        n, k = int(t["calls"].sum()), len(t)
        sent = t["bytes_sent"].sum() / t.attrs["bytes_sent"] if t.attrs["bytes_sent"] else 0.0
        text = (
            f"{f['label']}: {_plural(n, 'call')} in {_plural(k, 'call group')}, {sent:.1%} of "
            f"the bytes lead rank {f['lead_rank']} sends"
        )
        if self.lead_rank != f["lead_rank"]:
            return text + f" (lead rank {self.lead_rank} is shown)"
        mine = t[t["group"] == self.group_index]
        if mine.empty:
            return text + "; the group shown holds none of them"
        held, of = int(mine["calls"].iloc[0]), int(mine["n_calls"].iloc[0])
        return text + f"; the group shown: {held:,} of its {_plural(of, 'call')}"

    def _row_labels(self, edges: np.ndarray) -> list[str]:
        u = self._units
        pairs = [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]
        if self.group_by == "rank":
            return [_range(a, b) for a, b in pairs]
        if self.group_by == "rows":
            return [_short(u.ranks_of(a, b)) for a, b in pairs]
        return [
            f"{u.names[a]}: {_short(u.ranks_of(a, b))}"
            if b - a == 1
            else f"{u.names[a]} … {u.names[b - 1]} ({b - a} hosts)"
            for a, b in pairs
        ]

    def _hosts(self) -> np.ndarray | None:
        """The core's host of each rank of the call group shown (None: no location file)."""
        key = ("hosts", self.lead_rank, self.group_index)
        if key not in self._info_cache:
            g = self.call_group
            self._info_cache[key] = None if g is None else self._profile.hosts(g)
        return self._info_cache[key]

    def _zoom(self, rows: Any, cols: Any) -> None:
        self._require_blocks()
        n_rows, n_cols = len(self._units), self.matrix.width
        r = _span("rows", rows, n_rows)
        c = _span("columns", cols, n_cols) if cols is not None else tuple(self.view_state["cols"])
        self._stack.append(dict(self.view_state))
        self.view_state = {"rows": list(r), "cols": list(c)}
        self._aggregate()

    def _zoom_out(self) -> None:
        self._require_blocks()
        if self._stack:
            self.view_state = self._stack.pop()
        else:
            self.view_state = {"rows": [0, len(self._units)], "cols": [0, self.matrix.width]}
        self._aggregate()

    def _select(self, rows: Any, cols: Any) -> None:
        self._require_blocks()
        r = _span("rows", rows, len(self._units))
        c = (
            _span("columns", cols, self.matrix.width)
            if cols is not None
            else tuple(self.view_state["cols"])
        )
        ranks = self._units.ranks_of(*r)
        peers = np.arange(*c)
        m = self.matrix
        size = (
            self.call_group.send_datatype_size
            if self.direction == "send"
            else self.call_group.recv_datatype_size
        )
        sub = m.rows[:, c[0] : c[1]]
        per_rank = sub[m.row_of_rank[ranks]]
        # selections are a handful of rows' worth; exact Python ints for the totals
        total = int(sum(int(x) for x in per_rank.sum(axis=1, dtype=object)))
        if self.unit == "bytes":
            total *= int(size)
        g = self.call_group
        self._selection = {
            "ranks": ranks,
            "peers": peers,
            "direction": self.direction,
            "calls": g.calls.copy(),
            "label": self.group_labels[self.group_index],
            "total": total,
            "unit": self.unit,
        }
        self.selection_state = {
            "rows": list(r),
            "cols": list(c),
            "ranks": _short(ranks),
            "peers": _range(*c),
            "total": str(total),
            "label": self.group_labels[self.group_index],
        }

    def _core(self, what: str) -> Any:
        """The core's patterns / stats of the lead rank, computed once per lead rank."""
        key = (what, self.lead_rank)
        if key not in self._info_cache:
            self._info_cache[key] = getattr(self._profile, what)(self.lead_rank)
        return self._info_cache[key]

    def _info(self) -> dict:
        g = self.call_group
        prof = self._profile
        out: dict[str, Any] = {
            "collective": g.collective,
            "comm_size": int(g.comm_size),
            "calls": self.group_labels[self.group_index],
            "datatype_size": int(
                g.send_datatype_size if self.direction == "send" else g.recv_datatype_size
            ),
            "rank_groups": int(self.matrix.rows.shape[0]),  # one per distinct row
        }
        hosts = self._hosts()
        if hosts is not None:
            out["hosts"] = len(set(hosts.tolist()))
        try:
            report = self._core("patterns")
            cats = {
                id(p): [
                    n
                    for n, lst in (
                        ("1->N", report.one_to_n),
                        ("N->1", report.n_to_one),
                        ("N->N", report.n_to_n),
                        ("empty", report.empty),
                    )
                    if any(q is p for q in lst)
                ]
                for p in report.patterns
            }
            first = int(g.calls[0])
            pats = []
            for p in report.patterns:
                if first in set(int(c) for c in p.calls):
                    for direction, tally in (("send", p.send), ("recv", p.recv)):
                        for peers, ranks in tally:
                            pats.append(
                                f"{direction}: {_plural(ranks, 'rank')} to {_plural(peers, 'peer')}"
                            )
                    out["pattern"] = {"number": p.number, "categories": cats[id(p)] or ["other"]}
            out["patterns"] = pats
        except PerfweaveError as exc:  # pragma: no cover - analysis is best effort
            out["patterns"] = [f"patterns unavailable: {exc}"]
        # the core's per-call statistics of this group only (every call of it has the same)
        key = ("stats", self.lead_rank, self.group_index)
        if key not in self._info_cache:
            self._info_cache[key] = call_stats([g])
        stats = self._info_cache[key]
        row = stats[stats["call"] == int(g.calls[0])]
        if len(row):
            d = self.direction
            r = row.iloc[0]
            out["stats"] = [
                [key, _num(r[f"{d}_{key}"])]
                for key in ("bytes", "messages", "zeros", "min_nonzero", "max", "large", "small")
            ]
        t = prof.timings
        if not t.empty:
            t = t[(t["lead_rank"] == self.lead_rank) & t["call"].isin(g.calls)]
            timings = []
            for measure, sub in t.groupby("measure"):
                s = sub["seconds"]
                timings.append([measure, len(s), float(s.min()), float(s.mean()), float(s.max())])
            out["timings"] = timings
        return out

    def _reply(self) -> Reply:
        b = self._require_blocks()
        cols = {
            "values": b.values,
            "color": b.color,
            "row_edges": b.row_edges,
            "col_edges": b.col_edges,
            "row_sum": b.row_sum,
            "row_max": b.row_max,
            "row_ranks": b.row_ranks,
            "col_sum": b.col_sum,
            "col_max": b.col_max,
            "row_labels": b.row_labels,
        }
        header, buffers = pack(cols)
        meta = {
            "lo": b.lo,
            "hi": b.hi,
            "exact": b.exact,
            "view": self.view_state,
            "n_rows": len(self._units),
            "n_cols": self.matrix.width,
            "version": self.view_version,
        }
        return {"ok": True, "meta": meta, "matrix": {"columns": header}}, buffers


_STATE = (
    "lead_rank",
    "group_labels",
    "group_index",
    "direction",
    "unit",
    "scale",
    "group_by",
    "hosts_known",
    "reduce",
    "max_cells",
    "view_state",
    "selection_state",
    "info",
    "note",
    "view_version",
)


def _check(name: str, value: Any, choices) -> None:
    if value not in choices or (
        isinstance(value, bool) and not all(isinstance(c, bool) for c in choices)
    ):
        raise ShapeError(f"{name} must be one of {', '.join(map(str, choices))}, not {value!r}")


def _cells(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_CELLS:
        raise ShapeError(f"max_cells must be an integer 1..{MAX_CELLS}, not {n!r}")
    return int(n)


def _span(what: str, value: Any, n: int) -> tuple[int, int]:
    try:
        a, b = (int(x) for x in value)
    except (TypeError, ValueError):
        raise ShapeError(f"{what} must be (start, stop), not {value!r}") from None
    if not 0 <= a < b <= n:
        raise ShapeError(f"{what} ({a}, {b}) out of range: need 0 <= start < stop <= {n}")
    return a, b


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _range(a: int, b: int) -> str:
    return str(a) if b - a == 1 else f"{a}-{b - 1}"


def _short(ranks: np.ndarray) -> str:
    text = format_ranklist(ranks)
    parts = text.split(", ")
    if len(parts) > LABEL_RANGES:
        text = ", ".join(parts[:LABEL_RANGES]) + f", ... ({ranks.size} ranks)"
    return text


def _num(x: Any) -> Any:
    if x is None or x is pd.NA or isinstance(x, str):
        return None if not isinstance(x, str) else x
    if isinstance(x, (int, np.integer)):
        return int(x) if abs(int(x)) < 2**53 else str(int(x))
    f = float(x)
    return None if f != f else (int(f) if f.is_integer() and abs(f) < 2**53 else f)
