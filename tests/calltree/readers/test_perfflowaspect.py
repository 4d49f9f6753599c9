"""PerfFlowAspect traces (.pfw): the four output forms, unterminated arrays, counter
events, merged call paths, several ranks of one run, Hatchet, and bad input."""

from __future__ import annotations

import contextlib
import io
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave
from perfweave.calltree._intervals import nest
from perfweave.calltree.readers import detect
from perfweave.errors import (
    IncompleteInputWarning,
    ParseError,
    PerfweaveError,
    PerfweaveWarning,
    SkippedInputWarning,
    UnterminatedTraceWarning,
)
from tests.calltree._peer import assert_same
from tests.calltree.readers._round_trip_checks import assert_round_trips

DATA = Path(__file__).resolve().parents[2] / "data" / "hatchet-more"
SMOKE = DATA / "perfflowaspect-smoketests"
FORMS = ["array_compact", "array_verbose", "object_compact_adiak", "object_verbose_adiak"]
UNTERMINATED = {
    "perfflowaspect-cpu-mem/smoketest3.array.turing.pfw",
    "perfflowaspect-cpu-mem/smoketest3.withusage.array.turing.pfw",
    "perfflowaspect-ams/ams_test2.pfw",
}
ALL = sorted(str(p.relative_to(DATA)) for p in DATA.glob("perfflowaspect-*/**/*.pfw"))
AMS_RANKS = DATA / "perfflowaspect-ams" / "ams_mpi_test1"


def _read(rel: str, **options):
    if rel in UNTERMINATED:
        with pytest.warns(UnterminatedTraceWarning, match="not closed"):
            return perfweave.read(DATA / rel, **options)
    return perfweave.read(DATA / rel, **options)


def _events(path: Path) -> list[dict]:
    text = path.read_text()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = json.loads(text.rstrip().rstrip(",") + "]")
    return data["traceEvents"] if isinstance(data, dict) else data


# --------------------------------------------------------------------- facts of the files
@pytest.mark.parametrize("form", FORMS)
def test_the_four_forms_give_one_tree(form):
    gf = perfweave.read(SMOKE / f"{form}.pfw")
    assert detect(SMOKE / f"{form}.pfw") == "perfflowaspect"
    assert len(gf.graph) == 12 and len(gf.graph.roots) == 4
    compact = perfweave.read(SMOKE / "array_compact.pfw")
    assert sorted(gf.dataframe["name"]) == sorted(compact.dataframe["name"])
    assert set(gf.dataframe["ph"]) == {"X"}
    if "adiak" in form:
        assert gf.metadata["executable"] == "smoketest" and gf.metadata["cluster"] == "tuolumne"
        assert set(json.loads(gf.metadata["walltime"])) == {"tv_sec", "tv_usec"}


def test_verbose_pairs_become_calls_with_their_durations():
    events = _events(SMOKE / "array_verbose.pfw")
    begins = [e for e in events if e["ph"] == "B"]
    ends = [e for e in events if e["ph"] == "E"]
    assert len(begins) == len(ends) == 12
    gf = perfweave.read(SMOKE / "array_verbose.pfw")
    # total time of the calls = sum of E timestamps - sum of B timestamps
    total = (sum(int(e["ts"]) for e in ends) - sum(int(e["ts"]) for e in begins)) * 1e-6
    assert gf.dataframe["dur"].sum() == pytest.approx(total, rel=1e-12)


@pytest.mark.parametrize("rel", ALL)
def test_every_call_lies_inside_its_parent(rel):
    gf = _read(rel)
    events = [e for e in _events(DATA / rel) if e["ph"] in ("X", "B")]
    assert len(gf.graph) == len(events)
    df = gf.dataframe
    parents = gf.graph.parent
    assert (parents >= 0).any() or len(parents) == 1  # calls nest (one file has one call)
    child = np.flatnonzero(np.asarray(parents) >= 0)
    par = np.asarray(parents)[child]
    ts, end = df["ts"].to_numpy(), (df["ts"] + df["dur"]).to_numpy()
    assert np.all(ts[par] < ts[child]) and np.all(end[par] > end[child])
    assert np.all(df["tid"].to_numpy()[par] == df["tid"].to_numpy()[child])


