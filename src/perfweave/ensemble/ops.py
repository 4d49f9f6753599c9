"""Calltree operations on ensembles, delegated to the calltree core.

The performance table (index ``node, profile``) is handed to :class:`GraphFrame` as a
table whose profile level is one more "rank-like" level, so filter, squash and inclusive
sums work per profile exactly as they do per rank; the statistics table is reset when
the graph changes (its rows would no longer describe the same nodes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.graphframe import GraphFrame
from perfweave.ensemble import _table
from perfweave.ensemble.ensemble import Ensemble, new_statsframe
from perfweave.errors import ShapeError


def _as_graphframe(ens: Ensemble, dataframe: pd.DataFrame | None = None) -> GraphFrame:
    return GraphFrame(
        ens.graph,
        ens.dataframe if dataframe is None else dataframe,
        list(ens.exc_metrics),
        list(ens.inc_metrics),
        ens.default_metric,
    )


def _from_graphframe(ens: Ensemble, gf: GraphFrame) -> Ensemble:
    same = gf.graph is ens.graph
    out = ens._replace(
        graph=gf.graph,
        dataframe=gf.dataframe,
        exc_metrics=list(gf.exc_metrics),
        inc_metrics=list(gf.inc_metrics),
    )
    if not same:
        out.statsframe = new_statsframe(gf.graph, gf.dataframe)
    return out


def filter_rows(
    ens: Ensemble,
    predicate: Callable[[pd.Series], bool] | str | np.ndarray | pd.Series,
    squash: bool = True,
    update_inclusive_columns: bool = True,
    multi_index_mode: str = "off",
) -> Ensemble:
    """Keep the (node, profile) rows for which ``predicate`` holds (a row callable, a
    query string, a boolean mask or a call-path query), then squash the graph onto them."""
    if isinstance(ens.dataframe.columns, pd.MultiIndex):
        raise ShapeError("filter works on index ensembles; filter each part of a columns-concat")
    gf = _as_graphframe(ens).filter(
        predicate,
        squash=squash,
        update_inclusive_columns=update_inclusive_columns,
        multi_index_mode=multi_index_mode,
    )
    return _from_graphframe(ens, gf)


def squash(ens: Ensemble, update_inclusive_columns: bool = True) -> Ensemble:
    """Restrict the graph to the nodes that hold data in some profile (rows of nodes a
    profile does not have are not data), as Hatchet's and Thicket's ``squash``."""
    if isinstance(ens.dataframe.columns, pd.MultiIndex):
        raise ShapeError("squash works on index ensembles; squash each part of a columns-concat")
    df = ens.dataframe
    present = _table.present_nodes(df, len(ens.graph))
    node = np.asarray(df.index.get_level_values("node"), dtype=np.int64)
    if not present.any():
        raise ShapeError("squash: no node holds data, the ensemble would be empty")
    gf = _as_graphframe(ens, df[present[node]]).squash(update_inclusive_columns)
    return _from_graphframe(ens, gf)


def tree(
    ens: Ensemble,
    metric_column: Any = None,
    stat: str | None = None,
    indices: Any = None,
    **options: Any,
) -> str:
    """The calltree as text, showing statistics or one profile's values.

    A ``statsframe`` column (``"time_mean"``) is shown as it is. A column of the
    performance table (``"Avg time/rank"``) shows one profile's values, as Thicket's
    ``tree`` does: the first profile's, or those of ``indices`` (a profile id, or a tuple
    ``(profile, rank[, thread])``); the first line names the profile. With ``stat`` it
    shows that statistic over the profiles instead (``<column>_<stat>``, computed if
    missing). No column: the default metric's ``stat`` (``mean`` when not given).
    """
    columns: list[Any] = metric_column if isinstance(metric_column, list) else [metric_column]
    sf = ens.statsframe
    if metric_column is None and indices is None:
        stat = stat or "mean"
    if metric_column is None:
        columns = [ens.default_metric]
    in_stats = [c for c in columns if c in sf.columns]
    in_perf = [c for c in columns if c not in sf.columns and c in ens.dataframe.columns]
    if in_perf and (in_stats or len(in_perf) < len(columns)):
        raise ShapeError(
            f"tree(): {columns} mixes performance columns with others; show statistics "
            "columns or performance columns, not both"
        )
    if in_perf and stat is not None:
        if indices is not None:
            raise ShapeError("tree(): give stat= (over profiles) or indices= (one profile)")
        columns = [_stat_name(c, stat) for c in in_perf]
        todo = [c for c, s in zip(in_perf, columns) if s not in ens.statsframe.columns]
        if todo:
            ens.stats(todo, stats=[stat])
    elif in_perf:
        return _profile_tree(ens, in_perf, indices, options)
    missing = [c for c in columns if c not in ens.statsframe.columns]
    if missing:
        raise ShapeError(
            f"tree(): no column {missing[0]!r} in the statsframe or the performance "
            f"table (statsframe: {list(ens.statsframe.columns)[:12]}; "
            f"performance: {ens.performance_cols[:12]}); compute statistics with ens.stats()"
        )
    if indices is not None:
        raise ShapeError("tree(): indices= picks a profile; statsframe columns have none")
    gf = GraphFrame(ens.graph, pd.DataFrame(ens.statsframe), [], list(columns), columns[0])
    options.setdefault("context_column", None)
    return gf.tree(metric_column=columns if len(columns) > 1 else columns[0], **options)


def _stat_name(column: Any, stat: str) -> Any:
    """``<column>_<stat>``, under the same header for a columns-concat column."""
    if isinstance(column, tuple):
        return (*column[:-1], f"{column[-1]}_{stat}")
    return f"{column}_{stat}"


def _profile_tree(ens: Ensemble, columns: list[Any], indices: Any, options: dict) -> str:
    """One profile's values over the whole graph (a node it lacks shows NaN), as
    Thicket's ``tree(metric, indices=...)``; the first line names the profile."""
    picked = tuple(indices) if isinstance(indices, (tuple, list)) else (indices,)
    keys = len(ens.profile_levels)  # a multi-key agg's profile id is a tuple of its keys
    profile = picked[0] if keys == 1 else picked[:keys]
    if indices is None:
        profile = ens.profiles[0]
    if profile not in ens.metadata.index:
        raise ShapeError(
            f"tree(): no profile {profile!r} in this ensemble (indices= takes a profile id "
            f"such as {ens.profiles[0]!r}; ens.profiles lists them)"
        )
    levels = ens.index_levels
    extra = list(picked[keys:]) if indices is not None else []
    if len(extra) > len(levels):
        raise ShapeError(
            f"tree(): indices={indices!r} has {len(extra) + keys} values; this ensemble's "
            f"rows are indexed by {', '.join(map(str, ens.profile_levels + levels))}"
        )
    for level, value in zip(levels, extra):
        options.setdefault(level, value)
    rows = ens.dataframe.xs(profile, level=ens.profile_level, drop_level=True)
    shown = {"name", options.get("annotation_column")}  # Thicket's tree(annotation_column=)
    rows = rows[[c for c in rows.columns if c in columns or c in shown]]
    gf = GraphFrame(ens.graph, rows, [], list(columns), columns[0], units=ens.units)
    options.setdefault("context_column", None)
    position = ens.profiles.index(profile) + 1
    head = (
        f"# {columns[0]}: profile {ens.profile_label(profile)} ({position} of {len(ens)}"
        f"{'; indices= picks another' if indices is None and len(ens) > 1 else ''})\n"
    )
    text = gf.tree(metric_column=columns if len(columns) > 1 else columns[0], **options)
    if options.get("render_header"):
        first, _, rest = text.partition("\n\n")
        return f"{first}\n\n{head}{rest}"
    return head + text
