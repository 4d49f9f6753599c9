"""JSON of any nesting depth: the ``json`` module first, an iterative fallback after it.

Python's ``json`` parses and writes nested arrays and objects recursively and stops with
``RecursionError`` near 1,000 levels; a calltree 10,000 calls deep is 20,000 levels of
JSON in Hatchet's literal format. :func:`loads` and :func:`dumps` give the same results
as ``json.loads``/``json.dumps`` for any depth: the fast C code for ordinary documents,
an explicit stack where that recursion gives up. Scalars (strings, numbers) are decoded
and encoded by the ``json`` module itself, so escapes and number syntax are exactly its own.

:func:`parse` is :func:`loads` for a file's text: malformed JSON is a ParseError naming the
file, line and column; every reader of JSON (calltree's, an ensemble's, Extra-P's inputs)
parses through it. :func:`numpy_default` is the ``default=`` hook that writes numpy
scalars as the numbers they hold.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from perfweave.errors import ArgumentError, ParseError

# one token after optional whitespace: punctuation, string, number or literal
_TOKEN = re.compile(
    r"""[ \t\n\r]*(?:
        (?P<punct>[\[\]{},:])
      | (?P<string>"(?:[^"\\\x00-\x1f]|\\.)*")
      | (?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)
      | (?P<word>true|false|null|NaN|Infinity|-Infinity)
    )""",
    re.X | re.S,
)
_WORDS = {
    "true": True,
    "false": False,
    "null": None,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}


def loads(text: str) -> Any:
    """``json.loads(text)`` for any nesting depth (raises ``json.JSONDecodeError``)."""
    try:
        return json.loads(text)
    except RecursionError:
        return _loads_iterative(text)


def parse(text: str, path: Any, expected: str, *, line: int | None = None) -> Any:
    """``text`` (the contents of ``path``) as JSON of any depth; malformed JSON, or an
    integer of more digits than Python converts, is a ParseError naming ``path``, the line
    (``line`` for text that is one line of a file, else where parsing stopped) and column,
    and ``expected``."""
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(
            path,
            expected,
            line=line if line is not None else exc.lineno,
            position=f"column {exc.colno}",
            found=exc.msg,
        ) from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise ParseError(path, expected, line=line, found=str(exc)) from None


def numpy_default(value: Any) -> Any:
    """``json.dumps``' ``default=`` hook: a numpy scalar as the Python number it holds;
    anything else a TypeError, as ``json`` asks of the hook."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _fail(msg: str, text: str, pos: int) -> json.JSONDecodeError:
    return json.JSONDecodeError(msg, text, pos)


def _loads_iterative(text: str) -> Any:
    """A JSON document parsed with an explicit stack of open arrays and objects."""
    stack: list[list | dict] = []
    keys: list[Any] = []  # per open container: the pending key of an object (or None)
    pos, end = 0, len(text)
    state = "value"  # value | first-value | key | first-key | colon | after
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:
            if pos >= end or not text[pos:].strip():
                raise _fail("Expecting value", text, end)
            raise _fail("Expecting value", text, pos)
        start, pos = m.start(m.lastindex), m.end()
        kind, tok = m.lastgroup, m.group(m.lastindex)
        if state in ("key", "first-key"):
            if kind == "string":
                keys[-1] = json.loads(tok)
                state = "colon"
                continue
            if state == "first-key" and tok == "}":
                value, state = stack.pop(), "after"
                keys.pop()
            else:
                raise _fail("Expecting property name enclosed in double quotes", text, start)
        elif state == "colon":
            if tok != ":":
                raise _fail("Expecting ':' delimiter", text, start)
            state = "value"
            continue
        elif state == "after":
            container = stack[-1] if stack else None
            if container is None:
                raise _fail("Extra data", text, start)
            if tok == ",":
                state = "key" if isinstance(container, dict) else "value"
                continue
            if tok == ("}" if isinstance(container, dict) else "]"):
                value = stack.pop()
                keys.pop()
            else:
                raise _fail("Expecting ',' delimiter", text, start)
        else:  # a value is expected
            if tok == "[":
                stack.append([])
                keys.append(None)
                state = "first-value"
                continue
            if tok == "{":
                stack.append({})
                keys.append(None)
                state = "first-key"
                continue
            if state == "first-value" and tok == "]":
                value = stack.pop()
                keys.pop()
            elif kind in ("string", "number"):
                value = json.loads(tok)
            elif kind == "word":
                value = _WORDS[tok]
            else:
                raise _fail("Expecting value", text, start)
        # a complete value: store it in its container, or it is the document
        if not stack:
            if text[pos:].strip():
                raise _fail("Extra data", text, pos + len(text[pos:]) - len(text[pos:].lstrip()))
            return value
        container = stack[-1]
        if isinstance(container, dict):
            container[keys[-1]] = value
        else:
            container.append(value)
        state = "after"


def dumps(obj: Any, *, indent: int | None = None, default: Callable | None = None) -> str:
    """``json.dumps(obj, indent=indent, default=default)`` for any nesting depth.

    Beyond the depth ``json`` handles, the text is written without indentation: indenting
    a 10,000-level tree would add gigabytes of spaces (the indent grows with the depth).
    """
    try:
        return json.dumps(obj, indent=indent, default=default)
    except RecursionError:
        return "".join(_dumps_iterative(obj, None, default))


def _dumps_iterative(obj: Any, indent: int | None, default: Callable | None) -> list[str]:
    """Pieces of the JSON text of ``obj``, written with an explicit stack."""
    item_sep, key_sep = (",", ": ") if indent is not None else (", ", ": ")

    def newline(level: int) -> str:
        return "" if indent is None else "\n" + " " * (indent * level)

    out: list[str] = []
    # work items: ("value", obj, level) or ("text", str)
    work: list[tuple] = [("value", obj, 0)]
    active: set[int] = set()  # containers being written: a cycle would never end
    while work:
        item = work.pop()
        if item[0] == "text":
            out.append(item[1])
            continue
        if item[0] == "close":
            active.discard(item[1])
            out.append(item[2])
            continue
        _, value, level = item
        if isinstance(value, (list, tuple, dict)):
            if id(value) in active:
                raise ArgumentError("Circular reference detected")
            if not value:
                out.append("{}" if isinstance(value, dict) else "[]")
                continue
            active.add(id(value))
            is_dict = isinstance(value, dict)
            out.append("{" if is_dict else "[")
            pieces: list[tuple] = []
            entries = list(value.items()) if is_dict else list(enumerate(value))
            for k, (key, element) in enumerate(entries):
                lead = (item_sep if k else "") + newline(level + 1)
                if is_dict:
                    lead += json.dumps(key if isinstance(key, str) else _key(key)) + key_sep
                pieces.append(("text", lead))
                pieces.append(("value", element, level + 1))
            pieces.append(("close", id(value), newline(level) + ("}" if is_dict else "]")))
            work.extend(reversed(pieces))
        else:
            try:
                out.append(json.dumps(value))
            except TypeError:
                if default is None:
                    raise
                work.append(("value", default(value), level))
    return out


def _key(key: Any) -> str:
    """A non-string dict key as ``json.dumps`` writes it."""
    return next(iter(json.loads(json.dumps({key: 0}))))
