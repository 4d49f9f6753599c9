"""Hatchet's column sums over the graph: subtree_sum, subgraph_sum, generate_exclusive_columns.

All three work per rank/thread (a node's row on rank r is summed with its descendants'
rows on rank r) on the dense (node x rank/thread) matrix, level by level, instead of
Hatchet's loop over nodes and ``.loc`` lookups. They change the frame in place, as
Hatchet's do. ``subtree_sum`` counts a DAG node once per path that reaches it (Hatchet:
"only correct for trees"); ``subgraph_sum`` counts it once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from perfweave.calltree._layout import INT, layout
from perfweave.calltree.analysis import metric_list
from perfweave.calltree.inclusive import subgraph_sums, to_rows, up_sum
from perfweave.errors import OptionError, ShapeError

if TYPE_CHECKING:
    from perfweave.calltree.graphframe import GraphFrame


#: what Hatchet's ``function=`` of subtree_sum/subgraph_sum may be here: a sum
_SUMS = {"sum", "nansum"}


def check_sum_function(op: str, function: object) -> None:
    """Hatchet's ``function=`` of ``op``: perfweave's sums are Hatchet's default (a sum,
    NaN where no value was summed); a sum is taken, another reduction is an OptionError
    naming what to do instead."""
    if function is None or function is sum:
        return
    if getattr(function, "__name__", None) in _SUMS or function in _SUMS:
        return
    raise OptionError(
        f"{op}(function={function!r}): perfweave sums only (Hatchet's default, NaN where "
        "no value is below a node). For another reduction over each node's subtree, "
        "apply it to the rows of gf.graph.subtree(node) in gf.dataframe"
    )


def _names(columns: str | Sequence[str] | None) -> list[str] | None:
    if columns is None:
        return None
    return [columns] if isinstance(columns, str) else list(columns)


def subtree_sum(
    gf: GraphFrame,
    columns: str | Sequence[str],
    out_columns: str | Sequence[str] | None,
    per_path: bool,
) -> None:
    """Each row's ``columns`` plus its node's descendants' on the same rank/thread,
    written to ``out_columns`` (default: in place)."""
    op = "subtree_sum" if per_path else "subgraph_sum"
    cols = metric_list(gf, columns, op)
    outs = _names(out_columns) or cols
    if len(outs) != len(cols):
        raise ShapeError(f"{op}: {len(cols)} columns but {len(outs)} out_columns")
    g = gf.graph
    if g.is_tree() or not per_path:
        sums = subgraph_sums(g, gf.dataframe, cols)
    else:
        sums = _path_sums(gf, cols)
    df = gf.dataframe.copy()
    for col, out in zip(cols, outs):
        df[out] = sums[col]
    gf.dataframe = df


def edges(g) -> tuple[np.ndarray, np.ndarray]:
    """(parent, child) of every edge."""
    src = np.repeat(np.arange(len(g), dtype=INT), np.diff(g._child_ptr))
    return src, np.asarray(g._child_idx, dtype=INT)


def _heights(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Longest distance from each node down to a leaf (leaves 0), in a DAG."""
    height = np.zeros(n, INT)
    while True:
        new = height.copy()
        np.maximum.at(new, src, height[dst] + 1)
        if np.array_equal(new, height):
            return height
        height = new


def _path_sums(gf: GraphFrame, cols: list[str]) -> dict[str, np.ndarray]:
    """Subtree sums in a DAG, a node counted once per path reaching it (Hatchet's
    subtree_sum): children before parents, by height."""
    g = gf.graph
    lay = layout(gf.dataframe, len(g))
    src, dst = edges(g)
    height = _heights(len(g), src, dst)
    steps = [np.flatnonzero(height[src] == h) for h in range(1, int(height.max(initial=0)) + 1)]
    out = {}
    for col in cols:
        values = pd.to_numeric(gf.dataframe[col], errors="coerce").to_numpy(dtype=float)
        dense, present = lay.dense(values)
        total, count = dense.copy(), present.astype(float)
        for step in steps:
            np.add.at(total, src[step], total[dst[step]])
            np.add.at(count, src[step], count[dst[step]])
        out[col] = to_rows(lay, values, dense, np.where(count > 0, total, np.nan))
    return out


def generate_exclusive_columns(gf: GraphFrame, inc_metrics: str | Sequence[str] | None) -> None:
    """Hatchet's pairing: ``x (inc)`` without an exclusive ``x`` gives ``x``; an inclusive
    metric not named ``(inc)`` gives ``<name> (exc)``. Exclusive = inclusive minus the sum
    of the children's inclusive values on the same rank/thread (a missing child counts 0)."""
    wanted = _names(inc_metrics)
    if wanted is not None:
        unknown = [m for m in wanted if m not in gf.inc_metrics]
        if unknown:
            raise ShapeError(
                f"generate_exclusive_columns: {unknown[0]!r} is not an inclusive metric; "
                f"the inclusive metrics are {gf.inc_metrics}"
            )
    df = gf.dataframe
    pairs = []
    for inc in gf.inc_metrics:
        if wanted is not None and inc not in wanted:
            continue
        if inc not in df.columns or not pd.api.types.is_numeric_dtype(df[inc]):
            continue
        if inc.endswith("(inc)"):
            exc = inc[: -len("(inc)")].strip()
            if exc not in gf.exc_metrics:
                pairs.append((exc, inc))
        else:
            pairs.append((f"{inc} (exc)", inc))
    if not pairs:
        return
    g = gf.graph
    lay = layout(df, len(g))
    src, dst = edges(g)
    out = df.copy()
    for exc, inc in pairs:
        values = np.asarray(df[inc], dtype=float)
        dense, _ = lay.dense(values)
        below = np.zeros_like(dense)
        np.add.at(below, src, dense[dst])
        out[exc] = _subtract_rows(lay, values, below)
    gf.dataframe = out
    gf.exc_metrics = list(dict.fromkeys(gf.exc_metrics + [e for e, _ in pairs]))


def _subtract_rows(lay, values: np.ndarray, below: np.ndarray) -> np.ndarray:
    """Each row minus its cell's children total (only the first row of a cell with
    several: the rows of a cell sum to the node's inclusive value)."""
    at = (lay.node, lay.combo)
    if not lay.has_duplicates():
        return values - below[at]
    return np.where(lay.first_rows(), values - below[at], values)


__all__ = ["check_sum_function", "generate_exclusive_columns", "subtree_sum", "up_sum"]
