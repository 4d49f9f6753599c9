"""Per-node statistics across profiles, and correlation of a metric with metadata
(Pearson, Spearman or Kendall's tau-b).

Missing values (a node a profile does not have) are skipped, as pandas does; ``std`` and
``var`` are sample statistics (ddof=1), matching Thicket. A dense ensemble (every node x
every profile, the layout perfweave builds) is reshaped to a (nodes, profiles) matrix and
reduced with numpy; any other table goes through one pandas groupby.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from perfweave.ensemble import _table
from perfweave.ensemble.ensemble import Ensemble
from perfweave.errors import MetadataError, ShapeError

STATS = ("mean", "median", "std", "var", "min", "max", "count", "sum")
INT = np.int64


def _check_columns(ens: Ensemble, columns: Sequence[Any] | None, what: str = "column") -> list[Any]:
    """The numeric performance columns asked for (``None``: the metrics), each checked;
    ``what`` names them in the errors."""
    if columns is None:
        columns = [c for c in ens.performance_cols if c in ens.exc_metrics + ens.inc_metrics]
        columns = columns or ens.performance_cols
    columns = [columns] if isinstance(columns, (str, tuple)) else list(columns)
    for c in columns:
        if c not in ens.dataframe.columns:
            raise ShapeError(
                f"no {what} {c!r} in the performance table (numeric columns: "
                f"{ens.performance_cols[:12]})"
            )
        if not pd.api.types.is_numeric_dtype(ens.dataframe[c].dtype):
            raise ShapeError(f"{what} {c!r} is not numeric ({ens.dataframe[c].dtype})")
    return columns


def _is_dense(ens: Ensemble) -> bool:
    """Whether the table has exactly one row per (node, profile), in dense order."""
    return _table.is_dense(ens.dataframe, len(ens.graph), len(ens.metadata))


def _matrix(ens: Ensemble, column: Any) -> np.ndarray:
    """The (nodes, profiles) matrix of a column of a dense table (see :func:`_is_dense`)."""
    n, p = len(ens.graph), len(ens.metadata)
    return np.asarray(ens.dataframe[column].to_numpy(dtype=float, na_value=np.nan)).reshape(n, p)


def _name(column: Any, suffix: str) -> Any:
    if isinstance(column, tuple):
        return (*column[:-1], f"{column[-1]}_{suffix}")
    return f"{column}_{suffix}"


def compute_stats(
    ens: Ensemble,
    columns: Sequence[Any] | None = None,
    stats: Sequence[str] = ("mean", "median", "std", "var", "min", "max", "count"),
    percentiles: Sequence[float] = (),
) -> list[Any]:
    """See :meth:`Ensemble.stats`. Adds columns to ``ens.statsframe`` and returns them."""
    columns = _check_columns(ens, columns)
    bad = [s for s in stats if s not in STATS]
    if bad:
        raise ShapeError(f"unknown statistic {bad[0]!r}; choose from {', '.join(STATS)}")
    for q in percentiles:
        if not 0.0 <= q <= 1.0:
            raise ShapeError(f"percentile {q} is outside [0, 1]")
    out: dict[Any, np.ndarray] = {}
    n = len(ens.graph)
    dense = _is_dense(ens)
    for col in columns:
        if dense:
            out.update(_dense_stats(col, _matrix(ens, col), stats, percentiles))
        else:
            out.update(_grouped_stats(ens, col, n, stats, percentiles))
    return _set(ens, out)


def _set(ens: Ensemble, values: dict[Any, Any]) -> list[Any]:
    """Add ``values`` (name -> one value per node) to ``ens.statsframe``; their names."""
    sf = ens.statsframe.copy(deep=False)
    for k, v in values.items():
        sf[k] = v
    ens.statsframe = sf
    return list(values)


def _dense_stats(col, mat, stats, percentiles) -> dict[Any, np.ndarray]:
    out: dict[Any, np.ndarray] = {}
    valid = ~np.isnan(mat)
    count = valid.sum(axis=1)
    cache: list[np.ndarray] = []
    var: np.ndarray | None = None

    def ordered() -> np.ndarray:  # each row sorted once, NaN last
        if not cache:
            cache.append(np.sort(mat, axis=1))
        return cache[0]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows give NaN
        for s in stats:
            if s == "mean":
                v = np.nanmean(mat, axis=1)
            elif s == "median":
                v = _row_quantiles(ordered(), count, [0.5])[0]
            elif s in ("std", "var"):  # the variance once for both
                if var is None:
                    var = np.nanvar(mat, axis=1, ddof=1)
                v = np.sqrt(var) if s == "std" else var
            elif s == "min":
                v = np.nanmin(mat, axis=1)
            elif s == "max":
                v = np.nanmax(mat, axis=1)
            elif s == "sum":
                v = np.nansum(mat, axis=1)
            else:
                v = count.astype(INT)
            if s in ("std", "var"):
                v = np.where(count > 1, v, np.nan)
            out[_name(col, s)] = v
        if len(percentiles):
            qs = _row_quantiles(ordered(), count, percentiles)
            for q, row in zip(percentiles, qs):
                out[_name(col, f"percentiles_{int(q * 100)}")] = row
    return out


def _row_quantiles(ordered: np.ndarray, count: np.ndarray, qs: Sequence[float]) -> np.ndarray:
    """Linear-interpolation quantiles of each row's valid values (rows sorted, NaN last),
    as numpy's default method, in a few whole-matrix steps (``nanpercentile`` loops over
    rows once any NaN is present)."""
    out = np.full((len(qs), len(ordered)), np.nan)
    has = count > 0
    if not has.any():
        return out
    rows = np.flatnonzero(has)
    k = count[has]
    for j, q in enumerate(qs):
        pos = q * (k - 1)
        lo = np.floor(pos).astype(INT)
        hi = np.minimum(lo + 1, k - 1)
        a, b = ordered[rows, lo], ordered[rows, hi]
        out[j, rows] = a + (b - a) * (pos - lo)
    return out


def _grouped_stats(ens, col, n, stats, percentiles) -> dict[Any, np.ndarray]:
    series = ens.dataframe[col].astype(float)
    node = np.asarray(ens.dataframe.index.get_level_values("node"), dtype=INT)
    grouped = series.groupby(node)
    out: dict[Any, np.ndarray] = {}
    for s in stats:
        res = grouped.agg(s)
        full = np.full(n, 0 if s == "count" else np.nan)
        full[np.asarray(res.index, dtype=INT)] = res.to_numpy()
        out[_name(col, s)] = full.astype(INT) if s == "count" else full
    for q in percentiles:
        res = grouped.quantile(q)
        full = np.full(n, np.nan)
        full[np.asarray(res.index, dtype=INT)] = res.to_numpy()
        out[_name(col, f"percentiles_{int(q * 100)}")] = full
    return out


def correlate(ens: Ensemble, metric: Any, against: Any, method: str = "pearson") -> Any:
    """See :meth:`Ensemble.correlate`. Returns the new statsframe column name."""
    if method not in ("pearson", "spearman", "kendall"):
        raise ShapeError(
            f"correlation method {method!r}: choose 'pearson', 'spearman' or 'kendall'"
        )
    (metric,) = _check_columns(ens, [metric])
    n, p = len(ens.graph), len(ens.metadata)
    dense = _is_dense(ens)
    x = _wide(ens, metric, dense)
    if against in ens.dataframe.columns:
        y = _wide(ens, _check_columns(ens, [against])[0], dense)
    elif against in ens.metadata.columns:
        vals = pd.to_numeric(ens.metadata[against], errors="coerce").to_numpy(dtype=float)
        if np.isnan(vals).all():
            raise MetadataError(f"metadata column {against!r} has no numeric value")
        y = np.broadcast_to(vals, (n, p))
    else:
        raise MetadataError(f"{against!r} is neither a performance column nor a metadata column")
    valid = ~np.isnan(x) & ~np.isnan(y)
    x = np.where(valid, x, np.nan)
    y = np.where(valid, y, np.nan)
    if method == "kendall":
        r = _kendall_rows(x, y, valid)
    else:
        if method == "spearman":
            x = pd.DataFrame(x).rank(axis=1).to_numpy()
            y = pd.DataFrame(y).rank(axis=1).to_numpy()
        r = _pearson_rows(x, y, valid)
    name = f"{_plain(metric)}_vs_{_plain(against)} {method}"
    if isinstance(metric, tuple) and isinstance(against, tuple) and metric[0] != against[0]:
        name = ("Union statistics", name)  # two headers' columns: Thicket's header
    elif isinstance(metric, tuple):
        name = (*metric[:-1], name)
    _set(ens, {name: r})
    return name


def _plain(label: Any) -> str:
    return label[-1] if isinstance(label, tuple) else str(label)


def _wide(ens: Ensemble, column: Any, dense: bool) -> np.ndarray:
    if dense:
        return _matrix(ens, column)
    df = ens.dataframe
    if ens.index_levels:
        raise ShapeError(
            f"{column!r} has several rows per (node, profile): this statistic needs one; "
            "drop the rank/thread levels first"
        )
    node = np.asarray(df.index.get_level_values("node"), dtype=INT)
    pos = _table.profile_positions(df, ens.metadata.index)
    out = np.full((len(ens.graph), len(ens.metadata)), np.nan)
    out[node, pos] = df[column].to_numpy(dtype=float, na_value=np.nan)
    return out


def _pearson_rows(x: np.ndarray, y: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Pearson r of each row pair over its valid entries (NaN with < 2 or no spread)."""
    k = valid.sum(axis=1)
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        xm = np.nanmean(x, axis=1, keepdims=True)
        ym = np.nanmean(y, axis=1, keepdims=True)
        dx, dy = np.where(valid, x - xm, 0.0), np.where(valid, y - ym, 0.0)
        num = (dx * dy).sum(axis=1)
        den = np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))
        r = num / den
    r[(k < 2) | (den == 0)] = np.nan
    return np.clip(r, -1.0, 1.0)


