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
``rank`` level (files in name order). Which events make calls, how B/E pairs match (in
time order, by speedscope's rules) and how calls nest (with Hatchet's ties) is
:mod:`._trace_events`, shared with the general trace-event reader (:mod:`.trace_event`,
which reads any producer's trace as a calltree per process and thread). Bytes that are not UTF-8 are replaced with U+FFFD and an
:class:`~perfweave.errors.SkippedInputWarning` names the calls whose names changed.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers import _trace_events as te
from perfweave.calltree.readers import _trace_json
from perfweave.errors import ParseError, UnterminatedTraceWarning

_SUFFIX = ".pfw"


def sniff(path: Path) -> bool:
    """A ``.pfw`` file, or a directory holding some (other trace-event JSON is read by the
    general trace-event reader, :mod:`.trace_event`)."""
    if path.is_dir():
        return any(path.glob(f"*{_SUFFIX}"))
    return path.is_file() and path.suffix == _SUFFIX


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
    with _trace_json.no_cycle_collection():
        return _read(_files(path), merge_calls, scan_cpu_mem)


def _read(files: list[Path], merge_calls: bool, scan_cpu_mem: bool):
    tables, metadata = [], {}
    for rank, file in enumerate(files):
        events, meta, doc = _load(file)
        ph = te.phases(events, file)
        table = te.calls(events, ph, file)
        if scan_cpu_mem:
            _usage(table, events, ph, file)
        if not doc.valid_text:
            te.mend_text(table, doc.replaced, file, stacklevel=4)
        table["rank"] = np.full(len(table["name"]), rank, np.int64)
        tables.append(table)
        metadata = metadata or te.plain(meta, file, "otherData")
    if len(tables) == 1:
        calls = tables[0]
    else:
        calls = {k: np.concatenate([t[k] for t in tables]) for k in tables[0]}
    if not len(calls["name"]):
        raise ParseError(files[0], "at least one complete call (X event or B/E pair)", found="none")
    if len(tables) > 1:  # threads of different files are different threads
        calls["thread"] = te.codes(calls["rank"], calls["thread"])
    parent, level = te.nest_calls(calls, "hatchet")
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


def _load(file: Path) -> tuple[list, dict, _trace_json.Document]:
    """Events and ``otherData`` of one trace, and the parsed document (whether its text
    needs mending); an unterminated array is closed (warning)."""
    doc = _trace_json.load(file, "PerfFlowAspect trace")
    data, closed = doc.data, doc.closed
    events, rest = _trace_json.split(data, file)
    other = rest.get("otherData", {})
    meta = other if isinstance(other, dict) else {"otherData": other}
    if closed:
        warnings.warn(
            UnterminatedTraceWarning(
                f"{file}: the event array is not closed (the run died or is still running); "
                f"read its {len(events)} complete events"
            ),
            stacklevel=5,
        )
    return events, meta, doc


# ---------------------------------------------------------------------- counters
def _usage(calls: dict[str, np.ndarray], events: list[dict], ph: np.ndarray, file: Path) -> None:
    """Hatchet's ``scan_cpu_mem``: usage from the non-zero counter event at each call's
    start (the last one of a timestamp wins), 0 where there is none or it is not a number."""
    counters = np.flatnonzero(ph == "C")
    ts = te.times(te.column_at(events, "ts", counters), counters, events, "ts", file)
    args = te.column_at(events, "args", counters)
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
    at = usage.set_index("ts").reindex(calls["ts_us"])
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
    n = len(calls["name"])
    ts, dur = calls["ts_us"] * 1e-6, calls["dur_us"] * 1e-6
    frames = {
        "name": calls["name"],
        "type": np.full(n, "function", object),
        "ts": ts,
        "dur": dur,
    }
    data = {
        "name": calls["name"],
        "ts": ts,
        "dur": dur,
        "dur (exc)": _exclusive(parent, dur),
        "pid": calls["pid"],
        "tid": calls["tid"],
        "ph": np.full(n, "X", object),
    }
    if scan_cpu_mem:
        for col in ("usage_memory", "usage_cpu"):
            frames[col] = data[col] = calls[col]
    data["node"] = np.arange(n)
    if ranks:
        data["rank"] = calls["rank"]
    table = pd.DataFrame(data)
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
    n = len(calls["name"])
    name_code, _ = pd.factorize(calls["name"])
    path_id = te.call_paths(parent, level, name_code)  # the calls of one path: one node
    first = np.unique(path_id, return_index=True)[1]  # a call of each node
    node_parent = np.where(parent[first] >= 0, path_id[np.maximum(parent[first], 0)], -1)
    dur = calls["dur_us"] * 1e-6
    exclusive = _exclusive(parent, dur)
    rank = calls["rank"] if ranks else np.zeros(n, np.int64)
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
    frames = pd.DataFrame({"name": calls["name"][first], "type": "function"})
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
