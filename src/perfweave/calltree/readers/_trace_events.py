"""Chrome trace events into calls: the rules of the trace-event reader, in one place.

An event is a JSON object; its phase ``ph`` says what it is. ``X`` is a complete call
(``ts`` and ``dur``), ``B``/``E`` begin and end one, ``C`` carries counters; events of any
other phase (or none) are not calls and are not checked. Per event of a call:

* ``name``: a string (an ``E`` may leave it out); ``pid``, ``tid``: an integer (int64) or
  a string (PyTorch names CUDA streams). Anything else is a ParseError naming the event.
* ``ts``, ``dur`` (microseconds): a JSON number, or a string holding one as a JSON number
  is written (``"12"``, ``"1.5e3"``: Perfetto reads these, to keep precision a double would
  lose); never ``true``/``false`` or another string. Finite; ``dur`` at least 0.

``B``/``E`` pairs, per (pid, tid) in file order, with a stack (speedscope's rules, see
``docs/calltree-readers.md``): an ``E`` closes the open ``B`` on top; an ``E`` with nothing
open, or whose name differs from the top's, is ignored (SkippedInputWarning naming it); an
``E`` without a name closes the top. ``B`` events still open at the end of the trace (the
run stopped inside them) are closed at the last time a call of their thread began or ended
(IncompleteInputWarning naming them), so they may last 0 s; they hold the calls that end
at that time, as they did while open.

Well-formed threads are paired all at once by nesting depth; a thread whose depths show an
ignored ``E`` is replayed with the stack, once.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import infer_dtype

from perfweave.calltree.readers._common import is_int64
from perfweave.errors import IncompleteInputWarning, ParseError, SkippedInputWarning

#: a string holding a number, written as JSON writes numbers
_NUMBER_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
#: events named in a warning (the count says how many more)
_SHOWN = 5
#: half of a UTF-16 pair, alone: what a "\\ud800" escape decodes to; no UTF-8 text holds it
_SURROGATE = re.compile("[\ud800-\udfff]")


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


def mend_surrogates(values: np.ndarray) -> tuple[np.ndarray, bool]:
    """``values`` with U+FFFD for each lone surrogate in its strings, and whether any had one
    (checked once per distinct value)."""
    if values.dtype != object or not len(values):
        return values, False
    code, distinct = pd.factorize(values)
    if not any(type(v) is str and _SURROGATE.search(v) for v in distinct):
        return values, False
    out = np.empty(len(distinct), dtype=object)
    out[:] = [_SURROGATE.sub("\ufffd", v) if type(v) is str else v for v in distinct]
    return out[code], True


def calls(events: list[dict], file: Path) -> pd.DataFrame:
    """One row per call, in the order the calls returned (X events and E events are written
    then; calls never ended last): ``name``, ``ts_us``, ``dur_us``, ``end_us``, ``pid``,
    ``tid``, ``ph`` ("X"), the nesting ties ``start_tie``/``end_tie`` for
    :func:`perfweave.calltree._intervals.nest` and ``event``, the index of the event that
    named the call. ``events`` are dicts."""
    n = len(events)
    ph = phases(events)
    at = np.flatnonzero((ph == "X") | (ph == "B") | (ph == "E"))
    kind = ph[at]
    name = names(column(events, "name"), at, kind == "E", events, file)
    pid = ids(column(events, "pid"), at, events, "pid", file)
    tid = ids(column(events, "tid"), at, events, "tid", file)
    ts = times(column(events, "ts"), at, events, "ts", file)
    x = np.flatnonzero(kind == "X")
    end_x = ts[x] + _durations(column(events, "dur"), at[x], ts[x], events, file)
    thread = codes(pid, tid)
    be = np.flatnonzero(kind != "X")
    pairs = pair(kind[be] == "B", thread[be], name[be], at[be], file)
    b = be[pairs.begin]
    e = np.where(pairs.end >= 0, be[np.maximum(pairs.end, 0)], -1)
    # a call never ended closes at the last time a call of its thread began or ended
    last = np.full(int(thread.max(initial=-1)) + 1, -np.inf)
    for where, when in ((x, end_x), (x, ts[x]), (b, ts[b]), (e[e >= 0], ts[e[e >= 0]])):
        np.maximum.at(last, thread[where], when)
    end_b = np.where(e >= 0, ts[np.maximum(e, 0)], last[thread[b]])
    if (end_b < ts[b]).any():
        j = int(np.flatnonzero(end_b < ts[b])[0])
        k = int(at[e[j]])
        raise ParseError(
            file,
            f"an E event no earlier than its B (event {int(at[b[j]])}, ts {ts[b[j]]:g})",
            position=f"event {k}",
            found=events[k],
        )
    row, none = np.r_[x, b], np.zeros(len(x), np.int64)
    e_event = at[np.maximum(e, 0)]
    out = pd.DataFrame(
        {
            "name": name[row],
            "ts_us": ts[row],
            "dur_us": np.r_[end_x - ts[x], end_b - ts[b]],
            "end_us": np.r_[end_x, end_b],
            "pid": pid[row],
            "tid": tid[row],
            "ph": "X",
            # X events share one tie; B/E calls keep file order (begun earlier and ended
            # later: the outer one); a call never ended holds those ending when it closes
            "start_tie": np.r_[none, 1 + at[b]],
            "end_tie": np.r_[none, np.where(e >= 0, e_event - n - 1, pairs.close_rank)],
            "event": at[row],
            "order": np.r_[at[x], np.where(e >= 0, e_event, n + pairs.close_rank)],
        }
    )
    return out.sort_values("order", kind="stable").drop(columns="order").reset_index(drop=True)


def phases(events: list[dict]) -> np.ndarray:
    """The phase of each event: "X", "B", "E", "C", or "" for any other (or none)."""
    known = ("X", "B", "E", "C")
    return np.fromiter(
        (v if type(v) is str and v in known else "" for v in column(events, "ph")),
        dtype="<U1",
        count=len(events),
    )


def codes(*columns: np.ndarray) -> np.ndarray:
    """One integer per distinct row of the columns (integers or strings, mixed allowed)."""
    code = np.zeros(len(columns[0]), np.int64)
    for col in columns:
        c, uniques = pd.factorize(col)
        code = pd.factorize(code * (len(uniques) + 1) + c)[0]
    return code.astype(np.int64)


def _durations(
    values: np.ndarray, at: np.ndarray, start: np.ndarray, events: list[dict], file: Path
) -> np.ndarray:
    """``dur`` of the X events ``at``: a number of at least 0 that ends the call within the
    range of a double."""
    dur = times(values, at, events, "dur", file)
    with np.errstate(over="ignore"):
        bad = (dur < 0) | ~np.isfinite(start + dur)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        expected = (
            "a duration of at least 0"
            if dur[j] < 0
            else "a duration that ends the call (ts + dur) within the range of a double"
        )
        k = int(at[j])
        raise ParseError(file, expected, position=f"event {k}", found=events[k])
    return dur


def column(events: list[dict], key: str) -> np.ndarray:
    """The values of ``key`` of every event (None where absent), as an object array."""
    return np.fromiter((e.get(key) for e in events), dtype=object, count=len(events))


def _found(events: list[dict], k: int, key: str) -> object:
    """What event ``k`` holds as ``key``, for an error message (JSON's spelling of a bool)."""
    if key not in events[k]:
        return f"no {key!r}"
    value = events[k][key]
    return ("true" if value else "false") if isinstance(value, bool) else value


def times(
    values: np.ndarray, at: np.ndarray, events: list[dict], key: str, file: Path
) -> np.ndarray:
    """Microseconds (float64) of ``key`` for the events ``at``; ParseError on the first
    value that is not a finite number (see the module docstring)."""
    vals = values[at]
    out = None
    if infer_dtype(vals, skipna=False) in ("integer", "floating", "mixed-integer-float"):
        try:
            out = vals.astype(np.float64)
        except OverflowError:  # an integer past 1e308
            out = None
    if out is None:
        out = np.fromiter((number(v) for v in vals), dtype=np.float64, count=len(vals))
    bad = ~np.isfinite(out)
    if bad.any():
        k = int(at[np.flatnonzero(bad)[0]])
        raise ParseError(
            file,
            f"a number as {key!r} (a JSON number, or a string holding one)",
            position=f"event {k}",
            found=_found(events, k, key),
        )
    return out


def number(value: Any) -> float:
    """A JSON number, or a string holding one, as float: NaN where the value is anything
    else (``true``/``false`` included), inf past the double range."""
    kind = type(value)
    if kind is int or kind is float:
        try:
            return float(value)
        except OverflowError:
            return float("inf")
    if kind is str and _NUMBER_TEXT.fullmatch(value):
        return float(value)
    return float("nan")


def ids(values: np.ndarray, at: np.ndarray, events: list[dict], key: str, file: Path) -> np.ndarray:
    """``pid``/``tid`` of the events ``at``: int64 where all are integers, else objects
    (integers and strings); ParseError on the first that is neither."""
    vals = values[at]
    kind = infer_dtype(vals, skipna=False)
    if kind == "integer":
        try:
            return vals.astype(np.int64)
        except OverflowError:
            pass
    elif kind == "string":
        return vals
    ok = np.fromiter((type(v) is str or is_int64(v) for v in vals), dtype=bool, count=len(vals))
    if not ok.all():
        k = int(at[np.flatnonzero(~ok)[0]])
        raise ParseError(
            file,
            f"an integer (within int64) or a string as {key!r}",
            position=f"event {k}",
            found=_found(events, k, key),
        )
    return vals


def names(
    values: np.ndarray, at: np.ndarray, optional: np.ndarray, events: list[dict], file: Path
) -> np.ndarray:
    """``name`` of the events ``at``: strings; None allowed where ``optional`` (E events)."""
    vals = values[at]
    if infer_dtype(vals, skipna=False) == "string":
        return vals
    ok = np.fromiter((type(v) is str for v in vals), dtype=bool, count=len(vals))
    ok |= optional & np.fromiter((v is None for v in vals), dtype=bool, count=len(vals))
    if not ok.all():
        k = int(at[np.flatnonzero(~ok)[0]])
        raise ParseError(
            file,
            "a string as 'name' of every call event",
            position=f"event {k}",
            found=_found(events, k, "name"),
        )
    return vals


# ---------------------------------------------------------------------- B/E pairs
class Pairs:
    """Calls made of B/E events: positions (into the B/E arrays) of each call's B and E
    (-1 for a call still open at the end), and the nesting ties of those calls."""

    def __init__(self, begin: np.ndarray, end: np.ndarray, close_rank: np.ndarray) -> None:
        self.begin, self.end = begin, end
        #: for calls open at the end: 1 for the innermost, 2 for the one holding it, ...
        self.close_rank = close_rank


def pair(
    is_begin: np.ndarray, thread: np.ndarray, name: np.ndarray, event: np.ndarray, file: Path
) -> Pairs:
    """Match the B/E events (in file order; ``thread`` codes, ``name`` of each, ``event``
    its index in the file) by the rules in the module docstring.

    All at once by nesting depth: within a thread whose depth never goes below 0, the
    events of one depth alternate B, E, B, E, ... and each B/E neighbour pair is what the
    stack pairs, unless their names differ. A thread where either happens is replayed."""
    n = len(is_begin)
    by_thread = np.argsort(thread, kind="stable")
    t = thread[by_thread]
    step = np.where(is_begin[by_thread], 1, -1)
    after = np.cumsum(step)
    first = np.r_[True, t[1:] != t[:-1]]
    offset = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    after = after - (after[offset] - step[offset])  # the running depth within each thread
    depth = np.empty(n, np.int64)
    depth[by_thread] = np.where(is_begin[by_thread], after - 1, after)
    below_zero = np.zeros(n, bool)
    below_zero[by_thread] = after < 0
    # within (thread, depth), file order: B, E, B, E, ... where no E went below the bottom
    order = np.lexsort((np.arange(n), depth, thread))
    same = np.r_[
        (thread[order][1:] == thread[order][:-1]) & (depth[order][1:] == depth[order][:-1])
    ]
    b_here = is_begin[order]
    closes = np.r_[b_here[:-1] & ~b_here[1:] & same, False] if n else np.zeros(0, bool)
    begin, end = order[closes], order[np.flatnonzero(closes) + 1]
    e_name = name[end]
    renamed = pd.notna(e_name) & (e_name != name[begin])
    odd = np.unique(np.r_[thread[below_zero], thread[begin[renamed]]])
    keep = ~np.isin(thread[begin], odd)
    begin, end = begin[keep], end[keep]
    paired = np.zeros(n, bool)
    paired[begin] = paired[end] = True
    open_b = np.flatnonzero(is_begin & ~paired & ~np.isin(thread, odd))
    close_rank = _close_ranks(open_b, thread, depth)
    ignored: list[tuple[int, int]] = []
    if len(odd):
        rb, re_, ro, rr, ignored = _replay(is_begin, thread, name, odd)
        begin, end = np.r_[begin, rb], np.r_[end, re_]
        open_b, close_rank = np.r_[open_b, ro], np.r_[close_rank, rr]
    if ignored:
        _warn_ignored(ignored, name, event, file)
    if len(open_b):
        _warn_open(open_b, name, event, file)
    return Pairs(
        np.r_[begin, open_b].astype(np.int64),
        np.r_[end, np.full(len(open_b), -1)].astype(np.int64),
        np.r_[np.zeros(len(begin), np.int64), close_rank].astype(np.int64),
    )


def _close_ranks(open_b: np.ndarray, thread: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """1 for the innermost of a thread's calls open at the end, 2 for the next, ..."""
    if not len(open_b):
        return np.zeros(0, np.int64)
    top = pd.Series(depth[open_b]).groupby(thread[open_b]).transform("max").to_numpy()
    return (top - depth[open_b] + 1).astype(np.int64)


def _replay(is_begin, thread, name, odd):
    """The stack machine over the threads ``odd`` (whose depths went wrong), one pass:
    pairs, calls open at the end with their close ranks, and ignored E events (position,
    open B or -1)."""
    begins, ends, still_open, ranks, ignored = [], [], [], [], []
    todo = np.flatnonzero(np.isin(thread, odd))
    todo = todo[np.argsort(thread[todo], kind="stable")]  # by thread, file order within
    stack: list[int] = []

    def close_thread() -> None:
        still_open.extend(stack)
        ranks.extend(range(len(stack), 0, -1))
        stack.clear()

    current = None
    for p, t in zip(todo.tolist(), thread[todo].tolist()):
        if t != current:
            close_thread()
            current = t
        if is_begin[p]:
            stack.append(p)
        elif not stack:
            ignored.append((p, -1))
        elif name[p] is not None and name[p] != name[stack[-1]]:
            ignored.append((p, stack[-1]))
        else:
            begins.append(stack.pop())
            ends.append(p)
    close_thread()
    as_int = lambda x: np.asarray(x, np.int64)  # noqa: E731
    return as_int(begins), as_int(ends), as_int(still_open), as_int(ranks), ignored


def _warn_ignored(ignored: list[tuple[int, int]], name, event, file: Path) -> None:
    shown = []
    for p, top in sorted(ignored)[:_SHOWN]:
        why = "nothing open" if top < 0 else f"the open call is {name[top]!r} (event {event[top]})"
        shown.append(f"event {event[p]} {name[p]!r} ({why})")
    more = f" and {len(ignored) - _SHOWN} more" if len(ignored) > _SHOWN else ""
    warnings.warn(
        SkippedInputWarning(
            f"{file}: skipped {len(ignored)} E events that close no open call of their name: "
            + ", ".join(shown)
            + more
        ),
        stacklevel=6,
    )


def _warn_open(open_b: np.ndarray, name, event, file: Path) -> None:
    shown = ", ".join(f"event {event[p]} {name[p]!r}" for p in np.sort(open_b)[:_SHOWN])
    more = f" and {len(open_b) - _SHOWN} more" if len(open_b) > _SHOWN else ""
    warnings.warn(
        IncompleteInputWarning(
            f"{file}: {len(open_b)} calls never end (B events without their E: the trace stops "
            f"inside them); closed at the last time of their thread: {shown}{more}"
        ),
        stacklevel=6,
    )
