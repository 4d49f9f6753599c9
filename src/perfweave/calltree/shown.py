"""What a tree view shows of a frame: its inclusive columns and the metric it opens by.

**The rule** (one rule, used by ``tree()``, ``perfweave tree | convert`` and the
CalltreeExplorer): a frame that has *only exclusive* metrics (a Caliper sampling profile:
``time`` and ``count`` per sampled function; a Caliper call-path profile) is shown with the
inclusive column of each of them computed (``time (inc)``: a node's value plus all its
descendants', as ``update_inclusive_columns``), and the inclusive column of its default
metric becomes the frame's default. So an inner node of a sampling profile reads as the
time spent below it, not ``0``, and views sort and open the hot path by it.

A column that holds a point in time (:data:`POINTS_IN_TIME`, a trace event's start ``ts``)
is never summed, nor one that holds a statistic of a node's own instances (Caliper's
``min#time.duration``, ``max#...``, ``avg#...``: a sum of the maximums below a node is no
time spent anywhere; :func:`perfweave.calltree.ranks.is_additive`). A frame that has any inclusive metric is shown as it is: its exclusive
columns may be measured differently (an inclusive column recomputed from them could
disagree with the measured one). An inclusive column asked for by name (``tree("count
(inc)")``, ``perfweave tree --metric "count (inc)"``) is computed for any frame.

The user's frame is never changed: :func:`with_inclusive` returns a new frame (sharing the
graph) when it adds a column, else the frame itself.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from perfweave.calltree.graphframe import GraphFrame, inclusive_name
from perfweave.calltree.inclusive import subgraph_sums
from perfweave.calltree.ranks import is_additive

#: metric columns that hold a point in time, not an amount: never summed into an inclusive
#: column, never a view's default column (a trace event's start ``ts``, which Hatchet lists
#: among PerfFlowAspect's metrics)
POINTS_IN_TIME = frozenset({"ts"})


def is_amount(metric: object) -> bool:
    """Whether an exclusive metric adds up over a subtree, so that a view may show its
    inclusive column (its sum over the subtree): not a point in time, not a statistic of a
    node's own instances (:func:`~perfweave.calltree.ranks.is_additive`)."""
    return str(metric) not in POINTS_IN_TIME and is_additive(metric)


def _amounts(gf: GraphFrame) -> list[str]:
    """The exclusive metrics that can be summed over a subtree: numeric, not a time point,
    not a statistic of the node's own instances (Caliper's ``min#time.duration``,
    ``avg#time.duration``: a sum of the minimums or means below a node means nothing;
    :func:`~perfweave.calltree.ranks.is_additive`, the rule for ranks too)."""
    df = gf.dataframe
    return [
        m
        for m in gf.exc_metrics
        if is_amount(m)
        and m in df.columns
        and pd.api.types.is_numeric_dtype(df[m].dtype)
        and not pd.api.types.is_bool_dtype(df[m].dtype)
    ]


def with_inclusive(gf: GraphFrame, asked: Iterable[str] = ()) -> GraphFrame:
    """``gf`` with the inclusive columns a tree view shows (see the module docstring).

    When ``gf`` has no inclusive metric, every exclusive amount gets its inclusive column
    and the default metric's inclusive column becomes the default. ``asked`` names columns
    a view was asked to show: an inclusive column among them whose exclusive metric the
    frame has is computed too. Returns ``gf`` itself when nothing is missing.
    """
    amounts = _amounts(gf)
    derivable = {inclusive_name(m): m for m in amounts}
    columns = set(gf.dataframe.columns)
    wanted = [m for m in amounts if not gf.inc_metrics] + [
        derivable[a] for a in asked if a in derivable and a not in columns
    ]
    wanted = [m for m in dict.fromkeys(wanted) if inclusive_name(m) not in columns]
    if not wanted:
        return gf
    sums = subgraph_sums(gf.graph, gf.dataframe, wanted)
    df = gf.dataframe.copy()
    for m in wanted:
        df[inclusive_name(m)] = sums[m]
    out = gf._derive(gf.graph, df)
    out.inc_metrics = list(dict.fromkeys([inclusive_name(m) for m in wanted] + gf.inc_metrics))
    if not gf.inc_metrics and gf.default_metric in amounts:
        out.default_metric = inclusive_name(gf.default_metric)
    return out
