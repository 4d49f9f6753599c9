"""Chrome trace-event JSON from any producer (format ``trace-event``): speedscope's sample
traces read by the rules its importer follows (docs/calltree-readers.md, "B/E pairs follow speedscope's import"), PyTorch-
and Perfetto-shaped traces, metadata events, sampled stacks, and the B/E pairing in time
order checked against the rules written out plainly.

Expected values are worked out by hand from the small files (times in microseconds)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave
from perfweave.calltree.readers import available_formats, detect
from perfweave.errors import (
    IncompleteInputWarning,
    ParseError,
    SkippedInputWarning,
    UnterminatedTraceWarning,
)

SPEEDSCOPE = Path(__file__).resolve().parents[2] / "data" / "speedscope-trace-event"
PFW = Path(__file__).resolve().parents[2] / "data" / "hatchet-more" / "perfflowaspect-smoketests"


def _paths(gf: perfweave.GraphFrame) -> dict[str, tuple[float, float, int]]:
    """Call path ("a;b") -> (inclusive us, exclusive us, calls), summed over threads."""
    names = gf.graph.frames["name"].tolist()

    def path(i: int) -> str:
        out = []
        while i >= 0:
            out.append(names[i])
            i = gf.graph.parent[i]
        return ";".join(reversed(out))

    sums = gf.dataframe.groupby(level="node")[["time (inc)", "time", "calls"]].sum()
    return {
        path(node): (round(r["time (inc)"] * 1e6, 6), round(r["time"] * 1e6, 6), int(r["calls"]))
        for node, r in sums.iterrows()
    }


def _write(tmp_path: Path, doc, name: str = "trace.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


# path -> (inclusive, exclusive, calls), worked out from each file by the documented rules
EXPECTED = {
    # B alpha 0..14 > B beta 1..13 > X gamma 2+5, X epsilon 7 + tdur 4 (no dur)
    "simple.json": {
        "alpha": (14, 2, 1),
        "alpha;beta": (12, 3, 1),
        "alpha;beta;gamma": (5, 5, 1),
        "alpha;beta;epsilon": (4, 4, 1),
    },
    # the object form; an X without a name is "(unnamed)"
    "simple-object.json": {
        "alpha": (14, 2, 1),
        "alpha;beta": (12, 8, 1),
        "alpha;beta;(unnamed)": (4, 4, 1),
    },
    # at one time B events begin before X events (so hold them), and ends go innermost first
    "bex-interaction.json": {
        "A": (2, 0, 1),
        "A;B": (2, 2, 1),
        "D": (2, 0, 1),
        "D;C": (2, 2, 1),
        "F": (2, 1, 1),
        "F;E": (1, 1, 1),
        "G": (2, 1, 1),
        "G;H": (1, 1, 1),
        "J": (2, 1, 1),
        "J;I": (1, 1, 1),
        "K": (2, 1, 1),
        "K;L": (1, 1, 1),
    },
    # equal ts and dur: the one earlier in the file holds the other
    "matching-x.json": {
        "alpha": (10, 8, 1),
        "alpha;beta": (1, 0, 1),
        "alpha;beta;gamma": (1, 1, 1),
        "alpha;gamma": (1, 0, 1),
        "alpha;gamma;beta": (1, 1, 1),
    },
    # equal ts: the longer X holds the shorter, whatever the file order
    "x-events-matching-start.json": {
        "alpha": (20, 12, 1),
        "alpha;beta": (4, 2, 2),
        "alpha;beta;gamma": (2, 2, 2),
        "alpha;gamma": (4, 2, 2),
        "alpha;gamma;beta": (2, 2, 2),
    },
    # calls of no length are kept with their calls (speedscope's flame graph leaves them out)
    "zero-duration-events.json": {
        "A": (10, 10, 1),
        "A;B": (0, 0, 1),
        "A;C": (0, 0, 1),
        "A;D": (0, 0, 1),
    },
    # written B, A, C: by their times A holds B holds C
    "out-of-order.json": {"A": (10, 2, 1), "A;B": (8, 2, 1), "A;B;C": (6, 6, 1)},
    # E A{x:1} at 9 has the top's name (A{x:2}): it closes the top; E A{x:2} at 10 the other
    "unbalanced-args.json": {"A": (10, 2, 1), "A;A": (8, 8, 1)},
    # alpha 0+10 and beta 5+10 overlap: each keeps its own dur; neither holds the other
    "invalid-x-nesting.json": {"alpha": (10, 10, 1), "beta": (10, 10, 1)},
    # Hermes: the bare names
    "simple-hermes.json": {"[root]": (14, 2, 1), "[root];beta": (12, 12, 1)},
}


@pytest.mark.parametrize("file", sorted(EXPECTED))
def test_calltrees_as_the_rules_build_them(file):
    gf = perfweave.read(SPEEDSCOPE / file)
    assert _paths(gf) == {p: (float(i), float(e), c) for p, (i, e, c) in EXPECTED[file].items()}
    assert gf.inc_metrics == ["time (inc)"] and gf.exc_metrics == ["time", "calls"]
    assert gf.unit_of("time") == gf.unit_of("time (inc)") == "s"


def test_trace_event_json_is_detected_and_pfw_stays_perfflowaspect():
    assert "trace-event" in available_formats()
    for path in SPEEDSCOPE.glob("*.json"):
        assert detect(path) == "trace-event", path
    assert detect(PFW / "array_compact.pfw") == "perfflowaspect"
    per_call = perfweave.GraphFrame.from_perfflowaspect(PFW / "array_compact.pfw")
    assert len(per_call.graph) == 12 and per_call.inc_metrics == ["dur"]
    # the same trace, read by the general reader: one node per call path
    tree = perfweave.read(PFW / "array_compact.pfw", format="trace-event")
    assert int(tree.dataframe["calls"].sum()) == 12
    assert tree.dataframe["time (inc)"].sum() == pytest.approx(per_call.dataframe["dur"].sum())


@pytest.mark.parametrize("file", ["simple-partial.json", "simple-partial-whitespace.json"])
def test_a_trace_cut_before_its_closing_bracket_reads(file):
    with pytest.warns(UnterminatedTraceWarning, match="read its 6 complete events"):
        gf = perfweave.read(SPEEDSCOPE / file)
    assert _paths(gf) == {
        p: (float(i), float(e), c) for p, (i, e, c) in EXPECTED["simple.json"].items()
    }


# ------------------------------------------------------------------ odd B/E events
def test_ends_that_close_nothing_are_skipped_and_named():
    """too-many-end-events.json: at 5, E gamma and E delta while beta is on top: skipped."""
    with pytest.warns(SkippedInputWarning, match="skipped 2 E events") as caught:
        gf = perfweave.read(SPEEDSCOPE / "too-many-end-events.json")
    message = str(caught[0].message)
    assert "event 4 'gamma' (the open call is 'beta' (event 1))" in message
    assert "event 5 'delta'" in message
    assert _paths(gf) == {"alpha": (14.0, 2.0, 1), "alpha;beta": (12.0, 12.0, 1)}


def test_calls_never_ended_close_at_their_threads_last_time():
    """only-begin-events.json: A 0, B 1, C 2, no E: closed at 2, nested as they were open;
    mismatched-name.json: B alpha 0, E beta 10 (skipped): alpha closes at 0."""
    with pytest.warns(IncompleteInputWarning, match="3 calls never end"):
        gf = perfweave.read(SPEEDSCOPE / "only-begin-events.json")
    assert _paths(gf) == {"A": (2.0, 1.0, 1), "A;B": (1.0, 1.0, 1), "A;B;C": (0.0, 0.0, 1)}
    with (
        pytest.warns(SkippedInputWarning, match="event 1 'beta'"),
        pytest.warns(IncompleteInputWarning, match="event 0 'alpha'"),
    ):
        gf = perfweave.read(SPEEDSCOPE / "mismatched-name.json")
    assert _paths(gf) == {"alpha": (0.0, 0.0, 1)}


def test_events_pair_in_time_order_not_file_order(tmp_path):
    """E f 10 written first, then B f 0, B f 2, E f 5. In time order the E at 5 ends the
    inner f and the E at 10 the outer one; in file order the first E closed nothing and
    the outer f never ended. Both readers pair so."""
    events = [
        {"name": "f", "ph": "E", "ts": 10, "pid": 1, "tid": 1},
        {"name": "f", "ph": "B", "ts": 0, "pid": 1, "tid": 1},
        {"name": "f", "ph": "B", "ts": 2, "pid": 1, "tid": 1},
        {"name": "f", "ph": "E", "ts": 5, "pid": 1, "tid": 1},
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing skipped, nothing left open
        tree = perfweave.read(_write(tmp_path, events))
        calls = perfweave.read(_write(tmp_path, events, "t.pfw"))
    assert _paths(tree) == {"f": (10.0, 7.0, 1), "f;f": (3.0, 3.0, 1)}
    assert sorted(calls.dataframe["dur"] * 1e6) == pytest.approx([3.0, 10.0])


@pytest.mark.parametrize("form", ["X", "BE"])
def test_back_to_back_calls_of_one_function_stay_two_calls(tmp_path, form):
    """f 0..5 then f 5..8 (one ends in the microsecond the next begins): two calls of 8 us
    in all. speedscope's rule (at one time a begin of the same name goes first) nested the
    second in the first with no time."""
    if form == "X":
        events = [
            {"name": "f", "ph": "X", "ts": 0, "dur": 5, "pid": 1, "tid": 1},
            {"name": "f", "ph": "X", "ts": 5, "dur": 3, "pid": 1, "tid": 1},
        ]
    else:
        events = [
            {"name": "f", "ph": ph, "ts": ts, "pid": 1, "tid": 1}
            for ph, ts in (("B", 0), ("E", 5), ("B", 5), ("E", 8))
        ]
    gf = perfweave.read(_write(tmp_path, events))
    assert _paths(gf) == {"f": (8.0, 8.0, 2)}


@pytest.mark.parametrize("form", ["X", "BE"])
def test_a_callee_ending_with_its_caller_as_written_stays_its_callee(tmp_path, form):
    """p 0..0.3 us holds c at 0.1 lasting 0.2: c ends as p ends, as the file writes them.
    In binary floating point 0.1 + 0.2 is 0.30000000000000004, past 0.3: c read as a second
    root beside p, and p's exclusive time as all of its time."""
    caller = (
        [{"name": "p", "ph": "X", "ts": 0, "dur": 0.3, "pid": 1, "tid": 1}]
        if form == "X"
        else [
            {"name": "p", "ph": "B", "ts": 0, "pid": 1, "tid": 1},
            {"name": "p", "ph": "E", "ts": 0.3, "pid": 1, "tid": 1},
        ]
    )
    callee = {"name": "c", "ph": "X", "ts": 0.1, "dur": 0.2, "pid": 1, "tid": 1}
    gf = perfweave.read(_write(tmp_path, [*caller, callee]))
    assert _paths(gf) == {"p": (0.3, 0.1, 1), "p;c": (0.2, 0.2, 1)}


