"""What a view of a calltree needs from the core: node names, display trees, preorder.

A table or text view shows one line per call path. These functions give it, for a
GraphFrame's graph (or an Ensemble's, which has the same shape):

- :func:`node_names`: one readable name per node, the same names ``tree()`` prints (a
  source-line node of an HPCToolkit database is ``barrier.c:397``, never ``nan``);
- :func:`display_tree`: the tree a view draws (a DAG unrolled into one display node per
  path from a root);
- (a metric per node and rank or thread, for drawing its spread, is
  :func:`perfweave.calltree.ranks.rank_cells`: the one rule of reducing ranks and threads);
- :func:`metric_unit`: the unit a metric's name says it has (``s``, ``B``...);
- :func:`path_keys`: a key per node naming its call path, equal across frames (a view
  that keeps per-node annotations across a filter matches them by it);
- :func:`children_csr`, :func:`gather_children` and :func:`preorder`: the forest
  algorithms a view sorts and opens rows with, vectorised level by level;
  :func:`preorder_of` puts some of a forest's nodes (the rows shown) in its preorder without
  laying out the whole forest.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from perfweave.calltree import _forest
from perfweave.calltree._layout import first_rows
from perfweave.errors import GraphError

if TYPE_CHECKING:
    from perfweave.calltree.graph import Graph

INT = np.int64

#: a DAG whose unrolled paths exceed this is refused (filter or focus it first)
MAX_PATHS = 5_000_000

children_csr = _forest.children_csr
gather_children = _forest.gather_children


def preorder(parent: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Preorder of a forest given as a parent array (``-1``: a root), children by ``key``.

    Returns ``pos`` (each node's preorder position), ``depth`` and ``size`` (the number of
    nodes of its subtree, itself included), all indexed by node id. Roots and each node's
    children come in (``key``, id) order.
    """
    return _forest.tree_layout(np.asarray(parent, dtype=INT), np.asarray(key, dtype=INT))


def preorder_of(parent: np.ndarray, members: np.ndarray, key: np.ndarray) -> np.ndarray:
    """``members`` of a forest in its preorder, children by (``key``, id), laid out on their
    own: the rows a view shows are put in order at a cost that grows with their number, not
    with the forest's.

    ``parent``: the forest's parent array (``-1``: a root). ``members``: node ids in
    ascending order, closed under ``parent`` (each member's parent is a member, or it is a
    root). ``key``: one int per member. The order is the one :func:`preorder` gives these
    nodes for any key over the whole forest that orders each member's children as ``key``
    does (a preorder restricted to a set closed under parents is the set's own preorder).
    """
    members = np.asarray(members, dtype=INT)
    k = len(members)
    if k and np.any(members[1:] <= members[:-1]):
        raise GraphError("preorder_of takes node ids in ascending order, each once")
    up = np.asarray(parent, dtype=INT)[members]
    local = np.minimum(np.searchsorted(members, up), max(k - 1, 0))
    inside = (up >= 0) & (members[local] == up) if k else np.zeros(0, bool)
    if np.any((up >= 0) & ~inside):
        lost = int(members[np.flatnonzero((up >= 0) & ~inside)[0]])
        raise GraphError(f"node {lost} is given without its parent {int(parent[lost])}")
    pos, _, _ = _forest.tree_layout(np.where(inside, local, -1), np.asarray(key, dtype=INT))
    out = np.empty(k, INT)
    out[pos] = members
    return out


# (pattern in the metric's name, unit): only names that carry their unit unambiguously
_UNITS = (
    ("(usec)", "µs"),
    ("(msec)", "ms"),
    ("(nsec)", "ns"),
    ("(sec)", "s"),
    ("time.duration", "s"),  # Caliper's timer attribute (seconds)
    ("time/rank", "s"),  # Caliper's aliases of it (Avg time/rank ...)
    ("total time", "s"),
    ("bytes", "B"),
    ("flops", "flop"),
)


def metric_unit(name: str) -> str:
    """The unit a metric's name declares: ``s`` for Caliper's ``time.duration`` and its
    aliases (``Avg time/rank``, ``Total time``), ``µs`` for HPCToolkit's ``(usec)``, ``B``
    for byte counts (``Bytes/Rep``), ``flop`` for flop counts; ``""`` when the name does
    not say (a bare ``time`` is seconds in one format and microseconds in another)."""
    low = str(name).lower()
    for pattern, unit in _UNITS:
        if pattern in low:
            return unit
    return ""


_DERIVED = re.compile(r" (\(inc\)|\(exc\)|\[a\]|\[b\])$")


