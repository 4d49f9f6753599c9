"""Backtrace files of the collective profiler: from which call site each call was made.

``<collective>_backtrace_rank<R>_trace<T>.md`` (FORMAT_VERSION 9) is written by world rank
``R`` for each distinct stack ``T`` from which it called the collective::

    FORMAT_VERSION: 9

    stack trace for /path/to/wrf.exe pid=29695

    # Trace

    /path/liballtoallv_backtrace.so(MPI_Alltoallv+0x7d) [0x2ae1d7065028]
    ./wrf.exe() [0x3314863]
    /lib64/libc.so.6(__libc_start_main+0xf5) [0x2ae1d9ba9555]

    # Context 0

    Communicator: 0
    Communicator rank: 0
    COMM_WORLD rank: 0
    Calls: 2, 12, 20-22

The trace lists one frame per line, innermost first, as glibc's ``backtrace_symbols``
writes them: ``module(symbol+offset) [address]``, ``module(+offset) [address]`` (no
symbol: the offset is within the module), ``module() [address]`` or ``[address]``. Each
``# Context N`` (numbered from 0) names a communicator this stack was used on, the
writer's rank in it and in COMM_WORLD, and the calls made from the stack on it, in the
profiler's rank-list notation. Call ids are the writer's, as in its count and timing files.

Every problem is a :class:`~perfweave.errors.ParseError` naming the file, the line and what
was expected.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perfweave.counts._fields import MAX_CALLS, MAX_RANKS, read_uint
from perfweave.counts.ranklist import parse_ranklist
from perfweave.errors import ParseError

__all__ = [
    "BACKTRACE_NAME",
    "Backtrace",
    "BacktraceContext",
    "StackFrame",
    "parse_backtrace",
    "read_backtrace",
]

BACKTRACE_NAME = re.compile(r"^(\w+?)_backtrace_rank(\d+)_trace(\d+)\.md$")
#: one frame of ``backtrace_symbols``: ``module(symbol+0xoff) [0xaddr]`` and its variants
_FRAME = re.compile(
    r"^(?P<module>[^\[\]()]*?)"
    r"(?:\((?P<symbol>[^()\s+]*?)(?:(?P<sign>[+-])0x(?P<offset>[0-9a-fA-F]{1,16}))?\))?"
    r" ?\[0x(?P<address>[0-9a-fA-F]{1,16})\]$"
)
_HEADER = re.compile(r"^stack trace for (?P<program>.*?)(?: pid=(?P<pid>\S*))?$")
_CONTEXT = re.compile(r"^# Context (\S*)$")
_FIELDS = {
    "Communicator": "comm",
    "Communicator rank": "comm_rank",
    "COMM_WORLD rank": "world_rank",
    "Calls": "calls",
}
_FRAME_FORM = "a stack frame 'module(symbol+0xoffset) [0xaddress]'"


@dataclass(frozen=True)
class StackFrame:
    """One line of a trace: the module (as written, ``""`` when the line names none), the
    symbol (``""`` when none), the offset after it (or within the module when there is no
    symbol; None when the line gives none), the return address, and the file's line."""

    module: str
    symbol: str
    offset: int | None
    address: int
    line: int

    @property
    def module_name(self) -> str:
        """The module's file name without its directory (``wrf.exe``, ``libc.so.6``)."""
        return self.module.rstrip("/").rsplit("/", 1)[-1]

    @property
    def name(self) -> str:
        """The symbol where the line has one (``__libc_start_main``); else the module and
        the offset within it (``allgatherv_c+0x13f4``: the same in every process of a
        position-independent program); else the module and the address
        (``wrf.exe [0x3314863]``); ``[0x...]`` alone when no module is named."""
        if self.symbol:
            return self.symbol
        module = self.module_name
        if self.offset is not None and module:
            return f"{module}{_signed_hex(self.offset)}"
        return f"{module} [0x{self.address:x}]" if module else f"[0x{self.address:x}]"


@dataclass(frozen=True)
class BacktraceContext:
    """A communicator a stack was used on, the writer's ranks and the calls made there."""

    comm: int
    comm_rank: int
    world_rank: int
    calls: np.ndarray
    line: int


@dataclass(frozen=True, eq=False)
class Backtrace:
    """One backtrace file: the stack (innermost frame first) and its contexts."""

    path: str
    collective: str
    rank: int
    trace: int
    program: str | None
    pid: int | None
    frames: tuple[StackFrame, ...]
    contexts: tuple[BacktraceContext, ...]

    @property
    def calls(self) -> np.ndarray:
        """Every call made from this stack, sorted."""
        if not self.contexts:
            return np.zeros(0, dtype=np.int64)
        return np.sort(np.concatenate([c.calls for c in self.contexts]))

    def __repr__(self) -> str:
        n = sum(c.calls.size for c in self.contexts)
        return (
            f"Backtrace({self.collective} rank {self.rank} trace {self.trace}: "
            f"{len(self.frames)} frames, {len(self.contexts)} contexts, {n} calls)"
        )


