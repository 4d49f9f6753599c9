"""The speedscope JSON reader on speedscope's samples (tests/data/speedscope-json) and on
small written documents. Expected numbers are computed here: evented profiles replayed with
a plain stack, sampled ones summed per stack."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import perfweave as pw
from perfweave.calltree.readers import detect
from perfweave.cli import main
from perfweave.errors import ParseError
from tests.calltree._reference import name_paths

DATA = Path(__file__).resolve().parents[2] / "data" / "speedscope-json"
EVENTED = [
    DATA / "0.0.1/simple.speedscope.json",
    DATA / "0.0.1/simple-no-pretty-print.speedscope.json",
]
SAMPLED = DATA / "0.1.2/simple-sampled.speedscope.json"
INVALID = DATA / "invalid/out-of-order-events.json"
SCHEMA = "https://www.speedscope.app/file-format-schema.json"


def _by_path(gf, column: str, thread: int | None = None) -> dict[tuple[str, ...], float]:
    df = gf.dataframe
    if thread is not None:
        df = df.xs(thread, level="thread")
    summed = df[column].groupby(level="node").sum()
    paths = name_paths(gf)
    return {paths[n]: float(v) for n, v in summed.items() if v}


def _replay(doc: dict, p: int = 0) -> tuple[Counter, Counter]:
    """(inclusive, exclusive) value per call path of an evented profile, with a stack."""
    names = [f["name"] for f in doc["shared"]["frames"]]
    inc, exc = Counter(), Counter()
    stack, last = [], None
    for e in doc["profiles"][p]["events"]:
        if stack:
            exc[tuple(stack)] += e["at"] - last
        last = e["at"]
        if e["type"] == "O":
            stack.append(names[e["frame"]])
            inc[tuple(stack)] -= e["at"]
        else:
            inc[tuple(stack)] += e["at"]
            stack.pop()
    return inc, exc


def _sums(doc: dict, p: int = 0) -> tuple[Counter, Counter]:
    """(inclusive, exclusive) weight per call path of a sampled profile."""
    names = [f["name"] for f in doc["shared"]["frames"]]
    inc, exc = Counter(), Counter()
    prof = doc["profiles"][p]
    for stack, w in zip(prof["samples"], prof["weights"]):
        path = tuple(names[i] for i in stack)
        exc[path] += w
        for k in range(1, len(path) + 1):
            inc[path[:k]] += w
    return inc, exc


def _nonzero(c: Counter) -> dict:
    return {k: float(v) for k, v in c.items() if v}


@pytest.mark.parametrize("path", EVENTED, ids=lambda p: p.name)
def test_evented_profile_inclusive_from_open_to_close(path):
    doc = json.loads(path.read_text())
    inc, exc = _replay(doc)
    assert detect(path) == "speedscope"
    gf = pw.read(path)
    assert _by_path(gf, "weight (inc)") == _nonzero(inc)
    assert _by_path(gf, "weight") == _nonzero(exc)
    assert _by_path(gf, "weight (inc)")[("a", "b")] == 14.0  # b: open at 0, closed at 14
    assert gf.exc_metrics == ["weight"] and gf.inc_metrics == ["weight (inc)"]
    assert gf.unit_of("weight") == ""  # unit "none"
    assert gf.metadata["profiles"] == ["simple.txt"]
    assert list(gf.dataframe["profile_name"].unique()) == ["simple.txt"]


def test_sampled_profile_weights_at_the_leaf_and_on_the_stack():
    doc = json.loads(SAMPLED.read_text())
    inc, exc = _sums(doc)
    gf = pw.read(SAMPLED)
    assert _by_path(gf, "time (inc)") == _nonzero(inc)
    assert _by_path(gf, "time") == _nonzero(exc)
    assert gf.dataframe["time (inc)"].max() == sum(doc["profiles"][0]["weights"]) == 14
    assert gf.units == {"time": "s", "time (inc)": "s"}
    assert gf.unit_of("time (inc)") == "s"


def test_a_file_speedscope_refuses_names_the_event():
    with pytest.raises(ParseError) as info:
        pw.read(INVALID)
    err = info.value
    assert err.path == str(INVALID)
    # B (frame 1) opened by event 2 is closed by event 6 while A (frame 0, event 3) is on top
    assert err.position.startswith("profiles[0].events[6]") and "'p1'" in err.position
    assert "frame 0 ('A', opened by event 3)" in err.expected and "frame 1 ('B')" in err.found


def _doc(profiles: list, frames: list | None = None) -> dict:
    frames = frames if frames is not None else [{"name": n} for n in "ABC"]
    return {"$schema": SCHEMA, "shared": {"frames": frames}, "profiles": profiles}


def _evented(events: list, unit: str = "milliseconds", name: str = "p") -> dict:
    return {"type": "evented", "name": name, "unit": unit, "startValue": 0, "endValue": 9,
            "events": [{"type": t, "frame": f, "at": a} for t, f, a in events]}  # fmt: skip


def _sampled(samples: list, weights: list, unit: str = "seconds", name: str = "s") -> dict:
    return {"type": "sampled", "name": name, "unit": unit, "startValue": 0, "endValue": 9,
            "samples": samples, "weights": weights}  # fmt: skip


def _write(tmp_path: Path, doc: dict) -> Path:
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    ("profile", "event", "match"),
    [
        (_evented([("O", 0, 0), ("O", 1, 1), ("C", 1, 2)]), 0, "never closed"),  # A left open
        (_evented([("O", 0, 0), ("C", 0, 1), ("C", 0, 2)]), 2, "no frame open"),
        (_evented([("O", 0, 0), ("C", 3, 1)]), 1, "frame index"),  # 3 frames: 0..2
        (_evented([("O", 0, 5), ("C", 0, 4)]), 1, "never going back"),
        (_evented([("O", 0, 0), ("X", 0, 1)]), 1, "'O' or 'C'"),
        (_evented([("O", 0, 0), ("C", 0, float("nan"))]), 1, "finite"),
        (_evented([("O", 0, 0), ("C", 0, 10**400)]), 1, "finite"),
        (_evented([("O", 0, -1e308), ("C", 0, 1e308)]), 1, "duration within float64"),
    ],
)
def test_evented_errors_name_the_profile_and_event(tmp_path, profile, event, match):
    path = _write(tmp_path, _doc([_evented([("O", 2, 0), ("C", 2, 1)]), profile]))
    with pytest.raises(ParseError, match=match) as info:
        pw.read(path)
    assert info.value.path == str(path)
    assert info.value.position.startswith(f"profiles[1].events[{event}]")


@pytest.mark.parametrize(
    ("profile", "position", "match"),
    [
        (_sampled([[0, 1], [0, 7]], [1, 1]), "profiles[0].samples[1]", "frame index"),
        (_sampled([[0, 1], [0, "1"]], [1, 1]), "profiles[0].samples[1]", "frame index"),
        (_sampled([[0, 1], 1], [1, 1]), "profiles[0].samples[1]", "a stack"),
        (_sampled([[0, 1], [0]], [1]), "profiles[0]", "one per sample"),
        (_sampled([[0, 1], [0]], [1, -2]), "profiles[0].weights[1]", ">= 0"),
        (_sampled([[0, 1], [0]], [1, True]), "profiles[0].weights[1]", "finite number"),
        (_sampled([[0, 1], [0]], [1, 10**400]), "profiles[0].weights[1]", "finite number"),
        (_sampled([[0, 1], [0]], [1e308, 1e308]), "profiles[0]", "sum is within float64"),
        (_sampled([[0, 1], [0, 2**70]], [1, 1]), "profiles[0].samples[1]", "frame index"),
        (_sampled([[0]], [1], unit="furlongs"), "profiles[0]", "'unit' one of"),
    ],
)
def test_sampled_errors_name_the_sample(tmp_path, profile, position, match):
    path = _write(tmp_path, _doc([profile]))
    with pytest.raises(ParseError, match=match) as info:
        pw.read(path)
    assert info.value.position == position


def test_document_errors(tmp_path):
    for doc, match in [
        ([1, 2], "a JSON object"),
        ({"$schema": SCHEMA, "profiles": []}, "shared.frames"),
        (_doc([], [{"name": "A"}]), "'profiles'"),
        (_doc([_sampled([[0]], [1])], [{"file": "x.py"}]), "'name' string"),
        (_doc([_sampled([[0]], [1])], [{"name": "A", "line": -3}]), "'line'"),
        (_doc([_sampled([[]], [1])]), "at least one frame"),
    ]:
        with pytest.raises(ParseError, match=match):
            pw.read(_write(tmp_path, doc), format="speedscope")
    broken = tmp_path / "broken.json"
    broken.write_text('{"$schema": "' + SCHEMA + '",\n "profiles": [')
    with pytest.raises(ParseError) as info:
        pw.read(broken)
    assert info.value.line == 2


def test_profiles_are_threads_with_their_units(tmp_path):
    doc = _doc(
        [
            _evented([("O", 0, 0), ("O", 1, 2), ("C", 1, 5), ("C", 0, 6)], "milliseconds", "main"),
            _sampled([[0, 1], [0, 2], [0, 1, 0]], [0.5, 0.25, 1.0], "seconds", "worker"),
            _sampled([[0, 2]], [4096], "bytes", "alloc"),
        ]
    )
    gf = pw.read(_write(tmp_path, doc))
    assert gf.dataframe.index.names == ["node", "thread"]
    assert gf.metadata["profiles"] == ["main", "worker", "alloc"]
    # two time units: both in seconds
    assert gf.units == {"time": "s", "time (inc)": "s", "bytes": "B", "bytes (inc)": "B"}
    assert _by_path(gf, "time (inc)", 0) == {("A",): 0.006, ("A", "B"): 0.003}
    assert _by_path(gf, "time", 0) == {("A",): 0.003, ("A", "B"): 0.003}
    # recursion A -> B -> A: the sample counts once on each of the three nodes
    assert _by_path(gf, "time (inc)", 1) == {
        ("A",): 1.75, ("A", "B"): 1.5, ("A", "C"): 0.25, ("A", "B", "A"): 1.0,
    }  # fmt: skip
    assert _by_path(gf, "bytes (inc)", 2) == {("A",): 4096.0, ("A", "C"): 4096.0}
    # a thread that measured bytes has no time, and the other way round
    alloc = gf.dataframe.xs(2, level="thread")
    assert alloc["time"].isna().all() and alloc["bytes"].notna().all()
    assert gf.dataframe.xs(0, level="thread")["bytes"].isna().all()


def test_frames_keep_file_and_line(tmp_path):
    frames = [
        {"name": "main", "file": "app.py", "line": 3},
        {"name": "work", "file": "app.py", "line": 10},
        {"name": "work", "file": "app.py", "line": 10},  # listed twice: one frame
        {"name": "work", "file": "lib.py", "line": 1},
    ]
    doc = _doc([_sampled([[0, 1], [0, 2], [0, 3]], [1, 1, 1])], frames)
    gf = pw.read(_write(tmp_path, doc))
    table = gf.graph.frames.sort_values(["name", "file"]).reset_index(drop=True)
    assert table[["name", "file", "line"]].to_dict("records") == [
        {"name": "main", "file": "app.py", "line": 3},
        {"name": "work", "file": "app.py", "line": 10},
        {"name": "work", "file": "lib.py", "line": 1},
    ]
    work = gf.dataframe[gf.dataframe["name"] == "work"]
    assert sorted(work["time"]) == [1.0, 2.0]


def test_cli_and_ensemble(tmp_path, capsys):
    assert main(["info", str(SAMPLED)]) == 0
    assert "format:   speedscope" in capsys.readouterr().out
    assert main(["tree", str(EVENTED[0]), "--color", "never", "--metric", "weight (inc)"]) == 0
    tree = capsys.readouterr().out
    assert "14.000 b" in tree and "4.000 d" in tree
    out = tmp_path / "x.json"
    assert main(["convert", str(SAMPLED), "--to", "json", "-o", str(out)]) == 0
    assert np.isclose(pw.read(out).dataframe["time"].sum(), 14.0)
    runs = []
    for k, factor in enumerate((1, 3)):  # two runs of one program
        doc = json.loads(EVENTED[0].read_text())
        doc["name"] = f"run {k}"
        for event in doc["profiles"][0]["events"]:
            event["at"] *= factor
        runs.append(tmp_path / f"run{k}.speedscope.json")
        runs[-1].write_text(json.dumps(doc))
    ens = pw.Ensemble.from_files([str(p) for p in runs])
    assert len(ens.profiles) == 2
    assert sorted(ens.dataframe.groupby(level="profile")["weight"].sum()) == [14.0, 42.0]


def test_a_frame_closed_where_it_opened_stays_with_zero(tmp_path):
    doc = _doc([_evented([("O", 0, 0), ("O", 2, 1), ("C", 2, 1), ("C", 0, 3)], "none")])
    gf = pw.read(_write(tmp_path, doc))
    assert name_paths(gf) == [("A",), ("A", "C")]
    assert gf.dataframe["weight (inc)"].tolist() == [3.0, 0.0]


@pytest.mark.parametrize("path", [SAMPLED, *EVENTED])
def test_the_tree_shows_each_frame_with_its_callees_by_default(path):
    # a sample or a span counts for its callers too: a tree opened on exclusive values
    # printed 0.000 for every frame whose time is all in its callees
    gf = pw.read(path)
    metric = gf.exc_metrics[0]
    assert gf.default_metric == f"{metric} (inc)"
    lines = [ln for ln in gf.tree(color=False).splitlines() if not ln.startswith("#")]
    roots = gf.dataframe.loc[gf.graph.root_ids, f"{metric} (inc)"]
    assert float(lines[0].split()[0]) == pytest.approx(float(roots.iloc[0]), abs=1e-3)
    assert not [ln for ln in lines if ln.lstrip("│├└─ ").startswith("0.000")]
