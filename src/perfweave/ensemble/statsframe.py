"""The statistics table of an ensemble: a DataFrame that also answers Thicket's calls.

Thicket's ``statsframe`` is a GraphFrame: tutorials read ``th.statsframe.dataframe`` and
print ``th.statsframe.tree(column)``. perfweave's ``ens.statsframe`` stays a DataFrame
(one row per node, indexed ``node``), so every pandas habit works on it, and it also has
those two names: ``.dataframe`` is the table itself (writing a column through it writes
it into the ensemble's statistics, as in Thicket) and ``.tree(column)`` is
``ens.tree(column)``. Tables derived from it (a selection, a copy) are plain DataFrames.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from perfweave.errors import ShapeError

if TYPE_CHECKING:  # pragma: no cover
    from perfweave.calltree.graph import Graph
    from perfweave.ensemble.ensemble import Ensemble


class StatsFrame(pd.DataFrame):
    """One row per node of an ensemble's graph: ``name``, then statistics across profiles."""

    _metadata = ["_ensemble"]

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame  # a selection or a copy no longer belongs to the ensemble

    @property
    def dataframe(self) -> StatsFrame:
        """The table itself (Thicket's ``statsframe.dataframe``)."""
        return self

    @property
    def graph(self) -> Graph:
        """The ensemble's calltree, whose node ids index this table."""
        return self._owner().graph

    def tree(self, metric_column: Any = None, **options: Any) -> str:
        """The calltree showing statistics columns (Thicket's ``statsframe.tree``);
        ``metric_column`` defaults to the first statistic. Options as
        :meth:`Ensemble.tree`."""
        if metric_column is None:
            stats = [c for c in self.columns if c not in ("name", ("name", ""))]
            if not stats:
                raise ShapeError(
                    "statsframe.tree(): the statsframe holds no statistics yet; compute "
                    "some with ens.stats() or perfweave.ensemble.stats.mean(ens, columns=[...])"
                )
            metric_column = stats[0]
        cols = metric_column if isinstance(metric_column, list) else [metric_column]
        missing = [c for c in cols if c not in self.columns]
        if missing:
            raise ShapeError(
                f"statsframe.tree(): no column {missing[0]!r} in the statsframe "
                f"(columns: {list(self.columns)[:12]}); compute it with ens.stats()"
            )
        from perfweave.calltree.graphframe import GraphFrame

        graph = self.graph
        if len(self) != len(graph) or not (self.index == range(len(graph))).all():
            raise ShapeError(
                f"statsframe.tree(): the table has {len(self)} rows, not one per node "
                f"0..{len(graph) - 1} of the ensemble's calltree"
            )
        gf = GraphFrame(graph, pd.DataFrame(self), [], cols, cols[0])
        options.setdefault("context_column", None)
        return gf.tree(metric_column=cols if len(cols) > 1 else cols[0], **options)

    def _owner(self) -> Ensemble:
        owner = getattr(self, "_ensemble", None)
        if owner is None:
            raise ShapeError("this statistics table belongs to no ensemble")
        return owner


def bind(table: pd.DataFrame, ensemble: Ensemble) -> StatsFrame:
    """``table`` as the statistics table of ``ensemble`` (its data shared, not copied)."""
    out = StatsFrame(table, copy=False)
    object.__setattr__(out, "_ensemble", ensemble)
    return out
