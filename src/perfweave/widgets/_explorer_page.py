"""The explorer's page side: the requests its page sends, and the rows each answers with.

:class:`ExplorerPage` is the part of :class:`~perfweave.widgets.explorer.CalltreeExplorer`
that talks to the browser: one handler per declared request (``_on_<action>``), the window
of rows in view packed as binary columns (:meth:`ExplorerPage._window`), and the push of a
view changed from Python. The Python methods the handlers call are the explorer's own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from perfweave.calltree.glyphs import quartiles
from perfweave.calltree.study import CalltreeStudy, CalltreeView
from perfweave.errors import ShapeError
from perfweave.widgets._base import Reply, action
from perfweave.widgets._protocol import Action, Protocol
from perfweave.widgets._transport import dropped, pack, with_state
from perfweave.widgets._tree_rows import TreeRows

#: most rows one request may ask for
MAX_WINDOW = 1_000
#: the window of rows sent with the widget's state: what the page's first request asks for
#: (rows 0 .. FETCH_COUNT of ``js/src/explorer/state.js``)
FIRST_WINDOW = (0, 300)
EXPANDED, MATCH, SELECTED, CURRENT, PARENT = 1, 2, 4, 8, 16

#: the reply key of the rows' binary columns, and its columns (``c<i>``: the i-th shown
#: column's cells, as many as the explorer's ``columns`` lists; the glyph's ``quartiles``
#: and ``strip`` for an ensemble or a frame with ranks)
ROWS_KEY = "rows"
ROW_COLUMNS = ("vid", "node", "depth", "nchild", "parent_row", "flags", "name")
ROWS = (*ROW_COLUMNS, "c<i>", "quartiles", "strip")


def row_action(method: str, says: str, *args: str) -> Action:
    """A request answered with the rows in the page's viewport."""
    return Action(method, says, (*args, "viewport"), ROWS_KEY, ROWS)


#: the explorer's page/kernel protocol (``js/src/explorer/protocol.js`` is generated from it)
PROTOCOL = Protocol(
    folder="explorer",
    actions={
        "rows": Action(
            "_on_rows",
            "Showing more rows",
            ("start", "count"),
            ROWS_KEY,
            ROWS,
            first_draw={"start": 0, "count": 2000},  # a saved page's first window
        ),
        "toggle": row_action("_on_toggle", "Expanding or collapsing rows", "vid"),
        "expand_all": row_action("_on_expand_all", "Expanding everything below a row", "vid"),
        "sort": row_action("_on_sort", "Sorting", "column", "descending"),
        "search": row_action("_on_search", "Searching names", "pattern"),
        "search_step": row_action("_on_search_step", "Stepping through search matches", "step"),
        "filter": row_action("_on_filter", "Filtering the tree", "query", "squash"),
        "squash": row_action("_on_squash", "Squashing the tree"),
        "undo": row_action("_on_undo", "Undoing a step"),
        "focus": row_action("_on_focus", "Focusing on a subtree", "vid"),
        "drop": row_action("_on_drop", "Dropping a subtree", "vid", "subtree"),
        "select": row_action("_on_select", "Selecting", "vid", "add"),
        "stat": row_action("_on_stat", "Changing the statistic", "stat"),
        "color_by": row_action("_on_color_by", "Coloring profiles", "column"),
        "cursor": Action("_on_cursor", "Moving the row cursor", ("node",)),
    },
    read_only=(
        "view_version",
        "report_cursor",
        "row_count",
        "mode",
        "node_count",
        "first_window",
    ),
)


def redraws(fn: Callable[..., Any]) -> Callable[..., Any]:
    """An action that changes the view: the last action's notice goes first, and the page
    is told of the new view after (inside :func:`~perfweave.widgets._base.action`'s path)."""

    @functools.wraps(fn)
    def run(self: ExplorerPage, *args: Any, **kwargs: Any) -> Any:
        self.notice = ""
        result = fn(self, *args, **kwargs)
        self._refresh()
        return result

    return run