def test_unterminated_array_keeps_its_complete_events():
    rel = "perfflowaspect-ams/ams_test2.pfw"
    assert not (DATA / rel).read_text().rstrip().endswith("]")
    gf = _read(rel)
    assert len(gf.graph) == 1856


def test_counter_events():
    rel = "perfflowaspect-cpu-mem/smoketest.withusage.array.turing.pfw"
    events = _events(DATA / rel)
    counters = [e for e in events if e["ph"] == "C"]
    assert counters and all({"cpu_usage", "memory_usage"} <= set(e["args"]) for e in counters)
    gf = perfweave.read(DATA / rel, scan_cpu_mem=True)
    assert len(gf.graph) == 12  # counter events are not calls
    # a call's usage comes from the non-zero counter event at its start
    memory = {
        e["ts"] * 1e-6: e["args"]["memory_usage"] for e in counters if e["args"]["memory_usage"]
    }
    row = gf.dataframe.iloc[0]
    assert row["usage_memory"] == memory.get(row["ts"], 0)
    assert (gf.dataframe["usage_memory"] > 0).any()
    with pytest.raises(ParseError, match="counter events"):
        perfweave.read(SMOKE / "array_compact.pfw", scan_cpu_mem=True)


def test_merged_calls():
    per_call = perfweave.read(DATA / "perfflowaspect-foobar/perfflow.quartz1532.3570764.pfw")
    merged = perfweave.read(
        DATA / "perfflowaspect-foobar/perfflow.quartz1532.3570764.pfw", merge_calls=True
    )
    assert len(merged.graph) < len(per_call.graph)
    df = merged.dataframe
    assert df["calls"].sum() == len(per_call.graph)
    assert df["time (inc)"].sum() == pytest.approx(per_call.dataframe["dur"].sum(), rel=1e-12)
    assert merged.exc_metrics == ["time", "calls"] and merged.inc_metrics == ["time (inc)"]
    # exclusive = inclusive minus the children's: recomputing the inclusive gives it back
    again = merged.copy().update_inclusive_columns()
    np.testing.assert_allclose(
        again.dataframe["time (inc)"], df["time (inc)"], rtol=1e-9, atol=1e-12
    )
    # one node per call path: no two siblings share a name
    frames = merged.graph.frames
    assert not frames.assign(p=merged.graph.parent).duplicated(["p", "name"]).any()


def test_several_ranks_of_one_run():
    files = sorted(AMS_RANKS.glob("*.pfw"))
    gf = perfweave.read(AMS_RANKS)
    assert gf.dataframe.index.names == ["node", "rank"]
    assert len(gf.graph) == 1776 + 1816 + 1636 == 5228
    assert gf.dataframe["name"].nunique() == 34
    assert gf.dataframe.groupby(level="rank")["pid"].first().tolist() == [108800, 108801, 108802]
    merged = perfweave.read([str(f) for f in files], merge_calls=True)
    assert merged.dataframe.index.names == ["node", "rank"]
    assert sorted(set(merged.dataframe.index.get_level_values("rank"))) == [0, 1, 2]
    assert merged.dataframe["calls"].sum() == 5228
    # each rank's main is one root call covering its whole run
    main = merged.dataframe[merged.dataframe["name"] == "main"]
    assert len(main) == 3 and (main["calls"] == 1).all()


@pytest.mark.parametrize(
    "rel",
    ["perfflowaspect-laghos/laghos_1iter.pfw", "perfflowaspect-object/object-reader-test1.pfw"],
)
def test_round_trips(rel):
    assert_round_trips(perfweave.read(DATA / rel, merge_calls=True))


