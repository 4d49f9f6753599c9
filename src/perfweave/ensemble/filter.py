"""Filtering an ensemble by its statistics: ``filter_stats`` and ``query_stats``.

Thicket's semantics: a predicate chooses nodes by their row of the statistics table, and
the choice reaches every part at once (thicket#147): the graph is squashed onto the kept
nodes (each wired to its nearest kept ancestor, siblings with equal frames merged, as
:meth:`Graph.squash`), the performance table keeps those nodes' rows (inclusive metrics
recomputed unless told not to) and the statistics table keeps their rows, carried over
unchanged and renumbered with the graph. Where a squash merges nodes, their statistics no
longer describe one node: they become NaN and a warning says how many (recompute them
with ``ens.stats``).

A predicate is a callable on one statistics row (``row.name`` is the node id; run once on
whole columns where that means the same, see :mod:`perfweave.calltree.row_filter`), a
query string of :mod:`perfweave.calltree.query` (parsed, never evaluated:
```` `Avg time/rank_std` > 0.1 ````), or a boolean mask over the nodes. ``query_stats``
also takes a call-path query (an object-dialect list, a ``MATCH`` string or a
:mod:`perfweave.calltree.path_query` object) matched against the statistics table, which
is what Thicket's ``query_stats`` takes.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree import query
from perfweave.calltree.graphframe import (
    GraphFrame,
    combine_duplicates,
    inclusive_name,
    reindex_nodes,
)
from perfweave.calltree.inclusive import subgraph_sums
from perfweave.calltree.path_query import is_path_query, path_query
from perfweave.calltree.row_filter import row_mask
from perfweave.ensemble import _table
from perfweave.ensemble.ensemble import Ensemble, _remap_nodes
from perfweave.ensemble.stats import STATS
from perfweave.errors import PerfweaveWarning, QueryError, ShapeError

INT = np.int64


def node_mask(ens: Ensemble, predicate: Any, multi_index_mode: str = "off") -> np.ndarray:
    """Boolean mask over the nodes: the statistics rows for which ``predicate`` holds."""
    sf = ens.statsframe
    n = len(ens.graph)
    if len(sf) != n or not np.array_equal(np.asarray(sf.index, dtype=INT), np.arange(n)):
        raise ShapeError(
            f"the statistics table has {len(sf)} rows for {n} nodes; it must hold one row "
            "per node in node order"
        )
    if is_path_query(predicate):
        gf = GraphFrame(ens.graph, sf, [], [], None)
        return path_query(predicate, multi_index_mode).node_mask(gf)
    if isinstance(predicate, str):
        parsed = query.parse(predicate)
        roots = np.zeros(n, bool)
        roots[ens.graph.root_ids] = True
        return parsed.mask(sf, roots if parsed.has_share else None)
    if callable(predicate):
        return row_mask(sf, predicate)
    if isinstance(predicate, (np.ndarray, pd.Series, list)):
        mask = np.asarray(predicate, dtype=bool)
        if mask.shape != (n,):
            raise ShapeError(f"boolean mask of shape {mask.shape} for {n} nodes")
        return mask
    raise QueryError(
        "filter_stats takes a callable on a statistics row, a query string or a boolean "
        f"mask over the nodes, not {type(predicate).__name__}"
    )


def keep_nodes(ens: Ensemble, keep: np.ndarray, update_inclusive_columns: bool = True) -> Ensemble:
    """The ensemble on the kept nodes: graph squashed, both tables renumbered with it."""
    if not keep.any():
        raise QueryError("the statistics filter kept no node: the result would be empty")
    graph, old_to_new = ens.graph.squash(keep)
    kept_ids = old_to_new[keep]
    merged = len(graph) < len(kept_ids)
    dense = not merged and _table.is_dense(ens.dataframe, len(ens.graph), len(ens.metadata))
    if dense:
        old_of_new = np.empty(len(graph), INT)
        old_of_new[kept_ids] = np.flatnonzero(keep)
        df = _dense_rows(ens, old_of_new)
        sf = ens.statsframe.take(old_of_new)
        sf.index = pd.Index(np.arange(len(graph), dtype=INT), name="node")
    else:
        df = _rows(ens, old_to_new, merged)
        sf = _stats_rows(ens.statsframe, old_to_new, graph, merged)
    inc = list(ens.inc_metrics)
    if update_inclusive_columns and ens.exc_metrics:
        names = [_inclusive_label(m) for m in ens.exc_metrics]
        sums = subgraph_sums(graph, df, list(ens.exc_metrics))
        df = df.copy(deep=False)
        for exc, name in zip(ens.exc_metrics, names):
            df[name] = sums[exc]
        inc = list(dict.fromkeys(names + [m for m in inc if m not in names]))
    return ens._replace(graph=graph, dataframe=df, statsframe=sf, inc_metrics=inc)


def _inclusive_label(metric: Any) -> Any:
    """``x (inc)`` for ``x``; ``(header, x (inc))`` in a columns-concat table."""
    if isinstance(metric, tuple):
        return (*metric[:-1], inclusive_name(metric[-1]))
    return inclusive_name(metric)


def _dense_rows(ens: Ensemble, old_of_new: np.ndarray) -> pd.DataFrame:
    """The dense table's rows of the kept nodes, in the new numbering: one take per column
    (node ``j``'s rows are old node ``old_of_new[j]``'s, profile by profile)."""
    df = ens.dataframe
    p = len(ens.metadata)
    src = (old_of_new[:, None] * p + np.arange(p, dtype=INT)).ravel()
    columns = {c: df[c].array.take(src) for c in df.columns}
    index = _table.dense_index(len(old_of_new), list(df.index.levels[1]), ens.profile_level)
    out = pd.DataFrame(columns, index=index, copy=False)
    out.columns = df.columns
    return out


def _rows(ens: Ensemble, old_to_new: np.ndarray, merged: bool) -> pd.DataFrame:
    """Any table's rows of the kept nodes, renumbered; merged nodes' rows combined."""
    if not merged:
        return _remap_nodes(ens.dataframe, old_to_new)
    df = reindex_nodes(ens.dataframe, old_to_new)
    if df.index.has_duplicates:
        df = combine_duplicates(df, set(ens.exc_metrics + ens.inc_metrics))
    return df


def _stats_rows(sf: pd.DataFrame, old_to_new: np.ndarray, graph, merged: bool) -> pd.DataFrame:
    """The kept statistics rows on the new node ids; merged nodes' statistics are NaN."""
    if not merged:
        return _remap_nodes(sf, old_to_new).sort_index()  # node order, on every pandas
    new = old_to_new[np.asarray(sf.index, dtype=INT)]
    rows = sf[new >= 0]
    new = new[new >= 0]
    counts = np.bincount(new, minlength=len(graph))
    first = ~pd.Index(new).duplicated()
    out = rows[first].copy()
    out.index = pd.Index(new[first], name="node")
    out = out.sort_index()
    multi = counts[np.asarray(out.index, dtype=INT)] > 1
    for col in out.columns:
        if _plain(col) == "name":
            continue
        out[col] = out[col].where(~multi) if out[col].dtype != object else out[col].mask(multi)
    warnings.warn(
        f"the squash merged {int((counts > 1).sum())} groups of nodes (siblings with equal "
        "frames); their statistics are NaN: recompute them with ens.stats()",
        PerfweaveWarning,
        stacklevel=5,  # the caller of Ensemble.filter_stats / query_stats
    )
    return out


