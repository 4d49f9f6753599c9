"""Flame graph layout: the rectangles a flame (or icicle) graph of a calltree draws.

A node's frame is as wide as its **inclusive** value; its children sit side by side inside
it, in the graph's frame order, starting at its left edge. ``x0`` and ``x1`` are fractions
of the **total**: the sum of the roots' values (a forest's roots share the width).

Values come from the core's rules, never from a rule of their own:

- a GraphFrame's ranks/threads are reduced by :func:`perfweave.calltree.ranks.reduce_ranks`
  (the mean over rank/thread cells, a cell without a row counting 0 for an additive metric:
  what ``GraphFrame.node_values`` and the explorer show), and a frame with only exclusive
  metrics gets its inclusive columns by :func:`perfweave.calltree.shown.with_inclusive`;
- an Ensemble gives each profile's value by :func:`perfweave.calltree.ranks.profile_means`
  and the ``statistic`` over its profiles (``"mean"``; NaN where a profile lacks the node is
  left out, as the ensemble's statistics do). An ensemble with only exclusive metrics gets
  its inclusive values per profile, before the statistic.

**Containment.** A child is never drawn outside its parent. Where the children's values add
up to more than their parent's (a statistic of inclusive values over profiles, a measured
inclusive metric with rounding, the larger side of a comparison), the children are scaled
down together to fit: ``value`` keeps the number, ``x1 - x0`` is what is drawn.

**Exclusive.** The metric's exclusive partner where the data has one (``time`` beside
``time (inc)``), else the inclusive value minus the children's (never below 0).

**Zoom and search.** :meth:`FlameLayout.frames` with ``zoom=node`` draws that node's subtree
across the whole width (its ancestors span it too, as a breadcrumb);
:meth:`FlameLayout.search` finds nodes whose name matches a regular expression and the share
of the total they hold, a match under a matching ancestor counted once.

**Comparison.** :func:`flame_layout` with ``compare=b`` lays out the union of two graphs with
widths from the larger side (:mod:`perfweave.calltree.flame_compare`).

The graph must be a tree (a DAG has no single place for a node's frame).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from perfweave.calltree.display import NodeNames
from perfweave.calltree.graph import Graph, Node
from perfweave.calltree.graphframe import GraphFrame, inclusive_name
from perfweave.calltree.numbers import ColumnFormat, column_format
from perfweave.calltree.ranks import (
    profile_means,
    rank_cells,
    reduce_matrix,
    reduce_ranks,
)
from perfweave.calltree.shown import is_amount, with_inclusive
from perfweave.errors import GraphError, QueryError, ShapeError

if TYPE_CHECKING:
    from perfweave.calltree.flame_compare import FlameComparison
    from perfweave.ensemble.ensemble import Ensemble

INT = np.int64
#: statistics over an ensemble's profiles a flame graph can draw (monotone: a child's
#: statistic never exceeds its parent's where every profile nests)
STATISTICS = ("mean", "median", "min", "max", "sum")
#: the columns of :meth:`FlameLayout.frames`, in order (comparison columns follow them)
FRAME_COLUMNS = ("node", "name", "depth", "x0", "x1", "value", "exclusive")


@dataclass(frozen=True)
class NodeValues:
    """One side's values per graph node: what a flame graph is drawn from.

    ``samples`` (nodes x samples, NaN where a sample lacks the node) holds what a test of a
    difference compares: the profiles of an ensemble, the ranks of a multi-rank frame.

    ``name_source`` is every node's name, or a :class:`~perfweave.calltree.display.NodeNames`
    that works them out only for the nodes asked for (:meth:`names_of`: a first draw needs
    the names of the frames a pixel wide, not of a million nodes) until :attr:`names` (all
    of them) is needed; the names are the same either way."""

    graph: Graph
    name_source: np.ndarray | NodeNames
    inclusive: np.ndarray
    exclusive: np.ndarray
    metric: str
    unit: str
    how: str
    samples: np.ndarray
    sample_noun: str
    #: each node's module (load module, library) where the data names one, else None
    module: np.ndarray | None = None
    #: each node's model quality ("good", "fair", "poor", "" for no model) where the values
    #: are predicted by models (:mod:`perfweave.scaling.flame`), else None
    quality: np.ndarray | None = None

    @functools.cached_property
    def names(self) -> np.ndarray:
        """Every node's name (object array of ``str``)."""
        source = self.name_source
        return source.all if isinstance(source, NodeNames) else source

    def names_of(self, nodes: np.ndarray) -> np.ndarray:
        """The names of ``nodes`` (``names[nodes]``), without working out every name."""
        source = self.name_source
        if isinstance(source, NodeNames) and "names" not in self.__dict__:
            return source.of(nodes)
        return self.names[np.asarray(nodes, dtype=INT)]


def node_attribute(graph: Graph, dataframe: pd.DataFrame, column: str) -> np.ndarray | None:
    """One value per node of an attribute (``module``): the table's value at the node's
    first row, else its frame's; None where neither has the column (missing: None)."""
    n = len(graph)
    out = np.full(n, None, dtype=object)
    if column in graph.frames.columns:
        out[:] = graph.frames[column].astype(object).where(graph.frames[column].notna(), None)
    elif column not in dataframe.columns:
        return None
    if column in dataframe.columns:
        nodes = np.asarray(dataframe.index.get_level_values("node"), dtype=INT)
        first = ~pd.Index(nodes).duplicated()
        values = dataframe[column].to_numpy(dtype=object)[first]
        keep = pd.notna(values)
        out[nodes[first][keep]] = values[keep]
    return out


