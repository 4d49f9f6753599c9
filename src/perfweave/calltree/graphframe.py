"""GraphFrame: a calltree (Graph) plus a pandas DataFrame of metrics indexed by node.

The dataframe's index is ``node`` (integer ids of ``graph``'s nodes), followed by ``rank``
and/or ``thread`` where the data has them. Operations follow Hatchet's semantics and
return new objects; the arrays behind them are vectorised (see DESIGN.md).
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree import path_query, query
from perfweave.calltree.column_names import inclusive_name
from perfweave.calltree.deepjson import numpy_default
from perfweave.calltree.graph import Graph, Node
from perfweave.calltree.inclusive import subgraph_sums
from perfweave.calltree.keywords import UPDATE_INC, alias, flag
from perfweave.calltree.row_filter import row_mask
from perfweave.errors import ArgumentTypeError, QueryError, ShapeError


def _reader(fmt: str, doc: str):
    def from_format(cls, path, **options):
        from perfweave.calltree.readers import reader

        return reader(fmt).read(path, **options)

    from_format.__doc__ = doc
    return classmethod(from_format)


_MISSING_AS_ZERO = "a node missing on one side counts as 0"
_MISSING_AS_NAN = "NaN where a node is missing on one side"


def _operator(op: str, doc: str, in_place: bool = False):
    """A GraphFrame arithmetic method (``in_place``: self takes the result's graph and rows)."""

    def method(self, other):
        result = self._binary(other, op)
        if in_place and result is not NotImplemented:
            self.graph, self.dataframe = result.graph, result.dataframe
            return self
        return result

    method.__doc__ = doc
    return method


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
        units: dict | None = None,
    ) -> None:
        if "node" not in dataframe.index.names:
            raise ShapeError("a GraphFrame's dataframe must be indexed by 'node'")
        self.graph = graph
        self.dataframe = dataframe
        self.exc_metrics = list(exc_metrics or [])
        self.inc_metrics = list(inc_metrics or [])
        self.default_metric = default_metric
        self.metadata = dict(metadata or {})
        #: metric -> unit where the reader knows it (HPCToolkit's and PerfFlowAspect's
        #: ``time`` is seconds); see :meth:`unit_of`
        self.units = {str(k): str(v) for k, v in (units or {}).items()}

    # ------------------------------------------------------------------ readers
    @classmethod
    def from_caliper(
        cls, filename_or_stream: Any, query: str | None = None, node_ordering: bool = True
    ) -> GraphFrame:
        """Read a Caliper json-split file (cali-query -q '... format json-split'), or a
        ``.cali`` file natively. Hatchet's ``query`` (CalQL for cali-query) is refused
        with an :class:`~perfweave.errors.OptionError` saying what to do instead."""
        from perfweave.calltree.readers import caliper_json

        return caliper_json.read(filename_or_stream, node_ordering=node_ordering, query=query)

    from_cali = _reader("cali", "Read a native Caliper .cali file (or a CaliperReader).")
    from_caliperreader = from_cali
    from_hpctoolkit = _reader(
        "hpctoolkit", "Read an HPCToolkit database directory (experiment.xml + *.metric-db)."
    )
    from_hpctoolkit_latest = _reader(
        "hpctoolkit4",
        "Read an HPCToolkit database of format 4 (meta.db, profile.db, cct.db); "
        "Hatchet's options (see perfweave.calltree.readers.hpctoolkit4.read).",
    )
    from_perfflowaspect = _reader(
        "perfflowaspect",
        "Read PerfFlowAspect trace(s) (.pfw, Chrome trace-event JSON); "
        "see perfweave.calltree.readers.perfflowaspect.read.",
    )
    from_scorep = _reader(
        "cube",
        "Read a Score-P / Cube 4 profile (.cubex, or a Score-P experiment directory); "
        "see perfweave.calltree.readers.cube.",
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
    def from_hatchet(cls, hatchet_graphframe: Any) -> GraphFrame:
        """Convert an llnl-hatchet GraphFrame (needs the ``bench`` extra)."""
        from perfweave.calltree.interop import from_hatchet

        return from_hatchet(hatchet_graphframe)

    def to_hatchet(self) -> Any:
        """Convert to an llnl-hatchet GraphFrame (needs the ``bench`` extra)."""
        from perfweave.calltree.interop import to_hatchet

        return to_hatchet(self)

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
    def from_records(
        cls,
        frames: pd.DataFrame | Sequence[dict],
        data: pd.DataFrame,
        *,
        parent: Sequence[int] | np.ndarray | None = None,
        edges: tuple[Sequence[int], Sequence[int]] | None = None,
        exc_metrics: Sequence[str] = (),
        inc_metrics: Sequence[str] = (),
        default_metric: str | None = None,
        metadata: dict | None = None,
        order_key: Sequence[int] | np.ndarray | None = None,
        path: Any = None,
        index_levels: Sequence[str] = ("rank", "thread"),
        units: dict | None = None,
    ) -> GraphFrame:
        """A GraphFrame from a reader's records, the one way every reader (calltree's, an
        ensemble's, the call sites of counts) builds one: a frame table (a row per node,
        at least ``name``), the structure (``parent``: a parent id per node, -1 for a
        root; or ``edges``: parent and child id lists), and ``data`` whose ``node``
        column refers to those ids (plus ``index_levels`` columns where present).

        The graph is numbered canonically (siblings by frame, or by ``order_key``, one
        integer per node, for formats that record a node order) and the rows remapped in
        one step; a structural problem is a ParseError naming ``path``."""
        from perfweave.calltree._build import build_graphframe

        return build_graphframe(
            frames,
            data,
            parent=parent,
            edges=edges,
            exc_metrics=exc_metrics,
            inc_metrics=inc_metrics,
            default_metric=default_metric,
            metadata=metadata,
            order_key=order_key,
            path=path,
            index_levels=index_levels,
            units=units,
        )

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

    def _derive(self, graph: Graph, dataframe: pd.DataFrame) -> GraphFrame:
        """A new frame with this one's metric lists, units and (shallow-copied) metadata."""
        return GraphFrame(
            graph,
            dataframe,
            list(self.exc_metrics),
            list(self.inc_metrics),
            self.default_metric,
            _copy.copy(self.metadata),
            self.units,
        )

    def unit_of(self, metric: str) -> str:
        """The unit of a metric column: the reader's (:attr:`units`), also for the columns
        derived from it (``time (inc)``, ``time [a]``), else what its name declares
        (:func:`perfweave.calltree.display.metric_unit`), else ``""``."""
        from perfweave.calltree.display import unit_in

        return unit_in(self.units, metric)

    def copy(self) -> GraphFrame:
        """Shallow copy: a new dataframe object, the same (immutable) graph."""
        return self._derive(self.graph, self.dataframe.copy(deep=False))

    def deepcopy(self) -> GraphFrame:
        """Deep copy: copied dataframe and graph arrays, deep-copied metadata."""
        return GraphFrame(
            self.graph.copy(),
            self.dataframe.copy(deep=True),
            list(self.exc_metrics),
            list(self.inc_metrics),
            self.default_metric,
            _copy.deepcopy(self.metadata),
            self.units,
        )

    def __repr__(self) -> str:
        levels = "".join(f", {lvl}" for lvl in self.index_levels)
        return (
            f"<GraphFrame: {len(self.graph)} nodes, {len(self.dataframe)} rows (node{levels}), "
            f"metrics {self.exc_metrics + self.inc_metrics}>"
        )

    # ------------------------------------------------------------------ operations
    def filter(
        self,
        predicate: Callable[[pd.Series], bool] | str | np.ndarray | pd.Series | None = None,
        squash: bool = True,
        update_inclusive_columns: bool = True,
        multi_index_mode: str = "off",
        *,
        filter_obj: Any = None,
        update_inc_cols: bool | None = None,
        num_procs: int | None = None,
        rec_limit: int | None = None,
    ) -> GraphFrame:
        """Keep the rows for which ``predicate`` holds; squash the graph onto them.

        Hatchet's keywords are taken with Hatchet's meaning: ``filter_obj`` is
        ``predicate``, ``update_inc_cols`` is ``update_inclusive_columns``; ``num_procs``
        and ``rec_limit`` (Hatchet's worker processes for a callable and its recursion
        limit) change nothing here: the predicate runs in this process, without recursion.

        ``predicate`` is a callable on one row (a Series with ``node`` and any rank/thread
        as fields, as in Hatchet), a query string (see :mod:`perfweave.calltree.query`:
        metric comparisons and name regexes, evaluated column-wise, never as Python), or a
        boolean mask over the rows. With ``squash=False`` the graph is kept as it is.

        A call-path query (Hatchet's query language: an object-dialect list, a ``MATCH``
        string or a :mod:`~perfweave.calltree.path_query` object) keeps the rows of the
        nodes on matching paths; ``multi_index_mode`` (``any``/``all``) decides its
        predicates for nodes with several rows, as in Hatchet.
        """
        predicate = alias("filter", "predicate", predicate, "filter_obj", filter_obj)
        update_inclusive_columns = flag(
            "filter", update_inclusive_columns, update_inc_cols, **UPDATE_INC
        )
        if predicate is None:
            raise ArgumentTypeError("filter() needs a predicate (Hatchet's filter_obj)")
        if path_query.is_path_query(predicate):
            mask = path_query.row_mask(self, predicate, multi_index_mode)
        else:
            mask = self._row_mask(predicate)
        if not mask.any():
            raise QueryError(
                f"filter {_describe(predicate)} matched no rows: the result would be empty"
            )
        out = self._derive(self.graph, self.dataframe[mask])
        return out.squash(update_inclusive_columns) if squash else out

    def _row_mask(self, predicate) -> np.ndarray:
        df = self.dataframe
        if isinstance(predicate, str):
            parsed = query.parse(predicate)
            if not parsed.has_share:
                return parsed.mask(df)
            return parsed.mask(df, self._root_rows(), exclusive=self.exc_metrics)
        if isinstance(predicate, (np.ndarray, pd.Series, list)) and not callable(predicate):
            if isinstance(predicate, list) and path_query.is_path_query(predicate):
                return path_query.row_mask(self, predicate)
            mask = np.asarray(predicate, dtype=bool)
            if mask.shape != (len(df),):
                raise ShapeError(f"boolean mask of length {mask.shape} for {len(df)} rows")
            return mask
        if callable(predicate):
            return row_mask(df.reset_index(), predicate)
        raise QueryError(
            f"filter takes a callable, a query string or a boolean mask, not {type(predicate).__name__}"
        )

    def _root_rows(self) -> np.ndarray:
        """Boolean mask of the rows whose node is a root of the graph."""
        is_root = np.zeros(len(self.graph), bool)
        is_root[self.graph.root_ids] = True
        return is_root[self.node_ids()]

    def squash(
        self, update_inclusive_columns: bool = True, *, update_inc_cols: bool | None = None
    ) -> GraphFrame:
        """Restrict the graph to the nodes that have rows (Hatchet's ``squash``;
        ``update_inc_cols`` is Hatchet's name of ``update_inclusive_columns``).

        Each remaining node is wired to its nearest remaining ancestor; nodes that become
        siblings with equal frames are merged, their rows summed (metrics) or the first
        value kept (other columns). Inclusive metrics are recomputed unless told not to.
        """
        update_inclusive_columns = flag(
            "squash", update_inclusive_columns, update_inc_cols, **UPDATE_INC
        )
        keep = np.zeros(len(self.graph), bool)
        keep[self.node_ids()] = True
        graph, old_to_new = self.graph.squash(keep)
        df = combine_duplicates(
            reindex_nodes(self.dataframe, old_to_new, sort=False),
            set(self.exc_metrics + self.inc_metrics),
        )
        out = self._derive(graph, df)
        if update_inclusive_columns:
            out.update_inclusive_columns()
        return out

    def update_inclusive_columns(self) -> GraphFrame:
        """Recompute inclusive metrics from exclusive ones, in place (as Hatchet does).

        ``x`` gives ``x (inc)``; ``x (exc)`` gives ``x``. In a DAG a descendant reached
        along several paths counts once. A frame that had only exclusive metrics gets the
        default metric's inclusive column as its default (where that metric is an amount,
        :func:`~perfweave.calltree.shown.is_amount`): the column every tree view showed it by
        already (:mod:`perfweave.calltree.shown`), so a filter, a squash or this call
        do not turn a tree of inclusive values into one of exclusive ones (Hatchet keeps
        the exclusive default). Returns self for chaining.
        """
        if not self.exc_metrics:
            return self
        from perfweave.calltree.shown import is_amount

        if (
            not self.inc_metrics
            and self.default_metric in self.exc_metrics
            and is_amount(self.default_metric)
        ):
            self.default_metric = inclusive_name(self.default_metric)
        names = [inclusive_name(m) for m in self.exc_metrics]
        sums = subgraph_sums(self.graph, self.dataframe, list(self.exc_metrics))
        df = self.dataframe.copy()
        for exc, inc in zip(self.exc_metrics, names):
            df[inc] = sums[exc]
        self.dataframe = df
        self.inc_metrics = list(
            dict.fromkeys(names + [m for m in self.inc_metrics if m not in names])
        )
        return self

    def drop_index_levels(self, function: Callable | str = np.mean) -> GraphFrame:
        """Reduce the rank/thread index levels away, in place (Hatchet's method).

        Each metric column is reduced per node with ``function`` over the frame's
        rank/thread cells by perfweave's one rule (:mod:`perfweave.calltree.ranks`): a cell
        without a row for a node measured nothing there and counts 0 for an additive
        metric, so no node's inclusive value exceeds its parent's (Hatchet averages only
        the rows that exist). Numpy's mean, median, min, max, sum, std and var (ddof=0)
        and their names are vectorised; another callable gets each node's values. Other
        columns keep their first value. Returns self for chaining.
        """
        if not self.index_levels:
            return self
        from perfweave.calltree.ranks import rank_cells

        df = self.dataframe
        metrics = [c for c in df.columns if c in set(self.exc_metrics + self.inc_metrics)]
        numeric = [c for c in metrics if pd.api.types.is_numeric_dtype(df[c])]
        cells = rank_cells(self, numeric, "threads")
        nodes = cells.layout.node[cells.layout.first_row_of_node()]
        grouped = df.groupby(level="node", sort=True)  # for the first value of other columns
        cols = {}
        for col in df.columns:
            if col in numeric:
                values = cells.reduce(col, function)[nodes]
                if df[col].dtype.kind in "iu" and not np.isnan(values).any():
                    whole = np.round(values)
                    values = whole.astype(df[col].dtype) if (whole == values).all() else values
                cols[col] = values
            else:
                cols[col] = grouped[col].first().reindex(nodes).to_numpy()
        out = pd.DataFrame(cols, index=pd.Index(nodes, name="node"), columns=list(df.columns))
        self.dataframe = out if out.index.is_monotonic_increasing else out.sort_index()
        return self

    def unify(self, other: GraphFrame) -> None:
        """Put self and other on their union graph, in place (both change, as in Hatchet).

        Node ids in both dataframes are remapped in one vectorised step each. Unlike
        Hatchet, no placeholder rows are inserted for nodes only the other side has.
        """
        if self.graph is other.graph:
            return
        union, map_self, map_other = self.graph.union(other.graph)
        self.dataframe = reindex_nodes(self.dataframe, map_self)  # sorted by reindex_nodes
        other.dataframe = reindex_nodes(other.dataframe, map_other)
        self.graph = other.graph = union

    # ------------------------------------------------------------------ analyses
    # (thin: the work is in perfweave.calltree.analysis and _sums; see docs/calltree.md)
    def node_values(
        self,
        columns: str | Sequence[str] | None = None,
        rank: int | None = None,
        thread: int | None = None,
    ) -> pd.DataFrame:
        """One value per node (index 0..n-1): a node's rows summed per rank/thread, then
        the mean over the rank/thread cells, a cell without a row counting 0 for an
        additive metric. ``.attrs["perfweave.node_values"]`` says which."""
        from perfweave.calltree.analysis import node_values

        return node_values(self, columns, rank, thread)

    def load_imbalance(
        self,
        metric_columns: str | Sequence[str] | None = None,
        top: int = 5,
        threshold: float | None = None,
        across: str | None = None,
    ) -> GraphFrame:
        """Load imbalance per node over ranks (threads summed; default where there are
        ranks) or every thread (``across="threads"``): ``<m>.mean``, ``<m>.max``,
        ``<m>.excess`` (max - mean: the time lost), ``<m>.efficiency`` (mean / max, POP),
        ``<m>.imbalance`` (max / mean, Chopper's) and ``<m>.top_ranks``."""
        from perfweave.calltree.analysis import load_imbalance

        return load_imbalance(self, metric_columns, top, threshold, across)

    def flat_profile(
        self, metric_columns: str | Sequence[str] | None = None, by: str = "name"
    ) -> pd.DataFrame:
        """Chopper's flat profile: node values summed per ``by`` value, largest first."""
        from perfweave.calltree.analysis import flat_profile

        return flat_profile(self, metric_columns, by)

    def hot_path(
        self, metric: str | None = None, threshold: float = 0.5, start: int | Node | None = None
    ) -> list[Node]:
        """Chopper's hot path: the nodes from a root down the hottest children."""
        from perfweave.calltree.analysis import hot_path

        return hot_path(self, metric, threshold, start)

    def groupby_aggregate(
        self,
        by: str | Sequence[str] | None = None,
        agg: Any = None,
        *,
        groupby_function: str | Sequence[str] | None = None,
        agg_function: Any = None,
    ) -> GraphFrame:
        """Hatchet's groupby_aggregate: one node per value of ``by``, rows aggregated with
        ``agg`` per rank/thread, edges between the groups of related nodes.
        ``groupby_function`` and ``agg_function`` are Hatchet's names of ``by`` and ``agg``."""
        from perfweave.calltree._regroup import groupby_aggregate

        by = alias("groupby_aggregate", "by", by, "groupby_function", groupby_function)
        agg = alias("groupby_aggregate", "agg", agg, "agg_function", agg_function)
        if by is None:
            raise ArgumentTypeError(
                "groupby_aggregate() needs the column(s) to group by (by=, Hatchet's "
                "groupby_function=)"
            )
        return groupby_aggregate(self, by, "sum" if agg is None else agg)

    def subtree_sum(
        self,
        columns: str | Sequence[str],
        out_columns: str | Sequence[str] | None = None,
        function: Any = None,
    ) -> None:
        """Hatchet's subtree_sum, in place: each row's node plus its descendants, summed
        along every path (a DAG node reached twice counts twice); NaN where none of them
        has a value, as Hatchet's default ``function``. Another ``function`` is refused
        (see :func:`perfweave.calltree._sums.check_sum_function`)."""
        from perfweave.calltree._sums import check_sum_function, subtree_sum

        check_sum_function("subtree_sum", function)
        subtree_sum(self, columns, out_columns, per_path=True)

    def subgraph_sum(
        self,
        columns: str | Sequence[str],
        out_columns: str | Sequence[str] | None = None,
        function: Any = None,
    ) -> None:
        """Hatchet's subgraph_sum, in place: each row's node plus its descendants, each
        descendant once; ``function`` as in :meth:`subtree_sum`."""
        from perfweave.calltree._sums import check_sum_function, subtree_sum

        check_sum_function("subgraph_sum", function)
        subtree_sum(self, columns, out_columns, per_path=False)

    def generate_exclusive_columns(self, inc_metrics: str | Sequence[str] | None = None) -> None:
        """Hatchet's generate_exclusive_columns, in place: ``x (inc)`` gives ``x``, an
        inclusive ``y`` gives ``y (exc)``: the value minus the children's."""
        from perfweave.calltree._sums import generate_exclusive_columns

        generate_exclusive_columns(self, inc_metrics)

    # ------------------------------------------------------------------ arithmetic
    def _binary(self, other: GraphFrame, op: str) -> GraphFrame:
        if not isinstance(other, GraphFrame):
            return NotImplemented
        mine = set(self.exc_metrics + self.inc_metrics)
        theirs = set(other.exc_metrics + other.inc_metrics)
        if mine != theirs:
            raise ShapeError(
                f"cannot {op} GraphFrames with different metrics: only left {sorted(mine - theirs)}, "
                f"only right {sorted(theirs - mine)} (update_inclusive_columns() on both gives "
                "them the same inclusive metrics)"
            )
        if self.dataframe.index.names != other.dataframe.index.names:
            raise ShapeError(
                f"cannot {op} GraphFrames indexed by {list(self.dataframe.index.names)} and "
                f"{list(other.dataframe.index.names)}: drop_index_levels() first"
            )
        if self.graph is other.graph:
            graph, a, b = self.graph, self.dataframe, other.dataframe
        else:
            graph, ma, mb = self.graph.union(other.graph)
            a, b = reindex_nodes(self.dataframe, ma), reindex_nodes(other.dataframe, mb)
        index = a.index.union(b.index) if not a.index.equals(b.index) else a.index
        if not index.is_monotonic_increasing:
            index = index.sort_values()
        a2, b2 = a.reindex(index), b.reindex(index)
        cols = {}
        for col in dict.fromkeys([*a.columns, *b.columns]):
            if col in mine:
                x = (
                    pd.to_numeric(a2[col], errors="coerce")
                    if col in a2
                    else pd.Series(np.nan, index=index)
                )
                y = (
                    pd.to_numeric(b2[col], errors="coerce")
                    if col in b2
                    else pd.Series(np.nan, index=index)
                )
                if op in ("add", "subtract"):
                    x, y = (
                        x.fillna(0.0).where(x.notna() | y.notna()),
                        y.fillna(0.0).where(x.notna() | y.notna()),
                    )
                cols[col] = OPERATIONS[op](x, y)
            elif col in a2 and col in b2:
                cols[col] = a2[col].where(a2[col].notna(), b2[col])
            else:
                cols[col] = a2[col] if col in a2 else b2[col]
        df = pd.DataFrame(cols, index=index)
        return self._derive(graph, df)

    add = __add__ = _operator("add", f"Node-wise sum on the union graph; {_MISSING_AS_ZERO}.")
    sub = __sub__ = _operator(
        "subtract", f"Node-wise difference on the union graph; {_MISSING_AS_ZERO}."
    )
    mul = __mul__ = _operator(
        "multiply", f"Node-wise product on the union graph ({_MISSING_AS_NAN})."
    )
    div = __truediv__ = _operator(
        "divide", f"Node-wise quotient on the union graph ({_MISSING_AS_NAN})."
    )
    __iadd__ = _operator("add", "In-place ``+``: self moves to the union graph.", in_place=True)
    __isub__ = _operator(
        "subtract", "In-place ``-``: self moves to the union graph.", in_place=True
    )
    __imul__ = _operator(
        "multiply", "In-place ``*``: self moves to the union graph.", in_place=True
    )
    __itruediv__ = _operator(
        "divide", "In-place ``/``: self moves to the union graph.", in_place=True
    )

    # ------------------------------------------------------------------ text tree
    def tree(
        self,
        metric_column: str | Sequence[str] | None = None,
        precision: int = 3,
        depth: int | None = None,
        threshold: float | None = None,
        color: bool | None = None,
        name_column: str = "name",
        invert_colormap: bool = False,
        rank: int | None = None,
        thread: int | None = None,
        expand_name: bool = False,
        context_column: str | None = "file",
        render_header: bool = False,
        annotation_column: str | None = None,
        highlight_name: bool = False,
        colormap: str = "RdYlGn",
        colormap_annotations: str | list | dict | None = None,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> str:
        """The calltree as indented text, one line per node: ``value name [context]``.

        Hatchet's options: ``annotation_column`` adds ``[value]`` after the metric (coloured
        with ``colormap_annotations``: a list of ANSI colours taken in the order of the
        sorted values, or a dict value -> colour); ``highlight_name`` puts names on a grey
        background; ``min_value``/``max_value`` fix the colour scale's ends. The colours are
        Hatchet's default ``RdYlGn`` bands (``invert_colormap`` reverses them); another
        ``colormap`` name is an OptionError.

        Values are :meth:`node_values`: a node's rows summed, the mean over ranks/threads
        (or the ``rank``/``thread`` given); a first line ``# <metric>: mean over 4 ranks``
        says so wherever a node has more than one row (Hatchet prints rank 0, unsaid).
        ``color`` None colors the text when printing to a terminal or a notebook. ``depth``
        limits the levels shown; ``threshold`` hides nodes whose metric is below that
        fraction of the largest value (and their subtrees).
        """
        from perfweave.calltree.tree_text import render

        options = {k: v for k, v in locals().items() if k not in ("self", "render")}
        return render(self, **options)

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

        return json.dumps(self.to_dict(), default=numpy_default)

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
        """Folded stacks (``root;child;leaf value`` per line) for FlameGraph / speedscope.

        A ``;``, ``\\`` or control character in a name is escaped (``\\x3b``, ``\\\\``,
        ``\\n``, ``\\x1b``); :func:`perfweave.calltree.folded.parse_folded` reads the names
        back exactly."""
        from perfweave.calltree.writers import to_flamegraph

        return to_flamegraph(self, metric, name, rank, thread, threshold)


#: the element-wise arithmetic of GraphFrames (and of Ensembles), by operator name
OPERATIONS = {
    "add": lambda x, y: x + y,
    "subtract": lambda x, y: x - y,
    "multiply": lambda x, y: x * y,
    "divide": lambda x, y: x / y,
}


def _describe(predicate: Any) -> str:
    return repr(predicate) if isinstance(predicate, str) else type(predicate).__name__


def reindex_nodes(df: pd.DataFrame, old_to_new: np.ndarray, sort: bool = True) -> pd.DataFrame:
    """Map the ``node`` index level through an id map (rows mapped to -1 are dropped): the
    dataframe of a GraphFrame or Ensemble whose graph was rebuilt (filter, squash, union).
    The rows come out sorted by their new index (left in their order with ``sort=False``,
    for :func:`combine_duplicates`, which sorts)."""
    node = np.asarray(df.index.get_level_values("node"), dtype=np.int64)
    new = old_to_new[node]
    keep = new >= 0
    if not keep.all():
        df, new = df[keep], new[keep]
    if df.index.nlevels == 1:
        out = df.set_axis(pd.Index(new, name="node"), axis=0)
        if not sort or len(new) < 2 or bool(np.all(new[1:] >= new[:-1])):
            return out
        return out.take(np.argsort(new, kind="stable"))
    arrays = [new if name == "node" else df.index.get_level_values(name) for name in df.index.names]
    out = df.set_axis(pd.MultiIndex.from_arrays(arrays, names=df.index.names), axis=0)
    return out if not sort or out.index.is_monotonic_increasing else out.sort_index()


def combine_duplicates(df: pd.DataFrame, metrics: set[str]) -> pd.DataFrame:
    """Merge rows with equal index: metrics summed (NaN if all NaN), others first value
    (not NaN where one is). The result is sorted by index; only the rows whose index
    repeats are grouped, so a squash that merges a few nodes costs little more than one
    pass over the rows."""
    if df.index.nlevels == 1:
        return _combine_by_node(df, metrics)
    if not df.index.is_monotonic_increasing:
        df = df.sort_index()
    repeated = df.index.duplicated(keep=False)
    if not repeated.any():
        return df
    merged = sum_parts(df[repeated], list(range(df.index.nlevels)), metrics)
    return pd.concat([df[~repeated], merged]).sort_index()


def sum_parts(df: pd.DataFrame, levels: list, metrics: set[str]) -> pd.DataFrame:
    """One row per value of the index ``levels`` (sorted): the ``metrics`` columns of its
    rows summed (NaN only where no row has a value), other columns their first value."""
    grouped = df.groupby(level=levels, sort=True)
    cols = {c: grouped[c].sum(min_count=1) if c in metrics else grouped[c].first() for c in df}
    return pd.DataFrame(cols, columns=list(df.columns))


def _combine_by_node(df: pd.DataFrame, metrics: set[str]) -> pd.DataFrame:
    """:func:`combine_duplicates` of a frame indexed by node alone: one sort of the ids,
    one take of a row per node, the merged values written over the repeated ones."""
    node = np.asarray(df.index, dtype=np.int64)
    n = len(node)
    order = (
        None if n < 2 or bool(np.all(node[1:] >= node[:-1])) else np.argsort(node, kind="stable")
    )
    ids = node if order is None else node[order]
    first = np.ones(n, bool)
    first[1:] = ids[1:] != ids[:-1]
    if first.all():
        return df if order is None else df.take(order)
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, n))
    multi = counts > 1
    rows = np.arange(n) if order is None else order
    merged = sum_parts(df.take(rows[np.repeat(multi, counts)]), [0], metrics)
    out = df.take(rows[starts])
    at = np.flatnonzero(multi)
    for col in df.columns:
        if col not in metrics and not out[col].iloc[at].isna().any():
            continue  # the first row of each run holds the first value already
        values = merged[col]
        if values.dtype != out[col].dtype or not isinstance(values.dtype, np.dtype):
            return pd.concat([df.take(rows[starts[~multi]]), merged]).sort_index(kind="stable")
        column = out[col].to_numpy(copy=True)
        column[at] = values.to_numpy()
        out[col] = column
    return out


__all__ = [
    "OPERATIONS",
    "GraphFrame",
    "Node",
    "combine_duplicates",
    "reindex_nodes",
    "sum_parts",
]
