"""CalltreeExplorer: a collapsible calltree table with search, filter/squash and history.

The explorer is a thin view over a :class:`~perfweave.calltree.study.CalltreeStudy` (a
GraphFrame, an Ensemble or ``a - b`` of two frames, its transforms and how it is shown).
The widget holds which rows are open, selected and matched by a search; Python holds the
whole tree, the browser only the rows in view, asking for more as it scrolls (``rows``) and
for every action a person takes (``toggle``, ``sort``, ``search``, ``filter`` ...). Each
action is also a Python method, so a notebook can script the widget and tests can drive it
without a browser. The page's protocol is declared once (``_explorer_page.PROTOCOL``, with
the request handlers; ``js/src/explorer/protocol.js`` is generated from it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import traitlets

from perfweave.calltree.graph import Node
from perfweave.calltree.steps import Step
from perfweave.calltree.study import CalltreeStudy
from perfweave.errors import ShapeError
from perfweave.widgets._base import WidgetBase, action, static_file
from perfweave.widgets._explorer_page import PROTOCOL, ExplorerPage, redraws
from perfweave.widgets._tree_rows import TreeRows, check_budget

#: search matches up to this many get their paths expanded at once (beyond: the current one)
EXPAND_MATCHES = 10_000
#: "Expand all" opens rows level by level until the table shows this many
EXPAND_ALL_ROWS = 10_000


class CalltreeExplorer(ExplorerPage, WidgetBase):
    """Explore a calltree: expand, sort, search, filter/squash, focus, drop, undo, select.

    ``data``: a perfweave GraphFrame or Ensemble (or an llnl-hatchet GraphFrame /
    llnl-thicket Thicket), or a :class:`~perfweave.calltree.study.CalltreeStudy`.
    ``metrics``: the columns shown (default: the inclusive then the exclusive metrics).
    ``compare``: a second GraphFrame; the explorer then shows ``data - compare`` on the
    union tree beside each side's values. For an ensemble, ``stat`` is the statistic shown
    per node, ``glyph_metric`` the metric whose spread across profiles is drawn, and
    ``color_by`` a metadata column coloring the profiles. For a frame with ranks/threads,
    ``across`` says what its glyph and its excess and imbalance columns compare:
    ``"ranks"`` (each rank, its threads summed; the default where there is a rank level) or
    ``"threads"`` (every rank/thread; see :mod:`perfweave.calltree.ranks`).
    ``request_timeout``: seconds the page waits for Python before its banner says the
    kernel did not answer (the widget contract; default 10).
    """

    _esm = static_file("explorer.js")
    _css = static_file("explorer.css")

    _protocol = PROTOCOL

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
    #: the first window of rows ({"reply", "buffers"}: the response to the page's first
    #: ``rows`` request), sent with the state so that the page draws at once; its reply is
    #: dropped (the buffers emptied) when the view changes or a page asks for rows
    first_window = traitlets.Dict().tag(sync=True)
    #: the query of the last filter in the history ("" when none): the filter box shows it
    filter_query = traitlets.Unicode("").tag(sync=True)
    #: what the last action could not do in full ("Expand all" stopped by its row budget);
    #: the status line shows it, the next action clears it
    notice = traitlets.Unicode("").tag(sync=True)

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
        if isinstance(data, CalltreeStudy):
            self._study = data
        else:
            options = {"compare": compare, "glyph_metric": glyph_metric, "across": across}
            self._study = CalltreeStudy(data, metrics, stat=stat, color_by=color_by, **options)
        self._hot_levels = hot_levels
        self._expand_budget = check_budget(expand_budget)
        self._viewport = (0, 100)
        self._scroll_vid = -1  # a row to scroll the page to with the next rows sent
        timeout = {} if request_timeout is None else {"request_timeout": request_timeout}
        super().__init__(mode=self._study.mode, height=height, **timeout)
        with self.hold_sync():  # the page gets the view and its first rows in one message
            self._show(self._study.view)
            self._refresh()
            self.first_window = self._first_window()

    @traitlets.validate("height")
    def _check_height(self, proposal: dict) -> int:
        value = proposal["value"]
        if value < 1:
            raise ShapeError(f"height must be a positive number of pixels, not {value}")
        return value

    @traitlets.validate("cursor_node")
    def _check_cursor(self, proposal: dict) -> int:
        node = proposal["value"]
        if not -1 <= node < len(self._study.data.graph):
            raise ShapeError(f"no node {node!r} under the cursor")
        return node

    # ------------------------------------------------------------------ public state
    @property
    def study(self) -> CalltreeStudy:
        """The core study the explorer shows (its frame, history and columns)."""
        return self._study

    @property
    def graphframe(self) -> Any:
        """The frame shown now (after filters, squashes, focus and drops)."""
        return self._study.data

    @property
    def original(self) -> Any:
        """The frame the explorer was opened on (``replay(original, history)`` is
        :attr:`graphframe`); for a frame with only exclusive metrics, with the inclusive
        columns the explorer shows (:func:`perfweave.calltree.shown.with_inclusive`)."""
        return self._study.original

    @property
    def history(self) -> list[Step]:
        """The transform steps applied so far, in order."""
        return self._study.history

    @property
    def selection(self) -> pd.DataFrame:
        """The dataframe rows of the selected nodes."""
        df = self.graphframe.dataframe
        node = np.asarray(df.index.get_level_values("node"), dtype=np.int64)
        return df[self._selected[node]]

    def visible_rows(self) -> pd.DataFrame:
        """The rows the table shows now, top to bottom (node, name, depth, columns)."""
        vids = self._rows.visible()
        nodes = self._rows.node_of(vids)
        view = self._view
        out = {
            "node": nodes,
            "name": view.names_of(nodes),
            "depth": self._rows.depth[vids],
            "expanded": self._rows.expanded[vids] & (self._rows.n_children_of(vids) > 0),
        }
        for c in view.columns:
            out[c.key] = view.table[c.key][nodes]
        return pd.DataFrame(out)

    # ------------------------------------------------------------------ actions (Python)
    @action
    @redraws
    def expand(self, node: Any, subtree: bool = False) -> None:
        """Open a node (every row of it, in a DAG), or with ``subtree`` all below it too."""
        vids = self._vids(node)
        if subtree:
            for v in vids:
                self._rows.expand_subtree(int(v))
        else:
            self._rows.expand_to(vids)
            self._rows.set_expanded(vids, True)

    @action
    @redraws
    def expand_all(self, node: Any = None, budget: int | None = None) -> None:
        """Open everything below ``node`` (None, or a node without children: the whole
        tree), level by level, while the table shows at most ``budget`` rows (default: the
        constructor's ``expand_budget``, 10,000, which the "Expand all" button uses too);
        when the budget stops it, :attr:`notice` (and the page's status line) says so."""
        self._expand_all(None if node is None else self._vids(node), budget)

    @action
    @redraws
    def collapse(self, node: Any) -> None:
        self._rows.set_expanded(self._vids(node), False)

    @action
    @redraws
    def sort_by(self, column: str, descending: bool = True) -> None:
        """Sort children by a shown column (its key or header label)."""
        self._sort(column, descending)

    def search(self, pattern: str) -> int:
        """Highlight the nodes whose name matches a regex, open their paths; the count.
        The page's search box shows the pattern and scrolls to the first match."""
        self._search_action(pattern)
        return int(self.search_state.get("count", 0))

    @action
    @redraws
    def _search_action(self, pattern: str) -> None:
        self._search(pattern)

    @action
    @redraws
    def next_match(self, step: int = 1) -> None:
        vid = self._rows.step_match(step)
        self._rows.expand_to(np.array([vid]))
        self._scroll_vid = vid
        self._search_state()

    def previous_match(self) -> CalltreeExplorer:
        return self.next_match(-1)

    def filter(self, query: str, squash: bool = True) -> CalltreeExplorer:
        """Keep the rows matching a core query string (see GraphFrame.filter). On an
        ensemble, a query on statistics (```Avg time/rank_std` > 0.1``, computed when
        missing) keeps the nodes whose statistics match, as ``Ensemble.filter_stats``."""
        return self._transform(lambda: self._study.filter_step(query, squash))

    def squash(self) -> CalltreeExplorer:
        return self._transform(lambda: Step("squash"))

    def focus(self, node: Any) -> CalltreeExplorer:
        """Keep only ``node`` and its descendants."""
        return self._transform(lambda: self._study.focus_step(node))

    def drop(self, node: Any, subtree: bool = True) -> CalltreeExplorer:
        """Remove ``node`` with its subtree (or, ``subtree=False``, just the node: its
        children move up to its parent)."""
        return self._transform(lambda: self._study.drop_step(node, subtree))

    @action
    @redraws
    def undo(self) -> None:
        """Take back the last transform; the view returns to what it was before it."""
        memo = self._study.undo()  # None: a step applied to the study before it was shown
        rows, state = memo if memo is not None else (None, None)
        self._show(self._view, rows=rows, state=state)

    @action
    @redraws
    def select(self, nodes: Any, add: bool = False) -> None:
        """Select nodes (ids, Node objects or names); ``add`` keeps the earlier selection."""
        ids = np.unique(self._rows.node_of(self._vids(nodes))) if _given(nodes) else []
        if not add:
            self._selected[:] = False
        self._selected[ids] = True

    @action
    @redraws
    def reveal(self, node: Any) -> None:
        """Open the path to ``node`` (an id of :attr:`graphframe`, a Node or a name), select
        it and scroll the page to its row (a linked view pointing at a call path). A list of
        nodes opens the paths to all of them, selects them and scrolls to the first."""
        one = isinstance(node, (int, np.integer, str, Node))
        vid = self._vids(node)[:1] if one else self._vids(node)
        self._rows.expand_to(vid)
        self._selected[:] = False
        self._selected[self._rows.node_of(vid)] = True
        self._scroll_vid = int(vid[0]) if len(vid) else -1

    def clear_selection(self) -> CalltreeExplorer:
        return self.select([])

    @action
    @redraws
    def set_stat(self, stat: str) -> None:
        """Show another statistic of the ensemble per node (mean, median, min, max, std, var)."""
        self._restyle(stat=stat)

    @action
    @redraws
    def set_across(self, across: str | None) -> None:
        """Compare each rank (``"ranks"``, its threads summed) or every thread
        (``"threads"``) in the glyph and the excess and imbalance columns (None: the
        default, ranks where there is a rank level)."""
        self._restyle(across=across)

    @action
    @redraws
    def set_color_by(self, column: str | None) -> None:
        """Color the profiles in the distribution glyphs by a metadata column (None: one color)."""
        self._restyle(color_by=column or None)

    @action
    @redraws
    def set_extra_columns(
        self,
        frame: pd.DataFrame | None,
        sort_keys: pd.DataFrame | dict | None = None,
        units: dict | None = None,
        on: Any = None,
    ) -> None:
        """Show extra per-node columns after the metrics (another view's results beside
        the calltree: a scaling model per node, a label, a score).

        ``frame``: indexed by node ids of the frame shown now (:attr:`graphframe`), one
        column per extra column, numeric or text; nodes it lacks show a dash. ``sort_keys``
        (optional): a numeric sort key per text column (a DataFrame with the same index or
        a dict of column -> Series); a text column without one sorts alphabetically.
        ``units`` (optional): column -> unit of a numeric column (``"s"``, ``"B"``), whose
        values are then shown like a metric's in that unit (``1.38 ms``). ``on``
        (optional): the frame whose node ids index ``frame`` instead, e.g. :attr:`original`
        (results computed on the data given, matched to the shown tree by call path).
        Every extra column sorts like a metric (header click or :meth:`sort_by`). The
        columns follow their call paths through later filters, focus and drops. ``None``
        removes them. The metrics, glyphs, open rows, selection and search stay (a linked
        view replaces them after every refit); the sort stays on the same column (by key,
        else by position).
        """
        at = self._sort_position()
        view = self._study.set_extras(frame, sort_keys, units, on)
        self.columns = view.specs()
        self._resort(at)

    # ------------------------------------------------------------------ internals
    def _transform(self, make_step: Callable[[], Step]) -> CalltreeExplorer:
        """Apply a transform made by ``make_step`` (the study keeps the open rows and the
        sort for its undo); on failure nothing changes."""

        @action
        @redraws
        def run(self: CalltreeExplorer) -> None:
            self._study.apply(make_step(), memo=(self._rows, self._view_state()))
            self._show(self._view)

        return run(self)

    def _show(self, view: Any, rows: TreeRows | None = None, state: dict | None = None):
        """Show the study's ``view``: its columns, and ``rows`` (new display rows on the
        hot path when None) with the sort and search of ``state``."""
        self._rows = TreeRows(view.data.graph) if rows is None else rows
        self._selected = np.zeros(len(view.data.graph), bool)
        self._rows.clear_matches()
        self.node_count = len(view.data.graph)
        self.columns = view.specs()
        self.history_labels = [s.label for s in self._study.history]
        self.filter_query = self._study.filter_query
        self.glyph = view.glyph["state"] if view.glyph else {}
        self.search_state = {}
        if state is None:
            self._sort(view.default_sort, True)
            self._rows.hot_path(self._sort_values(), self._hot_levels)
        else:
            self.sort_column, self.sort_descending = state["sort"]
            if state.get("pattern"):
                self._search(state["pattern"], expand=False)

    def _restyle(self, **options: Any) -> None:
        """Show the same frame another way (the study's options), keeping the open rows and
        the sort (by the same column position); on failure nothing changes."""
        at = self._sort_position()
        self._study.restyle(**options)
        self._show(self._view, rows=self._rows, state=self._view_state())
        self._resort(at)

    def _sort_position(self) -> tuple[int, str]:
        keys = [c["key"] for c in self.columns]
        return (keys.index(self.sort_column) if self.sort_column in keys else 0, self.sort_column)

    def _resort(self, at: tuple[int, str]) -> None:
        """Sort again by the same column (by key, else by the same position)."""
        keys = [c.key for c in self._view.columns]
        key = at[1] if at[1] in keys else keys[min(at[0], len(keys) - 1)]
        self._sort(key, self.sort_descending)

    def _sort_values(self) -> np.ndarray:
        return self._rows.of_graph(self._view.sort_values(self.sort_column))

    def _sort(self, column: str, descending: bool) -> None:
        key = self._view.column(column).key
        self.sort_column, self.sort_descending = key, bool(descending)
        self._rows.sort_by(self._sort_values(), descending)
        if len(self._rows.matches):
            self._search_state()

    def _expand_all(self, tops: np.ndarray | None, budget: int | None = None) -> None:
        """Expand all below ``tops`` (display nodes; None, or only leaves: the whole tree)
        within a row budget, and say so when the budget stopped it."""
        budget = self._expand_budget if budget is None else check_budget(budget)
        if tops is not None:
            tops = tops[self._rows.n_children_of(tops) > 0]
        rows, everything = self._rows.expand_within(
            tops if tops is not None and len(tops) else None, int(budget)
        )
        if rows < everything:
            self.notice = (
                f"Expand all stopped at {rows:,} rows of {everything:,} (the budget of "
                f"{int(budget):,} rows): open deeper rows one by one, or filter first"
            )

    def _search(self, pattern: str, expand: bool = True) -> None:
        pattern = pattern or ""
        if not pattern:
            self._rows.clear_matches()
            self.search_state = {}
            return
        self._rows.set_matches(self._view.matching(pattern))
        vids = self._rows.matches
        if expand and len(vids):
            self._rows.expand_to(vids if len(vids) <= EXPAND_MATCHES else vids[:1])
            self._scroll_vid = int(vids[0])  # the page shows the current match
        self._search_state(pattern)

    def _search_state(self, pattern: str | None = None) -> None:
        state = dict(self.search_state)
        if pattern is not None:
            state["pattern"] = pattern
        state.update(self._rows.match_state())
        self.search_state = state

    def _view_state(self) -> dict:
        return {
            "sort": (self.sort_column, self.sort_descending),
            "pattern": self.search_state.get("pattern", ""),
        }

    def _vids(self, nodes: Any) -> np.ndarray:
        """Display nodes of node ids, Node objects or exact names."""
        return self._rows.vids_of_nodes(self._study.find_nodes(nodes))


def _given(nodes: Any) -> bool:
    if isinstance(nodes, Iterable) and not isinstance(nodes, str):
        return len(list(nodes)) > 0
    return True