def _numeric(df: pd.DataFrame, column: Any) -> bool:
    dtype = df[column].dtype
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _columns_text(columns: Sequence[Any]) -> str:
    shown = [str(c) for c in columns][:20]
    more = f", ... ({len(columns)} in all)" if len(columns) > 20 else ""
    return ", ".join(shown) + more


def _pick_inclusive(
    columns: Sequence[Any], inc: Sequence[Any], exc: Sequence[Any], default: Any, metric: Any
) -> tuple[str, str | None]:
    """(inclusive column, exclusive column it was derived from or None) for ``metric``."""
    cols = [str(c) for c in columns]
    inc_names = [str(m) for m in inc]
    exc_names = [str(m) for m in exc]
    if metric is not None:
        m = str(metric)
        if m in inc_names:
            return m, None
        if m in exc_names or m in cols:
            if inclusive_name(m) in cols:
                return inclusive_name(m), None
            if m in exc_names:
                return inclusive_name(m), m  # computed from the exclusive metric
            raise ShapeError(
                f"metric {m!r} is neither an inclusive metric nor an exclusive one with an "
                f"inclusive partner; the inclusive metrics are: {_columns_text(inc_names)}"
            )
        derived = [e for e in exc_names if inclusive_name(e) == m]
        if derived:  # an inclusive name the data does not hold: computed from its partner
            return m, derived[0]
        raise ShapeError(f"no metric {m!r}; the columns are: {_columns_text(cols)}")
    d = str(default)
    if d in inc_names:
        return d, None
    if inclusive_name(d) in cols:
        return inclusive_name(d), None
    if inc_names:
        return inc_names[0], None
    amounts = [m for m in exc_names if is_amount(m)]
    if amounts:
        first = d if d in amounts else amounts[0]
        return inclusive_name(first), first
    raise ShapeError(f"no metric to draw a flame graph by; the columns are: {_columns_text(cols)}")


def _exclusive_partner(inc: str, exc_metrics: Sequence[Any], columns: Sequence[Any]) -> str | None:
    cols = {str(c) for c in columns}
    for m in exc_metrics:
        if str(m) in cols and inclusive_name(str(m)) == inc:
            return str(m)
    if inc.endswith(" (inc)") and inc[: -len(" (inc)")] in cols:
        return inc[: -len(" (inc)")]
    return None


def _check_tree(graph: Graph) -> None:
    if len(graph) == 0:
        raise GraphError("the graph has no nodes: there is no flame graph to draw")
    if not graph.is_tree():
        raise GraphError(
            "a flame graph needs a tree, and this graph is a DAG (a node with several "
            "parents has no single place); unroll it first"
        )


def sizes(graph: Graph) -> np.ndarray:
    """Each node's subtree size (the node itself included) of a tree in preorder."""
    return np.asarray(graph._size, dtype=INT)


def subtree_totals(graph: Graph, values: np.ndarray) -> np.ndarray:
    """Each node's value plus all its descendants' (rows of ``values``; NaN counts 0)."""
    v = np.nan_to_num(np.asarray(values, dtype=float), nan=0.0)
    size = sizes(graph)
    n = len(graph)
    prefix = np.zeros((n + 1, *v.shape[1:]))
    np.cumsum(v, axis=0, out=prefix[1:])
    ids = np.arange(n)
    return prefix[ids + size] - prefix[ids]


def _children_sum(graph: Graph, values: np.ndarray) -> np.ndarray:
    """The sum of each node's children's values (rows of a vector or a matrix)."""
    parent = graph.parent
    has = parent >= 0
    if values.ndim == 1:
        return np.bincount(parent[has], weights=values[has], minlength=len(graph))
    out = np.zeros_like(values, dtype=float)
    np.add.at(out, parent[has], values[has])
    return out


def _down_sum(graph: Graph, per_node: np.ndarray) -> np.ndarray:
    """For each node, the sum of ``per_node`` over its ancestors and itself (a tree in
    preorder: +x where a subtree starts, -x where it ends, one cumulative sum)."""
    n = len(graph)
    size = sizes(graph)
    per_node = np.asarray(per_node, dtype=float)
    delta = np.zeros(n + 1)
    delta[:n] = per_node
    delta -= np.bincount(np.arange(n) + size, weights=per_node, minlength=n + 1)
    return np.cumsum(delta)[:n]


