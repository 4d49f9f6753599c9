"""Folded stacks, the flame graph input format: one call path and its value per line.

::

    main;solve;MPI_Send 6
    main;io;MPI_Send 3

Frames are joined by ``;`` and the value follows the last space (names may hold spaces).
Flame graph tools know no escaping, so a name holding ``;`` or a line break would split
its frame or its line. perfweave writes such names escaped, reversibly:

=====================  ==========================
in a name              written as
=====================  ==========================
``\\``                 ``\\\\``
``;``                  ``\\x3b``
newline, CR, tab       ``\\n``, ``\\r``, ``\\t``
other control codes    ``\\xNN`` (C0, DEL, C1; e.g. ESC is ``\\x1b``)
=====================  ==========================

Everything else (spaces, ``:``, non-ASCII text) is written as it is. A flame graph shows
the escapes as text; :func:`parse_folded` (and :func:`unescape`) give the names back
exactly, so ``parse_folded(gf.to_flamegraph())`` lists each node's call path as named.
"""

from __future__ import annotations

import re

from perfweave.errors import ParseError

__all__ = ["escape", "parse_folded", "unescape"]

_ESCAPES = {c: f"\\x{c:02x}" for c in (*range(32), *range(127, 160))}
_ESCAPES.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
_ESCAPES.update({ord("\\"): "\\\\", ord(";"): "\\x3b"})
_SHORT = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\"}
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|.?)", re.S)


def escape(name: object) -> str:
    """``str(name)`` written for a folded stack (see the table above)."""
    return str(name).translate(_ESCAPES)


def unescape(text: str) -> str:
    """The name :func:`escape` wrote as ``text``; a ``\\`` not starting an escape is kept."""
    if "\\" not in text:
        return text

    def one(m: re.Match) -> str:
        code = m.group(1)
        if len(code) == 3:
            return chr(int(code[1:], 16))
        return _SHORT.get(code, m.group(0))

    return _ESCAPE.sub(one, text)


def parse_folded(text: str, path: str = "<string>") -> list[tuple[tuple[str, ...], float]]:
    """(call path, value) of every line of folded stacks, names unescaped.

    Raises :class:`~perfweave.errors.ParseError` naming the line for a line with no value
    after its last space.
    """
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        stack, _, value = line.rpartition(" ")
        try:
            number_value = float(value)
        except ValueError:
            number_value = None
        if not stack or number_value is None:
            raise ParseError(path, "'frame;frame;... <value>'", line=number, found=line)
        out.append((tuple(unescape(f) for f in stack.split(";")), number_value))
    return out
