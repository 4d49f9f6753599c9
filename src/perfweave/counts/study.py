"""A study of the count matrix of one call group: what a person looks at, and its answers.

:class:`CallGroupStudy` holds a :class:`~perfweave.counts.CountsProfile` and what is being
looked at in it: the lead rank, the call group, the matrix (``direction``: send or recv),
the unit (counts or bytes), the block reduction (max or sum), the rows (ranks, rank groups
of identical rows, or hosts), the view with its zoom history, the selected block and the
calls shown from linked call sites. It answers what a view of them asks: the view cut into
at most ``max_cells`` blocks per axis (:class:`~perfweave.counts.Blocks`, exact int64, with
a label per row block), the call group's summary (its communication pattern, per-call
statistics and timings joined), the total of a selection, and the note on what is shown.

Every change is checked before anything moves: one that raises (a :mod:`perfweave.errors`
exception naming the value and what was expected) leaves the study as it was. It is the
computation behind :class:`perfweave.widgets.CountMatrixHeatmap`, usable without widgets.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

import numpy as np
import pandas as pd

from perfweave.counts.blocks import (
    REDUCES,
    ROW_GROUPINGS,
    BlockAggregator,
    Blocks,
    RowUnits,
    row_units,
)
from perfweave.counts.matrix import CountMatrix
from perfweave.counts.profile import CallGroup, CountsProfile, read
from perfweave.counts.ranklist import format_ranklist
from perfweave.counts.stats import call_stats
from perfweave.errors import MetadataError, PerfweaveError, ShapeError

DIRECTIONS = ("send", "recv")
UNITS = ("counts", "bytes")
#: how a view colors its blocks (the study checks the choice; the colors are the view's)
SCALES = ("linear", "log")
#: every option of a view and its choices
OPTIONS: dict[str, tuple[str, ...]] = {
    "direction": DIRECTIONS,
    "unit": UNITS,
    "scale": SCALES,
    "reduce": REDUCES,
    "group_by": ROW_GROUPINGS,
}
#: the options after which the view starts again from the whole matrix, unselected
RESETS = ("direction", "group_by")
#: most blocks per axis (900 x 900 int64 values + colors: 7.3 MB, under the 8 MB budget)
MAX_CELLS = 900
#: a block label lists at most this many rank ranges before "..."
LABEL_RANGES = 6
#: the per-call statistics of the summary, in order
STATISTICS = ("bytes", "messages", "zeros", "min_nonzero", "max", "large", "small")


def _in_background(make: Callable[[], Any]) -> Future:
    """Run ``make`` on a thread of its own (it ends with the work, so no thread outlives it
    to meet a later fork); its result or exception in the Future returned."""
    done: Future = Future()

    def run() -> None:
        try:
            done.set_result(make())
        except BaseException as exc:  # handed to whoever asks for the result
            done.set_exception(exc)

    threading.Thread(target=run, name="perfweave-summary", daemon=True).start()
    return done


def group_label(group: CallGroup) -> str:
    """``call 4`` for one call, ``calls 0-2, 5 (4 calls)`` for several."""
    n = group.n_calls
    if n == 1:
        return f"call {int(group.calls[0])}"
    return f"calls {format_ranklist(group.calls)} ({n:,} calls)"


def check_option(name: str, value: Any) -> None:
    """Raise a ShapeError unless ``value`` is one of the choices of option ``name``."""
    if name not in OPTIONS:
        raise ShapeError(f"no option {name!r}; options: {', '.join(OPTIONS)}")
    if not isinstance(value, str) or value not in OPTIONS[name]:
        raise ShapeError(f"{name} must be one of {', '.join(OPTIONS[name])}, not {value!r}")


def check_cells(n: Any) -> int:
    """``n`` as blocks per axis, or a ShapeError unless it is an integer 1..MAX_CELLS."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_CELLS:
        raise ShapeError(f"max_cells must be an integer 1..{MAX_CELLS}, not {n!r}")
    return int(n)


def _read_only(name: str, doc: str) -> property:
    return property(lambda self: getattr(self, f"_{name}"), doc=doc)


