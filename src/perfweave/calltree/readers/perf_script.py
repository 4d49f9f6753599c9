"""Linux ``perf script`` text: sampled call stacks (``perf record -g``) as a calltree.

``perf script`` prints one block per sample: a header line
``COMMAND [PID/]TID [[CPU]] [TIME:] [PERIOD] EVENT:`` (the command may hold spaces), then
the call chain, one frame per line, innermost first: ``ADDRESS SYMBOL[+0xOFFSET] (MODULE)``.
Blank lines separate samples; ``#`` lines (``perf script --header``) are comments, and
their ``# key : value`` pairs become the metadata. A sample recorded without a call chain
(no ``-g``) carries its one frame on the header line after the event.

* **Frames** ``{name, type: "function", module}``: the symbol without its ``+0x..``
  offset, so the samples of one function at different instructions are one frame; the
  same symbol in two modules is two frames. A symbol perf could not resolve
  (``[unknown]``) is named by its address (``0x6ce258d4c544155``, as ``perf report``
  shows it) and keeps its module: unresolved frames at different addresses stay apart.
* **Rows** per ``rank`` (the pid; the tid where perf printed no pid, as its default
  output does) and ``thread`` (the tid); the ``command`` column names the thread's
  command (several joined with ``, `` where a thread changed its name, e.g. by exec).
* **Metrics.** Each sample counts exclusively at its leaf and inclusively on every node of
  its stack: ``samples`` and ``samples (inc)``, and ``period`` and ``period (inc)`` where
  the headers carry a period (nanoseconds for ``cpu-clock`` and ``task-clock``, else
  counts of the event). A node is a call path, so a function that recurses appears once
  per level and a sample counts once on each node: never twice inclusively.
* **One event.** ``event=`` names the event read; by default the first in the file.
  Samples of other events are left out with a SkippedInputWarning naming them.

Bad input (a line that is neither a header, a frame, a comment nor blank; a call chain
without a header; numbers out of range) is a ParseError naming the file and line. A file
cut inside a call-chain line loses that sample, one cut inside a sample header that line
(an IncompleteInputWarning names it).
"""

from __future__ import annotations

import re
import warnings
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers._common import MAX_RANK, SNIFF_BYTES, file_ends, read_input
from perfweave.calltree.readers._stacks import call_path_rows, stack_entries
from perfweave.errors import IncompleteInputWarning, ParseError, SkippedInputWarning

#: whitespace inside a line (lines are split at "\n" only)
_WS = r"[ \t\r\f\v]"
_HEADER_RE = (
    rf"{_WS}*(?P<comm>\S.*?){_WS}+(?:(?P<pid>[0-9]+)/)?(?P<tid>[0-9]+)"
    rf"(?:{_WS}+\[(?P<cpu>[0-9]+)\])?(?:{_WS}+(?P<time>[0-9]+\.[0-9]+):)?"
    rf"(?:{_WS}+(?P<period>[0-9]+))?{_WS}+(?P<event>[A-Za-z_]\S*?):"
    rf"(?:{_WS}+(?P<rest>.*?))?{_WS}*"
)


def _frame_re(k: str) -> str:
    """``ADDRESS [SYMBOL] [(MODULE)]``: the module is the last parenthesised group (one
    level of parentheses inside, ``(/lib/x.so (deleted))``); group names end in ``k``."""
    module = r"[^()\n]*(?:\([^()\n]*\)[^()\n]*)*"
    return (
        rf"{_WS}*(?P<addr{k}>[0-9a-fA-F]+)(?:{_WS}+(?P<sym{k}>.*){_WS}+\((?P<mod{k}>{module})\)"
        rf"|{_WS}+\((?P<only{k}>{module})\)|{_WS}+(?P<bare{k}>\S(?:.*\S)?))?{_WS}*"
    )


_HEADER = re.compile(_HEADER_RE)
_FRAME = re.compile(_frame_re(""))
#: every line of a text, one match each: a comment, a call-chain line (tried first on a line
#: that starts with a tab, as perf writes them), a sample header, or anything else
_LINE = re.compile(
    rf"^(?:(?P<comment>#.*)|(?=\t){_frame_re('1')}|{_HEADER_RE}|{_frame_re('2')}|(?P<other>.*))$",
    re.M,
)
_OFFSET = re.compile(r"\+0x[0-9a-fA-F]+$")
_META = re.compile(r"#\s*(?P<key>[^:=]+?)\s*:\s*(?P<value>.*?)\s*")
#: events whose period is a time in nanoseconds
_CLOCKS = ("cpu-clock", "task-clock")
_BLANK, _COMMENT, _HEAD, _FRAMELINE = 0, 1, 2, 3
_INT64 = 2**63 - 1
_HEADER_TEXT = "COMMAND [PID/]TID [[CPU]] [TIME:] [PERIOD] EVENT:"


