"""Converting to and from llnl-thicket's Thicket (imported only here, only when called).

Thicket indexes its tables by Hatchet ``Node`` objects; perfweave by integer node ids.
The conversion maps the distinct nodes once and the table rows through index codes, so
it costs one Python step per node, not per row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.graph import Graph
from perfweave.ensemble import _table
from perfweave.ensemble.ensemble import Ensemble, _is_missing, new_statsframe
from perfweave.errors import ShapeError, require

INT = np.int64


def _hatchet_graph(graph: Graph):
    """A Hatchet Graph equal to ``graph``, and its Node objects by perfweave id."""
    require("hatchet", "bench", "Ensemble.to_thicket")
    from hatchet.frame import Frame as HFrame
    from hatchet.graph import Graph as HGraph
    from hatchet.node import Node as HNode

    records = graph.frames.to_dict("records")
    depth = graph.depth
    nodes = [
        HNode(HFrame({k: v for k, v in rec.items() if not _is_missing(v)}), hnid=i, depth=int(d))
        for i, (rec, d) in enumerate(zip(records, depth))
    ]
    parent_ptr, parent_idx = graph.parents_csr()
    child = np.repeat(np.arange(len(graph), dtype=INT), np.diff(parent_ptr))
    for p, c in zip(parent_idx.tolist(), child.tolist()):
        nodes[p].add_child(nodes[c])
        nodes[c].add_parent(nodes[p])
    hgraph = HGraph([nodes[r] for r in graph.root_ids.tolist()], graph.node_ordering)
    return hgraph, np.array(nodes + [None], dtype=object)[:-1]


def to_thicket(ens: Ensemble):
    """An llnl-thicket ``Thicket`` with the same graph, tables and profiles."""
    thicket = require("thicket", "bench", "Ensemble.to_thicket")
    hgraph, hnodes = _hatchet_graph(ens.graph)
    df = _with_node_objects(ens.dataframe, hnodes)
    stats = _with_node_objects(ens.statsframe, hnodes)
    from hatchet import GraphFrame as HGraphFrame

    th = thicket.Thicket(
        graph=hgraph,
        dataframe=df,
        exc_metrics=list(ens.exc_metrics),
        inc_metrics=list(ens.inc_metrics),
        default_metric=ens.default_metric,
        metadata=ens.metadata.copy(),
        profile=ens.profiles,
        profile_idx_name=ens.profile_level,
        profile_mapping=dict(ens.profile_mapping),
        statsframe=HGraphFrame(hgraph, stats),
    )
    return th


def _with_node_objects(df: pd.DataFrame, hnodes: np.ndarray) -> pd.DataFrame:
    out = df.copy()
    node = np.asarray(df.index.get_level_values("node"), dtype=INT)
    if df.index.nlevels == 1:
        out.index = pd.Index(hnodes[node], name="node", dtype=object)
        return out
    arrays = [hnodes[node]] + [df.index.get_level_values(i) for i in range(1, df.index.nlevels)]
    out.index = pd.MultiIndex.from_arrays(arrays, names=df.index.names)
    return out


def from_thicket(th: Any) -> Ensemble:
    """An Ensemble from an llnl-thicket ``Thicket`` (its tables are copied, not shared)."""
    nodes = list(th.graph.traverse())
    pos_of = {id(n): i for i, n in enumerate(nodes)}
    frames = pd.DataFrame([dict(n.frame.attrs) for n in nodes])
    src = [pos_of[id(n)] for n in nodes for _ in n.children]
    dst = [pos_of[id(c)] for n in nodes for c in n.children]
    # a node-ordered graph keeps Hatchet's node order among siblings (its node ids)
    key = None
    if getattr(th.graph, "node_ordering", False):
        key = np.array([n._hatchet_nid for n in nodes], dtype=INT)
    graph, pos = Graph.build(frames, edges=(src, dst), order_key=key)
    df = th.dataframe
    if df.index.nlevels < 2 or df.index.names[0] != "node":
        raise ShapeError(
            f"a Thicket's dataframe is indexed by (node, profile), not {df.index.names}"
        )
    level = df.index.names[1]
    extra = list(df.index.names[2:])
    node_ids = _node_ids(df.index, pos_of, pos)
    profiles = th.metadata.index if len(th.metadata) else df.index.unique(level)
    sorted_profiles = pd.Index(profiles)  # the Thicket's order of its profiles
    prof_pos = sorted_profiles.get_indexer(df.index.get_level_values(level))
    if extra:
        table = df.reset_index(level=extra).reset_index(drop=True)
    else:
        table = df.reset_index(drop=True)
    out = _table.stack(
        [table],
        [np.arange(len(table), dtype=INT)],
        [node_ids],
        [prof_pos],
        list(sorted_profiles),
        len(graph),
        ["thicket"],
        level=level,
        extra_levels=extra,
        node_names=graph.frames["name"].to_numpy(),
    )
    meta = th.metadata.copy() if len(th.metadata) else pd.DataFrame(index=sorted_profiles)
    meta = meta.reindex(sorted_profiles)
    meta.index.name = level
    stats = new_statsframe(graph, out)
    sf = getattr(th, "statsframe", None)
    if sf is not None:
        sdf = sf.dataframe
        ids = _node_ids(sdf.index, pos_of, pos)
        extra_cols = [c for c in sdf.columns if c != "name" and c != ("name", "")]
        for c in extra_cols:
            col = np.full(len(graph), np.nan, dtype=object)
            col[ids] = sdf[c].to_numpy()
            stats[c] = pd.Series(col, index=stats.index).infer_objects()
    mapping = {k: v for k, v in (th.profile_mapping or {}).items()}
    return Ensemble(
        graph,
        out,
        meta,
        list(th.exc_metrics),
        list(th.inc_metrics),
        th.default_metric,
        stats,
        mapping,
    )


def _node_ids(index: pd.Index, pos_of: dict, pos: np.ndarray) -> np.ndarray:
    """perfweave node id of each row, mapping each distinct Hatchet node once."""
    if isinstance(index, pd.MultiIndex):
        level = index.levels[0]
        codes = np.asarray(index.codes[0], dtype=INT)
    else:
        level, codes = index.unique(), None
    ids = np.array([pos[pos_of[id(n)]] for n in level], dtype=INT)
    if codes is None:
        return ids[level.get_indexer(index)]
    return ids[codes]
