"""The first analyses of one profile: node values, load imbalance, flat profile, hot path.

**A node's value** (:func:`node_values`) is defined once and used by ``tree()``, the CLI
and the explorer: the rows of one node on one rank/thread are summed (a sampling profile
keeps one row per sampled call stack, all parts of the node), then the mean is taken over
the frame's rank/thread cells, where a cell without a row for the node counts 0 for an
additive metric (:mod:`perfweave.calltree.ranks`, the one rule of reducing ranks and
threads). A frame without rank/thread levels therefore shows the sum of each node's rows.

Load imbalance, the flat profile and the hot path follow Chopper (the ``hatchet``
package's analysis layer); docs/calltree.md states its definitions and where perfweave
differs on purpose. Everything is columnar: a dense (node x rank/thread) matrix per metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from perfweave.calltree._layout import INT, Layout, layout
from perfweave.calltree.display import node_names
from perfweave.calltree.graphframe import combine_duplicates
from perfweave.calltree.ranks import Cells, check_across, rank_cells, spread_of, unmeasured_zero
from perfweave.errors import ShapeError

if TYPE_CHECKING:
    from perfweave.calltree.graph import Node
    from perfweave.calltree.graphframe import GraphFrame

DESCRIPTION = "perfweave.node_values"  # the DataFrame.attrs key holding what the values are


def metric_list(gf: GraphFrame, columns: str | Sequence[str] | None, op: str) -> list[str]:
    """The numeric columns asked for (default: the frame's metrics), checked by name."""
    if columns is None:
        cols = list(dict.fromkeys(gf.exc_metrics + gf.inc_metrics))
    elif isinstance(columns, str):
        cols = [columns]
    else:
        cols = list(columns)
    df = gf.dataframe
    for c in cols:
        if c not in df.columns:
            raise ShapeError(
                f"{op}: no column {c!r}; the metrics are {gf.exc_metrics + gf.inc_metrics}"
            )
        if not pd.api.types.is_numeric_dtype(df[c]):
            raise ShapeError(f"{op}: column {c!r} is not numeric (dtype {df[c].dtype})")
    return cols


def _layout_of(gf: GraphFrame) -> Layout:
    return layout(gf.dataframe, len(gf.graph))


def _select(gf: GraphFrame, rank: int | None, thread: int | None) -> tuple[pd.DataFrame, str]:
    """The rows of the rank/thread asked for (all rows where None), and how to say so."""
    df = gf.dataframe
    said = []
    for level, value in (("rank", rank), ("thread", thread)):
        if value is None:
            continue
        if level not in gf.index_levels:
            raise ShapeError(f"{level} {value} asked for, but the frame has no {level} level")
        values = df.index.get_level_values(level)
        mask = np.asarray(values == value)
        if not mask.any():
            uniq = values.unique()
            raise ShapeError(
                f"no {level} {value}: the frame has {len(uniq)} {level}s "
                f"({uniq.min()}..{uniq.max()})"
            )
        df = df[mask].droplevel(level)
        said.append(f"{level} {value}")
    return df, ", ".join(said)


def describe(
    gf: GraphFrame, df: pd.DataFrame | None = None, chosen: str = "", cells: Cells | None = None
) -> str:
    """What :func:`node_values` shows for this frame, in words ('' when each node has
    exactly one row: its value is that row)."""
    df = gf.dataframe if df is None else df
    cells = rank_cells(gf, [], dataframe=df) if cells is None else cells
    lay = cells.layout
    parts = [chosen] if chosen else []
    if cells.levels:
        parts.append(cells.describe("mean"))
    if lay.has_duplicates():
        n_cells = int((lay.rows_per_cell > 0).sum())
        if lay.levels:
            where = f"per {'/'.join(lay.levels)} ({len(df)} rows, {n_cells} node-{lay.levels[0]}s)"
        else:
            where = f"({len(df)} rows, {n_cells} nodes)"
        parts.append(f"the sum of each node's rows {where}")
    return "; ".join(parts)


def node_values(
    gf: GraphFrame,
    columns: str | Sequence[str] | None = None,
    rank: int | None = None,
    thread: int | None = None,
) -> pd.DataFrame:
    """One value per graph node for each column (see the module docstring).

    Indexed by node id 0..n-1 (NaN for a node without a value). ``rank``/``thread`` pick
    one rank or thread first (the other level is still averaged). ``result.attrs`` holds
    under ``"perfweave.node_values"`` what the values are ("mean over 4 ranks"), for a
    header.
    """
    return _node_values(gf, metric_list(gf, columns, "node_values"), rank, thread)[0]


def _node_values(
    gf: GraphFrame, cols: list[str], rank: int | None = None, thread: int | None = None
) -> tuple[pd.DataFrame, Layout]:
    """:func:`node_values` and the layout of the rows it read."""
    df, chosen = _select(gf, rank, thread)
    n = len(gf.graph)
    cells = rank_cells(gf, cols, "threads", dataframe=df)
    out = {c: cells.reduce(c, "mean") for c in cols}
    said = describe(gf, df, chosen, cells)
    if chosen:
        # the rank (thread) asked for measured nothing at a node other ranks have a value
        # for: an additive metric's value there is 0, by the rule every reduction follows
        filled = False
        for c in cols:
            none = np.isnan(out[c]) & unmeasured_zero(gf.dataframe, n, c)
            if none.any():
                out[c] = np.where(none, 0.0, out[c])
                filled = True
        if filled:
            said += f"; a node with no row in {chosen} counts 0"
    result = pd.DataFrame(out, index=pd.RangeIndex(n, name="node"), columns=cols)
    result.attrs[DESCRIPTION] = said
    return result, cells.layout


def combine_rows(gf: GraphFrame) -> pd.DataFrame:
    """The dataframe with one row per (node, rank, thread): metric columns of repeated
    rows summed (NaN only where no row has a value), other columns their first value."""
    df = gf.dataframe
    if not layout(df, len(gf.graph)).has_duplicates():
        return df
    return combine_duplicates(df, set(gf.exc_metrics + gf.inc_metrics))


# ---------------------------------------------------------------------- load imbalance
def load_imbalance(
    gf: GraphFrame,
    metric_columns: str | Sequence[str] | None = None,
    top: int = 5,
    threshold: float | None = None,
    across: str | None = None,
) -> GraphFrame:
    """Load imbalance per node, over the compared units ``across`` (each rank with its
    threads summed, the default where there is a rank level, or every rank/thread cell;
    see :mod:`perfweave.calltree.ranks`, where a unit without a row counts 0).

    For each metric ``m``: ``m.mean`` and ``m.max`` over the units; ``m.excess = max -
    mean``, the time the slowest unit spends beyond the average (in ``m``'s unit: what
    ranks lose waiting, the column to rank nodes by); the POP load-balance
    ``m.efficiency = mean / max``; Chopper's ``m.imbalance = max / mean``; and the ``top``
    units with the largest values among those measured (``m.top_ranks``, largest first;
    ``m.top_threads`` alongside when every thread is compared). One row per node on the
    same graph; other columns keep the node's first value; ``default_metric`` is the
    first metric's excess. ``threshold`` keeps only nodes whose max exceeds that fraction
    of the largest unit value of the first metric (Chopper's filter).
    """
    if metric_columns is None:
        metric_columns = [gf.default_metric]
    cols = metric_list(gf, metric_columns, "load_imbalance")
    if not gf.index_levels:
        raise ShapeError(
            f"load_imbalance({cols[0]!r}): the frame has no rank or thread index level, so "
            "there is nothing to be imbalanced across (index: "
            f"{list(gf.dataframe.index.names)})"
        )
    if not isinstance(top, (int, np.integer)) or top < 1:
        raise ShapeError(f"load_imbalance: top must be a positive integer, not {top!r}")
    across = check_across(gf.index_levels, across)
    df = gf.dataframe
    cells = rank_cells(gf, cols, across)
    first = cells.layout.first_row_of_node()
    nodes = cells.layout.node[first]
    metrics = set(gf.exc_metrics + gf.inc_metrics)
    out: dict[str, object] = {c: df[c].to_numpy()[first] for c in df.columns if c not in metrics}
    exc, inc = [], []
    units: dict[str, str] = {}
    for c in cols:
        spread = spread_of(cells, c)
        for stat in ("mean", "max", "excess", "efficiency", "imbalance"):
            out[f"{c}.{stat}"] = getattr(spread, stat)[nodes]
        seen, values = cells.measured[c], cells.values[c]
        if len(nodes) < len(values):
            seen, values = seen[nodes], values[nodes]
        masked = values.copy() if seen.all() else np.where(seen, values, -np.inf)
        ranks, threads = _top(masked, cells, top)
        if ranks is not None:
            out[f"{c}.top_ranks"] = ranks
        if threads is not None:
            out[f"{c}.top_threads"] = threads
        (inc if c in gf.inc_metrics else exc).extend([f"{c}.mean", f"{c}.max", f"{c}.excess"])
        unit = gf.unit_of(c)
        units.update({f"{c}.{s}": unit for s in ("mean", "max", "excess")})
        units.update({f"{c}.{s}": "" for s in ("efficiency", "imbalance")})
    frame = pd.DataFrame(out, index=pd.Index(nodes, name="node"))
    result = gf._derive(gf.graph, frame)
    result.exc_metrics, result.inc_metrics = exc, inc
    result.units = {**gf.units, **units}
    result.default_metric = f"{cols[0]}.excess"
    if threshold is not None:
        values = cells.values[cols[0]]
        largest = np.nanmax(values) if np.isfinite(values).any() else np.nan
        keep = frame[f"{cols[0]}.max"].to_numpy() > threshold * largest
        if not keep.any():
            raise ShapeError(
                f"load_imbalance: no node of {cols[0]!r} exceeds threshold {threshold} of "
                f"its largest value {largest}"
            )
        result = result.filter(keep, squash=True, update_inclusive_columns=False)
    return result


def _top(masked: np.ndarray, cells: Cells, top: int):
    """The rank (and thread) values of each node's ``top`` largest measured units,
    largest first.

    One small integer array per node (shorter where a node has fewer measured units);
    equal values keep the lower rank first. ``masked`` (values, -inf where not measured)
    is used up: ``top`` rounds of argmax, each masking the cell it found, beat a partition
    of the matrix.
    """
    n, k = masked.shape
    t = min(top, k)
    best = np.empty((n, t), INT)
    valid = np.empty((n, t), bool)
    rows = np.arange(n)
    for i in range(t):
        col = masked.argmax(axis=1)
        best[:, i] = col
        valid[:, i] = masked[rows, col] > -np.inf  # a cell with a value not taken yet
        masked[rows, col] = -np.inf
    full = valid.all()

    def per_node(level: str):
        if level not in cells.unit_values:
            return None
        values = cells.unit_values[level][best]
        rows = iter(values) if full else map(_head, values, valid.sum(axis=1).tolist())
        return np.fromiter(rows, dtype=object, count=len(values))  # one array per node

    return per_node("rank"), per_node("thread")


def _head(row: np.ndarray, m: int) -> np.ndarray:
    return row[:m]


# ---------------------------------------------------------------------- flat profile
def flat_profile(
    gf: GraphFrame, metric_columns: str | Sequence[str] | None = None, by: str = "name"
) -> pd.DataFrame:
    """Chopper's flat profile: each node's value (:func:`node_values`), summed over all
    nodes with the same ``by`` (a dataframe column or frame attribute), one row per
    value of ``by``, sorted by the first metric, largest first. By ``name``, a node is
    grouped under the name every view shows (:func:`~perfweave.calltree.display.node_names`:
    a node without a name under ``(unnamed) under solve``, never a blank row)."""
    cols = metric_list(gf, metric_columns, "flat_profile")
    values, lay = _node_values(gf, cols)
    if by == "name":
        keys = node_names(gf.graph, gf.dataframe, by)
    else:
        keys = _node_attribute(gf, by, lay)
    has_rows = np.zeros(len(gf.graph), bool)
    has_rows[gf.node_ids()] = True
    values = values[has_rows]
    values.insert(0, by, keys[has_rows])
    out = values.groupby(by, sort=False, dropna=False)[cols].sum(min_count=1)  # keep NaN keys
    out = out.sort_values(cols[0], ascending=False, kind="stable") if cols else out
    out.attrs[DESCRIPTION] = values.attrs[DESCRIPTION]
    return out


def _node_attribute(gf: GraphFrame, column: str, lay: Layout | None = None) -> np.ndarray:
    """A column's value per graph node: from the dataframe (first row), else the frames."""
    df = gf.dataframe
    if column in df.columns:
        values = np.full(len(gf.graph), None, dtype=object)
        lay = _layout_of(gf) if lay is None else lay
        node, first = lay.node, lay.first_row_of_node()
        values[node[first]] = df[column].to_numpy(dtype=object)[first]
        missing = pd.isna(values)
        if missing.any() and column in gf.graph.frames.columns:
            values[missing] = gf.graph.frames[column].to_numpy(dtype=object)[missing]
        return values
    if column in gf.graph.frames.columns:
        return gf.graph.frames[column].to_numpy(dtype=object)
    raise ShapeError(
        f"no column or frame attribute {column!r}; columns are {list(df.columns)}, "
        f"frame attributes {list(gf.graph.frames.columns)}"
    )


# ---------------------------------------------------------------------- hot path
def hot_path(
    gf: GraphFrame,
    metric: str | None = None,
    threshold: float = 0.5,
    start: int | Node | None = None,
) -> list[Node]:
    """Chopper's hot path: from ``start`` (default: the root with the largest value),
    follow the child with the largest value while it holds at least ``threshold`` of its
    parent's; the first child that does not is the path's last node (as in Chopper).

    ``metric`` defaults to the inclusive column of the default metric (a hot path follows
    inclusive values), else the default metric. A frame with only exclusive metrics gets
    that inclusive column computed, as every tree view has it (:mod:`~perfweave.calltree.
    shown`); so does an inclusive ``metric`` asked for by name. Values are
    :func:`node_values`.
    """
    from perfweave.calltree.graphframe import inclusive_name
    from perfweave.calltree.shown import with_inclusive

    asked = inclusive_name(gf.default_metric) if metric is None else metric
    gf = with_inclusive(gf, [asked])  # the same graph: the path's nodes are gf's
    if metric is None:
        metric = asked if asked in gf.dataframe.columns else gf.default_metric
    value = _node_values(gf, metric_list(gf, metric, "hot_path"))[0][metric].to_numpy()
    value = np.where(np.isnan(value), -np.inf, value)
    g = gf.graph
    if start is None:
        roots = g.root_ids
        v = int(roots[np.argmax(value[roots])])
    else:
        v = int(getattr(start, "nid", start))
        g.node(v)  # checks the id
    path = [v]
    while True:
        kids = g.children_of(v)
        if not len(kids):
            break
        child = int(kids[np.argmax(value[kids])])
        path.append(child)
        if not value[child] >= threshold * value[v]:
            break
        v = child
    return [g.node(i) for i in path]
