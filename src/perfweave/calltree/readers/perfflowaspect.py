"""PerfFlowAspect traces (``.pfw``): Chrome trace-event JSON, one event per call.

PerfFlowAspect writes a bare array of events or an object with ``traceEvents`` (and the
Adiak metadata in ``otherData``); calls are complete ``X`` events (compact logging) or
``B``/``E`` pairs (verbose logging); counter events (``C``) carry CPU and memory usage.
A file left by a run that died ends inside its array: it is closed, read, and an
:class:`~perfweave.errors.UnterminatedTraceWarning` says so.

By default the result is Hatchet's ``from_perfflowaspect``: one node per call, frames
``{name, type: "function", ts, dur}``, a call's parent the innermost call on the same
pid/tid whose interval strictly contains it, columns ``name``, ``ts``, ``dur`` (seconds),
``pid``, ``tid``, ``ph``; ``dur`` is the inclusive metric and ``dur (exc)`` (``dur`` minus
the callees') the exclusive one. ``ts`` is when a call began: a column, never a metric
(Hatchet lists it as one), so nothing sums, averages or shows it as a share.
``merge_calls=True`` merges the calls of one call path into one node with ``calls``,
``time (inc)`` and ``time`` (exclusive) instead: the calltree form. Several files of one
run (a directory or a list of paths, one file per rank) read into one frame with a
``rank`` level (files in name order). Which events make calls, and how B/E pairs match, is
:mod:`._trace_events`; nesting is :func:`perfweave.calltree._intervals.nest` (linear in
the depth). Bytes that are not UTF-8 are replaced with U+FFFD and an
:class:`~perfweave.errors.SkippedInputWarning` names the calls whose names changed.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree import _deepjson
from perfweave.calltree._build import build_graphframe
from perfweave.calltree._forest import merge_groups
from perfweave.calltree._intervals import nest
from perfweave.calltree.readers import _trace_events as te
from perfweave.calltree.readers._common import read_input
from perfweave.errors import ParseError, SkippedInputWarning, UnterminatedTraceWarning

_SUFFIX = ".pfw"


def sniff(path: Path) -> bool:
    if path.is_dir():
        return any(path.glob(f"*{_SUFFIX}"))
    if not path.is_file():
        return False
    if path.suffix == _SUFFIX:
        return True
    with open(path, "rb") as f:
        head = f.read(4096).lstrip()
    return (
        head[:1] in (b"[", b"{")
        and b'"ph"' in head
        and b'"ts"' in head
        and (head[:1] == b"[" or b'"traceEvents"' in head)
    )


def read(
    path: str | PathLike[str] | Sequence[str | PathLike[str]],
    merge_calls: bool = False,
    scan_cpu_mem: bool = False,
    **_: Any,
):
    """Read a ``.pfw`` trace, a directory of them, or a list of them (one per rank).

    ``merge_calls``: one node per call path with ``calls``, ``time (inc)`` and ``time``
    (exclusive seconds), instead of one node per call. ``scan_cpu_mem`` (as Hatchet):
    add ``usage_memory`` and ``usage_cpu`` from the counter event at each call's start.
    """
    files = _files(path)
    tables, metadata = [], {}
    for rank, file in enumerate(files):
        events, meta, replaced = _load(file)
        table = _calls(events, file, scan_cpu_mem)
        _mend_text(table, replaced, file)
        table["rank"] = rank
        tables.append(table)
        metadata = metadata or _plain(meta, file)
    calls = pd.concat(tables, ignore_index=True) if len(tables) > 1 else tables[0]
    if not len(calls):
        raise ParseError(files[0], "at least one complete call (X event or B/E pair)", found="none")
    thread = te.codes(calls["rank"].to_numpy(), calls["pid"].to_numpy(), calls["tid"].to_numpy())
    parent, level = nest(
        thread,
        calls["ts_us"].to_numpy(),
        calls["end_us"].to_numpy(),
        calls["start_tie"].to_numpy(),
        calls["end_tie"].to_numpy(),
    )
    meta_out = {"perfflowaspect": [str(f) for f in files], **metadata}
    if merge_calls:
        return _merged(calls, parent, level, len(files) > 1, meta_out, files[0])
    return _per_call(calls, parent, len(files) > 1, scan_cpu_mem, meta_out, files[0])


# ---------------------------------------------------------------------- files
def _files(path) -> list[Path]:
    if isinstance(path, (list, tuple)):
        files = [Path(p) for p in path]
        if not files:
            raise ParseError("<list>", "at least one .pfw file", found="an empty list")
        return files
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob(f"*{_SUFFIX}"))
        if not files:
            raise ParseError(p, "a directory with .pfw files", found="none")
        return files
    return [p]


def _load(file: Path) -> tuple[list, dict, str]:
    """Events and ``otherData`` of one trace, and where bytes that are not UTF-8 were
    replaced ("" if none); an unterminated array is closed (warning)."""
    text, replaced = te.decode(read_input(file, "PerfFlowAspect trace"))
    try:
        data, closed = _parse(text, file), False
    except json.JSONDecodeError as exc:
        try:
            data, closed = _parse(_close(text), file), True
        except json.JSONDecodeError:
            raise ParseError(
                file,
                "trace-event JSON (an array of events or an object with traceEvents)",
                line=exc.lineno,
                position=f"column {exc.colno}",
                found=exc.msg,
            ) from exc
    if isinstance(data, dict) and isinstance(data.get("traceEvents"), list):
        events, other = data["traceEvents"], data.get("otherData", {})
        meta = other if isinstance(other, dict) else {"otherData": other}
    elif isinstance(data, list):
        events, meta = data, {}
    else:
        raise ParseError(
            file,
            "an array of events or an object with a traceEvents array",
            found=f"a JSON {type(data).__name__}",
        )
    if closed:
        warnings.warn(
            UnterminatedTraceWarning(
                f"{file}: the event array is not closed (the run died or is still running); "
                f"read its {len(events)} complete events"
            ),
            stacklevel=4,
        )
    return events, meta, replaced


def _mend_text(calls: pd.DataFrame, replaced: str, file: Path) -> None:
    """Names (and string pids/tids) as text every output can write: lone surrogates
    (``\\ud800`` escapes, no character) replaced with U+FFFD as undecodable bytes already
    were (``replaced`` says where the first was); one warning naming the calls."""
    reasons = [f"bytes that are not UTF-8 (the first at {replaced})"] if replaced else []
    for col in ("name", "pid", "tid"):
        mended, changed = te.mend_surrogates(calls[col].to_numpy())
        if changed:
            calls[col] = mended
            if not reasons or reasons[-1] != _ESCAPES:
                reasons.append(_ESCAPES)
    if not reasons:
        return
    text = calls["name"].astype(str) + calls["pid"].astype(str) + calls["tid"].astype(str)
    hit = calls[text.str.contains("\ufffd", regex=False)]
    shown = ", ".join(f"event {e} {m!r}" for e, m in zip(hit["event"][:5], hit["name"][:5]))
    more = f" and {len(hit) - 5} more" if len(hit) > 5 else ""
    warnings.warn(
        SkippedInputWarning(
            f"{file}: {' and '.join(reasons)} were replaced with U+FFFD"
            + (f"; calls changed: {shown}{more}" if len(hit) else "")
        ),
        stacklevel=3,
    )


_ESCAPES = "escapes of lone surrogates such as \\ud800 (no characters)"


def _parse(text: str, file: Path):
    """JSON of any depth (see ``_deepjson``); a number too long for Python (over 4,300
    digits) is a ParseError."""
    try:
        return _deepjson.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        raise ParseError(
            file, "trace-event JSON with numbers Python can read", found=str(exc)
        ) from None


def _close(text: str) -> str:
    """The text of an unterminated trace with its array (and object) closed."""
    text = re.sub(r",\s*$", "", text.rstrip())
    if text.lstrip().startswith("{"):
        return text + ("" if text.endswith("]") else "]") + "}"
    return text + "]"


def _plain(meta: dict, file: Path) -> dict:
    """Adiak metadata as flat scalars (nested objects such as walltime as JSON text); a
    value nested deeper than JSON text is written (about 1,000 levels) is a ParseError.
    Lone surrogates in keys and text become U+FFFD, as in names (one warning)."""
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
                "otherData values nested at most about 1,000 levels",
                position=f"otherData key {k!r}",
                found=v,
            ) from None
    keys, keys_changed = te.mend_surrogates(np.array(list(out), dtype=object))
    values, values_changed = te.mend_surrogates(np.array(list(out.values()), dtype=object))
    if keys_changed or values_changed:
        warnings.warn(
            SkippedInputWarning(f"{file}: in otherData, {_ESCAPES} were replaced with U+FFFD"),
            stacklevel=4,
        )
    return dict(zip(keys.tolist(), values.tolist()))


# ---------------------------------------------------------------------- events -> calls
def _calls(events: list, file: Path, scan_cpu_mem: bool) -> pd.DataFrame:
    """One row per call (see :func:`._trace_events.calls`), with the usage columns."""
    if not all(isinstance(e, dict) for e in events):
        k = next(i for i, e in enumerate(events) if not isinstance(e, dict))
        raise ParseError(
            file, "trace events as JSON objects", position=f"event {k}", found=events[k]
        )
    out = te.calls(events, file)
    if scan_cpu_mem:
        counters = np.flatnonzero(te.phases(events) == "C")
        ts = te.times(te.column(events, "ts"), counters, events, "ts", file)
        _usage(out, ts, te.column(events, "args")[counters], file)
    return out


def _usage(calls: pd.DataFrame, ts: np.ndarray, args: np.ndarray, file: Path) -> None:
    """Hatchet's ``scan_cpu_mem``: usage from the non-zero counter event at each call's
    start (the last one of a timestamp wins), 0 where there is none or it is not a number."""
    if not len(ts):
        raise ParseError(file, "counter events (ph 'C') for scan_cpu_mem", found="none")

    def counter(key: str) -> pd.Series:
        values = (a.get(key) if isinstance(a, dict) else None for a in args)
        kept = [v if type(v) is int or type(v) is float else te.number(v) for v in values]
        return pd.Series(kept, dtype=object).infer_objects().fillna(0)

    usage = pd.DataFrame(
        {
            "ts": ts,
            "memory": counter("memory_usage").to_numpy(),
            "cpu": counter("cpu_usage").to_numpy(),
        }
    )
    usage = usage[(usage["memory"] != 0) | (usage["cpu"] != 0)].drop_duplicates("ts", keep="last")
    at = usage.set_index("ts").reindex(calls["ts_us"].to_numpy())
    calls["usage_memory"] = at["memory"].fillna(0).to_numpy()
    calls["usage_cpu"] = at["cpu"].fillna(0).to_numpy()


# ---------------------------------------------------------------------- GraphFrames
def _exclusive(parent: np.ndarray, inclusive: np.ndarray) -> np.ndarray:
    """Each call's time minus its callees' (the time it spent in its own code)."""
    callees = np.zeros(len(inclusive))
    has = parent >= 0
    np.add.at(callees, parent[has], inclusive[has])
    return inclusive - callees


def _per_call(calls, parent, ranks, scan_cpu_mem, metadata, path):
    """Hatchet's form: one node per call; ``dur`` inclusive, ``dur (exc)`` exclusive, ``ts``
    a column (a point in time is no amount: never a metric)."""
    ts, dur = calls["ts_us"].to_numpy() * 1e-6, calls["dur_us"].to_numpy() * 1e-6
    frames = {
        "name": calls["name"].to_numpy(),
        "type": np.full(len(calls), "function", object),
        "ts": ts,
        "dur": dur,
    }
    data = {
        "name": calls["name"].to_numpy(),
        "ts": ts,
        "dur": dur,
        "dur (exc)": _exclusive(parent, dur),
        "pid": calls["pid"].to_numpy(),
        "tid": calls["tid"].to_numpy(),
        "ph": calls["ph"].to_numpy(),
    }
    if scan_cpu_mem:
        for col in ("usage_memory", "usage_cpu"):
            frames[col] = data[col] = calls[col].to_numpy()
    table = pd.DataFrame(data)
    table["node"] = np.arange(len(calls))
    if ranks:
        table["rank"] = calls["rank"].to_numpy()
    exc = ["dur (exc)"] + (["usage_memory", "usage_cpu"] if scan_cpu_mem else [])
    return build_graphframe(
        pd.DataFrame(frames),
        table,
        parent=parent,
        exc_metrics=exc,
        inc_metrics=["dur"],
        default_metric="dur",
        metadata=metadata,
        path=path,
        units={"dur": "s", "dur (exc)": "s", "ts": "s"},
    )


def _merged(calls, parent, level, ranks, metadata, path):
    """One node per call path: calls, inclusive and exclusive seconds per (node[, rank])."""
    n = len(calls)
    name_code, _ = pd.factorize(calls["name"])
    path_id = merge_groups(parent, level, name_code)  # the calls of one path: one node
    first = np.unique(path_id, return_index=True)[1]  # a call of each node
    node_parent = np.where(parent[first] >= 0, path_id[np.maximum(parent[first], 0)], -1)
    dur = calls["dur_us"].to_numpy() * 1e-6
    exclusive = _exclusive(parent, dur)
    rank = calls["rank"].to_numpy() if ranks else np.zeros(n, np.int64)
    rows = pd.DataFrame(
        {"node": path_id, "rank": rank, "time (inc)": dur, "time": exclusive, "calls": 1}
    )
    table = (
        rows.groupby(["node", "rank"], sort=False)
        .agg({"time (inc)": "sum", "time": "sum", "calls": "sum"})
        .reset_index()
    )
    if not ranks:
        table = table.drop(columns="rank")
    frames = pd.DataFrame({"name": calls["name"].to_numpy()[first], "type": "function"})
    return build_graphframe(
        frames,
        table,
        parent=node_parent,
        exc_metrics=["time", "calls"],
        inc_metrics=["time (inc)"],
        default_metric="time (inc)",
        metadata=metadata,
        path=path,
        units={"time": "s"},
    )