def test_an_empty_name_is_unnamed_as_a_missing_one(tmp_path):
    """speedscope names a call event whose name is empty ``(unnamed)``, as one without a
    name: one frame, never a blank name in the frame table (it read as '' beside
    '(unnamed)', two frames for one kind of call)."""
    events = [
        {"name": "", "ph": "X", "ts": 0, "dur": 3, "pid": 1, "tid": 1},
        {"ph": "X", "ts": 0.5, "dur": 1, "pid": 1, "tid": 1},
        {"name": "", "ph": "B", "ts": 2, "pid": 1, "tid": 1},
        {"name": "", "ph": "E", "ts": 2.5, "pid": 1, "tid": 1},
    ]
    gf = perfweave.read(_write(tmp_path, events))
    assert _paths(gf) == {
        "(unnamed)": (3.0, 1.5, 1),
        "(unnamed);(unnamed)": (1.5, 1.5, 2),
    }
    assert set(gf.graph.frames["name"]) == {"(unnamed)"}


# ------------------------------------------------------------------ the pairing, property
def _reference_pairs(events):
    """The queues of docs/calltree-readers.md ("B/E pairs follow speedscope's import"), written plainly: per
    thread, begins and ends each in (ts, file) order; the earlier front first; at equal ts
    the end first unless it is the front begin's own end (same key, and the B earlier in
    the file or the E unable to close the top); of the ends at the front's ts, one with the
    top's key, else the top's name, else one without a name, else the front."""
    pairs, never, ignored = set(), set(), set()
    for thread in {e[1] for e in events}:
        mine = [k for k, e in enumerate(events) if e[1] == thread]
        begins = sorted((k for k in mine if events[k][0]), key=lambda k: (events[k][2], k))
        ends = sorted((k for k in mine if not events[k][0]), key=lambda k: (events[k][2], k))
        stack = []

        def key(k):
            name, args = events[k][3], events[k][4]
            return (name or "(unnamed)") + ("" if args is None else f" {args}")

        while begins or ends:
            if begins and ends and events[begins[0]][2] == events[ends[0]][2]:
                b, e = begins[0], ends[0]
                own = key(b) == key(e) and (
                    b < e or not stack or events[e][3] != events[stack[-1]][3]
                )
                take_begin = own
            else:
                take_begin = bool(begins) and (
                    not ends or events[begins[0]][2] < events[ends[0]][2]
                )
            if take_begin:
                stack.append(begins.pop(0))
                continue
            same = [k for k in ends if events[k][2] == events[ends[0]][2]]
            pick = ends[0]
            if stack:
                top = stack[-1]
                by_key = [k for k in same if key(k) == key(top)]
                by_name = [k for k in same if events[k][3] == events[top][3]]
                nameless = [k for k in same if events[k][3] is None]
                pick = (by_key or by_name or nameless or [pick])[0]
            ends.remove(pick)
            if not stack or (
                events[pick][3] is not None and events[pick][3] != events[stack[-1]][3]
            ):
                ignored.add(pick)
            else:
                pairs.add((stack.pop(), pick))
        never.update(stack)
    return pairs, never, ignored


