"""Predicates of Hatchet's object dialect: ``{"name": "MPI_.*", "time (inc)": "> 10"}``.

Each key names a dataframe column (or ``depth`` / ``node_id``, read from the graph); a
node matches when every key does (a list of values: every value). Values, as in Hatchet:

* a string against a string cell: a regex matched from the start to the end of the cell
  (``re.match(value + r"\\Z", cell)``);
* a string starting with a comparison (``"> 10"``, ``"<= 1e-3"``, ``"!= np.nan"``) against
  a number: the comparison, parsed here (never evaluated); a NaN cell matches a query
  naming ``np.nan``, an infinite cell one naming ``np.inf`` (Hatchet's rules, kept);
* a number: equality. ``depth == -1`` means "is a leaf" (single-index frames).

A key the frame does not have matches no node. Multi-indexed frames (rank, thread,
profile) reduce each node's rows with ``multi_index_mode`` ``any`` or ``all``.
"""

from __future__ import annotations

import operator
import re
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype

from perfweave.calltree._path_query.nodes import (
    NodeTable,
    compile_regex,
    holds_strings,
    numbers,
)
from perfweave.errors import QueryError

_COMPARE = {
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}
_COMPOPS = ("<", ">", "==", ">=", "<=", "<>", "!=")
_COMPARISON = re.compile(
    r"(?P<op><=|>=|==|!=|<>|<|>)\s*(?P<num>[-+]?(?:np\.nan|np\.inf|"
    r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))\s*"
)


class Comparison:
    """``"> 10"``: an operator and a number, with Hatchet's NaN/inf literal rules."""

    def __init__(self, text: str, where: str) -> None:
        m = _COMPARISON.fullmatch(text)
        if m is None or m.group("op") == "<>":
            raise QueryError(
                f"{where}: {text!r} is not a comparison: expected one of < > <= >= == != "
                "and a number (or np.nan / np.inf)"
            )
        self.op = _COMPARE[m.group("op")]
        num = m.group("num")
        bare = num.lstrip("+-")
        self.number: float | int
        if bare in ("np.nan", "np.inf"):
            self.number = (-1.0 if num.startswith("-") else 1.0) * getattr(np, bare[3:])
        else:
            self.number = float(num) if any(c in num for c in ".eE") else int(num)
        self.names_nan = "np.nan" in text
        self.names_inf = "np.inf" in text

    def apply(self, x: np.ndarray, special: bool = True) -> np.ndarray:
        """Element-wise result; ``special``: Hatchet's per-row NaN/inf rules."""
        with np.errstate(invalid="ignore"):
            out = np.asarray(self.op(x, self.number), dtype=bool)
        if special and x.dtype.kind == "f":
            nan, inf = np.isnan(x), np.isinf(x)
            out[nan] = self.names_nan or bool(self.op(np.nan, self.number))
            out[inf] = self.names_inf or bool(self.op(np.inf, self.number))
        return out


def is_comparison(value: Any) -> bool:
    return isinstance(value, str) and value.lower().startswith(_COMPOPS)


def dict_mask(nt: NodeTable, spec: dict, where: str) -> np.ndarray:
    """Node mask of one object-dialect predicate (a dict of column -> value(s))."""
    if not isinstance(spec, dict):
        raise QueryError(f"{where}: a predicate must be a dict, not {type(spec).__name__}")
    out = np.ones(nt.n, bool)
    if not spec:
        return out
    if any(_plain(k) not in ("depth", "node_id") for k in spec):
        nt.require_mode(f"{where}: the predicate {spec!r}")
    for key, value in spec.items():
        name = _plain(key)
        values = [value] if isinstance(value, str) or not _iterable(value) else list(value)
        for v in values:
            out &= _key_mask(nt, name, v, f"{where}, key {name!r}")
    return out


def _plain(key: Any) -> Any:
    """A 1-tuple key names a plain column (Hatchet's rule)."""
    return key[0] if isinstance(key, (tuple, list)) and len(key) == 1 else key


def _iterable(value: Any) -> bool:
    try:
        iter(value)
    except TypeError:
        return False
    return True


def _graph_attr(nt: NodeTable, key: str, value: Any, where: str) -> np.ndarray:
    arr = nt.depth if key == "depth" else nt.node_id
    if is_comparison(value):
        return Comparison(value, where).apply(arr.astype(np.int64), special=False)
    if isinstance(value, Real):
        if key == "depth" and value == -1 and not nt.multi:
            return nt.leaf.copy()
        return arr == value
    raise QueryError(
        f"{where}: {key} is a number; give a number or a string starting with a comparison, "
        f"not {value!r}"
    )


def _key_mask(nt: NodeTable, key: Any, value: Any, where: str) -> np.ndarray:
    if key in ("depth", "node_id"):
        return _graph_attr(nt, key, value, where)
    col = nt.column(key)
    if col is None:
        return np.zeros(nt.n, bool)
    if nt.multi:
        return _multi_mask(nt, col, value, where)
    if is_numeric_dtype(col.dtype):
        return nt.per_node(_numeric_rows(col, value, where))
    return nt.per_node(_object_rows(col, value, where))


def _numeric_rows(col: pd.Series, value: Any, where: str, special: bool = True) -> np.ndarray:
    x = numbers(col)
    if is_comparison(value):
        return Comparison(value, where).apply(np.asarray(x), special)
    if isinstance(value, Real):
        return np.asarray(x == value, dtype=bool)
    raise QueryError(
        f"{where}: the column holds numbers; give a number or a string starting with a "
        f"comparison (e.g. '> 10'), not {value!r}"
    )


def _object_rows(col: pd.Series, value: Any, where: str) -> np.ndarray:
    """Per-cell rules on a column of mixed objects, evaluated once per distinct value."""
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    results = np.array([_cell(u, value, where) for u in uniques] + [False], dtype=bool)
    if (codes < 0).any():
        results[-1] = _cell(np.nan, value, where)
    return results[codes]


def _cell(x: Any, value: Any, where: str) -> bool:
    if isinstance(x, str):
        if not isinstance(value, str):
            raise QueryError(f"{where}: the column holds strings; give a regex, not {value!r}")
        return compile_regex(value, where, whole=True).match(x) is not None
    if isinstance(x, Real):
        return bool(_numeric_rows(pd.Series([x], dtype=float), value, where)[0])
    raise QueryError(
        f"{where}: cell {x!r} is neither a string nor a number; a predicate needs one of them"
    )


def _multi_mask(nt: NodeTable, col: pd.Series, value: Any, where: str) -> np.ndarray:
    if holds_strings(col):
        if not isinstance(value, str):
            raise QueryError(f"{where}: the column holds strings; give a regex, not {value!r}")
        pattern = compile_regex(value, where, whole=True)
        codes, uniques = pd.factorize(col, use_na_sentinel=True)
        hits = np.array(
            [isinstance(u, str) and pattern.match(u) is not None for u in uniques] + [False]
        )
        return nt.per_node(hits[codes])
    if is_numeric_dtype(col.dtype):
        rows = _numeric_rows(col, value, where, special=False)
        if isinstance(value, Real) and not isinstance(value, str):
            # Hatchet reduces an equality with any() whatever the mode
            return np.bincount(nt.node_of_row[rows], minlength=nt.n) > 0
        return nt.per_node(rows)
    raise QueryError(f"{where}: the column holds neither strings nor numbers")