def unit_in(units: dict[str, str], metric: str) -> str:
    """The unit of ``metric`` given the units a reader recorded: its own, else that of the
    column it derives from (``time (inc)`` from ``time``, ``time [a]`` in a comparison),
    else what its name declares (:func:`metric_unit`), else ``""``."""
    name = str(metric)
    while name not in units:
        base = _DERIVED.sub("", name)
        if base == name:
            return metric_unit(str(metric))
        name = base
    return units[name]


def node_names(graph: Graph, dataframe: pd.DataFrame, column: str = "name") -> np.ndarray:
    """One name per graph node (object array of ``str``): the names ``tree()``, the writers
    and the widgets show.

    The dataframe's ``column`` at the node's first row comes first, as in Hatchet: readers
    put the displayed name there (HPCToolkit names a statement ``barrier.c:397`` in the
    table while its frame has no ``name``), and a name changed in the table shows. Where
    the table has none (or a blank one), the frame's ``column``; a node with neither is
    named by what identifies it: its frame's ``file`` and ``line`` (``barrier.c:397``), else
    its other frame attributes (``module=libcuda.so``; not ``type``, which every node has),
    else ``(unnamed) under <its nearest named ancestor>`` (``(unnamed root)`` for a root).
    No node is ever named ``nan`` or shown blank, and a search finds every node by the
    name shown.
    """
    n = len(graph)
    frames = graph.frames
    names = np.full(n, None, dtype=object)
    if column in dataframe.columns and len(dataframe):
        node = np.asarray(dataframe.index.get_level_values("node"), dtype=INT)
        first = first_rows(node)
        nodes = node[first]
        keep = (nodes >= 0) & (nodes < n)
        names[nodes[keep]] = _column_at(dataframe[column], first[keep])
    coded = _text_codes(names)
    missing = _unnamed(names, coded)
    if missing.any():
        coded = None  # names change below
    if missing.any() and column in frames.columns:
        names[missing] = frames[column].to_numpy(dtype=object)[missing]
        missing = _unnamed(names)
    if missing.any():
        names[missing] = _frame_labels(frames, np.flatnonzero(missing), column)
        missing = _unnamed(names)
    if missing.any():
        names[missing] = _placed(graph, names, missing)
    return _as_text(names, coded) if n else names


def _column_at(column: pd.Series, rows: np.ndarray) -> np.ndarray:
    """``column``'s values at row positions ``rows``, as an object array (an object column
    is taken from directly: no index is built for the rows taken)."""
    if column.dtype == object:
        return column.to_numpy()[rows]
    return column.iloc[rows].to_numpy(dtype=object)