def sniff(path: Path) -> bool:
    """The first line that is not a comment is a sample header, followed by a call-chain
    line (or by another header: samples without call chains); a file whose first 4 KiB are
    ``perf script --header`` comments has such a sample in its last 4 KiB."""
    head, tail = file_ends(path)
    pieces = _text(head).split("\n")
    if len(head) == SNIFF_BYTES:  # the window may end inside a line
        pieces.pop()
    lines = [ln for ln in pieces if ln.strip()] or [""]
    body = [ln for ln in lines if not ln.startswith("#")]
    if body:
        return _header(body[0]) is not None and (
            len(body) == 1 or _frame(body[1]) is not None or _header(body[1]) is not None
        )
    if not lines[0].startswith("# ====") or tail is head:
        return False
    rest = [ln for ln in _text(tail).split("\n")[1:] if ln.strip()]
    return any(_header(a) is not None and _frame(b) is not None for a, b in zip(rest, rest[1:]))


def read(path: str | PathLike[str], event: str | None = None, **_: Any):
    """Read ``perf script`` output; ``event``: the event whose samples are read (default:
    the first event in the file)."""
    p = Path(path)
    raw = read_input(p, "perf script")
    text = _decode(raw, p)
    lines = text.split("\n")
    _blank_a_cut_line(lines, p)
    codes, distinct = pd.factorize(np.array(lines, dtype=object))
    parsed = _Distinct(distinct, p, codes)
    kind = parsed.kind[codes]
    _leave_out_a_cut_sample(lines, kind, parsed, codes[-1], p)
    samples = _Samples(parsed, codes, kind, p)
    keep = samples.of_event(event)
    entries = samples.stacks(keep)
    return _graphframe(parsed, samples, keep, entries, _metadata(lines, kind), p)


# ---------------------------------------------------------------------- lines
def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace").replace("\r\n", "\n")