def _kendall_rows(x: np.ndarray, y: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row pair over its valid entries (scipy's ``kendalltau``
    default): the sum of concordance signs over all pairs of profiles, divided by the
    square root of the counts of pairs untied in x and in y. One pass per profile."""
    n, p = x.shape
    s = np.zeros(n)
    untied_x = np.zeros(n)
    untied_y = np.zeros(n)
    xv, yv = np.where(valid, x, 0.0), np.where(valid, y, 0.0)
    for i in range(p - 1):
        both = valid[:, i : i + 1] & valid[:, i + 1 :]
        sx = np.sign(xv[:, i : i + 1] - xv[:, i + 1 :]) * both
        sy = np.sign(yv[:, i : i + 1] - yv[:, i + 1 :]) * both
        s += (sx * sy).sum(axis=1)
        untied_x += (sx != 0).sum(axis=1)
        untied_y += (sy != 0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = s / np.sqrt(untied_x * untied_y)
    tau[(valid.sum(axis=1) < 2) | (untied_x == 0) | (untied_y == 0)] = np.nan
    return np.clip(tau, -1.0, 1.0)


# ---------------------------------------------------------------------- Thicket's names
# ``thicket.stats.<function>(th, columns=[...])`` as functions of an ensemble, so a
# tutorial's cells run as written; each adds its columns to ``ens.statsframe`` and returns
# their names, as :meth:`Ensemble.stats` does.


def mean(ens: Ensemble, columns: Sequence[Any] | None = None) -> list[Any]:
    """``<column>_mean`` per node (Thicket's ``stats.mean``)."""
    return compute_stats(ens, columns, ["mean"])


def median(ens: Ensemble, columns: Sequence[Any] | None = None) -> list[Any]:
    """``<column>_median`` per node (Thicket's ``stats.median``)."""
    return compute_stats(ens, columns, ["median"])


def std(ens: Ensemble, columns: Sequence[Any] | None = None) -> list[Any]:
    """``<column>_std``, the sample standard deviation (Thicket's ``stats.std``)."""
    return compute_stats(ens, columns, ["std"])


def variance(ens: Ensemble, columns: Sequence[Any] | None = None) -> list[Any]:
    """``<column>_var``, the sample variance (Thicket's ``stats.variance``)."""
    return compute_stats(ens, columns, ["var"])


def minimum(ens: Ensemble, columns: Sequence[Any] | None = None) -> list[Any]:
    """``<column>_min`` per node (Thicket's ``stats.minimum``)."""
    return compute_stats(ens, columns, ["min"])


def maximum(ens: Ensemble, columns: Sequence[Any] | None = None) -> list[Any]:
    """``<column>_max`` per node (Thicket's ``stats.maximum``)."""
    return compute_stats(ens, columns, ["max"])


def percentiles(
    ens: Ensemble,
    columns: Sequence[Any] | None = None,
    percentiles: Sequence[float] = (0.25, 0.5, 0.75),
) -> list[Any]:
    """``<column>_percentiles_<q*100>`` per node (Thicket's ``stats.percentiles``)."""
    return compute_stats(ens, columns, [], percentiles)


def correlation_nodewise(
    ens: Ensemble, column1: Any = None, column2: Any = None, correlation: str = "pearson"
) -> list[Any]:
    """Per-node correlation of two columns (Thicket's ``stats.correlation_nodewise``):
    :meth:`Ensemble.correlate`, its one column name in a list."""
    if column1 is None or column2 is None:
        raise ShapeError(
            f"correlation_nodewise needs column1 and column2 (performance columns: "
            f"{ens.performance_cols[:12]})"
        )
    return [correlate(ens, column1, column2, correlation)]
