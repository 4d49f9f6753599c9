"""Two profiles side by side: ``a - b`` on their union graph with each side's own values.

A difference alone hides what it is a difference of (a node 2 s slower: out of 3 s or out of
300 s?). :func:`side_by_side` keeps both: the result is ``a - b`` (every metric, on the union
graph, as ``GraphFrame.__sub__``) plus each side's value of every metric as ``<m> [a]`` and
``<m> [b]`` (an inclusive ``<m> (inc)`` becomes ``<m> [a] (inc)``), 0 where a side lacks the
node.
"""

from __future__ import annotations

import pandas as pd

from perfweave.calltree.column_names import side_name
from perfweave.calltree.graphframe import GraphFrame


def side_by_side(a: GraphFrame, b: GraphFrame) -> GraphFrame:
    """``a - b`` on the union graph, carrying each side's values (see the module text).

    Neither input changes. The result's metric lists hold the differences first, then the
    ``[a]`` and ``[b]`` columns.
    """
    a, b = a.copy(), b.copy()
    a.unify(b)
    diff = a - b
    metrics = list(dict.fromkeys(a.exc_metrics + a.inc_metrics))
    idx = diff.dataframe.index
    df = diff.dataframe.copy()
    for side, frame in (("a", a), ("b", b)):
        side_df = frame.dataframe.reindex(idx)
        for m in metrics:
            df[side_name(m, side)] = pd.to_numeric(side_df[m], errors="coerce").fillna(0.0)
    return GraphFrame(
        diff.graph,
        df,
        exc_metrics=a.exc_metrics + [side_name(m, s) for s in "ab" for m in a.exc_metrics],
        inc_metrics=a.inc_metrics + [side_name(m, s) for s in "ab" for m in a.inc_metrics],
        default_metric=diff.default_metric,
        metadata=dict(diff.metadata),
        units=a.units,
    )
