"""``pw.link(explorer, flame)``: a CalltreeExplorer and a FlameGraph that follow each other.

A click in one selects the node and reveals it in the other: the explorer opens the path to
it, selects it and scrolls to it (``reveal``); the flame graph zooms out if the node lies
outside its zoom and outlines it (``FlameGraph.reveal``). The two may show different graphs
(the explorer after a filter or squash, a flame graph of a comparison's union): a node is
found in the other view by its **call path**, the names from its root down to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfweave.calltree.display import node_names
from perfweave.calltree.graph import Graph


def call_path(graph: Graph, names: np.ndarray, node: int) -> list[str]:
    """The names from a root down to ``node``."""
    out = [str(names[node])]
    parent = graph.parent
    while parent[node] >= 0:
        node = int(parent[node])
        out.append(str(names[node]))
    return out[::-1]


def find_path(graph: Graph, names: np.ndarray, path: list[str]) -> int | None:
    """The node reached by following ``path`` from the roots (the first match at each
    level), or None."""
    ptr, idx = graph.children_csr()
    level = graph.root_ids
    node = None
    for name in path:
        hits = level[names[level] == name] if len(level) else level
        if not len(hits):
            return None
        node = int(hits[0])
        level = idx[ptr[node] : ptr[node + 1]]
    return node


class Link:
    """The link between an explorer and a flame graph (:func:`link`); ``unlink()`` ends it."""

    def __init__(self, explorer: Any, flame: Any) -> None:
        self.explorer, self.flame = explorer, flame
        self._busy = False
        explorer.observe(self._from_explorer, names=["selected_nodes"])
        flame.observe(self._from_flame, names=["selected_node"])

    def unlink(self) -> None:
        self.explorer.unobserve(self._from_explorer, names=["selected_nodes"])
        self.flame.unobserve(self._from_flame, names=["selected_node"])

    def _explorer_names(self) -> tuple[Graph, np.ndarray]:
        shown = self.explorer.graphframe
        return shown.graph, node_names(shown.graph, shown.dataframe)

    def _from_explorer(self, change: dict) -> None:
        nodes = change["new"]
        if self._busy or len(nodes) != 1:
            return
        graph, names = self._explorer_names()
        layout = self.flame.layout
        target = find_path(layout.graph, layout.values.names, call_path(graph, names, nodes[0]))
        if target is not None:
            self._quietly(lambda: self.flame.reveal(target))

    def _from_flame(self, change: dict) -> None:
        node = change["new"]
        if self._busy or node < 0:
            return
        layout = self.flame.layout
        graph, names = self._explorer_names()
        target = find_path(graph, names, call_path(layout.graph, layout.values.names, node))
        if target is not None:
            self._quietly(lambda: self.explorer.reveal(target))

    def _quietly(self, fn: Any) -> None:
        self._busy = True
        try:
            fn()
        finally:
            self._busy = False


def link(explorer: Any, flame: Any) -> Link:
    """Link a CalltreeExplorer and a FlameGraph (either order): a click in one selects the
    node and reveals it in the other."""
    from perfweave.widgets.explorer import CalltreeExplorer
    from perfweave.widgets.flame import FlameGraph

    if isinstance(explorer, FlameGraph) and isinstance(flame, CalltreeExplorer):
        explorer, flame = flame, explorer
    if not (isinstance(explorer, CalltreeExplorer) and isinstance(flame, FlameGraph)):
        from perfweave.errors import ShapeError

        raise ShapeError(
            "link joins a CalltreeExplorer and a FlameGraph, not "
            f"{type(explorer).__name__} and {type(flame).__name__}"
        )
    return Link(explorer, flame)
