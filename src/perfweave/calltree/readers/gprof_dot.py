"""gprof2dot call graphs (DOT): one node per function, caller -> callee edges (a DAG).

gprof2dot labels each function ``module\\nname\\ninclusive%\\n(exclusive%)\\ncalls×``
(the module line is absent for profilers without modules). The function's name is the
DOT node id; the percentages become ``time (inc)`` and ``time``, the call count ``calls``.
perfweave's own DOT (``GraphFrame.to_dot``, ``perfweave convert --to dot``) is read too:
its graph names the metric (``perfweave_metric``) and each node carries its name and exact
value as ``perfweave_*`` attributes (:data:`perfweave.calltree.writers.DOT_NAME` ...).
Recursion (self edges or longer cycles) is made acyclic as for cProfile (``_cycles``).
The DOT text is read by a small parser of the DOT grammar (no pydot needed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

import pandas as pd

from perfweave.calltree import writers
from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers._common import finite, read_input, to_int
from perfweave.calltree.readers._cycles import back_edges
from perfweave.errors import ParseError

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/|^\#[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<edgeop>->|--)
  | (?P<number>-?(?:\.\d+|\d+(?:\.\d*)?))
  | (?P<id>[A-Za-z_\x80-\U0010ffff][\w\x80-\U0010ffff]*)
  | (?P<punct>[{}\[\]=;,:+])
  | (?P<html><)
    """,
    re.X | re.S | re.M,
)
#: deepest nesting of { } blocks the recursive-descent parser follows (gprof2dot writes
#: none; a graph nested deeper is refused, naming the line, before Python's recursion
#: limit is reached)
MAX_NESTING = 200
_KEYWORDS = {"strict", "graph", "digraph", "subgraph", "node", "edge"}
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_INC = re.compile(rf"^\s*({_NUM})\s*%\s*$")
_EXC = re.compile(rf"^\s*\(\s*({_NUM})\s*%\s*\)\s*$")
_CALLS = re.compile(r"^\s*(\d+)\s*\u00d7\s*$")
_LABEL_FORM = "a gprof2dot label [module\\n]name\\ninclusive%\\n(exclusive%)[\\ncalls×]"


def sniff(path: Path) -> bool:
    if not path.is_file():
        return False
    with open(path, "rb") as f:
        head = f.read(4096).decode("utf-8", errors="replace")
    head = re.sub(r"//[^\n]*|/\*.*?\*/|^#[^\n]*", "", head, flags=re.S | re.M)
    return re.match(r"\s*(strict\s+)?digraph\b", head, re.I) is not None


@dataclass
class _DotGraph:
    """Nodes (in order of first appearance) with their attributes, and the edges."""

    nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    node_line: dict[str, int] = field(default_factory=dict)
    edges: list[tuple[str, str]] = field(default_factory=list)
    attrs: dict[str, str] = field(default_factory=dict)  # graph attributes, any block


