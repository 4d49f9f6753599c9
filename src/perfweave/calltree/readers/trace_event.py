"""Chrome trace-event JSON from any producer, as a calltree per process and thread.

Chrome's tracing, PyTorch's profiler (``export_chrome_trace``), Perfetto's JSON export,
PerfFlowAspect and speedscope's test traces write the Trace Event Format: a JSON array of
events, or an object with ``traceEvents`` (and other keys, kept as metadata). Which events
make calls and how ``B``/``E`` pairs match is :mod:`._trace_events` (speedscope's rules);
reading the JSON fast is :mod:`._trace_json`.

* **Frames** ``{name, type: "function"}``; with ``split_args=True`` also ``args`` (the
  begin event's args as JSON text), so calls of one name with other args are other
  frames, as in speedscope (PyTorch and Chrome put per-call ids in args: every call its
  own frame).
* **Nodes** are call paths: the calls of one thread nest by their times (an ``X`` lasts
  its ``dur``; ``B``/``E`` pairs as paired), with speedscope's order where times are
  equal, and calls with the same path of frames are one node.
* **Rows** per ``rank`` and ``thread``: the event's ``pid`` and ``tid`` (a string holding
  an integer read as it); ids that are text (PyTorch's ``"CPU functions"``, ``"stream
  7"``) are numbered after the largest integer id (from 0), in order of appearance. ``process_name`` and
  ``thread_name`` name them: the names of the ``M`` events (``process_name``,
  ``thread_name``), else the ids as text. A GPU's kernels run on streams: each stream is
  a thread of the GPU's process.
* **Metrics**: ``time (inc)`` (seconds: the calls' durations summed), ``time`` (exclusive:
  minus their callees') and ``calls``. ``ts`` is no metric.
* **Sampled stacks**: a document with ``samples`` and ``stackFrames`` is read from its
  samples (:mod:`._trace_samples`): ``time`` / ``samples`` and their inclusive columns.
* **Metadata**: the document's keys other than the events (nested values as JSON text),
  ``trace_event_file``, and ``events_not_calls``: how many events of each other phase the
  file holds (JSON text: ``M`` metadata, ``C`` counters, ``i`` instants, ``b``/``e``/``n``
  async, ``s``/``t``/``f`` flows, ...). Only ``B``, ``E`` and ``X`` make calls: instant
  events have no length, and async and flow events are not on a thread's call stack (they
  overlap freely and may cross threads), so they are counted and left out.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers import _trace_events as te
from perfweave.calltree.readers import _trace_json, _trace_samples
from perfweave.calltree.readers._common import file_ends
from perfweave.errors import ParseError, SkippedInputWarning, UnterminatedTraceWarning

INT = np.int64
#: document keys that hold the trace itself, not metadata
_TRACE_KEYS = ("traceEvents", "samples", "stackFrames")


def sniff(path: Path) -> bool:
    """A JSON array whose first bytes hold ``"ph"`` and ``"ts"``, or a JSON object with
    ``"traceEvents"`` (or events) in its first or last 4 KiB."""
    head, tail = file_ends(path)
    start = head.lstrip()[:1]
    if start == b"[":
        return b'"ph"' in head and b'"ts"' in head
    if start == b"{":
        if b'"traceEvents"' in head or b'"traceEvents"' in tail:
            return True
        return b'"ph"' in tail and b'"ts"' in tail and b'"$schema"' not in head
    return False


def read(path: str | Path, split_args: bool = False, **_: Any):
    """Read a trace-event JSON file into a calltree (see the module docstring).

    ``split_args``: frames by name and args (speedscope's frames), not by name alone.
    """
    with _trace_json.no_cycle_collection():
        return _read(Path(path), split_args)


def _read(file: Path, split_args: bool):
    doc = _trace_json.load(file, "trace-event JSON")
    data = doc.data
    events, rest = _trace_json.split(data, file)
    if doc.closed:
        warnings.warn(
            UnterminatedTraceWarning(
                f"{file}: the event array is not closed (the run died or is still running); "
                f"read its {len(events)} complete events"
            ),
            stacklevel=4,
        )
    ph = te.phases(events, file)
    processes, threads = _names(events, ph)
    metadata = {
        "trace_event_file": str(file),
        **te.plain({k: v for k, v in rest.items() if k not in _TRACE_KEYS}, file, "document"),
        "events_not_calls": json.dumps(te.other_phases(ph)),
    }
    if _trace_samples.is_sampled(data) and data["samples"]:
        return _sampled(data, ph, processes, threads, metadata, file)
    calls = te.calls(events, ph, file, split_args=split_args)
    if not len(calls["name"]):
        raise ParseError(file, "at least one call (an X event or a B event)", found="none")
    if not doc.valid_text:
        te.mend_text(calls, doc.replaced, file, stacklevel=4)
    parent, level = te.nest_calls(calls, "speedscope")
    return _calltree(calls, parent, level, split_args, processes, threads, metadata, file)


def _names(events: list[dict], ph: np.ndarray) -> tuple[dict, dict]:
    """Process names by pid and thread names by (pid, tid), from the ``M`` events (the
    last one of an id wins; ids as :func:`._trace_events.normal_ids` reads them)."""
    processes: dict = {}
    threads: dict = {}
    for k in np.flatnonzero(ph == "M").tolist():
        e = events[k]
        args = e.get("args")
        label = args.get("name") if isinstance(args, dict) else None
        if isinstance(label, bool) or not isinstance(label, (str, int, float)) or label == "":
            continue
        pid, tid = te.normal_ids(np.array([e.get("pid"), e.get("tid")], dtype=object))
        if not _hashable(pid) or not _hashable(tid):
            continue
        if e.get("name") == "process_name":
            processes[pid] = str(label)
        elif e.get("name") == "thread_name":
            threads[(pid, tid)] = str(label)
    return processes, threads


def _hashable(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float))


def _levels(pid: np.ndarray, tid: np.ndarray, processes: dict, threads: dict) -> pd.DataFrame:
    """``rank``, ``thread``, ``process_name`` and ``thread_name`` of each (pid, tid) given
    (one row each)."""
    pid, tid = te.normal_ids(pid), te.normal_ids(tid)
    out = pd.DataFrame({"rank": _level(pid), "thread": _level(tid)})
    out["process_name"] = [processes.get(p, str(p)) for p in pid.tolist()]
    out["thread_name"] = [threads.get((p, t), str(t)) for p, t in zip(pid.tolist(), tid.tolist())]
    return out


def _level(ids: np.ndarray) -> np.ndarray:
    """Integer ids as they are; ids that are text numbered after the largest integer one
    (from 0 where there is none), in order of appearance."""
    if ids.dtype != object:
        return ids.astype(INT)
    is_int = np.fromiter((type(v) is int for v in ids.tolist()), bool, len(ids))
    out = np.zeros(len(ids), INT)
    out[is_int] = ids[is_int].astype(INT)
    start = int(out[is_int].max()) + 1 if is_int.any() else 0
    out[~is_int] = start + pd.factorize(ids[~is_int])[0]
    return out


def _calltree(calls, parent, level, split_args, processes, threads, metadata, file):
    """One node per call path; rows per (node, thread): time (inc), time, calls."""
    frame_cols = [calls["name"]] + ([calls["args"]] if split_args else [])
    path_id = te.call_paths(parent, level, te.codes(*frame_cols))
    n = len(path_id)
    alone = bool(n) and int(path_id[-1]) == n - 1 and bool((path_id == np.arange(n)).all())
    first = np.arange(n) if alone else np.unique(path_id, return_index=True)[1]
    node_parent = np.where(parent[first] >= 0, path_id[np.maximum(parent[first], 0)], -1)
    dur = calls["dur_us"] * 1e-6
    callees = np.zeros(n)
    has = parent >= 0
    np.add.at(callees, parent[has], dur[has])
    # threads numbered 0.. (a thread whose only events closed nothing has no calls here)
    cell_first, thread = np.unique(calls["thread"], return_index=True, return_inverse=True)[1:]
    thread = thread.reshape(-1)
    values = {"time (inc)": dur, "time": dur - callees, "calls": np.ones(n, INT)}
    if alone:  # each call its own node: one row per call
        node, cell = path_id, thread
    else:
        span = int(thread.max()) + 1
        summed = pd.DataFrame(values).groupby(path_id * span + thread, sort=True).sum()
        rows = summed.index.to_numpy(INT)
        node, cell = rows // span, rows % span
        values = {k: summed[k].to_numpy() for k in values}
    cells = _levels(calls["pid"][cell_first], calls["tid"][cell_first], processes, threads)
    table = pd.DataFrame(
        {
            "node": node,
            "rank": cells["rank"].to_numpy()[cell],
            "thread": cells["thread"].to_numpy()[cell],
            **values,
        }
    )
    frames = pd.DataFrame({"name": calls["name"][first], "type": "function"})
    if split_args:
        frames["args"] = calls["args"][first]
    gf = build_graphframe(
        frames,
        table,
        parent=node_parent,
        exc_metrics=["time", "calls"],
        inc_metrics=["time (inc)"],
        default_metric="time (inc)",
        metadata=metadata,
        path=file,
        units={"time": "s", "time (inc)": "s"},
    )
    _name_cells(gf.dataframe, cells)
    return gf


def _name_cells(df: pd.DataFrame, cells: pd.DataFrame) -> None:
    """Add ``process_name`` and ``thread_name`` to the rows of a built frame (after the
    build, which sorts the rows: text columns made it copy and sort twice the data)."""
    index = df.index
    at = pd.MultiIndex.from_arrays([cells["rank"], cells["thread"]]).get_indexer(
        pd.MultiIndex.from_arrays(
            [index.get_level_values("rank"), index.get_level_values("thread")]
        )
    )
    for col in ("process_name", "thread_name"):
        df[col] = cells[col].to_numpy()[at]


def _sampled(doc: dict, ph, processes, threads, metadata, file):
    """The samples variant (see :mod:`._trace_samples`)."""
    n_calls = int(np.isin(ph, te.CALL_PHASES).sum())
    if n_calls:
        warnings.warn(
            SkippedInputWarning(
                f"{file}: read the samples of the file (it has samples and stackFrames, as "
                f"speedscope reads it); its {n_calls} B, E and X events were left out"
            ),
            stacklevel=5,
        )
    frames, node_parent, rows = _trace_samples.sampled_rows(doc, file)
    cells = _levels(rows.pop("pid").to_numpy(), rows.pop("tid").to_numpy(), processes, threads)
    rows["rank"], rows["thread"] = cells["rank"].to_numpy(), cells["thread"].to_numpy()
    gf = build_graphframe(
        frames,
        rows,
        parent=node_parent,
        exc_metrics=["time", "samples"],
        inc_metrics=["time (inc)", "samples (inc)"],
        default_metric="time (inc)",
        metadata=metadata,
        path=file,
        units={"time": "s", "time (inc)": "s"},
    )
    _name_cells(gf.dataframe, cells.drop_duplicates(["rank", "thread"]))
    return gf
