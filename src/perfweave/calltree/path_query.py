"""Call-path queries (Hatchet's query language) for ``GraphFrame.filter`` and ensembles.

A path query selects the nodes on call paths that match a pattern of node predicates,
each with a quantifier: ``"."`` one node, ``"*"`` zero or more, ``"+"`` one or more, an
integer ``n`` exactly n nodes. Two spellings, as in Hatchet, both parsed and never
evaluated as Python:

* object dialect, a list: ``[{"name": "MPI_.*"}, "*"]``,
  ``[("+", {"time (inc)": "> 10"}), {"name": "solve"}]`` (see
  :mod:`perfweave.calltree._path_query.object_dialect` for the value rules);
* string dialect: ``MATCH (".", p)->("*", q) WHERE p."name" STARTS WITH "MPI" AND
  q."time" > 5`` (grammar in :mod:`perfweave.calltree._path_query.string_dialect`).

:class:`PathQuery` also builds patterns step by step (``match``/``rel``) with dict or
callable predicates (a callable gets the node's row, or its rows on a multi-index, and
is the one per-node Python call). Queries combine as node sets: ``a & b``, ``a | b``,
``a ^ b``, ``~a`` (:class:`ConjunctionQuery` and friends, as in Hatchet). Matching is
Hatchet's (every node on every matched path is kept; see ``_path_query.engine``) and is
computed with array operations over the graph's CSR arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._path_query import engine, string_dialect
from perfweave.calltree._path_query.conditions import step_mask
from perfweave.calltree._path_query.nodes import MODES, NodeTable
from perfweave.calltree._path_query.object_dialect import dict_mask
from perfweave.calltree.graph import Node
from perfweave.calltree.row_filter import row_mask as _row_mask
from perfweave.errors import QueryError

__all__ = [
    "PathQuery",
    "CompoundQuery",
    "ConjunctionQuery",
    "DisjunctionQuery",
    "ExclusiveDisjunctionQuery",
    "NegationQuery",
    "path_query",
    "is_path_query",
]


class _Query:
    """Operators shared by all queries: ``&``, ``|``, ``^``, ``~`` combine node sets."""

    def __and__(self, other: Any) -> ConjunctionQuery:
        return ConjunctionQuery(self, other)

    def __or__(self, other: Any) -> DisjunctionQuery:
        return DisjunctionQuery(self, other)

    def __xor__(self, other: Any) -> ExclusiveDisjunctionQuery:
        return ExclusiveDisjunctionQuery(self, other)

    def __invert__(self) -> NegationQuery:
        return NegationQuery(self)

    def node_mask(self, gf: Any) -> np.ndarray:
        """Boolean mask over ``gf.graph``'s nodes: the nodes the query keeps."""
        raise NotImplementedError

    def nodes(self, gf: Any) -> np.ndarray:
        """Ids of the nodes the query keeps, ascending."""
        return np.flatnonzero(self.node_mask(gf))


class _Step:
    """One expanded step: ``"."`` or ``"*"`` and its predicate."""

    __slots__ = ("quant", "kind", "pred", "where")

    def __init__(self, quant: str, kind: str, pred: Any, where: str) -> None:
        self.quant, self.kind, self.pred, self.where = quant, kind, pred, where

    def mask(self, nt: NodeTable) -> np.ndarray:
        if self.kind == "any":
            return np.ones(nt.n, bool)
        if self.kind == "dict":
            return dict_mask(nt, self.pred, self.where)
        if self.kind == "conds":
            return step_mask(nt, self.pred, self.where)
        return _callable_mask(nt, self.pred, self.where)


