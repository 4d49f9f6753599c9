"""Safe row queries for ``GraphFrame.filter``: parsed, never evaluated as Python.

Grammar (case-insensitive keywords)::

    query      := or ;  or := and ("or" and)* ;  and := not ("and" not)*
    not        := "not" not | "(" query ")" | comparison
    comparison := column op value
    column     := identifier | `any column name in backticks`
    op         := < <= > >= == != | =~ (regex search) | !~ (no regex match)
    value      := number | 'string' | "string"

Examples: ``"time (inc)" `` cannot be written bare, so ```time (inc)` > 1e6``;
``name =~ '^MPI_' and time > 0.5``; ``not (name == 'main')``.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfweave.errors import QueryError

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)(?![\w.])
    | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    | (?P<col>`[^`]+`)
    | (?P<op><=|>=|==|!=|=~|!~|<|>)
    | (?P<paren>[()])
    | (?P<word>[A-Za-z_][\w.#:@-]*)
    )""",
    re.VERBOSE,
)

_COMPARE = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


@dataclass
class _Tok:
    kind: str
    text: str
    pos: int


def _tokenize(text: str) -> list[_Tok]:
    out, i = [], 0
    while i < len(text):
        if text[i:].strip() == "":
            break
        m = _TOKEN.match(text, i)
        if not m or m.end() == i:
            raise QueryError(
                f"query {text!r}: unexpected character at position {i}: {text[i : i + 10]!r}"
            )
        kind = m.lastgroup
        out.append(_Tok(kind, m.group(kind), m.start(kind)))
        i = m.end()
    return out


class Query:
    """A parsed query; ``mask(df)`` gives the boolean row mask, vectorised."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._toks = _tokenize(text)
        self._i = 0
        if not self._toks:
            raise QueryError("empty query")
        self._tree = self._or()
        if self._i != len(self._toks):
            t = self._toks[self._i]
            raise QueryError(f"query {text!r}: unexpected {t.text!r} at position {t.pos}")

    # -- parser
    def _peek(self) -> _Tok | None:
        return self._toks[self._i] if self._i < len(self._toks) else None

    def _word(self, w: str) -> bool:
        t = self._peek()
        if t is not None and t.kind == "word" and t.text.lower() == w:
            self._i += 1
            return True
        return False

    def _or(self):
        node = self._and()
        while self._word("or"):
            node = ("or", node, self._and())
        return node

    def _and(self):
        node = self._not()
        while self._word("and"):
            node = ("and", node, self._not())
        return node

    def _not(self):
        if self._word("not"):
            return ("not", self._not())
        t = self._peek()
        if t is not None and t.kind == "paren" and t.text == "(":
            self._i += 1
            node = self._or()
            t = self._peek()
            if t is None or t.text != ")":
                raise QueryError(f"query {self.text!r}: missing ')'")
            self._i += 1
            return node
        return self._comparison()

    def _comparison(self):
        col = self._next("a column name", ("col", "word"))
        column = col.text[1:-1] if col.kind == "col" else col.text
        op = self._next("an operator (< <= > >= == != =~ !~)", ("op",)).text
        val = self._next("a number or a quoted string", ("num", "str"))
        if val.kind == "num":
            value: object = float(val.text)
        else:
            value = re.sub(r"\\(.)", r"\1", val.text[1:-1])
        if op in ("=~", "!~"):
            if not isinstance(value, str):
                raise QueryError(f"query {self.text!r}: {op} needs a quoted regular expression")
            try:
                re.compile(value)
            except re.error as exc:
                raise QueryError(
                    f"query {self.text!r}: bad regular expression {value!r}: {exc}"
                ) from exc
        return ("cmp", column, op, value, col.pos)

    def _next(self, what: str, kinds: tuple[str, ...]) -> _Tok:
        t = self._peek()
        if t is None or t.kind not in kinds:
            where = f"position {t.pos}" if t else "the end"
            raise QueryError(f"query {self.text!r}: expected {what} at {where}")
        self._i += 1
        return t

    # -- evaluation
    def mask(self, df: pd.DataFrame) -> np.ndarray:
        return np.asarray(self._eval(self._tree, df), dtype=bool)

    def _eval(self, node, df: pd.DataFrame) -> np.ndarray:
        kind = node[0]
        if kind == "or":
            return self._eval(node[1], df) | self._eval(node[2], df)
        if kind == "and":
            return self._eval(node[1], df) & self._eval(node[2], df)
        if kind == "not":
            return ~self._eval(node[1], df)
        _, column, op, value, pos = node
        if column in df.columns:
            series = df[column]
        elif column in df.index.names:
            series = pd.Series(df.index.get_level_values(column), index=df.index)
        else:
            raise QueryError(
                f"query {self.text!r}: no column {column!r} (position {pos}); columns: {', '.join(map(str, df.columns))}"
            )
        if op in ("=~", "!~"):
            found = series.astype(str).str.contains(value, regex=True).to_numpy(dtype=bool)
            return found if op == "=~" else ~found
        if isinstance(value, float):
            numeric = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)
            with np.errstate(invalid="ignore"):
                return _COMPARE[op](numeric, value)
        return _COMPARE[op](series.astype(str).to_numpy(), value)


def parse(text: str) -> Query:
    """Parse a query string (raises QueryError naming the position of a problem)."""
    return Query(text)
