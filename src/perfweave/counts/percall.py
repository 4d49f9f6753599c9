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

import mmap
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfweave.counts._count_text import ascii_bytes, block_to_matrix, rows_to_matrix
from perfweave.counts._fields import MAX_DATATYPE_SIZE, MAX_RANKS, read_uint
from perfweave.counts._parallel import map_files
from perfweave.counts.matrix import CountMatrix
from perfweave.errors import ParseError, PerfweaveError

__all__ = ["CallCounts", "PERCALL_NAME", "parse_percall", "read_percall", "read_percall_files"]

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
    """Read one per-call file; rank and call come from its name when it follows the pattern.

    The file is memory-mapped for the byte-level parse (no copy of its text is made); only
    when that declines is it read and parsed line by line.
    """
    p = Path(path)
    rank, call = percall_ids(p.name)
    with open(p, "rb") as fh:
        if os.fstat(fh.fileno()).st_size:
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
                fast = _parse_plain(data, path=str(p), rank=rank, call=call)
            if fast is not None:
                return fast
        fh.seek(0)
        raw = fh.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(str(p), "UTF-8 text", position=exc.start) from None
    return _parse_lines(text, path=str(p), rank=rank, call=call)


def percall_ids(name: str) -> tuple[int | None, int | None]:
    """Lead rank and call id from a per-call file name (None, None if it has neither)."""
    m = PERCALL_NAME.match(name)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def read_percall_files(
    paths: Sequence[str | os.PathLike[str]], *, workers: int | None = None
) -> list[CallCounts]:
    """:func:`read_percall` of every path, in order, parsed on ``workers`` threads (default:
    the CPUs available, at most 8). Raises the error of the first bad file in ``paths``."""
    results = map_files(read_percall, list(paths), workers)
    for item in results:
        if isinstance(item, PerfweaveError):
            raise item
    return results  # type: ignore[return-value]


def parse_percall(
    text: str, *, path: str = "<string>", rank: int | None = None, call: int | None = None
) -> CallCounts:
    """Parse the text of a per-call count file (see :func:`read_percall`)."""
    data = ascii_bytes(text)
    fast = None if data is None else _parse_plain(data, path=path, rank=rank, call=call)
    return fast if fast is not None else _parse_lines(text, path=path, rank=rank, call=call)


_SEND = b"\nSend counts\n"
_RECV = b"\nRecv counts\n"
_TRAILING_BLANKS = 64  # more blank bytes than this after a section: the general path


def _parse_plain(
    data: bytes | mmap.mmap, *, path: str, rank: int | None, call: int | None
) -> CallCounts | None:
    """The common case, straight from the file's bytes: both sections are found with one
    search each and parsed in place by :func:`block_to_matrix`. None for anything else
    (CR line ends, unusual spacing, a malformed row...): :func:`_parse_lines` then parses
    the text line by line and names the line of any error."""
    send_at = data.find(_SEND)
    recv_at = data.find(_RECV, send_at + len(_SEND) - 1)
    # (CR line ends never match _SEND; a stray CR in a section is refused by _digit_runs)
    if send_at < 0 or recv_at < 0 or data[:11] == _SEND[1:-1]:
        return None
    head = _ascii_text(data[:send_at])
    if head is None:
        return None
    header = _parse_header(head.split("\n"), path=path, send_line=head.count("\n") + 2)
    n = header["comm_size"]
    send = _plain_matrix(data, send_at + len(_SEND), recv_at, n)
    recv = None if send is None else _plain_matrix(data, recv_at + len(_RECV), len(data), n)
    if send is None or recv is None:
        return None
    return CallCounts(rank=rank, call=call, **header, send=send, recv=recv, path=path)


def _ascii_text(data: bytes) -> str | None:
    try:
        return data.decode("ascii")
    except UnicodeDecodeError:
        return None


def _plain_matrix(data: bytes | mmap.mmap, start: int, stop: int, n: int) -> CountMatrix | None:
    """Rows ``data[start:stop]`` (trailing blank lines dropped): ``n`` lines of ``n``
    counts (or of 1 for Alltoall), or None."""
    floor = max(start, stop - _TRAILING_BLANKS)
    while stop > floor and data[stop - 1] in b" \n":
        stop -= 1
    if stop == floor and floor > start:
        return None
    first_end = data.find(b"\n", start, stop)
    width = 1 if len(data[start : stop if first_end < 0 else first_end].split()) == 1 else n
    dense = block_to_matrix(data, start, stop, n, width)
    return None if dense is None else CountMatrix._adopt_dense(dense)


def _parse_header(lines: list[str], *, path: str, send_line: int) -> dict[str, int]:
    """The ``Send datatype size:``, ``Recv datatype size:`` and ``Comm size:`` lines that
    come before the ``Send counts`` line (file line ``send_line``)."""
    header: dict[str, int] = {}
    for i, line in enumerate(lines):
        text_line = line.strip()
        if not text_line:
            continue
        for key, prefix in _HEADER:
            if text_line.startswith(prefix):
                header[key] = read_uint(
                    text_line[len(prefix) :],
                    path=path,
                    line=i + 1,
                    expected=f"'{prefix} <integer>'",
                    maximum=MAX_RANKS if key == "comm_size" else MAX_DATATYPE_SIZE,
                    found=line,
                )
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
            raise ParseError(path, f"'{prefix} <integer>' before 'Send counts'", line=send_line)
    if header["comm_size"] < 1:
        raise ParseError(
            path, "a communicator size >= 1", line=send_line - 1, found=str(header["comm_size"])
        )
    return header


def _parse_lines(text: str, *, path: str, rank: int | None, call: int | None) -> CallCounts:
    """The general parse, line by line (any spacing, CR line ends, exact error lines)."""
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
    header = _parse_header(lines[:send_at], path=path, send_line=send_at + 1)
    n = header["comm_size"]
    send = _matrix(lines, send_at + 1, recv_at, n, path=path, what="Send counts")
    recv = _matrix(lines, recv_at + 1, len(lines), n, path=path, what="Recv counts")
    return CallCounts(rank=rank, call=call, **header, send=send, recv=recv, path=path)


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