class PathQuery(_Query):
    """A call-path pattern: ``PathQuery([...])`` (object dialect), ``PathQuery("MATCH
    ...")`` (string dialect) or ``PathQuery().match(...).rel(...)``.

    ``multi_index_mode`` (``"off"``, ``"any"``, ``"all"``) says how a predicate on data
    is decided for a node with several rows (ranks, threads, profiles), as in Hatchet.
    """

    def __init__(self, query: list | str | None = None, multi_index_mode: str = "off") -> None:
        if multi_index_mode not in MODES:
            raise QueryError(f"multi_index_mode must be one of {MODES}, not {multi_index_mode!r}")
        self.multi_index_mode = multi_index_mode
        self._steps: list[_Step] = []
        self.text = query if isinstance(query, str) else None
        if query is None:
            return
        if isinstance(query, str):
            parsed = string_dialect.parse(query)
            if isinstance(parsed, string_dialect.Compound):
                raise QueryError(
                    f"path query {query!r} combines several queries; use path_query() for it"
                )
            self._add_single(parsed)
        elif isinstance(query, list):
            self._add_object(query)
        else:
            raise QueryError(
                f"a path query is a list (object dialect) or a MATCH string, not {type(query).__name__}"
            )
        if not self._steps:
            raise QueryError(f"path query {query!r} has no steps")

    # -- building
    def match(self, quantifier: Any = ".", predicate: Any = None) -> PathQuery:
        """Start the pattern (again) with one step."""
        self._steps = []
        return self._add(quantifier, predicate, f"step 0 ({quantifier!r})")

    def rel(self, quantifier: Any = ".", predicate: Any = None) -> PathQuery:
        """Add a step below the previous one."""
        if not self._steps:
            raise QueryError("a path query starts with match(); rel() adds the next steps")
        return self._add(quantifier, predicate, f"step {len(self._steps)} ({quantifier!r})")

    relation = rel

    def __len__(self) -> int:
        return len(self._steps)

    def _add(self, quantifier: Any, predicate: Any, where: str) -> PathQuery:
        if predicate is None:
            kind = "any"
        elif isinstance(predicate, dict):
            kind = "dict"
        elif callable(predicate):
            kind = "callable"
        else:
            raise QueryError(
                f"{where}: a predicate is a dict or a callable, not {type(predicate).__name__}"
            )
        return self._add_kind(quantifier, kind, predicate, where)

    def _add_kind(self, quantifier: Any, kind: str, pred: Any, where: str) -> PathQuery:
        if kind == "dict" and not pred:
            kind = "any"
        if isinstance(quantifier, bool) or not isinstance(quantifier, (int, str)):
            raise QueryError(
                f'{where}: a quantifier is ".", "*", "+" or an integer, not {quantifier!r}'
            )
        if isinstance(quantifier, int):
            if quantifier < 0:
                raise QueryError(f"{where}: a count quantifier must be >= 0, not {quantifier}")
            self._steps += [_Step(".", kind, pred, where) for _ in range(quantifier)]
        elif quantifier == "+":
            self._steps += [_Step(".", kind, pred, where), _Step("*", kind, pred, where)]
        elif quantifier in (".", "*"):
            self._steps.append(_Step(quantifier, kind, pred, where))
        else:
            raise QueryError(
                f'{where}: a quantifier is ".", "*", "+" or an integer, not {quantifier!r}'
            )
        return self

    def _add_object(self, items: list) -> None:
        for i, item in enumerate(items):
            where = f"path query element {i} ({item!r})"
            if isinstance(item, dict):
                self._add_kind(".", "dict", item, where)
            elif isinstance(item, (str, int)) and not isinstance(item, bool):
                self._add_kind(item, "any", None, where)
            elif isinstance(item, tuple) and len(item) == 2:
                quant, pred = item
                if not isinstance(pred, dict):
                    raise QueryError(f"{where}: a (quantifier, predicate) pair needs a dict")
                self._add_kind(quant, "dict", pred, where)
            else:
                raise QueryError(
                    f"{where}: an element is a quantifier, a dict predicate or a "
                    "(quantifier, dict) pair"
                )

    def _add_single(self, parsed: string_dialect.Single) -> None:
        positions: dict[str, int] = {}
        for i, (_, name) in enumerate(parsed.steps):
            if name:
                positions[name] = i  # Hatchet: a repeated name's conditions go to the last
        for i, (quant, name) in enumerate(parsed.steps):
            conds = parsed.conds.get(name, []) if name and positions[name] == i else []
            where = f"MATCH step {i}" + (f" ({name})" if name else "")
            self._add_kind(quant, "conds" if conds else "any", conds, where)

    # -- matching
    def node_mask(self, gf: Any) -> np.ndarray:
        if not self._steps:
            raise QueryError("the path query has no steps: call match() first")
        nt = NodeTable(gf, self.multi_index_mode)
        steps = [(s.quant, s.mask(nt)) for s in self._steps]
        return engine.match(gf.graph, steps)

    def __repr__(self) -> str:
        if self.text is not None:
            return f"PathQuery({self.text!r})"
        return f"<PathQuery: {len(self._steps)} steps {[s.quant for s in self._steps]}>"


