"""Graph and Node: the calltree (or call DAG) of a profile, stored as arrays.

A :class:`Graph` is immutable. Its nodes are numbered ``0..n-1`` in canonical preorder:
roots first in frame order, then each node's children in frame order (or in the reader's
"node order" where the format has one), each node once. Parents and children are CSR
index arrays; frames are a table with one row per node. :class:`Node` objects are light
views (graph, id) handed out for Hatchet-style code; the hot paths never create them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree import _forest
from perfweave.calltree._frames import frame_at, frame_codes, normalize_table
from perfweave.calltree.frame import Frame
from perfweave.errors import ArgumentError, GraphError

INT = np.int64


class Node:
    """A view of one node of a graph: its frame, parents and children."""

    __slots__ = ("graph", "nid")

    def __init__(self, graph: Graph, nid: int) -> None:
        self.graph = graph
        self.nid = int(nid)

    @property
    def frame(self) -> Frame:
        return self.graph.frame(self.nid)

    @property
    def _hatchet_nid(self) -> int:
        return self.nid

    @property
    def depth(self) -> int:
        return int(self.graph.depth[self.nid])

    _depth = depth

    @property
    def children(self) -> list[Node]:
        return [Node(self.graph, c) for c in self.graph.children_of(self.nid)]

    @property
    def parents(self) -> list[Node]:
        return [Node(self.graph, p) for p in self.graph.parents_of(self.nid)]

    def paths(self) -> list[tuple[Node, ...]]:
        """Every path from a root to this node, as tuples of nodes."""
        out: list[tuple[Node, ...]] = []
        # depth first over the parents, without recursion (a path may be any length):
        # a partial path is a linked (node, rest) pair from its top node down to self
        stack: list[tuple[Node, Any]] = [(self, None)]
        while stack:
            link = stack.pop()
            parents = link[0].parents
            if parents:
                stack.extend((p, link) for p in reversed(parents))
                continue
            path = []
            while link is not None:
                path.append(link[0])
                link = link[1]
            out.append(tuple(path))
        return out

    def path(self) -> tuple[Node, ...]:
        """The path from the root (a tree has one; a DAG node with several raises)."""
        paths = self.paths()
        if len(paths) > 1:
            raise GraphError(f"node {self.nid} ({self.frame.get('name')}) has {len(paths)} paths")
        return paths[0]

    def traverse(self, order: str = "pre") -> Iterator[Node]:
        """This node and its descendants, each once, in preorder (or postorder)."""
        yield from self.graph._traverse_from([self.nid], order)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and other.graph is self.graph and other.nid == self.nid

    def __lt__(self, other: Node) -> bool:
        return self.nid < other.nid

    def __hash__(self) -> int:
        return self.nid

    def __str__(self) -> str:
        return str(self.frame.get("name", self.frame))

    def __repr__(self) -> str:
        return f"Node({self.nid}, {self.frame})"


class Graph:
    """An immutable forest or DAG of frames, numbered in canonical preorder."""

    def __init__(self, *_: Any, **__: Any) -> None:
        raise TypeError(
            "build graphs with Graph.from_lists, Graph.from_parents or Graph.from_edges"
        )

    # ------------------------------------------------------------------ construction
    @classmethod
    def _new(
        cls,
        frames: pd.DataFrame,
        parent: np.ndarray | None,
        edges: tuple[np.ndarray, np.ndarray] | None,
        order_key: np.ndarray | None = None,
        codes: tuple[np.ndarray, np.ndarray] | None = None,
        rows: np.ndarray | None = None,
    ) -> tuple[Graph, np.ndarray]:
        """Build from a frame table and a parent array or an edge list.

        Returns the graph and ``pos``: input node id -> canonical node id. ``codes``
        (frame code and rank per node) may be passed when they are already known, as they
        are for nodes taken from existing graphs; the table is then used as it is, and
        ``rows`` (with ``codes`` only) names each node's row of it, so that the frames
        are taken from the table once, in canonical order.
        """
        if codes is None:
            frames = normalize_table(frames)
            code, rank = frame_codes(frames)
        else:
            if rows is None:
                frames = frames.reset_index(drop=True)
            code, rank = codes
        if rows is not None and parent is None:
            frames = frames.iloc[rows].reset_index(drop=True)
            rows = None
        n = len(frames) if rows is None else len(rows)
        key = rank if order_key is None else np.asarray(order_key)
        if parent is None:
            src, dst = (np.asarray(e, dtype=INT) for e in edges)
            _check_ids(n, src, "edge source")
            _check_ids(n, dst, "edge target")
            # drop repeated edges; keep the first occurrence order
            if len(src):
                pairs = np.unique(np.stack([src, dst], axis=1), axis=0)
                src, dst = pairs[:, 0], pairs[:, 1]
            indeg = np.bincount(dst, minlength=n)
            if len(indeg) and indeg.max(initial=0) <= 1:
                parent = np.full(n, -1, INT)
                parent[dst] = src
            else:
                return cls._new_dag(frames, code, rank, key, src, dst)
        parent = np.asarray(parent, dtype=INT)
        if len(parent) != n:
            raise GraphError(f"{len(parent)} parent entries for {n} frames")
        _check_ids(n, parent[parent >= 0], "parent")
        if np.any(parent == np.arange(n)):
            bad = int(np.flatnonzero(parent == np.arange(n))[0])
            raise GraphError(f"node {bad} is its own parent (a cycle)")
        pos, depth, size = _forest.tree_layout(parent, key)
        inv = np.empty(n, INT)
        inv[pos] = np.arange(n, dtype=INT)
        new_parent = np.where(parent[inv] >= 0, pos[np.maximum(parent[inv], 0)], -1)
        g = cls._assemble(
            frames.iloc[inv if rows is None else rows[inv]].reset_index(drop=True),
            code[inv],
            rank[inv],
            None if order_key is None else np.asarray(order_key)[inv],
            new_parent,
            depth[inv],
            size[inv],
        )
        return g, pos

    @classmethod
    def _assemble(cls, frames, code, rank, order_key, parent, depth, size) -> Graph:
        """A tree graph from arrays already in canonical preorder."""
        g = object.__new__(cls)
        n = len(parent)
        g._frames, g._code, g._rank, g._order_key = frames, code, rank, order_key
        g._parent, g._depth, g._size, g._tree = parent, depth, size, True
        g._roots = np.flatnonzero(parent < 0).astype(INT)
        child_idx = np.flatnonzero(parent >= 0).astype(INT)  # preorder: grouped? no -> sort
        child_idx = child_idx[np.argsort(parent[child_idx], kind="stable")]
        counts = np.bincount(parent[child_idx], minlength=n) if n else np.zeros(0, INT)
        g._child_ptr = np.zeros(n + 1, INT)
        np.cumsum(counts, out=g._child_ptr[1:])
        g._child_idx = child_idx
        g._parent_ptr = np.zeros(n + 1, INT)
        np.cumsum(parent >= 0, out=g._parent_ptr[1:])
        g._parent_idx = parent[parent >= 0]
        return g

    @classmethod
    def _new_dag(cls, frames, code, rank, key, src, dst) -> tuple[Graph, np.ndarray]:
        """Canonical numbering of a DAG (a node may have several parents): DFS, first visit."""
        n = len(frames)
        children: list[list[int]] = [[] for _ in range(n)]
        order = np.lexsort((dst, key[dst], src))
        for s, d in zip(src[order].tolist(), dst[order].tolist()):
            children[s].append(d)
        indeg = np.bincount(dst, minlength=n)
        roots = [int(r) for r in np.lexsort((np.arange(n), key)) if indeg[r] == 0]
        if not roots:
            raise GraphError("graph has no root: every node has a parent (a cycle)")
        pos = np.full(n, -1, INT)
        depth = np.zeros(n, INT)
        counter = 0
        on_path = np.zeros(n, bool)
        for r in roots:
            stack = [(r, 0, iter(children[r]))]
            pos[r], depth[r], on_path[r] = counter, 0, True
            counter += 1
            while stack:
                node, d, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    on_path[node] = False
                    stack.pop()
                    continue
                if on_path[nxt]:
                    raise GraphError(f"cycle: node {nxt} is its own ancestor")
                if pos[nxt] >= 0:
                    continue
                pos[nxt], depth[nxt], on_path[nxt] = counter, d + 1, True
                counter += 1
                stack.append((nxt, d + 1, iter(children[nxt])))
        if counter != n:
            lost = int(np.flatnonzero(pos < 0)[0])
            raise GraphError(
                f"node {lost} is not reachable from any root: its parents form a cycle"
            )
        inv = np.empty(n, INT)
        inv[pos] = np.arange(n, dtype=INT)
        g = object.__new__(cls)
        g._frames = frames.iloc[inv].reset_index(drop=True)
        g._code, g._rank = code[inv], rank[inv]
        g._order_key = None
        g._tree, g._size = False, None
        g._depth = depth[inv]
        nsrc, ndst = pos[src], pos[dst]
        o = np.lexsort((ndst, nsrc))
        g._child_idx = ndst[o]
        g._child_ptr = np.zeros(n + 1, INT)
        np.cumsum(np.bincount(nsrc, minlength=n), out=g._child_ptr[1:])
        o = np.lexsort((nsrc, ndst))
        g._parent_idx = nsrc[o]
        g._parent_ptr = np.zeros(n + 1, INT)
        np.cumsum(np.bincount(ndst, minlength=n), out=g._parent_ptr[1:])
        g._parent = np.full(n, -1, INT)
        has = np.diff(g._parent_ptr) > 0
        g._parent[has] = g._parent_idx[g._parent_ptr[:-1][has]]
        g._roots = np.flatnonzero(~has).astype(INT)
        return g, pos

    @classmethod
    def build(
        cls,
        frames: pd.DataFrame | Sequence[dict],
        *,
        parent: Sequence[int] | np.ndarray | None = None,
        edges: tuple[Sequence[int], Sequence[int]] | None = None,
        order_key: Sequence[int] | np.ndarray | None = None,
    ) -> tuple[Graph, np.ndarray]:
        """A graph from frame attributes (one per input node) and either ``parent`` ids
        (-1 for roots) or ``edges`` (parent ids, child ids), with ``pos``: each input
        node's canonical id, to remap data keyed by the input's ids. ``order_key`` (one
        integer per node) orders siblings instead of their frames (a recorded order)."""
        if (parent is None) == (edges is None):
            raise ArgumentError("give exactly one of parent= or edges=")
        table = frames if isinstance(frames, pd.DataFrame) else pd.DataFrame(list(frames))
        key = None if order_key is None else np.asarray(order_key, dtype=INT)
        if parent is not None:
            return cls._new(table, np.asarray(parent, dtype=INT), None, key)
        src, dst = edges
        return cls._new(table, None, (np.asarray(src, dtype=INT), np.asarray(dst, dtype=INT)), key)

    @classmethod
    def from_parents(cls, frames: pd.DataFrame | Sequence[dict], parent: Sequence[int]) -> Graph:
        """A forest from frame attributes (one per node) and parent ids (-1 for roots)."""
        table = frames if isinstance(frames, pd.DataFrame) else pd.DataFrame(list(frames))
        return cls._new(table, np.asarray(parent, dtype=INT), None)[0]

    @classmethod
    def from_edges(
        cls, frames: pd.DataFrame | Sequence[dict], src: Sequence[int], dst: Sequence[int]
    ) -> Graph:
        """A forest or DAG from frame attributes and (parent, child) edges."""
        table = frames if isinstance(frames, pd.DataFrame) else pd.DataFrame(list(frames))
        return cls._new(table, None, (np.asarray(src, dtype=INT), np.asarray(dst, dtype=INT)))[0]

    @classmethod
    def from_lists(cls, *roots: Any) -> Graph:
        """Hatchet's nested-list shorthand: ``Graph.from_lists(("a", ("b", "c"), "d"))``."""
        frames: list[dict] = []
        src: list[int] = []
        dst: list[int] = []

        def walk(item: Any, parent: int) -> None:
            if isinstance(item, (list, tuple)):
                if not item:
                    raise GraphError("empty list in Graph.from_lists")
                head, rest = item[0], item[1:]
            else:
                head, rest = item, ()
            if not isinstance(head, str):
                raise GraphError(f"Graph.from_lists wants names (str), got {head!r}")
            me = len(frames)
            frames.append({"name": head})
            if parent >= 0:
                src.append(parent)
                dst.append(me)
            for child in rest:
                walk(child, me)

        for root in roots:
            walk(root, -1)
        return cls.from_edges(frames, src, dst)

    # ------------------------------------------------------------------ accessors
    def __len__(self) -> int:
        return len(self._depth)

    @property
    def frames(self) -> pd.DataFrame:
        """The frame table: one row per node id, one column per attribute."""
        return self._frames

    @property
    def depth(self) -> np.ndarray:
        return self._depth

    @property
    def parent(self) -> np.ndarray:
        """First parent of each node (-1 for roots); in a tree, the parent."""
        return self._parent

    @property
    def subtree_size(self) -> np.ndarray | None:
        """Nodes in each node's subtree, itself included, for a tree (node ids are in
        canonical preorder, so node ``i``'s subtree is ``i .. i + size - 1``); None for a
        DAG."""
        return self._size

    @property
    def order_key(self) -> np.ndarray | None:
        """The key siblings are ordered by where the graph was built with one (a reader's
        node order), else None (siblings in the order of their frames)."""
        return self._order_key

    @property
    def root_ids(self) -> np.ndarray:
        return self._roots

    @property
    def roots(self) -> list[Node]:
        return [Node(self, r) for r in self._roots]

    @property
    def node_ordering(self) -> bool:
        """True when children follow the reader's node order instead of frame order."""
        return self._order_key is not None

    def is_tree(self) -> bool:
        """True when every node has at most one parent (a forest, as in Hatchet's sense
        extended to several roots)."""
        return self._tree

    def frame(self, nid: int) -> Frame:
        return frame_at(self._frames, int(nid))

    def node(self, nid: int) -> Node:
        if not 0 <= nid < len(self):
            raise GraphError(f"no node {nid} in a graph of {len(self)} nodes")
        return Node(self, nid)

    def children_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """Every node's children at once, as CSR arrays ``(ptr, idx)``: the children of
        node ``i`` are ``idx[ptr[i]:ptr[i + 1]]``, in frame order (read-only views)."""
        ptr, idx = self._child_ptr.view(), self._child_idx.view()
        ptr.flags.writeable = idx.flags.writeable = False
        return ptr, idx

    def parents_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """Every node's parents at once, as CSR arrays ``(ptr, idx)``: the parents of node
        ``i`` are ``idx[ptr[i]:ptr[i + 1]]`` (one for a tree node, none for a root, several
        in a DAG; read-only views)."""
        ptr, idx = self._parent_ptr.view(), self._parent_idx.view()
        ptr.flags.writeable = idx.flags.writeable = False
        return ptr, idx

    def children_of(self, nid: int) -> np.ndarray:
        return self._child_idx[self._child_ptr[nid] : self._child_ptr[nid + 1]]

    def parents_of(self, nid: int) -> np.ndarray:
        return self._parent_idx[self._parent_ptr[nid] : self._parent_ptr[nid + 1]]

    def subtree(self, nid: int) -> np.ndarray:
        """Ids of ``nid`` and all its descendants (each once)."""
        if self._tree:
            return np.arange(nid, nid + self._size[nid], dtype=INT)
        return np.fromiter((n.nid for n in self._traverse_from([nid], "pre")), INT)

    def traverse(
        self, order: str = "pre", attrs: str | Sequence[str] | None = None
    ) -> Iterator[Any]:
        """Nodes in canonical preorder (or postorder); with ``attrs``, their frame values."""
        for node in self._traverse_from(self._roots.tolist(), order):
            yield node if attrs is None else node.frame.values(attrs)

    def _traverse_from(self, starts: list[int], order: str) -> Iterator[Node]:
        if order not in ("pre", "post"):
            raise ArgumentError(f"order must be 'pre' or 'post', not {order!r}")
        if self._tree and order == "pre":
            for s in starts:
                for i in range(int(s), int(s + self._size[s])):
                    yield Node(self, i)
            return
        seen: set[int] = set()
        for s in starts:  # depth first with an explicit stack: any depth of graph
            stack: list[tuple[int, bool]] = [(int(s), False)]
            while stack:
                n, finished = stack.pop()
                if finished:  # all of n's children are done: n's place in postorder
                    yield Node(self, n)
                    continue
                if n in seen:
                    continue
                seen.add(n)
                if order == "pre":
                    yield Node(self, n)
                else:
                    stack.append((n, True))
                stack.extend((c, False) for c in reversed(self.children_of(n).tolist()))

    # ------------------------------------------------------------------ algebra
    def union(self, other: Graph) -> tuple[Graph, np.ndarray, np.ndarray]:
        """The union of two graphs and the maps from each one's node ids to the union's.

        Roots with equal frames merge, then children with equal frames under merged
        parents, along matching paths; a frame repeated among siblings pairs up in order.
        """
        if self is other:
            ident = np.arange(len(self), dtype=INT)
            return self, ident, ident
        union, maps = Graph.union_all([self, other])
        return union, maps[0], maps[1]

    def _sibling_occurrence(self, code: np.ndarray) -> np.ndarray:
        """For each node, how many earlier siblings share its frame (``code`` per node).

        Children in frame order put equal frames side by side, so a scan of neighbours
        finds them without hashing; node-ordered graphs take the general path.
        """
        n = len(self)
        if self._order_key is not None or n < 2:
            return _forest.occurrence(self._parent, code)
        seq = np.concatenate([self._roots, self._child_idx])
        same = (self._parent[seq[1:]] == self._parent[seq[:-1]]) & (code[seq[1:]] == code[seq[:-1]])
        if not same.any():
            return np.zeros(n, INT)
        return _forest.occurrence(self._parent, code)

    @staticmethod
    def union_all(graphs: Sequence[Graph]) -> tuple[Graph, list[np.ndarray]]:
        """The union of many graphs in one pass, and one old->new id map per graph.

        Equivalent to folding :meth:`union` pairwise, but every level of every graph is
        matched in one vectorised step, so P graphs cost about as much as one graph of
        their total size.
        """
        graphs = list(graphs)
        if not graphs:
            raise GraphError("union of no graphs")
        if len(graphs) == 1:
            return graphs[0], [np.arange(len(graphs[0]), dtype=INT)]
        if not all(g._tree for g in graphs):
            from perfweave.calltree._dag import union_dag

            union, maps = graphs[0], [np.arange(len(graphs[0]), dtype=INT)]
            for g in graphs[1:]:
                union, to_new, g_map = union_dag(union, g)
                maps = [to_new[m] for m in maps] + [g_map]
            return union, maps
        sizes = np.array([len(g) for g in graphs], dtype=INT)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        code, rank, table, row_of_code = _joint_frames(graphs)
        parent = np.concatenate(
            [np.where(g._parent >= 0, g._parent + off, -1) for g, off in zip(graphs, offsets)]
        )
        depth = np.concatenate([g._depth for g in graphs])
        dup = np.concatenate(
            [g._sibling_occurrence(code[off : off + len(g)]) for g, off in zip(graphs, offsets)]
        )
        group = _forest.merge_groups(parent, depth, code, dup)
        keys = [g._order_key for g in graphs]
        order_key = None if any(k is None for k in keys) else np.concatenate(keys)
        union, pos = Graph._from_groups(
            group, parent, code, rank, table, row_of_code[code], order_key
        )
        mapped = pos[group]
        return union, [mapped[off : off + len(g)] for g, off in zip(graphs, offsets)]

    def squash(self, keep: np.ndarray) -> tuple[Graph, np.ndarray]:
        """The graph on the kept nodes only, and the old->new id map (-1 where removed).

        Each kept node is wired to its nearest kept ancestor (all of them, in a DAG);
        kept nodes that become siblings with equal frames merge into one. The squashed
        graph is built once: merged nodes are found on the kept nodes' links before any
        layout, and a merged node takes its first member's place (its order key, where
        siblings follow a recorded order).
        """
        keep = np.asarray(keep, dtype=bool)
        if not self._tree:
            from perfweave.calltree._dag import squash_dag

            return squash_dag(self, keep)
        n = len(self)
        nka, kept_depth = _forest.squash_links(self._parent, self._depth, keep)
        kept = np.flatnonzero(keep)
        index = np.full(n, -1, INT)
        index[kept] = np.arange(len(kept), dtype=INT)
        parent = np.where(nka[kept] >= 0, index[np.maximum(nka[kept], 0)], -1)
        depth = kept_depth[kept]
        code, rank = self._code[kept], self._rank[kept]
        key = None if self._order_key is None else self._order_key[kept]
        if key is not None:
            # number the kept nodes in the squashed tree's canonical order, so that the
            # first member of a merged node is the first in that order
            pos, depth, _ = _forest.tree_layout(parent, key)
            inv = np.empty(len(kept), INT)
            inv[pos] = np.arange(len(kept), dtype=INT)
            parent = np.where(parent[inv] >= 0, pos[np.maximum(parent[inv], 0)], -1)
            kept, depth, code, rank, key = kept[inv], depth[inv], code[inv], rank[inv], key[inv]
        group = _forest.merge_groups(parent, depth, code)
        out = np.full(n, -1, INT)
        if len(group) == 0 or int(group.max()) + 1 == len(group):
            g, pos = Graph._new(self._frames, parent, None, key, codes=(code, rank), rows=kept)
            out[kept] = pos
            return g, out
        g, pos = Graph._from_groups(group, parent, code, rank, self._frames, kept, key)
        out[kept] = pos[group]
        return g, out

    @classmethod
    def _from_groups(cls, group, parent, code, rank, table, member_row, order_key=None):
        """A tree with one node per group (parent = the group of a member's parent).

        ``code``/``rank``/``member_row`` are per member; a group's frame is row
        ``member_row`` of ``table`` of its first member. Returns (graph, group ->
        canonical id).
        """
        n_groups = int(group.max()) + 1 if len(group) else 0
        rep = np.full(n_groups, len(group), INT)
        np.minimum.at(rep, group, np.arange(len(group), dtype=INT))
        rep_parent = parent[rep]
        new_parent = np.where(rep_parent >= 0, group[np.maximum(rep_parent, 0)], -1)
        key = None if order_key is None else np.asarray(order_key)[rep]
        return cls._new(
            table, new_parent, None, key, codes=(code[rep], rank[rep]), rows=member_row[rep]
        )

    def __eq__(self, other: object) -> bool:
        """Same frames and edges from the roots (children compared in frame order)."""
        if not isinstance(other, Graph):
            return NotImplemented
        if other is self:
            return True
        if len(self) != len(other) or len(self._roots) != len(other._roots):
            return False
        if len(self._child_idx) != len(other._child_idx):
            return False
        code = _joint_frames([self, other])[0]
        ca, cb = code[: len(self)], code[len(self) :]
        if self._tree and other._tree and self._order_key is None and other._order_key is None:
            return bool(np.array_equal(ca, cb) and np.array_equal(self._parent, other._parent))
        # compare under each graph's frame order (node-ordered graphs and DAGs)
        a = _canonical_by_frame(self, ca)
        b = _canonical_by_frame(other, cb)
        return a == b

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> Graph:
        """A new graph object with its own arrays (graphs are immutable, so this is
        only needed where identity matters, as in ``GraphFrame.deepcopy``)."""
        g = object.__new__(Graph)
        for k, v in self.__dict__.items():
            g.__dict__[k] = v.copy() if isinstance(v, (np.ndarray, pd.DataFrame)) else v
        return g

    def __repr__(self) -> str:
        kind = "tree" if self._tree else "DAG"
        return f"<Graph {kind}: {len(self)} nodes, {len(self._roots)} roots>"


