"""Caliper's ``.cali`` text stream, parsed natively (no caliper-reader needed).

A ``.cali`` stream is one record per line, ``key=value`` fields separated by ``,`` and the
values of a field separated by ``=``; ``\\`` escapes the next character (``\\n`` is a
newline). Three kinds of record matter:

- ``__rec=node,id=,attr=,data=[,parent=]``: a node of Caliper's metadata tree. A node
  whose ``attr`` is 8 (``cali.attribute.name``) declares an attribute; its ancestors carry
  the attribute's type (attr 9) and property bits (attr 10), and metadata such as
  ``attribute.alias``. Any other node is a value of the attribute its ``attr`` names.
- ``__rec=ctx,ref=..,attr=..,data=..``: a snapshot. Each referenced node expands to the
  values along its path to the root (repeated attributes become lists, nested attributes
  also build the ``path`` list); ``attr``/``data`` pairs are immediate values.
- ``__rec=globals``: run metadata, expanded the same way.

:func:`parse_cali` produces what caliper-reader's ``CaliperReader`` does (records, globals
and per-attribute type, value flag, alias and unit); :func:`from_caliperreader` wraps a reader
that has already read a stream in the same interface.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from perfweave.errors import IncompleteInputWarning, ParseError

# ids of Caliper's bootstrap attributes, and the property bits we read
_NAME_ATTR, _TYPE_ATTR, _PROP_ATTR = 8, 9, 10
_AS_VALUE, _HIDDEN, _NESTED = 1, 128, 256
_ALIAS = "attribute.alias"
_UNIT = "attribute.unit"

# __rec=node,id=N,attr=N,data=TEXT[,parent=N] without escapes: the usual node line
_PLAIN_NODE = re.compile(
    r"__rec=node,id=([0-9]+),attr=([0-9]+),data=([^,=\\]*)(?:,parent=([0-9]+))?"
)
# __rec=ctx,ref=N[=N..][,attr=N[=N..],data=V[=V..]] without escapes, a last value that is
# not empty and no repeated field: the usual snapshot line (others go through split_record)
_PLAIN_CTX = re.compile(
    r"__rec=ctx,ref=([0-9]+(?:=[0-9]+)*)(?:,attr=([0-9]+(?:=[0-9]+)*),data=([^,\\]*[^,=\\]))?"
)
_HIDDEN_KEY = object()  # stands for hidden attributes while a record is filled
_PIECE = re.compile(r"[^\\,=]+|\\.?|[,=]", re.S)


@dataclass(frozen=True)
class AttributeInfo:
    """What the .cali reader needs to know of one Caliper attribute."""

    type: str | None
    is_value: bool
    alias: str | None
    #: the ``attribute.unit`` metadata (``sec``), None where the file gives none
    unit: str | None = None


class CaliContents:
    """A parsed ``.cali`` stream: snapshot records, globals and attribute metadata.

    ``records`` are dicts of attribute name -> value (a string, or a :class:`CaliPath` --
    a sequence equal to the list of strings -- for attributes repeated along a node path,
    such as the nested ``path``); records share these objects, so treat them as read-only.
    """

    def __init__(self, records: list[dict], globals_: dict, attributes: dict[str, AttributeInfo]):
        self.records = records
        self.globals = globals_
        self.attributes = attributes

    def attribute(self, name: str) -> AttributeInfo | None:
        return self.attributes.get(name)


class CaliPath(Sequence):
    """The values of an attribute repeated along a node path (``path``: the region names
    from the root down), as a linked list that shares its prefix with the parent's.

    Building a list per context node would copy the whole prefix at every level: time
    and memory quadratic in the depth (23 s and gigabytes at 20,000 levels). A
    ``CaliPath`` is one link per node; it compares equal to the list of its values and
    turns into one (``list(p)``) only when asked. ``up`` is the path one level shorter
    (None at the top), ``value`` the last value.
    """

    __slots__ = ("up", "value", "_len", "_items")

    def __init__(self, up: CaliPath | None, value: Any) -> None:
        self.up, self.value = up, value
        self._len = 1 if up is None else up._len + 1
        self._items: tuple | None = None

    def items(self) -> tuple:
        """All values, root first (cached)."""
        if self._items is None:
            out, link = [], self
            while link is not None:
                out.append(link.value)
                link = link.up
            self._items = tuple(reversed(out))
        return self._items

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, index):
        got = self.items()[index]
        return list(got) if isinstance(index, slice) else got

    def __iter__(self):
        return iter(self.items())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (CaliPath, list, tuple)):
            return len(self) == len(other) and list(self.items()) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  (equal to a list, so not hashable)

    def __repr__(self) -> str:
        return repr(list(self.items()))


class _Node:
    """A node of Caliper's metadata tree; ``record`` caches its expansion."""

    __slots__ = ("id", "attr", "data", "parent", "record", "prop")

    def __init__(self, nid: int, attr: int, data: Any, parent: _Node | None) -> None:
        self.id, self.attr, self.data, self.parent = nid, attr, data, parent
        self.record: dict | None = None
        self.prop: int | None = None  # property bits, when this node declares an attribute

    def find(self, attr: int) -> Any:
        """Data of the nearest node on the path to the root (this one first) with ``attr``."""
        node = self
        while node is not None and node.attr != attr:
            node = node.parent
        return None if node is None else node.data