def test_cli(tmp_path, capsys):
    from perfweave.cli import main

    path = str(DATA / "perfflowaspect-laghos/laghos_1iter.pfw")
    assert main(["info", path]) == 0
    out = capsys.readouterr().out
    assert "perfflowaspect" in out and "27 nodes" in out
    assert main(["tree", path, "--color", "never"]) == 0
    assert "mfem::" in capsys.readouterr().out
    assert main(["convert", path, "--to", "json", "-o", str(tmp_path / "l.json")]) == 0
    assert len(json.loads((tmp_path / "l.json").read_text())["dataframe"]) == 27
    # reader options on the command line: merged call paths of three ranks
    assert main(["info", str(AMS_RANKS), "-O", "merge_calls=true"]) == 0
    out = capsys.readouterr().out
    assert "44 nodes" in out and "calls" in out
    assert main(["tree", path, "-O", "merge_call=1"]) == 1
    assert "no option 'merge_call'" in capsys.readouterr().err


# --------------------------------------------------------------------- nesting, property
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 40)), min_size=1, max_size=40))
def test_nest_matches_a_stack(spec):
    """Random well-nested calls (a depth change and a length per call) on one thread:
    parents equal those a call stack gives."""
    starts, ends, parents, stack, t = [], [], [], [], 0
    for up, length in spec:
        for _ in range(min(up, len(stack))):
            k = stack.pop()
            t += 1
            ends[k] = t
        parents.append(stack[-1] if stack else -1)
        starts.append(t := t + 1)
        ends.append(None)
        stack.append(len(starts) - 1)
        t += length
    while stack:
        t += 1
        ends[stack.pop()] = t
    parent, level = nest(
        np.zeros(len(starts), np.int64), np.array(starts, float), np.array(ends, float)
    )
    assert parent.tolist() == parents
    assert all(level[i] == (0 if p < 0 else level[p] + 1) for i, p in enumerate(parents))


# --------------------------------------------------------------------- the peer
@pytest.mark.peer
@pytest.mark.parametrize("rel", ALL)
def test_same_as_hatchet(rel):
    import hatchet as ht

    ours = _read(rel)
    with contextlib.redirect_stdout(io.StringIO()):  # Hatchet prints one line per event
        theirs = ht.GraphFrame.from_perfflowaspect(str(DATA / rel))
    assert_same(ours, theirs, metrics=["ts", "dur", "pid", "tid"])
    assert ours.dataframe["ph"].tolist() == ["X"] * len(ours.dataframe)
    assert theirs.metadata == {} or set(theirs.metadata) <= set(ours.metadata)


@pytest.mark.peer
@pytest.mark.parametrize("rel", [r for r in ALL if "withusage" in r])
def test_usage_same_as_hatchet(rel):
    import hatchet as ht

    ours = _read(rel, scan_cpu_mem=True)
    with contextlib.redirect_stdout(io.StringIO()):
        theirs = ht.GraphFrame.from_perfflowaspect(str(DATA / rel), scan_cpu_mem=True)
    assert_same(ours, theirs, metrics=["ts", "dur", "usage_memory", "usage_cpu"])


