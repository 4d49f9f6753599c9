"""The one way readers turn parsed records into a GraphFrame.

A reader collects, in any order: a frame table (one row per node, with at least ``name``),
the structure (a parent id per node, or parent->child edge lists), and a metric table
whose ``node`` column refers to those ids (plus optional ``rank``/``thread`` columns). The
builder numbers the graph canonically, remaps the metric rows in one vectorised step and
indexes the dataframe by (node[, rank][, thread]).
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike

import numpy as np
import pandas as pd

from perfweave.calltree.graph import Graph
from perfweave.errors import ArgumentError, GraphError, ParseError, ShapeError

INDEX_LEVELS = ("rank", "thread")


def build_graphframe(
    frames: pd.DataFrame | Sequence[dict],
    data: pd.DataFrame,
    *,
    parent: Sequence[int] | np.ndarray | None = None,
    edges: tuple[Sequence[int], Sequence[int]] | None = None,
    exc_metrics: Sequence[str] = (),
    inc_metrics: Sequence[str] = (),
    default_metric: str | None = None,
    metadata: dict | None = None,
    order_key: Sequence[int] | np.ndarray | None = None,
    path: str | PathLike[str] | None = None,
    index_levels: Sequence[str] = INDEX_LEVELS,
    units: dict | None = None,
):
    """Assemble a GraphFrame from reader output (see the module docstring).

    ``order_key`` (one integer per node) orders siblings instead of their frames, for
    formats that record a node order (Caliper's "Node order"). ``index_levels`` are the
    columns of ``data`` that index rows besides ``node`` where present (default rank,
    thread). Structural problems raise
    :class:`~perfweave.errors.ParseError` naming ``path``.
    """
    from perfweave.calltree.graphframe import GraphFrame

    table = frames if isinstance(frames, pd.DataFrame) else pd.DataFrame(list(frames), dtype=object)
    if "name" not in table.columns:
        raise ParseError(
            path, "a 'name' attribute for every node", found=f"attributes {list(table.columns)}"
        )
    _check_frame_values(table, path)
    if (parent is None) == (edges is None):
        raise ArgumentError("give exactly one of parent= or edges=")
    try:
        if parent is not None:
            graph, pos = Graph._new(table, np.asarray(parent, dtype=np.int64), None, order_key)
        else:
            src, dst = (np.asarray(e, dtype=np.int64) for e in edges)
            graph, pos = Graph._new(table, None, (src, dst), order_key)
    except GraphError as exc:
        raise ParseError(path, "a well-formed call graph", found=str(exc)) from exc

    if "node" not in data.columns:
        raise ArgumentError("data needs a 'node' column of node ids")
    node = np.asarray(data["node"], dtype=np.int64)
    if len(node) and (node.min() < 0 or node.max() >= len(pos)):
        bad = int(node[(node < 0) | (node >= len(pos))][0])
        raise ParseError(path, f"metric rows for nodes 0..{len(pos) - 1}", found=f"node {bad}")
    levels = ["node"] + [lvl for lvl in index_levels if lvl in data.columns]
    if levels == ["node"] and data.columns.is_unique:
        # (speed, small profiles) set_index("node").sort_index() as one take, same rows in
        # the same order: pandas keeps a sorted index and else sorts with a quicksort argsort
        key = pos[node]
        ordered = len(key) < 2 or bool((key[1:] >= key[:-1]).all())
        order = np.arange(len(key)) if ordered else np.argsort(key, kind="quicksort")
        df = data.drop(columns="node").take(order)
        df.index = pd.Index(key[order], name="node")
        if "name" not in df.columns:
            df["name"] = graph.frames["name"].to_numpy()[key[order]]
    else:
        df = data.copy()
        df["node"] = pos[node]
        if "name" not in df.columns:
            names = graph.frames["name"].to_numpy()
            df["name"] = names[df["node"].to_numpy()]
        df = df.set_index(levels).sort_index()
    columns = set(df.columns)
    for m in [*exc_metrics, *inc_metrics]:
        if m not in columns:
            raise ShapeError(
                f"{path or '<data>'}: metric {m!r} has no column (columns: {sorted(map(str, columns))})"
            )
    exc, inc = list(exc_metrics), list(inc_metrics)
    if default_metric is None:
        default_metric = (inc or exc or ["time"])[0]
    return GraphFrame(graph, df, exc, inc, default_metric, dict(metadata or {}), units)


# pandas' inferred kinds of a column that holds only scalars
_SCALAR_KINDS = {"string", "integer", "floating", "mixed-integer-float", "boolean", "empty"}


def _check_frame_values(table: pd.DataFrame, path) -> None:
    """Frame attributes are text or numbers: a list or object read from a file (a broken
    profile) is a ParseError naming the node and attribute, not a TypeError in pandas."""
    for col in table.columns:
        values = table[col]
        if values.dtype != object or pd.api.types.infer_dtype(values, skipna=True) in _SCALAR_KINDS:
            continue
        for node, value in enumerate(values.tolist()):
            if not isinstance(value, (str, int, float, bool, type(None), np.generic)):
                raise ParseError(
                    path,
                    f"text or a number as the frame attribute {col!r}",
                    position=f"node {node}",
                    found=value,
                )