EVENT = st.tuples(
    st.booleans(),  # a begin
    st.integers(0, 1),  # thread
    st.integers(0, 4),  # ts: many equal times
    st.sampled_from(["a", "b", None]),  # name (a begin without one is "(unnamed)")
    st.sampled_from([None, '{"x":1}']),  # args
)


@st.composite
def nested_events(draw):
    """Well-nested B/E calls on one thread (the vectorised path), with equal times."""
    out, stack, t = [], [], 0
    for _ in range(draw(st.integers(0, 12))):
        t += draw(st.integers(0, 2))
        if stack and draw(st.booleans()):
            name = stack.pop()
            out.append((False, 0, t, name, None))
        else:
            name = draw(st.sampled_from(["a", "b"]))
            stack.append(name)
            out.append((True, 0, t, name, None))
    return out


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.lists(EVENT, max_size=14), nested_events()))
def test_pairing_follows_the_queue_rules(events):
    """Pairs, calls never ended and skipped E events are those of the rules run one event
    at a time (the pairing does most threads at once and replays only odd ones)."""
    from perfweave.calltree.readers._trace_pairs import pair

    events = [(b, t, ts, (n or "(unnamed)") if b else n, a) for b, t, ts, n, a in events]
    pairs, never, ignored = _reference_pairs(events)
    n = len(events)
    name = np.empty(n, object)
    name[:] = [e[3] for e in events]

    def key(at):
        return [
            (events[k][3] or "(unnamed)") + ("" if events[k][4] is None else f" {events[k][4]}")
            for k in at
        ]

    got = pair(
        np.array([e[0] for e in events], bool),
        np.array([e[1] for e in events], np.int64),
        np.array([e[2] for e in events], float),
        name,
        key,
        np.arange(n),
    )
    closed = got.end >= 0
    assert set(zip(got.begin[closed].tolist(), got.end[closed].tolist())) == pairs
    assert set(got.begin[~closed].tolist()) == never
    assert {p for p, _ in got.ignored} == ignored