# --------------------------------------------------------------------- bad input
def test_bad_input(tmp_path):
    bad = tmp_path / "broken.pfw"
    bad.write_text(
        '[\n{"name": "a", "ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1},\n{"name": ]\n'
    )
    with pytest.raises(
        ParseError, match=r"broken\.pfw, line 3, column \d+: expected trace-event JSON"
    ):
        perfweave.read(bad)
    bad.write_text('[{"name": "a", "ph": "X", "ts": "soon", "dur": 2, "pid": 1, "tid": 1}]')
    with pytest.raises(ParseError, match=r"event 0: expected a number as 'ts'"):
        perfweave.read(bad)
    bad.write_text('[{"name": "a", "ph": "X", "ts": 1, "dur": -2, "pid": 1, "tid": 1}]')
    with pytest.raises(ParseError, match=r"event 0: expected a duration of at least 0"):
        perfweave.read(bad)
    bad.write_text('[{"name": "a", "ph": "X", "ts": 1, "dur": 2, "tid": 1}]')
    with pytest.raises(ParseError, match=r"event 0: expected an integer .* as 'pid', found \"no"):
        perfweave.read(bad)
    bad.write_text('{"traceEvents": 3}')
    with pytest.raises(ParseError, match="an array of events or an object with a traceEvents"):
        perfweave.read(bad)
    bad.write_text('[{"name": "a", "ph": "C", "ts": 1, "pid": 1, "tid": 1, "args": {}}]')
    with pytest.raises(ParseError, match="at least one complete call"):
        perfweave.read(bad)
    bad.write_text(
        '[{"name": "a", "ph": "B", "ts": 1, "pid": 1, "tid": 1},'
        '{"name": "b", "ph": "E", "ts": 3, "pid": 1, "tid": 1},'
        '{"name": "a", "ph": "E", "ts": 4, "pid": 1, "tid": 1},'
        '{"name": "c", "ph": "E", "ts": 5, "pid": 1, "tid": 1}]'
    )
    with pytest.warns(SkippedInputWarning, match="skipped 2 E events") as caught:
        gf = perfweave.read(bad)
    message = str(caught[0].message)
    assert "event 1 'b' (the open call is 'a' (event 0))" in message
    assert "event 3 'c' (nothing open)" in message
    assert gf.dataframe["name"].tolist() == ["a"] and gf.dataframe["dur"].iloc[0] == 3e-6
    # events pair in time order (speedscope's rule): an E earlier than every B closes nothing
    bad.write_text(
        '[{"name": "a", "ph": "B", "ts": 4, "pid": 1, "tid": 1},'
        '{"name": "a", "ph": "E", "ts": 3, "pid": 1, "tid": 1}]'
    )
    with (
        pytest.warns(SkippedInputWarning, match=r"event 1 'a' \(nothing open\)"),
        pytest.warns(IncompleteInputWarning, match=r"1 calls never end.*event 0 'a'"),
    ):
        gf = perfweave.read(bad)
    assert gf.dataframe["dur"].tolist() == [0.0]


def test_calltree_explorer_opens_calls_and_merged_paths():
    from perfweave.widgets import CalltreeExplorer

    merged = perfweave.read(AMS_RANKS, merge_calls=True)
    rows = CalltreeExplorer(merged).visible_rows()
    assert rows["name"].iloc[0] == "main" and {"time (inc)", "calls"} <= set(rows.columns)
    calls = CalltreeExplorer(perfweave.read(DATA / "perfflowaspect-laghos/laghos_1iter.pfw"))
    assert "dur" in calls.visible_rows().columns


# --------------------------------------------------------------------- odd inputs (issue 29)
SPEEDSCOPE = DATA.parent / "speedscope-trace-event"


def _trace(tmp_path: Path, events, name: str = "t.pfw") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(events))
    return path


def _call(name="a", ph="X", ts=1, dur=2, **more) -> dict:
    event = {"name": name, "ph": ph, "ts": ts, "pid": 1, "tid": 1, **more}
    if ph == "X":
        event["dur"] = dur
    return event


