"""Safe row queries for ``GraphFrame.filter``: parsed, never evaluated as Python.

Grammar (case-insensitive keywords)::

    query      := or ;  or := and ("or" and)* ;  and := not ("and" not)*
    not        := "not" not | "(" query ")" | comparison
    comparison := column op value | column numop number "%"
    column     := identifier | `any column name in backticks`
    op         := numop | =~ (regex search) | !~ (no regex match)
    numop      := < <= > >= == !=
    value      := number | 'string' | "string"

``number %`` (whitespace allowed before ``%``) is a share of the total: X % of the sum of
that numeric column over the rows of root nodes (for an inclusive column, the whole run),
or over all rows for the frame's exclusive metrics (whose root rows hold only the roots'
own time); taken per rank/thread combination when the frame has such index levels (each
row is compared with its own combination's total).

Examples: ``"time (inc)" `` cannot be written bare, so ```time (inc)` > 1e6``;
``name =~ '^MPI_' and time > 0.5``; ``not (name == 'main')``; ```time (inc)` >= 5 %``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Collection
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
    | (?P<pct>%)
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
        share = self._share(op, val)
        if op in ("=~", "!~"):
            if not isinstance(value, str):
                raise QueryError(
                    f"query {self.text!r}: {op} needs a quoted regular expression "
                    f"at position {val.pos}"
                )
            try:
                re.compile(value)
            except re.error as exc:
                raise QueryError(
                    f"query {self.text!r}: bad regular expression {value!r}: {exc}"
                ) from exc
        return ("cmp", column, op, value, col.pos, share)

    def _share(self, op: str, val: _Tok) -> bool:
        """Consume a ``%`` after the value; only a number in a numeric comparison takes one."""
        t = self._peek()
        if t is None or t.kind != "pct":
            return False
        if op in ("=~", "!~") or val.kind != "num":
            raise QueryError(
                f"query {self.text!r}: unexpected '%' at position {t.pos}: a share needs "
                f"a number compared with < <= > >= == !="
            )
        self._i += 1
        return True

    @property
    def columns(self) -> list[str]:
        """The column names the query compares, in order of appearance (each once)."""
        found: list[str] = []
        stack = [self._tree]
        while stack:
            node = stack.pop()
            if node[0] == "cmp":
                found.append(node[1])
            else:
                stack.extend(reversed(node[1:]))
        return list(dict.fromkeys(found))

    @property
    def has_share(self) -> bool:
        """True when some comparison is a share (``number %``), which needs root rows."""
        return any(t.kind == "pct" for t in self._toks)

    def _next(self, what: str, kinds: tuple[str, ...]) -> _Tok:
        t = self._peek()
        if t is None or t.kind not in kinds:
            where = f"position {t.pos}" if t else "the end"
            raise QueryError(f"query {self.text!r}: expected {what} at {where}")
        self._i += 1
        return t

    # -- evaluation
    def mask(
        self,
        df: pd.DataFrame,
        root_rows: np.ndarray | None = None,
        exclusive: Collection[str] = (),
    ) -> np.ndarray:
        """Boolean row mask over ``df``.

        ``root_rows`` (a boolean mask: the rows whose node is a root) is needed by shares
        (``number %``) and ignored otherwise; a share of a column in ``exclusive`` is of
        the sum over all rows instead.
        """
        if root_rows is not None:
            root_rows = np.asarray(root_rows, dtype=bool)
            if root_rows.shape != (len(df),):
                raise QueryError(
                    f"query {self.text!r}: root_rows has shape {root_rows.shape}, "
                    f"expected ({len(df)},)"
                )
        result = self._eval(self._tree, df, root_rows, frozenset(exclusive))
        return np.asarray(result, dtype=bool)

    def _eval(
        self, node, df: pd.DataFrame, roots: np.ndarray | None, exclusive: frozenset
    ) -> np.ndarray:
        kind = node[0]
        if kind in ("or", "and"):
            left = self._eval(node[1], df, roots, exclusive)
            right = self._eval(node[2], df, roots, exclusive)
            return left | right if kind == "or" else left & right
        if kind == "not":
            return ~self._eval(node[1], df, roots, exclusive)
        _, column, op, value, pos, share = node
        if share:
            return self._share_mask(df, roots, column in exclusive, column, op, value, pos)
        if column in df.columns:
            series = df[column]
        elif column in df.index.names:
            series = pd.Series(df.index.get_level_values(column), index=df.index)
        else:
            raise self._no_column(df, column, pos)
        if op in ("=~", "!~"):
            found = series.astype(str).str.contains(value, regex=True).to_numpy(dtype=bool)
            return found if op == "=~" else ~found
        if isinstance(value, float):
            numeric = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)
            with np.errstate(invalid="ignore"):
                return _COMPARE[op](numeric, value)
        return _COMPARE[op](series.astype(str).to_numpy(), value)

    def _no_column(self, df: pd.DataFrame, column: str, pos: int) -> QueryError:
        return QueryError(
            f"query {self.text!r}: no column {column!r} (position {pos}); "
            f"columns: {', '.join(map(str, df.columns))}"
        )

    def _share_mask(
        self,
        df: pd.DataFrame,
        roots: np.ndarray | None,
        over_all: bool,
        column: str,
        op: str,
        pct: float,
        pos: int,
    ) -> np.ndarray:
        """``column op pct %`` of the roots' total (of all rows' with ``over_all``: an
        exclusive metric), per rank/thread combination."""
        if roots is None:
            raise QueryError(
                f"query {self.text!r}: the share ({pct:g} %) in the comparison at position "
                f"{pos} needs a graph (the root rows); use GraphFrame.filter"
            )
        if column not in df.columns:
            if column in df.index.names:
                raise QueryError(
                    f"query {self.text!r}: a share needs a numeric column, not the index "
                    f"level {column!r} (position {pos})"
                )
            raise self._no_column(df, column, pos)
        series = df[column]
        if not pd.api.types.is_numeric_dtype(series.dtype):
            raise QueryError(
                f"query {self.text!r}: a share needs a numeric column; {column!r} "
                f"(position {pos}) has dtype {series.dtype}"
            )
        values = series.to_numpy(dtype=float, na_value=np.nan)
        rows = np.ones(len(df), bool) if over_all else roots
        with np.errstate(invalid="ignore"):
            return _COMPARE[op](values, _totals(df, values, rows) * (pct / 100))


def _totals(df: pd.DataFrame, values: np.ndarray, rows: np.ndarray) -> np.ndarray | float:
    """Sum of ``values`` over ``rows`` (NaN skipped): one number, or per row the total of
    the row's rank/thread combination when ``df`` has index levels besides ``node``."""
    weights = np.where(rows & ~np.isnan(values), values, 0.0)
    levels = [n for n in df.index.names if n != "node"]
    if not levels:
        return float(weights.sum())
    groups = df.groupby(level=levels, sort=False, dropna=False).ngroup().to_numpy()
    return np.bincount(groups, weights=weights)[groups]


def parse(text: str) -> Query:
    """Parse a query string (raises QueryError naming the position of a problem)."""
    return Query(text)
