"""Chrome trace events into calls: the rules of the trace-event readers, in one place.

An event is a JSON object; its phase ``ph`` says what it is. ``X`` is a complete call
(``ts`` and ``dur``), ``B``/``E`` begin and end one; these make calls. ``M`` (metadata),
``C`` (counters) and every other phase are not calls: the readers use ``M`` and ``C``
where they say so and count the rest; their values are not checked. In an event of a call:

* ``name``: a string; a ``B`` or ``X`` without one (or ``null``), and an empty one, is
  ``(unnamed)``, as speedscope names it; an ``E`` may leave it out. ``pid``, ``tid``: an
  integer (int64) or a string (PyTorch's older exports name processes ``"CPU
  functions"``). Anything else is a ParseError naming the event.
* ``ts``, ``dur`` (microseconds): a JSON number, or a string holding one as a JSON number
  is written (``"12"``, ``"1.5e3"``: Perfetto reads these, to keep precision a double would
  lose); never ``true``/``false`` or another string. Finite; ``dur`` at least 0. An ``X``
  without ``dur`` lasts its ``tdur`` (thread time), or 0 without that either.

Calls are made per thread (pid, tid): each ``X`` is a call from ``ts`` to ``ts + dur``;
``B``/``E`` pairs are matched in time order by speedscope's rules
(:mod:`._trace_pairs`); ignored ``E`` events are named in a SkippedInputWarning. ``B``
events never ended (the trace stops inside them) close at the last time a call of their
thread began or ended (IncompleteInputWarning naming them), so they may last 0 s.

How calls nest (:func:`nest_calls`): a call's parent is the innermost call of its thread
that holds it, times compared to the nanosecond (:func:`on_time_grid`). Where times are
equal, two orders are offered:

* ``"speedscope"`` (the trace-event reader): calls begin in speedscope's order (at one
  time the ``B`` events in file order, then the ``X`` events, longer first, then in file
  order) and end innermost first; a call of no length ends as it begins, after the calls
  that end at that time; a call never ended holds every call ending when it closes. So an
  ``X`` that starts with its caller at the same microsecond is its callee.
* ``"hatchet"`` (the PerfFlowAspect reader, Hatchet's result): two ``X`` events that share
  a start or an end are not nested; ``B``/``E`` calls nest as the pairing opened and closed
  them; an ``X`` counts as begun before and ended after a ``B``/``E`` call at the same time.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable
from itertools import chain, repeat
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import infer_dtype

from perfweave.calltree._forest import merge_groups
from perfweave.calltree._intervals import nest
from perfweave.calltree.readers._common import is_int64
from perfweave.calltree.readers._trace_pairs import pair
from perfweave.errors import ArgumentError, IncompleteInputWarning, ParseError, SkippedInputWarning

INT = np.int64
#: a string holding a number, written as JSON writes numbers
_NUMBER_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
#: a string holding an integer id
_INT_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)")
#: events named in a warning (the count says how many more)
_SHOWN = 5
#: half of a UTF-16 pair, alone: what a "\\ud800" escape decodes to; no UTF-8 text holds it
_SURROGATE = re.compile("[\ud800-\udfff]")
#: the name speedscope gives a call event without one
UNNAMED = "(unnamed)"
#: phases that make calls
CALL_PHASES = ("X", "B", "E")
#: nanoseconds in a microsecond, the trace-event format's unit of time
_NS_PER_US = 1000.0
#: microseconds below which a double holds every nanosecond apart (2**41 us, 25 days: a
#: monotonic clock's; epoch times, 1.7e15 us, are kept to a quarter microsecond at best)
_NS_EXACT_BELOW = 2.0**41


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


# ---------------------------------------------------------------------- events -> columns
def phases(events: list, file: Path) -> np.ndarray:
    """The phase of each event: its ``ph`` where that is a one-letter string, else "" (no
    phase, or not a string). Events that are not JSON objects are a ParseError."""
    try:  # (speed) one pass: each ph looked up among the printable ASCII letters
        code = np.fromiter(
            map(_PHASE_CODE.get, map(dict.get, events, repeat("ph")), repeat(-1)),
            dtype=np.int16,
            count=len(events),
        )
    except TypeError:  # an event that is not a dict, or an unhashable ph
        return _phases_of_any(events, file)
    out = _PHASE_TEXT[code]
    odd = np.flatnonzero(code < 0)  # another one-letter string, or a ph that is none
    if len(odd):
        out[odd] = [_phase(events[k].get("ph")) for k in odd.tolist()]
    return out


#: one-letter phases by code (printable ASCII), then "" for events without ``ph``
_PHASE_TEXT = np.array([chr(c) for c in range(32, 127)] + [""], dtype="<U1")
_PHASE_CODE = {
    **{p: i for i, p in enumerate(_PHASE_TEXT[:-1].tolist())},
    None: len(_PHASE_TEXT) - 1,
}


def _phases_of_any(events: list, file: Path) -> np.ndarray:
    """:func:`phases` where an event is not a dict (a ParseError) or a ph is unhashable."""
    try:
        ph = column(events, "ph")
    except TypeError:
        k = next(i for i, e in enumerate(events) if not isinstance(e, dict))
        raise ParseError(
            file, "trace events as JSON objects", position=f"event {k}", found=events[k]
        ) from None
    try:
        code, distinct = pd.factorize(ph)
    except TypeError:  # an unhashable ph (a list or an object)
        return np.array([_phase(v) for v in ph], dtype="<U1")
    letters = np.array([_phase(v) for v in distinct] + [""], dtype="<U1")
    return letters[code]  # code -1 (null) takes the last: ""


def _phase(value: Any) -> str:
    return value if type(value) is str and len(value) == 1 else ""


def column(events: list[dict], key: str) -> np.ndarray:
    """The values of ``key`` of every event (None where absent), as an object array.
    Raises TypeError where an event is not a dict."""
    return np.fromiter(map(dict.get, events, repeat(key)), dtype=object, count=len(events))


def other_phases(ph: np.ndarray) -> dict[str, int]:
    """How many events of each phase that makes no call (``""``: none or not a string)."""
    kinds, counts = np.unique(ph[~np.isin(ph, CALL_PHASES)], return_counts=True)
    return {str(k): int(c) for k, c in zip(kinds, counts)}


def normal_ids(values: np.ndarray) -> np.ndarray:
    """pids or tids with strings that hold an integer (``"7695"``) as that integer, so that
    events writing one id both ways (speedscope reads both as the number) agree."""
    if values.dtype != object:
        return values
    code, distinct = pd.factorize(values)
    out = np.empty(len(distinct), dtype=object)
    out[:] = [_as_int(v) for v in distinct]
    return out[code]


def _as_int(value: Any) -> Any:
    if type(value) is str and _INT_TEXT.fullmatch(value):
        number = int(value)
        return number if is_int64(number) else value
    return value


def codes(*columns: np.ndarray) -> np.ndarray:
    """One integer per distinct row of the columns (integers or strings, mixed allowed),
    numbered in order of first appearance (a null is a value too)."""
    code = None
    for col in columns:
        c, uniques = pd.factorize(col)
        if code is None and not (c < 0).any():  # (speed) numbered so already
            code = c
            continue
        base = np.zeros(len(c), INT) if code is None else code
        code = pd.factorize(base * (len(uniques) + 1) + c)[0]
    return code.astype(INT, copy=False)


def _found(events: list[dict], k: int, key: str) -> object:
    """What event ``k`` holds as ``key``, for an error message (JSON's spelling of a bool)."""
    if key not in events[k]:
        return f"no {key!r}"
    value = events[k][key]
    return ("true" if value else "false") if isinstance(value, bool) else value


def times(
    vals: np.ndarray,
    at: np.ndarray,
    events: list[dict],
    key: str,
    file: Path,
    place: str = "event {}",
) -> np.ndarray:
    """Microseconds (float64) from ``vals``, the values of ``key`` of the events ``at``;
    ParseError on the first that is not a finite number (see the module docstring), at
    ``place`` (the event's index put in: ``event 4``, ``samples[4]``)."""
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
            position=place.format(k),
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


def ids(
    vals: np.ndarray,
    at: np.ndarray,
    events: list[dict],
    key: str,
    file: Path,
    place: str = "event {}",
) -> np.ndarray:
    """``pid``/``tid`` from ``vals``, the values of ``key`` of the events ``at``: int64 where
    all are integers, else objects (integers and strings); ParseError on the first that is
    neither, at ``place`` (as :func:`times`)."""
    kind = infer_dtype(vals, skipna=False)
    if kind == "integer":
        try:
            return vals.astype(INT)
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
            position=place.format(k),
            found=_found(events, k, key),
        )
    return vals