class CompoundQuery(_Query):
    """Queries combined as node sets (Hatchet's ``CompoundQuery``)."""

    _arity: tuple[int, int | None] = (2, None)

    def __init__(self, *queries: Any, multi_index_mode: str = "off") -> None:
        if len(queries) == 1 and isinstance(queries[0], tuple):
            queries = queries[0]
        lo, hi = self._arity
        if len(queries) < lo or (hi is not None and len(queries) > hi):
            want = f"exactly {lo}" if lo == hi else f"{lo} or more"
            raise QueryError(f"{type(self).__name__} takes {want} queries, got {len(queries)}")
        self.subqueries = [path_query(q, multi_index_mode) for q in queries]

    def node_mask(self, gf: Any) -> np.ndarray:
        masks = [q.node_mask(gf) for q in self.subqueries]
        return self._combine(masks)

    def _combine(self, masks: list[np.ndarray]) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(repr, self.subqueries))})"


class ConjunctionQuery(CompoundQuery):
    """Nodes every subquery keeps (``a & b``)."""

    def _combine(self, masks):
        return np.logical_and.reduce(masks)


class DisjunctionQuery(CompoundQuery):
    """Nodes some subquery keeps (``a | b``)."""

    def _combine(self, masks):
        return np.logical_or.reduce(masks)


class ExclusiveDisjunctionQuery(CompoundQuery):
    """Nodes an odd number of subqueries keep (``a ^ b``; Hatchet's symmetric difference)."""

    def _combine(self, masks):
        return np.logical_xor.reduce(masks)


class NegationQuery(CompoundQuery):
    """Nodes the subquery does not keep (``~a``)."""

    _arity = (1, 1)

    def _combine(self, masks):
        return ~masks[0]


_OPS = {"and": ConjunctionQuery, "or": DisjunctionQuery, "xor": ExclusiveDisjunctionQuery}


def _from_parsed(parsed: Any, text: str, mode: str) -> _Query:
    if isinstance(parsed, string_dialect.Compound):
        parts = [_from_parsed(p, text, mode) for p in parsed.parts]
        return _OPS[parsed.op](*parts)
    q = PathQuery(None, mode)
    q.text = text
    q._add_single(parsed)
    return q


def _is_hatchet_query(obj: Any) -> bool:
    return type(obj).__module__.startswith("hatchet.query") and (
        hasattr(obj, "query_pattern")
        or hasattr(obj, "subqueries")
        or hasattr(obj, "_get_new_query")
    )


_HATCHET_COMPOUNDS = {
    "ConjunctionQuery": ConjunctionQuery,
    "DisjunctionQuery": DisjunctionQuery,
    "ExclusiveDisjunctionQuery": ExclusiveDisjunctionQuery,
    "NegationQuery": NegationQuery,
}