# ------------------------------------------------------------------ producers
def test_processes_and_threads_are_rank_and_thread_levels():
    """multiprocess.json: pids 0-3 with tids 0 and 1, named by process_name/thread_name M
    events (process 2 has no process_name, process 3 no thread_name)."""
    gf = perfweave.read(SPEEDSCOPE / "multiprocess.json")
    df = gf.dataframe.reset_index()
    assert gf.dataframe.index.names == ["node", "rank", "thread"]
    cells = {
        (r["name"], r["rank"], r["thread"]): (r["process_name"], r["thread_name"])
        for _, r in df.iterrows()
    }
    assert cells == {
        ("alpha", 0, 0): ("p0", "p0t0"),
        ("beta", 0, 1): ("p0", "p0t1"),
        ("gamma", 1, 0): ("p1", "p1t0"),
        ("delta", 1, 1): ("p1", "p1t1"),
        ("epsilon", 2, 0): ("2", "p2t0"),
        ("phi", 2, 1): ("2", "p2t1"),
        ("zeta", 3, 0): ("p3", "0"),
        ("eta", 3, 1): ("p3", "1"),
    }
    assert (df["time (inc)"] == 1e-6).all()
    assert json.loads(gf.metadata["events_not_calls"]) == {"M": 9}


def _kineto_trace() -> dict:
    """A trace in the shape torch.profiler's export_chrome_trace writes (Kineto): CPU ops
    as X events on the process's thread, GPU kernels as X events on pid 0 / tid 7 (the
    device and its stream), flow events from launch to kernel, memory instants, M names,
    a span on string ids, and the document keys around traceEvents."""
    cpu = {"pid": 4242, "tid": 4242}
    gpu = {"pid": 0, "tid": 7}
    t0 = 1693318162107400.0

    def x(name, cat, ts, dur, ids, **args):
        return {"ph": "X", "cat": cat, "name": name, **ids, "ts": t0 + ts, "dur": dur, "args": args}

    events = [
        {
            "name": "process_name",
            "ph": "M",
            "ts": t0,
            "pid": 4242,
            "tid": 0,
            "args": {"name": "python3"},
        },
        {
            "name": "process_labels",
            "ph": "M",
            "ts": t0,
            "pid": 0,
            "tid": 0,
            "args": {"labels": "GPU 0"},
        },
        {
            "name": "process_name",
            "ph": "M",
            "ts": t0,
            "pid": 0,
            "tid": 0,
            "args": {"name": "GPU 0"},
        },
        {
            "name": "thread_name",
            "ph": "M",
            "ts": t0,
            "pid": 4242,
            "tid": 4242,
            "args": {"name": "thread 4242 (python3)"},
        },
        {
            "name": "thread_name",
            "ph": "M",
            "ts": t0,
            "pid": 0,
            "tid": 7,
            "args": {"name": "stream 7 "},
        },
        x("ProfilerStep#1", "user_annotation", 0, 100.0, cpu, **{"External id": 1}),
        x("aten::linear", "cpu_op", 10, 60.0, cpu, **{"External id": 2, "Sequence number": 7}),
        x("aten::t", "cpu_op", 12, 8.0, cpu, **{"External id": 3}),
        x("aten::addmm", "cpu_op", 22, 40.0, cpu, **{"External id": 4}),
        x("cudaLaunchKernel", "cuda_runtime", 30, 20.0, cpu, correlation=100),
        x("aten::relu", "cpu_op", 75, 15.0, cpu, **{"External id": 5}),
        x("cudaLaunchKernel", "cuda_runtime", 80, 6.0, cpu, correlation=101),
        x("ampere_sgemm_32x32", "kernel", 52, 30.0, gpu, stream=7, correlation=100),
        x("vectorized_elementwise_kernel", "kernel", 90, 4.5, gpu, stream=7, correlation=101),
        {"ph": "s", "id": 100, **cpu, "ts": t0 + 30, "cat": "ac2g", "name": "ac2g"},
        {"ph": "f", "id": 100, **gpu, "ts": t0 + 52, "cat": "ac2g", "name": "ac2g", "bp": "e"},
        {
            "ph": "i",
            "cat": "cpu_instant_event",
            "s": "t",
            "name": "[memory]",
            **cpu,
            "ts": t0 + 23,
            "args": {"Bytes": 512},
        },
        x("PyTorch Profiler (0)", "Trace", 0, 100.0, {"pid": "Spans", "tid": "PyTorch Profiler"}),
    ]
    return {
        "schemaVersion": 1,
        "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "numSms": 108}],
        "traceEvents": events,
        "traceName": "worker0.pt.trace.json",
    }