def _bootstrap() -> dict[int, _Node]:
    """Caliper's predefined nodes: the type names and the three meta-attributes."""
    types = ("usr", "int", "uint", "string", "addr", "double", "bool", "type")
    nodes = {i: _Node(i, _TYPE_ATTR, t, None) for i, t in enumerate(types)}
    nodes[11] = _Node(11, _TYPE_ATTR, "ptr", None)
    for nid, name, parent in (
        (_NAME_ATTR, "cali.attribute.name", 3),
        (_TYPE_ATTR, "cali.attribute.type", 7),
        (_PROP_ATTR, "cali.attribute.prop", 1),
    ):
        nodes[nid] = _Node(nid, _NAME_ATTR, name, nodes[parent])
    return nodes


class _CaliError(Exception):
    """A problem with one record; the parser adds the file and line."""


def _prop(attr_node: _Node) -> int:
    """Property bits of an attribute node (cached): the nearest ``cali.attribute.prop``
    above it."""
    if attr_node.prop is None:
        above = attr_node.parent
        found = above.find(_PROP_ATTR) if above is not None else None
        try:
            attr_node.prop = 0 if found is None else int(found)
        except ValueError:
            raise _CaliError(f"attribute {attr_node.data!r} has properties {found!r}") from None
    return attr_node.prop


def split_record(line: str) -> dict[str, list[str]]:
    """The fields of one stripped record line: key -> list of values.

    Matches caliper-reader: a later field replaces an earlier one with the same key, and a
    last field whose final value is empty (``data=a=``) is left out.
    """
    if "\\" in line:
        return _split_escaped(line)
    fields = line.split(",")
    last = fields[-1]
    if not last or last[-1] == "=":
        fields.pop()
    out = {}
    for field in fields:
        parts = field.split("=")
        out[parts[0]] = parts[1:]
    return out


