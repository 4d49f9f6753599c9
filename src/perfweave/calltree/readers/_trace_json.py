"""A trace-event file into Python objects: orjson for ordinary files, the exact path after it.

A trace of a million events is about 100 MB of JSON: ``json.loads`` takes about 2 s on it,
orjson (a maintained C parser, a dependency of perfweave) about a third of that. orjson is
stricter than Python's ``json`` (it refuses bytes that are not UTF-8, escapes of lone
surrogates, NaN, numbers past the double range and nesting past 1,024 levels), so a file it
refuses is read again the exact way: bytes that are not UTF-8 replaced with U+FFFD (and
said where), Python's ``json`` with any nesting depth (:mod:`perfweave.calltree.deepjson`),
and broken JSON reported with its line and column. A file whose event array was never
closed (the run that wrote it died, or is still running) is closed and read, and the caller
is told so; speedscope reads such files too (a trailing comma or whitespace allowed).
Python's cycle collector is paused while the document is built (it holds no cycles).
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from perfweave.calltree import deepjson
from perfweave.calltree.readers._common import read_input
from perfweave.errors import ParseError

#: what the document is, for error messages
EXPECTED = "trace-event JSON (an array of events or an object with traceEvents)"


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused: parsing a trace makes millions of dicts, and each
    few hundred of them started a collection that walked the ones made before (a trace of
    a million events with args took three times as long to parse, and reading its columns
    twice as long). Parsed JSON holds no cycles; the readers pause it for the whole read."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


class Document(NamedTuple):
    """A parsed trace-event file."""

    #: the JSON document
    data: Any
    #: whether its array had to be closed (the file ends inside it)
    closed: bool
    #: where the first byte that is not UTF-8 was ("" if none; such bytes become U+FFFD)
    replaced: str
    #: every string is valid Unicode: orjson read the file (it refuses bytes that are not
    #: UTF-8 and escapes of lone surrogates), so no text needs mending
    valid_text: bool


def load(file: Path, what: str) -> Document:
    """The JSON document of ``file`` (see :class:`Document`)."""
    raw = read_input(file, what)
    with no_cycle_collection():
        return _load(raw, file)


def _load(raw: bytes, file: Path) -> Document:
    try:
        return Document(orjson.loads(raw), False, "", True)
    except orjson.JSONDecodeError:
        pass
    try:
        return Document(orjson.loads(close(raw)), True, "", True)
    except orjson.JSONDecodeError:
        pass
    text, replaced = decode(raw)
    try:
        return Document(_parse(text, file), False, replaced, False)
    except json.JSONDecodeError as exc:
        try:
            return Document(_parse(close(text), file), True, replaced, False)
        except json.JSONDecodeError:
            raise ParseError(
                file, EXPECTED, line=exc.lineno, position=f"column {exc.colno}", found=exc.msg
            ) from exc


def decode(raw: bytes) -> tuple[str, str]:
    """UTF-8 text (universal newlines) and where the first byte that is not UTF-8 was
    ("" if none): such bytes are replaced with U+FFFD."""
    try:
        text, replaced = raw.decode("utf-8"), ""
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8", errors="replace")
        line = raw.count(b"\n", 0, exc.start) + 1
        replaced = f"line {line}, byte {exc.start}"
    return text.replace("\r\n", "\n").replace("\r", "\n"), replaced


def _parse(text: str, file: Path) -> Any:
    """JSON of any depth; a number too long for Python (over 4,300 digits) is a ParseError."""
    try:
        return deepjson.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        raise ParseError(
            file, "trace-event JSON with numbers Python can read", found=str(exc)
        ) from None


_TRAILING_TEXT = re.compile(r",?\s*$")
_TRAILING_BYTES = re.compile(rb",?\s*$")


def close(text: str | bytes) -> Any:
    """The text (or bytes) of an unterminated trace with its array (and object) closed:
    trailing whitespace and a trailing comma dropped, ``]`` (and ``}``) added."""
    if isinstance(text, bytes):
        body = _TRAILING_BYTES.sub(b"", text.rstrip())
        if body.lstrip()[:1] == b"{":
            return body + (b"" if body.endswith(b"]") else b"]") + b"}"
        return body + b"]"
    body = _TRAILING_TEXT.sub("", text.rstrip())
    if body.lstrip().startswith("{"):
        return body + ("" if body.endswith("]") else "]") + "}"
    return body + "]"


def split(data: Any, file: Path) -> tuple[list, dict]:
    """The event list of a document (a bare array, or an object's ``traceEvents``) and the
    document's other keys (empty for a bare array)."""
    if isinstance(data, dict) and isinstance(data.get("traceEvents"), list):
        return data["traceEvents"], {k: v for k, v in data.items() if k != "traceEvents"}
    if isinstance(data, list):
        return data, {}
    raise ParseError(
        file,
        "an array of events or an object with a traceEvents array",
        found=f"a JSON {type(data).__name__}",
    )
