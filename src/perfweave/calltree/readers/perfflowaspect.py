"""PerfFlowAspect traces (``.pfw``): Chrome trace-event JSON, one event per call.

PerfFlowAspect writes a bare array of events or an object with ``traceEvents`` (and the
Adiak metadata in ``otherData``); calls are complete ``X`` events (compact logging) or
``B``/``E`` pairs (verbose logging); counter events (``C``) carry CPU and memory usage.
A file left by a run that died ends inside its array: it is closed, read, and an
:class:`~perfweave.errors.UnterminatedTraceWarning` says so.

By default the result is Hatchet's ``from_perfflowaspect``: one node per call, frames
``{name, type: "function", ts, dur}``, a call's parent the innermost call on the same
pid/tid whose interval strictly contains it, columns ``name``, ``ts``, ``dur`` (seconds),
``pid``, ``tid``, ``ph``. ``merge_calls=True`` merges the calls of one call path into one
node with ``calls``, ``time (inc)`` and ``time`` (exclusive) instead: the calltree form.
Several files of one run (a directory or a list of paths, one file per rank) read into
one frame with a ``rank`` level (files in name order). Events are columns; nesting is
found one depth level at a time with running maxima, never per event in Python.
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
from perfweave.calltree.readers._common import read_text
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
        events, meta = _load(file)
        table = _calls(events, file, scan_cpu_mem)
        table["rank"] = rank
        tables.append(table)
        metadata = metadata or meta
    calls = pd.concat(tables, ignore_index=True) if len(tables) > 1 else tables[0]
    if not len(calls):
        raise ParseError(files[0], "at least one complete call (X event or B/E pair)", found="none")
    thread = pd.factorize(pd.MultiIndex.from_arrays([calls["rank"], calls["pid"], calls["tid"]]))[0]
    parent, level = nest(thread, calls["ts_us"].to_numpy(), calls["end_us"].to_numpy())
    meta_out = {"perfflowaspect": [str(f) for f in files], **_plain(metadata)}
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


def _load(file: Path) -> tuple[list, dict]:
    """Events and ``otherData`` of one trace; an unterminated array is closed (warning)."""
    text = read_text(file, "PerfFlowAspect trace")
    try:
        data = _parse(text, file)
    except json.JSONDecodeError as exc:
        repaired = _close(text)
        try:
            data = _parse(repaired, file)
        except json.JSONDecodeError:
            raise ParseError(
                file,
                "trace-event JSON (an array of events or an object with traceEvents)",
                line=exc.lineno,
                position=f"column {exc.colno}",
                found=exc.msg,
            ) from exc
        n = len(data["traceEvents"] if isinstance(data, dict) else data)
        warnings.warn(
            UnterminatedTraceWarning(
                f"{file}: the event array is not closed (the run died or is still running); "
                f"read its {n} complete events"
            ),
            stacklevel=4,
        )
    if isinstance(data, dict) and isinstance(data.get("traceEvents"), list):
        other = data.get("otherData", {})
        return data["traceEvents"], other if isinstance(other, dict) else {"otherData": other}
    if isinstance(data, list):
        return data, {}
    raise ParseError(
        file,
        "an array of events or an object with a traceEvents array",
        found=f"a JSON {type(data).__name__}",
    )


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


def _plain(meta: dict) -> dict:
    """Adiak metadata as flat scalars (nested objects such as walltime as JSON text)."""
    return {
        str(k): v if isinstance(v, (str, int, float, bool)) or v is None else json.dumps(v)
        for k, v in meta.items()
    }


# ---------------------------------------------------------------------- events -> calls
_COLUMNS = ("name", "ph", "ts", "dur", "pid", "tid")


def _calls(events: list, file: Path, scan_cpu_mem: bool) -> pd.DataFrame:
    """One row per complete call: name, ts/dur/end (microseconds), pid, tid, ph."""
    if not all(isinstance(e, dict) for e in events):
        k = next(i for i, e in enumerate(events) if not isinstance(e, dict))
        raise ParseError(
            file, "trace events as JSON objects", position=f"event {k}", found=events[k]
        )
    df = (
        pd.DataFrame.from_records(events, columns=[*_COLUMNS, "args"])
        if events
        else pd.DataFrame(columns=[*_COLUMNS, "args"])
    )
    df["order"] = np.arange(len(df))
    ph = df["ph"].astype(object)
    for col in ("ts", "dur"):
        df[col] = _numbers(
            df[col], file, col, need=ph.isin(["X", "B", "E", "C"]) if col == "ts" else ph.eq("X")
        )
    counters = df[ph.eq("C")]
    x = df[ph.eq("X")]
    be = df[ph.isin(["B", "E"])]
    if len(be):
        x = pd.concat([x, _pairs(be, file)], ignore_index=True).sort_values("order", kind="stable")
    x = x.reset_index(drop=True)
    missing = x[["name", "pid", "tid"]].isna().any(axis=1)
    if missing.any():
        k = int(x.loc[missing, "order"].iloc[0])
        raise ParseError(
            file, "name, pid and tid on every call event", position=f"event {k}", found=events[k]
        )
    bad_dur = x["dur"] < 0
    if bad_dur.any():
        k = int(x.loc[bad_dur, "order"].iloc[0])
        raise ParseError(file, "a duration of at least 0", position=f"event {k}", found=events[k])
    out = pd.DataFrame(
        {
            "name": x["name"].astype(str).to_numpy(dtype=object),
            "ts_us": x["ts"].to_numpy(np.float64),
            "dur_us": x["dur"].to_numpy(np.float64),
            "pid": x["pid"].to_numpy(),
            "tid": x["tid"].to_numpy(),
            "ph": x["ph"].astype(str).to_numpy(dtype=object),
        }
    )
    out["end_us"] = out["ts_us"] + out["dur_us"]
    if scan_cpu_mem:
        _usage(out, counters, file)
    return out


def _numbers(col: pd.Series, file: Path, what: str, need: pd.Series) -> pd.Series:
    values = pd.to_numeric(col, errors="coerce")
    bad = need.to_numpy() & ~np.isfinite(values.to_numpy(np.float64, na_value=np.nan))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ParseError(file, f"a number as {what!r}", position=f"event {k}", found=col.iloc[k])
    return values


def _pairs(be: pd.DataFrame, file: Path) -> pd.DataFrame:
    """Complete calls from B/E events: on each pid/tid, an E closes the latest open B
    (matched by nesting depth, all at once). Unmatched events are skipped (warning)."""
    thread = pd.factorize(pd.MultiIndex.from_arrays([be["pid"], be["tid"]]))[0]
    begin = be["ph"].eq("B").to_numpy()
    step = np.where(begin, 1, -1)
    after = pd.Series(step).groupby(thread).cumsum().to_numpy()
    depth = np.where(begin, after - 1, after)  # a B and its E share a depth
    order = np.lexsort((np.arange(len(be)), depth, thread))
    b_sorted = begin[order]
    same = np.r_[
        (thread[order][1:] == thread[order][:-1]) & (depth[order][1:] == depth[order][:-1]), False
    ]
    opens = b_sorted & np.r_[~b_sorted[1:], False] & same
    first, last = order[opens], order[np.flatnonzero(opens) + 1]
    skipped = len(be) - 2 * len(first)
    if skipped:
        warnings.warn(
            SkippedInputWarning(f"{file}: skipped {skipped} B/E events without their partner"),
            stacklevel=5,
        )
    starts, ends = be.iloc[first], be.iloc[last]
    out = starts.copy()
    out["dur"] = ends["ts"].to_numpy() - starts["ts"].to_numpy()
    out["ph"] = "X"
    out["order"] = ends["order"].to_numpy()  # written when the call returns, as X events are
    return out


def _usage(calls: pd.DataFrame, counters: pd.DataFrame, file: Path) -> None:
    """Hatchet's ``scan_cpu_mem``: usage from the non-zero counter event at each call's
    start (the last one of a timestamp wins), 0 where there is none."""
    if not len(counters):
        raise ParseError(file, "counter events (ph 'C') for scan_cpu_mem", found="none")
    args = counters["args"].apply(lambda a: a if isinstance(a, dict) else {})
    usage = pd.DataFrame(
        {
            "ts": counters["ts"].to_numpy(np.float64),
            "memory": pd.to_numeric(args.str.get("memory_usage"), errors="coerce")
            .fillna(0)
            .to_numpy(),
            "cpu": pd.to_numeric(args.str.get("cpu_usage"), errors="coerce").fillna(0).to_numpy(),
        }
    )
    usage = usage[(usage["memory"] != 0) | (usage["cpu"] != 0)].drop_duplicates("ts", keep="last")
    at = usage.set_index("ts").reindex(calls["ts_us"].to_numpy())
    calls["usage_memory"] = at["memory"].fillna(0).to_numpy()
    calls["usage_cpu"] = at["cpu"].fillna(0).to_numpy()


# ---------------------------------------------------------------------- nesting
def nest(thread: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parent (index, -1 for none) and depth of each interval: the innermost interval of
    the same thread that strictly contains it (starts before, ends after).

    Intervals are sorted by (thread, start, longest first); each round takes those no
    earlier remaining interval contains (a running maximum of the ends, taken up to the
    previous start) as the next depth level, and gives each the last interval of the
    level above it. Rounds: the depth of the deepest call.
    """
    n = len(start)
    parent = np.full(n, -1, np.int64)
    level = np.zeros(n, np.int64)
    if not n:
        return parent, level
    order = np.lexsort((-end, start, thread))
    th, s, e = thread[order], start[order], end[order]
    end_rank = np.unique(e, return_inverse=True)[1].reshape(-1).astype(np.int64)
    base = th.astype(np.int64) * (n + 1)
    active = np.arange(n)
    above = np.zeros(0, np.int64)  # sorted positions of the level above
    depth = 0
    while len(active):
        a_th, a_s = th[active], s[active]
        key = base[active] + end_rank[active] + 1
        running = np.maximum.accumulate(key)
        # first index of each run of equal (thread, start): compare with what came before it
        new_group = np.r_[True, (a_th[1:] != a_th[:-1]) | (a_s[1:] != a_s[:-1])]
        group_first = np.maximum.accumulate(np.where(new_group, np.arange(len(active)), 0))
        prev = group_first - 1
        before = np.where(prev >= 0, running[np.maximum(prev, 0)], 0) - base[active]
        contained = before > end_rank[active] + 1
        here = active[~contained]
        level[order[here]] = depth
        if depth and len(here):
            k = np.searchsorted(above, here) - 1
            cand = above[np.maximum(k, 0)]
            ok = (k >= 0) & (th[cand] == th[here]) & (s[cand] < s[here]) & (e[cand] > e[here])
            parent[order[here[ok]]] = order[cand[ok]]
        above = here
        active = active[contained]
        depth += 1
    return parent, level


# ---------------------------------------------------------------------- GraphFrames
def _per_call(calls, parent, ranks, scan_cpu_mem, metadata, path):
    """Hatchet's form: one node per call."""
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
    exc = ["dur", "ts"] + (["usage_memory", "usage_cpu"] if scan_cpu_mem else [])
    return build_graphframe(
        pd.DataFrame(frames),
        table,
        parent=parent,
        exc_metrics=exc,
        default_metric="dur",
        metadata=metadata,
        path=path,
        units={"dur": "s", "ts": "s"},
    )


def _merged(calls, parent, level, ranks, metadata, path):
    """One node per call path: calls, inclusive and exclusive seconds per (node[, rank])."""
    n = len(calls)
    name_code, _ = pd.factorize(calls["name"])
    path_id = merge_groups(parent, level, name_code)  # the calls of one path: one node
    first = np.unique(path_id, return_index=True)[1]  # a call of each node
    node_parent = np.where(parent[first] >= 0, path_id[np.maximum(parent[first], 0)], -1)
    dur = calls["dur_us"].to_numpy() * 1e-6
    child_time = np.zeros(n)
    has = parent >= 0
    np.add.at(child_time, parent[has], dur[has])
    exclusive = dur - child_time
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