def _split_escaped(line: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    entry: list[str] = []
    text: list[str] = []
    for piece in _PIECE.findall(line):
        c = piece[0]
        if c == "\\":
            if len(piece) == 1:
                raise _CaliError("a character after the final '\\'")
            text.append("\n" if piece[1] == "n" else piece[1])
        elif piece == ",":
            entry.append("".join(text))
            out[entry[0]] = entry[1:]
            entry, text = [], []
        elif piece == "=":
            entry.append("".join(text))
            text = []
        else:
            text.append(piece)
    if text:
        entry.append("".join(text))
        out[entry[0]] = entry[1:]
    return out


class _Parser:
    """State while reading one stream: the metadata tree, attributes and records."""

    def __init__(self, strict: bool = True) -> None:
        self.strict = strict
        self.number = 0  # the line being read (for records handled outside the fast path)
        self.uneven: list[tuple[int, int, int]] = []  # (line, attr= ids, data= values)
        self.nodes = _bootstrap()
        # attribute id -> declaring node, for immediate attr=/data= pairs
        self.attrs = {i: self.nodes[i] for i in (_NAME_ATTR, _TYPE_ATTR, _PROP_ATTR)}
        self.by_name = {n.data: n for n in self.attrs.values()}
        self.names_of: dict[tuple | str, list] = {}  # attr= ids -> names (or _HIDDEN_KEY)
        self.records: list[dict] = []
        self.globals: dict = {}

    def read(self, lines: list[str]) -> None:
        """Every line; the usual node and snapshot lines are handled inline (one regular
        expression each), any other record through :func:`split_record`."""
        nodes, new_node, declare, plain = self.nodes, _Node, self.declare, _PLAIN_NODE.fullmatch
        plain_ctx, snapshot, records = _PLAIN_CTX.fullmatch, self.snapshot, self.records
        for number, line in enumerate(lines, 1):
            line = line.strip()
            if not line:
                continue
            try:
                m = plain(line)
                if m is not None:
                    nid, attr, data, parent = m.groups()
                    if parent is None:
                        up = None
                    else:
                        up = nodes.get(int(parent)) or self.parent_node(parent, nid)
                    node = nodes[int(nid)] = new_node(int(nid), int(attr), data, up)
                    if node.attr == _NAME_ATTR:
                        declare(node)
                    continue
                m = plain_ctx(line)
                rec = None if m is None else snapshot(*m.groups())
                if rec is not None:
                    records.append(rec)
                else:
                    self.number = number
                    self.record(line)
            except _CaliError as exc:
                raise _LineError(str(exc), number, line) from None
            except ValueError as exc:  # an id of more digits than Python converts
                raise _LineError(f"ids of at most 4300 digits ({exc})", number, line) from None

    def record(self, line: str) -> None:
        """Any record line (stripped, not empty)."""
        rec = split_record(line)
        kind = rec.get("__rec")
        if not kind:
            raise _CaliError("a record starting with __rec=node, __rec=ctx or __rec=globals")
        kind = kind[0]
        if kind == "node":
            try:
                nid, attr = int(rec["id"][0]), int(rec["attr"][0])
                data = rec.get("data", [""])[0]
                parent = int(rec["parent"][0]) if "parent" in rec else None
            except (KeyError, IndexError, ValueError) as exc:
                raise _CaliError(f"a node record with integer id= and attr= ({exc})") from None
            up = self.parent_node(parent, nid) if parent is not None else None
            node = self.nodes[nid] = _Node(nid, attr, data, up)
            if attr == _NAME_ATTR:
                self.declare(node)
        elif kind == "ctx":
            self.records.append(self.expand(rec))
        elif kind == "globals":
            self.globals = self.expand(rec)
        else:
            raise _CaliError(f"record kind node, ctx or globals, not {kind!r}")

    def parent_node(self, parent: str | int, nid: str | int) -> _Node:
        """The node a ``parent=`` field names; a parent not defined before is an error
        (caliper-reader would make the node a root and move its subtree silently)."""
        up = self.nodes.get(int(parent))
        if up is None:
            raise _CaliError(f"a parent node defined before node {nid}, not {parent}")
        return up

    def declare(self, node: _Node) -> None:
        """A node with attr 8 (``cali.attribute.name``) declares an attribute."""
        self.attrs[node.id] = node
        self.by_name[node.data] = node
        _prop(node)  # caliper-reader reads an attribute's properties as it is declared
        self.names_of.clear()

    def expand_node(self, node: _Node) -> dict:
        """The values along a node's path to the root (cached per node)."""
        if node.record is not None:
            return node.record
        chain = []
        top = node
        while top is not None and top.record is None:
            chain.append(top)
            top = top.parent
        rec = top.record if top is not None else {}
        for n in reversed(chain):
            attr_node = self.nodes.get(n.attr)
            if attr_node is None:
                raise _CaliError(f"a known attribute id for node {n.id}, not {n.attr}")
            prop = _prop(attr_node)
            rec = dict(rec)
            if not prop & _HIDDEN:
                key, value = attr_node.data, n.data
                old = rec.get(key)
                if old is None:
                    rec[key] = value
                elif type(old) is CaliPath:
                    rec[key] = CaliPath(old, value)
                else:
                    rec[key] = CaliPath(CaliPath(None, old), value)
                if prop & _NESTED:
                    rec["path"] = CaliPath(rec.get("path"), value)
            n.record = rec
        return rec

    def expand(self, rec: dict[str, list[str]]) -> dict:
        """A ctx/globals record: referenced nodes expanded, then the immediate values."""
        out: dict = {}
        refs = rec.get("ref")
        if refs:
            nodes = self.nodes
            for ref in refs:
                try:
                    node = nodes[int(ref)]
                except (KeyError, ValueError):
                    raise _CaliError(f"a reference to a known node, not {ref!r}") from None
                out.update(node.record if node.record is not None else self.expand_node(node))
        ids, values = rec.get("attr"), rec.get("data")
        if ids is not None or values is not None:
            ids, values = ids or [], values or []
            if len(ids) != len(values):
                self._uneven(len(ids), len(values))
                n = min(len(ids), len(values))
                ids, values = ids[:n], values[:n]
            key = tuple(ids)
            names = self.names_of.get(key)
            if names is None:
                names = self.names_of[key] = self._names(ids)
            out.update(zip(names, values))
            out.pop(_HIDDEN_KEY, None)  # hidden attributes are left out
        return out

    def snapshot(self, refs: str, ids: str | None, data: str | None) -> dict | None:
        """A plain ``__rec=ctx`` line's record, from its ``ref=``, ``attr=`` and ``data=``
        texts, as :meth:`expand` makes it; None when the values do not pair with the ids
        (the general path reports or reads that)."""
        nodes = self.nodes
        out: dict = {}
        for ref in refs.split("="):
            try:
                node = nodes[int(ref)]
            except (KeyError, ValueError):
                raise _CaliError(f"a reference to a known node, not {ref!r}") from None
            out.update(node.record if node.record is not None else self.expand_node(node))
        if ids is not None:
            values = data.split("=")  # type: ignore[union-attr]  (data comes with ids)
            if len(values) != ids.count("=") + 1:
                return None
            names = self.names_of.get(ids)  # keyed by the ids' text here
            if names is None:
                names = self.names_of[ids] = self._names(ids.split("="))
            out.update(zip(names, values))
            out.pop(_HIDDEN_KEY, None)
        return out

    def _uneven(self, n_ids: int, n_values: int) -> None:
        """A record whose attr= ids and data= values differ in number: an error, or (not
        strict) noted and read pairwise, so missing values read as NaN and extra ones go."""
        if self.strict:
            raise _CaliError(
                f"as many data= values as attr= ids ({n_ids}), found {n_values} (record cut short?)"
            )
        self.uneven.append((self.number, n_ids, n_values))

    def _names(self, ids: list[str]) -> list:
        names = []
        for i in ids:
            try:
                node = self.attrs[int(i)]
            except (KeyError, ValueError):
                raise _CaliError(f"a declared attribute id, not {i!r}") from None
            names.append(_HIDDEN_KEY if _prop(node) & _HIDDEN else node.data)
        return names

    def attributes(self) -> dict[str, AttributeInfo]:
        alias_node, unit_node = self.by_name.get(_ALIAS), self.by_name.get(_UNIT)
        out = {}
        for name, node in self.by_name.items():
            prop = _prop(node)
            alias = node.find(alias_node.id) if alias_node is not None else None
            unit = node.find(unit_node.id) if unit_node is not None else None
            out[name] = AttributeInfo(node.find(_TYPE_ATTR), bool(prop & _AS_VALUE), alias, unit)
        return out


class _LineError(Exception):
    """A record problem with the number and text of its line."""

    def __init__(self, what: str, number: int, line: str) -> None:
        super().__init__(what)
        self.what, self.number, self.line = what, number, line


def parse_cali(text: str, path: str, strict: bool = True) -> CaliContents:
    """Parse the text of a ``.cali`` stream (newlines normalised to ``\\n``).

    Raises :class:`~perfweave.errors.ParseError` naming ``path`` and the line for a
    truncated last line, a line that is not a record, an unknown record kind, a
    reference to a node or attribute that was not declared before, or (``strict``) a
    snapshot whose ``attr=`` ids and ``data=`` values differ in number. Not ``strict``,
    such snapshots are read pairwise (a missing value is NaN) and counted in one
    :class:`~perfweave.errors.IncompleteInputWarning` naming their lines.
    """
    lines = text.split("\n")
    last = lines.pop()
    if last:
        raise ParseError(
            path,
            "a complete record ending in a newline (file truncated?)",
            line=len(lines) + 1,
            found=last.strip(),
        )
    if not text.strip():
        raise ParseError(path, "Caliper records", found="an empty file")
    parser = _Parser(strict)
    try:
        parser.read(lines)
    except _LineError as exc:
        raise ParseError(path, exc.what, line=exc.number, found=exc.line) from None
    if parser.uneven:
        _warn_uneven(path, parser.uneven)
    return CaliContents(parser.records, parser.globals, parser.attributes())


def _warn_uneven(path: str, uneven: list[tuple[int, int, int]]) -> None:
    shown = ", ".join(f"{line} ({n} of {k})" for line, k, n in uneven[:5])
    more = f" and {len(uneven) - 5} more" if len(uneven) > 5 else ""
    warnings.warn(
        IncompleteInputWarning(
            f"{path}: {len(uneven)} record(s) whose data= values do not match their attr= "
            f"ids, read pairwise (a missing value is NaN, an extra one left out): "
            f"line (values of ids) {shown}{more}"
        ),
        stacklevel=4,
    )


def from_caliperreader(reader: Any) -> CaliContents:
    """The contents of a ``caliperreader.CaliperReader`` that has read a stream."""
    attributes = {}
    for name, attr in reader.db.attributes.items():
        try:
            kind = attr.attribute_type()
        except (TypeError, IndexError, KeyError):
            kind = None
        attributes[name] = AttributeInfo(
            kind, bool(attr.is_value()), attr.get(_ALIAS), attr.get(_UNIT)
        )
    return CaliContents(reader.records, reader.globals, attributes)
