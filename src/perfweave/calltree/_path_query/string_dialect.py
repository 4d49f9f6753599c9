"""Parser of Hatchet's string dialect (its "Cypher-like" query language); never evaluated.

Grammar (keywords upper-case, as in Hatchet)::

    query     := single | "{" single "}" (compound "{" single "}")*
    single    := "MATCH" path ["WHERE" where]
    path      := "(" step ")" ("->" "(" step ")")*
    step      := quant ["," NAME] | NAME          quant := "." | "*" | "+" | INT
    where     := conds | "{" conds "}" (compound "{" conds "}")*
    compound  := "AND" | "OR" | "XOR"
    conds     := cond (("AND" | "OR") cond)*      cond := ["NOT"] test
    test      := NAME "IS" ["NOT"] "LEAF"
               | NAME "." metric "IS" ["NOT"] ("NONE" | "NAN" | "INF")
               | NAME "." metric ("=" | "<" | "<=" | ">" | ">=") NUMBER
               | NAME "." metric ("=" | "STARTS WITH" | "ENDS WITH" | "CONTAINS" | "=~") STRING
    metric    := STRING | INT | "(" (STRING | INT) ("," (STRING | INT))* ")"

As in Hatchet, the conditions on one name form that step's predicate, joined by the
connectors written before them (``AND`` binds tighter than ``OR``); ``=~`` matches a regex
at the start of the value; ``x."depth" = -1`` means "x is a leaf". Braced groups combine
whole queries (or WHERE clauses over one MATCH) as sets of nodes. Errors name the token
and its position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from perfweave.errors import QueryError

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    | (?P<num>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)
    | (?P<op>->|=~|<=|>=|=|<|>)
    | (?P<punct>[(),.{}])
    | (?P<word>[^\W\d]\w*)
    )""",
    re.VERBOSE,
)

