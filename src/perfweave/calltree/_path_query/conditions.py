"""Node masks of string-dialect conditions, column-wise.

A step's conditions are ``c1 AND c2 OR c3 ...`` (AND binds tighter, as in Hatchet, where
they become one Python expression). On a frame indexed by node only, each test sees the
node's cell; with rank/thread/profile levels each test is reduced over the node's rows
with ``any``/``all`` (Hatchet's ``multi_index_mode``) before NOT and the connectors. As
in Hatchet: a test on a column the frame lacks makes the whole step's predicate false; a
cell of the wrong type (a number for ``STARTS WITH``, a string for ``<``) is an error.
"""

from __future__ import annotations

import operator

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype

from perfweave.calltree._path_query.nodes import (
    NodeTable,
    compile_regex,
    holds_strings,
    numbers,
)
from perfweave.calltree._path_query.string_dialect import Cond
from perfweave.errors import QueryError

_NUM = {
    "eq": operator.eq,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}
_STRING_KINDS = {"str_eq", "starts", "ends", "contains", "regex"}
_NUMBER_KINDS = {*_NUM, "nan", "notnan", "inf", "notinf"}
_GRAPH_PROPS = ("depth", "node_id")


class _Missing(Exception):
    """A condition names a column the frame does not have (Hatchet: KeyError -> False)."""


def step_mask(nt: NodeTable, conds: list[Cond], where: str) -> np.ndarray:
    """The node mask of one step's conditions."""
    if not conds:
        return np.ones(nt.n, bool)
    if not all(_on_graph(c) for c in conds):
        nt.require_mode(where)
    try:
        masks = [_cond_mask(nt, c, where) for c in conds]
    except _Missing:
        return np.zeros(nt.n, bool)
    result = np.zeros(nt.n, bool)
    group = masks[0].copy()
    for c, m in zip(conds[1:], masks[1:]):
        if c.connector == "or":
            result |= group
            group = m.copy()
        else:
            group &= m
    return result | group


def _on_graph(c: Cond) -> bool:
    """A test of the graph alone (leaf, depth, node id): no rows to reduce."""
    if c.kind in ("leaf", "notleaf"):
        return True
    return len(c.prop) == 1 and c.prop[0] in _GRAPH_PROPS and c.kind not in _STRING_KINDS


def _cond_mask(nt: NodeTable, c: Cond, where: str) -> np.ndarray:
    m = _test(nt, c, where)
    return ~m if c.negated else m


def _test(nt: NodeTable, c: Cond, where: str) -> np.ndarray:
    if c.kind == "leaf":
        return nt.leaf.copy()
    if c.kind == "notleaf":
        return ~nt.leaf
    if _on_graph(c):
        return _graph_test(nt, c)
    key = c.prop[0] if len(c.prop) == 1 else c.prop
    col = nt.column(key)
    if col is None:
        raise _Missing(key)
    if c.kind in ("none", "notnone"):
        rows = _is_none(col)
        if c.kind == "notnone":
            rows = ~rows
        return nt.per_node(rows)
    if c.kind in _STRING_KINDS:
        return _string_test(nt, col, c, where)
    return _number_test(nt, col, c, where)


def _graph_test(nt: NodeTable, c: Cond) -> np.ndarray:
    prop = c.prop[0]
    arr = nt.depth if prop == "depth" else nt.node_id
    if c.kind in _NUM:
        if prop == "depth" and c.kind == "eq" and c.value == -1:
            return nt.leaf.copy()
        if c.value < 0:  # Hatchet: never true (it warns)
            return np.zeros(nt.n, bool)
        return np.asarray(_NUM[c.kind](arr, c.value), dtype=bool)
    if c.kind in ("nan", "inf", "none"):
        return np.zeros(nt.n, bool)
    return np.ones(nt.n, bool)  # notnan, notinf, notnone


def _is_none(col: pd.Series) -> np.ndarray:
    if col.dtype != object:
        return np.zeros(len(col), bool)
    codes, uniques = pd.factorize(col, use_na_sentinel=False)
    return np.array([u is None for u in uniques], dtype=bool)[codes]


def _string_test(nt: NodeTable, col: pd.Series, c: Cond, where: str) -> np.ndarray:
    codes, uniques = pd.factorize(col, use_na_sentinel=False)
    is_str = np.array([isinstance(u, str) for u in uniques], dtype=bool)
    if nt.multi:
        ok = holds_strings(col)
    else:
        ok = bool(is_str[codes].all())
    if not ok:
        bad = [u for u in uniques if not isinstance(u, str)]
        holds = f"holds {bad[0]!r}" if bad else f"is of dtype {col.dtype}"
        raise QueryError(
            f"{where}: {c.kind.replace('_', ' ')} needs strings, but column {_name(c.prop)} {holds}"
        )
    test = _string_fn(c, where)
    hits = np.array([isinstance(u, str) and test(u) for u in uniques], dtype=bool)
    return nt.per_node(hits[codes])


def _string_fn(c: Cond, where: str):
    v = c.value
    if c.kind == "str_eq":
        return lambda s: s == v
    if c.kind == "starts":
        return lambda s: s.startswith(v)
    if c.kind == "ends":
        return lambda s: s.endswith(v)
    if c.kind == "contains":
        return lambda s: v in s
    pattern = compile_regex(v, where)
    return lambda s: pattern.match(s) is not None


def _number_test(nt: NodeTable, col: pd.Series, c: Cond, where: str) -> np.ndarray:
    if is_numeric_dtype(col.dtype) and col.dtype != bool:
        x = numbers(col)
    else:
        x = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
        real = col.map(lambda u: isinstance(u, (int, float)) and not isinstance(u, bool))
        if nt.multi or not bool(real.all()):
            raise QueryError(
                f"{where}: {c.kind} needs numbers, but column {_name(c.prop)} is not numeric"
            )
    with np.errstate(invalid="ignore"):
        if c.kind in _NUM:
            return nt.per_node(np.asarray(_NUM[c.kind](x, c.value), dtype=bool))
        flags = pd.isna(x) if c.kind in ("nan", "notnan") else np.isinf(x.astype(float))
    flags = np.asarray(flags, dtype=bool)
    if c.kind in ("nan", "inf"):
        return nt.per_node(flags)
    # IS NOT NAN / IS NOT INF: on a multi-index Hatchet negates the reduced value
    return ~nt.per_node(flags) if nt.multi else nt.per_node(~flags)


def _name(prop: tuple) -> str:
    return repr(prop[0]) if len(prop) == 1 else repr(prop)