def _plain(col: Any) -> Any:
    return col[0] if isinstance(col, tuple) else col


def filter_stats(
    ens: Ensemble,
    predicate: Callable[[pd.Series], bool] | str | np.ndarray,
    update_inclusive_columns: bool = True,
) -> Ensemble:
    """See :meth:`Ensemble.filter_stats`."""
    return keep_nodes(ens, node_mask(ens, predicate), update_inclusive_columns)


def query_stats(
    ens: Ensemble,
    query_obj: Any,
    squash: bool = True,
    update_inclusive_columns: bool = True,
    multi_index_mode: str = "off",
) -> Ensemble:
    """See :meth:`Ensemble.query_stats`."""
    keep = node_mask(ens, query_obj, multi_index_mode)
    if squash:
        return keep_nodes(ens, keep, update_inclusive_columns)
    if not keep.any():
        raise QueryError("the statistics query kept no node: the result would be empty")
    node = np.asarray(ens.dataframe.index.get_level_values("node"), dtype=INT)
    sf = ens.statsframe[keep]
    return ens._replace(dataframe=ens.dataframe[keep[node]], statsframe=sf)


def statistic_columns(ens: Ensemble, predicate: str) -> list[str]:
    """The columns of the query string ``predicate`` that are statistics across profiles
    (``Avg time/rank_std``: in the stats table, or ``<metric>_<stat>`` computable by
    :meth:`Ensemble.stats`), [] for a query on the performance table or a call-path query.
    A query mixing both kinds is refused: its rows would come from two tables."""
    try:
        columns = query.parse(predicate).columns
    except QueryError:
        return []  # a call-path query (MATCH ...): on the performance table
    perf = {str(c) for c in ens.dataframe.columns} | set(map(str, ens.dataframe.index.names))
    stats = {str(c) for c in ens.statsframe.columns} - {"name"}
    named = [c for c in columns if c in stats or (c not in perf and _computable(ens, c))]
    rest = [c for c in columns if c not in named and c != "name"]
    if named and rest:
        raise QueryError(
            f"query {predicate!r}: {named[0]!r} is a statistic across profiles and {rest[0]!r} "
            "a value per profile; filter by one kind at a time"
        )
    return named


def with_statistics(ens: Ensemble, columns: Any) -> Ensemble:
    """``ens`` with the ``<metric>_<stat>`` columns of ``columns`` that its stats table
    lacks computed, on a copy (``ens`` itself is not changed)."""
    have = {str(c) for c in ens.statsframe.columns}
    missing = [c for c in map(str, columns) if c not in have and _computable(ens, c)]
    if not missing:
        return ens
    out = ens._replace()
    for column in missing:
        metric, _, stat = column.rpartition("_")
        out.stats([metric], stats=[stat])
    return out


def _computable(ens: Ensemble, column: str) -> bool:
    metric, _, stat = column.rpartition("_")
    return stat in STATS and metric in {str(c) for c in ens.performance_cols}