class _Parser:
    """Recursive-descent parser of DOT (graphs, subgraphs, attribute and edge lists)."""

    def __init__(self, text: str, path: Path) -> None:
        self.path = path
        self.toks = self._tokenize(text)
        self.i = 0
        self.graph = _DotGraph()
        self.nesting = 0  # open { } blocks

    def _tokenize(self, text: str) -> list[tuple[str, str, int]]:
        toks: list[tuple[str, str, int]] = []
        pos, line, n = 0, 1, len(text)
        while pos < n:
            m = _TOKEN.match(text, pos)
            if m is None:
                raise ParseError(self.path, "DOT text", line=line, found=text[pos : pos + 20])
            kind = m.lastgroup
            if kind == "html":  # <...> with nested angle brackets
                depth, end = 0, pos
                while end < n:
                    depth += {"<": 1, ">": -1}.get(text[end], 0)
                    end += 1
                    if depth == 0:
                        break
                if depth:
                    raise ParseError(self.path, "a closed <HTML> string", line=line)
                toks.append(("id", text[pos + 1 : end - 1], line))
                line += text.count("\n", pos, end)
                pos = end
                continue
            value = m.group()
            if kind == "string":
                toks.append(("id", _unquote(value), line))
            elif kind in ("number", "id"):
                low = value.lower()
                toks.append(("kw", low, line) if low in _KEYWORDS else ("id", value, line))
            elif kind in ("edgeop", "punct"):
                toks.append((value, value, line))
            line += value.count("\n")
            pos = m.end()
        return toks

    # ------------------------------------------------------------------ helpers
    def _peek(self, k: int = 0) -> tuple[str, str, int]:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ("eof", "", self._last_line())

    def _last_line(self) -> int:
        return self.toks[-1][2] if self.toks else 1

    def _take(self, kind: str, what: str) -> tuple[str, str, int]:
        tok = self._peek()
        if tok[0] != kind:
            raise ParseError(self.path, what, line=tok[2], found=tok[1] or tok[0])
        self.i += 1
        return tok

    def _accept(self, kind: str, value: str | None = None) -> bool:
        tok = self._peek()
        if tok[0] == kind and (value is None or tok[1] == value):
            self.i += 1
            return True
        return False

    def _id(self, what: str) -> str:
        value = self._take("id", what)[1]
        while self._accept("+"):  # "a" + "b" concatenation
            value += self._take("id", "a string after '+'")[1]
        return value

    # ------------------------------------------------------------------ grammar
    def parse(self) -> _DotGraph:
        if not self.toks:
            raise ParseError(self.path, "a DOT graph", found="an empty file")
        while self._peek()[0] != "eof":
            self._accept("kw", "strict")
            tok = self._peek()
            if not (tok[0] == "kw" and tok[1] in ("graph", "digraph")):
                raise ParseError(self.path, "'digraph' or 'graph'", line=tok[2], found=tok[1])
            self.i += 1
            if self._peek()[0] == "id":
                self._id("a graph name")
            self._block()
        return self.graph

    def _block(self) -> list[str]:
        """``{ stmt_list }``: returns the nodes it mentions (for edges to subgraphs)."""
        tok = self._take("{", "'{'")
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise ParseError(
                self.path,
                f"subgraphs nested at most {MAX_NESTING} deep",
                line=tok[2],
                found=f"{self.nesting} levels of '{{'",
            )
        members: list[str] = []
        while not self._accept("}"):
            if self._peek()[0] == "eof":
                raise ParseError(
                    self.path, "'}' closing the graph", line=self._last_line(), found="end of file"
                )
            members.extend(self._statement())
            self._accept(";")
        self.nesting -= 1
        return members

    def _statement(self) -> list[str]:
        tok = self._peek()
        if tok[0] == "kw" and tok[1] in ("graph", "node", "edge"):
            self.i += 1
            attrs = self._attrs()
            if tok[1] == "graph":
                self.graph.attrs.update(attrs)
            return []
        if tok[0] == "id" and self._peek(1)[0] == "=":
            self.i += 2
            self.graph.attrs[tok[1]] = self._id("a value after '='")
            return []
        line = tok[2]
        group = self._operand()
        mentioned = list(group)
        if self._peek()[0] in ("->", "--"):
            while self._accept("->") or self._accept("--"):
                right = self._operand()
                self.graph.edges.extend((a, b) for a in group for b in right)
                mentioned.extend(right)
                group = right
            self._attrs()
        elif tok[0] == "id":
            attrs = self._attrs()
            name = group[0]
            self.graph.nodes[name].update(attrs)
            if "label" in attrs:
                self.graph.node_line[name] = line
        return mentioned

    def _operand(self) -> list[str]:
        tok = self._peek()
        if tok[0] == "{" or (tok[0] == "kw" and tok[1] == "subgraph"):
            if self._accept("kw", "subgraph") and self._peek()[0] == "id":
                self._id("a subgraph name")
            return self._block()
        name = self._id("a node id, subgraph or attribute statement")
        if self._accept(":"):  # port (and compass point): not part of the node's name
            self._id("a port name")
            if self._accept(":"):
                self._id("a compass point")
        self.graph.nodes.setdefault(name, {})
        return [name]

    def _attrs(self) -> dict[str, str]:
        attrs: dict[str, str] = {}
        while self._accept("["):
            while not self._accept("]"):
                key = self._id("an attribute name or ']'")
                attrs[key] = self._id(f"a value for {key}") if self._accept("=") else "true"
                self._accept(",") or self._accept(";")
        return attrs


def _unquote(token: str) -> str:
    """A DOT quoted string's text: escaped quotes unescaped, line continuations removed."""
    return token[1:-1].replace("\\\r\n", "").replace("\\\n", "").replace('\\"', '"')


def _label_values(label: str, name: str, line: int, path: Path) -> dict[str, Any]:
    parts = re.split(r"\\[nlr]", label)
    if parts and parts[-1] == "":
        parts.pop()
    inc_at = next((k for k, p in enumerate(parts) if _INC.match(p)), None)
    if inc_at is None or inc_at + 1 >= len(parts) or not _EXC.match(parts[inc_at + 1]):
        raise ParseError(path, _LABEL_FORM, line=line, position=f"node {name!r}", found=label)
    calls = next((m.group(1) for p in parts[inc_at + 2 :] if (m := _CALLS.match(p))), None)
    where = {"line": line, "position": f"node {name!r}"}
    return {
        "module": parts[0] if inc_at >= 2 else None,
        "time (inc)": finite(float(_INC.match(parts[inc_at]).group(1)), path, "time", **where),
        "time": finite(float(_EXC.match(parts[inc_at + 1]).group(1)), path, "time", **where),
        "calls": None if calls is None else to_int(calls, path, "a call count", line=line),
    }