def names(
    vals: np.ndarray, at: np.ndarray, is_end: np.ndarray, events: list[dict], file: Path
) -> np.ndarray:
    """``name`` from ``vals``, the names of the events ``at``: strings; a B or X without
    one is ``(unnamed)``, an E without one None; an empty name is ``(unnamed)`` (as
    speedscope names it: a blank frame shows nothing); ParseError on any other value."""
    unnamed = vals == ""
    if infer_dtype(vals, skipna=False) != "string":
        missing = np.fromiter((v is None for v in vals), dtype=bool, count=len(vals))
        ok = missing | np.fromiter((type(v) is str for v in vals), dtype=bool, count=len(vals))
        if not ok.all():
            k = int(at[np.flatnonzero(~ok)[0]])
            raise ParseError(
                file,
                "a string as 'name' of every call event",
                position=f"event {k}",
                found=_found(events, k, "name"),
            )
        unnamed |= missing & ~is_end
    if not unnamed.any():
        return vals
    vals = vals.copy()
    vals[unnamed] = UNNAMED
    return vals


def _durations(
    at: np.ndarray,
    start: np.ndarray,
    events: list[dict],
    file: Path,
    dur_given: np.ndarray | None = None,
) -> np.ndarray:
    """Microseconds each X event ``at`` lasts: its ``dur``, else its ``tdur``, else 0; a
    number of at least 0 that ends the call within the range of a double. ``dur_given``:
    the events' ``dur`` values where already read."""
    dur = np.zeros(len(at))
    rest = np.arange(len(at))
    for key in ("dur", "tdur"):
        if key == "dur" and dur_given is not None:
            given = dur_given
        else:
            given = column_at(events, key, at[rest])
        has = ~pd.isna(given)  # None (and NaN, which only the exact parser makes: given)
        if not has.all():  # null or absent: a null is a value (not a number), absent is not
            none = np.flatnonzero(~has)
            has[none] = [key in events[k] for k in at[rest[none]].tolist()]
        if has.all():  # (speed) every event has it: no copies of the columns
            dur[rest] = times(given, at[rest], events, key, file)
            break
        if has.any():
            dur[rest[has]] = times(given[has], at[rest[has]], events, key, file)
        rest = rest[~has]
        if not len(rest):
            break
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