def test_pytorch_profiler_trace(tmp_path):
    """CPU ops nest on the process's thread; kernels are calls of the GPU's stream (a thread
    of the GPU); flows and instants are counted, not calls; the string-named span gets a
    process of its own, numbered after the largest pid (and tid)."""
    gf = perfweave.read(_write(tmp_path, _kineto_trace(), "worker0.pt.trace.json"))
    assert _paths(gf) == {
        "ProfilerStep#1": (100.0, 25.0, 1),  # 100 - linear 60 - relu 15
        "ProfilerStep#1;aten::linear": (60.0, 12.0, 1),
        "ProfilerStep#1;aten::linear;aten::t": (8.0, 8.0, 1),
        "ProfilerStep#1;aten::linear;aten::addmm": (40.0, 20.0, 1),
        "ProfilerStep#1;aten::linear;aten::addmm;cudaLaunchKernel": (20.0, 20.0, 1),
        "ProfilerStep#1;aten::relu": (15.0, 9.0, 1),
        "ProfilerStep#1;aten::relu;cudaLaunchKernel": (6.0, 6.0, 1),
        "ampere_sgemm_32x32": (30.0, 30.0, 1),
        "vectorized_elementwise_kernel": (4.5, 4.5, 1),
        "PyTorch Profiler (0)": (100.0, 100.0, 1),
    }
    df = gf.dataframe.reset_index()
    kernels = df[df["name"].str.contains("kernel")]
    assert set(kernels["process_name"]) == {"GPU 0"} and set(kernels["thread_name"]) == {
        "stream 7 "
    }
    assert set(kernels["rank"]) == {0} and set(kernels["thread"]) == {7}
    ops = df[df["name"].str.startswith("aten::")]
    assert set(ops["rank"]) == set(ops["thread"]) == {4242}
    assert set(ops["thread_name"]) == {"thread 4242 (python3)"}
    span = df[df["name"] == "PyTorch Profiler (0)"]
    assert span[["rank", "thread", "process_name", "thread_name"]].values.tolist() == [
        [4243, 4243, "Spans", "PyTorch Profiler"]
    ]
    assert json.loads(gf.metadata["events_not_calls"]) == {"M": 5, "f": 1, "i": 1, "s": 1}
    assert gf.metadata["traceName"] == "worker0.pt.trace.json"
    assert json.loads(gf.metadata["deviceProperties"])[0]["numSms"] == 108
    assert "ts" not in gf.exc_metrics + gf.inc_metrics


