"""FlameGraph: a calltree as an icicle or flame graph, over the core's FlameLayout.

The layout (which rectangle goes where, zoom, search, the comparison and its test) is
:mod:`perfweave.calltree.flame`'s; this widget holds what is being looked at (the zoomed
node, the search, the selected node, the metric, orientation and colouring), answers the
page's requests with held sets of frames (binary columns: a view's frames down to a width,
with the sums the page gathers narrower ones from, so it draws zooms by itself), and keeps
the widget contract (``WidgetBase``: a failed action changes nothing and shows in the banner).
The page's side (its protocol, declared once, and the replies to its requests) is
``_flame_page.py``; ``js/src/flame/protocol.js`` is generated from the declaration.
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
from perfweave.widgets._base import WidgetBase, static_file
from perfweave.widgets._flame_page import (
    COLOR_BY,
    COMPARE_COLUMNS,
    FRAME_COLUMNS,
    FRAMES_KEY,
    ORIENTATIONS,
    PROTOCOL,
    FlamePage,
    NameCodes,
)
from perfweave.widgets._transport import dropped

__all__ = [
    "COLOR_BY",
    "COMPARE_COLUMNS",
    "FRAME_COLUMNS",
    "FRAMES_KEY",
    "ORIENTATIONS",
    "FlameGraph",
]


class FlameGraph(FlamePage, WidgetBase):
    """A flame graph of a GraphFrame or Ensemble (or of two, ``compare=``).

    ``metric`` (default: the data's inclusive default metric), ``statistic`` over an
    ensemble's profiles (``"mean"``), ``orientation`` ``"icicle"`` (root on top) or
    ``"flame"``, ``color_by`` ``"name"``, ``"module"`` or ``"exclusive"`` (a comparison is
    coloured by its difference). Python mirrors every click: :meth:`zoom`, :meth:`search`,
    :meth:`select`; :attr:`frames` is the drawn view as a DataFrame."""

    _esm = static_file("flame.js")
    _css = static_file("flame.css")

    _protocol = PROTOCOL

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
    #: the reply the page's first ``frames`` request would get, sent with the widget's state
    #: so the page draws without a round trip (``reply`` and its binary ``buffers``); emptied
    #: when the view changes or a page asks (see :meth:`FlamePage._first_frames`)
    first_frames = traitlets.Dict().tag(sync=True)

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
        #: the last search's nodes as a mask over the graph
        self._found_mask: tuple[FlameSearch, np.ndarray] | None = None
        #: which layout and colour keys the page's held frames belong to (bumped on a change)
        self._layout_id = 0
        self._keys = self._color_keys(layout, color_by)
        #: the codes the page knows names by (the first frames are coded from their own
        #: names: nothing here works out every node's name, a refinement does)
        self._name_codes = NameCodes()
        with self.hold_sync():  # the page gets the view and its first frames in one message
            self.metrics = source.metrics
            self.set_trait("height", height)
            self.set_trait("orientation", orientation)
            self.set_trait("color_by", color_by)
            self._set_layout_traits()
            self.first_frames = self._first_frames()

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
            self._layout_id += 1
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
        if layout is not self._layout or color_by != self.color_by:
            self._layout_id += 1
        self._keys = self._color_keys(layout, color_by)
        self._layout, self._found = layout, found
        self.orientation, self.color_by = orientation, color_by
        self._set_layout_traits()

    def _changed(self) -> None:
        if self.first_frames.get("reply"):  # an earlier view's: a page asks for the new one
            self.first_frames = dropped(self.first_frames)
        self.view_version += 1

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
    def _color_keys(layout: FlameLayout, color_by: str) -> np.ndarray | None:
        """What each node's colour is hashed from where it is not its name (its module,
        else its name); None: the name."""
        module = layout.values.module
        if color_by == "module" and module is not None:
            named = np.array([m is not None for m in module], dtype=bool)
            return np.where(named, module, layout.values.names).astype(object)
        return None


def _check_choice(what: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ShapeError(f"{what}={value!r}: expected one of {', '.join(map(repr, choices))}")