def graphframe_values(gf: GraphFrame, metric: Any = None) -> NodeValues:
    """A GraphFrame's flame values by the core's rules (see the module docstring)."""
    _check_tree(gf.graph)
    inc, derived_from = _pick_inclusive(
        gf.dataframe.columns, gf.inc_metrics, gf.exc_metrics, gf.default_metric, metric
    )
    if derived_from is not None or inc not in gf.dataframe.columns:
        gf = with_inclusive(gf, asked=[inc])
    if inc not in gf.dataframe.columns:
        raise ShapeError(
            f"no metric {inc!r}; the columns are: {_columns_text(gf.dataframe.columns)}"
        )
    if not _numeric(gf.dataframe, inc):
        raise ShapeError(f"metric {inc!r} is not numeric ({gf.dataframe[inc].dtype})")
    exc = _exclusive_partner(inc, gf.exc_metrics, gf.dataframe.columns)
    if exc is not None and not _numeric(gf.dataframe, exc):
        exc = None
    cols = [inc] + ([exc] if exc else [])
    reduced = reduce_ranks(gf, cols, "mean", across="threads")
    values = np.nan_to_num(reduced[inc].to_numpy(dtype=float), nan=0.0)
    if exc is not None:
        exclusive = np.nan_to_num(reduced[exc].to_numpy(dtype=float), nan=0.0)
    else:
        exclusive = np.maximum(values - _children_sum(gf.graph, values), 0.0)
    levels = gf.index_levels
    across = "ranks" if "rank" in levels else "threads"
    cells = rank_cells(gf, [inc], across) if levels else None
    samples = cells.values[inc] if cells is not None else values[:, None]
    noun = cells.noun if cells is not None else "profile"
    return NodeValues(
        gf.graph,
        NodeNames(gf.graph, gf.dataframe),
        values,
        exclusive,
        inc,
        gf.unit_of(inc),
        str(reduced.attrs.get("perfweave.node_values", "")),
        samples,
        noun,
        node_attribute(gf.graph, gf.dataframe, "module"),
    )


def ensemble_values(ens: Ensemble, metric: Any = None, statistic: str = "mean") -> NodeValues:
    """An Ensemble's flame values: ``statistic`` over its profiles of each profile's value."""
    if statistic not in STATISTICS:
        raise ShapeError(
            f"statistic {statistic!r}: a flame graph draws one of {', '.join(STATISTICS)}"
        )
    _check_tree(ens.graph)
    perf = ens.performance_cols
    inc, derived_from = _pick_inclusive(
        perf, [m for m in ens.inc_metrics if m in perf], ens.exc_metrics, ens.default_metric, metric
    )
    n, profiles = len(ens.graph), list(ens.profiles)
    if derived_from is not None:  # inclusive per profile, before the statistic
        own = profile_means(ens.dataframe, n, profiles, derived_from)
        seen = subtree_totals(ens.graph, (~np.isnan(own)).astype(float)) > 0
        matrix = np.where(seen, subtree_totals(ens.graph, own), np.nan)
    else:
        matrix = profile_means(ens.dataframe, n, profiles, inc)
    values = np.nan_to_num(reduce_matrix(matrix, statistic), nan=0.0)
    exc = derived_from or _exclusive_partner(inc, ens.exc_metrics, perf)
    if exc is not None:
        own = profile_means(ens.dataframe, n, profiles, exc)
        exclusive = np.nan_to_num(reduce_matrix(own, statistic), nan=0.0)
    else:
        exclusive = np.maximum(values - _children_sum(ens.graph, values), 0.0)
    unit_metric = derived_from or inc
    return NodeValues(
        ens.graph,
        NodeNames(ens.graph, ens.dataframe),
        values,
        exclusive,
        inc,
        ens.unit_of(unit_metric),
        f"{statistic} over {len(profiles)} profiles",
        matrix,
        "profiles",
        node_attribute(ens.graph, ens.dataframe, "module"),
    )


@dataclass(frozen=True)
class ExclusiveProfiles:
    """An ensemble metric's exclusive value per node and profile, and what it is called.

    ``inclusive`` is the inclusive metric a flame graph of it is drawn by, ``matrix``
    (nodes x profiles, NaN where a profile lacks the node) the exclusive values: the
    metric's exclusive partner where the ensemble has one, else each profile's inclusive
    value minus its children's (never below 0), so that summing them up again gives the
    inclusive values back."""

    inclusive: str
    matrix: np.ndarray
    unit: str


def exclusive_profiles(ens: Ensemble, metric: Any = None) -> ExclusiveProfiles:
    """The exclusive values per profile of ``metric`` (an inclusive or exclusive metric;
    default: the ensemble's default), the input of a flame graph predicted by models."""
    _check_tree(ens.graph)
    perf = ens.performance_cols
    inc, derived_from = _pick_inclusive(
        perf, [m for m in ens.inc_metrics if m in perf], ens.exc_metrics, ens.default_metric, metric
    )
    n, profiles = len(ens.graph), list(ens.profiles)
    exc = derived_from or _exclusive_partner(inc, ens.exc_metrics, perf)
    if exc is not None:
        matrix = profile_means(ens.dataframe, n, profiles, exc)
    else:
        incl = profile_means(ens.dataframe, n, profiles, inc)
        children = _children_sum(ens.graph, np.nan_to_num(incl, nan=0.0))
        matrix = np.where(np.isnan(incl), np.nan, np.maximum(incl - children, 0.0))
    return ExclusiveProfiles(inc, matrix, ens.unit_of(exc or inc))


def node_values(data: Any, metric: Any = None, statistic: str = "mean") -> NodeValues:
    """:func:`graphframe_values` or :func:`ensemble_values`, by the kind of ``data``."""
    from perfweave.ensemble.ensemble import Ensemble

    if isinstance(data, GraphFrame):
        return graphframe_values(data, metric)
    if isinstance(data, Ensemble):
        return ensemble_values(data, metric, statistic)
    raise ShapeError(
        f"a flame graph draws a perfweave GraphFrame or Ensemble, not {type(data).__name__}"
    )