class ExplorerPage:
    """The request handlers and row windows of the explorer (see the module text): a mixin
    of :class:`~perfweave.widgets.explorer.CalltreeExplorer`, whose methods (``sort_by``,
    ``filter``, ``undo`` ...) the handlers call."""

    _study: CalltreeStudy
    _rows: TreeRows
    _selected: np.ndarray
    _viewport: tuple[int, int]
    _scroll_vid: int  # a row to scroll the page to with the next rows sent
    notice: str
    row_count: int
    selected_count: int
    selected_nodes: list
    details: dict
    view_version: int
    cursor_node: int
    first_window: dict
    _seen: bool
    _answering: bool

    @property
    def _view(self) -> CalltreeView:
        return self._study.view

    def _reply(self, viewport: list | None, act: Callable[[], Any] | None = None) -> Reply:
        """Run ``act`` (a widget method, or a change of rows), then answer with the rows in
        the browser's viewport."""
        if viewport:
            self._viewport = (max(0, int(viewport[0])), max(1, min(MAX_WINDOW, int(viewport[1]))))
        if act is not None:
            self.notice = ""
            act()
        return self._window(*self._viewport)

    def _node_of(self, vid: int) -> int:
        return int(self._rows.node_of([self._rows.check(vid)])[0])

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
        return self._reply(viewport, lambda: self._expand_rows(tops))

    @action
    @redraws
    def _expand_rows(self, tops: np.ndarray | None) -> None:
        self._expand_all(tops)

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
        if not isinstance(node, int) or isinstance(node, bool):
            raise ShapeError(f"no node {node!r} under the cursor")
        self.cursor_node = node
        return {"ok": True}, []

    def _failed_reply(self, message: str) -> Reply:
        payload, buffers = self._window(*self._viewport)
        payload.update(ok=False, error=message)
        return payload, buffers

    # ------------------------------------------------------------------ telling the page
    def _first_window(self) -> dict:
        """The rows the page's first request would get (``FIRST_WINDOW``), for the
        ``first_window`` trait: sent with the widget's state, so the page draws them at once
        instead of asking and waiting for the kernel to finish the cell first. ``reply`` is
        the response, ``buffers`` its binary columns."""
        return with_state(*self._window(*FIRST_WINDOW))

    def _drop_first_window(self) -> None:
        """Take the first window's rows out of the state (a page then asks for its rows;
        see :func:`~perfweave.widgets._transport.dropped`)."""
        if self.first_window.get("reply"):
            self.first_window = dropped(self.first_window)

    def _refresh(self) -> None:
        """Tell the page the view changed. After a change made from Python, the rows in the
        page's viewport go with it (pushed before the version moves, so the page does not
        ask for them); a request's own response carries them otherwise."""
        self._drop_first_window()  # rows of an earlier view: a page asks for the new ones
        if self._seen and not self._answering:  # the window sets the counters too
            payload, buffers = self._window(*self._viewport)
            payload["version"] = self.view_version + 1
            self._push(ROWS_KEY, payload, buffers)
        else:
            self.row_count = len(self._rows.visible())
            self._sync_selection()
        self.view_version += 1

    def _sync_selection(self) -> None:
        self.selected_nodes = np.flatnonzero(self._selected).tolist()
        self.selected_count = len(self.selected_nodes)
        one = len(self.selected_nodes) == 1
        details = self._view.details(self.selected_nodes[0]) if one else {}
        if details != self.details:
            self.details = details

    def _window(self, start: int, count: int) -> Reply:
        """The rows ``start .. start+count`` as binary columns, and the view's counters."""
        if self._answering:  # a page asks: its rows may change from here
            self._drop_first_window()
        self._viewport = (max(0, int(start)), max(1, min(MAX_WINDOW, int(count))))
        rows = self._rows
        visible = rows.visible()
        total = len(visible)
        self.row_count = total
        self._sync_selection()
        scroll_to = -1
        target = self._scroll_vid  # a revealed row or the current match, once
        self._scroll_vid = -1
        if target >= 0:
            scroll_to = int(rows.row_of([target])[0])
            if not (self._viewport[0] <= scroll_to < sum(self._viewport) - 5):
                self._viewport = (max(0, scroll_to - 10), self._viewport[1])
        start, count = self._viewport
        start = min(start, max(0, total - 1))
        vids = visible[start : start + count]
        nodes = rows.node_of(vids)
        nchild = rows.n_children_of(vids)
        flags = np.where(rows.expanded[vids], EXPANDED, 0)
        flags |= np.where(nchild > 0, PARENT, 0)
        flags |= np.where(self._selected[nodes], SELECTED, 0)
        if len(rows.matches):
            # only the window's rows are looked up (not a mask over the whole tree per fetch)
            flags |= np.where(np.isin(vids, rows.matches), MATCH, 0)
            flags |= np.where(vids == rows.current_match(), CURRENT, 0)
        view = self._view
        cols: dict[str, Any] = {
            "vid": vids.astype(np.int32),
            "node": nodes.astype(np.int32),
            "depth": rows.depth[vids].astype(np.int32),
            "nchild": nchild.astype(np.int32),
            "parent_row": rows.row_of(rows.parent[vids]).astype(np.int32),
            "flags": flags.astype(np.uint8),
            "name": view.names_of(nodes).tolist(),
        }
        for i, c in enumerate(view.columns):
            values = view.table[c.key][nodes]
            cols[f"c{i}"] = values.tolist() if values.dtype == object else values
        if view.glyph is not None:
            matrix = view.glyph["matrix"][nodes]
            box = quartiles(matrix)
            cols["quartiles"] = box  # exact: the box and the tooltip
            cols["strip"] = _strip(matrix, box)  # one byte per profile: only drawn
        header, buffers = pack(cols)
        payload = {
            "ok": True,
            ROWS_KEY: {"start": start, "total": total, "columns": header},
            "scroll_to": scroll_to,
            "version": self.view_version,
        }
        return payload, buffers


def _strip(matrix: np.ndarray, box: np.ndarray) -> np.ndarray:
    """Each profile's position on its row's glyph scale [min(0, lowest), highest], 0..254
    (255: no value). The points are only drawn, so a byte each is enough (a 300-row window
    of 100 profiles is 30 KB instead of 240 KB); the numbers shown stay exact."""
    lo = np.minimum(0.0, box[:, :1])
    span = box[:, 4:5] - lo
    with np.errstate(all="ignore"):
        pos = np.rint(254 * (matrix - lo) / np.where(span > 0, span, 1.0))
    pos = np.where(np.isfinite(pos), np.clip(pos, 0, 254), 255)
    return pos.astype(np.uint8)
