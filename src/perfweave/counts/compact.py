"""Compact count files: ``send-counters.job<J>.rank<R>.txt`` / ``recv-counters...``.

A file holds one block per distinct count matrix of a lead rank::

    # Raw counters

    Number of ranks: 4
    Datatype size: 4
    Alltoallv calls 0-2
    Count: 2 calls - 0, 2


    BEGINNING DATA
    Rank(s) 0-1: 0 1
    END DATA

The C profiler writes ``calls 0-2``, ``0, 2`` and a trailing space after the counts
(style ``"profiler"``); the Go conversion tool writes ``calls  0-2``, ``0,2`` and no
trailing space (style ``"tools"``). Both are read; either can be written byte for byte.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from perfweave.counts._count_text import parse_count_text, rows_to_matrix
from perfweave.counts._fields import MAX_CALLS, MAX_DATATYPE_SIZE, MAX_RANKS, read_uint
from perfweave.counts.matrix import CountMatrix
from perfweave.counts.ranklist import (
    expand_spans,
    format_ranklist,
    parse_ranklist,
    ranklist_spans,
)
from perfweave.errors import ArgumentError, IncompleteInputWarning, ParseError

__all__ = [
    "COLLECTIVES",
    "CompactBlock",
    "CompactFile",
    "CompactStyle",
    "format_compact",
    "parse_rows",
    "read_compact",
    "write_compact",
]

COLLECTIVES = ("Alltoallv", "Alltoall", "Allgatherv")


class CompactStyle(NamedTuple):
    """Spelling details that differ between writers of compact files."""

    gap: str  # between "calls" and the call range
    sep: str  # between rank-list / call-list items
    trailing: str  # after the last count of a row


STYLES = {
    "profiler": CompactStyle(" ", ", ", " "),
    "tools": CompactStyle("  ", ",", ""),
}
COMPACT_NAME = re.compile(r"^(send|recv)-counters\.job(\d+)\.rank(\d+)\.txt$")

_CALLS_LINE = re.compile(r"^(\w+) calls( +)(\d+)-(\d+)$")
_COUNT_LINE = re.compile(r"^Count: (\d+) calls - (.+)$")


@dataclass(frozen=True, eq=False)
class CompactBlock:
    """One block: the calls that share one count matrix (and datatype size)."""

    collective: str
    comm_size: int
    datatype_size: int
    calls: np.ndarray
    counts: CountMatrix
    call_range: tuple[int, int] | None = None
    line: int | None = None
    layout: np.ndarray | None = None  # row of each rank as written (files may repeat rows)


@dataclass(eq=False)
class CompactFile:
    """A parsed compact file: its blocks in file order, and where it came from."""

    path: str
    kind: str | None
    job: int | None
    rank: int | None
    blocks: list[CompactBlock] = field(default_factory=list)
    style: CompactStyle = STYLES["profiler"]

    @property
    def calls(self) -> np.ndarray:
        """All call ids of the file, sorted."""
        if not self.blocks:
            return np.zeros(0, dtype=np.int64)
        return np.sort(np.concatenate([b.calls for b in self.blocks]))


def expected_width(collective: str, kind: str | None, comm_size: int) -> int | None:
    """Counts per row: comm size, or 1 where one count goes to every peer (None: either)."""
    if collective == "Alltoallv":
        return comm_size
    if collective == "Alltoall":
        return 1
    if collective == "Allgatherv":
        return None if kind is None else (1 if kind == "send" else comm_size)
    return None


def read_compact(
    path: str | os.PathLike[str], kind: str | None = None, *, strict: bool = False
) -> CompactFile:
    """Read a compact count file; ``kind`` ("send"/"recv") defaults from the file name.

    A file holding fewer calls than its ``<Collective> calls <first>-<last>`` header lists
    (cut short after a complete block) is read as it is with an
    :class:`~perfweave.errors.IncompleteInputWarning`; ``strict=True`` raises a
    :class:`~perfweave.errors.ParseError` naming the file and its last line instead.
    """
    p = Path(path)
    match = COMPACT_NAME.match(p.name)
    if kind is None and match:
        kind = match.group(1)
    try:
        # bytes then decode: several times faster than read_text, whose newline translation
        # costs more than the decoding; parse_compact translates CR line ends
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(str(p), "UTF-8 text", position=exc.start) from None
    cf = parse_compact(text, path=str(p), kind=kind, strict=strict)
    if match:
        cf.job, cf.rank = int(match.group(2)), int(match.group(3))
    return cf


def parse_compact(
    text: str, *, path: str = "<string>", kind: str | None = None, strict: bool = False
) -> CompactFile:
    """Parse the text of a compact count file (see :func:`read_compact`)."""
    if "\r" in text:  # CRLF or CR line ends, as universal newlines would read them
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    out = CompactFile(path=path, kind=kind, job=None, rank=None)
    gaps: set[str] = set()
    trailing: set[str] = set()
    i, n = 0, len(lines)
    while i < n:
        if not lines[i].strip():
            i += 1
            continue
        if lines[i].rstrip() != "# Raw counters":
            raise ParseError(path, "'# Raw counters' starting a block", line=i + 1, found=lines[i])
        block, i, gap, trail = _parse_block(lines, i, path=path, kind=kind)
        gaps.add(gap)
        trailing.add(trail)
        out.blocks.append(block)
    if not out.blocks:
        raise ParseError(path, "at least one '# Raw counters' block", line=1)
    _check_calls_unique(out.blocks, path)
    _check_missing_calls(out.blocks, path, len(lines) - (lines[-1] == ""), strict)
    gap = "  " if gaps == {"  "} else " "
    sep = (
        ", "
        if ", " in text
        else ("," if "," in text else STYLES["profiler" if gap == " " else "tools"].sep)
    )
    out.style = CompactStyle(gap, sep, " " if trailing == {" "} else "")
    return out


def _parse_block(
    lines: list[str], start: int, *, path: str, kind: str | None
) -> tuple[CompactBlock, int, str, str]:
    header: dict[str, object] = {}
    i = start + 1
    n = len(lines)
    while True:
        if i >= n:
            raise ParseError(
                path, f"'BEGINNING DATA' in the block started at line {start + 1}", line=n
            )
        text = lines[i].strip()
        if text == "BEGINNING DATA":
            break
        if text:
            _parse_header_line(text, header, path=path, line=i + 1)
        i += 1
    for key, what in (
        ("comm_size", "'Number of ranks: <n>'"),
        ("datatype_size", "'Datatype size: <bytes>'"),
        ("collective", "'<Collective> calls <first>-<last>'"),
        ("calls", "'Count: <n> calls - <call list>'"),
    ):
        if key not in header:
            raise ParseError(path, f"{what} before BEGINNING DATA", line=i + 1)
    data_start = i + 1
    try:
        end = lines.index("END DATA", data_start)
    except ValueError:
        end = n
    rows = lines[data_start:end]
    if end == n:
        while rows and not rows[-1].strip():
            rows.pop()
    comm_size = int(header["comm_size"])  # type: ignore[arg-type]
    collective = str(header["collective"])
    counts, layout, trailing = _parse_data_rows(
        rows,
        data_start + 1,
        comm_size=comm_size,
        width=expected_width(collective, kind, comm_size),
        path=path,
        block_line=start + 1,
        closed=end < n,
    )
    block = CompactBlock(
        collective=collective,
        comm_size=comm_size,
        datatype_size=int(header["datatype_size"]),  # type: ignore[arg-type]
        calls=header["calls"],  # type: ignore[arg-type]
        counts=counts,
        call_range=header["call_range"],  # type: ignore[arg-type]
        line=start + 1,
        layout=layout,
    )
    return block, end + 1, str(header["gap"]), " " if trailing else ""


def _parse_header_line(text: str, header: dict[str, object], *, path: str, line: int) -> None:
    if text.startswith("Number of ranks:"):
        header["comm_size"] = _int_field(
            text, path, line, "'Number of ranks: <n>'", minimum=1, maximum=MAX_RANKS
        )
        return
    if text.startswith("Datatype size:"):
        header["datatype_size"] = _int_field(
            text, path, line, "'Datatype size: <bytes>'", maximum=MAX_DATATYPE_SIZE
        )
        return
    m = _COUNT_LINE.match(text)
    if m:
        n_calls = read_uint(
            m.group(1),
            path=path,
            line=line,
            expected="'Count: <n> calls'",
            maximum=MAX_CALLS,
            found=text,
        )
        # the declared number bounds the expansion of the list (checked before allocating)
        calls = parse_ranklist(m.group(2), path=path, line=line, limit=max(n_calls, 1))
        if calls.size != n_calls:
            raise ParseError(
                path,
                f"{m.group(1)} call ids after 'Count: {m.group(1)} calls -'",
                line=line,
                found=f"{calls.size} call ids",
            )
        header["calls"] = calls
        return
    m = _CALLS_LINE.match(text)
    if m:
        if m.group(1) not in COLLECTIVES:
            raise ParseError(
                path,
                f"a collective name, one of {', '.join(COLLECTIVES)}",
                line=line,
                found=m.group(1),
            )
        header["collective"] = m.group(1)
        what = "'<Collective> calls <first>-<last>'"
        header["call_range"] = (
            read_uint(m.group(3), path=path, line=line, expected=what, found=text),
            read_uint(m.group(4), path=path, line=line, expected=what, found=text),
        )
        header["gap"] = m.group(2)
        return
    raise ParseError(
        path,
        "a block header line ('Number of ranks:', 'Datatype size:', "
        "'<Collective> calls a-b', 'Count:') or 'BEGINNING DATA'",
        line=line,
        found=text,
    )


def _int_field(
    text: str, path: str, line: int, expected: str, *, minimum: int = 0, maximum: int
) -> int:
    value = text.partition(":")[2]
    return read_uint(
        value, path=path, line=line, expected=expected, minimum=minimum, maximum=maximum, found=text
    )


def _parse_data_rows(
    rows: list[str],
    first_line: int,
    *,
    comm_size: int,
    width: int | None,
    path: str,
    block_line: int,
    closed: bool,
) -> tuple[CountMatrix, np.ndarray, bool]:
    """Rows ``Rank(s) <list>: counts`` -> CountMatrix; checks every rank appears once.

    Each row is split once at its colon (a C call per distinct row); the counts of all
    rows are then parsed by one numpy call and the rank labels by one regular expression
    and one numpy call. Only a malformed row sends the parser looking row by row for the
    line to report.
    """
    parts = [r.partition(":") for r in rows]
    labels = [h[8:] for h, _, _ in parts]
    heads_ok = all(sep and h.startswith("Rank(s) ") for h, sep, _ in parts)
    if not (heads_ok and closed):
        _report_bad_row(rows, first_line, path=path, block_line=block_line, closed=closed)
    if not rows:
        raise ParseError(path, "at least one 'Rank(s)' row before END DATA", line=first_line)
    tails = [t for _, _, t in parts]
    if width is None:  # either one count per rank or one per peer: follow the first row
        first = len(tails[0].split())
        width = first if first in (1, comm_size) else comm_size
    matrix = rows_to_matrix(
        tails,
        width,
        path=path,
        first_line=first_line,
        expected=f"{width} count{'s' if width != 1 else ''} per row (Number of ranks: {comm_size})",
    )
    ranks, row_of = _rows_ranks(labels, first_line, path, limit=comm_size)
    _check_rank_coverage(
        ranks, row_of, comm_size, path=path, first_line=first_line, block_line=block_line
    )
    row_of_rank = np.empty(comm_size, dtype=np.int64)
    row_of_rank[ranks] = row_of
    trailing = all(t.endswith(" ") for t in tails)
    row_of_rank.setflags(write=False)
    return CountMatrix(matrix, row_of_rank, _owned=True), row_of_rank, trailing


def _report_bad_row(
    rows: list[str], first_line: int, *, path: str, block_line: int, closed: bool
) -> None:
    """Raise for the first row that is not ``Rank(s) <list>: ...`` (or a missing END DATA)."""
    for j, row in enumerate(rows):
        head, sep, _ = row.partition(":")
        if not (sep and head.startswith("Rank(s) ") and "\n" not in head):
            what = (
                f"'END DATA' closing the block started at line {block_line}"
                if row.strip() in {"# Raw counters", "BEGINNING DATA"} or not closed
                else "'Rank(s) <rank list>: <counts>' or 'END DATA'"
            )
            raise ParseError(path, what, line=first_line + j, found=row)
    raise ParseError(
        path,
        f"'END DATA' closing the block started at line {block_line}",
        line=first_line + max(len(rows) - 1, 0),
    )


_LIST = r"\d+(?:-\d+)?(?:, ?\d+(?:-\d+)?)*"
_LABELS = re.compile(rf"(?:{_LIST}\n)*{_LIST}")
# "-0" or "-00" would read as 0, not as a range end; 19+ digits could saturate int64
_SLOW_PATH = re.compile(r"-0+(?!\d)|\d{19}")


def _rows_ranks(
    labels: Sequence[str],
    first_line: int | Sequence[int],
    path: str,
    *,
    limit: int = MAX_RANKS,
) -> tuple[np.ndarray, np.ndarray]:
    """Ranks of every row label, expanded in one step, and the row each rank is on.

    The labels of a block are checked with one regular expression and their numbers read
    by one C-level parse (range ends marked negative); anything unusual (a range ending at 0,
    a reversed range, a syntax error, a 19-digit rank) takes the row-by-row path, which
    names the line. More than ``limit`` ranks in all is refused before they are expanded.
    """
    joined = "\n".join(labels)
    line0 = first_line if isinstance(first_line, int) else (first_line[0] if labels else None)
    if _LABELS.fullmatch(joined) and _SLOW_PATH.search(joined) is None:
        values = np.fromstring(
            joined.replace("-", " -").replace(",", " ").replace("\n", " "), dtype=np.int64, sep=" "
        )
        is_end = values < 0
        start_at = np.flatnonzero(~is_end)
        nxt = np.minimum(start_at + 1, values.size - 1)
        ranged = is_end[nxt] & (start_at + 1 < values.size)
        lo = values[start_at]
        hi = np.where(ranged, -values[nxt], lo) + 1
        if bool((hi > lo).all()):
            # items per row = commas per row + 1, counted on the bytes of all labels at once
            raw = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
            row_of_byte = np.cumsum(raw == ord("\n"))
            spans_per_row = np.bincount(row_of_byte[raw == ord(",")], minlength=len(labels)) + 1
            span_row = np.repeat(np.arange(len(labels), dtype=np.int64), spans_per_row)
            ranks = expand_spans(lo, hi, limit=limit, path=path, line=line0)
            return ranks, np.repeat(span_row, hi - lo)
    starts: list[int] = []
    stops: list[int] = []
    spans_per_row = np.empty(len(labels), dtype=np.int64)
    for j, label in enumerate(labels):
        line = first_line + j if isinstance(first_line, int) else first_line[j]
        a, b = ranklist_spans(label, path=path, line=line)
        starts += a
        stops += b
        spans_per_row[j] = len(a)
    lo = np.asarray(starts, dtype=np.int64)
    hi = np.asarray(stops, dtype=np.int64)
    span_row = np.repeat(np.arange(len(labels), dtype=np.int64), spans_per_row)
    ranks = expand_spans(lo, hi, limit=limit, path=path, line=line0)
    return ranks, np.repeat(span_row, hi - lo)


def _check_rank_coverage(
    ranks: np.ndarray,
    row_of: np.ndarray,
    comm_size: int,
    *,
    path: str,
    first_line: int,
    block_line: int,
) -> None:
    """Every rank 0..comm_size-1 in exactly one row."""
    if ranks.size and int(ranks.max()) >= comm_size:
        j = int(np.flatnonzero(ranks >= comm_size)[0])
        raise ParseError(
            path,
            f"ranks 0-{comm_size - 1} (Number of ranks: {comm_size})",
            line=first_line + int(row_of[j]),
            found=f"rank {int(ranks[j])}",
        )
    seen = np.bincount(ranks, minlength=comm_size)
    if bool((seen > 1).any()):
        dup = int(np.flatnonzero(seen > 1)[0])
        hits = np.flatnonzero(ranks == dup)
        raise ParseError(
            path,
            f"rank {dup} in one row only",
            line=first_line + int(row_of[hits[1]]),
            found=f"rank {dup} again (first at line {first_line + int(row_of[hits[0]])})",
        )
    if bool((seen == 0).any()):
        missing = np.flatnonzero(seen == 0)
        raise ParseError(
            path,
            f"rows covering all {comm_size} ranks (Number of ranks: {comm_size}) "
            f"in the block started at line {block_line}",
            line=first_line + int(row_of.max(initial=-1)) + 1,
            found=f"{ranks.size} ranks; missing {format_ranklist(missing)}",
        )


def _check_calls_unique(blocks: Sequence[CompactBlock], path: str) -> None:
    calls = np.concatenate([b.calls for b in blocks])
    srt = np.sort(calls)
    dup = srt[1:][srt[1:] == srt[:-1]]
    if dup.size:
        c = int(dup[0])
        where = [b.line for b in blocks if bool((b.calls == c).any())]
        raise ParseError(
            path,
            f"call {c} in one block only",
            line=where[-1],
            found=f"also in block at line {where[0]}",
        )


def _check_missing_calls(
    blocks: Sequence[CompactBlock], path: str, last_line: int, strict: bool
) -> None:
    """A file holding fewer calls than its ``calls <first>-<last>`` header lists was cut
    short after a complete block (it reads cleanly otherwise): a ParseError naming the
    file's last line when ``strict``, else an IncompleteInputWarning.

    The header counts the lead rank's calls (``0-<n-1>``); the ids in the ``Count:`` lines
    may be sparse (numbered across communicators, e.g. ``0, 2`` under ``calls 0-1``), so
    the number of calls is compared, not the ids.
    """
    ranges = [b.call_range for b in blocks if b.call_range is not None]
    if not ranges:
        return
    lo, hi = max(ranges, key=lambda r: r[1] - r[0])
    declared = hi - lo + 1
    calls = np.concatenate([x.calls for x in blocks])
    if calls.size >= declared:
        return
    b = blocks[0]
    held = (
        f"{calls.size} ({len(blocks)} block{'s' if len(blocks) != 1 else ''}, "
        f"calls {format_ranklist(calls)}) before the end of the file"
    )
    header = f"'{b.collective} calls {lo}-{hi}'"
    if strict:
        raise ParseError(
            path,
            f"the {declared} calls the header {header} lists (file cut short?)",
            line=last_line,
            found=held,
        )
    warnings.warn(
        f"{path}: the header {header} lists {declared} calls but the file holds {held} "
        f"at line {last_line}; it may have been cut short",
        IncompleteInputWarning,
        stacklevel=4,
    )


def parse_rows(
    text: str,
    comm_size: int | None = None,
    *,
    path: str = "<string>",
    strict: bool = True,
) -> CountMatrix:
    """Parse only the ``Rank(s) <list>: counts`` lines of a block into a CountMatrix.

    ``comm_size`` defaults to the number of ranks the rows cover. With ``strict=False``
    rows may differ in width (shorter rows are padded with zeros), as upstream's analysis
    tolerates; the strict default raises a ParseError naming the row.
    """
    rows = [r for r in text.split("\n") if r.strip()]
    parts = [r.partition(":") for r in rows]
    lines = [j + 1 for j, r in enumerate(text.split("\n")) if r.strip()]
    for j, (head, sep, _) in enumerate(parts):
        if not (sep and head.startswith("Rank(s) ")):
            raise ParseError(path, "'Rank(s) <rank list>: <counts>'", line=lines[j], found=rows[j])
    ranks, row_of = _rows_ranks(
        [h[8:] for h, _, _ in parts],
        lines,
        path,
        limit=MAX_RANKS if comm_size is None else comm_size,
    )
    n = int(ranks.size) if comm_size is None else comm_size
    tails = [t for _, _, t in parts]
    if strict:
        width = 1 if len(tails[0].split()) == 1 else n
        matrix = rows_to_matrix(
            tails, width, path=path, first_line=lines, expected=f"{width} counts per row"
        )
    else:
        parsed = []
        for j, t in enumerate(tails):
            values = parse_count_text(t)
            if values is None:
                rows_to_matrix([t], None, path=path, first_line=[lines[j]], expected="counts")
            parsed.append(values)
        width = max(v.size for v in parsed)
        matrix = np.zeros((len(parsed), width), dtype=np.int64)
        for j, v in enumerate(parsed):
            matrix[j, : v.size] = v
    _check_rank_coverage(ranks, row_of, n, path=path, first_line=lines[0], block_line=lines[0])
    row_of_rank = np.empty(n, dtype=np.int64)
    row_of_rank[ranks] = row_of
    return CountMatrix(matrix, row_of_rank)


def format_compact(blocks: Iterable[CompactBlock], style: str | CompactStyle = "tools") -> str:
    """The text of a compact file holding ``blocks`` (in the order given).

    ``style="tools"`` matches the Go conversion tool (the non-compact -> compact case of
    the conformance data), ``"profiler"`` the C profiler's own files; a file's own
    ``CompactFile.style`` reproduces it. The header range ``calls a-b`` is each block's
    ``call_range``, or when unset ``<first id>-<first id + number of calls - 1>`` (the
    profiler counts calls there: ``calls 0-1`` over ids ``0, 2``). Rows follow the block's
    ``layout`` (as read) or else one row per distinct count row, by first rank.
    """
    if isinstance(style, str):
        if style not in STYLES:
            raise ArgumentError(f"style must be one of {', '.join(STYLES)}, not {style!r}")
        style = STYLES[style]
    gap, sep, tail = style
    blocks = list(blocks)
    all_calls = np.concatenate([b.calls for b in blocks]) if blocks else np.zeros(0, np.int64)
    # the profiler's header counts the calls (0-<n-1>, ids may be sparse): from the first id
    first = int(all_calls.min()) if all_calls.size else 0
    span = (first, first + max(all_calls.size - 1, 0))
    out: list[str] = []
    for b in blocks:
        lo, hi = b.call_range if b.call_range is not None else span
        out.append(
            "# Raw counters\n\n"
            f"Number of ranks: {b.comm_size}\n"
            f"Datatype size: {b.datatype_size}\n"
            f"{b.collective} calls{gap}{lo}-{hi}\n"
            f"Count: {b.calls.size} calls - {format_ranklist(b.calls, sep=sep)}\n"
            "\n\nBEGINNING DATA\n"
        )
        for ranks, row in _written_rows(b):
            counts = " ".join(map(str, row.tolist()))
            out.append(f"Rank(s) {format_ranklist(ranks, sep=sep)}: {counts}{tail}\n")
        out.append("END DATA\n")
    return "".join(out)


def _written_rows(block: CompactBlock) -> list[tuple[np.ndarray, np.ndarray]]:
    if block.layout is None:
        return [(g.ranks, g.row) for g in block.counts.groups]
    order = np.argsort(block.layout, kind="stable")
    bounds = np.searchsorted(block.layout[order], np.arange(int(block.layout.max()) + 2))
    rows = block.counts.rows
    out = []
    for j in range(bounds.size - 1):
        ranks = order[bounds[j] : bounds[j + 1]]
        if ranks.size:
            out.append((ranks, rows[block.counts.row_of_rank[ranks[0]]]))
    return out


def write_compact(
    blocks: Iterable[CompactBlock],
    path: str | os.PathLike[str],
    style: str | CompactStyle = "tools",
) -> Path:
    """Write ``blocks`` as a compact count file (see :func:`format_compact`)."""
    p = Path(path)
    p.write_text(format_compact(blocks, style=style), encoding="utf-8")
    return p