class NodeNames:
    """:func:`node_names` of a graph and its dataframe, worked out only for the nodes asked
    for until all of them are needed: a view's first rows need a few hundred names of a
    million nodes, a search needs all.

    :meth:`of` gives the names of some nodes; :attr:`all` (also ``np.asarray(names)``)
    every name, computed once. The names are the same either way: each node's name comes
    from its own first row or frame; only an unnamed node (named after its nearest named
    ancestor) needs the others, and :meth:`of` then takes it from :attr:`all`.
    """

    def __init__(self, graph: Graph, dataframe: pd.DataFrame, column: str = "name") -> None:
        self.graph, self.dataframe, self.column = graph, dataframe, column
        self._all: np.ndarray | None = None
        self._first: np.ndarray | None = None  # each node's first row (-1: none)
        self._asked = False  # whether a first window's names were worked out
        self._kept: tuple[np.ndarray, np.ndarray] | None = None  # names so far, and where

    def __len__(self) -> int:
        return len(self.graph)

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        return self.all if dtype is None else self.all.astype(dtype)

    @property
    def complete(self) -> bool:
        """Whether every node's name has been worked out (:attr:`all` was needed)."""
        return self._all is not None

    @property
    def all(self) -> np.ndarray:
        """Every node's name (:func:`node_names`)."""
        if self._all is None:
            self._all = node_names(self.graph, self.dataframe, self.column)
        return self._all

    def _first_rows_of(self, nodes: np.ndarray) -> np.ndarray:
        """The first row of each of ``nodes`` in the dataframe (-1: it has none): looked up
        in a table sorted by a one-level node index (the usual case), else from
        :meth:`_first_rows`."""
        index = self.dataframe.index
        if self._first is None and index.nlevels == 1 and index.is_monotonic_increasing:
            node = np.asarray(index, dtype=INT)  # the index's own array: no copy
            at = np.minimum(np.searchsorted(node, nodes), len(node) - 1)
            return np.where(node[at] == nodes, at, -1)
        return self._first_rows()[nodes]

    def _first_rows(self) -> np.ndarray:
        """Each node's first row in the dataframe (-1: it has none), found once: then the
        names of any window of rows are read at its nodes' rows alone."""
        if self._first is None:
            n = len(self.graph)
            node = np.asarray(self.dataframe.index.get_level_values("node"), dtype=INT)
            first = first_rows(node)
            nodes = node[first]
            keep = (nodes >= 0) & (nodes < n)
            self._first = np.full(n, -1, INT)
            self._first[nodes[keep]] = first[keep]
        return self._first

    def of(self, nodes: np.ndarray) -> np.ndarray:
        """The names of ``nodes`` (node ids), as ``all[nodes]``. From the second call on,
        names worked out are kept, so a window of rows asked again costs a lookup."""
        nodes = np.asarray(nodes, dtype=INT)
        if self._all is not None:
            return self._all[nodes]
        if not len(nodes):
            return np.zeros(0, dtype=object)
        if self._kept is None:
            if not self._asked:  # the first window: nothing kept (no n-sized array yet)
                self._asked = True
                return self._work_out(nodes)
            self._kept = (np.full(len(self.graph), None, dtype=object), np.zeros(len(self), bool))
        kept, known = self._kept
        new = np.unique(nodes[~known[nodes]])
        if len(new):
            names = self._work_out(new)
            if self._all is not None:  # an unnamed node needed all the names
                return self._all[nodes]
            kept[new] = names
            known[new] = True
        return kept[nodes]

    def _work_out(self, nodes: np.ndarray) -> np.ndarray:
        """The names of ``nodes`` from their first rows and frames (from :attr:`all` when
        one is named after an ancestor)."""
        df, column = self.dataframe, self.column
        names = np.full(len(nodes), None, dtype=object)
        if column in df.columns and len(df):
            rows = self._first_rows_of(nodes)
            has = rows >= 0
            names[has] = _column_at(df[column], rows[has])
        missing = _unnamed(names)
        frames = self.graph.frames
        if missing.any() and column in frames.columns:
            names[missing] = frames[column].iloc[nodes[missing]].to_numpy(dtype=object)
            missing = _unnamed(names)
        if missing.any():
            names[missing] = _frame_labels(frames, nodes[missing], column)
            missing = _unnamed(names)
        if missing.any():  # named after an ancestor: the whole tree's names are needed
            return self.all[nodes]
        return _as_text(names, None)