def layout_x(graph: Graph, widths: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``(x0, x1, total)``: every node's span as fractions of the roots' sum, children side
    by side from their parent's left edge, scaled down together where they would overflow
    it (see the module docstring). No loop over nodes or levels."""
    w = np.maximum(np.nan_to_num(np.asarray(widths, dtype=float), nan=0.0), 0.0)
    n = len(graph)
    parent = graph.parent
    child_sum = _children_sum(graph, w)
    # f[p] shrinks p's children to fit p; a node's drawn width is w times the product of f
    # over its strict ancestors (logs summed down the tree; a factor 0 counted apart)
    over = child_sum > w
    if over.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(over, w / child_sum, 1.0)
        zero = (f <= 0).astype(float)
        logf = np.where(f > 0, np.log(np.where(f > 0, f, 1.0)), 0.0)
        has = parent >= 0
        above_log = np.zeros(n)
        above_zero = np.zeros(n)
        above_log[has] = _down_sum(graph, logf)[parent[has]]
        above_zero[has] = _down_sum(graph, zero)[parent[has]]
        drawn = np.where(above_zero > 0, 0.0, w * np.exp(above_log))
    else:  # no children overflow (inclusive values summed from exclusive ones): f is 1
        drawn = w.copy()
    # a node's left edge: its earlier siblings' widths, summed over its ancestors and itself
    roots = graph.root_ids
    offset = np.zeros(n)
    if n:
        ptr, idx = graph.children_csr()
        groups = np.repeat(np.arange(n), np.diff(ptr))
        d = drawn[idx]
        run = np.cumsum(d) - d  # the widths before each child, over all children
        offset[idx] = run - run[ptr[groups]]
        offset[roots] = np.cumsum(drawn[roots]) - drawn[roots]
    x0 = _down_sum(graph, offset)
    total = float(drawn[roots].sum()) if n else 0.0
    if total <= 0:
        return np.zeros(n), np.zeros(n), 0.0
    x0 = x0 / total
    return x0, x0 + drawn / total, total


@dataclass(frozen=True)
class FlameSearch:
    """What a search found: the matching nodes, their value counted once (a match under a
    matching ancestor is part of it) and that as a share of the total and of the zoomed
    frame."""

    pattern: str
    nodes: np.ndarray
    value: float
    share: float
    zoom_share: float
    #: the codes of the distinct names that match (:attr:`FlameLayout.name_codes`): a
    #: viewer holding each frame's name code marks the matches without the node list
    names: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=INT))


@dataclass(frozen=True)
class FrameSums:
    """Per node of a laid-out tree, the sums from which a viewer holding only some frames
    gathers the narrower ones itself, by the rule of :meth:`FlameLayout.narrow`.

    Node ids are in preorder, so the siblings between two drawn siblings ``p`` and ``q``
    (or between a parent's first node and ``q``, or ``p`` and the parent's end) are the
    nodes ``[start, end)`` of one id range, and a run of them holds ``end - start`` nodes,
    ``value_before[q] - value_before[p] - value[p]`` of inclusive value (``child_value`` of
    the parent in place of ``value_before[q]`` at its end) and
    ``excl_start[end] - excl_start[start]`` of exclusive value, where ``excl_start`` at a
    subtree's end is ``excl_start + excl_subtree`` of its top. A run ends at the next drawn
    sibling's left edge or at ``child_x1`` of its parent. The ``forest_*`` numbers are the
    same for the roots, the children of the whole graph."""

    #: nodes in each node's subtree (itself included)
    size: np.ndarray
    #: the inclusive values of the node's earlier siblings (of earlier roots), summed
    value_before: np.ndarray
    #: the node's children's inclusive values, summed
    child_value: np.ndarray
    #: the right edge of the node's last child (its own left edge without children)
    child_x1: np.ndarray
    #: the exclusive values of every node before it in preorder, summed
    excl_start: np.ndarray
    #: the exclusive values of its subtree, summed
    excl_subtree: np.ndarray
    forest_value: float
    forest_x1: float
    forest_exclusive: float


@dataclass(frozen=True)
class FlameLayout:
    """The laid-out flame graph of one calltree (see the module docstring).

    Build it with :func:`flame_layout`. ``x0``/``x1`` are per graph node; :meth:`frames`
    gives the drawn rectangles as a DataFrame."""

    values: NodeValues
    x0: np.ndarray
    x1: np.ndarray
    total: float
    comparison: FlameComparison | None = field(default=None)

    @property
    def graph(self) -> Graph:
        return self.values.graph

    @functools.cached_property
    def value_format(self) -> ColumnFormat:
        """The one format of the drawn values (the unit's, by their magnitude)."""
        return column_format(self.values.inclusive, self.values.unit)

    @functools.cached_property
    def widths(self) -> np.ndarray:
        """Each node's drawn width, ``x1 - x0`` (a fraction of the total)."""
        return self.x1 - self.x0

    @functools.cached_property
    def sums(self) -> FrameSums:
        """The per-node sums a viewer gathers narrow frames from (:class:`FrameSums`)."""
        graph, n = self.graph, len(self.graph)
        inclusive = np.asarray(self.values.inclusive, dtype=float)
        exclusive = np.asarray(self.values.exclusive, dtype=float)
        ptr, idx = graph.children_csr()
        roots = graph.root_ids
        before = np.zeros(n)
        if len(idx):
            groups = np.repeat(np.arange(n), np.diff(ptr))
            run = np.cumsum(inclusive[idx]) - inclusive[idx]
            before[idx] = run - run[ptr[groups]]
        before[roots] = np.cumsum(inclusive[roots]) - inclusive[roots]
        has = np.diff(ptr) > 0
        child_x1 = self.x0.copy()
        child_x1[has] = self.x1[idx[ptr[1:][has] - 1]]
        excl_start = np.zeros(n + 1)
        np.cumsum(np.nan_to_num(exclusive, nan=0.0), out=excl_start[1:])
        return FrameSums(
            size=sizes(graph),
            value_before=before,
            child_value=_children_sum(graph, inclusive),
            child_x1=child_x1,
            excl_start=excl_start[:n],
            excl_subtree=self._subtree_exclusive,
            forest_value=float(inclusive[roots].sum()),
            forest_x1=float(self.x1[roots[-1]]) if n else 0.0,
            forest_exclusive=float(excl_start[n]),
        )

    def sums_of(self, nodes: np.ndarray) -> FrameSums:
        """:attr:`sums` of ``nodes`` only (each array's rows ``nodes``), the same numbers bit
        for bit: what a reply of some frames needs, without the passes over every node that
        :attr:`sums` makes (a first draw sends a few thousand frames of a million nodes).
        Reads :attr:`sums` where it is already worked out."""
        nodes = np.asarray(nodes, dtype=INT)
        if "sums" in self.__dict__:
            whole = self.sums
            return FrameSums(
                size=whole.size[nodes],
                value_before=whole.value_before[nodes],
                child_value=whole.child_value[nodes],
                child_x1=whole.child_x1[nodes],
                excl_start=whole.excl_start[nodes],
                excl_subtree=whole.excl_subtree[nodes],
                forest_value=whole.forest_value,
                forest_x1=whole.forest_x1,
                forest_exclusive=whole.forest_exclusive,
            )
        graph, n = self.graph, len(self.graph)
        inclusive = np.asarray(self.values.inclusive, dtype=float)
        ptr, idx = graph.children_csr()
        roots = graph.root_ids
        size = sizes(graph)
        prefix = self._exclusive_prefix
        # value_before: the same running sum over all children in CSR order as sums
        # (a float sum's bits depend on what was summed before), read at these nodes
        before = self._running_before[nodes]
        parent = graph.parent[nodes]
        child = parent >= 0
        first = ptr[parent[child]]
        run = self._children_run
        before[child] -= run[first]
        root_before = np.cumsum(inclusive[roots]) - inclusive[roots]
        at_root = np.searchsorted(roots, nodes[~child])
        before[~child] = root_before[at_root]
        # the children's values summed one by one in id order, as np.bincount does
        lo, hi = ptr[nodes], ptr[nodes + 1]
        count = hi - lo
        kids = idx[np.repeat(hi - np.cumsum(count), count) + np.arange(int(count.sum()))]
        child_value = np.bincount(
            np.repeat(np.arange(len(nodes)), count), weights=inclusive[kids], minlength=len(nodes)
        ).astype(float, copy=False)  # of no children at all, bincount's is whole numbers
        child_x1 = self.x0[nodes].copy()
        has = count > 0
        child_x1[has] = self.x1[idx[hi[has] - 1]]
        return FrameSums(
            size=size[nodes],
            value_before=before,
            child_value=child_value,
            child_x1=child_x1,
            excl_start=prefix[nodes],
            excl_subtree=prefix[nodes + size[nodes]] - prefix[nodes],
            forest_value=float(inclusive[roots].sum()),
            forest_x1=float(self.x1[roots[-1]]) if n else 0.0,
            forest_exclusive=float(prefix[n]),
        )

    @functools.cached_property
    def _exclusive_prefix(self) -> np.ndarray:
        """The exclusive values summed in preorder (``n + 1``: 0 first), as :attr:`sums`
        and :func:`subtree_totals` sum them."""
        n = len(self.graph)
        out = np.zeros(n + 1)
        np.cumsum(
            np.nan_to_num(np.asarray(self.values.exclusive, dtype=float), nan=0.0), out=out[1:]
        )
        return out

    @functools.cached_property
    def _children_run(self) -> np.ndarray:
        """The children's inclusive values summed in CSR order, each child's own left out
        (the running sum :attr:`sums` takes ``value_before`` from)."""
        _, idx = self.graph.children_csr()
        inc = np.asarray(self.values.inclusive, dtype=float)[idx]
        return np.cumsum(inc) - inc

    @functools.cached_property
    def _running_before(self) -> np.ndarray:
        """:attr:`_children_run` by node (0 at a root)."""
        _, idx = self.graph.children_csr()
        out = np.zeros(len(self.graph))
        out[idx] = self._children_run
        return out

    def band(self, zoom: Any = None, lo: float = 0.0, hi: float = np.inf) -> np.ndarray:
        """Node ids, in preorder, of ``zoom``'s subtree (every node without a zoom) whose
        frames are at least ``lo`` and less than ``hi`` wide (fractions of the total): what
        a viewer that holds the frames at least ``hi`` wide lacks to draw every frame at
        least ``lo`` wide."""
        if zoom is None:
            start, stop = 0, len(self.graph)
        else:
            start = self.node_id(zoom)
            stop = start + int(sizes(self.graph)[start])
        w = self.widths[start:stop]
        keep = w >= lo
        if np.isfinite(hi):
            keep &= w < hi
        return (np.flatnonzero(keep) + start).astype(INT)

    @functools.cached_property
    def _sibling_rank(self) -> np.ndarray:
        """Each node's place among its siblings (roots among the roots)."""
        n = len(self.graph)
        ptr, idx = self.graph.children_csr()
        rank = np.zeros(n, dtype=INT)
        rank[idx] = np.arange(len(idx)) - np.repeat(ptr[:-1], np.diff(ptr))
        roots = self.graph.root_ids
        rank[roots] = np.arange(len(roots))
        return rank

    @property
    def metric(self) -> str:
        return self.values.metric

    @property
    def unit(self) -> str:
        return self.values.unit

    def node_id(self, node: Any) -> int:
        """A node id of this layout's graph from an id, a ``Node`` or a name (the widest
        node of that name)."""
        n = len(self.graph)
        if isinstance(node, Node):
            if node.graph is not self.graph and node.graph != self.graph:
                raise GraphError(f"node {node} belongs to another graph")
            nid = node.nid
        elif isinstance(node, (int, np.integer)) and not isinstance(node, bool):
            nid = int(node)
        elif isinstance(node, str):
            hits = np.flatnonzero(self.values.names == node)
            if not len(hits):
                raise GraphError(f"no node named {node!r} in the flame graph")
            nid = int(hits[np.argmax(self.x1[hits] - self.x0[hits])])
        else:
            raise GraphError(f"a node is an id, a Node or a name, not {type(node).__name__}")
        if not 0 <= nid < n:
            raise GraphError(f"no node {nid} in a flame graph of {n} nodes (ids 0 to {n - 1})")
        return nid

    def path(self, node: Any) -> list[int]:
        """The ids from a root down to ``node`` (the breadcrumb of a zoom)."""
        nid = self.node_id(node)
        out = [nid]
        parent = self.graph.parent
        while parent[out[-1]] >= 0:
            out.append(int(parent[out[-1]]))
        return out[::-1]

    def _spans(self, zoom: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """``(nodes, x0, x1, ancestors)`` of every frame of the view, in preorder: with
        ``zoom``, the zoomed node's ancestors (spanning the width; their count is the last
        item) then its subtree re-based to the width."""
        if zoom is None:
            return np.arange(len(self.graph), dtype=INT), self.x0, self.x1, 0
        z = self.node_id(zoom)
        size = int(sizes(self.graph)[z])
        path = np.asarray(self.path(z)[:-1], dtype=INT)
        span = self.x1[z] - self.x0[z]
        if span <= 0:
            size = 1
        sub = slice(z, z + size)
        k = len(path)
        x0 = np.zeros(k + size)
        x1 = np.ones(k + size)
        if span > 0:
            x0[k:] = (self.x0[sub] - self.x0[z]) / span
            x1[k:] = (self.x1[sub] - self.x0[z]) / span
        return np.concatenate([path, np.arange(z, z + size, dtype=INT)]), x0, x1, k

    def drawn(self, zoom: Any = None, min_width: float = 0.0) -> tuple[pd.DataFrame, pd.DataFrame]:
        """``(frames(zoom, min_width), narrow(zoom, min_width))`` from one layout of the view
        (what a page at ``1 / min_width`` pixels draws)."""
        spans = self._spans(zoom)
        return self._frames(spans, zoom, min_width), self._narrow(spans, zoom, min_width)

    def frames(self, zoom: Any = None, min_width: float = 0.0) -> pd.DataFrame:
        """The drawn rectangles: ``node, name, depth, x0, x1, value, exclusive`` (and the
        comparison's columns), in preorder. With ``zoom``, that node's subtree re-based to
        fill the width (its ancestors span it too); ``min_width`` (a fraction of the width)
        leaves out narrower frames."""
        return self._frames(self._spans(zoom), zoom, min_width)

    def _frames(self, spans: tuple, zoom: Any, min_width: float) -> pd.DataFrame:
        nodes, x0, x1, ancestors = spans
        if min_width > 0:
            keep = (x1 - x0) >= min_width
            keep[: ancestors + (zoom is not None)] = True
            nodes, x0, x1 = nodes[keep], x0[keep], x1[keep]
        table = {
            "node": nodes,
            "name": self.values.names_of(nodes),
            "depth": np.asarray(self.graph.depth, dtype=INT)[nodes],
            "x0": x0,
            "x1": x1,
            "value": self.values.inclusive[nodes],
            "exclusive": self.values.exclusive[nodes],
        }
        if self.values.quality is not None:
            table["quality"] = self.values.quality[nodes]
        if self.comparison is not None:
            table.update(self.comparison.columns(nodes))
        return pd.DataFrame(table)

    def narrow(self, zoom: Any = None, min_width: float = 0.0) -> pd.DataFrame:
        """What :meth:`frames` with ``min_width`` leaves out, gathered: each run of
        neighbouring sibling frames narrower than ``min_width`` under a frame that is drawn
        becomes one frame (``x0, x1`` from the run's first to its last, ``value`` and
        ``exclusive`` summed, ``hidden`` the nodes its subtrees hold, ``parent`` the drawn
        frame's node), kept where the run together is at least ``min_width`` wide: a person
        sees that something is there and how much."""
        return self._narrow(self._spans(zoom) if min_width > 0 else None, zoom, min_width)

    def _narrow(self, spans: tuple | None, zoom: Any, min_width: float) -> pd.DataFrame:
        columns = ("parent", "depth", "x0", "x1", "value", "exclusive", "hidden")
        if min_width <= 0 or spans is None:
            return pd.DataFrame({c: [] for c in columns})
        nodes, x0, x1, ancestors = spans
        narrow = (x1 - x0) < min_width
        narrow[: ancestors + (zoom is not None)] = False
        drawn = np.zeros(len(self.graph), dtype=bool)
        drawn[nodes[~narrow]] = True
        cand = np.flatnonzero(narrow)
        parent = self.graph.parent[nodes[cand]]
        top = np.zeros(len(nodes), dtype=bool)
        top[cand] = (parent < 0) | drawn[np.maximum(parent, 0)]
        if not top.any():
            return pd.DataFrame({c: [] for c in columns})
        t_nodes = nodes[top]
        t_parent = self.graph.parent[t_nodes]
        t_rank = self._sibling_rank[t_nodes]
        # preorder lists siblings in order: a run breaks at a new parent or a drawn sibling
        breaks = np.ones(len(t_nodes), dtype=bool)
        breaks[1:] = (t_parent[1:] != t_parent[:-1]) | (t_rank[1:] != t_rank[:-1] + 1)
        run = np.cumsum(breaks) - 1
        first = np.flatnonzero(breaks)
        last = np.r_[first[1:], len(t_nodes)] - 1
        size = sizes(self.graph)[t_nodes]
        out = pd.DataFrame(
            {
                "parent": t_parent[first],
                "depth": np.asarray(self.graph.depth, dtype=INT)[t_nodes[first]],
                "x0": x0[top][first],
                "x1": x1[top][last],
                "value": np.bincount(run, weights=self.values.inclusive[t_nodes]),
                "exclusive": np.bincount(run, weights=self._subtree_exclusive[t_nodes]),
                "hidden": np.bincount(run, weights=size).astype(INT),
            }
        )
        return out[(out["x1"] - out["x0"]) >= min_width].reset_index(drop=True)

    @functools.cached_property
    def _subtree_exclusive(self) -> np.ndarray:
        """Each node's exclusive value summed over its subtree (what a gathered run of
        hidden frames holds of its own)."""
        return subtree_totals(self.graph, self.values.exclusive)

    def zoom(self, node: Any) -> pd.DataFrame:
        """``frames(zoom=node)``: the node's subtree filling the width."""
        return self.frames(zoom=node)

    def matches(self, pattern: str) -> np.ndarray:
        """Whether each node's name matches the regular expression ``pattern`` (searched
        anywhere in the name, as the explorer's search box)."""
        return self.name_matches(pattern)[self.name_codes[0]]

    def name_matches(self, pattern: str) -> np.ndarray:
        """Whether each distinct name (the uniques of :attr:`name_codes`) matches the regular
        expression ``pattern``: each name is matched once however often it repeats."""
        if not isinstance(pattern, str) or not pattern:
            raise QueryError(f"search needs a regular expression, not {pattern!r}")
        try:
            re.compile(pattern)
        except re.error as exc:
            raise QueryError(f"search {pattern!r}: bad regular expression: {exc}") from exc
        found = pd.Series(self.name_codes[1], dtype=object).str.contains(pattern, regex=True)
        return found.to_numpy(dtype=bool)

    @functools.cached_property
    def name_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Each node's name as a code into the distinct names (a calltree repeats its
        names: a search matches each distinct name once)."""
        codes, uniques = pd.factorize(pd.Series(self.values.names, dtype=object).astype(str))
        return codes, np.asarray(uniques, dtype=object)

    def search(self, pattern: str, zoom: Any = None) -> FlameSearch:
        """Nodes whose name matches ``pattern`` and what they hold: a match under a matching
        ancestor counts once; shares of the total and of ``zoom``'s frame (the total
        without a zoom)."""
        named = self.name_matches(pattern)
        hit = named[self.name_codes[0]]
        inside = _down_sum(self.graph, hit.astype(float)) - hit  # matching strict ancestors
        top = hit & (inside == 0)
        widths = self.x1 - self.x0
        value = float(self.values.inclusive[top].sum())
        share = float(widths[top].sum())
        zoom_share = share
        if zoom is not None:
            z = self.node_id(zoom)
            size = int(sizes(self.graph)[z])
            span = widths[z]
            path = self.path(z)
            if any(hit[p] for p in path[:-1]):
                zoom_share = 1.0  # an ancestor matches: the whole zoomed frame is in it
            else:
                sub = top[z : z + size]
                zoom_share = float(widths[z : z + size][sub].sum() / span) if span > 0 else 0.0
        return FlameSearch(
            pattern,
            np.flatnonzero(hit).astype(INT),
            value,
            share,
            zoom_share,
            np.flatnonzero(named).astype(INT),
        )


def flame_layout(
    data: Any,
    metric: Any = None,
    statistic: str = "mean",
    compare: Any = None,
    alpha: float = 0.05,
) -> FlameLayout:
    """The flame graph of a GraphFrame or Ensemble (or, with ``compare``, of two: see
    :mod:`perfweave.calltree.flame_compare`), laid out."""
    if compare is not None:
        from perfweave.calltree.flame_compare import compare_layout

        return compare_layout(data, compare, metric, statistic, alpha)
    values = node_values(data, metric, statistic)
    x0, x1, total = layout_x(values.graph, values.inclusive)
    return FlameLayout(values, x0, x1, total)


def flame_frames(data: Any, metric: Any = None, statistic: str = "mean") -> pd.DataFrame:
    """The drawn rectangles of ``data``'s flame graph (:meth:`FlameLayout.frames`)."""
    return flame_layout(data, metric, statistic).frames()


def flame_metrics(data: Any) -> list[str]:
    """The inclusive metrics a flame graph of ``data`` can be drawn by, by the names the
    drawn graph carries: the inclusive metrics, then the inclusive partner of each exclusive
    one without a measured partner (computed from it; not for points in time nor for
    statistics such as ``avg#time.duration``: :func:`~perfweave.calltree.shown.is_amount`)."""
    out = [str(m) for m in data.inc_metrics]
    for m in data.exc_metrics:
        if is_amount(m):
            out.append(inclusive_name(str(m)))
    return list(dict.fromkeys(out))


def split_groups(ens: Ensemble, groups: Any) -> tuple[Ensemble, Ensemble, tuple[str, str]]:
    """Two groups of one ensemble's profiles, as two ensembles and their labels.

    ``groups`` is ``(column, value_a, value_b)`` (the profiles whose metadata ``column``
    holds each value) or two lists of profiles. An empty group is an error naming it, and so
    are two groups of one profile each (no test of a difference is possible: compare the two
    profiles with ``compare=`` to see the raw difference)."""
    meta = ens.metadata
    if isinstance(groups, tuple) and len(groups) == 3 and not isinstance(groups[0], list):
        column, va, vb = groups
        if column not in meta.columns:
            cols = ", ".join(str(c) for c in list(meta.columns)[:15])
            raise ShapeError(f"groups: no metadata column {column!r} (columns: {cols})")
        sides = [list(meta.index[meta[column] == v]) for v in (va, vb)]
        labels = (f"{column} = {va}", f"{column} = {vb}")
        for side, value in zip(sides, (va, vb), strict=True):
            if not side:
                present = ", ".join(map(str, pd.unique(meta[column].dropna())[:15]))
                raise ShapeError(f"groups: no profile has {column} = {value!r} (values: {present})")
    elif isinstance(groups, (tuple, list)) and len(groups) == 2:
        sides = [list(g) for g in groups]
        labels = (f"{len(sides[0])} profiles", f"{len(sides[1])} profiles")
        for k, side in enumerate(sides):
            if not side:
                raise ShapeError(f"groups: group {'ab'[k]} names no profile")
            missing = [p for p in side if p not in meta.index]
            if missing:
                raise ShapeError(f"groups: {missing[0]!r} is not a profile of the ensemble")
    else:
        raise ShapeError(
            "groups is (metadata column, value a, value b) or two lists of profiles, "
            f"not {groups!r}"
        )
    if len(sides[0]) == 1 and len(sides[1]) == 1:
        raise ShapeError(
            "groups: each group holds one profile, so no difference can be tested; "
            "compare the two profiles with compare= to see the raw difference"
        )
    return ens.filter_profile(sides[0]), ens.filter_profile(sides[1]), labels


class MeasuredFlame:
    """The flame graph of measured data: a GraphFrame or Ensemble, or two compared
    (``compare=``, or ``groups=`` of one ensemble, :func:`split_groups`). :meth:`layout` lays
    out one metric; a FlameGraph draws it. ``labels`` name the two sides of a comparison."""

    def __init__(
        self,
        data: Any,
        *,
        statistic: str = "mean",
        compare: Any = None,
        groups: Any = None,
        alpha: float = 0.05,
        labels: tuple[str, str] | None = None,
    ) -> None:
        if groups is not None:
            from perfweave.ensemble.ensemble import Ensemble

            if compare is not None:
                raise ShapeError("give compare= or groups=, not both")
            if not isinstance(data, Ensemble):
                raise ShapeError(f"groups= splits an Ensemble, not a {type(data).__name__}")
            data, compare, group_labels = split_groups(data, groups)
            labels = labels or group_labels
        labels = labels or ("a", "b")
        if len(labels) != 2:
            raise ShapeError(f"labels names the two sides of a comparison, not {labels!r}")
        self.data, self.compare = data, compare
        self.statistic, self.alpha = statistic, alpha
        self.labels = (str(labels[0]), str(labels[1]))

    @property
    def metrics(self) -> list[str]:
        """The metrics a flame graph of the data can be drawn by (:func:`flame_metrics`)."""
        return flame_metrics(self.data)

    def layout(self, metric: Any = None) -> FlameLayout:
        """The laid-out flame graph of ``metric`` (default: the data's default)."""
        return flame_layout(self.data, metric, self.statistic, self.compare, self.alpha)
