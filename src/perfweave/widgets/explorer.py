"""CalltreeExplorer: a collapsible calltree table with search, filter/squash and history.

The explorer is a thin view over a GraphFrame or Ensemble (or ``a - b`` of two frames).
Python holds the whole tree; the browser holds only the rows in view and asks for more as
it scrolls (``rows``), and for every action a person takes (``toggle``, ``sort``,
``search``, ``filter`` ...). Each action is also a Python method, so a notebook can script
the widget and tests can drive it without a browser.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import traitlets

from perfweave.calltree.compare import side_by_side, side_name
from perfweave.calltree.graph import Node
from perfweave.calltree.graphframe import GraphFrame
from perfweave.calltree.ranks import check_across
from perfweave.calltree.shown import with_inclusive
from perfweave.ensemble.ensemble import Ensemble
from perfweave.ensemble.filter import statistic_columns
from perfweave.errors import GraphError, QueryError, ShapeError
from perfweave.widgets import _source
from perfweave.widgets._base import Reply, WidgetBase, static_file
from perfweave.widgets._history import Step
from perfweave.widgets._rows import TreeRows
from perfweave.widgets._transport import pack

#: search matches up to this many get their paths expanded at once (beyond: the current one)
EXPAND_MATCHES = 10_000
#: "Expand all" opens rows level by level until the table shows this many
EXPAND_ALL_ROWS = 10_000
#: most rows one request may ask for
MAX_WINDOW = 1_000

EXPANDED, MATCH, SELECTED, CURRENT, PARENT = 1, 2, 4, 8, 16


class CalltreeExplorer(WidgetBase):
    """Explore a calltree: expand, sort, search, filter/squash, focus, drop, undo, select.

    ``data``: a perfweave GraphFrame or Ensemble (or an llnl-hatchet GraphFrame /
    llnl-thicket Thicket). ``metrics``: the columns shown (default: the inclusive then the
    exclusive metrics). ``compare``: a second GraphFrame; the explorer then shows
    ``data - compare`` on the union tree beside each side's values. For an ensemble,
    ``stat`` is the statistic shown per node, ``glyph_metric`` the metric whose spread
    across profiles is drawn, and ``color_by`` a metadata column coloring the profiles.
    For a frame with ranks/threads, ``across`` says what its glyph and its excess and
    imbalance columns compare: ``"ranks"`` (each rank, its threads summed; the default
    where there is a rank level) or ``"threads"`` (every rank/thread; see
    :mod:`perfweave.calltree.ranks`).
    ``request_timeout``: seconds the page waits for Python before its banner says the
    kernel did not answer (the widget contract; default 10).
    """

    _esm = static_file("explorer.js")
    _css = static_file("explorer.css")

    mode = traitlets.Unicode("frame").tag(sync=True)
    columns = traitlets.List().tag(sync=True)
    sort_column = traitlets.Unicode("").tag(sync=True)
    sort_descending = traitlets.Bool(True).tag(sync=True)
    row_count = traitlets.Int(0).tag(sync=True)
    node_count = traitlets.Int(0).tag(sync=True)
    search_state = traitlets.Dict().tag(sync=True)
    history_labels = traitlets.List().tag(sync=True)
    selected_count = traitlets.Int(0).tag(sync=True)
    #: ids of the selected nodes (kept in Python; observe it to react to clicks)
    selected_nodes = traitlets.List()
    glyph = traitlets.Dict().tag(sync=True)
    #: what the page shows under the table about the selection ({"title", "lines"})
    details = traitlets.Dict().tag(sync=True)
    height = traitlets.Int(460).tag(sync=True)
    #: bumped whenever the rows change on the Python side; the browser then asks again
    view_version = traitlets.Int(0).tag(sync=True)
    #: node id (of :attr:`graphframe`) of the row under the page's keyboard cursor (-1: none
    #: yet), kept while :attr:`report_cursor` is on; observe it to follow the arrow keys
    cursor_node = traitlets.Int(-1)
    #: whether the page tells Python where its keyboard cursor rests (a linked view sets it)
    report_cursor = traitlets.Bool(False).tag(sync=True)
    #: the query of the last filter in the history ("" when none): the filter box shows it
    filter_query = traitlets.Unicode("").tag(sync=True)
    #: what the last action could not do in full ("Expand all" stopped by its row budget);
    #: the status line shows it, the next action clears it
    notice = traitlets.Unicode("").tag(sync=True)

    _actions: ClassVar[dict[str, str]] = {
        "rows": "_on_rows",
        "toggle": "_on_toggle",
        "expand_all": "_on_expand_all",
        "sort": "_on_sort",
        "search": "_on_search",
        "search_step": "_on_search_step",
        "filter": "_on_filter",
        "squash": "_on_squash",
        "undo": "_on_undo",
        "focus": "_on_focus",
        "drop": "_on_drop",
        "select": "_on_select",
        "stat": "_on_stat",
        "color_by": "_on_color_by",
        "cursor": "_on_cursor",
    }

    def __init__(
        self,
        data: Any,
        metrics: Sequence[str] | None = None,
        *,
        compare: Any = None,
        stat: str = "mean",
        glyph_metric: str | None = None,
        color_by: str | None = None,
        across: str | None = None,
        hot_levels: int = 4,
        expand_budget: int = EXPAND_ALL_ROWS,
        height: int = 460,
        request_timeout: float | None = None,
    ) -> None:
        given = _source.as_core(data)
        data = _shown(given)
        derived = _derived_columns(data) if data is not given and compare is None else None
        _source.check_nonempty(data)
        if compare is not None:
            other = _shown(_source.as_core(compare))
            if isinstance(data, Ensemble) or isinstance(other, Ensemble):
                raise ShapeError("compare mode takes two GraphFrames, not ensembles")
            _source.check_nonempty(other)
            data = side_by_side(data, other)
        if stat not in _source.STATS:
            raise ShapeError(f"unknown statistic {stat!r}; choose from {', '.join(_source.STATS)}")
        if isinstance(data, Ensemble):
            data = data.copy()
        self._compare = compare is not None
        self._stat = stat
        self._hot_levels = hot_levels
        self._expand_budget = _check_budget(expand_budget)
        self._metrics = list(metrics) if metrics is not None else derived
        self._glyph_metric = glyph_metric
        self._color_by = color_by
        self._across = across
        self._original = data
        self._steps: list[Step] = []
        self._stack: list[tuple[Any, TreeRows, dict]] = []
        self._viewport = (0, 100)
        self._scroll_vid = -1  # a row to scroll the page to with the next rows sent
        self._matrix_held: tuple | None = None  # (ensemble, metric, its profile matrix)
        self._extras: _source.Extras | None = None
        self._ranks: _source.RankView | None = None
        mode = "compare" if self._compare else "ensemble" if isinstance(data, Ensemble) else "frame"
        timeout = {} if request_timeout is None else {"request_timeout": request_timeout}
        super().__init__(mode=mode, height=height, **timeout)
        self._show(data)
        self._refresh()

    # ------------------------------------------------------------------ public state
    @property
    def graphframe(self) -> Any:
        """The frame shown now (after filters, squashes, focus and drops)."""
        return self._data

    @property
    def original(self) -> Any:
        """The frame the explorer was opened on (``replay(original, history)`` is
        :attr:`graphframe`); for a frame with only exclusive metrics, with the inclusive
        columns the explorer shows (:func:`perfweave.calltree.shown.with_inclusive`)."""
        return self._original

    @property
    def history(self) -> list[Step]:
        """The transform steps applied so far, in order."""
        return list(self._steps)

    @property
    def selection(self) -> pd.DataFrame:
        """The dataframe rows of the selected nodes."""
        df = self._data.dataframe
        node = _source.node_ids(self._data)
        return df[self._selected[node]]

    def visible_rows(self) -> pd.DataFrame:
        """The rows the table shows now, top to bottom (node, name, depth, columns)."""
        vids = self._rows.visible()
        nodes = self._rows.node[vids]
        out = {
            "node": nodes,
            "name": self._names[nodes],
            "depth": self._rows.depth[vids],
            "expanded": self._rows.expanded[vids] & (self._rows.n_children[vids] > 0),
        }
        for c in self._columns:
            out[c.key] = self._table[c.key][nodes]
        return pd.DataFrame(out)

    # ------------------------------------------------------------------ actions (Python)
    def expand(self, node: Any, subtree: bool = False) -> CalltreeExplorer:
        """Open a node (every row of it, in a DAG), or with ``subtree`` all below it too."""
        return self._do(lambda: self._expand(self._vids(node), subtree))

    def expand_all(self, node: Any = None, budget: int | None = None) -> CalltreeExplorer:
        """Open everything below ``node`` (None, or a node without children: the whole
        tree), level by level, while the table shows at most ``budget`` rows (default: the
        constructor's ``expand_budget``, 10,000, which the "Expand all" button uses too);
        when the budget stops it, :attr:`notice` (and the page's status line) says so."""
        return self._do(
            lambda: self._expand_all(None if node is None else self._vids(node), budget)
        )

    def collapse(self, node: Any) -> CalltreeExplorer:
        return self._do(lambda: self._rows.set_expanded(self._vids(node), False))

    def sort_by(self, column: str, descending: bool = True) -> CalltreeExplorer:
        """Sort children by a shown column (its key or header label)."""
        return self._do(lambda: self._sort(column, descending))

    def search(self, pattern: str) -> int:
        """Highlight the nodes whose name matches a regex, open their paths; the count.
        The page's search box shows the pattern and scrolls to the first match."""
        self._do(lambda: self._search(pattern))
        return int(self.search_state.get("count", 0))

    def next_match(self, step: int = 1) -> CalltreeExplorer:
        return self._do(lambda: self._step_match(step))

    def previous_match(self) -> CalltreeExplorer:
        return self.next_match(-1)

    def filter(self, query: str, squash: bool = True) -> CalltreeExplorer:
        """Keep the rows matching a core query string (see GraphFrame.filter). On an
        ensemble, a query on statistics (```Avg time/rank_std` > 0.1``, computed when
        missing) keeps the nodes whose statistics match, as ``Ensemble.filter_stats``."""

        def step() -> Step:
            if not isinstance(query, str) or not query.strip():
                raise QueryError("the filter needs a query, e.g. `time (inc)` > 5%")
            stats = isinstance(self._data, Ensemble) and bool(
                statistic_columns(self._data, query.strip())
            )
            return Step("filter", query=query.strip(), squash=squash or stats, stats=stats)

        return self._transform(step)

    def squash(self) -> CalltreeExplorer:
        return self._transform(lambda: Step("squash"))

    def focus(self, node: Any) -> CalltreeExplorer:
        """Keep only ``node`` and its descendants."""

        def step() -> Step:
            nid = self._node_id(node)
            return Step("focus", node=nid, name=str(self._names[nid]))

        return self._transform(step)

    def drop(self, node: Any, subtree: bool = True) -> CalltreeExplorer:
        """Remove ``node`` with its subtree (or, ``subtree=False``, just the node: its
        children move up to its parent)."""

        def step() -> Step:
            nid = self._node_id(node)
            return Step("drop", node=nid, name=str(self._names[nid]), subtree=subtree)

        return self._transform(step)

    def undo(self) -> CalltreeExplorer:
        """Take back the last transform; the view returns to what it was before it."""

        def run() -> None:
            if not self._stack:
                raise QueryError("nothing to undo")
            data, rows, state = self._stack.pop()
            self._steps.pop()
            self._show(data, rows=rows, state=state)

        return self._do(run)

    def select(self, nodes: Any, add: bool = False) -> CalltreeExplorer:
        """Select nodes (ids, Node objects or names); ``add`` keeps the earlier selection."""

        def run() -> None:
            ids = np.unique(self._rows.node[self._vids(nodes)]) if _given(nodes) else []
            if not add:
                self._selected[:] = False
            self._selected[ids] = True

        return self._do(run)

    def reveal(self, node: Any) -> CalltreeExplorer:
        """Open the path to ``node`` (an id of :attr:`graphframe`, a Node or a name), select
        it and scroll the page to its row (a linked view pointing at a call path). A list of
        nodes opens the paths to all of them, selects them and scrolls to the first."""

        def run() -> None:
            one = isinstance(node, (int, np.integer, str, Node))
            vid = self._vids(node)[:1] if one else self._vids(node)
            self._rows.expand_to(vid)
            self._selected[:] = False
            self._selected[self._rows.node[vid]] = True
            self._scroll_vid = int(vid[0]) if len(vid) else -1

        return self._do(run)

    def clear_selection(self) -> CalltreeExplorer:
        return self.select([])

    def set_stat(self, stat: str) -> CalltreeExplorer:
        """Show another statistic of the ensemble per node (mean, median, min, max, std, var)."""

        def run() -> None:
            if stat not in _source.STATS:
                raise ShapeError(
                    f"unknown statistic {stat!r}; choose from {', '.join(_source.STATS)}"
                )
            self._restyle(stat=stat)

        return self._do(run)

    def set_across(self, across: str | None) -> CalltreeExplorer:
        """Compare each rank (``"ranks"``, its threads summed) or every thread
        (``"threads"``) in the glyph and the excess and imbalance columns (None: the
        default, ranks where there is a rank level)."""

        def run() -> None:
            if isinstance(self._data, Ensemble) or self._compare:
                raise ShapeError("across is for a frame with ranks/threads; this shows more")
            check_across(self._data.index_levels, across)
            self._reshow(across=across)

        return self._do(run)

    def set_color_by(self, column: str | None) -> CalltreeExplorer:
        """Color the profiles in the distribution glyphs by a metadata column (None: one color)."""
        return self._do(lambda: self._restyle(color_by=column or None))

    def set_extra_columns(
        self,
        frame: pd.DataFrame | None,
        sort_keys: pd.DataFrame | dict | None = None,
        units: dict | None = None,
    ) -> CalltreeExplorer:
        """Show extra per-node columns after the metrics (another view's results beside
        the calltree: a scaling model per node, a label, a score).

        ``frame``: indexed by node ids of the frame shown now (:attr:`graphframe`), one
        column per extra column, numeric or text; nodes it lacks show a dash. ``sort_keys``
        (optional): a numeric sort key per text column (a DataFrame with the same index or
        a dict of column -> Series); a text column without one sorts alphabetically.
        ``units`` (optional): column -> unit of a numeric column (``"s"``, ``"B"``), whose
        values are then shown like a metric's in that unit (``1.38 ms``).
        Every extra column sorts like a metric (header click or :meth:`sort_by`). The
        columns follow their call paths through later filters, focus and drops. ``None``
        removes them.
        """

        def run() -> None:
            extras = None
            if frame is not None:
                metric_keys = {c.key for c in self._columns if c.kind not in _source.EXTRA_KINDS}
                extras = _source.Extras.of(frame, sort_keys, self._data.graph, self._names, units)
                clash = metric_keys & set(extras.names)
                if clash:
                    raise ShapeError(
                        f"extra column {sorted(clash)[0]!r} has the name of a metric column"
                    )
            self._swap_extras(extras)

        return self._do(run)

    def _swap_extras(self, extras: _source.Extras | None) -> None:
        """Replace only the extra columns: the metrics, glyphs, open rows, selection and
        search stay (a linked view replaces them after every refit); the sort stays on
        the same column (by key, else by position)."""
        at = self._sort_position()
        columns = [c for c in self._columns if c.kind not in _source.EXTRA_KINDS]
        table = {c.key: self._table[c.key] for c in columns}
        sort_keys: dict[str, np.ndarray] = {}
        if extras is not None:
            extra_cols, extra_table, sort_keys = extras.on(self._data.graph, self._names)
            columns += extra_cols
            table.update(extra_table)
        self._extras, self._columns, self._table, self._sort_keys = (
            extras,
            columns,
            table,
            sort_keys,
        )
        self.columns = [c.spec(self._total(c), self._table[c.key]) for c in columns]
        self._resort(at)

    # ------------------------------------------------------------------ actions (browser)
    def _reply(self, viewport: list | None, action=None) -> Reply:
        """Run ``action`` (a widget method, or a change of rows), then answer with the rows
        in the browser's viewport."""
        self._port(viewport)
        if action is not None:
            self.notice = ""
            action()
        return self._window(*self._viewport)

    def _node_of(self, vid: int) -> int:
        return int(self._rows.node[self._rows.check(vid)])

    def _on_rows(self, start: int = 0, count: int = 100) -> Reply:
        return self._window(start, count)

    def _on_toggle(self, vid: int, viewport: list | None = None) -> Reply:
        vid = self._rows.check(vid)
        return self._reply(
            viewport, lambda: self._rows.set_expanded([vid], not self._rows.expanded[vid])
        )

    def _on_expand_all(self, vid: int = -1, viewport: list | None = None) -> Reply:
        """Expand all below the cursor row (``vid`` -1: no cursor row, the whole tree)."""
        tops = None if vid == -1 else np.array([self._rows.check(vid)])
        return self._reply(viewport, lambda: self._do(lambda: self._expand_all(tops)))

    def _on_select(self, vid: int, add: bool = False, viewport: list | None = None) -> Reply:
        """A click selects a row (Ctrl/Cmd-click adds it, or takes it out again)."""
        node = self._node_of(vid)

        def select() -> None:
            if not add:
                self._selected[:] = False
            self._selected[node] = not (add and self._selected[node])

        return self._reply(viewport, select)

    def _on_sort(self, column: str, descending: bool = True, viewport=None) -> Reply:
        return self._reply(viewport, lambda: self.sort_by(column, descending))

    def _on_search(self, pattern: str = "", viewport=None) -> Reply:
        return self._reply(viewport, lambda: self.search(pattern))

    def _on_search_step(self, step: int = 1, viewport=None) -> Reply:
        return self._reply(viewport, lambda: self.next_match(step))

    def _on_filter(self, query: str = "", squash: bool = True, viewport=None) -> Reply:
        return self._reply(viewport, lambda: self.filter(query, squash))

    def _on_squash(self, viewport=None) -> Reply:
        return self._reply(viewport, self.squash)

    def _on_undo(self, viewport=None) -> Reply:
        return self._reply(viewport, self.undo)

    def _on_focus(self, vid: int, viewport=None) -> Reply:
        return self._reply(viewport, lambda: self.focus(self._node_of(vid)))

    def _on_drop(self, vid: int, subtree: bool = True, viewport=None) -> Reply:
        return self._reply(viewport, lambda: self.drop(self._node_of(vid), subtree))

    def _on_stat(self, stat: str, viewport=None) -> Reply:
        return self._reply(viewport, lambda: self.set_stat(stat))

    def _on_color_by(self, column: str | None = None, viewport=None) -> Reply:
        return self._reply(viewport, lambda: self.set_color_by(column))

    def _on_cursor(self, node: int = -1) -> Reply:
        """The page's keyboard cursor rests on ``node`` (sent while ``report_cursor``)."""
        if not isinstance(node, int) or not -1 <= node < len(self._data.graph):
            raise ShapeError(f"no node {node!r} under the cursor")
        self.cursor_node = node
        return {"ok": True}, []

    def _failed_reply(self, message: str) -> Reply:
        payload, buffers = self._window(*self._viewport)
        payload.update(ok=False, error=message)
        return payload, buffers

    # ------------------------------------------------------------------ internals
    def _do(self, fn) -> CalltreeExplorer:
        self.notice = ""
        self._guard(fn)
        self._refresh()
        return self

    def _refresh(self) -> None:
        """Tell the page the view changed. After a change made from Python, the rows in the
        page's viewport go with it (pushed before the version moves, so the page does not
        ask for them); a request's own response carries them otherwise."""
        if self._seen and not self._answering:  # the window sets the counters too
            payload, buffers = self._window(*self._viewport)
            payload["version"] = self.view_version + 1
            self._push("rows", payload, buffers)
        else:
            self.row_count = len(self._rows.visible())
            self._sync_selection()
        self.view_version += 1

    def _sync_selection(self) -> None:
        self.selected_nodes = np.flatnonzero(self._selected).tolist()
        self.selected_count = len(self.selected_nodes)
        details: dict = {}
        if self._ranks is not None and len(self.selected_nodes) == 1:
            node = self.selected_nodes[0]
            details = self._ranks.top(node, str(self._names[node]))
        if details != self.details:
            self.details = details

    def _port(self, viewport: list | None) -> tuple[int, int]:
        if viewport:
            self._viewport = (max(0, int(viewport[0])), max(1, min(MAX_WINDOW, int(viewport[1]))))
        return self._viewport

    def _show(self, data: Any, rows: TreeRows | None = None, state: dict | None = None) -> None:
        """Make ``data`` the shown frame: columns, per-node table, display rows."""
        metrics = self._metrics or _source.default_metrics(data, self._compare)
        columns = _source.columns_for(data, metrics, self._compare, self._stat)
        matrices: dict = {}
        table = _source.node_table(data, columns, matrices)
        names = _source.names_of(data)
        sort_keys: dict[str, np.ndarray] = {}
        ranks = None
        if not self._compare and not isinstance(data, Ensemble) and data.index_levels:
            metric = self._glyph_metric or self._default_sort(columns, data)
            ranks = _source.RankView.of(data, metric, matrices, self._across)
            columns = columns + ranks.columns
            table.update(ranks.table())
        if self._extras is not None:
            extra_cols, extra_table, sort_keys = self._extras.on(data.graph, names)
            columns = columns + extra_cols
            table.update(extra_table)
        if rows is None:
            rows = TreeRows(data.graph)
        glyph = self._glyph_state(data, metrics) if isinstance(data, Ensemble) else None
        if ranks is not None:
            glyph = {"matrix": ranks.matrix, "state": ranks.glyph_state()}
        # nothing above changed the widget: a failure leaves the previous view intact
        self._data, self._columns, self._table, self._names, self._rows = (
            data,
            columns,
            table,
            names,
            rows,
        )
        self._sort_keys = sort_keys
        self._glyph_data = glyph
        self._ranks = ranks
        self._selected = np.zeros(len(data.graph), bool)
        self._matches = np.zeros(0, np.int64)
        self._current = -1
        self.node_count = len(data.graph)
        self.columns = [c.spec(self._total(c), self._table[c.key]) for c in columns]
        self.history_labels = [s.label for s in self._steps]
        filters = [s.query for s in self._steps if s.kind == "filter"]
        self.filter_query = filters[-1] if filters else ""
        self.glyph = glyph["state"] if glyph else {}
        if state is None:
            key = self._default_sort(columns, data)
            self._sort(key, True)
            self._rows.hot_path(self._sort_values(), self._hot_levels)
            self.search_state = {}
        else:
            self.sort_column, self.sort_descending = state["sort"]
            self.search_state = {}
            if state.get("pattern"):
                self._search(state["pattern"], expand=False)

    def _restyle(self, **options: Any) -> None:
        """Show the same frame with another statistic or coloring, keeping the open rows and
        the sort (by the same column position); on failure nothing changes."""
        if not isinstance(self._data, Ensemble):
            raise ShapeError("statistics and colors are for ensembles; this explorer shows a frame")
        self._reshow(**options)

    def _reshow(self, **options: Any) -> None:
        """Set the ``_<name>`` attributes of ``options`` and show the same frame again,
        keeping the open rows and the sort; on failure they are put back."""
        before = {k: getattr(self, f"_{k}") for k in options}
        at = self._sort_position()
        for k, v in options.items():
            setattr(self, f"_{k}", v)
        try:
            self._show(self._data, rows=self._rows, state=self._view_state())
        except Exception:
            for k, v in before.items():
                setattr(self, f"_{k}", v)
            raise
        self._resort(at)

    def _sort_position(self) -> tuple[int, str]:
        keys = [c.key for c in self._columns]
        return (keys.index(self.sort_column) if self.sort_column in keys else 0, self.sort_column)

    def _resort(self, at: tuple[int, str]) -> None:
        """Sort again by the same column (by key, else by the same position)."""
        keys = [c.key for c in self._columns]
        key = at[1] if at[1] in keys else keys[min(at[0], len(keys) - 1)]
        self._sort(key, self.sort_descending)

    def _default_sort(self, columns: Sequence[_source.Column], data: Any) -> str:
        """The default metric's inclusive column (its a side when comparing), else the
        first inclusive column: the hot path then follows where the time goes."""
        preferred = _source.inclusive_name(str(data.default_metric))
        names = {preferred, side_name(preferred, "a")}
        shown = [c for c in columns if c.kind not in ("diff", *_source.PLAIN_KINDS)]
        for c in shown:
            if c.key in names or c.key.startswith(f"{preferred}_") or c.label == preferred:
                return c.key
        incl = [c.key for c in shown if c.kind == "inc"]
        own = [c.key for c in shown if c.key == str(data.default_metric)]
        return (incl or own or [c.key for c in shown])[0]

    def _glyph_state(self, ens: Ensemble, metrics: Sequence[str]) -> dict:
        metric = self._glyph_metric or metrics[0]
        if metric not in ens.dataframe.columns:
            raise ShapeError(f"no metric column {metric!r} for the distribution glyph")
        held = self._matrix_held  # the same frame shown again (a restyle): reuse
        if held is not None and held[0] is ens and held[1] == metric:
            matrix = held[2]
        else:
            matrix = _source.profile_matrix(ens, metric)
            self._matrix_held = (ens, metric, matrix)
        codes, names = _source.profile_categories(ens, self._color_by)
        return {
            "matrix": matrix,
            "codes": codes,
            "state": {
                "metric": str(metric),
                "stat": self._stat,
                # readable labels (the ids are 18-digit hashes), in profile order
                "profiles": [str(label) for label in ens.labels],
                "color_by": self._color_by or "",
                "categories": names,
                "codes": codes.tolist(),
                "stats": list(_source.STATS),
                "color_columns": _source.category_columns(ens),
            },
        }

    def _total(self, column: _source.Column) -> float:
        """What bars and percentages of a column are relative to (for a difference: the
        largest difference, so that small changes still show)."""
        if column.kind in _source.PLAIN_KINDS:
            return 0.0
        if column.kind == "diff":
            diff = np.asarray(self._table[column.key], dtype=float)
            finite = np.abs(diff[np.isfinite(diff)])
            return float(finite.max()) if len(finite) else 0.0
        values = self._table[column.key]
        return _source.total(values, self._data.graph.root_ids, column.kind == "exc")

    def _column(self, column: str) -> _source.Column:
        for c in self._columns:
            if column in (c.key, c.label):
                return c
        raise ShapeError(
            f"no shown column {column!r}; shown: {', '.join(c.key for c in self._columns)}"
        )

    def _sort_values(self) -> np.ndarray:
        key = self.sort_column
        values = self._sort_keys[key] if key in self._sort_keys else self._table[key]
        return np.asarray(values, dtype=float)[self._rows.node]

    def _sort(self, column: str, descending: bool) -> None:
        key = self._column(column).key
        self.sort_column, self.sort_descending = key, bool(descending)
        self._rows.sort_by(self._sort_values(), descending)
        if len(self._matches):
            self._matches = self._matches[np.argsort(self._rows.pos[self._matches])]
            self._search_state()

    def _expand_all(self, tops: np.ndarray | None, budget: int | None = None) -> None:
        """Expand all below ``tops`` (display nodes; None, or only leaves: the whole tree)
        within a row budget, and say so when the budget stopped it."""
        budget = self._expand_budget if budget is None else _check_budget(budget)
        if tops is not None:
            tops = tops[self._rows.n_children[tops] > 0]
        rows, everything = self._rows.expand_within(
            tops if tops is not None and len(tops) else None, int(budget)
        )
        if rows < everything:
            self.notice = (
                f"Expand all stopped at {rows:,} rows of {everything:,} (the budget of "
                f"{int(budget):,} rows): open deeper rows one by one, or filter first"
            )

    def _expand(self, vids: np.ndarray, subtree: bool) -> None:
        if subtree:
            for v in vids:
                self._rows.expand_subtree(int(v))
        else:
            self._rows.expand_to(vids)
            self._rows.set_expanded(vids, True)

    def _search(self, pattern: str, expand: bool = True) -> None:
        pattern = pattern or ""
        if not pattern:
            self._matches, self._current = np.zeros(0, np.int64), -1
            self.search_state = {}
            return
        try:
            re.compile(pattern)
        except re.error as exc:
            raise QueryError(f"search {pattern!r}: bad regular expression: {exc}") from exc
        hit = pd.Series(self._names).str.contains(pattern, regex=True).to_numpy(dtype=bool)
        vids = np.flatnonzero(hit[self._rows.node])
        self._matches = vids[np.argsort(self._rows.pos[vids])]
        self._current = 0 if len(vids) else -1
        if expand and len(vids):
            self._rows.expand_to(vids if len(vids) <= EXPAND_MATCHES else vids[:1])
            self._scroll_vid = int(self._matches[0])  # the page shows the current match
        self._search_state(pattern)

    def _step_match(self, step: int) -> None:
        if not len(self._matches):
            raise QueryError("no search matches to move between")
        self._current = (self._current + int(step)) % len(self._matches)
        self._rows.expand_to(self._matches[self._current : self._current + 1])
        self._scroll_vid = int(self._matches[self._current])
        self._search_state()

    def _search_state(self, pattern: str | None = None) -> None:
        state = dict(self.search_state)
        if pattern is not None:
            state["pattern"] = pattern
        cur = self._matches[self._current] if self._current >= 0 else -1
        state.update(
            count=len(self._matches),
            current=self._current + 1,
            node=int(self._rows.node[cur]) if cur >= 0 else -1,
        )
        self.search_state = state

    def _transform(self, make_step: Callable[[], Step]) -> CalltreeExplorer:
        def run() -> None:
            step = make_step()
            new = step.apply(self._data)
            previous = (self._data, self._rows, self._view_state())
            self._steps.append(step)
            try:
                self._show(new)
            except Exception:
                self._steps.pop()
                self._show(previous[0], rows=previous[1], state=previous[2])
                raise
            self._stack.append(previous)

        return self._do(run)

    def _view_state(self) -> dict:
        return {
            "sort": (self.sort_column, self.sort_descending),
            "pattern": self.search_state.get("pattern", ""),
        }

    def _node_id(self, node: Any) -> int:
        vids = self._vids(node)
        ids = np.unique(self._rows.node[vids])
        if len(ids) != 1:
            raise GraphError(f"{node!r} names {len(ids)} nodes; pass one node id")
        return int(ids[0])

    def _vids(self, nodes: Any) -> np.ndarray:
        """Display nodes of node ids, Node objects or exact names."""
        items = [nodes] if isinstance(nodes, (int, np.integer, str, Node)) else list(nodes)
        ids = []
        for item in items:
            if isinstance(item, Node):
                item = item.nid
            if isinstance(item, str):
                found = np.flatnonzero(self._names == item)
                if not len(found):
                    raise GraphError(f"no node named {item!r} in the shown tree")
                ids.extend(found.tolist())
            elif isinstance(item, (int, np.integer)) and 0 <= item < len(self._data.graph):
                ids.append(int(item))
            else:
                raise GraphError(
                    f"no node {item!r}: pass node ids 0..{len(self._data.graph) - 1}, "
                    "Node objects or names"
                )
        return self._rows.vids_of_nodes(np.asarray(ids, dtype=np.int64))

    # ------------------------------------------------------------------ row windows
    def _window(self, start: int, count: int) -> Reply:
        """The rows ``start .. start+count`` as binary columns, and the view's counters."""
        self._viewport = (max(0, int(start)), max(1, min(MAX_WINDOW, int(count))))
        visible = self._rows.visible()
        total = len(visible)
        self.row_count = total
        self._sync_selection()
        scroll_to = -1
        target = self._scroll_vid  # a revealed row or the current match, once
        self._scroll_vid = -1
        if target >= 0:
            scroll_to = int(self._rows.row_of([target])[0])
            if not (self._viewport[0] <= scroll_to < sum(self._viewport) - 5):
                self._viewport = (max(0, scroll_to - 10), self._viewport[1])
        start, count = self._viewport
        start = min(start, max(0, total - 1))
        vids = visible[start : start + count]
        nodes = self._rows.node[vids]
        flags = np.where(self._rows.expanded[vids], EXPANDED, 0)
        flags |= np.where(self._rows.n_children[vids] > 0, PARENT, 0)
        flags |= np.where(self._selected[nodes], SELECTED, 0)
        if len(self._matches):
            # only the window's rows are looked up (not a mask over the whole tree per fetch)
            flags |= np.where(np.isin(vids, self._matches), MATCH, 0)
            flags |= np.where(vids == self._matches[self._current], CURRENT, 0)
        cols: dict[str, Any] = {
            "vid": vids.astype(np.int32),
            "node": nodes.astype(np.int32),
            "depth": self._rows.depth[vids].astype(np.int32),
            "nchild": self._rows.n_children[vids].astype(np.int32),
            "parent_row": self._rows.row_of(self._rows.parent[vids]).astype(np.int32),
            "flags": flags.astype(np.uint8),
            "name": self._names[nodes].tolist(),
        }
        for i, c in enumerate(self._columns):
            values = self._table[c.key][nodes]
            cols[f"c{i}"] = values.tolist() if values.dtype == object else values
        if self._glyph_data is not None:
            matrix = self._glyph_data["matrix"][nodes]
            with np.errstate(all="ignore"):
                quartiles = _quartiles(matrix)
            cols["quartiles"] = quartiles  # exact: the box and the tooltip
            cols["strip"] = _strip(matrix, quartiles)  # one byte per profile: only drawn
        header, buffers = pack(cols)
        payload = {
            "ok": True,
            "rows": {"start": start, "total": total, "columns": header},
            "scroll_to": scroll_to,
            "version": self.view_version,
        }
        return payload, buffers


def _check_budget(budget: Any) -> int:
    """A row budget of "Expand all": a whole number of at least 1."""
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise ShapeError(
            f"the row budget of expand_all must be a whole number >= 1, not {budget!r}"
        )
    return int(budget)


def _shown(data: Any) -> Any:
    """A frame as tree views show it: a frame with only exclusive metrics gets their
    inclusive columns (the core's one rule, used by ``tree()`` and the CLI too)."""
    return with_inclusive(data) if isinstance(data, GraphFrame) else data


def _derived_columns(data: GraphFrame) -> list[str]:
    """The default columns of a frame whose inclusive columns the explorer computed (it had
    only exclusive metrics): the default metric's inclusive and exclusive columns, then
    the other inclusive ones (a sampling profile: time (inc), time, count (inc)); the
    exclusive ones beside them would only crowd the table (``metrics=`` shows them)."""
    default = str(data.default_metric)
    own = default.removesuffix(" (inc)")
    first = [default] + ([own] if own != default and own in data.dataframe.columns else [])
    return first + [m for m in data.inc_metrics if m not in first]


def _quartiles(matrix: np.ndarray) -> np.ndarray:
    """(rows, 5): min, q1, median, q3, max of each row over its non-NaN values."""
    out = np.full((len(matrix), 5), np.nan)
    if matrix.size:
        ok = ~np.all(np.isnan(matrix), axis=1)
        if ok.any():
            out[ok] = np.nanquantile(matrix[ok], [0, 0.25, 0.5, 0.75, 1], axis=1).T
    return out


def _strip(matrix: np.ndarray, quartiles: np.ndarray) -> np.ndarray:
    """Each profile's position on its row's glyph scale [min(0, lowest), highest], 0..254
    (255: no value). The points are only drawn, so a byte each is enough (a 300-row window
    of 100 profiles is 30 KB instead of 240 KB); the numbers shown stay exact."""
    lo = np.minimum(0.0, quartiles[:, :1])
    span = quartiles[:, 4:5] - lo
    with np.errstate(all="ignore"):
        pos = np.rint(254 * (matrix - lo) / np.where(span > 0, span, 1.0))
    pos = np.where(np.isfinite(pos), np.clip(pos, 0, 254), 255)
    return pos.astype(np.uint8)


def _given(nodes: Any) -> bool:
    if isinstance(nodes, Iterable) and not isinstance(nodes, str):
        return len(list(nodes)) > 0
    return True
