"""The columns a calltree view shows, and one value per node of each.

A view (the explorer, the HTML export) shows a GraphFrame, an Ensemble or a comparison as
columns: a frame's metrics; an ensemble's statistic of each metric over its profiles; a
comparison's two sides and their difference; extra columns put beside the tree (another
study's results, matched to the tree by call path). :func:`node_table` gives every shown
column as one array over the graph's nodes (in the column's own dtype where it is exact),
with the core's one reduction over ranks and threads.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.column_names import (
    exclusive_name,
    inclusive_name,
    side_name,
    split_stat_name,
    stat_name,
)
from perfweave.calltree.graph import Graph
from perfweave.calltree.node_lookup import PathMatcher
from perfweave.calltree.numbers import column_format
from perfweave.calltree.ranks import rank_cells
from perfweave.calltree.shown import POINTS_IN_TIME
from perfweave.errors import ShapeError

INT = np.int64
#: the statistics of an ensemble's metrics over its profiles a view shows
STATS = ("mean", "median", "min", "max", "std", "var")
#: kinds of the extra columns (no bar, no percentage)
EXTRA_KINDS = ("extra", "text")
#: kinds without a total (no bar, no percentage)
PLAIN_KINDS = (*EXTRA_KINDS, "ratio", "excess")
#: kinds whose cells are not numbers in a column format (names; ratios as ``1.25×``)
UNFORMATTED_KINDS = ("text", "ratio")
_TIME_UNITS = ("s", "ms", "µs", "ns")
#: what a column's percentages are of, by kind (said in the header)
SHARE_OF = {
    "inc": "% of the whole run",
    "exc": "% of all nodes' sum",
    "value": "% of all nodes' sum",
}


@dataclass(frozen=True)
class Column:
    """A shown column: its key in the frame, header label and how bars are drawn (a bar is
    relative to the column's own total)."""

    key: str
    label: str
    #: "inc", "exc", "value", "diff", "excess" (max - mean), "ratio" (max / mean), or
    #: "extra"/"text" (extra columns)
    kind: str
    unit: str = ""

    def spec(self, total: float, values: Any = None) -> dict[str, Any]:
        """The column as a page receives it; with its per-node ``values``, the one format
        its cells are written in (:func:`perfweave.calltree.numbers.column_format`)."""
        out = {
            "key": self.key,
            "label": self.label,
            "kind": self.kind,
            "total": total,
            "unit": self.unit,
            "share": SHARE_OF.get(self.kind, ""),
        }
        if values is not None and self.kind not in UNFORMATTED_KINDS:
            out["format"] = column_format(values, self.unit).spec()
        return out


def is_ensemble(data: Any) -> bool:
    """Whether ``data`` is an Ensemble (many profiles) rather than a GraphFrame."""
    return hasattr(data, "statsframe")


def default_metrics(data: Any, compare: bool) -> list[str]:
    """The metrics a view shows when none are asked for: the default metric's inclusive
    and exclusive columns first (where the time goes), no points in time; a comparison's
    inclusive metrics; an ensemble's time metrics (RAJAPerf carries 11 numbers per node)."""
    metrics = list(dict.fromkeys(list(data.inc_metrics) + list(data.exc_metrics)))
    metrics = [m for m in metrics if str(m) not in POINTS_IN_TIME] or metrics
    default = str(data.default_metric)
    first = {default, inclusive_name(default), exclusive_name(default)}
    metrics.sort(key=lambda m: (m not in data.inc_metrics, str(m) not in first))
    if compare:
        base = [m for m in metrics if "[a]" not in m and "[b]" not in m]
        inc = [m for m in base if m in data.inc_metrics]
        return inc or base
    if is_ensemble(data):
        metrics = [m for m in metrics if m in data.performance_cols] or data.performance_cols
        timed = [m for m in metrics if data.unit_of(m) in _TIME_UNITS or "time" in str(m).lower()]
        metrics = timed or metrics
    return metrics


def derived_metrics(data: Any) -> list[str]:
    """The default metrics of a frame whose inclusive columns a view computed (it had only
    exclusive metrics): the default metric's inclusive and exclusive columns, then the other
    inclusive ones (a sampling profile: time (inc), time, count (inc)); the exclusive ones
    beside them would only crowd the table. An exclusive metric that got no inclusive
    column (a statistic of a node's own instances, Caliper's ``avg#time.duration``: never
    summed over a subtree) is shown as it is, after them; points in time are not."""
    default = str(data.default_metric)
    own = exclusive_name(default)
    first = [default] + ([own] if own != default and own in data.dataframe.columns else [])
    shown = first + [m for m in data.inc_metrics if m not in first]
    summed = {exclusive_name(m) for m in data.inc_metrics}
    return shown + [
        m
        for m in data.exc_metrics
        if m not in shown and m not in summed and str(m) not in POINTS_IN_TIME
    ]


def columns_for(data: Any, metrics: Sequence[str], compare: bool, stat: str) -> list[Column]:
    """The shown columns of ``metrics``: a frame's own, an ensemble's ``stat`` of each, a
    comparison's sides and difference."""
    table = data.dataframe.columns
    cols: list[Column] = []
    for m in metrics:
        if m not in table:
            shown = ", ".join(map(str, list(table)[:20]))
            raise ShapeError(f"no metric column {m!r} in the frame; its columns are: {shown}")
        kind = "exc" if m in data.exc_metrics else "inc" if m in data.inc_metrics else "value"
        unit = data.unit_of(m)
        if compare:
            cols += [
                Column(side_name(m, "a"), f"{m} [a]", kind, unit),
                Column(side_name(m, "b"), f"{m} [b]", kind, unit),
                Column(m, f"Δ {m} (a − b)", "diff", unit),
            ]
        elif is_ensemble(data):
            # a variance is in the unit squared: no unit rather than a wrong one
            cols.append(
                Column(stat_name(m, stat), f"{m} ({stat})", kind, "" if stat == "var" else unit)
            )
        else:
            cols.append(Column(m, m, kind, unit))
    return cols


def node_table(
    data: Any, columns: Sequence[Column], matrices: dict | None = None
) -> dict[str, np.ndarray]:
    """Per-node values of every shown column. For a frame with several rows per node,
    ``matrices`` (when given) receives under ``""`` the rank/thread cells of the columns
    (calltree.ranks.Cells; the rank spread reuses them)."""
    n = len(data.graph)
    keys = list(dict.fromkeys(c.key for c in columns))
    if is_ensemble(data):
        return {k: _stat_column(data, k, n) for k in keys}
    df = data.dataframe
    node = (
        np.asarray(df.index.get_level_values("node"), dtype=INT) if df.index.nlevels == 1 else None
    )
    if node is not None and _one_row_each(node):
        return {k: per_node(_check_numeric(df, k), node, n) for k in keys}
    # several rows per node: node_values' definition (rows summed per rank/thread, then the
    # mean over the rank/thread cells, 0 where an additive metric has no row), one layout
    for k in keys:
        _check_numeric(df, k)
    cells = rank_cells(data, keys, "threads")
    if matrices is not None:
        matrices[""] = cells
    return {k: cells.reduce(k, "mean") for k in keys}


def _one_row_each(node: np.ndarray) -> bool:
    """Whether no node has two rows (a strictly increasing column is checked without
    hashing it)."""
    if len(node) < 2 or bool(np.all(node[1:] > node[:-1])):
        return True
    return not pd.Series(node).duplicated().any()


def per_node(series: pd.Series, node: np.ndarray, n: int) -> np.ndarray:
    """One value per graph node of a column of a one-row-per-node table (row i holds node
    ``node[i]``). Integer columns stay int64 (exact) when every node has its row; nodes
    without a row get NaN (which makes the column float)."""
    if len(node) == n and series.dtype.kind in "iu" and np.array_equal(node, np.arange(n)):
        return series.to_numpy(dtype=np.int64)
    out = np.full(n, np.nan)
    out[node] = series.to_numpy(dtype=float, na_value=np.nan)
    return out


def column_total(column: Column, values: np.ndarray, roots: np.ndarray) -> float:
    """What a column's bars and percentages are relative to: none for a column without a
    total; a difference's largest magnitude (so that small changes still show); the sum
    over all nodes (exclusive) or over the roots."""
    if column.kind in PLAIN_KINDS:
        return 0.0
    v = np.asarray(values, dtype=float)
    if column.kind == "diff":
        finite = np.abs(v[np.isfinite(v)])
        return float(finite.max()) if len(finite) else 0.0
    v = v if column.kind == "exc" else v[roots]
    finite = v[np.isfinite(v)]
    return float(np.abs(finite).sum()) if len(finite) else 0.0


def _check_numeric(df: pd.DataFrame, column: Any) -> pd.Series:
    series = df[column]
    if not pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
        raise ShapeError(f"column {column!r} is not numeric ({series.dtype}); it cannot be shown")
    return series


def _stat_column(ens: Any, key: str, n: int) -> np.ndarray:
    metric, stat = split_stat_name(key)
    if key not in ens.statsframe.columns:
        ens.stats([metric], stats=[stat])
    col = ens.statsframe[key]
    node = np.asarray(ens.statsframe.index.get_level_values("node"), dtype=INT)
    out = np.full(n, np.nan)
    out[node] = col.to_numpy(dtype=float, na_value=np.nan)
    return out


@dataclass(frozen=True)
class ExtraColumns:
    """Extra per-node columns put beside a tree, kept by call path so that they follow the
    nodes through later filters, squashes, a focus and drops (:class:`PathMatcher`)."""

    names: list[str]
    matcher: PathMatcher  # the tree the rows of ``values`` are on, and its node names
    node: np.ndarray  # the node of that tree of each row of ``values``
    values: dict[str, np.ndarray]  # float64 or object (text)
    sort: dict[str, np.ndarray]  # float64 sort key per column
    units: dict[str, str]  # unit of a numeric column, formatted like a metric's ("" none)

    @classmethod
    def of(
        cls, frame: Any, sort_keys: Any, matcher: PathMatcher, units: Any = None
    ) -> ExtraColumns:
        """Check and keep ``frame`` (indexed by node ids of ``matcher``'s tree), its text
        columns' numeric ``sort_keys`` and its numeric columns' ``units``; a ShapeError
        names what does not fit."""
        if not isinstance(frame, pd.DataFrame):
            raise ShapeError(
                f"extra columns come as a pandas DataFrame indexed by node id, not "
                f"{type(frame).__name__}"
            )
        n = len(matcher.graph)
        try:
            node = np.asarray(frame.index, dtype=INT)
        except (TypeError, ValueError) as exc:
            raise ShapeError("extra columns: the DataFrame's index must be node ids") from exc
        bad = node[(node < 0) | (node >= n)]
        if len(bad):
            raise ShapeError(f"extra columns: no node {bad[0]} (the tree has nodes 0..{n - 1})")
        if pd.Index(node).has_duplicates:
            raise ShapeError("extra columns: a node id appears twice in the index")
        sort_keys = dict(sort_keys.items()) if sort_keys is not None else {}
        unknown = set(map(str, sort_keys)) - set(map(str, frame.columns))
        if unknown:
            raise ShapeError(f"sort key for {sorted(unknown)[0]!r}, which is not an extra column")
        values: dict[str, np.ndarray] = {}
        sort: dict[str, np.ndarray] = {}
        for col in frame.columns:
            series = frame[col]
            name = str(col)
            if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
                series.dtype
            ):
                values[name] = series.to_numpy(dtype=float, na_value=np.nan)
            else:
                text = series.to_numpy(dtype=object)
                values[name] = np.where(pd.isna(text), "–", text.astype(str)).astype(object)
            if col in sort_keys:
                key = pd.Series(sort_keys[col]).reindex(frame.index)
                if not pd.api.types.is_numeric_dtype(key.dtype):
                    raise ShapeError(f"the sort key of extra column {name!r} must be numeric")
                sort[name] = key.to_numpy(dtype=float, na_value=np.nan)
            elif values[name].dtype == object:
                codes, _ = pd.factorize(pd.Series(values[name]), sort=True)
                sort[name] = np.where(pd.isna(series.to_numpy()), np.nan, codes.astype(float))
        units = {str(k): str(v) for k, v in (units or {}).items()}
        unknown = set(units) - set(values)
        if unknown:
            raise ShapeError(f"unit for {sorted(unknown)[0]!r}, which is not an extra column")
        return cls([str(c) for c in frame.columns], matcher, node, values, sort, units)

    @functools.cached_property
    def _row_of(self) -> np.ndarray:
        """The row of ``values`` of each node of the tree they were given on (-1: none)."""
        out = np.full(len(self.matcher.graph), -1, INT)
        out[self.node] = np.arange(len(self.node), dtype=INT)
        return out

    def on(
        self, graph: Graph, names: np.ndarray
    ) -> tuple[list[Column], dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Columns, per-node values and sort keys on ``graph`` (matched by call path)."""
        matched = self.matcher.match(graph, names)
        at = np.where(matched >= 0, self._row_of[np.maximum(matched, 0)], -1)
        found = at >= 0
        cols, table, sort = [], {}, {}
        for name in self.names:
            src = self.values[name]
            text = src.dtype == object
            out = np.full(len(graph), "–" if text else np.nan, dtype=object if text else float)
            out[found] = src[at[found]]
            key = np.full(len(graph), np.nan)
            key[found] = self.sort[name][at[found]] if name in self.sort else src[at[found]]
            unit = "" if text else self.units.get(name, "")
            cols.append(Column(name, name, "text" if text else "extra", unit))
            table[name], sort[name] = out, key
        return cols, table, sort