# ---------------------------------------------------------------------- calls
def calls(
    events: list[dict], ph: np.ndarray, file: Path, *, split_args: bool = False
) -> dict[str, np.ndarray]:
    """One row per call (columns as arrays), in begin order per thread: ``name``, ``ts_us``, ``dur_us``,
    ``end_us``, ``pid``, ``tid``, ``thread`` (a code per pid/tid), ``event`` (the index of the event that began the call), ``kind`` (0: an X event, 1: a
    B/E pair, 2: a B never ended), ``seq`` (for B/E calls, the order the pairing closed
    them), ``begin_pos`` (the call's place in its thread's begin order) and, with
    ``split_args``, ``args`` (the begin event's args as JSON text, "" without). ``ph`` are
    the events' phases (:func:`phases`). ``events`` are dicts."""
    at = np.flatnonzero(np.isin(ph, CALL_PHASES))
    kind = ph[at]
    is_end = kind == "E"
    x = np.flatnonzero(kind == "X")
    only_x = len(x) == len(at)  # (only X events, as PyTorch writes) dur in the same pass
    keys = ("name", "pid", "tid", "ts") + (("dur",) if only_x else ())
    given = columns_at(events, keys, at)
    name = names(given[0], at, is_end, events, file)
    pid = ids(given[1], at, events, "pid", file)
    tid = ids(given[2], at, events, "tid", file)
    ts = times(given[3], at, events, "ts", file)
    dur_x = _durations(at[x], ts[x], events, file, given[4] if only_x else None)
    thread = codes(normal_ids(pid), normal_ids(tid))
    be = np.flatnonzero(kind != "X")
    pairs = pair(
        kind[be] == "B",
        thread[be],
        ts[be],
        name[be],
        lambda p: _keys(events, at[be[p]], name[be[p]]),
        at[be],
    )
    if pairs.ignored:
        _warn_ignored(pairs.ignored, name[be], at[be], file)
    b = be[pairs.begin]
    ended = pairs.end >= 0
    e = be[pairs.end[ended]]
    end_b = np.empty(len(b))
    end_b[ended] = ts[e]
    never = b[~ended]
    if len(never):
        # a call never ended closes at the last time a call of its thread began or ended
        last = np.full(int(thread.max(initial=-1)) + 1, -np.inf)
        for where, when in ((x, ts[x] + dur_x), (x, ts[x]), (b, ts[b]), (e, ts[e])):
            np.maximum.at(last, thread[where], when)
        end_b[~ended] = last[thread[never]]
        _warn_open(at[never], name[never], file)
    row = np.r_[x, b]  # the calls' begin events, as positions in ``at``
    kind_row = np.r_[np.zeros(len(x), INT), np.where(ended, 1, 2)]
    dur_row = np.r_[dur_x, end_b - ts[b]]
    order = _begin_order(thread[row], ts[row], kind_row, at[row], dur_row)
    begin = row[order]  # (speed) each column taken once, in its final order, if not in it
    by_begin, by_order = _taker(begin, len(at)), _taker(order, len(order))
    out = {
        "name": by_begin(name),
        "ts_us": by_begin(ts),
        "dur_us": by_order(dur_row),
        "end_us": by_order(np.r_[ts[x] + dur_x, end_b]),
        "pid": by_begin(pid),
        "tid": by_begin(tid),
        "thread": by_begin(thread),
        "event": by_begin(at),
        "kind": by_order(kind_row),
        "seq": by_order(np.r_[np.full(len(x), -1, INT), pairs.seq]),
    }
    if split_args:
        out["args"] = _args_text(events, out["event"])
    out["begin_pos"] = np.arange(len(order), dtype=INT)
    return out


