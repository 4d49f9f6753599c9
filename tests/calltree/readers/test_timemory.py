"""timemory tree JSON reader: Hatchet conformance, file facts, options, bad input."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave
from perfweave import GraphFrame
from perfweave.calltree.readers import detect, timemory
from perfweave.errors import ParseError
from tests.calltree._peer import assert_same
from tests.calltree.readers._round_trip_checks import assert_round_trips

WALL = "hatchet/timemory/wall.tree.json"
METRICS = ["sum", "min", "max", "sqr", "mean", "stddev"]


def _node(gf, *path):
    """Node id of a call path of names."""
    names = gf.graph.frames["name"].to_numpy()
    candidates = list(gf.graph.root_ids)
    nid = None
    for name in path:
        hits = [c for c in candidates if names[c] == name]
        assert len(hits) == 1, (path, name)
        nid = int(hits[0])
        candidates = list(gf.graph.children_of(nid))
    return nid


@pytest.mark.peer
@pytest.mark.parametrize("rel", [WALL, "hatchet/timemory"])
def test_same_as_hatchet(data_dir, rel):
    import hatchet

    path = str(data_dir / rel)
    ours = GraphFrame.from_timemory(path)
    theirs = hatchet.GraphFrame.from_timemory(path)
    assert_same(ours, theirs)
    assert ours.exc_metrics == theirs.exc_metrics
    assert ours.inc_metrics == theirs.inc_metrics
    assert ours.default_metric == theirs.default_metric


def test_wall_clock_facts(data_dir):
    gf = timemory.read(data_dir / WALL)
    assert len(gf.graph) == 14
    names = gf.graph.frames["name"].to_numpy()
    assert sorted(names[gf.graph.root_ids]) == [
        "generate_history/outer-loop-0",
        "generate_history/outer-loop-1",
    ]
    assert gf.index_levels == ["rank", "thread"]
    assert len(gf.dataframe) == 28
    assert sorted(set(gf.dataframe.index.get_level_values("rank"))) == [0, 1]
    assert set(gf.dataframe.index.get_level_values("thread")) == {"1,2"}  # tid [1, 2]
    assert gf.exc_metrics == [f"{m}.wall_clock" for m in METRICS]
    assert gf.inc_metrics == [f"{m}.wall_clock (inc)" for m in METRICS]
    assert gf.default_metric == "sum.wall_clock"
    outer = gf.dataframe.loc[(_node(gf, "generate_history/outer-loop-0"), 0, "1,2")]
    assert outer["sum.wall_clock"] == 1.5015853749999977
    assert outer["sum.wall_clock (inc)"] == 35.638487534999996
    assert (outer["count"], outer["pid"], outer["file"], outer["line"]) == (
        3,
        41379,
        "hatchet_tests.cpp",
        "114",
    )
    sleep = _node(
        gf,
        "generate_history/outer-loop-1",
        "generate_history/inner-loop-1",
        "generate_history/do-sleep",
    )
    assert gf.dataframe.loc[(sleep, 1, "1,2"), "sum.wall_clock"] == 0.4008825669999999
    assert gf.dataframe.loc[(sleep, 1, "1,2"), "file"] == "<unknown>"


def test_directory_of_trees_is_the_same(data_dir):
    one = timemory.read(data_dir / WALL)
    folder = timemory.read(data_dir / "hatchet/timemory")
    assert folder.graph == one.graph
    assert folder.dataframe.equals(one.dataframe)


def test_detected_and_round_trips(data_dir):
    path = data_dir / WALL
    assert detect(path) == "timemory"
    gf = perfweave.read(path)
    back = GraphFrame.from_json(gf.to_json())
    assert back.graph == gf.graph
    assert_same(back, gf)
    # the literal holds one (rank, thread); this file's thread id is "1,2"
    lit = GraphFrame.from_literal(gf.to_literal(rank=1, thread="1,2"))
    assert lit.graph == gf.graph
    one = gf.dataframe.xs((1, "1,2"), level=["rank", "thread"])
    metrics = gf.exc_metrics + gf.inc_metrics
    assert np.allclose(lit.dataframe.loc[one.index, metrics], one[metrics], rtol=1e-12)
    # with a plain integer thread index the shared round-trip check applies as is
    plain = gf.copy()
    plain.dataframe = gf.dataframe.rename(index={"1,2": 0}, level="thread")
    assert_round_trips(plain)


@pytest.mark.parametrize(
    "label,expected",
    [
        ("[compute][solver.cpp]", ("compute", "solver.cpp", "0")),
        ("total  [main/app.cpp:12]", ("total", "app.cpp", "12")),
        ("run@app.cpp:40/phase-1", ("run/phase-1", "app.cpp", "40")),
        ("run@app.cpp:40", ("run", "app.cpp", "40")),
        ("run@lib/part", ("run/part", "lib", "0")),
        ("kernel:77/inner", ("kernel/inner", "<unknown file>", "77")),
        ("plain region", ("plain region", "<unknown>", "0")),
    ],
)
def test_label_forms(label, expected):
    assert timemory.split_label(label) == expected


def test_select_and_per_rank(data_dir):
    doc = json.loads((data_dir / WALL).read_text())
    before = copy.deepcopy(doc)
    assert len(timemory.read(doc, select=["wall_clock"]).graph) == 14
    with pytest.raises(ParseError, match="at least one"):
        timemory.read(doc, select=["cpu_clock"])
    per_rank = timemory.read(doc, per_rank=True)
    assert len(per_rank.graph) == 28 and len(per_rank.graph.root_ids) == 4
    assert set(per_rank.graph.frames["rank"]) == {"0", "1"}
    assert doc == before  # the stats dicts are not edited in place
    with pytest.raises(ParseError, match="one thread id"):
        timemory.read(doc, per_thread=True)  # these nodes aggregate threads 1 and 2


def _tree(prefix, tid, value, children=()):
    stats = {"sum": value, "count": 1, "min": value, "max": value}
    return {
        "node": {
            "hash": abs(hash(prefix)) + 1,
            "prefix": prefix,
            "tid": [tid],
            "pid": [7],
            "inclusive": {"entry": {"laps": 1}, "stats": dict(stats)},
            "exclusive": {"entry": {"laps": 1}, "stats": dict(stats)},
        },
        "children": list(children),
    }


def _dummy(children):
    node = _tree("unknown-hash=0", 0, 0.0)
    node["node"]["hash"] = 0
    node["children"] = children
    return node


def test_threads_without_ranks_and_filled_threads():
    """A "graph" (no MPI) component: a thread index only; a region seen on one thread
    gets zero rows for the other threads, as Hatchet's unstack/fillna does."""
    doc = {
        "timemory": {
            "cpu_clock": {
                "type": "cpu",
                "graph": [
                    _dummy([_tree("main", 0, 2.0, [_tree("work", 0, 1.5)])]),
                    _dummy([_tree("main", 1, 3.0)]),
                ],
            }
        }
    }
    gf = timemory.read(doc)
    assert gf.index_levels == ["thread"]
    assert gf.exc_metrics == ["sum.cpu_clock", "min.cpu_clock", "max.cpu_clock"]
    assert gf.default_metric == "sum.cpu_clock"
    work = _node(gf, "main", "work")
    assert gf.dataframe.loc[work, "sum.cpu_clock"].to_dict() == {0: 1.5, 1: 0.0}
    assert gf.dataframe.loc[(work, 1), "name"] == "work"
    main = _node(gf, "main")
    assert gf.dataframe.loc[main, "sum.cpu_clock (inc)"].to_dict() == {0: 2.0, 1: 3.0}