def read_backtrace(path: str | os.PathLike[str]) -> Backtrace:
    """Read ``<collective>_backtrace_rank<R>_trace<T>.md`` (see the module docstring)."""
    p = Path(path)
    m = BACKTRACE_NAME.match(p.name)
    if not m:
        raise ParseError(str(p), "a name like alltoallv_backtrace_rank0_trace0.md")
    try:
        text = p.read_text(encoding="utf-8")  # universal newlines
    except UnicodeDecodeError as exc:
        raise ParseError(str(p), "UTF-8 text", position=exc.start) from None
    return parse_backtrace(
        text, path=str(p), collective=m.group(1), rank=int(m.group(2)), trace=int(m.group(3))
    )


def parse_backtrace(
    text: str,
    *,
    path: str = "<string>",
    collective: str = "",
    rank: int = -1,
    trace: int = -1,
) -> Backtrace:
    """Parse the text of a backtrace file; ``collective``, ``rank`` and ``trace`` are what
    its name says (:func:`read_backtrace` takes them from it)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    program: str | None = None
    pid: int | None = None
    i = _skip_blank(lines, 0)
    if i < len(lines) and lines[i].startswith("FORMAT_VERSION:"):
        read_uint(
            lines[i].partition(":")[2],
            path=path,
            line=i + 1,
            expected="'FORMAT_VERSION: <integer>'",
            found=lines[i],
        )
        i = _skip_blank(lines, i + 1)
    if i < len(lines) and (h := _HEADER.match(lines[i].strip())):
        program = h.group("program")
        if h.group("pid") is not None:
            pid = read_uint(
                h.group("pid"),
                path=path,
                line=i + 1,
                expected="'stack trace for <program> pid=<integer>'",
                found=lines[i],
            )
        i = _skip_blank(lines, i + 1)
    if i >= len(lines) or lines[i].strip() != "# Trace":
        found = lines[i] if i < len(lines) else "the end of the file"
        raise ParseError(path, "'# Trace'", line=min(i, len(lines) - 1) + 1, found=found)
    frames: list[StackFrame] = []
    trace_line = i + 1
    i += 1
    while i < len(lines) and not lines[i].startswith("# Context"):
        line = lines[i].strip()
        if line:
            frames.append(_frame(line, path, i + 1))
        i += 1
    if not frames:
        raise ParseError(path, "at least one stack frame after '# Trace'", line=trace_line)
    contexts: list[BacktraceContext] = []
    while i < len(lines):
        line = lines[i].strip()
        if not line:
            i += 1
            continue
        c = _CONTEXT.match(line)
        if not c or c.group(1) != str(len(contexts)):
            raise ParseError(path, f"'# Context {len(contexts)}'", line=i + 1, found=lines[i])
        context, i = _context(lines, i, path)
        contexts.append(context)
    if not contexts:
        raise ParseError(path, "a '# Context 0' section after the trace", line=len(lines))
    return Backtrace(
        path=path,
        collective=collective,
        rank=rank,
        trace=trace,
        program=program,
        pid=pid,
        frames=tuple(frames),
        contexts=tuple(contexts),
    )


def _skip_blank(lines: list[str], i: int) -> int:
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def _frame(line: str, path: str, number: int) -> StackFrame:
    m = _FRAME.match(line)
    if not m:
        raise ParseError(path, _FRAME_FORM, line=number, found=line)
    offset = None
    if m.group("offset") is not None:
        offset = int(m.group("offset"), 16) * (-1 if m.group("sign") == "-" else 1)
    return StackFrame(
        module=m.group("module").strip(),
        symbol=m.group("symbol") or "",
        offset=offset,
        address=int(m.group("address"), 16),
        line=number,
    )


def _context(lines: list[str], start: int, path: str) -> tuple[BacktraceContext, int]:
    """The context whose ``# Context N`` line is ``lines[start]``; the index after it."""
    values: dict[str, tuple[str, int]] = {}
    i = start + 1
    while i < len(lines) and not lines[i].startswith("# Context"):
        line = lines[i].strip()
        i += 1
        if not line:
            continue
        key, sep, value = line.partition(":")
        if not sep or key not in _FIELDS:
            raise ParseError(
                path,
                "'Communicator:', 'Communicator rank:', 'COMM_WORLD rank:' or 'Calls:'",
                line=i,
                found=lines[i - 1],
            )
        if key in values:
            raise ParseError(path, f"one '{key}:' line per context", line=i, found=lines[i - 1])
        values[key] = (value.strip(), i)
    for key in _FIELDS:
        if key not in values:
            raise ParseError(
                path, f"a '{key}:' line in '# Context'", line=start + 1, found=lines[start]
            )
    ints = {
        _FIELDS[key]: read_uint(
            values[key][0],
            path=path,
            line=values[key][1],
            expected=f"'{key}: <integer>'",
            maximum=limit,
        )
        for key, limit in (
            ("Communicator", (1 << 31) - 1),
            ("Communicator rank", MAX_RANKS - 1),
            ("COMM_WORLD rank", MAX_RANKS - 1),
        )
    }
    text, line = values["Calls"]
    calls = parse_ranklist(text, path=path, line=line, limit=MAX_CALLS)
    calls.setflags(write=False)
    return BacktraceContext(calls=calls, line=start + 1, **ints), i


def _signed_hex(value: int) -> str:
    return f"-0x{-value:x}" if value < 0 else f"+0x{value:x}"