def test_pytorch_legacy_export_and_perfetto_json(tmp_path):
    """The autograd profiler's older export names processes "CPU functions" and streams
    "stream 7"; Perfetto's JSON export writes times as strings of digits (precision), its
    counter and async events, and a slice still open at the end as a lone B."""
    legacy = [
        {
            "name": "aten::mm",
            "ph": "X",
            "ts": 10,
            "dur": 5,
            "tid": 1,
            "pid": "CPU functions",
            "args": {},
        },
        {
            "name": "gemm",
            "ph": "X",
            "ts": 12,
            "dur": 3,
            "tid": "stream 7",
            "pid": "CUDA functions",
            "args": {},
        },
    ]
    gf = perfweave.read(_write(tmp_path, legacy))
    df = gf.dataframe.reset_index().set_index("name")
    assert df.loc["aten::mm", ["rank", "thread"]].tolist() == [0, 1]
    assert df.loc["gemm", ["rank", "thread"]].tolist() == [1, 2]
    assert df.loc["gemm", "thread_name"] == "stream 7"
    assert df.loc["gemm", "process_name"] == "CUDA functions"
    perfetto = {
        "traceEvents": [
            {"ph": "M", "name": "thread_name", "pid": 10, "tid": 11, "args": {"name": "main"}},
            {"ph": "X", "name": "frame", "pid": 10, "tid": 11, "ts": "1000000000001", "dur": "16"},
            {"ph": "X", "name": "draw", "pid": 10, "tid": 11, "ts": "1000000000003", "dur": "4"},
            {"ph": "C", "name": "mem", "pid": 10, "ts": "1000000000002", "args": {"value": 3}},
            {
                "ph": "b",
                "name": "load",
                "cat": "net",
                "id2": {"local": "0x1"},
                "pid": 10,
                "tid": 11,
                "ts": "1000000000004",
            },
            {
                "ph": "e",
                "name": "load",
                "cat": "net",
                "id2": {"local": "0x1"},
                "pid": 10,
                "tid": 11,
                "ts": "1000000000030",
            },
            {"ph": "B", "name": "idle", "pid": 10, "tid": 11, "ts": "1000000000020"},
        ],
        "displayTimeUnit": "ns",
    }
    with pytest.warns(IncompleteInputWarning, match="1 calls never end.*event 6 'idle'"):
        gf = perfweave.read(_write(tmp_path, perfetto, "perfetto.json"))
    # idle closes at the last time a call of its thread began or ended: 1000000000020 itself
    assert _paths(gf) == {
        "frame": (16.0, 12.0, 1),
        "frame;draw": (4.0, 4.0, 1),
        "idle": (0.0, 0.0, 1),
    }
    assert set(gf.dataframe["thread_name"]) == {"main"}
    assert json.loads(gf.metadata["events_not_calls"]) == {"C": 1, "M": 1, "b": 1, "e": 1}
    assert gf.metadata["displayTimeUnit"] == "ns"


def test_frames_by_name_and_args(tmp_path):
    """split_args: calls of one name with other args are other frames (speedscope's frames);
    by default PyTorch's per-call ids in args do not split aten::addmm into one frame per call."""
    gf = perfweave.read(SPEEDSCOPE / "unbalanced-args.json", split_args=True)
    frames = gf.graph.frames
    assert frames[["name", "args"]].values.tolist() == [["A", '{"x":1}'], ["A", '{"x":2}']]
    assert gf.graph.parent.tolist() == [-1, 0]
    doc = _kineto_trace()
    assert len(perfweave.read(_write(tmp_path, doc)).graph) == 10
    split = perfweave.read(_write(tmp_path, doc), split_args=True)
    assert (
        len(split.graph) == 10 and split.graph.frames["args"].str.contains("External id").sum() == 5
    )
    twice = {
        **doc,
        "traceEvents": doc["traceEvents"]
        + [
            {**e, "ts": e["ts"] + 1000, "args": {"External id": 99}}
            for e in doc["traceEvents"]
            if e.get("name") == "ProfilerStep#1"
        ],
    }
    assert len(perfweave.read(_write(tmp_path, twice)).graph) == 10
    assert len(perfweave.read(_write(tmp_path, twice), split_args=True).graph) == 11


