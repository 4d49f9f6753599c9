"""FlameGraph: a calltree as an icicle or flame graph, over the core's FlameLayout.

The layout (which rectangle goes where, zoom, search, the comparison and its test) is
:mod:`perfweave.calltree.flame`'s; this widget holds what is being looked at (the zoomed
node, the search, the selected node, the metric, orientation and colouring), answers the
page's requests with the frames at least one pixel wide as binary columns, and keeps the
widget contract (``WidgetBase``: a failed action changes nothing and shows in the banner).
The page's protocol is declared once, in ``_protocol`` below (``js/src/flame/protocol.js`` is
generated from it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import traitlets

from perfweave.calltree.flame import FlameLayout, FlameSearch, MeasuredFlame
from perfweave.calltree.study import as_core
from perfweave.errors import ShapeError
from perfweave.scaling.flame import PredictedFlame
from perfweave.widgets._base import Reply, WidgetBase, static_file
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


class FlameGraph(WidgetBase):
    """A flame graph of a GraphFrame or Ensemble (or of two, ``compare=``).

    ``metric`` (default: the data's inclusive default metric), ``statistic`` over an
    ensemble's profiles (``"mean"``), ``orientation`` ``"icicle"`` (root on top) or
    ``"flame"``, ``color_by`` ``"name"``, ``"module"`` or ``"exclusive"`` (a comparison is
    coloured by its difference). Python mirrors every click: :meth:`zoom`, :meth:`search`,
    :meth:`select`; :attr:`frames` is the drawn view as a DataFrame."""

    _esm = static_file("flame.js")
    _css = static_file("flame.css")

    _protocol = Protocol(
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

    #: bumped on every change made from Python: the page asks for the frames again
    view_version = traitlets.Int(0).tag(sync=True)
    orientation = traitlets.Unicode("icicle").tag(sync=True)
    color_by = traitlets.Unicode("name").tag(sync=True)
    metric = traitlets.Unicode("").tag(sync=True)
    #: the metrics the page's control offers
    metrics = traitlets.List(traitlets.Unicode()).tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    #: the node clicked last (-1: none); observe it to follow clicks (pw.link does)
    selected_node = traitlets.Int(-1).tag(sync=True)
    height = traitlets.Int(420).tag(sync=True)
    #: the zoomed node (-1: the whole graph) and the search's pattern, for observers
    zoom_node = traitlets.Int(-1).tag(sync=True)
    search_pattern = traitlets.Unicode("").tag(sync=True)

    def __init__(
        self,
        data: Any,
        metric: str | None = None,
        *,
        statistic: str = "mean",
        compare: Any = None,
        groups: Any = None,
        alpha: float = 0.05,
        labels: tuple[str, str] | None = None,
        orientation: str = "icicle",
        color_by: str = "name",
        height: int = 420,
        **kwargs: Any,
    ) -> None:
        if isinstance(data, (MeasuredFlame, PredictedFlame)):
            source = data
        else:
            source = MeasuredFlame(
                as_core(data),
                statistic=statistic,
                compare=as_core(compare) if compare is not None else None,
                groups=groups,
                alpha=alpha,
                labels=labels,
            )
        self._source = source
        layout = source.layout(metric)
        _check_choice("orientation", orientation, ORIENTATIONS)
        _check_choice("color_by", color_by, COLOR_BY)
        self._check_color(layout, color_by)
        super().__init__(**kwargs)
        self._layout: FlameLayout = layout
        self._zoom: int | None = None
        self._found: FlameSearch | None = None
        #: the last search's nodes as a mask over the graph, and the views laid out lately
        self._found_mask: tuple[FlameSearch, np.ndarray] | None = None
        self._views: dict[tuple[int | None, int], tuple[pd.DataFrame, pd.DataFrame]] = {}
        self._keys = self._color_keys(layout, color_by)
        _ = layout.name_codes  # factorized now: the first search waits for no set-up
        self.metrics = source.metrics
        self.set_trait("height", height)
        self.set_trait("orientation", orientation)
        self.set_trait("color_by", color_by)
        self._set_layout_traits()

    @classmethod
    def at_scale(
        cls,
        ensemble: Any,
        param: Any,
        metric: str | None = None,
        target: float | None = None,
        *,
        agg: str = "mean",
        **kwargs: Any,
    ) -> FlameGraph:
        """The flame graph of ``ensemble`` at ``param = target``, a scale perhaps not yet run:
        each node's exclusive value predicted by its model over the runs, never below 0,
        summed up again (:mod:`perfweave.scaling.flame`). Frames of poorly fitted nodes are
        hatched; the title says the scale and that it is a prediction."""
        if target is None:
            raise ShapeError(f"at_scale needs target=, the {param} to predict at")
        return cls(PredictedFlame(as_core(ensemble), param, target, agg), metric, **kwargs)

    # ------------------------------------------------------------------ public state
    @property
    def layout(self) -> FlameLayout:
        """The core layout drawn now."""
        return self._layout

    @property
    def frames(self) -> pd.DataFrame:
        """The drawn rectangles of the current view (zoom applied): the core's
        ``frames()`` columns plus ``match`` (the current search)."""
        out = self._layout.frames(zoom=self._zoom)
        out["match"] = self._match_of(out["node"].to_numpy())
        return out

    @property
    def zoomed_node(self) -> int | None:
        """The node filling the width (None: the whole graph)."""
        return self._zoom

    @property
    def search_result(self) -> FlameSearch | None:
        """What the current search found (None without one)."""
        return self._found

    def zoom(self, node: Any = None) -> FlameGraph:
        """Fill the width with ``node``'s subtree (an id, a Node or a name); None zooms out."""
        self._guard(lambda: self._apply_zoom(node))
        self._changed()
        return self

    def search(self, pattern: str | None) -> FlameSearch | None:
        """Highlight the nodes whose name matches the regular expression (None or "" ends
        the search); returns what it found: the nodes and their share of the total."""
        found = self._guard(lambda: self._apply_search(pattern))
        self._changed()
        return found

    def select(self, node: Any) -> FlameGraph:
        """Select a node (as a click does; a linked explorer reveals it)."""
        self._guard(lambda: self._apply_select(node))
        return self

    def reveal(self, node: Any) -> FlameGraph:
        """Select ``node`` and make it visible: zoom out if it lies outside the zoom (what a
        linked explorer's click does)."""

        def run() -> None:
            nid = self._layout.node_id(node)
            if self._zoom is not None and self._zoom not in self._layout.path(nid):
                self._apply_zoom(None)
            self._apply_select(nid)

        self._guard(run)
        self._changed()
        return self

    def set_metric(self, metric: str) -> FlameGraph:
        """Draw another metric (the zoom and the search are kept where they still apply)."""
        self._guard(lambda: self._apply_set({"metric": metric}))
        self._changed()
        return self

    def set_source(self, source: MeasuredFlame | PredictedFlame) -> FlameGraph:
        """Draw another source of the same kind of graph (a prediction at another target or
        over other runs: the ScalingView's flame), by the metric shown; the zoom and search
        are dropped, the orientation and colouring kept."""

        def run() -> None:
            if not isinstance(source, (MeasuredFlame, PredictedFlame)):
                raise ShapeError(
                    f"a flame source is a MeasuredFlame or PredictedFlame, not {source!r}"
                )
            layout = source.layout(self.metric)
            self._check_color(layout, self.color_by)
            self._source, self._layout = source, layout
            self._views.clear()
            self._zoom, self._found = None, None
            self._keys = self._color_keys(layout, self.color_by)
            self.metrics = source.metrics
            self.zoom_node, self.search_pattern = -1, ""
            self._set_layout_traits()

        self._guard(run)
        self._changed()
        return self

    # ------------------------------------------------------------------ actions
    def _apply_zoom(self, node: Any) -> None:
        zoom = None if node is None else self._layout.node_id(node)
        found = self._found
        if found is not None:
            found = self._layout.search(found.pattern, zoom)
        self._zoom, self._found = zoom, found
        self.zoom_node = -1 if zoom is None else zoom

    def _apply_search(self, pattern: str | None) -> FlameSearch | None:
        found = self._layout.search(pattern, self._zoom) if pattern else None
        self._found = found
        self.search_pattern = found.pattern if found is not None else ""
        return found

    def _apply_select(self, node: Any) -> None:
        self.selected_node = -1 if node is None else self._layout.node_id(node)

    def _apply_set(self, args: dict[str, Any]) -> None:
        unknown = set(args) - {"metric", "orientation", "color_by"}
        if unknown:
            raise ShapeError(f"unknown setting(s) {sorted(unknown)}")
        orientation = args.get("orientation", self.orientation)
        color_by = args.get("color_by", self.color_by)
        _check_choice("orientation", orientation, ORIENTATIONS)
        _check_choice("color_by", color_by, COLOR_BY)
        layout = self._layout
        if "metric" in args and args["metric"] != self.metric:
            layout = self._source.layout(args["metric"])
        self._check_color(layout, color_by)
        found = self._found
        if found is not None and layout is not self._layout:
            found = layout.search(found.pattern, self._zoom)
        # checked: now assign
        self._keys = self._color_keys(layout, color_by)
        if layout is not self._layout:
            self._views.clear()
        self._layout, self._found = layout, found
        self.orientation, self.color_by = orientation, color_by
        self._set_layout_traits()

    def _changed(self) -> None:
        self.view_version += 1

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
            self._views[key] = (
                layout.frames(zoom=self._zoom, min_width=1.0 / px),
                layout.narrow(zoom=self._zoom, min_width=1.0 / px),
            )
            while len(self._views) > 8:
                self._views.pop(next(iter(self._views)))
        return self._views[key]

    def _set_layout_traits(self) -> None:
        values = self._layout.values
        self.metric = values.metric
        if self._layout.comparison is not None:
            a, b = self._source.labels
            how = values.how.replace("a: ", f"{a}: ", 1).replace("; b: ", f"; {b}: ", 1)
            self.title = f"{values.metric}: {a} against {b} — {how}"
        else:
            self.title = f"{values.metric} — {values.how}" if values.how else values.metric

    @staticmethod
    def _check_color(layout: FlameLayout, color_by: str) -> None:
        if color_by == "module" and layout.values.module is None:
            raise ShapeError(
                "color_by='module': the profile names no module for its nodes (no module "
                "column or frame attribute); use 'name'"
            )

    @staticmethod
    def _color_keys(layout: FlameLayout, color_by: str) -> np.ndarray:
        """What each node's colour is hashed from (its name or module)."""
        module = layout.values.module
        if color_by == "module" and module is not None:
            named = np.array([m is not None for m in module], dtype=bool)
            return np.where(named, module, layout.values.names).astype(object)
        return layout.values.names


def _check_choice(what: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ShapeError(f"{what}={value!r}: expected one of {', '.join(map(repr, choices))}")
