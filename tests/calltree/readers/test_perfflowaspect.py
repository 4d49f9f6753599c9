"""PerfFlowAspect traces (.pfw): the four output forms, unterminated arrays, counter
events, merged call paths, several ranks of one run, Hatchet, and bad input."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave
from perfweave.calltree.readers import detect
from perfweave.calltree.readers.perfflowaspect import nest
from perfweave.errors import ParseError, SkippedInputWarning, UnterminatedTraceWarning
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
    with pytest.raises(ParseError, match=r"event 0: expected name, pid and tid"):
        perfweave.read(bad)
    bad.write_text('{"traceEvents": 3}')
    with pytest.raises(ParseError, match="an array of events or an object with a traceEvents"):
        perfweave.read(bad)
    bad.write_text('[{"name": "a", "ph": "C", "ts": 1, "pid": 1, "tid": 1, "args": {}}]')
    with pytest.raises(ParseError, match="at least one complete call"):
        perfweave.read(bad)
    bad.write_text(
        '[{"name": "a", "ph": "B", "ts": 1, "pid": 1, "tid": 1},'
        '{"name": "b", "ph": "B", "ts": 2, "pid": 1, "tid": 1},'
        '{"name": "b", "ph": "E", "ts": 3, "pid": 1, "tid": 1}]'
    )
    with pytest.warns(SkippedInputWarning, match="skipped 1 B/E events"):
        gf = perfweave.read(bad)
    assert gf.dataframe["name"].tolist() == ["b"]


def test_calltree_explorer_opens_calls_and_merged_paths():
    from perfweave.widgets import CalltreeExplorer

    merged = perfweave.read(AMS_RANKS, merge_calls=True)
    rows = CalltreeExplorer(merged).visible_rows()
    assert rows["name"].iloc[0] == "main" and {"time (inc)", "calls"} <= set(rows.columns)
    calls = CalltreeExplorer(perfweave.read(DATA / "perfflowaspect-laghos/laghos_1iter.pfw"))
    assert "dur" in calls.visible_rows().columns