# ------------------------------------------------------------------ sampled stacks
def test_sampled_stacks_weigh_the_time_to_the_next_sample():
    """simple-with-samples.json: seven samples of one thread at ts (us) 11552125241, ..129681,
    ..146011, ..159337, ..169942, ..179951, ..189951 on frames 1, 1, 2, 4, 1, 5, 5; each
    weighs the time to the next sample, the last 0. Frame 4 (function3) sits under frame 3
    (function2), which has no sample of its own."""
    gf = perfweave.read(SPEEDSCOPE / "simple-with-samples.json")
    names = gf.graph.frames["name"].str.split("(").str[0].tolist()
    got = {}
    for (node, rank, thread), r in gf.dataframe.iterrows():
        got[names[node]] = (
            round(r["time"] * 1e6),
            round(r["time (inc)"] * 1e6),
            r["samples"],
            r["samples (inc)"],
        )
        assert (rank, thread) == (7512, 7695)
    assert got == {
        "[root]": (4440 + 16330 + 10009, 64710, 3, 7),
        "function1": (13326, 13326, 1, 1),
        "function2": (0, 10605, 0, 1),
        "function3": (10605, 10605, 1, 1),
        "[GC Young Gen]": (10000 + 0, 10000, 2, 2),
    }
    assert set(gf.dataframe["process_name"]) == {"hermes"} and set(gf.dataframe["thread_name"]) == {
        "mqt_js"
    }
    assert gf.exc_metrics == ["time", "samples"] and gf.inc_metrics == [
        "time (inc)",
        "samples (inc)",
    ]


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("ts", "soon", r"a number as 'ts'"),
        ("tid", 1.5, r"an integer \(within int64\) or a string as 'tid'"),
    ],
)
def test_a_bad_sample_is_named_as_a_sample(tmp_path, key, value, expected):
    """A sample's bad value names ``samples[k]``: the message said ``event k``, the k-th of
    traceEvents, an event that may hold nothing wrong (or not exist)."""
    doc = json.loads((SPEEDSCOPE / "simple-with-samples.json").read_text())
    doc["samples"][3][key] = value
    with pytest.raises(
        ParseError, match=rf"simple-with-samples.json, samples\[3\]: expected {expected}"
    ):
        perfweave.read(_write(tmp_path, doc, "simple-with-samples.json"))


def test_samples_without_a_pid_belong_to_the_process_running_their_thread(tmp_path):
    """The format's own example of a sample names only its tid (``{"cpu": 0, "tid": 1,
    "ts": 1000.0, "name": "cycles:HG", "sf": 3, "weight": 1}``): such samples were refused
    ("expected ... as 'pid'"). A sample without a pid belongs to the process whose events
    run its thread (its process name kept), else to process 0; a thread two processes run
    leaves its process unknown, and the error says so."""
    doc = json.loads((SPEEDSCOPE / "simple-with-samples.json").read_text())
    want = perfweave.read(_write(tmp_path, doc, "with_pid.json"))
    for sample in doc["samples"]:
        del sample["pid"]
    gf = perfweave.read(_write(tmp_path, doc, "no_pid.json"))
    pd.testing.assert_frame_equal(gf.dataframe, want.dataframe)
    assert set(gf.dataframe.index.get_level_values("rank")) == {7512}
    assert set(gf.dataframe["process_name"]) == {"hermes"}
    # a thread no event runs: one process, 0
    for sample in doc["samples"]:
        sample["tid"] = 1
    gf = perfweave.read(_write(tmp_path, doc, "tid_1.json"))
    assert set(gf.dataframe.index.droplevel("node").unique()) == {(0, 1)}
    assert gf.dataframe["time (inc)"].max() == pytest.approx(want.dataframe["time (inc)"].max())
    # a thread two processes run
    doc["traceEvents"] += [
        {"ph": "M", "name": "thread_name", "pid": p, "tid": 1, "args": {"name": "w"}}
        for p in (10, 20)
    ]
    with pytest.raises(
        ParseError, match=r"samples\[0\]: expected a 'pid': tid 1 runs in processes 10, 20"
    ):
        perfweave.read(_write(tmp_path, doc, "two.json"))


def test_samples_beside_call_events_and_broken_stacks(tmp_path):
    doc = json.loads((SPEEDSCOPE / "simple-with-samples.json").read_text())
    doc["traceEvents"].append({"ph": "X", "name": "x", "pid": 1, "tid": 1, "ts": 0, "dur": 1})
    with pytest.warns(SkippedInputWarning, match="its 1 B, E and X events were left out"):
        perfweave.read(_write(tmp_path, doc))
    doc["traceEvents"].pop()
    doc["samples"][2]["sf"] = 9
    with pytest.raises(ParseError, match=r"samples\[2\]: expected 'sf': the id of a stack frame"):
        perfweave.read(_write(tmp_path, doc))
    doc["samples"][2]["sf"] = 2
    doc["stackFrames"]["1"]["parent"] = 4  # 1 -> 4 -> 3 -> 1
    with pytest.raises(ParseError, match="parent chains reach a root"):
        perfweave.read(_write(tmp_path, doc))


# ------------------------------------------------------------------ the rest of perfweave
def test_cli_and_ensembles(tmp_path, capsys):
    from perfweave.cli import main
    from perfweave.ensemble import Ensemble

    path = SPEEDSCOPE / "simple.json"
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "trace-event" in out and "inclusive: time (inc)" in out
    assert main(["tree", str(path), "--color", "never"]) == 0
    assert "epsilon" in capsys.readouterr().out
    runs = tmp_path / "runs"
    runs.mkdir()
    for k, scale in enumerate((1, 2)):
        events = [
            {"name": "main", "ph": "X", "ts": 0, "dur": 10 * scale, "pid": 1, "tid": 1},
            {"name": "solve", "ph": "X", "ts": 1, "dur": 6 * scale, "pid": 1, "tid": 1},
        ]
        _write(runs, events, f"run{k}.json")
    ens = Ensemble.from_files(runs)
    assert len(ens.profiles) == 2


