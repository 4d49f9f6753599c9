"""GraphFrame: a calltree (Graph) plus a pandas DataFrame of metrics indexed by node.

The dataframe's index is ``node`` (integer ids of ``graph``'s nodes), followed by ``rank``
and/or ``thread`` where the data has them. Operations follow Hatchet's semantics and
return new objects; the arrays behind them are vectorised (see DESIGN.md).
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.graph import Graph, Node
from perfweave.errors import ShapeError


def _reader(fmt: str, doc: str):
    def from_format(cls, path, **options):
        from perfweave.calltree.readers import reader

        return reader(fmt).read(path, **options)

    from_format.__doc__ = doc
    return classmethod(from_format)


class GraphFrame:
    """A graph of calltree nodes and a DataFrame of their metrics."""

    def __init__(
        self,
        graph: Graph,
        dataframe: pd.DataFrame,
        exc_metrics: Sequence[str] | None = None,
        inc_metrics: Sequence[str] | None = None,
        default_metric: str = "time",
        metadata: dict | None = None,
    ) -> None:
        if "node" not in dataframe.index.names:
            raise ShapeError("a GraphFrame's dataframe must be indexed by 'node'")
        self.graph = graph
        self.dataframe = dataframe
        self.exc_metrics = list(exc_metrics or [])
        self.inc_metrics = list(inc_metrics or [])
        self.default_metric = default_metric
        self.metadata = dict(metadata or {})

    # ------------------------------------------------------------------ readers
    from_caliper = _reader(
        "caliper", "Read a Caliper json-split file (cali-query -q 'format json-split')."
    )
    from_cali = _reader("cali", "Read a native Caliper .cali file (through caliper-reader).")
    from_caliperreader = from_cali
    from_hpctoolkit = _reader(
        "hpctoolkit", "Read an HPCToolkit database directory (experiment.xml + *.metric-db)."
    )
    from_gprof_dot = _reader("gprof-dot", "Read a gprof2dot DOT call graph.")
    from_cprofile = _reader("cprofile", "Read a Python cProfile/pstats file.")
    from_pyinstrument = _reader("pyinstrument", "Read a pyinstrument JSON profile.")
    from_timemory = _reader("timemory", "Read a timemory JSON tree.")
    from_tau = _reader("tau", "Read a TAU profile directory (profile.R.C.T files).")
    from_json = _reader(
        "hatchet-json",
        "Read Hatchet's GraphFrame JSON (to_json's format); a path or a JSON string.",
    )
    from_literal = _reader(
        "literal",
        "Build from Hatchet's literal format (a list of nested dicts) or a JSON file of it.",
    )

    @classmethod
    def from_dict(cls, spec: dict) -> GraphFrame:
        """Inverse of :meth:`to_dict`."""
        from perfweave.calltree.readers.hatchet_json import from_dict

        return from_dict(spec)

    @classmethod
    def from_lists(cls, *lists: Any) -> GraphFrame:
        """A GraphFrame over ``Graph.from_lists(*lists)`` with a zero ``time`` metric."""
        graph = Graph.from_lists(*lists)
        return cls._zeros(graph)

    @classmethod
    def _zeros(cls, graph: Graph) -> GraphFrame:
        n = len(graph)
        df = pd.DataFrame(
            {
                "name": graph.frames["name"].to_numpy(),
                "time": np.zeros(n),
                "time (inc)": np.zeros(n),
            },
            index=pd.Index(np.arange(n, dtype=np.int64), name="node"),
        )
        return cls(graph, df, ["time"], ["time (inc)"], "time")

    # ------------------------------------------------------------------ basics
    @property
    def index_levels(self) -> list[str]:
        """Index levels besides ``node`` (``rank``, ``thread``)."""
        return [n for n in self.dataframe.index.names if n != "node"]

    def node_ids(self) -> np.ndarray:
        """The node id of every dataframe row."""
        return np.asarray(self.dataframe.index.get_level_values("node"), dtype=np.int64)

    def show_metric_columns(self) -> list[str]:
        return list(self.exc_metrics + self.inc_metrics)

    def copy(self) -> GraphFrame:
        """Shallow copy: a new dataframe object, the same (immutable) graph."""
        return GraphFrame(
            self.graph,
            self.dataframe.copy(deep=False),
            list(self.exc_metrics),
            list(self.inc_metrics),
            self.default_metric,
            _copy.copy(self.metadata),
        )

    def deepcopy(self) -> GraphFrame:
        """Deep copy: copied dataframe and graph arrays, deep-copied metadata."""
        return GraphFrame(
            self.graph.copy(),
            self.dataframe.copy(deep=True),
            list(self.exc_metrics),
            list(self.inc_metrics),
            self.default_metric,
            _copy.deepcopy(self.metadata),
        )

    def __repr__(self) -> str:
        levels = "".join(f", {lvl}" for lvl in self.index_levels)
        return (
            f"<GraphFrame: {len(self.graph)} nodes, {len(self.dataframe)} rows (node{levels}), "
            f"metrics {self.exc_metrics + self.inc_metrics}>"
        )

    # ------------------------------------------------------------------ writers
    def to_literal(
        self, name: str = "name", rank: int = 0, thread: int = 0, cat_columns: Sequence[str] = ()
    ) -> list[dict]:
        """Hatchet's literal format: nested dicts of name, frame, metrics, children."""
        from perfweave.calltree.writers import to_literal

        return to_literal(self, name, rank, thread, cat_columns)

    def to_dict(self) -> dict:
        """Hatchet's dict format (graph by node id, dataframe records, metric lists)."""
        from perfweave.calltree.writers import to_dict

        return to_dict(self)

    def to_json(self) -> str:
        import json

        return json.dumps(self.to_dict(), default=_json_default)

    def to_dot(
        self,
        metric: str | None = None,
        name: str = "name",
        rank: int = 0,
        thread: int = 0,
        threshold: float = 0.0,
    ) -> str:
        """Graphviz DOT text of the graph, nodes labelled with name and metric."""
        from perfweave.calltree.writers import to_dot

        return to_dot(self, metric or self.default_metric, name, rank, thread, threshold)

    def to_flamegraph(
        self,
        metric: str | None = None,
        name: str = "name",
        rank: int = 0,
        thread: int = 0,
        threshold: float = 0.0,
    ) -> str:
        """Folded stacks (``root;child;leaf value`` per line) for FlameGraph / speedscope."""
        from perfweave.calltree.writers import to_flamegraph

        return to_flamegraph(self, metric or self.default_metric, name, rank, thread, threshold)


def _json_default(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(f"{type(v).__name__} is not JSON serialisable")


__all__ = ["GraphFrame", "Node"]
