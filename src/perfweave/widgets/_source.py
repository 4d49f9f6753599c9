"""What the explorer shows, taken from a GraphFrame, an Ensemble or a pair to compare.

A :class:`Source` gives per-node values of the shown columns (one array over the graph's
nodes, in the column's own dtype where it is exact), the totals bars are drawn against,
and, for an ensemble, each node's values across profiles. The explorer never looks at a
GraphFrame or Ensemble directly, so the three modes share every other line.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.compare import side_name
from perfweave.calltree.display import node_names, path_keys
from perfweave.calltree.graphframe import GraphFrame
from perfweave.calltree.numbers import column_format, format_quantity
from perfweave.calltree.ranks import (
    RankSpread,
    check_across,
    profile_means,
    rank_cells,
    spread_of,
)
from perfweave.calltree.shown import POINTS_IN_TIME
from perfweave.ensemble.ensemble import Ensemble
from perfweave.errors import GraphError, ShapeError

INT = np.int64
STATS = ("mean", "median", "min", "max", "std", "var")
#: kinds of the columns set with set_extra_columns (no bar, no percentage)
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
    # "inc", "exc", "value", "diff", "excess" (max - mean), "ratio" (max / mean), or
    # "extra"/"text" (set_extra_columns)
    kind: str

    unit: str = ""

    def spec(self, total: float, values: Any = None) -> dict[str, Any]:
        """The column for the page; with its per-node ``values``, the one format its
        cells are written in (:func:`perfweave.calltree.numbers.column_format`)."""
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


def as_core(data: Any) -> GraphFrame | Ensemble:
    """A perfweave GraphFrame/Ensemble, converting llnl-hatchet/llnl-thicket objects."""
    if isinstance(data, (GraphFrame, Ensemble)):
        return data
    kind = type(data).__module__.split(".")[0]
    if kind == "hatchet":
        return GraphFrame.from_hatchet(data)
    if kind == "thicket":
        return Ensemble.from_thicket(data)
    raise ShapeError(
        "CalltreeExplorer shows a perfweave GraphFrame or Ensemble (or an llnl-hatchet "
        f"GraphFrame / llnl-thicket Thicket), not {type(data).__name__}"
    )


def node_ids(data: GraphFrame | Ensemble) -> np.ndarray:
    return np.asarray(data.dataframe.index.get_level_values("node"), dtype=INT)


def check_nonempty(data: GraphFrame | Ensemble) -> None:
    if len(data.graph) == 0 or len(data.dataframe) == 0:
        raise GraphError("the frame has no nodes or no rows: there is nothing to explore")


def _check_numeric(df: pd.DataFrame, column: Any) -> pd.Series:
    series = df[column]
    if not pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
        raise ShapeError(f"column {column!r} is not numeric ({series.dtype}); it cannot be shown")
    return series


def per_node(series: pd.Series, node: np.ndarray, n: int) -> np.ndarray:
    """One value per graph node of a column of a one-row-per-node table (row i holds node
    ``node[i]``). Integer columns stay int64 (exact) when every node has its row; nodes
    without a row get NaN (which makes the column float)."""
    if len(node) == n and series.dtype.kind in "iu" and np.array_equal(node, np.arange(n)):
        return series.to_numpy(dtype=np.int64)
    out = np.full(n, np.nan)
    out[node] = series.to_numpy(dtype=float, na_value=np.nan)
    return out


def total(values: np.ndarray, roots: np.ndarray, exclusive: bool) -> float:
    """What a bar is relative to: the sum over all nodes (exclusive) or over the roots."""
    v = np.asarray(values, dtype=float)
    v = v if exclusive else v[roots]
    finite = v[np.isfinite(v)]
    return float(np.abs(finite).sum()) if len(finite) else 0.0


def inclusive_name(metric: str) -> str:
    return metric[: -len(" (exc)")] if metric.endswith(" (exc)") else f"{metric} (inc)"


def default_metrics(data: GraphFrame | Ensemble, compare: bool) -> list[str]:
    metrics = list(dict.fromkeys(list(data.inc_metrics) + list(data.exc_metrics)))
    metrics = [m for m in metrics if str(m) not in POINTS_IN_TIME] or metrics
    # the default metric (its inclusive and exclusive columns) first: where the time goes
    default = str(data.default_metric)
    first = {default, inclusive_name(default), default.removesuffix(" (inc)")}
    metrics.sort(key=lambda m: (m not in data.inc_metrics, str(m) not in first))
    if compare:
        base = [m for m in metrics if "[a]" not in m and "[b]" not in m]
        inc = [m for m in base if m in data.inc_metrics]
        return inc or base
    if isinstance(data, Ensemble):
        metrics = [m for m in metrics if m in data.performance_cols] or data.performance_cols
        # an ensemble of benchmark runs carries many numbers per node (RAJAPerf: 11, from
        # BlockSize to Reps): the time metrics first, the others on request (metrics=)
        timed = [m for m in metrics if data.unit_of(m) in _TIME_UNITS or "time" in str(m).lower()]
        metrics = timed or metrics
    return metrics


def columns_for(
    data: GraphFrame | Ensemble, metrics: Sequence[str], compare: bool, stat: str
) -> list[Column]:
    """The shown columns for ``metrics`` in each mode."""
    table = data.dataframe.columns
    cols: list[Column] = []
    for m in metrics:
        if m not in table:
            shown = ", ".join(map(str, list(table)[:20]))
            raise ShapeError(f"no metric column {m!r} in the frame; its columns are: {shown}")
        kind = "exc" if m in data.exc_metrics else "inc" if m in data.inc_metrics else "value"
        unit = data.unit_of(m)
        if compare:
            a, b = side_name(m, "a"), side_name(m, "b")
            cols += [
                Column(a, f"{m} [a]", kind, unit),
                Column(b, f"{m} [b]", kind, unit),
                Column(m, f"Δ {m} (a − b)", "diff", unit),
            ]
        elif isinstance(data, Ensemble):
            # a variance is in the unit squared: no unit rather than a wrong one
            shown = "" if stat == "var" else unit
            cols.append(Column(f"{m}_{stat}", f"{m} ({stat})", kind, shown))
        else:
            cols.append(Column(m, m, kind, unit))
    return cols


def node_table(
    data: GraphFrame | Ensemble, columns: Sequence[Column], matrices: dict | None = None
) -> dict[str, np.ndarray]:
    """Per-node values of every shown column. For a frame with several rows per node,
    ``matrices`` (when given) receives under ``""`` the rank/thread cells of the columns
    (calltree.ranks.Cells; the rank view reuses them)."""
    n = len(data.graph)
    keys = list(dict.fromkeys(c.key for c in columns))
    if isinstance(data, Ensemble):
        return {k: _stat_column(data, k, n) for k in keys}
    df = data.dataframe
    node = (
        np.asarray(df.index.get_level_values("node"), dtype=INT) if df.index.nlevels == 1 else None
    )
    if node is not None and not pd.Series(node).duplicated().any():
        return {k: per_node(_check_numeric(df, k), node, n) for k in keys}
    # several rows per node: node_values' definition (rows summed per rank/thread, then the
    # mean over the rank/thread cells, 0 where an additive metric has no row), one layout
    for k in keys:
        _check_numeric(df, k)
    cells = rank_cells(data, keys, "threads")
    if matrices is not None:
        matrices[""] = cells
    return {k: cells.reduce(k, "mean") for k in keys}


def _stat_column(ens: Ensemble, key: str, n: int) -> np.ndarray:
    metric, _, stat = key.rpartition("_")
    if key not in ens.statsframe.columns:
        ens.stats([metric], stats=[stat])
    col = ens.statsframe[key]
    node = np.asarray(ens.statsframe.index.get_level_values("node"), dtype=INT)
    out = np.full(n, np.nan)
    out[node] = col.to_numpy(dtype=float, na_value=np.nan)
    return out


def profile_matrix(ens: Ensemble, metric: str) -> np.ndarray:
    """(nodes, profiles) values of ``metric``: each profile's mean over its ranks/threads
    (calltree.ranks.profile_means); NaN where a profile has no value for the node."""
    return profile_means(ens.dataframe, len(ens.graph), list(ens.profiles), metric)


def profile_categories(ens: Ensemble, color_by: str | None) -> tuple[np.ndarray, list[str]]:
    """Category code of each profile for a metadata column, and the category names."""
    p = len(ens.profiles)
    if color_by is None:
        return np.zeros(p, np.int32), []
    if color_by not in ens.metadata.columns:
        raise ShapeError(
            f"no metadata column {color_by!r}; columns: {', '.join(map(str, ens.metadata.columns))}"
        )
    values = ens.metadata[color_by]
    numbers = pd.to_numeric(values, errors="coerce")
    if numbers.notna().all():  # 27 < 64 < 125, not "125" < "27" < "64"
        codes, uniques = pd.factorize(numbers, sort=True)
        labels = [values[numbers == u].astype(str).iloc[0] for u in uniques]
        return codes.astype(np.int32), labels
    codes, names = pd.factorize(values.astype(str), sort=True)
    return codes.astype(np.int32), [str(x) for x in names]


def category_columns(ens: Ensemble, most: int = 12) -> list[str]:
    """Metadata columns that split the profiles into 2..``most`` groups (color choices)."""
    out = []
    for col in ens.metadata.columns:
        values = ens.metadata[col]
        if values.map(lambda v: isinstance(v, (list, dict, set))).any():
            continue
        if 2 <= values.astype(str).nunique() <= most:
            out.append(str(col))
    return out


def names_of(data: GraphFrame | Ensemble) -> np.ndarray:
    """Each graph node's name as ``tree()`` prints it (the core's node_names)."""
    return node_names(data.graph, data.dataframe)


@dataclass(frozen=True)
class Extras:
    """Extra per-node columns, keyed by call path so that they survive filters."""

    names: list[str]
    graph: Any  # the tree the rows of ``values`` are on
    node_names: np.ndarray  # its node names (the path keys' input)
    node: np.ndarray  # the node of ``graph`` of each row of ``values``
    values: dict[str, np.ndarray]  # float64 or object (text)
    sort: dict[str, np.ndarray]  # float64 sort key per column
    units: dict[str, str]  # unit of a numeric column, formatted like a metric's ("" none)

    @functools.cached_property
    def keys(self) -> np.ndarray:
        """The path key of each row of ``values``: computed when the columns are first
        shown on another tree (a filter, a focus), not on every replacement."""
        return path_keys(self.graph, self.node_names)[self.node]

    @classmethod
    def of(
        cls, frame: Any, sort_keys: Any, graph: Any, names: np.ndarray, units: Any = None
    ) -> Extras:
        if not isinstance(frame, pd.DataFrame):
            raise ShapeError(
                f"extra columns come as a pandas DataFrame indexed by node id, not "
                f"{type(frame).__name__}"
            )
        n = len(graph)
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
        return cls([str(c) for c in frame.columns], graph, names, node, values, sort, units)

    def on(
        self, graph: Any, names: np.ndarray
    ) -> tuple[list[Column], dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Columns, per-node values and sort keys on ``graph`` (matched by call path)."""
        if graph is self.graph:  # the tree they were given on: by node id
            at = np.full(len(graph), -1, INT)
            at[self.node] = np.arange(len(self.node))
        else:
            at = pd.Index(self.keys).get_indexer(path_keys(graph, names))
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