def _taker(positions: np.ndarray, size: int) -> Callable[[np.ndarray], np.ndarray]:
    """A function taking the values at ``positions`` of arrays of ``size`` values: the
    array itself where the positions are all of them in order (a trace in order)."""
    n = len(positions)
    if n == size and (not n or (positions[0] == 0 and (positions == np.arange(n)).all())):
        return lambda values: values
    return lambda values: values[positions]


def _begin_order(
    thread: np.ndarray, ts: np.ndarray, kind: np.ndarray, event: np.ndarray, dur: np.ndarray
) -> np.ndarray:
    """Calls in begin order per thread: by time; at one time the B events (in file order)
    before the X events (longer first, then in file order). Sorted by (thread, time) with
    two stable sorts (fast where a trace is in time order); only calls that share a thread
    and a time are sorted on the other keys. ``kind`` 0 is an X event, ``event`` the
    index of the event that began the call, ``dur`` its length."""
    order = np.argsort(ts, kind="stable")
    by_thread = thread[order]
    if len(order) and by_thread.max() > 0:  # several threads
        if by_thread.max() < 2**15:  # (speed) numpy sorts 16-bit integers by radix
            by_thread = by_thread.astype(np.int16)
        order = order[np.argsort(by_thread, kind="stable")]
    t, s = thread[order], ts[order]
    tie = np.r_[False, (t[1:] == t[:-1]) & (s[1:] == s[:-1])]
    if not tie.any():
        return order
    tied = tie | np.r_[tie[1:], False]  # every member of a run of equal (thread, time)
    at = np.flatnonzero(tied)
    group = np.cumsum(~tie)[at]  # one number per run
    rows = order[at]
    is_x = kind[rows] == 0
    sub = np.lexsort((event[rows], np.where(is_x, -dur[rows], 0.0), is_x, group))
    order[at] = rows[sub]
    return order