def test_vector_components_get_one_column_per_label():
    tree = _tree("main", 0, 0.0)
    for part in ("inclusive", "exclusive"):
        tree["node"][part]["stats"] = {"sum": [10.0, 20.0], "count": 1}
    doc = {
        "timemory": {
            "papi_vector": {"type": ["Total_cycles", "L2 misses"], "graph": [_dummy([tree])]}
        }
    }
    gf = timemory.read(doc)
    assert gf.exc_metrics == ["sum.Total-cycles", "sum.L2-misses"]
    assert gf.dataframe.loc[0, "sum.L2-misses (inc)"] == 20.0


# ---------------------------------------------------------------------------- bad input


def test_truncated_file(data_dir, tmp_path):
    text = (data_dir / WALL).read_text()
    p = tmp_path / "cut.tree.json"
    p.write_text(text[: len(text) // 3])
    with pytest.raises(ParseError, match="line") as info:
        timemory.read(p)
    assert str(p) in str(info.value)


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda d: d.pop("timemory"), "'timemory' object"),
        (lambda d: d["timemory"]["WALL_CLOCK"].update(mpi={"0": []}), "per-rank trees"),
        (
            lambda d: d["timemory"]["WALL_CLOCK"]["mpi"][0][0]["children"][0]["node"].pop("prefix"),
            r"mpi\[0\]\.children\[0\]",
        ),
        (
            lambda d: d["timemory"]["WALL_CLOCK"]["mpi"][1][0]["children"][1]["node"][
                "exclusive"
            ].pop("stats"),
            "stats",
        ),
    ],
)
def test_malformed_parts(data_dir, tmp_path, mutate, message):
    doc = json.loads((data_dir / WALL).read_text())
    mutate(doc)
    p = tmp_path / "bad.tree.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ParseError, match=message) as info:
        timemory.read(p)
    assert str(p) in str(info.value)


def test_not_timemory(data_dir):
    with pytest.raises(ParseError, match="timemory"):
        timemory.read(data_dir / "hatchet/json/hatchet-graph-literal.json")
    assert not timemory.sniff(data_dir / "hatchet/json/hatchet-graph-literal.json")


_word = st.text("abcdefghijklmnopqrstuvwxyz_.-", min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(_word, _word, st.integers(0, 99999), _word)
def test_func_file_line_tail_labels(func, file, line, tail):
    assert timemory.split_label(f"{func}@{file}:{line}/{tail}") == (
        f"{func}/{tail}",
        file,
        str(line),
    )
    assert timemory.split_label(f"{func}/{file}:{line}") == (func, file, str(line))