def _decode(raw: bytes, path: Path) -> str:
    """The file's text; bytes that are not UTF-8 become U+FFFD (a SkippedInputWarning
    names the line of the first)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8", errors="replace")
        line = raw.count(b"\n", 0, exc.start) + 1
        warnings.warn(
            SkippedInputWarning(
                f"{path}: bytes that are not UTF-8 (the first on line {line}) were replaced "
                "with U+FFFD in names"
            ),
            stacklevel=4,
        )
    return text.replace("\r\n", "\n")


def _blank_a_cut_line(lines: list[str], path: Path) -> None:
    """Blank the last line (in ``lines``) where the file ends inside one that is no line
    of perf script: a sample header cut short (``app 123/124 [001] 1000.00``) by ``head
    -c`` or a copy taken while perf wrote. The samples above it are whole; an
    IncompleteInputWarning names the line (a ParseError named it as bad input)."""
    last = lines[-1]
    m = _LINE.fullmatch(last)
    if m is None or m["other"] is None or not last.strip():
        return
    lines[-1] = ""
    warnings.warn(
        IncompleteInputWarning(
            f"{path}: the file ends inside line {len(lines)} ({last!r}: no newline, and no "
            "whole sample header), so it was cut short: left out that line"
        ),
        stacklevel=4,
    )


def _leave_out_a_cut_sample(
    lines: list[str], kind: np.ndarray, parsed: _Distinct, last: int, path: Path
) -> None:
    """Leave out (in ``kind``) the last sample where the file ends inside one of its lines:
    no newline after a call-chain line without its ``(MODULE)`` while the other call-chain
    lines have one (perf ends every line, and writes ``([unknown])`` for a module it could
    not find). The output was cut there (``head -c``, a copy taken while perf wrote it), so
    the frame on that line is a piece of a name, and the sample's outer frames are missing:
    read, it makes a root frame that never ran. An IncompleteInputWarning names the lines."""
    if lines[-1] == "" or kind[-1] != _FRAMELINE:
        return
    modules = [module for _, module in parsed.frames]
    if modules[parsed.frame[last]] is not None or all(m is None for m in modules):
        return
    heads = np.flatnonzero(kind == _HEAD)
    if not len(heads):
        return  # no sample: the ParseError that follows says so
    start = int(heads[-1])
    kind[start:] = _BLANK
    warnings.warn(
        IncompleteInputWarning(
            f"{path}: the file ends inside line {len(lines)} ({lines[-1]!r}: a call-chain "
            f"line without its (MODULE) and no newline), so it was cut short: left out the "
            f"sample of lines {start + 1}-{len(lines)}"
        ),
        stacklevel=4,
    )


def _header(line: str) -> re.Match | None:
    return _HEADER.fullmatch(line)


def _frame(line: str) -> re.Match | None:
    return _FRAME.fullmatch(line)


class _Distinct:
    """Each distinct line of the file parsed once (one regular-expression pass over them
    all): its kind, and for a frame line its frame code, for a header its fields."""

    def __init__(self, distinct: np.ndarray, path: Path, codes: np.ndarray) -> None:
        lines = distinct.tolist()
        found = _LINE.findall("\n".join(lines))
        if len(found) != len(lines):  # a line holding "\n" cannot come from split("\n")
            raise AssertionError("one match per line")
        table = np.array(found, dtype=object).reshape(len(found), len(_LINE.groupindex))
        col = {g: table[:, i] for i, g in enumerate(_LINE.groupindex)}
        n = len(lines)
        frame1, frame2 = col["addr1"].astype(bool), col["addr2"].astype(bool)
        head = col["tid"].astype(bool)
        self.kind = np.full(n, -1, np.int8)
        self.kind[col["comment"].astype(bool)] = _COMMENT
        self.kind[frame1 | frame2] = _FRAMELINE
        self.kind[head] = _HEAD
        unknown = np.flatnonzero(self.kind < 0)
        blank = np.array([not col["other"][i].strip() for i in unknown.tolist()], dtype=bool)
        self.kind[unknown[blank]] = _BLANK
        if not blank.all():
            bad = int(unknown[~blank][0])
            raise ParseError(
                path,
                f"a sample header ({_HEADER_TEXT}), a call-chain line "
                "(ADDRESS SYMBOL (MODULE)), a # comment or a blank line",
                line=int(np.flatnonzero(codes == bad)[0]) + 1,
                found=lines[bad],
            )
        self.frames: dict[tuple[str, str | None], int] = {}
        self.frame = np.full(n, -1, np.int64)  # frame lines, and headers carrying a frame
        for k, which in (("1", frame1), ("2", frame2)):
            at = np.flatnonzero(which)
            parts = [col[f"{g}{k}"][at].tolist() for g in ("addr", "sym", "mod", "only", "bare")]
            self.frame[at] = list(map(self._code, *parts))
        at = np.flatnonzero(head)
        self.header = np.full(n, -1, np.int64)  # index into the header fields
        self.header[at] = np.arange(len(at))
        #: the headers' fields ("" where a header has none), in header index order
        self.fields = {g: col[g][at] for g in ("comm", "pid", "tid", "period", "event", "time")}
        for i in at[col["rest"][at].astype(bool)].tolist():  # samples without call chains:
            m = _FRAME.fullmatch(col["rest"][i])  # their frame follows the event
            if m is not None:
                self.frame[i] = self._code(m["addr"], m["sym"], m["mod"], m["only"], m["bare"])

    def _code(self, addr: str, sym: str, mod: str, only: str, bare: str) -> int:
        """The code of the frame (symbol without offset, or the address; module)."""
        symbol = sym or bare or ""
        if "+0x" in symbol:
            symbol = _OFFSET.sub("", symbol)
        if not symbol or symbol == "[unknown]":
            symbol = "0x" + addr
        key = (symbol, mod or only or None)
        code = self.frames.get(key)
        if code is None:
            code = self.frames[key] = len(self.frames)
        return code


class _Samples:
    """The samples in file order: header line, fields and the call-chain lines below."""

    def __init__(self, parsed: _Distinct, codes: np.ndarray, kind: np.ndarray, path: Path):
        self.path = path
        self.line = np.flatnonzero(kind == _HEAD)  # 0-based line of each sample's header
        if not len(self.line):
            raise ParseError(path, f"at least one sample header ({_HEADER_TEXT})", found="none")
        at = parsed.header[codes[self.line]]
        field = {g: values[at] for g, values in parsed.fields.items()}
        self.comm, self.event = field["comm"], field["event"]
        self.tid = self._ints(field["tid"], "a thread id (tid)", MAX_RANK)
        pid = field["pid"]
        self.rank = np.where(pid.astype(bool), self._ints(pid, "a process id (pid)", MAX_RANK),
                             self.tid)  # fmt: skip
        period = field["period"]
        self.has_period = period.astype(bool)
        self.period = self._ints(period, "a period", _INT64)
        time = field["time"]
        self.time = np.where(time.astype(bool), time, "nan").astype(float)
        self.carried = parsed.frame[codes[self.line]]  # a frame on the header line, or -1
        # call-chain lines: each belongs to the header above it, with no blank line between
        chain = np.flatnonzero(kind == _FRAMELINE)
        bounds = (kind == _BLANK) | (kind == _HEAD)
        owner = np.maximum.accumulate(np.where(bounds, np.arange(len(kind)), -1))[chain]
        orphan = (owner < 0) | (kind[np.maximum(owner, 0)] != _HEAD)
        if orphan.any():
            raise ParseError(
                path,
                f"a sample header ({_HEADER_TEXT}) above this call-chain line",
                line=int(chain[orphan][0]) + 1,
                found=None,
            )
        self.chain_sample = np.searchsorted(self.line, owner)
        self.chain_line = chain
        self.chain_frame = parsed.frame[codes[chain]]

    def _ints(self, texts: np.ndarray, what: str, top: int) -> np.ndarray:
        """Integers of the headers (digits, so never negative; 0 where a header has
        none), each at most ``top`` (no more than 19 digits are converted)."""
        k = next((i for i, t in enumerate(texts.tolist()) if len(t) > 19), None)
        if k is None:
            values = [int(t) if t else 0 for t in texts.tolist()]
            k = next((i for i, v in enumerate(values) if v > top), None)
            if k is None:
                return np.array(values, dtype=np.int64)
        raise ParseError(
            self.path, f"{what} of at most {top}", line=int(self.line[k]) + 1, found=texts[k]
        )

    def of_event(self, event: str | None) -> np.ndarray:
        """Which samples are read: those of ``event`` (default the first event); the
        others are named in a SkippedInputWarning."""
        names, counts = np.unique(self.event, return_counts=True)
        chosen = self.event[0] if event is None else event
        if chosen not in set(names.tolist()):
            raise ParseError(
                self.path,
                f"samples of the event {chosen!r}",
                found=f"events {', '.join(map(repr, names.tolist()))}",
            )
        keep = self.event == chosen
        others = [(n, c) for n, c in zip(names.tolist(), counts.tolist()) if n != chosen]
        if others:
            said = ", ".join(f"{c} of {n!r}" for n, c in others)
            warnings.warn(
                SkippedInputWarning(
                    f"{self.path}: read the {int(keep.sum())} samples of event {chosen!r}; "
                    f"left out {said} (read one with event=...)"
                ),
                stacklevel=4,
            )
        self.chosen = chosen
        return keep

    def stacks(self, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Root-first stacks of the kept samples: (sample, frame code) per entry, in stack
        order, and each kept sample's number of entries. Samples without any frame are
        left out (a SkippedInputWarning counts them)."""
        n = len(self.line)
        has_chain = np.zeros(n, bool)
        has_chain[self.chain_sample] = True
        carried = np.flatnonzero(~has_chain & (self.carried >= 0))
        sample = np.concatenate([self.chain_sample, carried])
        frame = np.concatenate([self.chain_frame, self.carried[carried]])
        order_key = np.concatenate([-self.chain_line, np.zeros(len(carried), np.int64)])
        kept = keep[sample]
        sample, frame, order_key = sample[kept], frame[kept], order_key[kept]
        order = np.lexsort((order_key, sample))  # by sample, then outermost frame first
        sample, frame = sample[order], frame[order]
        lengths = np.bincount(sample, minlength=n)
        empty = keep & (lengths == 0)
        if empty.any():
            first = int(self.line[np.flatnonzero(empty)[0]]) + 1
            warnings.warn(
                SkippedInputWarning(
                    f"{self.path}: left out {int(empty.sum())} samples without a call chain "
                    f"(the first on line {first})"
                ),
                stacklevel=4,
            )
        return sample, frame, lengths