def columns_at(events: list[dict], keys: tuple[str, ...], at: np.ndarray) -> list[np.ndarray]:
    """The values of each of ``keys`` (two or more) of the events ``at`` (None where
    absent), as object arrays (views of one table). (Speed) one pass where every event
    has every key, the usual case: a pass per key read each of a million events' dicts
    from memory again (a PyTorch-shaped trace's five columns took 0.53 s, one pass 0.25 s);
    else a pass per key."""
    rows = events if len(at) == len(events) else map(events.__getitem__, at.tolist())
    width = len(keys)
    try:
        table = np.fromiter(
            chain.from_iterable(map(itemgetter(*keys), rows)),
            dtype=object,
            count=width * len(at),
        ).reshape(len(at), width)
    except KeyError:
        return [column_at(events, k, at) for k in keys]
    return [table[:, i] for i in range(width)]


def column_at(events: list[dict], key: str, at: np.ndarray) -> np.ndarray:
    """The values of ``key`` of the events ``at`` (None where absent), as an object array."""
    if len(at) == len(events):
        return column(events, key)
    return np.fromiter((events[k].get(key) for k in at.tolist()), dtype=object, count=len(at))


def _keys(events: list[dict], at: np.ndarray, name: np.ndarray) -> list[str]:
    """speedscope's key of each event ``at``: its name (``(unnamed)`` without one), and its
    args as compact JSON after a space where it has them."""
    out = []
    for k, n in zip(at.tolist(), name.tolist()):
        args = events[k].get("args")
        text = n or UNNAMED
        out.append(text if args is None else f"{text} {_json(args)}")
    return out


def _json(value: Any) -> str:
    """Compact JSON text of an args value (keys in the file's order, as JavaScript's
    JSON.stringify writes them); a value nested past what Python writes is shown cut."""
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (RecursionError, ValueError):
        return "{...}"


def _args_text(events: list[dict], at: np.ndarray) -> np.ndarray:
    """The args of each event ``at`` as compact JSON text, "" where it has none."""
    out = np.empty(len(at), dtype=object)
    out[:] = ["" if (a := events[k].get("args")) is None else _json(a) for k in at.tolist()]
    return out


# ---------------------------------------------------------------------- nesting
def on_time_grid(us: np.ndarray) -> np.ndarray:
    """Microseconds rounded to the nanosecond, the finest time trace-event files are written
    in, so that times the file writes as equal compare equal. An ``X`` event ends at ``ts +
    dur``, a sum in binary floating point: a callee at ``ts`` 0.1 lasting 0.2 ends at
    0.30000000000000004, past its caller written to end at 0.3, which would then not hold
    it. (Rounding keeps the order of times, so it never unnests calls that nest.) Times
    past :data:`_NS_EXACT_BELOW` stay as they are: a double holds them coarser than a
    nanosecond, and rounding would make times a step apart equal."""
    grid = np.round(us * _NS_PER_US) / _NS_PER_US
    return np.where(np.abs(us) < _NS_EXACT_BELOW, grid, us)


def nest_calls(table: dict[str, np.ndarray], ties: str) -> tuple[np.ndarray, np.ndarray]:
    """Parent (row, -1 for a root) and depth of each call of :func:`calls`' table, with
    equal times ordered as ``ties`` says ("speedscope" or "hatchet", module docstring)."""
    kind, pos = table["kind"], table["begin_pos"]
    n = len(kind)
    ts, end = on_time_grid(table["ts_us"]), on_time_grid(table["end_us"])
    if ties == "speedscope":
        # ends at one time: calls with length innermost first, then calls of no length in
        # begin order (each ends as it begins), then calls never ended, innermost first
        zero = (end == ts) & (kind != 2)
        end_tie = np.where(kind == 2, 3 * n - 1 - pos, np.where(zero, n + pos, n - 1 - pos))
        start_tie = pos
    elif ties == "hatchet":
        seq = table["seq"]
        be = kind != 0
        start_tie = np.where(be, 1 + pos, 0)
        end_tie = np.where(kind == 1, seq - (3 * n + 1), np.where(kind == 2, n - pos, 0))
    else:
        raise ArgumentError(f"ties: 'speedscope' or 'hatchet', not {ties!r}")
    return nest(table["thread"], ts, end, start_tie, end_tie)


