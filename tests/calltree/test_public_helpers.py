"""What calltree makes public for the packages above it (issue 30): one JSON parser for
every reader, json's numpy hook, GraphFrame.from_records, the forest and reader toolkits."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree import deepjson
from perfweave.calltree.forest import level_order
from perfweave.calltree.graph import Graph
from perfweave.calltree.graphframe import GraphFrame
from perfweave.calltree.readers.toolkit import load_json, to_int
from perfweave.errors import ArgumentError, ParseError

BROKEN = '{"parameters": ["p"],\n "measurements": {"main": [1, 2,,]}}'
COLUMN = 33  # where json stops: the second comma of line 2 (1-based, as json counts)


def test_parse_names_file_line_and_column():
    with pytest.raises(json.JSONDecodeError) as plain:
        json.loads(BROKEN)
    assert (plain.value.lineno, plain.value.colno) == (2, COLUMN)
    with pytest.raises(
        ParseError, match=rf"^x\.json, line 2, column {COLUMN}: expected a doc, found"
    ):
        deepjson.parse(BROKEN, "x.json", "a doc")
    # text that is one line of a file: the file's line, the column within it
    with pytest.raises(ParseError, match=r"^x\.jsonl, line 7, column 6: expected a record"):
        deepjson.parse('{"a" 1}', "x.jsonl", "a record", line=7)
    with pytest.raises(ParseError, match=r"x\.json: expected a doc, found .*digits"):
        deepjson.parse("[" + "9" * 5000 + "]", "x.json", "a doc")
    nested = "[" * 3000 + "]" * 3000  # deeper than json's recursion
    depth, value = 0, deepjson.parse(nested, "x.json", "a doc")
    while value:
        value, depth = value[0], depth + 1
    assert depth == 2999


def test_every_reader_of_json_reports_a_broken_file_alike(tmp_path):
    """Extra-P's JSON input and calltree's JSON readers parse with the one parser: the
    same broken text is refused at the same line and column by both."""
    path = tmp_path / "broken.json"
    path.write_text(BROKEN)
    where = rf"broken\.json, line 2, column {COLUMN}: expected "
    with pytest.raises(ParseError, match=where):
        pw.Ensemble.from_extrap(path, format="json")
    with pytest.raises(ParseError, match=where):
        load_json(path, "Hatchet GraphFrame JSON")


def test_numpy_default_writes_numpy_scalars_as_numbers():
    text = json.dumps({"n": np.int64(3), "x": np.float32(0.5)}, default=deepjson.numpy_default)
    assert json.loads(text) == {"n": 3, "x": 0.5}
    with pytest.raises(TypeError, match="set is not JSON serialisable"):
        json.dumps({"s": {1}}, default=deepjson.numpy_default)


def test_from_records_numbers_the_graph_and_remaps_rows():
    frames = [{"name": "main"}, {"name": "b"}, {"name": "a"}]
    data = pd.DataFrame({"node": [0, 1, 2, 1], "rank": [0, 0, 0, 1], "time": [1.0, 2, 3, 4]})
    gf = GraphFrame.from_records(
        frames, data, parent=[-1, 0, 0], exc_metrics=["time"], units={"time": "s"}
    )
    assert gf.graph.frames["name"].tolist() == ["main", "a", "b"]  # siblings by frame
    assert gf.dataframe.index.names == ["node", "rank"]
    assert gf.dataframe["time"].tolist() == [1.0, 3.0, 2.0, 4.0]  # a's row before b's
    assert gf.unit_of("time") == "s"
    with pytest.raises(ParseError, match="p.txt"):
        GraphFrame.from_records(frames, data, parent=[-1, 5, 0], path="p.txt")


def test_toolkit_and_forest_names():
    assert to_int("42", "f.txt", "a rank") == 42
    with pytest.raises(ParseError, match=r"f\.txt, line 3: expected a rank, found '4x'"):
        to_int("4x", "f.txt", "a rank", line=3)
    levels = level_order(np.array([0, 1, 2, 1, 0]))
    assert [lv.tolist() for lv in levels] == [[0, 4], [1, 3], [2]]


def test_graph_build_returns_each_input_nodes_canonical_id():
    frames = [{"name": "main"}, {"name": "z"}, {"name": "a"}, {"name": "b"}]
    graph, pos = Graph.build(frames, parent=[-1, 0, 0, 2])
    names = graph.frames["name"].tolist()
    assert names == ["main", "a", "b", "z"]  # preorder, siblings by frame
    assert [names[p] for p in pos] == ["main", "z", "a", "b"]  # input id -> canonical id
    dag, pos2 = Graph.build(frames, edges=([0, 0, 2, 1], [1, 2, 3, 3]))
    assert [dag.frames["name"].tolist()[p] for p in pos2] == ["main", "z", "a", "b"]
    assert sorted(dag.frame(int(p)).get("name") for p in dag.parents_of(int(pos2[3]))) == [
        "a",
        "z",
    ]
    # a recorded sibling order instead of frame order
    kept, _ = Graph.build(frames, parent=[-1, 0, 0, 2], order_key=[0, 1, 2, 3])
    assert kept.frames["name"].tolist() == ["main", "z", "a", "b"]
    with pytest.raises(ArgumentError, match="give exactly one of parent= or edges="):
        Graph.build(frames)


def test_parents_csr_lists_every_nodes_parents():
    frames = [{"name": "main"}, {"name": "z"}, {"name": "a"}, {"name": "b"}]
    dag, pos = Graph.build(frames, edges=([0, 0, 2, 1], [1, 2, 3, 3]))
    ptr, idx = dag.parents_csr()
    for node in range(len(dag)):
        assert idx[ptr[node] : ptr[node + 1]].tolist() == dag.parents_of(node).tolist()
    b = int(pos[3])
    assert sorted(idx[ptr[b] : ptr[b + 1]].tolist()) == sorted([int(pos[1]), int(pos[2])])
    assert ptr[int(pos[0]) + 1] == ptr[int(pos[0])]  # the root has none
    with pytest.raises(ValueError, match="read-only"):
        idx[0] = 5