def _joint_frames(graphs: Sequence[Graph]):
    """Frame codes and ranks shared by several graphs, from their distinct frames only.

    Returns per-node (code, rank) over all graphs concatenated, the table of distinct
    frames, and for each joint code its first row in that table.
    """
    reps, counts, local = [], [], []
    for g in graphs:
        n = len(g._code)
        k = int(g._code.max()) + 1 if n else 0
        present = np.zeros(k, bool)
        present[g._code] = True
        slot = np.cumsum(present) - 1  # codes may have gaps (after squash): compact them
        first = np.empty(k, INT)
        first[g._code[::-1]] = np.arange(n - 1, -1, -1, dtype=INT)  # first node of each code
        reps.append(g._frames.iloc[first[present]])
        counts.append(int(present.sum()))
        local.append(slot[g._code])
    table = normalize_table(pd.concat(reps, ignore_index=True, sort=True))
    jcode, jrank = frame_codes(table)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(INT)
    code = np.concatenate([jcode[s + inv] for inv, s in zip(local, starts)])
    rank = np.concatenate([jrank[s + inv] for inv, s in zip(local, starts)])
    row_of_code = np.zeros(int(jcode.max()) + 1 if len(jcode) else 0, INT)
    row_of_code[jcode[::-1]] = np.arange(len(jcode) - 1, -1, -1, dtype=INT)
    return code, rank, table, row_of_code


def _check_ids(n: int, ids: np.ndarray, what: str) -> None:
    if len(ids) and (ids.min() < 0 or ids.max() >= n):
        bad = ids[(ids < 0) | (ids >= n)][0]
        raise GraphError(f"{what} {int(bad)} is not a node id (0..{n - 1})")


def _canonical_by_frame(g: Graph, code: np.ndarray) -> tuple:
    """A structure signature in frame order: the depth-first walk as a flat tuple of
    (frame code, number of children) per node, ("seen", frame code) where a DAG node
    comes again. Flat, so graphs of any depth compare without recursion."""
    rank = g._rank
    seen: set[int] = set()
    out: list[tuple] = []
    stack = sorted(g._roots.tolist(), key=lambda r: (rank[r], r), reverse=True)
    out.append(("roots", len(stack)))
    while stack:
        n = stack.pop()
        if n in seen:
            out.append(("seen", int(code[n])))
            continue
        seen.add(n)
        kids = sorted(g.children_of(n).tolist(), key=lambda c: (rank[c], c))
        out.append((int(code[n]), len(kids)))
        stack.extend(reversed(kids))
    return tuple(out)
