"""Calltree operations on ensembles, delegated to the calltree core.

The performance table (index ``node, profile``) is handed to :class:`GraphFrame` as a
table whose profile level is one more "rank-like" level, so filter, squash and inclusive
sums work per profile exactly as they do per rank; the statistics table is reset when
the graph changes (its rows would no longer describe the same nodes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    stat: str = "mean",
    **options: Any,
) -> str:
    """The calltree as text, showing a statistic from ``statsframe``.

    ``metric_column`` names a statsframe column (``"time_mean"``); by default it is
    ``<default metric>_<stat>``, computed first if the statsframe does not have it yet.
    """
    columns: Sequence[Any]
    columns = [metric_column] if not isinstance(metric_column, list) else metric_column
    if metric_column is None:
        base = ens.default_metric
        columns = [f"{base}_{stat}"]
        if columns[0] not in ens.statsframe.columns:
            ens.stats([base], stats=[stat])
    missing = [c for c in columns if c not in ens.statsframe.columns]
    if missing:
        raise ShapeError(
            f"statsframe has no column {missing[0]!r}; compute it with ens.stats() "
            f"(statsframe columns: {list(ens.statsframe.columns)[:12]})"
        )
    gf = GraphFrame(ens.graph, ens.statsframe, [], list(columns), columns[0])
    options.setdefault("context_column", None)
    return gf.tree(metric_column=columns if len(columns) > 1 else columns[0], **options)