def _c_calls(fn) -> int:
    """How many calls into C (numpy, builtins) ``fn`` makes: work, counted, never timed."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        count += event == "c_call"

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


@pytest.mark.parametrize("verbose", [False, True], ids=["X events", "B-E pairs"])
@pytest.mark.parametrize("merge_calls", [False, True], ids=["per call", "merged"])
def test_reading_work_does_not_grow_with_nesting_depth(tmp_path, verbose, merge_calls):
    """Calls nested 1,000 and 4,000 deep take, beyond what as many calls one after another
    take, the same work (the nesting step made a pass per depth level, and so did laying
    out and merging the tree: 100,000 nested calls took minutes). All names differ, so
    merged call paths are as many nodes as calls in both shapes."""
    from benchmarks.calltree_deep import trace_events

    extra = []
    for n in (1_000, 4_000):
        deep = _trace(tmp_path, trace_events(n, True, verbose, names=n), f"deep{n}.pfw")
        flat = _trace(tmp_path, trace_events(n, False, verbose, names=n), f"flat{n}.pfw")
        assert int(perfweave.read(deep, merge_calls=merge_calls).graph.depth.max()) == n - 1
        assert len(perfweave.read(flat, merge_calls=merge_calls).graph.roots) == n
        work = [
            _c_calls(lambda p=p: perfweave.read(p, merge_calls=merge_calls)) for p in (deep, flat)
        ]
        extra.append(work[0] - work[1])
    assert extra[1] - extra[0] < 1_000, extra


ODD_VALUES = [
    ("pid", {"a": 1}),
    ("pid", [1, 2]),
    ("tid", [1]),
    ("pid", True),
    ("tid", 1.5),
    ("pid", 2**64),
    ("pid", None),
    ("name", {"x": 1}),
    ("name", 3),
    ("name", ["a"]),
    ("ts", True),
    ("ts", [1]),
    ("ts", {"t": 1}),
    ("ts", "soon"),
    ("ts", " 12"),
    ("ts", "0x10"),
    ("ts", "1e400"),
    ("dur", False),
    ("dur", {"d": 1}),
    ("dur", "-"),
    ("dur", None),
]


@pytest.mark.parametrize(
    ("ph", "key", "value"),
    [("X", k, v) for k, v in ODD_VALUES] + [("B", k, v) for k, v in ODD_VALUES if k != "dur"],
    ids=lambda v: repr(v)[:20],
)
def test_odd_values_are_parse_errors_naming_the_event_and_key(tmp_path, ph, key, value):
    """A value of the wrong type in a call event is a ParseError that names the event and
    the key (an unhashable pid was a bare TypeError; a bool read as 1, a dict name as its
    Python repr)."""
    odd = _call("b", ph, ts=2, dur=1)
    odd[key] = value
    events = [_call("a", "X", ts=1, dur=5), odd, _call("b", "E", ts=3)]
    with pytest.raises(ParseError, match=rf"t\.pfw, event 1: expected .*'{key}'"):
        perfweave.read(_trace(tmp_path, events))


def test_numbers_in_strings_are_numbers_and_booleans_are_not(tmp_path):
    """The leniency, decided: a string holding a JSON number is that number (Perfetto reads
    ts and dur so, for precision); true/false never is (it read as 1 and 0)."""
    as_text = [_call("a", ts="12", dur="1.5e3"), _call("b", "B", ts="100"), _call("b", "E", ts=200)]
    gf = perfweave.read(_trace(tmp_path, as_text))
    rows = gf.dataframe.set_index("name")
    assert rows.loc["a", "ts"] == 12e-6 and rows.loc["a", "dur"] == 1.5e-3
    assert rows.loc["b", "dur"] == pytest.approx(100e-6)
    for key in ("ts", "dur"):
        with pytest.raises(ParseError, match=rf"event 0: expected a number as '{key}'.*'true'"):
            perfweave.read(_trace(tmp_path, [_call(**{key: True})]))


def test_metadata_nested_past_what_json_writes_is_a_parse_error(tmp_path):
    deep = "[" * 50_000 + "]" * 50_000
    path = tmp_path / "deep.pfw"
    path.write_text(
        '{"traceEvents": [' + json.dumps(_call()) + '], "otherData": {"cluster": "x", '
        f'"deep": {deep}}}}}'
    )
    with pytest.raises(ParseError, match=r"deep\.pfw, otherData key 'deep': expected otherData"):
        perfweave.read(path)


def test_bytes_that_are_not_utf8_are_replaced_and_named(tmp_path):
    """Undecodable bytes in a name become U+FFFD, and one warning names the calls changed
    (they were replaced without a word)."""
    path = tmp_path / "latin1.pfw"
    good = json.dumps(_call("main", dur=9)).encode()
    bad = json.dumps(_call("NAME", ts=2, dur=1)).encode().replace(b"NAME", "café".encode("latin-1"))
    path.write_bytes(b"[\n" + good + b",\n" + bad + b"\n]\n")
    with pytest.warns(SkippedInputWarning, match=r"not UTF-8 \(the first at line 3, byte") as w:
        gf = perfweave.read(path)
    assert "event 1 'caf\ufffd'" in str(w[0].message)
    assert sorted(gf.dataframe["name"]) == ["caf\ufffd", "main"]


def test_escapes_that_are_no_characters_are_replaced_and_named(tmp_path, capsys):
    """A lone surrogate (\\ud800) in a name could not be printed (UnicodeEncodeError in
    `perfweave tree`): it becomes U+FFFD, with the same warning."""
    from perfweave.cli import main

    path = tmp_path / "escape.pfw"
    path.write_text('[{"name": "f\\ud800", "ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]')
    with pytest.warns(SkippedInputWarning, match=r"lone surrogates .* event 0 'f\ufffd'"):
        assert perfweave.read(path).dataframe["name"].tolist() == ["f\ufffd"]
    assert main(["tree", str(path), "--color", "never"]) == 0
    assert "f\ufffd" in capsys.readouterr().out


# B/E pairs follow speedscope's import rules (docs/calltree-readers.md, "B/E pairs follow speedscope's import"),
# in the per-call form (format="perfflowaspect"; tests/calltree/readers/test_trace_event.py
# reads the same files as calltrees)
def test_an_end_of_another_name_is_ignored():
    """mismatched-name.json: B alpha at 0, E beta at 10. The E closes nothing (rule 5), so
    alpha never ends: it closes at the last time a call began or ended, 0 (rule 6). It
    was paired with beta's E and given 10 us."""
    with (
        pytest.warns(SkippedInputWarning, match=r"event 1 'beta' \(the open call is 'alpha'"),
        pytest.warns(IncompleteInputWarning, match=r"1 calls never end.*event 0 'alpha'"),
    ):
        gf = perfweave.read(SPEEDSCOPE / "mismatched-name.json", format="perfflowaspect")
    assert gf.dataframe["name"].tolist() == ["alpha"] and gf.dataframe["dur"].tolist() == [0.0]


