"""The transform steps of a calltree study: filter, squash, focus, drop.

Each step is data (a kind and its arguments), never code. :func:`replay` applies a list of
steps to a GraphFrame or Ensemble with the core's own operations, so
``replay(study.original, study.history)`` gives the frame a
:class:`~perfweave.calltree.study.CalltreeStudy` (and the explorer over it) shows. Node ids
in a step refer to the frame that step was applied to (the previous step's result).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfweave.calltree.query import parse
from perfweave.errors import GraphError, QueryError

KINDS = ("filter", "squash", "focus", "drop")


@dataclass(frozen=True)
class Step:
    """One transform: ``kind`` is filter, squash, focus or drop."""

    kind: str
    query: str | None = None
    node: int | None = None
    name: str | None = None
    subtree: bool = True
    squash: bool = True
    #: an ensemble filter on its statistics table (Ensemble.filter_stats)
    stats: bool = False

    @property
    def keeps_inclusive(self) -> bool:
        """A filter by a share (``> 5%``) keeps the measured inclusive values: recomputed
        after the squash they would shrink with every filter, so the same query typed
        twice would keep a different tree (its percentages no longer of the same total)."""
        if self.kind != "filter" or not self.squash:
            return False
        try:
            return parse(self.query or "").has_share
        except QueryError:  # a call-path query (MATCH ...) has no shares
            return False

    @property
    def label(self) -> str:
        """The step as a history list shows it."""
        if self.kind == "filter":
            extra = "" if self.squash else " (no squash)"
            if self.keeps_inclusive:
                extra = " (inclusive values as measured)"
            return f"filter {'statistics ' if self.stats else ''}{self.query}{extra}"
        if self.kind == "squash":
            return "squash"
        if self.kind == "focus":
            return f"focus {self.name}"
        what = "subtree" if self.subtree else "node"
        return f"drop {what} {self.name}"

    def apply(self, data: Any) -> Any:
        """The frame (GraphFrame or Ensemble) after this step; ``data`` is not changed."""
        if self.kind == "filter" and self.stats:
            from perfweave.ensemble.ensemble import Ensemble
            from perfweave.ensemble.filter import with_statistics

            if not isinstance(data, Ensemble):
                raise QueryError("a statistics filter needs an ensemble")
            data = with_statistics(data, parse(self.query or "").columns)
            return data.filter_stats(self.query, not self.keeps_inclusive)
        if self.kind == "filter":
            # a call-path query's predicates on data hold for a node when one of its
            # rows (ranks, profiles) satisfies them
            return data.filter(
                self.query,
                squash=self.squash,
                update_inclusive_columns=not self.keeps_inclusive,
                multi_index_mode="any",
            )
        if self.kind == "squash":
            return data.squash()
        if self.kind in ("focus", "drop"):
            return data.filter(_node_mask(data, self))
        raise QueryError(f"unknown transform step {self.kind!r}; the kinds are {', '.join(KINDS)}")


def _node_mask(data: Any, step: Step) -> np.ndarray:
    graph = data.graph
    if step.node is None or not 0 <= step.node < len(graph):
        raise GraphError(f"no node {step.node} in a graph of {len(graph)} nodes")
    chosen = np.zeros(len(graph), bool)
    chosen[graph.subtree(step.node) if step.kind == "focus" or step.subtree else step.node] = True
    node = np.asarray(data.dataframe.index.get_level_values("node"), dtype=np.int64)
    keep = chosen[node]
    return keep if step.kind == "focus" else ~keep


def replay(data: Any, steps: Sequence[Step]) -> Any:
    """Apply ``steps`` in order to ``data`` (a GraphFrame or Ensemble, which is not changed)."""
    for step in steps:
        data = step.apply(data)
    return data


__all__ = ["Step", "replay"]