class CallGroupStudy:
    """The count matrix of one call group of ``profile`` as a person studies it.

    It starts on the first call group of ``lead_rank`` (default: the first lead rank), the
    whole matrix in view. A profile without count data gives an empty study (``blocks`` is
    None; ``empty_reason`` says why and every view question raises a MetadataError with it).
    """

    profile = _read_only("profile", "The CountsProfile studied.")
    lead_rank = _read_only("lead_rank", "The lead rank shown (None: no count data).")
    group_index = _read_only("group_index", "Index of the call group shown in call_groups.")
    group_labels = _read_only("group_labels", "Labels of the lead rank's call groups.")
    direction = _read_only("direction", "The matrix shown: send or recv.")
    unit = _read_only("unit", "counts, or bytes (counts x datatype size).")
    reduce = _read_only("reduce", "Each block's max or sum of the cells it covers.")
    group_by = _read_only("group_by", "Rows: ranks, rank groups of identical rows, hosts.")
    max_cells = _read_only("max_cells", "Blocks per axis at most.")
    units = _read_only("units", "The rows of the matrix shown (RowUnits).")
    blocks = _read_only("blocks", "The view aggregated to blocks, ``row_labels`` added.")
    history = _read_only("history", "The views zoomed from, oldest first.")
    hosts_known = _read_only("hosts_known", "Whether a location file places the group's ranks.")
    note = _read_only("note", "What a reader should know of the view shown ('' if nothing).")
    empty_reason = _read_only("empty_reason", "Why nothing is shown ('' when something is).")

    def __init__(
        self,
        profile: CountsProfile,
        *,
        lead_rank: int | None = None,
        direction: str = "send",
        unit: str = "counts",
        reduce: str = "max",
        group_by: str = "rank",
        max_cells: int = 512,
        empty_reason: str = "",
    ) -> None:
        if not isinstance(profile, CountsProfile):
            raise ShapeError(f"a CallGroupStudy studies a CountsProfile, not {profile!r}")
        for name, value in (("direction", direction), ("unit", unit), ("reduce", reduce)):
            check_option(name, value)
        check_option("group_by", group_by)
        self._profile = profile
        self._direction, self._unit, self._reduce = direction, unit, reduce
        self._group_by = group_by
        self._max_cells = check_cells(max_cells)
        self._lead_rank: int | None = None
        self._group_index = 0
        self._group_labels: list[str] = []
        self._units: RowUnits | None = None
        self._blocks: Blocks | None = None
        self._view: tuple[tuple[int, int], tuple[int, int]] | None = None
        self._history: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = ()
        self._selection: dict | None = None
        self._focus: dict | None = None
        self._fallback = ""
        self._hosts_known = False
        self._note = ""
        where = f" in {profile.directory}" if profile.directory else ""
        self._empty_reason = empty_reason or f"no count files{where}: nothing to show"
        #: what does not change with the view: patterns, statistics, hosts, summaries
        self._cache: dict[tuple, Any] = {}
        #: the column-side work of the matrices seen, kept between views
        self.aggregator = BlockAggregator()
        if profile.ranks:
            self._empty_reason = ""
            self.set_lead_rank(profile.ranks[0] if lead_rank is None else lead_rank)

    @classmethod
    def of(cls, data: CountsProfile | str | os.PathLike[str], **options: Any) -> CallGroupStudy:
        """A study of a profile, or of a profiler results directory read with
        :func:`perfweave.counts.read` (unreadable files are in ``profile.errors``; a directory
        that cannot be read at all gives an empty study whose ``empty_reason`` says why)."""
        if isinstance(data, CountsProfile):
            return cls(data, **options)
        if not isinstance(data, (str, os.PathLike)):
            raise ShapeError(
                f"a call group study takes a CountsProfile or a directory, not {data!r}"
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the files skipped are in profile.errors
            try:
                return cls(read(data), **options)
            except PerfweaveError as exc:
                return cls(CountsProfile(), empty_reason=str(exc), **options)

    # ------------------------------------------------------------------ what is shown
    @property
    def call_group(self) -> CallGroup | None:
        """The call group shown."""
        if self._lead_rank is None:
            return None
        return self._profile.call_groups(self._lead_rank)[self._group_index]

    @property
    def matrix(self) -> CountMatrix | None:
        """The CountMatrix shown (``call_group.send`` or ``.recv``)."""
        g = self.call_group
        return None if g is None else getattr(g, self._direction)

    @property
    def label(self) -> str:
        """The label of the call group shown."""
        return self._group_labels[self._group_index] if self._group_labels else ""

    @property
    def datatype_size(self) -> int:
        """Bytes per count of the matrix shown."""
        g = self._shown()
        return int(g.send_datatype_size if self._direction == "send" else g.recv_datatype_size)

    @property
    def view(self) -> dict:
        """``{"rows": (start, stop), "cols": (start, stop), "row_ranks", "col_ranks"}``:
        rows in units (ranks, or rank-group / host indices: ``group_by``), columns in ranks;
        ``{}`` when nothing is shown."""
        if self._view is None:
            return {}
        rows, cols = self._view
        return {
            "rows": rows,
            "cols": cols,
            "row_ranks": self._units.ranks_of(*rows),
            "col_ranks": np.arange(*cols),
        }

    @property
    def selection(self) -> dict | None:
        """The selected block: ``rows`` and ``cols`` (the spans selected), ``ranks`` (rows),
        ``peers`` (columns), ``direction``, the call group (``calls``, ``label``), its exact
        ``total`` in ``unit`` and, as text, ``rows_text`` and ``peers_text``; None if none."""
        return None if self._selection is None else dict(self._selection)

    @property
    def focus(self) -> dict | None:
        """The calls shown with :meth:`show_calls`: ``label``, ``lead_rank``, ``calls`` and
        ``groups`` (:meth:`~perfweave.counts.CountsProfile.groups_of_calls`); None if none."""
        return None if self._focus is None else dict(self._focus)

    # ------------------------------------------------------------------ checks
    def check(self, name: str, value: Any) -> Any:
        """Raise the perfweave error a change of ``name`` to ``value`` would raise, without
        changing anything; returns the value as the study keeps it (a call group's index).
        ``name`` is ``lead_rank``, ``group``, ``max_cells`` or an option (:data:`OPTIONS`)."""
        if name == "lead_rank":
            return self._check_lead(value)
        if name == "group":
            return self._group_index_of(value)
        if name == "max_cells":
            return check_cells(value)
        check_option(name, value)
        g = self.call_group
        if name == "group_by" and value == "host" and g is not None and self._hosts() is None:
            raise MetadataError(
                f"no location file names the hosts of {self.label} of lead rank "
                f"{self._lead_rank}: grouping by host needs the location file "
                f"{g.collective.lower()}_locations_comm<C>_rank{self._lead_rank}.md "
                f"whose calls include {int(g.calls[0])}"
            )
        return value

    def _check_lead(self, rank: Any) -> int:
        if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
            raise ShapeError(f"lead rank must be an integer, not {rank!r}")
        self._profile.call_groups(int(rank))  # MetadataError for an unknown rank
        return int(rank)

    def _group_index_of(self, group: Any) -> int:
        labels = self._group_labels
        if isinstance(group, str):
            text = group.strip()
            if text in labels:
                return labels.index(text)
            if text.startswith("call ") and text[5:].strip().isdigit():
                g = self._profile.group_of(int(text[5:]), self._lead_rank)
                groups = self._profile.call_groups(self._lead_rank)
                return next(i for i, x in enumerate(groups) if x is g)
            raise MetadataError(f"no call group {group!r}; call groups: {', '.join(labels)}")
        if isinstance(group, (int, np.integer)) and not isinstance(group, bool):
            if not 0 <= group < len(labels):
                raise MetadataError(
                    f"call group {int(group)} out of range 0..{len(labels) - 1} "
                    f"(lead rank {self._lead_rank} has {len(labels)} call groups)"
                )
            return int(group)
        raise ShapeError(f"a call group is an index or a label, not {group!r}")

    # ------------------------------------------------------------------ changes
    @contextlib.contextmanager
    def _change(self) -> Iterator[None]:
        """Put every piece of state back if what runs inside raises."""
        saved = {k: v for k, v in vars(self).items() if k not in ("_cache", "aggregator")}
        try:
            yield
        except BaseException:
            vars(self).update(saved)
            raise

    def set_lead_rank(self, rank: int) -> None:
        """Show the first call group of another lead rank (the whole matrix)."""
        rank = self._check_lead(rank)
        with self._change():
            self._lead_rank = rank
            self._group_labels = [group_label(g) for g in self._profile.call_groups(rank)]
            self._group_index = 0
            self._show(reset=True)

    def set_call_group(self, group: int | str) -> None:
        """Show a call group: by index, by label, or by a call it holds (``"call 3"``)."""
        index = self._group_index_of(group)
        with self._change():
            self._group_index = index
            self._show(reset=True)

    def set_option(self, name: str, value: Any) -> None:
        """Change ``direction``, ``unit``, ``reduce``, ``group_by`` (:data:`OPTIONS`) or
        ``max_cells``; the direction and the row grouping start again on the whole matrix."""
        if name == "scale":
            raise ShapeError("the color scale is the view's, not the study's: set it on the view")
        value = self.check(name, value)
        self._shown()
        with self._change():
            setattr(self, f"_{name}", value)
            if name in RESETS:
                self._show(reset=True)
            else:
                self._aggregate()

    def zoom(self, rows: Any, cols: Any = None) -> None:
        """Show rows ``start .. stop - 1`` (units) and columns (ranks; default: those shown)."""
        self._shown()
        r = _span("rows", rows, len(self._units))
        c = self._view[1] if cols is None else _span("columns", cols, self.matrix.width)
        with self._change():
            self._history = (*self._history, self._view)
            self._view = (r, c)
            self._aggregate()

    def zoom_out(self) -> None:
        """Back to the previous view (the whole matrix when there is none)."""
        self._shown()
        with self._change():
            if self._history:
                self._view, self._history = self._history[-1], self._history[:-1]
            else:
                self._view = ((0, len(self._units)), (0, self.matrix.width))
            self._aggregate()

    def select(self, rows: Any, cols: Any = None) -> dict:
        """Select units ``rows`` x columns ``cols`` (default: the columns of the view)."""
        self._shown()
        r = _span("rows", rows, len(self._units))
        c = self._view[1] if cols is None else _span("columns", cols, self.matrix.width)
        m, g = self.matrix, self.call_group
        ranks = self._units.ranks_of(*r)
        per_rank = m.rows[:, c[0] : c[1]][m.row_of_rank[ranks]]
        # selections are a handful of rows' worth; exact Python ints for the totals
        total = int(sum(int(x) for x in per_rank.sum(axis=1, dtype=object)))
        if self._unit == "bytes":
            total *= self.datatype_size
        self._selection = {
            "rows": r,
            "cols": c,
            "ranks": ranks,
            "peers": np.arange(*c),
            "direction": self._direction,
            "calls": g.calls.copy(),
            "label": self.label,
            "total": total,
            "unit": self._unit,
            "rows_text": short_ranklist(ranks),
            "peers_text": _range(*c),
        }
        return self.selection

    def select_block(self, row_block: int, col_block: int | None = None) -> dict:
        """Select row block ``row_block`` of the blocks shown (and column block ``col_block``,
        default: every column of the view)."""
        b = self._shown_blocks()
        rows = _block("row", row_block, b.row_edges)
        cols = None if col_block is None else _block("column", col_block, b.col_edges)
        return self.select(rows, cols)

    def clear_selection(self) -> None:
        self._selection = None

    def show_calls(
        self, calls: Any, lead_rank: int | None = None, label: str = "the selected calls"
    ) -> None:
        """Show the call groups that hold ``calls`` of a lead rank (default: the one shown):
        the first of them unless the group shown is one; the note says how many of the calls
        each group holds and their share of the lead rank's bytes. :meth:`clear_focus` ends it."""
        try:
            wanted = np.unique(np.asarray(calls, dtype=np.int64).reshape(-1))
        except (TypeError, ValueError):
            raise ShapeError(f"calls must be call ids (integers), not {calls!r}") from None
        rank = self._check_lead(self._lead_rank if lead_rank is None else lead_rank)
        table = self._profile.groups_of_calls(wanted, rank)
        if table.empty:
            raise MetadataError(
                f"no call group of lead rank {rank} holds {_plural(wanted.size, 'call')} "
                f"{format_ranklist(wanted)}"
            )
        with self._change():
            self._focus = {"label": str(label), "lead_rank": rank, "calls": wanted, "groups": table}
            if rank != self._lead_rank:
                self.set_lead_rank(rank)
            if self._group_index not in set(table["group"].tolist()):
                self.set_call_group(int(table["group"].iloc[0]))
            else:
                self._note = self._notes()

    def clear_focus(self) -> None:
        """Stop showing the calls of :meth:`show_calls`."""
        self._focus = None
        if self._blocks is not None:
            self._note = self._notes()

    def warming(self) -> Callable[[], None] | None:
        """The work that computes the other direction's column-side results for the columns
        shown, so that a switch of direction finds them kept (None: nothing to do). Bound to
        what is shown now: a view may run it later, on another thread."""
        g, view = self.call_group, self._view
        if g is None or view is None:
            return None
        other = g.recv if self._direction == "send" else g.send
        if other.width != self.matrix.width or other.n_ranks == 0:
            return None
        return functools.partial(self.aggregator.warm, other, view[1], self._max_cells)

    # ------------------------------------------------------------------ the summary
    def summary(self) -> dict:
        """The call group shown, summed up (JSON values): ``collective``, ``comm_size``,
        ``calls`` (its label), ``datatype_size``, ``rank_groups`` (distinct rows), ``hosts``
        (with a location file), ``pattern`` (its ``number`` and ``categories`` in the lead
        rank's pattern report) and ``patterns`` (tally lines), ``stats`` ([name, value] of
        one call, :data:`STATISTICS`) and ``timings`` ([measure, n, min, mean, max] seconds
        over ranks and calls; absent without timing files)."""
        self._shown()
        key = ("summary", self._lead_rank, self._group_index, self._direction)
        if key not in self._cache:
            self._cache[key] = self._summarize()
        return self._cache[key]

    def _summarize(self) -> dict:
        g = self.call_group
        out: dict[str, Any] = {
            "collective": g.collective,
            "comm_size": int(g.comm_size),
            "calls": self.label,
            "datatype_size": self.datatype_size,
            "rank_groups": int(self.matrix.rows.shape[0]),  # one per distinct row
        }
        hosts = self._hosts()
        if hosts is not None:
            out["hosts"] = len(set(hosts.tolist()))
        out.update(self._pattern_of(g))
        stats = self._kept(*self._statistics())
        row = stats[stats["call"] == int(g.calls[0])]  # every call of a group has the same
        if len(row):
            r = row.iloc[0]
            out["stats"] = [[k, _json(r[f"{self._direction}_{k}"])] for k in STATISTICS]
        t = self._profile.timings
        if not t.empty:
            t = t[(t["lead_rank"] == self._lead_rank) & t["call"].isin(g.calls)]
            out["timings"] = [
                [measure, len(s), float(s.min()), float(s.mean()), float(s.max())]
                for measure, s in t.groupby("measure")["seconds"]
            ]
        return out

    def _pattern_of(self, g: CallGroup) -> dict:
        """The pattern of the lead rank's report holding the group's first call."""
        try:
            report = self._kept(*self._patterns())
        except PerfweaveError as exc:  # pragma: no cover - analysis is best effort
            return {"patterns": [f"patterns unavailable: {exc}"]}
        categories = (
            ("1->N", report.one_to_n),
            ("N->1", report.n_to_one),
            ("N->N", report.n_to_n),
            ("empty", report.empty),
        )
        first = int(g.calls[0])
        out: dict[str, Any] = {"patterns": []}
        for p in report.patterns:
            if first not in {int(c) for c in p.calls}:
                continue
            for direction, tally in (("send", p.send), ("recv", p.recv)):
                out["patterns"] += [
                    f"{direction}: {_plural(ranks, 'rank')} to {_plural(peers, 'peer')}"
                    for peers, ranks in tally
                ]
            cats = [n for n, lst in categories if any(q is p for q in lst)]
            out["pattern"] = {"number": p.number, "categories": cats or ["other"]}
        return out

    # ------------------------------------------------------------------ internals
    def _kept(self, key: tuple, make: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        held = self._cache[key]
        return held.result() if isinstance(held, Future) else held

    def _statistics(self) -> tuple[tuple, Callable[[], Any]]:
        """The cache key of the call group shown's statistics, and their computation."""
        g = self.call_group
        return ("stats", self._lead_rank, self._group_index), lambda: call_stats([g])

    def _patterns(self) -> tuple[tuple, Callable[[], Any]]:
        """The cache key of the lead rank's pattern report, and its computation."""
        rank = self._lead_rank
        return ("patterns", rank), lambda: self._profile.patterns(rank)

    def _prefetch(self) -> None:
        """Start the summary's view-independent work of the call group shown (its
        statistics, its lead rank's patterns) on a background thread: a first view's
        summary then waits for what is left of it, not for all of it after the blocks."""
        for key, make in (self._statistics(), self._patterns()):
            if key not in self._cache:
                self._cache[key] = _in_background(make)

    def _shown(self) -> CallGroup:
        """The call group shown, or the MetadataError saying why there is none."""
        g = self.call_group
        if g is None:
            raise MetadataError(self._empty_reason or "nothing is shown")
        return g

    def _shown_blocks(self) -> Blocks:
        self._shown()
        return self._blocks

    def _hosts(self) -> np.ndarray | None:
        """The host of each rank of the call group shown (None: no location file)."""
        g = self.call_group
        key = ("hosts", self._lead_rank, self._group_index)
        return None if g is None else self._kept(key, lambda: self._profile.hosts(g))

    def _show(self, reset: bool) -> None:
        self._prefetch()
        m = self.matrix
        if m.n_ranks == 0 or m.width == 0:
            raise ShapeError(f"the {self._direction} matrix of {self.label} is empty")
        hosts = self._hosts()
        self._hosts_known = hosts is not None
        self._fallback = ""
        if self._group_by == "host" and hosts is None:
            self._group_by = "rank"
            self._fallback = f"rows are ranks: no location file names the hosts of {self.label}"
        self._units = row_units(m, self._group_by, hosts)
        if reset or self._view is None:
            self._history, self._selection = (), None
            self._view = ((0, len(self._units)), (0, m.width))
        self._aggregate()

    def _aggregate(self) -> None:
        (rows, cols), n = self._view, self._max_cells
        factor = self.datatype_size if self._unit == "bytes" else 1
        m = self.matrix
        b = self.aggregator.aggregate(m.rows, self._units, rows, cols, n, n, self._reduce, factor)
        b.row_labels = self._row_labels(b.row_edges)
        self._blocks = b
        self._note = self._notes()

    def _notes(self) -> str:
        b, notes = self._blocks, [self._fallback] if self._fallback else []
        if self.aggregator.peak(self.matrix.rows) == 0:
            notes.append(f"every {self._direction} count of {self.label} is zero")
        elif not (b.values > 0).any():
            notes.append("every count in this view is zero")
        if not b.exact:
            notes.append("sums exceed 2**63 - 1: values are float64 (rounded)")
        elif not b.sums_exact:
            notes.append("marginal sums exceed 2**63 - 1: they are float64 (rounded)")
        if self._focus is not None:
            notes.insert(0, self._focus_note())
        return "; ".join(notes)

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
        if self._lead_rank != f["lead_rank"]:
            return text + f" (lead rank {self._lead_rank} is shown)"
        mine = t[t["group"] == self._group_index]
        if mine.empty:
            return text + "; the group shown holds none of them"
        held, of = int(mine["calls"].iloc[0]), int(mine["n_calls"].iloc[0])
        return text + f"; the group shown: {held:,} of its {_plural(of, 'call')}"

    def _row_labels(self, edges: np.ndarray) -> list[str]:
        u = self._units
        pairs = [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]
        if self._group_by == "rank":
            return [_range(a, b) for a, b in pairs]
        if self._group_by == "rows":
            return [short_ranklist(u.ranks_of(a, b)) for a, b in pairs]
        return [
            f"{u.names[a]}: {short_ranklist(u.ranks_of(a, b))}"
            if b - a == 1
            else f"{u.names[a]} … {u.names[b - 1]} ({b - a} hosts)"
            for a, b in pairs
        ]


def short_ranklist(ranks: np.ndarray) -> str:
    """A rank list (``0-20, 29-30``) of at most :data:`LABEL_RANGES` ranges, then the count."""
    text = format_ranklist(ranks)
    parts = text.split(", ")
    if len(parts) > LABEL_RANGES:
        text = ", ".join(parts[:LABEL_RANGES]) + f", ... ({ranks.size} ranks)"
    return text


def _span(what: str, value: Any, n: int) -> tuple[int, int]:
    try:
        a, b = (int(x) for x in value)
    except (TypeError, ValueError):
        raise ShapeError(f"{what} must be (start, stop), not {value!r}") from None
    if not 0 <= a < b <= n:
        raise ShapeError(f"{what} ({a}, {b}) out of range: need 0 <= start < stop <= {n}")
    return a, b


def _block(what: str, index: Any, edges: np.ndarray) -> tuple[int, int]:
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        raise ShapeError(f"a {what} block is an index, not {index!r}")
    if not 0 <= index < edges.size - 1:
        raise ShapeError(f"no {what} block {index}: the view has {edges.size - 1}")
    return int(edges[index]), int(edges[index + 1])


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _range(a: int, b: int) -> str:
    return str(a) if b - a == 1 else f"{a}-{b - 1}"


def _json(x: Any) -> Any:
    """A statistic as JSON: int (as text past 2**53), float, or None for a missing value."""
    if isinstance(x, str):
        return x
    if x is None or x is pd.NA:
        return None
    if isinstance(x, (int, np.integer)):
        return int(x) if abs(int(x)) < 2**53 else str(int(x))
    f = float(x)
    return None if f != f else (int(f) if f.is_integer() and abs(f) < 2**53 else f)