NUMERIC_TESTS = {"=": "eq", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
STRING_TESTS = {"=": "str_eq", "=~": "regex"}


@dataclass
class Tok:
    kind: str
    text: str
    pos: int


@dataclass
class Cond:
    """One test on a step's node: ``kind`` with ``prop`` (column key) and ``value``."""

    kind: str
    prop: Any = None
    value: Any = None
    negated: bool = False
    connector: str | None = None  # "and" / "or" before it (None for a step's first)


@dataclass
class Single:
    """One MATCH: steps ``(quantifier, name)`` and each name's conditions."""

    steps: list[tuple[Any, str | None]]
    conds: dict[str, list[Cond]] = field(default_factory=dict)


@dataclass
class Compound:
    op: str  # "and" / "or" / "xor"
    parts: list[Any]


def tokenize(text: str) -> list[Tok]:
    out: list[Tok] = []
    i = 0
    while i < len(text):
        if not text[i:].strip():
            break
        m = _TOKEN.match(text, i)
        if m is None or m.end() == i:
            j = i + len(text[i:]) - len(text[i:].lstrip())
            raise QueryError(
                f"path query {text!r}: unexpected character {text[j]!r} at position {j}"
            )
        kind = m.lastgroup
        tok = Tok(kind, m.group(kind), m.start(kind))
        # "p.5" is a name, a dot and a metric id, not "p" and the number ".5"
        if kind == "num" and tok.text.startswith(".") and out and out[-1].kind == "word":
            tok = Tok("punct", ".", tok.pos)
            out.append(tok)
            i = tok.pos + 1
            continue
        out.append(tok)
        i = m.end()
    return out


def _unquote(s: str) -> str:
    quote = s[0]
    return re.sub(r"\\([\\" + quote + "])", r"\1", s[1:-1])


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = tokenize(text)
        self.i = 0

    # -- token helpers
    def peek(self, ahead: int = 0) -> Tok | None:
        j = self.i + ahead
        return self.toks[j] if j < len(self.toks) else None

    def fail(self, expected: str) -> QueryError:
        t = self.peek()
        if t is None:
            return QueryError(f"path query {self.text!r}: expected {expected} at the end")
        return QueryError(
            f"path query {self.text!r}: expected {expected} at position {t.pos}, found {t.text!r}"
        )

    def is_word(self, *words: str, ahead: int = 0) -> bool:
        t = self.peek(ahead)
        return t is not None and t.kind == "word" and t.text in words

    def is_punct(self, p: str) -> bool:
        t = self.peek()
        return t is not None and t.kind in ("punct", "op") and t.text == p

    def take(self, kinds: tuple[str, ...], expected: str, text: str | None = None) -> Tok:
        t = self.peek()
        if t is None or t.kind not in kinds or (text is not None and t.text != text):
            raise self.fail(expected)
        self.i += 1
        return t

    def word(self, w: str) -> Tok:
        return self.take(("word",), repr(w), w)

    def punct(self, p: str) -> Tok:
        return self.take(("punct", "op"), repr(p), p)

    # -- grammar
    def query(self) -> Single | Compound:
        if self.is_punct("{"):
            out = self.braced(self.single)
        else:
            out = self.single()
        if self.peek() is not None:
            raise self.fail("the end of the query")
        return out

    def braced(self, inner) -> Any:
        self.punct("{")
        result = inner()
        self.punct("}")
        while self.is_word("AND", "OR", "XOR"):
            op = self.take(("word",), "AND/OR/XOR").text.lower()
            self.punct("{")
            nxt = inner()
            self.punct("}")
            result = Compound(op, [result, nxt])
        return result

    def single(self) -> Single | Compound:
        self.word("MATCH")
        steps = [self.step()]
        while self.is_punct("->"):
            self.i += 1
            steps.append(self.step())
        names = {name for _, name in steps if name}
        if not self.is_word("WHERE"):
            if self.peek() is not None and not self.is_punct("}"):
                raise self.fail("'->', 'WHERE' or the end of the query")
            return Single(steps)
        self.i += 1
        if self.is_punct("{"):
            return self.braced(lambda: self.conds(steps, names))
        return self.conds(steps, names)

    def step(self) -> tuple[Any, str | None]:
        self.punct("(")
        t = self.peek()
        quant: Any = "."
        name = None
        if t is not None and t.kind in ("num", "str"):
            self.i += 1
            quant = _quantifier(t, self.text)
            if self.is_punct(","):
                self.i += 1
                name = self.take(("word",), "a name").text
        else:
            name = self.take(("word",), 'a quantifier (".", "*", "+", a count) or a name').text
        self.punct(")")
        return quant, name

    def conds(self, steps, names: set[str]) -> Single:
        out = Single(list(steps), {})
        connector = None
        while True:
            start = self.peek()
            cond, name = self.cond()
            if name not in names:
                raise QueryError(
                    f"path query {self.text!r}: the condition at position {start.pos} names "
                    f"{name!r}, which no MATCH step defines (steps: {sorted(names)})"
                )
            conds = out.conds.setdefault(name, [])
            cond.connector = connector if conds else None
            conds.append(cond)
            if self.is_word("AND", "OR"):
                connector = self.take(("word",), "AND/OR").text.lower()
                continue
            return out

    def cond(self) -> tuple[Cond, str]:
        negated = False
        if self.is_word("NOT"):
            self.i += 1
            negated = True
        name = self.take(("word",), "a name").text
        if self.is_word("IS"):
            self.i += 1
            no = self.is_word("NOT")
            if no:
                self.i += 1
            self.word("LEAF")
            return Cond("notleaf" if no else "leaf", negated=negated), name
        self.punct(".")
        prop = self.metric()
        t = self.peek()
        if t is None:
            raise self.fail("a test (IS, =, <, STARTS WITH, ...)")
        if self.is_word("IS"):
            self.i += 1
            no = self.is_word("NOT")
            if no:
                self.i += 1
            what = self.take(("word",), "NONE, NAN or INF")
            if what.text not in ("NONE", "NAN", "INF"):
                self.i -= 1
                raise self.fail("NONE, NAN or INF")
            kind = ("not" if no else "") + what.text.lower()
            return Cond(kind, prop, negated=negated), name
        for words, kind in ((("STARTS", "WITH"), "starts"), (("ENDS", "WITH"), "ends")):
            if self.is_word(words[0]):
                self.i += 1
                self.word(words[1])
                return Cond(kind, prop, self.string(), negated), name
        if self.is_word("CONTAINS"):
            self.i += 1
            return Cond("contains", prop, self.string(), negated), name
        op = self.take(
            ("op",), "a test (IS, =, <, <=, >, >=, =~, STARTS WITH, ENDS WITH, CONTAINS)"
        )
        if op.text not in NUMERIC_TESTS and op.text != "=~":
            self.i -= 1
            raise self.fail("a test (IS, =, <, <=, >, >=, =~, STARTS WITH, ...)")
        v = self.peek()
        if v is not None and v.kind == "str" and op.text in STRING_TESTS:
            return Cond(STRING_TESTS[op.text], prop, self.string(), negated), name
        if op.text == "=~":
            raise self.fail("a quoted regex after =~")
        what = "a number or a quoted string" if op.text == "=" else "a number"
        num = self.take(("num",), f"{what} after {op.text!r}")
        return Cond(NUMERIC_TESTS[op.text], prop, _number(num.text), negated), name

    def metric(self) -> tuple:
        if self.is_punct("("):
            self.i += 1
            ids = [self.metric_id()]
            while self.is_punct(","):
                self.i += 1
                ids.append(self.metric_id())
            self.punct(")")
            return tuple(ids)
        return (self.metric_id(),)

    def metric_id(self) -> str:
        t = self.take(("str", "num"), 'a quoted metric name (p."time")')
        if t.kind == "num":
            if not re.fullmatch(r"[-+]?\d+", t.text):
                self.i -= 1
                raise self.fail("a quoted metric name or an integer")
            return str(int(t.text))
        return _unquote(t.text)

    def string(self) -> str:
        return _unquote(self.take(("str",), "a quoted string").text)


def _number(text: str) -> int | float:
    return float(text) if any(c in text for c in ".eE") else int(text)


def _quantifier(t: Tok, text: str) -> Any:
    if t.kind == "num":
        if not re.fullmatch(r"[-+]?\d+", t.text) or int(t.text) < 0:
            raise QueryError(
                f"path query {text!r}: quantifier {t.text!r} at position {t.pos} must be "
                '".", "*", "+" or a count >= 0'
            )
        n = int(t.text)
        return "." if n == 0 else n
    q = _unquote(t.text)
    if q == "":
        return "."
    if q not in (".", "*", "+"):
        raise QueryError(
            f"path query {text!r}: quantifier {t.text} at position {t.pos} must be "
            '".", "*", "+" or a count'
        )
    return q


def parse(text: str) -> Single | Compound:
    """Parse a string-dialect query into steps and conditions (or a compound of them)."""
    if not isinstance(text, str) or not text.strip():
        raise QueryError("empty path query: expected MATCH (...)")
    return _Parser(text).query()