def read(path: str | PathLike[str], **_: Any):
    """Read a gprof2dot DOT file into a GraphFrame (a DAG)."""
    p = Path(path)
    text = read_input(p, "Graphviz DOT").decode("utf-8", errors="replace")
    dot = _Parser(text, p).parse()
    names = list(dot.nodes)
    if not names:
        raise ParseError(p, "at least one node in the DOT graph", found="none")
    ids = {name: k for k, name in enumerate(names)}
    if writers.DOT_METRIC in dot.attrs:
        return _read_perfweave(dot, ids, p)
    rows = []
    for name, attrs in dot.nodes.items():
        if "label" in attrs:
            values = _label_values(attrs["label"], name, dot.node_line.get(name, 0), p)
            rows.append({"node": ids[name], "name": name, **values})
    src = [ids[a] for a, _ in dot.edges]
    dst = [ids[b] for _, b in dot.edges]
    cyc = back_edges(len(names), src, dst)
    data = pd.DataFrame(rows, columns=["node", "module", "name", "time (inc)", "time", "calls"])
    # a call count for every node: integers; some labels without one: floats with NaN
    data["calls"] = pd.to_numeric(data["calls"]).astype(
        "int64" if data["calls"].notna().all() else "float64"
    )
    data["time (inc)"] = data["time (inc)"].astype("float64")
    data["time"] = data["time"].astype("float64")
    return build_graphframe(
        [{"type": "function", "name": n} for n in names],
        data,
        edges=(
            [s for s, c in zip(src, cyc) if not c],
            [d for d, c in zip(dst, cyc) if not c],
        ),
        exc_metrics=["time"],
        inc_metrics=["time (inc)"],
        default_metric="time",
        metadata={"cycle_edges": [(a, b) for (a, b), c in zip(dot.edges, cyc) if c]},
        path=p,
        units={"time": "%", "time (inc)": "%"},  # gprof2dot labels shares of the total time
    )


_ESCAPE = re.compile(r"\\(.)", re.S)
_ESCAPED = {"n": "\n", "r": "\r", "t": "\t"}


def _unescape(text: str) -> str:
    """A name as :func:`perfweave.calltree.writers.to_dot` gave it (``\\n`` a newline,
    ``\\\\`` a backslash)."""
    return _ESCAPE.sub(lambda m: _ESCAPED.get(m.group(1), m.group(1)), text)


def _read_perfweave(dot: _DotGraph, ids: dict[str, int], path: Path):
    """perfweave's DOT (``GraphFrame.to_dot``): names, frame types and the one metric's
    exact values from the ``perfweave_*`` attributes; a node without them keeps its DOT
    id as name and has no value."""
    metric = dot.attrs[writers.DOT_METRIC]
    kind = dot.attrs.get(writers.DOT_KIND, "inclusive" if "(inc)" in metric else "exclusive")
    if kind not in ("inclusive", "exclusive"):
        raise ParseError(path, f"{writers.DOT_KIND} 'inclusive' or 'exclusive'", found=repr(kind))
    frames, rows = [], []
    for node_id, attrs in dot.nodes.items():
        name = _unescape(attrs.get(writers.DOT_NAME, node_id))
        frame_type = attrs.get(writers.DOT_TYPE)
        frames.append({"name": name} if frame_type is None else {"type": frame_type, "name": name})
        value = attrs.get(writers.DOT_VALUE)
        if value is not None:
            where = {"line": dot.node_line.get(node_id), "position": f"node {node_id!r}"}
            try:
                number = float(value)
            except ValueError:
                raise ParseError(
                    path, f"a number as {writers.DOT_VALUE}", found=value, **where
                ) from None
            value = finite(number, path, writers.DOT_VALUE, **where)
        rows.append({"node": ids[node_id], "name": name, metric: value})
    src = [ids[a] for a, _ in dot.edges]
    dst = [ids[b] for _, b in dot.edges]
    cyc = back_edges(len(ids), src, dst)
    data = pd.DataFrame(rows, columns=["node", "name", metric])
    data[metric] = data[metric].astype("float64")
    return build_graphframe(
        frames,
        data,
        edges=(
            [s for s, c in zip(src, cyc) if not c],
            [d for d, c in zip(dst, cyc) if not c],
        ),
        exc_metrics=[metric] if kind == "exclusive" else [],
        inc_metrics=[metric] if kind == "inclusive" else [],
        default_metric=metric,
        metadata={"cycle_edges": [(a, b) for (a, b), c in zip(dot.edges, cyc) if c]},
        path=path,
        units={metric: _unescape(unit)} if (unit := dot.attrs.get(writers.DOT_UNIT)) else None,
    )