# ---------------------------------------------------------------------- frame
def _graphframe(parsed: _Distinct, samples: _Samples, keep, entries, metadata: dict, path):
    sample, frame, lengths = entries
    used = keep & (lengths > 0)
    if not used.any():
        raise ParseError(path, "at least one sample with a call chain", found="none")
    periods = samples.has_period[used]
    with_period = bool(periods.all())
    if periods.any() and not with_period:
        k = int(samples.line[np.flatnonzero(used & ~samples.has_period)[0]]) + 1
        raise ParseError(path, "a period on every sample header (others have one)", line=k)
    if with_period and float(samples.period[used].astype(float).sum()) >= 2**63:
        raise ParseError(path, "periods whose sum fits 64 bits", found="a larger sum")
    span = int(samples.tid.max()) + 1  # pids and tids < 2**31: the key fits int64
    cell, cells = pd.factorize(samples.rank * span + samples.tid)
    parent, depth, stack, leaf = stack_entries(lengths[lengths > 0])
    # stack s of the entries is the s-th used sample
    of = np.flatnonzero(lengths > 0)[stack]
    ones = np.ones(len(of), np.int64)
    values = {"samples": leaf.astype(np.int64), "samples (inc)": ones}
    if with_period:
        period = samples.period[of]
        values["period"] = np.where(leaf, period, 0)
        values["period (inc)"] = period
    node_parent, node_frame, table = call_path_rows(parent, depth, frame, cell[of], values)
    names, modules = zip(*parsed.frames) if parsed.frames else ((), ())
    frames = pd.DataFrame(
        {
            "name": np.array(names, dtype=object)[node_frame],
            "type": "function",
            "module": np.array(modules, dtype=object)[node_frame],
        }
    )
    if frames["module"].isna().all():
        frames = frames.drop(columns="module")
    ranks, threads = cells // span, cells % span
    table["rank"] = ranks[table["cell"].to_numpy()]
    table["thread"] = threads[table["cell"].to_numpy()]
    command = _commands(cell[used], samples.comm[used], len(cells))
    table["command"] = command[table["cell"].to_numpy()]
    table = table.drop(columns="cell")
    exc = ["samples"] + (["period"] if with_period else [])
    unit = "ns" if samples.chosen.split(":")[0] in _CLOCKS else ""
    metadata["perf_event"] = samples.chosen
    metadata["perf_samples"] = int(used.sum())
    times = samples.time[used]
    if not np.isnan(times).all():  # when the run was sampled: also tells two runs apart
        metadata["perf_time_first"] = float(np.nanmin(times))
        metadata["perf_time_last"] = float(np.nanmax(times))
    return build_graphframe(
        frames,
        table,
        parent=node_parent,
        exc_metrics=exc,
        inc_metrics=[f"{m} (inc)" for m in exc],
        default_metric="samples (inc)",  # a stack sample counts for every frame on it
        metadata=metadata,
        path=path,
        units={"period": unit, "period (inc)": unit} if with_period and unit else None,
    )


def _commands(cell: np.ndarray, comm: np.ndarray, n_cells: int) -> np.ndarray:
    """Each cell's command names, distinct, in order of appearance, joined by ``, ``."""
    pairs = pd.DataFrame({"cell": cell, "comm": comm}).drop_duplicates()
    joined = pairs.groupby("cell", sort=True)["comm"].agg(", ".join)
    out = np.empty(n_cells, dtype=object)
    out[joined.index.to_numpy()] = joined.to_numpy()
    return out


def _metadata(lines: list[str], kind: np.ndarray) -> dict:
    """``# key : value`` pairs of the comment block before the first sample (``perf
    script --header``); a key given several times (one ``event`` per event) keeps all
    values joined by ``; ``."""
    first = np.flatnonzero(kind == _HEAD)
    top = int(first[0]) if len(first) else len(lines)
    out: dict[str, str] = {}
    for k in np.flatnonzero(kind[:top] == _COMMENT).tolist():
        m = _META.fullmatch(lines[k])
        if m is not None:
            key = m["key"]
            out[key] = f"{out[key]}; {m['value']}" if key in out else m["value"]
    return out
