"""Finding nodes: in one tree by id, Node or name, and across trees by call path.

- :func:`find_nodes` / :func:`find_node`: the node ids a person means by an id, a
  :class:`~perfweave.calltree.graph.Node` or an exact name (every view and study asks here,
  and a failure is always a :class:`~perfweave.errors.GraphError`);
- :class:`PathMatcher` (and :func:`match_nodes`): the nodes of a tree made from another by
  filters, squashes, drops or a focus, matched back to that other tree's nodes by call path.
  A column computed on one tree (a scaling model per node) is shown on the other this way.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.display import node_names, path_keys
from perfweave.calltree.graph import Graph, Node
from perfweave.errors import GraphError

INT = np.int64
#: the unmatched roots (a focus makes its node a root) matched by the best subtree, and the
#: reference nodes of a root's name tried for each: each try costs a pass over a subtree
MOST_ROOTS = 20
MOST_CANDIDATES = 50


def find_nodes(names: np.ndarray, nodes: Any, where: str = "the shown tree") -> np.ndarray:
    """The node ids meant by ``nodes``: an id, a Node, an exact name (all nodes of that
    name) or a list of them, in the tree whose node names are ``names`` (an array, or
    anything ``np.asarray`` makes one of, read only when a name is looked up). Raises
    GraphError naming the item and what the tree has."""
    many = isinstance(nodes, Iterable) and not isinstance(nodes, (str, Node))
    items = list(nodes) if many else [nodes]
    n = len(names)
    ids: list[int] = []
    for item in items:
        if isinstance(item, Node):
            item = item.nid
        if isinstance(item, str):
            found = np.flatnonzero(np.asarray(names) == item)
            if not len(found):
                raise GraphError(f"no node named {item!r} in {where}")
            ids.extend(found.tolist())
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool) and 0 <= item < n:
            ids.append(int(item))
        else:
            raise GraphError(
                f"no node {item!r} in {where}: pass node ids 0..{n - 1}, Node objects or names"
            )
    return np.asarray(ids, dtype=INT)


def find_node(names: np.ndarray, node: Any, where: str = "the shown tree") -> int:
    """The one node meant by ``node`` (:func:`find_nodes`); a name shared by several nodes
    is a GraphError listing some of their ids."""
    ids = np.unique(find_nodes(names, node, where))
    if len(ids) != 1:
        shown = ", ".join(map(str, ids[:5])) + (", ..." if len(ids) > 5 else "")
        raise GraphError(f"{len(ids)} nodes are named {node!r}: pass one node id ({shown})")
    return int(ids[0])


@dataclass(frozen=True)
class _Forest:
    """The parent and depth arrays :func:`path_keys` reads, of a subtree cut out as a tree."""

    parent: np.ndarray
    depth: np.ndarray

    def __len__(self) -> int:
        return len(self.parent)


class PathMatcher:
    """Matches the nodes of other trees to the nodes of ``reference`` by call path.

    ``names``: the reference's node names the paths are made of (default: the frames'
    names as :func:`~perfweave.calltree.display.node_names` gives them); a tree matched to
    it is named the same way. The reference's path keys are computed once, when first
    needed."""

    def __init__(self, reference: Graph, names: np.ndarray | None = None) -> None:
        self.graph = reference
        self.names = _names(reference, names)

    @functools.cached_property
    def keys(self) -> np.ndarray:
        """The call-path key of each reference node."""
        return path_keys(self.graph, self.names)

    def match(self, graph: Graph, names: np.ndarray | None = None) -> np.ndarray:
        """For each node of ``graph`` the reference node on the same call path (-1: none).

        ``graph`` is the reference itself (each node is its own match) or a tree made from
        it by filters, squashes, drops or a focus. A node that became a root (a focus) is
        matched, with its subtree, to the reference node of its name whose subtree matches
        best."""
        if graph is self.graph:
            return np.arange(len(graph), dtype=INT)
        names = _names(graph, names)
        keys = path_keys(graph, names)
        out = _lookup(self.keys, np.arange(len(self.graph), dtype=INT), keys)
        if (out >= 0).all():
            return out
        roots = [r for r in np.flatnonzero(np.asarray(graph.parent) < 0) if out[r] < 0]
        for r in roots[:MOST_ROOTS]:
            best, best_hits = None, 0
            for c in np.flatnonzero(self.names == names[r])[:MOST_CANDIDATES]:
                hits = _lookup(self._keys_below(int(c)), self.graph.subtree(int(c)), keys)
                count = int(((hits >= 0) & (out < 0)).sum())
                if count > best_hits:
                    best, best_hits = hits, count
            if best is not None:
                out = np.where((out < 0) & (best >= 0), best, out)
        return out

    def _keys_below(self, top: int) -> np.ndarray:
        """The call-path keys of ``top``'s subtree (in ``subtree`` order) with ``top`` as
        its root: the keys its nodes have in a tree focused on ``top``."""
        sub = self.graph.subtree(top)
        at = np.full(len(self.graph), -1, INT)
        at[sub] = np.arange(len(sub), dtype=INT)
        parent = np.asarray(self.graph.parent, dtype=INT)[sub]
        parent = np.where(parent >= 0, at[np.maximum(parent, 0)], -1)
        parent[0] = -1
        depth = np.asarray(self.graph.depth, dtype=INT)[sub] - int(self.graph.depth[top])
        return path_keys(_Forest(parent, depth), self.names[sub])  # type: ignore[arg-type]


def match_nodes(
    graph: Graph,
    reference: Graph,
    names: np.ndarray | None = None,
    reference_names: np.ndarray | None = None,
) -> np.ndarray:
    """For each node of ``graph`` the node of ``reference`` on the same call path (-1:
    none): :meth:`PathMatcher.match` once (keep a PathMatcher to match several trees)."""
    return PathMatcher(reference, reference_names).match(graph, names)


def _names(graph: Graph, names: Iterable[Any] | None) -> np.ndarray:
    if names is None:
        return node_names(graph, pd.DataFrame(index=pd.Index([], name="node")))
    out = np.asarray(names, dtype=object)
    if len(out) != len(graph):
        raise GraphError(f"{len(out)} node names for a tree of {len(graph)} nodes")
    return out


def _lookup(keys: np.ndarray, ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """``ids`` at the positions of ``wanted`` in ``keys`` (the first of repeated keys; -1
    where absent)."""
    table = pd.Series(np.asarray(ids, dtype=INT), index=keys)
    table = table[~table.index.duplicated()]
    return table.reindex(wanted).fillna(-1).to_numpy(dtype=INT)
