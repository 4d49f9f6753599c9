"""pyinstrument JSON reader: Hatchet conformance, file facts, bad input, synthetic trees."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave
from perfweave import GraphFrame
from perfweave.calltree.readers import detect, pyinstrument
from perfweave.errors import ParseError
from tests.calltree._peer import assert_same
from tests.calltree.readers._round_trip_checks import assert_round_trips

PROFILE = "hatchet/pyinstrument-hatchet-json/pyinstrument-hatchet-profile.json"


@pytest.mark.peer
def test_same_as_hatchet(data_dir):
    import hatchet

    path = str(data_dir / PROFILE)
    ours = GraphFrame.from_pyinstrument(path)
    theirs = hatchet.GraphFrame.from_pyinstrument(path)
    assert_same(ours, theirs)
    assert (ours.exc_metrics, ours.inc_metrics) == (theirs.exc_metrics, theirs.inc_metrics)
    assert ours.default_metric == theirs.default_metric
    cols = ["name", "file", "line", "is_application_code"]
    assert sorted(map(tuple, ours.dataframe[cols].to_numpy().tolist())) == sorted(
        map(tuple, theirs.dataframe[cols].to_numpy().tolist())
    )


def test_profile_facts(data_dir):
    gf = pyinstrument.read(data_dir / PROFILE)
    df = gf.dataframe
    assert len(gf.graph) == 111 and len(df) == 111
    assert gf.index_levels == []
    root = int(gf.graph.root_ids[0])
    assert len(gf.graph.root_ids) == 1
    assert (df.loc[root, "name"], df.loc[root, "file"], df.loc[root, "line"]) == (
        "<module>",
        "examples.py",
        1,
    )
    assert df.loc[root, "time (inc)"] == 0.47815
    kids = gf.graph.children_of(root)
    assert sorted(df.loc[kids, "time (inc)"]) == [0.013541, 0.061964, 0.063092, 0.339553]
    # exclusive = inclusive minus the children's inclusive
    assert df.loc[root, "time"] == pytest.approx(
        0.47815 - 0.339553 - 0.063092 - 0.061964 - 0.013541
    )
    # exclusive times add up to the root's inclusive time
    assert df["time"].sum() == pytest.approx(0.47815, abs=1e-9)
    assert gf.metadata == {
        "start_time": 1601984370.032729,
        "duration": 0.478172,
        "sample_count": 432,
        "program": "examples.py",
        "cpu_time": 1.194035,
    }
    # siblings with equal frames stay separate nodes (pyinstrument keeps them apart)
    assert set(gf.graph.frames.columns) == {"name", "type"}
    assert (gf.graph.frames["name"] == "<module>").sum() > 1


def test_detected_and_round_trips(data_dir):
    path = data_dir / PROFILE
    assert detect(path) == "pyinstrument"
    gf = perfweave.read(path)
    assert_round_trips(gf)


# ---------------------------------------------------------------------------- bad input


def _frame(function, time, children=()):
    return {
        "function": function,
        "file_path_short": f"{function}.py",
        "line_no": 1,
        "time": time,
        "is_application_code": True,
        "children": list(children),
    }


def test_truncated_file(data_dir, tmp_path):
    text = (data_dir / PROFILE).read_text()
    p = tmp_path / "cut.json"
    p.write_text(text[:1000])
    with pytest.raises(ParseError, match="line") as info:
        pyinstrument.read(p)
    assert str(p) in str(info.value)


@pytest.mark.parametrize(
    "doc,message",
    [
        ({"program": "x"}, "root_frame"),
        ({"root_frame": _frame("a", 1.0, [{"time": 0.5}])}, r"root_frame\.children\[0\]"),
        ({"root_frame": _frame("a", 1.0, [_frame("b", "fast")])}, "numeric 'time'"),
        ({"root_frame": {**_frame("a", 1.0), "children": {"b": 1}}}, "'children' as a list"),
        ([1, 2], "root_frame"),
    ],
)
def test_malformed_parts(tmp_path, doc, message):
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ParseError, match=message) as info:
        pyinstrument.read(p)
    assert str(p) in str(info.value)


def test_dict_input_is_not_modified():
    doc = {"root_frame": _frame("a", 3.0, [_frame("b", 1.0), _frame("c", 1.5)])}
    before = copy.deepcopy(doc)
    gf = pyinstrument.read(doc)
    assert doc == before
    assert gf.dataframe.loc[0, "time"] == 0.5


@st.composite
def frames(draw, depth=0):
    n_kids = draw(st.integers(0, 3 if depth < 4 else 0))
    kids = [draw(frames(depth + 1)) for _ in range(n_kids)]
    own = draw(st.floats(0, 10, allow_nan=False))
    return _frame(
        draw(st.sampled_from(["f", "g", "<module>"])), own + sum(k["time"] for k in kids), kids
    )


@settings(max_examples=60, deadline=None)
@given(frames())
def test_synthetic_profiles(root):
    gf = pyinstrument.read({"root_frame": root})

    def walk(f):
        yield f
        for c in f["children"]:
            yield from walk(c)

    every = list(walk(root))
    assert len(gf.graph) == len(every)
    df = gf.dataframe
    assert np.isclose(df["time"].sum(), root["time"])
    assert sorted(df["time (inc)"]) == sorted(f["time"] for f in every)
    # each node's inclusive time is its exclusive time plus its children's inclusive times
    for nid in range(len(gf.graph)):
        kids = gf.graph.children_of(nid)
        assert np.isclose(
            df.loc[nid, "time (inc)"], df.loc[nid, "time"] + df.loc[kids, "time (inc)"].sum()
        )