def call_paths(parent: np.ndarray, level: np.ndarray, frame: np.ndarray) -> np.ndarray:
    """A node id per call: calls with the same path of frames share one
    (:func:`perfweave.calltree._forest.merge_groups`). Where no two calls with the same
    frame share a parent nothing merges, and each call is its own node: one pass instead
    of one per level (or about log2(depth) over all calls, in a deep trace)."""
    if not len(parent) or len(pd.unique(parent * (int(frame.max()) + 1) + frame)) == len(parent):
        return np.arange(len(parent), dtype=INT)
    return merge_groups(parent, level, frame)


# ---------------------------------------------------------------------- warnings
def _warn_ignored(ignored: list[tuple[int, int]], name, event, file: Path) -> None:
    shown = []
    for p, top in sorted(ignored, key=lambda pt: event[pt[0]])[:_SHOWN]:
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


def _warn_open(event: np.ndarray, name: np.ndarray, file: Path) -> None:
    order = np.argsort(event, kind="stable")
    shown = ", ".join(f"event {event[p]} {name[p]!r}" for p in order[:_SHOWN])
    more = f" and {len(event) - _SHOWN} more" if len(event) > _SHOWN else ""
    warnings.warn(
        IncompleteInputWarning(
            f"{file}: {len(event)} calls never end (B events without their E: the trace stops "
            f"inside them); closed at the last time of their thread: {shown}{more}"
        ),
        stacklevel=6,
    )


# ---------------------------------------------------------------------- text
_ESCAPES = "escapes of lone surrogates such as \\ud800 (no characters)"


def mend_text(calls: dict[str, np.ndarray], replaced: str, file: Path, stacklevel: int) -> None:
    """Names, string pids/tids (and args) as text every output can write: lone surrogates
    (``\\ud800`` escapes, no character) replaced with U+FFFD as undecodable bytes already
    were (``replaced`` says where the first was); one warning naming the calls."""
    reasons = [f"bytes that are not UTF-8 (the first at {replaced})"] if replaced else []
    columns = [c for c in ("name", "pid", "tid", "args") if c in calls]
    for col in columns:
        mended, changed = mend_surrogates(calls[col])
        if changed:
            calls[col] = mended
            if not reasons or reasons[-1] != _ESCAPES:
                reasons.append(_ESCAPES)
    if not reasons:
        return
    hit = np.zeros(len(calls["name"]), bool)
    for col in columns:
        values = calls[col]
        if values.dtype == object:
            hit |= np.fromiter(
                (type(v) is str and "\ufffd" in v for v in values), bool, len(values)
            )
    where = np.flatnonzero(hit)
    where = where[np.argsort(calls["event"][where], kind="stable")]
    shown = ", ".join(f"event {calls['event'][k]} {calls['name'][k]!r}" for k in where[:5])
    more = f" and {len(where) - 5} more" if len(where) > 5 else ""
    warnings.warn(
        SkippedInputWarning(
            f"{file}: {' and '.join(reasons)} were replaced with U+FFFD"
            + (f"; calls changed: {shown}{more}" if len(where) else "")
        ),
        stacklevel=stacklevel + 1,
    )


def plain(meta: dict, file: Path, where: str) -> dict:
    """Metadata as flat scalars (nested values as JSON text); a value nested deeper than
    JSON text is written (about 1,000 levels) is a ParseError naming ``where`` and the key.
    Lone surrogates in keys and text become U+FFFD (one warning)."""
    out = {}
    for k, v in meta.items():
        if isinstance(v, (str, int, float, bool)) or v is None:
            out[k] = v
            continue
        try:
            out[k] = json.dumps(v)
        except RecursionError:
            raise ParseError(
                file,
                f"{where} values nested at most about 1,000 levels",
                position=f"{where} key {k!r}",
                found=v,
            ) from None
    keys, keys_changed = mend_surrogates(np.array(list(out), dtype=object))
    values, values_changed = mend_surrogates(np.array(list(out.values()), dtype=object))
    if keys_changed or values_changed:
        warnings.warn(
            SkippedInputWarning(f"{file}: in {where}, {_ESCAPES} were replaced with U+FFFD"),
            stacklevel=4,
        )
    return dict(zip(keys.tolist(), values.tolist()))