def test_broken_json_names_the_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        '[\n{"name": "a", "ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1},\n{"name": }\n'
    )
    with pytest.raises(
        ParseError, match=r"bad\.json, line 3, column \d+: expected trace-event JSON"
    ):
        perfweave.read(bad)
    bad.write_text('[{"name": "a", "ph": "X", "ts": true, "dur": 2, "pid": 1, "tid": 1}]')
    with pytest.raises(ParseError, match=r"event 0: expected a number as 'ts'.*'true'"):
        perfweave.read(bad, format="trace-event")
    bad.write_text('[{"name": "a", "ph": "i", "ts": 1, "pid": 1, "tid": 1}]')
    with pytest.raises(ParseError, match="at least one call"):
        perfweave.read(bad, format="trace-event")


def test_escapes_that_are_no_characters_are_replaced_in_names_and_ids(tmp_path):
    """orjson refuses lone-surrogate escapes, so such a file is read the exact way and its
    text mended: names and text pids become U+FFFD, one warning names the calls (a file
    orjson reads holds no such text and is not searched for it)."""
    path = tmp_path / "escape.json"
    path.write_text(
        "["
        '{"name": "f\\ud800", "ph": "X", "ts": 1, "dur": 5, "pid": "p\\udc00", "tid": 1},'
        '{"name": "g", "ph": "X", "ts": 2, "dur": 1, "pid": "p\\udc00", "tid": 1}'
        "]"
    )
    with pytest.warns(SkippedInputWarning, match=r"lone surrogates .* event 0 'f\ufffd'"):
        gf = perfweave.read(path, format="trace-event")
    assert _paths(gf) == {"f\ufffd": (5, 4, 1), "f\ufffd;g": (1, 1, 1)}
    assert set(gf.dataframe["process_name"]) == {"p\ufffd"}


def test_a_duration_that_is_not_a_number_is_named(tmp_path):
    """``dur``/``tdur`` null or NaN (Python's json reads NaN, orjson refuses it): a
    ParseError naming the event and key; an X with neither lasts its other key or 0."""
    path = tmp_path / "dur.json"
    for text, key in (('"dur": NaN', "dur"), ('"tdur": NaN', "tdur"), ('"dur": null', "dur")):
        path.write_text(f'[{{"name": "a", "ph": "X", "ts": 1, {text}, "pid": 1, "tid": 1}}]')
        with pytest.raises(ParseError, match=rf"event 0: expected a number as '{key}'"):
            perfweave.read(path, format="trace-event")
    events = [
        {"name": "a", "ph": "X", "ts": 1, "dur": 9, "pid": 1, "tid": 1},
        {"name": "b", "ph": "X", "ts": 2, "tdur": 3, "pid": 1, "tid": 1},
        {"name": "c", "ph": "X", "ts": 6, "pid": 1, "tid": 1},
    ]
    gf = perfweave.read(_write(tmp_path, events), format="trace-event")
    assert _paths(gf) == {"a": (9, 6, 1), "a;b": (3, 3, 1), "a;c": (0, 0, 1)}


@pytest.mark.parametrize("unhashable", [False, True])
def test_phases_that_make_no_call_are_counted_by_letter(tmp_path, unhashable):
    """A phase is a one-letter string (any letter, ASCII or not); an event without one, or
    whose ph is another value, counts under "". An E without a name still ends its call."""
    call = {"pid": 1, "tid": 1}
    events = [
        {"name": "a", "ph": "B", "ts": 0, **call},
        {"name": "b", "ph": "X", "ts": 1, "dur": 2, **call},
        {"ph": "E", "ts": 5, **call},
        {"name": "n", "ph": "é", "ts": 1, **call},
        {"name": "n", "ph": "XY", "ts": 1, **call},
        {"name": "n", "ph": 1, "ts": 1, **call},
        {"name": "n", "ph": None, "ts": 1, **call},
        {"name": "n", "ts": 1, **call},
        {"name": "n", "ph": "C", "ts": 1, **call},
    ]
    if unhashable:
        events.append({"name": "n", "ph": ["X"], "ts": 1, **call})
    gf = perfweave.read(_write(tmp_path, events), format="trace-event")
    assert _paths(gf) == {"a": (5, 3, 1), "a;b": (2, 2, 1)}
    counts = {"": 4 + unhashable, "C": 1, "é": 1}
    assert json.loads(gf.metadata["events_not_calls"]) == counts
