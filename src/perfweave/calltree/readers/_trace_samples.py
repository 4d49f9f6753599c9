"""The ``samples`` + ``stackFrames`` variant of the trace-event format: sampled call stacks.

An object with ``traceEvents``, ``samples`` and ``stackFrames`` (Hermes and Chrome's
sampling profiler write it): ``stackFrames`` maps an id to ``{name, category, parent}``,
each id a call path (its ``parent`` chain, root last); a sample is ``{pid, tid, ts, sf}``,
``sf`` the id of its innermost frame. speedscope reads only the samples of such a file,
and so does this reader: a sample's stack is its ``sf`` frame and that frame's parents
(a chain ends at a ``parent`` that is absent, ``null`` or ``0``, as in speedscope), and it
weighs the time to the next sample of its thread, the last one 0 (samples of a thread in
time order; speedscope takes them in file order, where a sample earlier than the one
before would weigh less than nothing).

A frame is ``{name, type: "function", category}``: frames of one name in two categories
are two frames (speedscope's key is ``name:category``). Stack frames reached by the same
path of frames are one node. Each sample counts exclusively at its innermost frame and
inclusively on every frame of its stack: ``time`` / ``time (inc)`` (seconds) and
``samples`` / ``samples (inc)``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from perfweave.calltree._intervals import depth_of
from perfweave.calltree.readers import _trace_events as te
from perfweave.calltree.readers._stacks import merged_nodes
from perfweave.errors import ParseError

INT = np.int64
#: where a sample is, in an error message
_PLACE = "samples[{}]"


def is_sampled(doc: object) -> bool:
    """Whether a document is the samples variant (speedscope's test: the three keys)."""
    return isinstance(doc, dict) and all(
        k in doc for k in ("traceEvents", "samples", "stackFrames")
    )


def sampled_rows(doc: dict, file: Path):
    """Frames (a DataFrame), each node's parent, and rows ``node, pid, tid, time,
    samples, time (inc), samples (inc)`` (one per node and thread) of the samples."""
    samples, frames = doc["samples"], doc["stackFrames"]
    if not isinstance(samples, list):
        raise ParseError(file, "'samples': a list of samples", found=samples)
    if not isinstance(frames, dict):
        raise ParseError(file, "'stackFrames': an object of frames by id", found=frames)
    ids = list(frames)
    index = {str(k): i for i, k in enumerate(ids)}
    name, category, parent = _frames(frames, ids, index, file)
    at = np.arange(len(samples))
    if not all(isinstance(s, dict) for s in samples):
        k = next(i for i, s in enumerate(samples) if not isinstance(s, dict))
        raise ParseError(
            file, "samples as JSON objects", position=f"samples[{k}]", found=samples[k]
        )
    where = _Where(samples)
    pid = te.ids(_pids(samples, doc["traceEvents"], file), at, where, "pid", file, _PLACE)
    tid = te.ids(te.column(samples, "tid"), at, where, "tid", file, _PLACE)
    ts = te.times(te.column(samples, "ts"), at, where, "ts", file, _PLACE)
    leaf = _leaves(te.column(samples, "sf"), index, samples, file)
    thread = te.codes(te.normal_ids(pid), te.normal_ids(tid))
    # each sample weighs the time to the next sample of its thread (the last: 0)
    order = np.lexsort((ts, thread))
    weight = np.zeros(len(samples))
    same = thread[order][1:] == thread[order][:-1]
    weight[order[:-1][same]] = np.diff(ts[order])[same] * 1e-6
    # frames reached by one path of (name, category): one node
    depth = depth_of(parent)
    frame_code = te.codes(name, category)
    node_of, first, node_parent = merged_nodes(parent, depth, frame_code)
    table = pd.DataFrame({"name": name[first], "type": "function", "category": category[first]})
    has = leaf >= 0  # a sample whose stack is empty belongs to no frame
    cell_code, _ = pd.factorize(thread[has])
    rows = _stack_rows(node_parent, node_of[leaf[has]], cell_code, weight[has])
    cell_first = np.unique(cell_code, return_index=True)[1]
    cell_pid, cell_tid = pid[has][cell_first], tid[has][cell_first]
    rows["pid"] = cell_pid[rows["cell"].to_numpy()]
    rows["tid"] = cell_tid[rows["cell"].to_numpy()]
    return table, node_parent, rows.drop(columns="cell")


def _pids(samples: list[dict], events: list[dict], file: Path) -> np.ndarray:
    """Each sample's ``pid``. The format's own example of a sample names only its ``tid``
    (``{"cpu": 0, "tid": 1, "ts": 1000.0, "name": "cycles:HG", "sf": 3}``): a sample
    without one belongs to the process whose events run its thread, else to process 0
    (one process). A thread the events run in two processes is a ParseError."""
    pid = te.column(samples, "pid")
    lacking = np.flatnonzero(np.equal(pid, None))
    if not len(lacking):
        return pid
    tid = te.column(samples, "tid")[lacking]
    named = _ids_ok(tid)  # a sample whose tid is no id: its own ParseError follows
    thread = te.normal_ids(tid[named])
    owners = _processes_of_threads(events)
    several = np.isin(thread, [t for t, ps in owners.items() if len(ps) > 1])
    if several.any():
        at = int(np.argmax(several))
        k, t = int(lacking[named][at]), thread[at]
        raise ParseError(
            file,
            f"a 'pid': tid {t} runs in processes {', '.join(map(str, owners[t]))} in traceEvents",
            position=_PLACE.format(k),
            found=samples[k],
        )
    pid[lacking] = 0
    pid[lacking[named]] = [owners.get(t, [0])[0] for t in thread.tolist()]
    return pid


def _processes_of_threads(events: list[dict]) -> dict:
    """tid -> the processes whose events run that thread (in order of appearance); ids as
    :func:`._trace_events.normal_ids` reads them."""
    e_pid, e_tid = te.column(events, "pid"), te.column(events, "tid")
    ok = _ids_ok(e_pid) & _ids_ok(e_tid)
    pairs = pd.DataFrame(
        {"tid": te.normal_ids(e_tid[ok]), "pid": te.normal_ids(e_pid[ok])}, dtype=object
    ).drop_duplicates()
    return pairs.groupby("tid", sort=False)["pid"].agg(list).to_dict()


def _ids_ok(values: np.ndarray) -> np.ndarray:
    """Where a value is an id (an integer or a string)."""
    return np.fromiter(
        (type(v) is int or type(v) is str for v in values), dtype=bool, count=len(values)
    )


class _Where:
    """Samples seen as events for the error messages of :mod:`._trace_events`."""

    def __init__(self, samples: list[dict]) -> None:
        self.samples = samples

    def __getitem__(self, k: int) -> dict:
        return self.samples[k]


def _frames(frames: dict, ids: list, index: dict, file: Path):
    """Name, category and parent index (-1 at a root) of each stack frame."""
    n = len(ids)
    name = np.empty(n, object)
    category = np.empty(n, object)
    parent = np.full(n, -1, INT)
    for i, k in enumerate(ids):
        f = frames[k]
        if not isinstance(f, dict):
            raise ParseError(file, "a stack frame object", position=f"stackFrames[{k!r}]", found=f)
        nm, cat, up = f.get("name"), f.get("category", ""), f.get("parent")
        if not isinstance(nm, str) or not isinstance(cat, str):
            raise ParseError(
                file,
                "a string as the frame's name and category",
                position=f"stackFrames[{k!r}]",
                found=f,
            )
        name[i], category[i] = nm, cat
        if up is None or (up == 0 and not isinstance(up, bool)) or up == "":  # JS's falsy
            continue
        if not isinstance(up, (int, str)) or isinstance(up, bool) or str(up) not in index:
            raise ParseError(
                file,
                "a parent that is the id of a stack frame",
                position=f"stackFrames[{k!r}]",
                found=up,
            )
        parent[i] = index[str(up)]
    _no_cycles(parent, ids, file)
    return name, category, parent


def _no_cycles(parent: np.ndarray, ids: list, file: Path) -> None:
    """ParseError naming a frame whose parent chain never reaches a root."""
    jump, live = parent.copy(), np.flatnonzero(parent >= 0)
    for _ in range(int(np.ceil(np.log2(len(parent) + 1))) + 1):
        if not len(live):
            return
        jump[live] = jump[jump[live]]
        live = live[jump[live] >= 0]
    if len(live):
        raise ParseError(
            file,
            "stack frames whose parent chains reach a root",
            position=f"stackFrames[{ids[int(live[0])]!r}]",
            found="a parent chain that comes back to itself",
        )


def _leaves(sf: np.ndarray, index: dict, samples: list, file: Path) -> np.ndarray:
    """The stack frame of each sample (-1 for an empty stack: ``sf`` absent, null or 0)."""
    out = np.full(len(sf), -1, INT)
    for k, v in enumerate(sf.tolist()):
        if v is None or (v == 0 and not isinstance(v, bool)) or v == "":
            continue
        ok = isinstance(v, (int, str)) and not isinstance(v, bool)
        i = index.get(str(v)) if ok else None
        if i is None:
            raise ParseError(
                file, "'sf': the id of a stack frame", position=f"samples[{k}]", found=samples[k]
            )
        out[k] = i
    return out


def _stack_rows(
    node_parent: np.ndarray, leaf: np.ndarray, cell: np.ndarray, weight: np.ndarray
) -> pd.DataFrame:
    """Rows per (node, cell): exclusive sums at each sample's leaf, inclusive sums on every
    node of its stack (each node of a stack is another call path: counted once)."""
    leaf_rows = (
        pd.DataFrame({"node": leaf, "cell": cell, "time": weight, "samples": 1})
        .groupby(["node", "cell"], sort=False, as_index=False)
        .sum()
    )
    nodes, cells = [], []
    t, s = [], []
    at = leaf_rows["node"].to_numpy()
    c = leaf_rows["cell"].to_numpy()
    w, k = leaf_rows["time"].to_numpy(), leaf_rows["samples"].to_numpy()
    while len(at):  # each leaf's (node, cell) sums, carried up its stack
        nodes.append(at)
        cells.append(c)
        t.append(w)
        s.append(k)
        up = node_parent[at]
        keep = up >= 0
        at, c, w, k = up[keep], c[keep], w[keep], k[keep]
    inc = (
        pd.DataFrame(
            {
                "node": np.concatenate(nodes),
                "cell": np.concatenate(cells),
                "time (inc)": np.concatenate(t),
                "samples (inc)": np.concatenate(s),
            }
        )
        .groupby(["node", "cell"], as_index=False)
        .sum()
    )
    out = inc.merge(leaf_rows, on=["node", "cell"], how="left")
    out["time"] = out["time"].fillna(0.0)
    out["samples"] = out["samples"].fillna(0).astype(INT)
    return out
