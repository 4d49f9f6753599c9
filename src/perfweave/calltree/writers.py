"""Writers: Hatchet's literal and dict/JSON formats, Graphviz DOT, folded stacks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from perfweave.calltree import display
from perfweave.calltree._frames import frames_of
from perfweave.calltree.graphframe import sum_parts

if TYPE_CHECKING:
    from perfweave.calltree.graphframe import GraphFrame


# control characters (C0, DEL, C1) -> visible escapes: a name read from a profile must
# not break a line-based format (folded stacks) or drive a terminal (ANSI escapes)
_CONTROL = {c: f"\\x{c:02x}" for c in (*range(32), *range(127, 160))}
_CONTROL.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})


def printable(text: object) -> str:
    """``str(text)`` with control characters written as escapes (``\\n``, ``\\x1b``)."""
    return str(text).translate(_CONTROL)


def node_view(
    gf: GraphFrame, columns: Sequence[str], rank: int | None = 0, thread: int | None = 0
) -> pd.DataFrame:
    """One row per graph node (reindexed 0..n-1) for one rank/thread (None: any, each
    column's first value the node has); NaN where absent."""
    df = gf.dataframe
    levels = gf.index_levels
    if levels:
        key = tuple(rank if lvl == "rank" else thread if lvl == "thread" else 0 for lvl in levels)
        mask = np.ones(len(df), bool)
        for lvl, value in zip(levels, key):
            if value is not None:
                mask &= np.asarray(df.index.get_level_values(lvl)) == value
        df = df[mask].droplevel(levels)
    cols = [c for c in columns if c in df.columns]
    df = df[cols]
    if df.index.has_duplicates:
        open_level = any(
            (lvl == "rank" and rank is None) or (lvl == "thread" and thread is None)
            for lvl in levels
        )
        if not open_level:
            # several rows of one node on one rank/thread (a sampling profile): a metric's
            # value is the sum of the node's rows (calltree.md, "A node's value")
            df = sum_parts(df, ["node"], set(gf.exc_metrics + gf.inc_metrics))
        else:  # a level left open (names, context, annotations): the first known value
            # per column, as drop_index_levels keeps it (rank 0 may lack the file another
            # rank names: tree() and perfweave tree print the same context)
            df = df.groupby(level="node", sort=False).first()
    return df.reindex(pd.RangeIndex(len(gf.graph), name="node"))


def node_names(gf: GraphFrame, view: pd.DataFrame, name: str) -> np.ndarray:
    """Names from a node view (:func:`node_view`, one row per node), by the one naming rule
    of :func:`perfweave.calltree.display.node_names`."""
    return display.node_names(gf.graph, view, name)


def to_literal(
    gf: GraphFrame,
    name: str = "name",
    rank: int = 0,
    thread: int = 0,
    cat_columns: Sequence[str] = (),
) -> list[dict]:
    """Hatchet's literal format: one dict per node (``frame``, ``name``, ``metrics``,
    ``attributes``, ``children``) for one rank/thread.

    ``metrics`` holds the declared metrics; ``attributes`` every other numeric column
    (TAU's ``Calls``, pstats' ``numcalls``, ``line``: a literal read back keeps them as
    columns, not as metrics) and the columns named in ``cat_columns``. ``frame`` comes
    first in each dict, so format detection sees it in the file's first bytes."""
    metrics = sorted(set(gf.inc_metrics + gf.exc_metrics))
    df = gf.dataframe
    cats = [
        c
        for c in df.columns
        if c not in metrics
        and c != name
        and (c in cat_columns or pd.api.types.is_numeric_dtype(df[c]))
    ]
    view = node_view(gf, [name, *metrics, *cats], rank, thread)
    names = node_names(gf, view, name)
    values = {}
    for m in metrics:
        col = (
            pd.to_numeric(view[m], errors="coerce").to_numpy(dtype=float)
            if m in view
            else np.zeros(len(view))
        )
        values[m] = np.where(np.isfinite(col), col, 0.0).tolist()
    attributes = {c: _plain(view[c]) for c in cats}
    frames = frames_of(gf.graph.frames)
    g = gf.graph
    done: set[int] = set()

    def entry(n: int) -> dict:
        return {
            "frame": frames[n].attrs,
            "name": names[n],
            "metrics": {**{m: values[m][n] for m in metrics}, "_hatchet_nid": n},
            "attributes": {c: attributes[c][n] for c in cats},
        }

    # depth first with an explicit stack (a call path may be any number of levels deep);
    # a DAG node's children are written under its first occurrence only
    roots = [entry(int(r)) for r in g.root_ids]
    stack = list(zip(reversed(g.root_ids.tolist()), reversed(roots)))
    while stack:
        n, node = stack.pop()
        kids = g.children_of(n)
        if len(kids) and n not in done:
            done.add(n)
            node["children"] = [entry(int(c)) for c in kids]
            stack.extend(zip(reversed(kids.tolist()), reversed(node["children"])))
    return roots


def _plain(column: pd.Series) -> list:
    """A column's values as Python scalars, None where missing (JSON has no NaN)."""
    values = column.astype(object).where(column.notna(), None).tolist()
    return [v.item() if isinstance(v, np.generic) else v for v in values]


def to_dict(gf: GraphFrame) -> dict:
    """Hatchet's GraphFrame dict, plus ``units`` (metric -> the reader's unit) and
    ``default_metric``, read back by ``from_dict`` (Hatchet ignores both keys). The small keys come first: format
    detection reads only a file's first and last bytes, and a graph of a few hundred
    nodes would push them past that window (Hatchet writes ``graph`` first; key order
    means nothing to JSON)."""
    g = gf.graph
    frames = frames_of(g.frames)
    graphs = []
    for root in g.root_ids:
        part = {}
        for node in g._traverse_from([int(root)], "pre"):
            part[node.nid] = {
                "data": frames[node.nid].attrs,
                "children": g.children_of(node.nid).tolist(),
            }
        graphs.append(part)
    ef = gf.dataframe.reset_index()
    ef = ef.astype(object).where(ef.notna(), None)
    return {
        "dataframe_indices": list(gf.dataframe.index.names),
        "inclusive_metrics": list(gf.inc_metrics),
        "exclusive_metrics": list(gf.exc_metrics),
        # perfweave's keys (Hatchet ignores them): the reader's units, the metric views show
        "units": dict(gf.units),
        "default_metric": gf.default_metric,
        "graph": graphs,
        "dataframe": ef.to_dict("records"),
    }


def _shown(values: np.ndarray, threshold: float) -> np.ndarray:
    finite = np.where(np.isfinite(values), values, 0.0)
    if threshold <= 0 or not len(finite):
        return np.ones(len(values), bool)
    return np.abs(finite) >= threshold * np.abs(finite).max()


def _dot_quote(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


#: attributes of perfweave's DOT that Graphviz ignores and the ``gprof-dot`` reader reads
#: back: the graph's metric, its kind and unit, each node's name, frame type and exact value
DOT_METRIC, DOT_KIND, DOT_UNIT, DOT_NAME, DOT_TYPE, DOT_VALUE = (
    "perfweave_metric",
    "perfweave_metric_kind",
    "perfweave_unit",
    "perfweave_name",
    "perfweave_type",
    "perfweave_value",
)


def to_dot(gf: GraphFrame, metric: str, name: str, rank: int, thread: int, threshold: float) -> str:
    """Graphviz DOT: a box per node labelled with its name and value (3 digits), an edge
    per parent -> child. Each node also carries its name, frame type and exact value as
    ``perfweave_*`` attributes (Graphviz ignores them), and the graph the metric's kind
    and unit, so ``perfweave.read`` reads the file back: node for node, with the metric's
    full value and unit."""
    view = node_view(gf, [name, metric], rank, thread)
    names = node_names(gf, view, name)
    vals = (
        pd.to_numeric(view[metric], errors="coerce").to_numpy(float)
        if metric in view
        else np.zeros(len(view))
    )
    keep = _shown(vals, threshold)
    g = gf.graph
    frames = frames_of(g.frames)
    kind = "inclusive" if metric in gf.inc_metrics else "exclusive"
    unit = gf.unit_of(metric)
    said = f", {DOT_UNIT}={_dot_quote(unit)}" if unit else ""
    lines = [
        'strict digraph "" {',
        f"  graph [{DOT_METRIC}={_dot_quote(metric)}, {DOT_KIND}={kind}{said}];",
        "  node [shape=box, style=rounded];",
    ]
    for n in np.flatnonzero(keep).tolist():
        finite = bool(np.isfinite(vals[n]))
        label = f"{names[n]}\n{vals[n]:.3g}" if finite else str(names[n])
        attrs = [f"label={_dot_quote(label)}", f"{DOT_NAME}={_dot_quote(names[n])}"]
        frame_type = frames[n].attrs.get("type")
        if frame_type is not None:
            attrs.append(f"{DOT_TYPE}={_dot_quote(frame_type)}")
        if finite:
            attrs.append(f"{DOT_VALUE}={_dot_quote(repr(float(vals[n])))}")
        lines.append(f"  {_dot_quote(n)} [{', '.join(attrs)}];")
    src = np.repeat(np.arange(len(g)), np.diff(g._child_ptr))
    dst = g._child_idx
    ok = keep[src] & keep[dst]
    lines.extend(
        f"  {_dot_quote(s)} -> {_dot_quote(d)};" for s, d in zip(src[ok].tolist(), dst[ok].tolist())
    )
    lines.append("}")
    return "\n".join(lines) + "\n"


def flame_metric(gf: GraphFrame, metric: str | None) -> str:
    """The metric a flame graph should use: exclusive, since flame graphs add children up."""
    if metric is not None:
        return metric
    m = gf.default_metric
    if m in gf.inc_metrics:
        base = m[: -len("(inc)")].strip() if m.endswith("(inc)") else m
        if base in gf.exc_metrics:
            return base
    return m


def to_flamegraph(
    gf: GraphFrame, metric: str | None, name: str, rank: int, thread: int, threshold: float
) -> str:
    """One ``a;b;c value`` line per node with a non-zero value (first parent path in a DAG);
    ``metric=None``: the exclusive counterpart of the default metric (:func:`flame_metric`).
    Names holding ``;``, ``\\`` or control characters are escaped reversibly
    (:mod:`perfweave.calltree.folded`)."""
    from perfweave.calltree.folded import escape

    metric = flame_metric(gf, metric)
    view = node_view(gf, [name, metric], rank, thread)
    names = np.array([escape(x) for x in node_names(gf, view, name)], dtype=object)
    vals = (
        pd.to_numeric(view[metric], errors="coerce").to_numpy(float)
        if metric in view
        else np.zeros(len(view))
    )
    g = gf.graph
    paths = names.copy()
    from perfweave.calltree._forest import level_order

    for level in level_order(g.depth)[1:]:
        paths[level] = paths[g.parent[level]] + ";" + names[level]
    keep = _shown(vals, threshold) & np.isfinite(vals) & (vals != 0)
    out = [f"{p} {_num(v)}" for p, v in zip(paths[keep].tolist(), vals[keep].tolist())]
    return "\n".join(out) + ("\n" if out else "")


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.6g}"