def test_ends_in_the_wrong_order():
    """unbalanced-name.json: B alpha 0, B beta 1, E alpha 9, E beta 10. E alpha is not the
    top's name: ignored; E beta closes beta at 10; alpha never ends and closes at 10, the
    last time, holding beta (beta was given 8 us, closed by alpha's E)."""
    events = _events(SPEEDSCOPE / "unbalanced-name.json")
    with (
        pytest.warns(SkippedInputWarning, match=r"event 2 'alpha'"),
        pytest.warns(IncompleteInputWarning, match=r"event 0 'alpha'"),
    ):
        gf = perfweave.read(SPEEDSCOPE / "unbalanced-name.json", format="perfflowaspect")
    df = gf.dataframe.set_index("name")
    assert df.loc["beta", "dur"] == pytest.approx((events[3]["ts"] - events[1]["ts"]) * 1e-6)
    assert df.loc["alpha", "dur"] == pytest.approx((events[3]["ts"] - events[0]["ts"]) * 1e-6)
    beta = gf.graph.frames["name"].tolist().index("beta")
    assert gf.graph.frames["name"][gf.graph.parent[beta]] == "alpha"


@pytest.mark.parametrize("file", ["too-many-end-events.json", "end-event-with-empty-stack.json"])
def test_ends_with_nothing_of_their_name_open_are_ignored(file):
    events = _events(SPEEDSCOPE / file)
    ignored = [i for i, e in enumerate(events) if e["name"] in ("gamma", "delta", "beta")]
    ignored = ignored[-2:] if file.startswith("too-many") else ignored
    with pytest.warns(SkippedInputWarning, match=rf"skipped {len(ignored)} E events") as w:
        gf = perfweave.read(SPEEDSCOPE / file, format="perfflowaspect")
    for i in ignored:
        assert f"event {i} {events[i]['name']!r}" in str(w[0].message)
    begins = {e["name"]: e["ts"] for e in events if e["ph"] == "B"}
    assert sorted(gf.dataframe["name"]) == sorted(begins)
    assert (gf.dataframe["dur"] > 0).all()


