"""The FlameGraph's page side: the requests its page sends and what each is answered with.

:class:`FlamePage` is the part of :class:`~perfweave.widgets.flame.FlameGraph` that talks to
the browser: one handler per declared request (``_on_<action>``). Frames travel as **held
sets**, binary columns of the frames of a view down to a width (the core's
``FlameLayout.band``) with the sums the page gathers narrower frames from (``FrameSums``):
the page draws the view, and any zoom into a frame whose new pixel the set reaches, itself
(``js/src/flame/view.js``); a reply then only adds the frames it lacks. A search is answered
with the codes of the matching names. The Python methods the handlers call are the widget's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from perfweave.errors import ShapeError
from perfweave.widgets._base import Reply
from perfweave.widgets._protocol import Action, Protocol
from perfweave.widgets._transport import dropped, pack, with_state

if TYPE_CHECKING:
    from perfweave.calltree.flame import FlameLayout, FrameSums

#: the reply key of the frames' binary columns: each frame's node, name (a code into the
#: reply's ``names``, whose codes are ``name_ids``: the widget's codes, see
#: :class:`NameCodes`), depth, span (fractions of the total) and
#: values, and the sums the page gathers narrower frames from (``FrameSums``); ``guess`` only
#: for a prediction, ``key`` (what the colour hashes) only where it is not the name; ``found``
#: (the codes of the names the search matches) where the reply is Python's view
FRAMES_KEY = "frames"
FRAME_COLUMNS = (
    "node",
    "name",
    "depth",
    "x0",
    "x1",
    "value",
    "exclusive",
    "size",
    "value_before",
    "child_value",
    "child_x1",
    "excl_start",
    "excl_subtree",
    "guess",
    "key",
    "names",
    "name_ids",
    "found",
)
COMPARE_COLUMNS = (
    "value_a",
    "value_b",
    "delta",
    "relative",
    "p_value",
    "q_value",
    "significant",
    "n_a",
    "n_b",
)
_FRAMES = (*FRAME_COLUMNS, *COMPARE_COLUMNS)
#: the reply key of a search's matches: the codes of the distinct names that match
FOUND_KEY = "found"
ORIENTATIONS = ("icicle", "flame")
COLOR_BY = ("name", "module", "exclusive")
#: widest canvas a page may ask frames for (pixels), and the default
MAX_WIDTH = 16384
DEFAULT_WIDTH = 1000
#: the canvas width the first frames sent with the widget's state are held for: a page's
#: canvas up to this wide draws them complete (a wider one asks for the frames it lacks)
FIRST_WIDTH = 2048
#: how many times finer than its canvas a page may ask for a view's frames
MAX_DETAIL = 64
#: a held set's threshold is this much below the pixel's width, so that it holds every frame
#: the page's re-based test finds a pixel wide (the two differ in the last bits)
_MARGIN = 1 - 1e-9


def _percent(x: float) -> str:
    if not np.isfinite(x):
        return "–"
    p = 100 * x
    if p != 0 and abs(p) < 0.05:
        return "<0.1%"
    return f"{p:.0f}%" if abs(p) >= 9.95 else f"{p:.1f}%"


PROTOCOL = Protocol(
    folder="flame",
    actions={
        # a saved page zooms and searches on what it saved: the widest canvas's frames
        "frames": Action(
            "_on_frames",
            "Drawing the flame graph",
            ("width", "detail", "node", "below"),
            FRAMES_KEY,
            _FRAMES,
            first_draw={"width": MAX_WIDTH},
        ),
        "zoom": Action(
            "_on_zoom", "Zooming in", ("node", "width", "detail", "below"), FRAMES_KEY, _FRAMES
        ),
        "search": Action("_on_search", "Searching names", ("pattern",), FOUND_KEY, ("code",)),
        "select": Action("_on_select", "Selecting", ("node",)),
        "set": Action(
            "_on_set",
            "Changing this control",
            ("width", "metric", "orientation", "color_by"),
            FRAMES_KEY,
            _FRAMES,
        ),
    },
    read_only=("view_version", "zoom_node", "search_pattern", "first_frames"),
    controls={
        "orientation": (
            ("icicle", "icicle (root on top)"),
            ("flame", "flame (root at the bottom)"),
        ),
        "color_by": (
            ("name", "colour by name"),
            ("module", "colour by module"),
            ("exclusive", "colour by exclusive share"),
        ),
    },
)


class NameCodes:
    """The codes a page knows names by: each distinct name gets the next code when a reply
    first carries it, and keeps it for the widget's life (a page holds the names of the
    codes it was sent, across layouts). The frames of a first draw are coded from their own
    names (the other nodes' names are not worked out for it); once a layout's
    ``name_codes`` exist (a search needs every name), its codes are translated."""

    def __init__(self) -> None:
        self._code: dict[str, int] = {}
        self._names: list[str] = []
        #: a layout's name codes -> these codes (the layout it was made for)
        self._of_layout: tuple[FlameLayout, np.ndarray] | None = None

    def _coded(self, names: np.ndarray) -> np.ndarray:
        """The codes of ``names`` (distinct names), new ones added."""
        out = np.empty(len(names), dtype=np.int32)
        for k, name in enumerate(names.tolist()):
            code = self._code.get(name)
            if code is None:
                code = self._code[name] = len(self._names)
                self._names.append(name)
            out[k] = code
        return out

    def _translation(self, layout: FlameLayout) -> np.ndarray:
        """Codes of the layout's distinct names (``layout.name_codes[1]``)."""
        if self._of_layout is None or self._of_layout[0] is not layout:
            uniques = layout.name_codes[1]
            known = pd.Index(self._names, dtype=object).get_indexer(uniques)
            new = known < 0
            known[new] = len(self._names) + np.arange(int(new.sum()))
            for name, code in zip(uniques[new].tolist(), known[new].tolist(), strict=True):
                self._code[name] = code
            self._names.extend(uniques[new].tolist())
            self._of_layout = (layout, known.astype(np.int32))
        return self._of_layout[1]

    def of_nodes(self, layout: FlameLayout, nodes: np.ndarray) -> np.ndarray:
        """The code of each node's name."""
        if "name_codes" in layout.__dict__:  # every name is known: translated
            return self._translation(layout)[layout.name_codes[0][nodes]]
        local, uniques = pd.factorize(pd.Series(layout.values.names_of(nodes), dtype=object))
        return self._coded(np.asarray(uniques, dtype=object))[local]

    def of_layout_codes(self, layout: FlameLayout, codes: np.ndarray) -> np.ndarray:
        """These codes of the layout's name codes (a search's matching names)."""
        return self._translation(layout)[np.asarray(codes, dtype=np.int64)]

    def names(self, codes: np.ndarray) -> np.ndarray:
        """The name of each code."""
        return np.array([self._names[c] for c in codes.tolist()] or [], dtype=object)


class FlamePage:
    """The FlameGraph's request handlers and replies (mixed into the widget).

    The first held set goes with the widget's state (``first_frames``: the reply the page's
    first ``frames`` request would get, on a canvas :data:`FIRST_WIDTH` wide), so a page
    draws without waiting for the kernel to finish the cell and answer; it is emptied when
    the view changes or a page asks (its view may then differ from Python's).

    A frames reply is a **held set**: the frames of a view (the zoomed node's subtree, or the
    whole graph) at least ``1 / (width * detail)`` of the view wide, with the sums the page
    gathers the narrower ones from. The page draws any zoom inside a held set whose frames
    reach a pixel of the new view by itself; with ``below`` (the threshold of a held set the
    page has) a reply carries only the frames narrower than it, which the page lacks."""

    first_frames: dict
    _answering: bool

    def _first_frames(self) -> dict:
        """The reply the page's first ``frames`` request would get (Python's view on a canvas
        :data:`FIRST_WIDTH` wide), for the ``first_frames`` trait: ``reply`` is the
        response, ``buffers`` its binary columns."""
        return with_state(*self._held_reply(self._zoom, FIRST_WIDTH, 1, None, found=True))

    def _page_asks(self) -> None:
        """A page's request may change the view (a zoom, a search): the first frames sent
        with the state would draw an older one in a page rendered later."""
        if self._answering and self.first_frames.get("reply"):
            self.first_frames = dropped(self.first_frames)

    # ------------------------------------------------------------------ page requests
    def _on_frames(
        self, width: Any = DEFAULT_WIDTH, detail: Any = 1, node: Any = None, below: Any = None
    ) -> Reply:
        """Python's view (``node`` absent), the whole graph (-1) or ``node``'s subtree."""
        if node is None:  # what Python shows, its search's matches too
            return self._held_reply(self._zoom, width, detail, below, found=True)
        zoom = None if int(node) < 0 else self._layout.node_id(int(node))
        reply = self._held_reply(zoom, width, detail, below)
        if below is not None:
            # a refinement, asked after a first draw: every name is worked out now, so that
            # a search (which needs them all) does not wait for it
            _ = self._layout.name_codes
        return reply

    def _on_zoom(
        self, node: Any = None, width: Any = DEFAULT_WIDTH, detail: Any = 1, below: Any = None
    ) -> Reply:
        self._apply_zoom(None if node is None or int(node) < 0 else int(node))
        reply = self._held_reply(self._zoom, width, detail, below)
        self._succeeded()
        return reply

    def _on_search(self, pattern: str = "") -> Reply:
        self._page_asks()
        self._apply_search(str(pattern))
        self._succeeded()
        header, buffers = pack({"code": self._found_codes()})
        return {"ok": True, FOUND_KEY: {"columns": header}, "meta": self._meta()}, buffers

    def _found_codes(self) -> np.ndarray:
        """The codes of the names the search matches (none without a search)."""
        found = self._found
        if found is None:
            return np.zeros(0, dtype=np.int32)
        return self._name_codes.of_layout_codes(self._layout, found.names)

    def _on_select(self, node: Any = None) -> Reply:
        self._apply_select(None if node is None else int(node))
        self._succeeded()
        return {"ok": True}, []

    def _on_set(self, width: Any = DEFAULT_WIDTH, **args: Any) -> Reply:
        self._apply_set(args)
        reply = self._held_reply(self._zoom, width, 1, None, found=True)
        self._succeeded()
        return reply

    def _failed_reply(self, message: str) -> Reply:
        """A failed request changed nothing: the page keeps the view it has."""
        return {"ok": False, "error": message, "meta": self._meta()}, []

    def _held_reply(
        self, zoom: int | None, width: Any, detail: Any, below: Any, found: bool = False
    ) -> Reply:
        """The held set of the view of ``zoom`` on a canvas ``width`` pixels wide, ``detail``
        times finer (frames at least ``1 / (width * detail)`` of the view wide); with
        ``below``, only its frames narrower than that (a fraction of the total). ``found``
        adds the search's matching names (``found``: their codes), for a page that learns
        Python's view from this reply."""
        self._page_asks()
        px = _whole("width", width, 1, MAX_WIDTH)
        fine = _whole("detail", detail, 1, MAX_DETAIL)
        if below is not None:
            try:
                below = float(below)
            except (TypeError, ValueError):
                raise ShapeError(f"below must be a fraction of the width, not {below!r}") from None
            if not below > 0:
                raise ShapeError(f"below must be a fraction of the width above 0, not {below}")
        layout = self._layout
        span = float(layout.widths[zoom]) if zoom is not None else 1.0
        tau = span / (px * fine) * _MARGIN
        if span <= 0:  # a frame of no width: the view is the frame alone (FlameLayout.frames)
            nodes = np.asarray([zoom] if below is None else [], dtype=np.int64)
            tau = 0.0
        else:
            nodes = layout.band(zoom, tau, np.inf if below is None else below)
        if zoom is not None and (below is None or span < below):
            # a set without the zoomed frame cannot hold its ancestors either: send them
            nodes = np.r_[np.asarray(layout.path(zoom)[:-1], dtype=np.int64), nodes]
        sums = layout.sums_of(nodes)  # of the frames sent only
        columns = self._frame_columns(nodes, sums)
        if found:
            columns["found"] = self._found_codes()
        header, buffers = pack(columns)
        meta = self._meta()
        meta["shown"] = len(nodes)  # frames sent
        meta["held"] = {
            "root": -1 if zoom is None else zoom,
            "tau": tau,
            "below": below,
            "forest": {
                "value": sums.forest_value,
                "x1": sums.forest_x1,
                "exclusive": sums.forest_exclusive,
            },
        }
        return {"ok": True, FRAMES_KEY: {"columns": header}, "meta": meta}, buffers

    def _frame_columns(self, nodes: np.ndarray, sums: FrameSums) -> dict[str, Any]:
        """The frames ``nodes`` as binary columns (see :data:`FRAME_COLUMNS`); ``sums`` are
        the layout's sums of these nodes (``FlameLayout.sums_of``)."""
        layout = self._layout
        values = layout.values
        code = self._name_codes.of_nodes(layout, nodes)
        ids = np.unique(code)
        columns: dict[str, Any] = {
            "node": nodes.astype(np.int32),
            "name": code.astype(np.int32),
            "depth": np.asarray(layout.graph.depth)[nodes].astype(np.int32),
            "x0": layout.x0[nodes].astype(float),
            "x1": layout.x1[nodes].astype(float),
            "value": np.asarray(values.inclusive, dtype=float)[nodes],
            "exclusive": np.asarray(values.exclusive, dtype=float)[nodes],
            "size": sums.size.astype(np.int32),
            "value_before": sums.value_before,
            "child_value": sums.child_value,
            "child_x1": sums.child_x1,
            "excl_start": sums.excl_start,
            "excl_subtree": sums.excl_subtree,
        }
        if values.quality is not None:
            columns["guess"] = np.isin(values.quality[nodes], ("poor", "")).astype(np.uint8)
        if self._keys is not None:  # coloured by module: what the colour hashes
            columns["key"] = self._keys[nodes]
        columns["names"] = self._name_codes.names(ids)
        columns["name_ids"] = ids.astype(np.int32)
        if layout.comparison is not None:
            compared = layout.comparison.columns(nodes)
            for c in ("value_a", "value_b", "delta", "relative", "p_value", "q_value"):
                columns[c] = np.asarray(compared[c], dtype=float)
            columns["significant"] = np.asarray(compared["significant"]).astype(np.uint8)
            columns["n_a"] = np.asarray(compared["n_a"]).astype(np.int32)
            columns["n_b"] = np.asarray(compared["n_b"]).astype(np.int32)
        return columns

    def _meta(self) -> dict[str, Any]:
        layout = self._layout
        values = layout.values
        total = layout.total
        z = self._zoom
        path = layout.path(z) if z is not None else []
        fmt = layout.value_format.spec()
        meta: dict[str, Any] = {
            "version": self.view_version,
            "layout": self._layout_id,
            "zoom": -1 if z is None else z,
            "zoom_value": float(values.inclusive[z]) if z is not None else total,
            "path": [
                {"node": int(p), "name": str(name)}
                for p, name in zip(path, values.names_of(np.asarray(path, dtype=np.int64)))
            ],
            "total": total,
            "total_text": layout.value_format.text(total),
            "format": fmt,
            "unit": values.unit,
            "metric": values.metric,
            "nodes": len(layout.graph),
            "search": self._search_meta(),
            "compare": layout.comparison is not None,
            "predicted": layout.values.quality is not None,
        }
        if layout.comparison is not None:
            meta["test"] = layout.comparison.test
            meta["tested"] = layout.comparison.tested
            meta["labels"] = list(self._source.labels)
        return meta

    def _search_meta(self) -> dict[str, Any]:
        found = self._found
        if found is None:
            return {"pattern": "", "count": 0, "text": ""}
        fmt = self._layout.value_format
        count = len(found.nodes)
        text = (
            f"{count:,} match{'es' if count != 1 else ''}: {fmt.text(found.value)}, "
            f"{_percent(found.share)} of the total"
        )
        if self._zoom is not None:
            text += f", {_percent(found.zoom_share)} of the zoomed frame"
        return {"pattern": found.pattern, "count": count, "text": text}

    # ------------------------------------------------------------------ helpers
    def _match_of(self, nodes: np.ndarray) -> np.ndarray:
        found = self._found
        if found is None:
            return np.zeros(len(nodes), dtype=bool)
        if self._found_mask is None or self._found_mask[0] is not found:
            mask = np.zeros(len(self._layout.graph), dtype=bool)
            mask[found.nodes] = True
            self._found_mask = (found, mask)
        return self._found_mask[1][nodes]


def _whole(what: str, value: Any, low: int, high: int) -> int:
    """``value`` as a whole number, clipped to ``[low, high]``."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ShapeError(f"{what} must be a whole number, not {value!r}") from None
    return min(max(number, low), high)
