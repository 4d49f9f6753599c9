"""Hatchet's ``groupby_aggregate``: one node per value of a column, edges between groups.

Each group of nodes with the same value of ``by`` becomes one node (frame ``name`` = the
value, ``type`` = the column); a group is the parent of another where a node of the first
is a parent of a node of the second (no self edges). Unlike Hatchet, rows are aggregated
per rank/thread, so a multi-rank frame keeps its rank/thread levels (Hatchet's mixes the
ranks and fails on them). Where the groups call each other in a circle (recursion across
names), the edges closing a circle are left out: a graph here has no cycles.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from perfweave.calltree._forest import level_order
from perfweave.calltree._layout import INT, layout
from perfweave.calltree._sums import edges
from perfweave.calltree.analysis import _node_attribute
from perfweave.calltree.graph import Graph
from perfweave.calltree.readers._cycles import back_edges
from perfweave.errors import GraphError, ShapeError

if TYPE_CHECKING:
    from perfweave.calltree.graphframe import GraphFrame


def groupby_aggregate(gf: GraphFrame, by: str | Sequence[str], agg: Any = "sum") -> GraphFrame:
    """See the module docstring; ``agg`` is what pandas' ``agg`` takes for the metric
    columns (a name such as "sum"/"mean"/"max", or a dict of column -> name)."""
    columns = [by] if isinstance(by, str) else list(by)
    if not columns:
        raise ShapeError("groupby_aggregate: no column to group by")
    df = gf.dataframe
    g = gf.graph
    n = len(g)
    keys = [_node_attribute(gf, c) for c in columns]  # per graph node
    lay = layout(df, n)
    has_rows = np.zeros(n, bool)
    has_rows[lay.node] = True
    key_table = pd.DataFrame({c: k for c, k in zip(columns, keys)})
    if key_table[has_rows].isna().any().any():
        col = key_table.columns[key_table[has_rows].isna().any()][0]
        raise ShapeError(f"groupby_aggregate: column {col!r} has no value for some nodes")
    codes, uniques = pd.factorize(
        pd.MultiIndex.from_frame(key_table.astype(str))
        if len(columns) > 1
        else key_table.iloc[:, 0],
        sort=True,
    )
    group = np.where(has_rows, codes, -1).astype(INT)
    used = np.unique(group[group >= 0])
    renumber = np.full(len(uniques), -1, INT)
    renumber[used] = np.arange(len(used), dtype=INT)
    group = np.where(group >= 0, renumber[np.maximum(group, 0)], -1)
    labels = [_label(uniques[i]) for i in used]

    src, dst = _group_edges(g, group)
    frames = pd.DataFrame({"name": labels, "type": "/".join(columns)})
    try:
        graph, pos = Graph._new(frames, None, (src, dst))
    except GraphError:
        src, dst = _without_cycles(len(labels), src, dst)
        graph, pos = Graph._new(frames, None, (src, dst))

    metrics = [m for m in dict.fromkeys(gf.exc_metrics + gf.inc_metrics) if m in df.columns]
    if isinstance(agg, dict):
        unknown = [c for c in agg if c not in df.columns]
        if unknown:
            raise ShapeError(f"groupby_aggregate: no column {unknown[0]!r} to aggregate")
        metrics = list(agg)
    levels = gf.index_levels
    row_group = pos[group[lay.node]]
    work = df.reset_index(level=levels, drop=False) if levels else df.reset_index(drop=True)
    work = work.reset_index(drop=True) if "node" in work.index.names else work
    work["node"] = row_group
    grouped = work.groupby(["node", *levels], sort=True)
    try:
        values = grouped[metrics].agg(agg if isinstance(agg, dict) else agg)
    except (AttributeError, TypeError, ValueError) as exc:
        raise ShapeError(f"groupby_aggregate: cannot aggregate with {agg!r}: {exc}") from exc
    others = [c for c in df.columns if c not in metrics and c not in columns]
    parts = [values]
    if others:
        parts.append(grouped[others].first())
    out = pd.concat(parts, axis=1)
    node_level = np.asarray(out.index.get_level_values("node"), dtype=INT)
    member = _first_member(group, pos)
    for c, k in zip(columns, keys):
        out[c] = np.asarray(k, dtype=object)[member][node_level]
    out = out[[c for c in df.columns if c in out.columns]]
    result = gf._derive(graph, out)
    result.exc_metrics = [m for m in gf.exc_metrics if m in out.columns]
    result.inc_metrics = [m for m in gf.inc_metrics if m in out.columns]
    return result


def _label(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, tuple) else str(value)


def _first_member(group: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """For each new node, one old node of its group."""
    first = np.full(len(pos), -1, INT)
    members = np.flatnonzero(group >= 0)
    first[pos[group[members]][::-1]] = members[::-1]
    return first


def _group_edges(g: Graph, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Edges between groups: each old edge mapped, self edges and repeats dropped. A node
    without rows (no group) is looked through to its nearest grouped ancestors."""
    if (group >= 0).all():
        src, dst = edges(g)
        gsrc, gdst = group[src], group[dst]
    elif g.is_tree():  # look through nodes without rows, level by level
        grouped = np.flatnonzero(group >= 0)
        gsrc, gdst = _nearest_grouped(g, group)[grouped], group[grouped]
    else:  # a DAG: a node may have several nearest grouped ancestors
        ancestors = _grouped_ancestors(g, group)
        pairs = [(a, group[c]) for c in np.flatnonzero(group >= 0) for a in ancestors[c]]
        if pairs:
            gsrc, gdst = (np.asarray(x, dtype=INT) for x in zip(*pairs))
        else:
            gsrc = gdst = np.zeros(0, INT)
    keep = (gsrc >= 0) & (gdst >= 0) & (gsrc != gdst)
    if not keep.any():
        return np.zeros(0, INT), np.zeros(0, INT)
    pairs = np.unique(np.stack([gsrc[keep], gdst[keep]], axis=1), axis=0)
    return pairs[:, 0], pairs[:, 1]


def _nearest_grouped(g: Graph, group: np.ndarray) -> np.ndarray:
    """In a tree, the group of each node's nearest ancestor that has one (-1: none)."""
    parent = np.asarray(g.parent, dtype=INT)
    nearest = np.full(len(g), -1, INT)
    for level in level_order(np.asarray(g.depth, dtype=INT))[1:]:
        up = parent[level]
        nearest[level] = np.where(group[up] >= 0, group[up], nearest[up])
    return nearest


def _grouped_ancestors(g: Graph, group: np.ndarray) -> list[list[int]]:
    """For each node, the groups of its nearest ancestors that have one."""
    n = len(g)
    out: list[list[int]] = [[] for _ in range(n)]
    for node in g.traverse():
        v = node.nid
        found: list[int] = []
        for p in g.parents_of(v).tolist():
            found.extend([int(group[p])] if group[p] >= 0 else out[p])
        out[v] = list(dict.fromkeys(found))
    return out


def _without_cycles(n: int, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The edges without those closing a cycle (depth-first from each root in id order)."""
    keep = ~back_edges(n, src, dst)
    return src[keep], dst[keep]