def test_a_trace_that_stops_inside_calls_closes_them_at_its_last_time():
    """only-begin-events.json: three B events and no E (the run stopped inside them). Each
    closes at the last time a call began, 2 us, and they stay nested as they were open
    (all three were dropped, leaving no call)."""
    events = _events(SPEEDSCOPE / "only-begin-events.json")
    with pytest.warns(IncompleteInputWarning, match=r"3 calls never end") as w:
        gf = perfweave.read(SPEEDSCOPE / "only-begin-events.json", format="perfflowaspect")
    assert "event 0 'A', event 1 'B', event 2 'C'" in str(w[0].message)
    last = max(e["ts"] for e in events)
    df = gf.dataframe.set_index("name")
    for e in events:
        assert df.loc[e["name"], "dur"] == pytest.approx((last - e["ts"]) * 1e-6)
    names = gf.graph.frames["name"].tolist()
    parents = [names[p] if p >= 0 else None for p in gf.graph.parent]
    assert dict(zip(names, parents)) == {"A": None, "B": "A", "C": "B"}


def test_a_pfw_trace_cut_by_a_dying_run(tmp_path):
    """PerfFlowAspect's verbose trace cut after 21 of its 24 events (the run died inside
    foo > bar > bas, leaving the array open): the three calls close at the last time of
    the thread and hold each other; the nine complete calls are as before."""
    lines = (SMOKE / "array_verbose.pfw").read_text().splitlines()
    cut = tmp_path / "cut.pfw"
    cut.write_text("\n".join(lines[:22]) + "\n")
    events = _events(cut)
    assert len(events) == 21 and [e["ph"] for e in events[-3:]] == ["B", "B", "B"]
    with (
        pytest.warns(UnterminatedTraceWarning, match="read its 21 complete events"),
        pytest.warns(IncompleteInputWarning, match=r"3 calls never end.*event 18 'foo'"),
    ):
        gf = perfweave.read(cut)
    whole = perfweave.read(SMOKE / "array_verbose.pfw")
    assert len(gf.graph) == len(whole.graph) == 12
    last = events[-1]["ts"]
    dur = gf.dataframe.sort_values("ts")["dur"].to_numpy()
    assert dur[-3:] == pytest.approx([(last - e["ts"]) * 1e-6 for e in events[-3:]])
    np.testing.assert_array_equal(dur[:9], whole.dataframe.sort_values("ts")["dur"][:9])
    assert gf.graph.depth.max() == 2 and len(gf.graph.roots) == 4


def test_calls_written_out_of_time_order_nest_by_time():
    """out-of-order.json: pairs written B(B) E(B) B(A) E(A) B(C) E(C), their times A holds
    B holds C."""
    gf = perfweave.read(SPEEDSCOPE / "out-of-order.json")
    names = gf.graph.frames["name"].tolist()
    parents = [names[p] if p >= 0 else None for p in gf.graph.parent]
    assert dict(zip(names, parents)) == {"A": None, "B": "A", "C": "B"}


def test_a_callee_ending_a_step_before_its_caller_at_epoch_times_stays_its_callee(tmp_path):
    """PerfFlowAspect writes epoch microseconds (1.76e15 us), which a double holds to a
    quarter microsecond. The callee ends a quarter microsecond before its caller: it is
    the caller's callee (Hatchet's rule). Rounded to the nanosecond the two ends became one
    time, and calls that share an end are not nested: the callee read as a root."""
    end = 1764826294593488.0
    events = [
        {"name": "caller", "ph": "X", "pid": 1, "tid": 1, "ts": end - 100, "dur": 100.0},
        {"name": "callee", "ph": "X", "pid": 1, "tid": 1, "ts": end - 50, "dur": 49.75},
    ]
    path = tmp_path / "epoch.pfw"
    path.write_text(json.dumps(events))
    gf = perfweave.read(path)
    names = gf.graph.frames["name"].tolist()
    parents = [names[p] if p >= 0 else None for p in gf.graph.parent]
    assert dict(zip(names, parents)) == {"caller": None, "callee": "caller"}


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()
    | st.sampled_from(["X", "B", "E", "C", "a", "12", "1e400", "\ud800", ""]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "memory_usage", "cpu_usage"]), inner, max_size=2)
    ),
    max_leaves=4,
)
KEYS = ("name", "ph", "ts", "dur", "pid", "tid", "args")


