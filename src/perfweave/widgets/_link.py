"""``pw.link(a, b)``: two views that follow each other.

- A CalltreeExplorer and a FlameGraph: a click in one selects the node and reveals it in
  the other: the explorer opens the path to it, selects it and scrolls to it (``reveal``);
  the flame graph zooms out if the node lies outside its zoom and outlines it
  (``FlameGraph.reveal``). The two may show different graphs (the explorer after a filter
  or squash, a flame graph of a comparison's union): a node is found in the other view by
  its **call path**, the names from its root down to it.
- A CalltreeExplorer of call sites (``CountsProfile.call_sites()``) and a
  CountMatrixHeatmap of the same profile: selecting nodes in the explorer shows the calls
  made from the call sites at or below them in the heatmap (``show_calls``: their call
  groups, their share of the bytes); picking a call group or a block in the heatmap selects
  and reveals the call sites of its calls in the explorer (and ends ``show_calls``), except
  that picking another group of the calls shown only moves through them. Sites are found by the frame's
  ``site`` column and ``metadata["site_calls"]`` (:mod:`perfweave.counts.sites`), so the
  explorer may show the tree filtered or squashed.

One mechanism: each link observes the two views' Python traits and acts on the other view
through its public methods, ignoring the changes it causes itself.
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


class CallSiteLink(Link):
    """The link between an explorer of call sites and a heatmap of their profile
    (:func:`link`); ``unlink()`` ends it."""

    def __init__(self, explorer: Any, heatmap: Any) -> None:
        from perfweave.counts.sites import check_same_profile

        check_same_profile(explorer.graphframe, heatmap.profile)
        self.explorer, self.heatmap = explorer, heatmap
        self._busy = False
        self._shown = (heatmap.lead_rank, heatmap.group_index)
        explorer.observe(self._from_explorer, names=["selected_nodes"])
        # the view's version moves once a change is complete (a group's trait moves first)
        heatmap.observe(self._from_heatmap, names=["view_version", "selection_state"])

    def unlink(self) -> None:
        self.explorer.unobserve(self._from_explorer, names=["selected_nodes"])
        self.heatmap.unobserve(self._from_heatmap, names=["view_version", "selection_state"])

    def _from_explorer(self, change: dict) -> None:
        from perfweave.counts.sites import calls_of_nodes

        if self._busy:
            return
        if not change["new"]:
            self._quietly(self.heatmap.clear_focus)
            return
        chosen = calls_of_nodes(self.explorer.graphframe, change["new"], self.heatmap.lead_rank)
        if chosen is not None:
            calls, lead, label = chosen
            self._quietly(lambda: self.heatmap.show_calls(calls, lead_rank=lead, label=label))

    def _from_heatmap(self, change: dict) -> None:
        from perfweave.counts.sites import nodes_of_sites, sites_of_calls

        shown = (self.heatmap.lead_rank, self.heatmap.group_index)
        moved, self._shown = shown != self._shown, shown
        group = self.heatmap.call_group
        picked = moved if change["name"] == "view_version" else bool(change["new"])
        if self._busy or group is None or not picked:
            return
        focus = self.heatmap.focus
        if focus is not None:
            if (
                change["name"] == "view_version"
                and focus["lead_rank"] == shown[0]
                and shown[1] in set(focus["groups"]["group"].tolist())
            ):
                return  # browsing the groups of the calls shown: the tree keeps its selection
            self._quietly(self.heatmap.clear_focus)
        tree = self.explorer.graphframe
        sites = sites_of_calls(
            tree, group.calls, lead_rank=self.heatmap.lead_rank, collective=group.collective
        )
        nodes = nodes_of_sites(tree, sites)
        if len(nodes):
            self._quietly(lambda: self.explorer.reveal(nodes.tolist()))


def link(a: Any, b: Any) -> Link:
    """Link two views (either order): a CalltreeExplorer and a FlameGraph (a click in one
    selects the node and reveals it in the other), or a CalltreeExplorer of call sites and
    the CountMatrixHeatmap of their profile (a call site selects its calls in the heatmap; a
    call group picked in the heatmap selects and reveals its call sites)."""
    from perfweave.widgets.explorer import CalltreeExplorer
    from perfweave.widgets.flame import FlameGraph
    from perfweave.widgets.heatmap import CountMatrixHeatmap

    if isinstance(b, CalltreeExplorer) and not isinstance(a, CalltreeExplorer):
        a, b = b, a
    if isinstance(a, CalltreeExplorer) and isinstance(b, FlameGraph):
        return Link(a, b)
    if isinstance(a, CalltreeExplorer) and isinstance(b, CountMatrixHeatmap):
        return CallSiteLink(a, b)
    from perfweave.errors import ShapeError

    raise ShapeError(
        "link joins a CalltreeExplorer and a FlameGraph or a CountMatrixHeatmap, not "
        f"{type(a).__name__} and {type(b).__name__}"
    )
