"""Per-call count files: ``counts.rank<R>_call<N>.md`` (also ``counts-rank<R>_call<N>.md``).

One file per call of a lead rank::

    Send datatype size: 8
    Recv datatype size: 8
    Comm size: 4

    Send counts
    0 1 2 3
    ...

    Recv counts
    ...

with or without a trailing newline. Alltoall files have one count per row.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from perfweave.counts._rows import rows_to_matrix
from perfweave.counts.matrix import CountMatrix
from perfweave.errors import ParseError

__all__ = ["CallCounts", "PERCALL_NAME", "parse_percall", "read_percall"]

PERCALL_NAME = re.compile(r"^counts[.-]rank(\d+)_call(\d+)\.md$")

_HEADER = (
    ("send_datatype_size", "Send datatype size:"),
    ("recv_datatype_size", "Recv datatype size:"),
    ("comm_size", "Comm size:"),
)


@dataclass(frozen=True, eq=False)
class CallCounts:
    """The counts of one call as one per-call file records them."""

    rank: int | None
    call: int | None
    send_datatype_size: int
    recv_datatype_size: int
    comm_size: int
    send: CountMatrix
    recv: CountMatrix
    path: str = "<string>"


def read_percall(path: str | os.PathLike[str]) -> CallCounts:
    """Read one per-call file; rank and call come from its name when it follows the pattern."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(str(p), "UTF-8 text", position=exc.start) from None
    m = PERCALL_NAME.match(p.name)
    rank, call = (int(m.group(1)), int(m.group(2))) if m else (None, None)
    return parse_percall(text, path=str(p), rank=rank, call=call)


def parse_percall(
    text: str, *, path: str = "<string>", rank: int | None = None, call: int | None = None
) -> CallCounts:
    """Parse the text of a per-call count file (see :func:`read_percall`)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    try:
        send_at = lines.index("Send counts")
    except ValueError:
        raise ParseError(path, "a 'Send counts' line", line=len(lines)) from None
    try:
        recv_at = lines.index("Recv counts", send_at)
    except ValueError:
        raise ParseError(
            path, "a 'Recv counts' line after 'Send counts'", line=len(lines)
        ) from None
    header: dict[str, int] = {}
    for i, line in enumerate(lines[:send_at]):
        text_line = line.strip()
        if not text_line:
            continue
        for key, prefix in _HEADER:
            if text_line.startswith(prefix):
                value = text_line[len(prefix) :].strip()
                if not (value.isascii() and value.isdigit()):
                    raise ParseError(path, f"'{prefix} <integer>'", line=i + 1, found=line)
                header[key] = int(value)
                break
        else:
            raise ParseError(
                path,
                "'Send datatype size:', 'Recv datatype size:' or 'Comm size:'",
                line=i + 1,
                found=line,
            )
    for key, prefix in _HEADER:
        if key not in header:
            raise ParseError(path, f"'{prefix} <integer>' before 'Send counts'", line=send_at + 1)
    n = header["comm_size"]
    if n < 1:
        raise ParseError(path, "a communicator size >= 1", line=send_at, found=str(n))
    send = _matrix(lines, send_at + 1, recv_at, n, path=path, what="Send counts")
    recv = _matrix(lines, recv_at + 1, len(lines), n, path=path, what="Recv counts")
    return CallCounts(
        rank=rank,
        call=call,
        send_datatype_size=header["send_datatype_size"],
        recv_datatype_size=header["recv_datatype_size"],
        comm_size=n,
        send=send,
        recv=recv,
        path=path,
    )


def _matrix(
    lines: list[str], start: int, stop: int, n: int, *, path: str, what: str
) -> CountMatrix:
    """Rows of one section: ``n`` non-blank lines, each of ``n`` counts (or 1 for Alltoall)."""
    section = lines[start:stop]
    end = len(section)
    while end and not section[end - 1].strip():
        end -= 1
    rows = section[:end]
    if len(rows) != n:
        blank = next((j for j, r in enumerate(rows) if not r.strip()), None)
        raise ParseError(
            path,
            f"{n} rows of counts under '{what}' (Comm size: {n})",
            line=start + 1 + (blank if blank is not None else len(rows)),
            found=f"{len(rows) if blank is None else blank} rows",
        )
    first = len(rows[0].split())
    width = first if first == 1 else n
    dense = rows_to_matrix(
        rows,
        width,
        path=path,
        first_line=start + 1,
        expected=f"{n} counts per row (Comm size: {n})" if width != 1 else "1 count per row",
    )
    return CountMatrix._adopt_dense(dense)