@st.composite
def odd_traces(draw) -> list[dict]:
    """Up to six events, each a well-formed one (X, B, E or C) with up to two of its fields
    replaced by any JSON value or left out."""
    events = []
    for _ in range(draw(st.integers(1, 6))):
        ph = draw(st.sampled_from(["X", "B", "E", "C"]))
        event = _call(draw(st.sampled_from(["a", "b"])), ph, ts=draw(st.integers(0, 9)), dur=3)
        event["args"] = {"memory_usage": 1, "cpu_usage": 0.5}
        for key in draw(st.lists(st.sampled_from(KEYS), max_size=2, unique=True)):
            if draw(st.booleans()):
                event[key] = draw(JSON_VALUES)
            else:
                event.pop(key, None)
        events.append(event)
    return events


@settings(max_examples=200, deadline=None)
@given(odd_traces(), st.sampled_from([{}, {"merge_calls": True}, {"scan_cpu_mem": True}]))
def test_any_json_values_give_a_frame_or_a_perfweave_error(tmp_path_factory, events, options):
    """Fuzz of the value types: whatever JSON each field of an event holds, reading ends in
    a GraphFrame (perhaps with named warnings) or a perfweave error."""
    path = tmp_path_factory.mktemp("fuzz") / "t.pfw"
    path.write_text(json.dumps(events))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PerfweaveWarning)
        try:
            gf = perfweave.read(path, **options)
        except PerfweaveError:
            return
    gf.tree(color=False)
    json.dumps(gf.to_literal())


# --------------------------------------------------------------------- ts is no metric (#28)
@pytest.mark.parametrize(
    "rel",
    [
        "perfflowaspect-laghos/laghos_1iter.pfw",
        "perfflowaspect-smoketests/object_verbose_adiak.pfw",
    ],
)
def test_ts_is_never_a_metric_and_dur_is_inclusive(rel, capsys):
    """A call's start is a point in time: never summed, averaged or a share (`perfweave
    info` listed "exclusive: dur, ts"). ``dur`` is inclusive; ``dur (exc)`` is ``dur``
    minus the callees' ``dur``, so summing it up the tree gives ``dur`` back."""
    from perfweave.cli import main

    gf = perfweave.read(DATA / rel)
    assert "ts" in gf.dataframe.columns
    assert gf.inc_metrics == ["dur"] and gf.exc_metrics == ["dur (exc)"]
    again = gf.copy()
    again.dataframe = again.dataframe.drop(columns="dur")
    again.inc_metrics = []
    again.update_inclusive_columns()
    np.testing.assert_allclose(again.dataframe["dur"], gf.dataframe["dur"], rtol=1e-9, atol=1e-12)
    leaves = np.setdiff1d(np.arange(len(gf.graph)), gf.graph.parent)
    df = gf.dataframe
    np.testing.assert_array_equal(df["dur (exc)"].to_numpy()[leaves], df["dur"].to_numpy()[leaves])
    assert gf.unit_of("dur (exc)") == "s"
    assert main(["info", str(DATA / rel)]) == 0
    out = capsys.readouterr().out
    assert "exclusive: dur (exc)\n" in out and "inclusive: dur\n" in out
    assert "ts" not in out.split("exclusive:")[1].split("units:")[0]  # not a metric
    assert "units:     dur (exc) in s, dur in s\n" in out
