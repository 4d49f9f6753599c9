"""The FlameGraph's page side: the requests its page sends and the frames each answers with.

:class:`FlamePage` is the part of :class:`~perfweave.widgets.flame.FlameGraph` that talks to
the browser: one handler per declared request (``_on_<action>``) and the frames at least one
pixel wide of the view (narrower runs of siblings gathered), packed as binary columns with
what the page writes beside them (:meth:`FlamePage._meta`). The Python methods the handlers
call are the widget's own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from perfweave.errors import ShapeError
from perfweave.widgets._base import Reply
from perfweave.widgets._protocol import Action, Protocol
from perfweave.widgets._transport import pack

#: the reply key of the frames' binary columns, the columns and those a comparison adds
FRAMES_KEY = "frames"
FRAME_COLUMNS = (
    "node",
    "name",
    "key",
    "depth",
    "x0",
    "x1",
    "value",
    "exclusive",
    "match",
    "hidden",
    "guess",
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
ORIENTATIONS = ("icicle", "flame")
COLOR_BY = ("name", "module", "exclusive")
#: widest canvas a page may ask frames for (pixels), and the default
MAX_WIDTH = 16384
DEFAULT_WIDTH = 1000


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
            ("width",),
            FRAMES_KEY,
            _FRAMES,
            first_draw={"width": MAX_WIDTH},
        ),
        "zoom": Action("_on_zoom", "Zooming in", ("node", "width"), FRAMES_KEY, _FRAMES),
        "search": Action(
            "_on_search", "Searching names", ("pattern", "width"), FRAMES_KEY, _FRAMES
        ),
        "select": Action("_on_select", "Selecting", ("node",)),
        "set": Action(
            "_on_set",
            "Changing this control",
            ("width", "metric", "orientation", "color_by"),
            FRAMES_KEY,
            _FRAMES,
        ),
    },
    read_only=("view_version", "zoom_node", "search_pattern"),
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


class FlamePage:
    """The FlameGraph's request handlers and replies (mixed into the widget)."""

    # ------------------------------------------------------------------ page requests
    def _on_frames(self, width: Any = DEFAULT_WIDTH) -> Reply:
        return self._frames_reply(width)

    def _on_zoom(self, node: Any = None, width: Any = DEFAULT_WIDTH) -> Reply:
        self._apply_zoom(None if node is None else int(node))
        return self._answered(width)

    def _on_search(self, pattern: str = "", width: Any = DEFAULT_WIDTH) -> Reply:
        self._apply_search(str(pattern))
        return self._answered(width)

    def _on_select(self, node: Any = None) -> Reply:
        self._apply_select(None if node is None else int(node))
        self._succeeded()
        return {"ok": True}, []

    def _on_set(self, width: Any = DEFAULT_WIDTH, **args: Any) -> Reply:
        self._apply_set(args)
        return self._answered(width)

    def _answered(self, width: Any) -> Reply:
        """The reply to a page's action that worked (the banner clears)."""
        reply = self._frames_reply(width)
        self._succeeded()
        return reply

    def _failed_reply(self, message: str) -> Reply:
        payload, buffers = self._frames_reply(DEFAULT_WIDTH)
        return {**payload, "ok": False, "error": message}, buffers

    def _frames_reply(self, width: Any) -> Reply:
        """The frames at least one pixel wide on a canvas ``width`` pixels wide."""
        try:
            px = int(width)
        except (TypeError, ValueError):
            raise ShapeError(f"width must be a number of pixels, not {width!r}") from None
        px = min(max(px, 1), MAX_WIDTH)
        layout = self._layout
        view, runs = self._view(px)
        nodes = view["node"].to_numpy()
        k = len(runs)
        guess = np.zeros(len(nodes), dtype=np.uint8)
        if layout.values.quality is not None:
            guess = np.isin(layout.values.quality[nodes], ("poor", "")).astype(np.uint8)
        columns: dict[str, Any] = {
            "node": np.r_[nodes, np.full(k, -1)].astype(np.int64),
            "name": np.r_[
                view["name"].to_numpy(dtype=object),
                np.array([f"… {h:,} hidden" for h in runs["hidden"]], dtype=object),
            ],
            "depth": np.r_[view["depth"], runs["depth"]].astype(np.int32),
            "x0": np.r_[view["x0"], runs["x0"]].astype(float),
            "x1": np.r_[view["x1"], runs["x1"]].astype(float),
            "value": np.r_[view["value"], runs["value"]].astype(float),
            "exclusive": np.r_[view["exclusive"], runs["exclusive"]].astype(float),
            "match": np.r_[self._match_of(nodes), np.zeros(k)].astype(np.uint8),
            "hidden": np.r_[np.zeros(len(nodes)), runs["hidden"]].astype(np.int32),
            "guess": np.r_[guess, np.zeros(k)].astype(np.uint8),
        }
        if self._keys is not layout.values.names:  # coloured by module: what is hashed
            columns["key"] = np.r_[self._keys[nodes], np.full(k, "", dtype=object)]
        if layout.comparison is not None:
            nan = np.full(k, np.nan)
            for c in ("value_a", "value_b", "delta", "relative", "p_value", "q_value"):
                columns[c] = np.r_[view[c].to_numpy(dtype=float), nan]
            columns["significant"] = np.r_[view["significant"], np.zeros(k)].astype(np.uint8)
            columns["n_a"] = np.r_[view["n_a"], np.zeros(k)].astype(np.int32)
            columns["n_b"] = np.r_[view["n_b"], np.zeros(k)].astype(np.int32)
        header, buffers = pack(columns)
        return {"ok": True, FRAMES_KEY: {"columns": header}, "meta": self._meta(len(nodes))}, (
            buffers
        )

    def _meta(self, shown: int) -> dict[str, Any]:
        layout = self._layout
        values = layout.values
        total = layout.total
        z = self._zoom
        path = layout.path(z) if z is not None else []
        fmt = layout.value_format.spec()
        meta: dict[str, Any] = {
            "version": self.view_version,
            "zoom": -1 if z is None else z,
            "zoom_value": float(values.inclusive[z]) if z is not None else total,
            "path": [{"node": int(p), "name": str(values.names[p])} for p in path],
            "total": total,
            "total_text": layout.value_format.text(total),
            "format": fmt,
            "unit": values.unit,
            "metric": values.metric,
            "nodes": len(layout.graph),
            "shown": shown,
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

    def _view(self, px: int) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The frames at least a pixel wide and the narrow runs gathered, of the zoom on a
        canvas ``px`` wide (kept for the last few views: a search or a zoom back out
        redraws a view already laid out)."""
        key = (self._zoom, px)
        if key not in self._views:
            layout = self._layout
            self._views[key] = layout.drawn(zoom=self._zoom, min_width=1.0 / px)
            while len(self._views) > 8:
                self._views.pop(next(iter(self._views)))
        return self._views[key]