def _from_hatchet(obj: Any, mode: str) -> _Query:
    """An llnl-hatchet query object: its steps' predicates become callable steps (they
    are Hatchet's own functions, called on each node's row as Hatchet does)."""
    if hasattr(obj, "_get_new_query"):  # Hatchet's old-style QueryMatcher & co.
        obj = obj._get_new_query()
    if hasattr(obj, "subqueries"):
        cls = next(
            (
                c
                for k, c in _HATCHET_COMPOUNDS.items()
                if k in {t.__name__ for t in type(obj).__mro__}
            ),
            None,
        )
        if cls is None:
            raise QueryError(f"unknown Hatchet compound query {type(obj).__name__}")
        return cls(*[_from_hatchet(q, mode) for q in obj.subqueries])
    q = PathQuery(None, mode)
    for i, (quant, pred) in enumerate(obj.query_pattern):
        q._steps.append(_Step(quant, "callable", pred, f"Hatchet query step {i}"))
    if not q._steps:
        raise QueryError("the Hatchet query has no steps")
    return q


def path_query(query: Any, multi_index_mode: str = "off") -> _Query:
    """A query object from a list (object dialect), a MATCH string (string dialect,
    braced compounds included), an llnl-hatchet query object, or a perfweave query
    (returned as it is)."""
    if isinstance(query, _Query):
        return query
    if _is_hatchet_query(query):
        return _from_hatchet(query, multi_index_mode)
    if isinstance(query, str):
        if multi_index_mode not in MODES:
            raise QueryError(f"multi_index_mode must be one of {MODES}, not {multi_index_mode!r}")
        return _from_parsed(string_dialect.parse(query), query, multi_index_mode)
    if isinstance(query, list):
        return PathQuery(query, multi_index_mode)
    raise QueryError(
        f"a path query is a list, a MATCH string or a query object, not {type(query).__name__}"
    )


def is_path_query(obj: Any) -> bool:
    """True for what ``filter`` treats as a path query: a query object (perfweave's or
    llnl-hatchet's), a list that is not a boolean mask, or a string starting with
    ``MATCH`` or ``{``."""
    if isinstance(obj, _Query) or _is_hatchet_query(obj):
        return True
    if isinstance(obj, str):
        head = obj.lstrip()
        return head.startswith("{") or (
            head.startswith("MATCH") and head[5:6] in ("", " ", "(", "\t", "\n")
        )
    if isinstance(obj, list):
        return not all(isinstance(x, (bool, np.bool_)) for x in obj)
    return False


def row_mask(gf: Any, query: Any, multi_index_mode: str = "off") -> np.ndarray:
    """Boolean mask over ``gf.dataframe``'s rows: the rows of the nodes the query keeps."""
    keep = path_query(query, multi_index_mode).node_mask(gf)
    return keep[gf.node_ids()]


def _callable_mask(nt: NodeTable, fn: Callable, where: str) -> np.ndarray:
    """A callable predicate, once per node with rows. As in Hatchet it gets the node's row
    (a Series named by the node: a :class:`~perfweave.calltree.graph.Node`) or, on a
    multi-index, the node's rows (a frame whose ``node`` level holds the Node)."""
    out = np.zeros(nt.n, bool)
    df = nt.df
    try:
        if nt.multi:
            for node, rows in df.groupby(level="node", sort=False):
                view = Node(nt.graph, int(node))
                sub = rows.copy(deep=False)
                levels = [
                    [view] * len(rows) if name == "node" else rows.index.get_level_values(name)
                    for name in rows.index.names
                ]
                sub.index = pd.MultiIndex.from_arrays(levels, names=rows.index.names)
                out[int(node)] = bool(fn(sub))
        else:
            # rows named by their Node, as Hatchet's dframe.loc[node]; row_mask calls the
            # predicate once on the columns when that means the same as per-row calls
            nodes = nt.node_of_row
            table = df.copy(deep=False)
            table.index = pd.Index([Node(nt.graph, int(i)) for i in nodes], dtype=object)
            out[nodes[_row_mask(table, fn)]] = True
    except QueryError:
        raise
    except Exception as e:  # a user predicate failing is a bad query, reported as one
        raise QueryError(f"{where}: the predicate raised {type(e).__name__}: {e}") from e
    return out