def _text_codes(names: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and distinct values of ``names`` when every name there is a ``str`` or missing
    (None, NaN; code -1), else None. Names repeat (a function is called from many places),
    so checks and conversions of the distinct values stand for all of them."""
    if pd.api.types.infer_dtype(names, skipna=True) not in ("string", "empty"):
        return None
    codes, uniques = pd.factorize(names, use_na_sentinel=True)
    return codes, np.asarray(uniques, dtype=object)


def _unnamed(names: np.ndarray, coded: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """True where a name is missing (None, NaN) or blank (``""``, spaces)."""
    coded = _text_codes(names) if coded is None else coded
    if coded is not None:
        codes, uniques = coded
        blank = np.array([not u.strip() for u in uniques] + [True], dtype=bool)
        return blank[codes]  # code -1 (missing) picks the last entry
    series = pd.Series(names, dtype=object)
    blank = series.str.strip().eq("").to_numpy(dtype=bool, na_value=False)
    return pd.isna(names) | blank


def _as_text(names: np.ndarray, coded: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """Every name as a plain ``str`` (object array); ``coded``: :func:`_text_codes` of
    ``names`` when every name is a ``str``."""
    if coded is not None and not np.any(coded[0] < 0):
        codes, uniques = coded
        return np.array([str(u) for u in uniques], dtype=object)[codes]
    return np.array([str(x) for x in names], dtype=object)


def _placed(graph: Graph, names: np.ndarray, unnamed: np.ndarray) -> np.ndarray:
    """``(unnamed) under <name>`` for the unnamed nodes: the name of the nearest ancestor
    that has one (first parents in a DAG), ``(unnamed root)`` when none has."""
    parent = np.asarray(graph.parent, dtype=INT)
    up = parent[np.flatnonzero(unnamed)]
    for _ in range(len(parent)):  # at most the depth: climb past unnamed ancestors
        climb = (up >= 0) & unnamed[np.maximum(up, 0)]
        if not climb.any():
            break
        up = np.where(climb, parent[np.maximum(up, 0)], up)
    above = names[np.maximum(up, 0)].astype(str)
    return np.where(up >= 0, "(unnamed) under " + above.astype(object), "(unnamed root)")


def _frame_labels(frames: pd.DataFrame, ids: np.ndarray, column: str = "name") -> np.ndarray:
    """``file:line`` (the file's base name) where a frame has them, else its other
    attributes as ``key=value ...`` (None where it has none but ``type``)."""
    out = np.empty(len(ids), dtype=object)
    sub = frames.iloc[ids]
    has_file = (
        ~pd.isna(sub["file"]).to_numpy() if "file" in sub.columns else np.zeros(len(ids), bool)
    )
    if has_file.any():
        files = sub["file"].to_numpy(dtype=object)[has_file]
        base = np.array([os.path.basename(str(f)) or str(f) for f in files], dtype=object)
        if "line" in sub.columns:
            line = sub["line"].to_numpy(dtype=object)[has_file]
            base = np.where(
                pd.isna(line), base, base + ":" + pd.Series(line).astype(str).to_numpy()
            )
        out[has_file] = base
    rest = np.flatnonzero(~has_file)
    if len(rest):
        rows = sub.iloc[rest]
        rows = rows.drop(columns=[c for c in (column, "type") if c in rows.columns])
        out[rest] = [
            " ".join(f"{k}={v}" for k, v in row.items() if not pd.isna(v) and str(v).strip())
            or None
            for _, row in rows.iterrows()
        ]
    return out


def path_keys(graph: Graph, names: np.ndarray | None = None) -> np.ndarray:
    """A uint64 key per node for its call path (the names from its root down to it).

    Two nodes of two frames (before and after a filter, or two runs) that sit on the same
    path of names get the same key; different paths get different keys (a 64-bit hash per
    level: a collision needs ~4e9 distinct paths). In a DAG a node's key follows its first
    parent. ``names`` defaults to :func:`node_names` of the frames.
    """
    n = len(graph)
    if names is None:
        names = node_names(graph, pd.DataFrame(index=pd.Index([], name="node")))
    codes = pd.util.hash_array(np.asarray(names, dtype=object)).astype(np.uint64)
    parent = np.asarray(graph.parent, dtype=INT)
    key = np.zeros(n, np.uint64)
    with np.errstate(over="ignore"):
        for level in _forest.level_order(np.asarray(graph.depth, dtype=INT)):
            up = parent[level]
            base = np.where(up >= 0, key[np.maximum(up, 0)], np.uint64(0x9E3779B97F4A7C15))
            mixed = base * np.uint64(0x100000001B3) ^ codes[level]
            key[level] = pd.util.hash_array(mixed).astype(np.uint64)
    return key


def display_tree(graph: Graph, max_paths: int = MAX_PATHS) -> tuple[np.ndarray, np.ndarray]:
    """The tree a view draws: (graph node of each display node, display parent or -1).

    A tree is its own display tree. A DAG is unrolled level by level, one display node per
    path from a root; a path never repeats a node (a cycle is cut where it closes). Raises
    :class:`~perfweave.errors.GraphError` when the paths exceed ``max_paths``.
    """
    n = len(graph)
    if graph.is_tree():
        return np.arange(n, dtype=INT), np.asarray(graph.parent, dtype=INT)
    ptr, idx = graph.children_csr()
    frontier = graph.root_ids.astype(INT)
    all_nodes = frontier
    all_parents = np.full(len(frontier), -1, INT)
    offset, total = 0, len(frontier)
    for _depth in range(n):
        if not len(frontier):
            break
        kids, counts = gather_children(ptr, idx, frontier)
        par = np.repeat(np.arange(offset, offset + len(frontier), dtype=INT), counts)
        keep = _not_on_path(kids, par, all_nodes, all_parents)
        kids, par = kids[keep], par[keep]
        total += len(kids)
        if total > max_paths:
            raise GraphError(
                f"this call graph has more than {max_paths:,} distinct call paths; "
                "filter or focus it before showing it as a tree"
            )
        offset += len(frontier)
        all_nodes = np.concatenate([all_nodes, kids])
        all_parents = np.concatenate([all_parents, par])
        frontier = kids
    return all_nodes, all_parents


def _not_on_path(
    kids: np.ndarray, par: np.ndarray, nodes: np.ndarray, parents: np.ndarray
) -> np.ndarray:
    """True for each candidate child whose graph node is not already on its own path."""
    keep = np.ones(len(kids), bool)
    cur = par.copy()
    while len(cur):
        live = cur >= 0
        if not live.any():
            break
        keep &= ~(live & (nodes[np.maximum(cur, 0)] == kids))
        cur = np.where(live, parents[np.maximum(cur, 0)], -1)
    return keep
