"""Conversion to and from llnl-hatchet GraphFrames (imported only when called)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from perfweave.calltree._build import build_graphframe
from perfweave.calltree._frames import frames_of
from perfweave.errors import require

if TYPE_CHECKING:
    from perfweave.calltree.graphframe import GraphFrame


def from_hatchet(hgf: Any) -> GraphFrame:
    """A perfweave GraphFrame with the same graph, rows and metric lists as ``hgf``."""
    require("hatchet", "bench", "GraphFrame.from_hatchet")
    nodes = list(hgf.graph.traverse())
    index = {id(n): i for i, n in enumerate(nodes)}
    frames = [dict(n.frame.attrs) for n in nodes]
    src = [index[id(n)] for n in nodes for _ in n.children]
    dst = [index[id(c)] for n in nodes for c in n.children]
    df = hgf.dataframe.reset_index()
    df["node"] = np.fromiter((index[id(n)] for n in df["node"]), dtype=np.int64, count=len(df))
    return build_graphframe(
        frames,
        df,
        edges=(src, dst),
        exc_metrics=list(hgf.exc_metrics),
        inc_metrics=list(hgf.inc_metrics),
        default_metric=hgf.default_metric,
        metadata=dict(getattr(hgf, "metadata", {}) or {}),
        path="<hatchet GraphFrame>",
    )


def to_hatchet(gf: GraphFrame) -> Any:
    """An llnl-hatchet GraphFrame with the same graph, rows and metric lists as ``gf``."""
    ht = require("hatchet", "bench", "GraphFrame.to_hatchet")
    from hatchet.frame import Frame as HFrame
    from hatchet.graph import Graph as HGraph
    from hatchet.node import Node as HNode

    g = gf.graph
    nodes = [HNode(HFrame(f.attrs), hnid=i) for i, f in enumerate(frames_of(g.frames))]
    for parent in range(len(g)):
        for child in g.children_of(parent).tolist():
            nodes[parent].add_child(nodes[child])
            nodes[child].add_parent(nodes[parent])
    graph = HGraph([nodes[r] for r in g.root_ids.tolist()])
    graph.enumerate_depth()
    df = gf.dataframe.reset_index()
    df["node"] = [nodes[i] for i in df["node"].tolist()]
    df = df.set_index(list(gf.dataframe.index.names))
    return ht.GraphFrame(
        graph, df, list(gf.exc_metrics), list(gf.inc_metrics), gf.default_metric, dict(gf.metadata)
    )