@dataclass(frozen=True)
class RankView:
    """A frame's spread over ranks (threads summed) or threads: the glyph's matrix, the
    excess and imbalance columns (calltree.ranks.rank_spread, as load_imbalance)."""

    spread: RankSpread
    unit: str = ""  # the metric's unit (GraphFrame.unit_of)

    @classmethod
    def of(
        cls, gf: GraphFrame, metric: str, matrices: dict | None = None, across: str | None = None
    ) -> RankView | None:
        """None for a frame without rank/thread levels (``matrices``: node_table's cells,
        reused when they compare the same units)."""
        if not gf.index_levels:
            return None
        across = check_across(gf.index_levels, across)
        cells = (matrices or {}).get("")
        same = cells is not None and metric in cells.values
        if not (same and (cells.across == across or len(gf.index_levels) == 1)):
            cells = rank_cells(gf, [metric], across)
        return cls(spread_of(cells, metric), gf.unit_of(metric))

    @property
    def metric(self) -> str:
        return self.spread.metric

    @property
    def matrix(self) -> np.ndarray:
        return self.spread.matrix

    @property
    def labels(self) -> list[str]:
        return self.spread.cells.labels

    @property
    def imbalance(self) -> np.ndarray:
        return self.spread.imbalance

    @property
    def columns(self) -> list[Column]:
        """The excess (max - mean, in the metric's unit) and the imbalance (max / mean),
        headers saying what is compared."""
        what = self.spread.what
        return [
            Column(f"{self.metric}.excess", f"{self.metric} excess ({what})", "excess", self.unit),
            Column(f"{self.metric}.imbalance", f"{self.metric} imbalance ({what})", "ratio"),
        ]

    def table(self) -> dict[str, np.ndarray]:
        return {
            f"{self.metric}.excess": self.spread.excess,
            f"{self.metric}.imbalance": self.spread.imbalance,
        }

    def glyph_state(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "unit": self.unit,
            "stat": "",
            "what": self.spread.cells.noun,
            "profiles": list(self.labels),
            "color_by": "",
            "categories": [],
            "codes": [0] * len(self.labels),
            "stats": [],
            "color_columns": [],
        }

    def top(self, node: int, name: str, most: int = 5) -> dict[str, Any]:
        """The details of a selected node: its ``most`` largest units, largest first."""
        spread = self.spread
        measured = spread.cells.measured[self.metric][node]
        row = self.matrix[node]
        ok = np.flatnonzero(measured & ~np.isnan(row))
        if not len(ok):
            return {}
        order = ok[np.argsort(-row[ok], kind="stable")][:most]
        mean = float(spread.mean[node])
        unit = self.unit
        fmt = column_format(row[order], unit)  # the lines are a column: one format
        lines = [f"{self.labels[i]}: {fmt.text(row[i])}{_times(row[i], mean)}" for i in order]
        cells = spread.cells
        units = len(self.labels)
        title = f"{name}: {self.metric} on its {units} {cells.noun}"
        if cells.noun == "ranks" and len(cells.levels) > 1:
            title += (
                ", threads summed" if cells.levels == ["rank", "thread"] else f" ({spread.what})"
            )
        if len(ok) < units:
            title += f" ({len(ok)} measured, the others 0)"
        title += ", largest first"
        if np.isfinite(spread.excess[node]) and np.isfinite(spread.imbalance[node]):
            title += (
                f" (excess {format_quantity(spread.excess[node], unit)}, imbalance "
                f"{spread.imbalance[node]:.2f}, efficiency {spread.efficiency[node]:.2f})"
            )
        return {"title": title, "lines": lines}


def _times(v: float, mean: float) -> str:
    return f" ({v / mean:.2f}× the mean)" if mean else ""
