"""Caliper json-split reader: Hatchet conformance, facts of the bundled files, bad input."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave
from perfweave import GraphFrame
from perfweave.calltree.readers import caliper_json, detect
from perfweave.errors import ParseError
from tests.calltree._peer import assert_same
from tests.calltree.readers._round_trip_checks import assert_round_trips

CPI = "hatchet/caliper-cpi-json/cpi-callpath-profile.json"
LULESH = "hatchet/caliper-lulesh-json/lulesh-annotation-profile.json"
ORDERED = "hatchet/caliper-ordered-json/caliper-region-node-order.json"
ORDERED_DUP = "hatchet/caliper-ordered-duplicate-json/caliper-region-dup-node-order.json"
ALL = [(CPI, False), (LULESH, False), (ORDERED, True), (ORDERED_DUP, True)]


def _hatchet_with_parents(gf):
    """Hatchet's json-split reader links children but not parents (Node.paths() then
    sees every node as a root); link them so paths can be compared."""
    for node in gf.graph.traverse():
        for child in node.children:
            if node not in child.parents:
                child.add_parent(node)
    return gf


def _by_name(gf, name):
    ids = np.flatnonzero(gf.graph.frames["name"].to_numpy() == name)
    assert len(ids) == 1, (name, ids)
    return int(ids[0])


@pytest.mark.peer
@pytest.mark.parametrize("rel,ordering", ALL)
def test_same_as_hatchet(data_dir, rel, ordering):
    import hatchet

    path = str(data_dir / rel)
    ours = GraphFrame.from_caliper(path, node_ordering=ordering)
    theirs = _hatchet_with_parents(hatchet.GraphFrame.from_caliper(path, node_ordering=ordering))
    # with node_ordering Hatchet lists "Node order" as a metric but drops its column
    metrics = [m for m in theirs.exc_metrics + theirs.inc_metrics if m != "Node order"]
    assert_same(ours, theirs, metrics=metrics)
    assert ours.exc_metrics == [m for m in theirs.exc_metrics if m != "Node order"]
    assert ours.inc_metrics == theirs.inc_metrics
    assert ours.metadata == theirs.metadata


@pytest.mark.peer
@pytest.mark.parametrize("rel", [ORDERED, ORDERED_DUP])
def test_node_order_traversal_as_hatchet(data_dir, rel):
    import hatchet

    path = str(data_dir / rel)
    ours = [n.frame["name"] for n in GraphFrame.from_caliper(path).graph.traverse()]
    theirs = [n.frame["name"] for n in hatchet.GraphFrame.from_caliper(path).graph.traverse()]
    assert ours == theirs


def test_cpi_callpath_facts(data_dir):
    path = data_dir / CPI
    raw = json.loads(path.read_text())
    gf = caliper_json.read(path, node_ordering=False)
    assert len(gf.graph) == 127
    assert sorted(gf.graph.frames["name"].to_numpy()[gf.graph.root_ids]) == [
        "_start",
        "log2",
        "pthread_spin_lock",
    ]
    assert gf.index_levels == ["rank"]
    assert sorted(set(gf.dataframe.index.get_level_values("rank"))) == [0, 1, 2, 3]
    assert len(gf.dataframe) == 127 * 4  # every node has a row for every rank
    assert gf.exc_metrics == ["count", "time"] and gf.inc_metrics == []
    assert gf.default_metric == "time"
    # totals are kept: rows added for absent (node, rank) pairs hold zeros
    assert gf.dataframe["time"].sum() == sum(r[5] for r in raw["data"]) == 2299906.0
    assert gf.dataframe["count"].sum() == sum(r[0] for r in raw["data"]) == 460
    main = gf.dataframe.loc[(_by_name(gf, "main"), 0)]
    assert (main["count"], main["time"], main["module"]) == (62, 309432.0, "cpi")
    assert (main["file"], main["line"]) == ("UNKNOWN", "0")


def test_cpi_lines_become_statement_children(data_dir):
    gf = caliper_json.read(data_dir / CPI, node_ordering=False)
    bcast = _by_name(gf, "MPIR_Bcast_index_tuned_intra_MV2")
    kids = gf.graph.children_of(bcast)
    is_stmt = gf.graph.frames["type"].to_numpy()[kids] == "statement"
    kids = kids[is_stmt]
    frames = gf.graph.frames.iloc[kids]
    assert frames["name"].isna().all()  # as in Hatchet, a line frame is (type, file, line)
    assert sorted(frames["line"].astype(int)) == [2446, 2473, 2475, 2486, 2494, 2511, 2512, 2531]
    assert set(frames["file"]) == {"/builddir/build/BUILD/mvapich/src/src/mpi/coll/bcast_osu.c"}
    # the samples moved to the line children; the function keeps zero rows
    assert (gf.dataframe.loc[bcast, "time"] == 0).all()
    line_2512 = int(kids[(frames["line"] == "2512").to_numpy()][0])
    times = gf.dataframe.loc[line_2512, "time"]
    assert times.to_dict() == {0: 0.0, 1: 0.0, 2: 5007.0, 3: 4990.0}
    assert gf.dataframe.loc[(line_2512, 2), "name"] == "bcast_osu.c:2512"


def test_lulesh_region_facts(data_dir):
    gf = caliper_json.read(data_dir / LULESH, node_ordering=False)
    assert len(gf.graph) == 24
    assert list(gf.graph.frames["name"].to_numpy()[gf.graph.root_ids]) == ["main"]
    assert set(gf.graph.frames["type"]) == {"region"}
    assert len(gf.dataframe) == 24 * 8  # the 8 rows without a path are left out
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]
    main = gf.dataframe.loc[_by_name(gf, "main")]
    assert main.loc[0, "time (inc)"] == 5882425.0 and main.loc[0, "time"] == 121489.0
    energy = gf.dataframe.loc[(_by_name(gf, "CalcEnergyForElems"), 2)]
    assert (energy["time (inc)"], energy["time"]) == (647474.0, 352694.0)


def test_node_order_orders_siblings(data_dir):
    ordered = caliper_json.read(data_dir / ORDERED)
    leap = _by_name(ordered, "LagrangeLeapFrog")
    names = ordered.graph.frames["name"].to_numpy()
    assert list(names[ordered.graph.children_of(leap)]) == [
        "LagrangeNodal",
        "LagrangeElements",
        "CalcTimeConstraintsForElems",
    ]
    assert ordered.graph.node_ordering
    assert "Node order" not in ordered.dataframe.columns
    assert ordered.metadata["cluster"] == "quartz" and ordered.metadata["iterations"] == "10"

    by_frame = caliper_json.read(data_dir / ORDERED, node_ordering=False)
    leap = _by_name(by_frame, "LagrangeLeapFrog")
    names = by_frame.graph.frames["name"].to_numpy()
    assert list(names[by_frame.graph.children_of(leap)]) == [
        "CalcTimeConstraintsForElems",
        "LagrangeElements",
        "LagrangeNodal",
    ]
    assert "Node order" in by_frame.exc_metrics
    assert by_frame.dataframe.loc[(_by_name(by_frame, "CalcEnergyForElems"), 0), "Node order"] == 30


def test_duplicate_node_order_keeps_both_siblings_in_file_order(data_dir):
    gf = caliper_json.read(data_dir / ORDERED_DUP)
    parent = _by_name(gf, "CalcVolumeForceForElems")
    names = gf.graph.frames["name"].to_numpy()
    assert list(names[gf.graph.children_of(parent)]) == [
        "IntegrateStressForElems",
        "CalcHourglassControlForElems",
    ]


@pytest.mark.parametrize("rel,ordering", ALL)
def test_detected_and_round_trips(data_dir, rel, ordering):
    path = data_dir / rel
    assert detect(path) == "caliper"
    gf = perfweave.read(path, node_ordering=ordering)
    assert gf.graph == caliper_json.read(path, node_ordering=ordering).graph
    assert_round_trips(gf)


def test_dict_input_is_not_modified(data_dir):
    raw = json.loads((data_dir / CPI).read_text())
    before = copy.deepcopy(raw)
    gf = caliper_json.from_dict(raw, node_ordering=False)
    assert raw == before
    assert len(gf.graph) == 127


# ---------------------------------------------------------------------------- bad input


def _minimal() -> dict:
    return {
        "data": [[1.0, 0, 0], [2.0, 0, 1]],
        "columns": ["sum#time.duration", "mpi.rank", "path"],
        "column_metadata": [{"is_value": True}, {"is_value": True}, {"is_value": False}],
        "nodes": [
            {"label": "main", "column": "path"},
            {"label": "a", "column": "path", "parent": 0},
        ],
    }


def _write(tmp_path, obj, name="bad.json"):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return p


def test_minimal_file_reads(tmp_path):
    gf = caliper_json.read(_write(tmp_path, _minimal()))
    assert len(gf.graph) == 2 and gf.dataframe["time"].tolist() == [1.0, 2.0]


def test_truncated_file(tmp_path, data_dir):
    text = (data_dir / LULESH).read_text()
    p = _write(tmp_path, text[: len(text) // 2])
    with pytest.raises(ParseError, match="line") as info:
        caliper_json.read(p)
    assert str(p) in str(info.value)


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda d: d.pop("nodes"), "no nodes"),
        (lambda d: d["column_metadata"].pop(), "one entry per column"),
        (lambda d: d.update(columns=["sum#time.duration", "mpi.rank", "region"]), "hierarchy"),
        (lambda d: d["nodes"][1].update(parent=7), "parent index"),
        (lambda d: d["nodes"][0].update(parent=1), "well-formed call graph"),
        (lambda d: d["data"][1].append(3), r"data\[1\]"),
        (lambda d: d["data"][1].__setitem__(2, 5), "indices into 'nodes'"),
        (lambda d: d["nodes"][1].pop("label"), r"nodes\[1\]"),
        (lambda d: d["column_metadata"][0].pop("is_value"), "is_value"),
        (lambda d: d["data"][1].__setitem__(1, None), "mpi.rank"),
    ],
)
def test_malformed_parts(tmp_path, mutate, message):
    doc = _minimal()
    mutate(doc)
    p = _write(tmp_path, doc)
    with pytest.raises(ParseError, match=message) as info:
        caliper_json.read(p)
    assert str(p) in str(info.value)


def test_parent_outside_the_hierarchy(tmp_path):
    doc = _minimal()
    doc["nodes"].append({"label": "cpi", "column": "module#cali.sampler.pc"})
    doc["nodes"][1]["parent"] = 2
    with pytest.raises(ParseError, match="'path' hierarchy"):
        caliper_json.read(_write(tmp_path, doc))


def test_not_json_split(tmp_path, data_dir):
    with pytest.raises(ParseError, match="json-split sections"):
        caliper_json.read(data_dir / "hatchet/json/hatchet-graph-literal.json")
    p = _write(tmp_path, "__rec=node,id=1\n", "x.json")
    with pytest.raises(ParseError):
        caliper_json.read(p)


# ------------------------------------------------------------------ property: synthetic trees


@st.composite
def json_split_docs(draw):
    n = draw(st.integers(1, 40))
    parents = [-1] + [draw(st.integers(-1, i - 1)) for i in range(1, n)]
    labels = [draw(st.sampled_from(["a", "b", "c", "main", ""])) for _ in range(n)]
    n_ranks = draw(st.integers(1, 3))
    rows = []
    for node in range(n):
        for rank in range(n_ranks):
            if draw(st.booleans()):
                rows.append([float(draw(st.integers(0, 1000))), rank, node])
    nodes = [
        {"label": lab, "column": "path", **({"parent": p} if p >= 0 else {})}
        for lab, p in zip(labels, parents)
    ]
    return {
        "data": rows,
        "columns": ["sum#time.duration", "mpi.rank", "path"],
        "column_metadata": [{"is_value": True}, {"is_value": True}, {"is_value": False}],
        "nodes": nodes,
    }


@settings(max_examples=60, deadline=None)
@given(json_split_docs())
def test_synthetic_trees_keep_structure_and_values(doc):
    gf = caliper_json.from_dict(doc, node_ordering=False)
    n = len(doc["nodes"])
    assert len(gf.graph) == n
    nid = gf.dataframe["nid"].groupby(level="node").first().to_numpy()
    # parent relation of the file, through the raw ids kept in "nid"
    raw_parent = np.array([nd.get("parent", -1) for nd in doc["nodes"]])
    ours_parent = np.where(gf.graph.parent >= 0, nid[np.maximum(gf.graph.parent, 0)], -1)
    assert np.array_equal(ours_parent, raw_parent[nid])
    # every value lands at its (node, rank); absent pairs are zero
    ranks = sorted({r[1] for r in doc["data"]}) or [0]
    expected = np.zeros((n, max(ranks) + 1))
    for t, r, node in doc["data"]:
        expected[node, r] = t
    got = np.zeros_like(expected)
    df = gf.dataframe.reset_index()
    if len(doc["data"]):
        got[nid[df["node"].to_numpy()], df["rank"].to_numpy()] = df["time"].to_numpy()
        assert np.array_equal(got, expected)
    empty = [lab == "" for lab in (nd["label"] for nd in doc["nodes"])]
    assert all(
        gf.graph.frames["name"].to_numpy()[np.flatnonzero(nid == i)[0]].startswith("UNKNOWN ")
        for i in np.flatnonzero(empty)
    )


# ------------------------------------------------------- both hierarchies, odd source locations

BOTH = {
    "data": [
        [3, 0, 1, 4, 10.0],
        [2, 0, 1, 5, 5.0],
        [1, 1, 1, 4, 7.0],
        [4, 0, 2, 4, 8.0],
        [1, 1, 0, None, 1.0],
    ],
    "columns": [
        "count",
        "mpi.rank",
        "source.function#callpath.address",
        "path",
        "sum#time.duration",
    ],
    "column_metadata": [
        {"is_value": True},
        {"is_value": True},
        {"is_value": False},
        {"is_value": False},
        {"is_value": True},
    ],
    "nodes": [
        {"label": "main", "column": "source.function#callpath.address"},
        {"label": "solve", "column": "source.function#callpath.address", "parent": 0},
        {"label": "io", "column": "source.function#callpath.address", "parent": 0},
        {"label": "cpi", "column": "module#cali.sampler.pc"},
        {"label": "phase1", "column": "path"},
        {"label": "phase2", "column": "path", "parent": 4},
    ],
}


def test_region_records_are_summed_per_call_path_node():
    gf = caliper_json.from_dict(BOTH, node_ordering=False)
    assert len(gf.graph) == 3  # the call path hierarchy; "path" is an attribute
    solve = _by_name(gf, "solve")
    assert gf.dataframe.loc[(solve, 0), ["count", "time"]].tolist() == [5, 15.0]
    assert gf.dataframe.loc[(solve, 0), "path"] == "phase1"
    assert gf.dataframe.loc[(_by_name(gf, "io"), 1), "time"] == 0.0


@pytest.mark.peer
def test_both_hierarchies_as_hatchet(tmp_path):
    import hatchet

    p = _write(tmp_path, BOTH, "both.json")
    ours = caliper_json.read(p, node_ordering=False)
    theirs = _hatchet_with_parents(hatchet.GraphFrame.from_caliper(str(p), node_ordering=False))
    assert_same(ours, theirs)


def test_source_location_without_line_number():
    """Hatchet fails on a sampled location that is not "file:line"; it has no file/line."""
    doc = {
        "data": [[1, 0, 1, 10.0], [1, 0, 2, 3.0], [1, 0, 3, 2.0]],
        "columns": [
            "count",
            "source.function#callpath.address",
            "sourceloc#cali.sampler.pc",
            "sum#time.duration",
        ],
        "column_metadata": [
            {"is_value": True},
            {"is_value": False},
            {"is_value": False},
            {"is_value": True},
        ],
        "nodes": [
            {"label": "main", "column": "source.function#callpath.address"},
            {"label": "[unknown]", "column": "sourceloc#cali.sampler.pc"},
            {"label": "/src/a.c:12", "column": "sourceloc#cali.sampler.pc"},
            {"label": "/src/a.c:40", "column": "sourceloc#cali.sampler.pc"},
        ],
    }
    gf = caliper_json.from_dict(doc, node_ordering=False)
    # two distinct lines: one statement child each; the unlocated sample stays on main
    assert len(gf.graph) == 3
    assert gf.dataframe.loc[0, "time"] == 10.0 and gf.dataframe["time"].sum() == 15.0
    lines = gf.graph.frames.set_index("line")["file"].dropna().to_dict()
    assert lines == {"12": "/src/a.c", "40": "/src/a.c"}


def test_streams_and_native_files(data_dir):
    with open(data_dir / LULESH, "rb") as f:
        from_stream = GraphFrame.from_caliper(f, node_ordering=False)
    assert from_stream.graph == caliper_json.read(data_dir / LULESH, node_ordering=False).graph
    cali_path = data_dir / "hatchet/caliper-lulesh-cali/lulesh-annotation-profile.cali"
    native = GraphFrame.from_caliper(str(cali_path))  # no cali-query: read natively
    assert native.graph == GraphFrame.from_cali(cali_path).graph
    assert len(native.graph) == 19


# ------------------------------------------------ the fast path for files (data parsed as CSV)


@pytest.mark.parametrize("rel,ordering", ALL)
def test_fast_file_path_equals_json_path(data_dir, rel, ordering):
    raw = (data_dir / rel).read_bytes()
    assert caliper_json._fast_load(raw) is not None  # Caliper's layout takes the fast path
    fast = caliper_json.read(data_dir / rel, node_ordering=ordering)
    plain = caliper_json.from_dict(json.loads(raw), node_ordering=ordering)
    assert fast.graph == plain.graph
    assert fast.dataframe.equals(plain.dataframe)
    assert fast.metadata == plain.metadata


def _caliper_layout(doc: dict) -> str:
    """json-split text laid out as cali-query writes it (one record per line)."""
    rows = ",\n".join("    [ " + ", ".join(json.dumps(v) for v in r) + " ]" for r in doc["data"])
    rest = json.dumps({k: v for k, v in doc.items() if k != "data"}, indent=2)[1:]
    return '{\n  "data": [\n' + rows + "\n  ],\n" + rest.lstrip("\n")


@settings(max_examples=60, deadline=None)
@given(
    json_split_docs(),
    st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1, max_size=5),
    st.sampled_from(["caliper", "compact", "indented"]),
)
def test_file_layouts_read_the_same(tmp_path_factory, doc, extra, layout):
    """Whatever the layout, reading the file equals reading the parsed dict, to the bit."""
    doc = copy.deepcopy(doc)
    for i, row in enumerate(doc["data"]):  # arbitrary doubles, shortest repr in the text
        row[0] = extra[i % len(extra)]
    if layout == "caliper" and doc["data"]:
        text = _caliper_layout(doc)
    elif layout == "indented":
        text = json.dumps(doc, indent=2)  # one value per line: the plain JSON path
    else:
        text = json.dumps(doc)
    p = tmp_path_factory.mktemp("split") / "doc.json"
    p.write_text(text)
    got = caliper_json.read(p, node_ordering=False)
    want = caliper_json.from_dict(json.loads(text), node_ordering=False)
    assert got.graph == want.graph
    assert got.dataframe.equals(want.dataframe)


def test_records_with_text_use_the_json_path(tmp_path):
    doc = _minimal()
    doc["columns"].append("note")
    doc["column_metadata"].append({"is_value": True})
    doc["data"][0].append("a, [b]")
    doc["data"][1].append(None)
    p = _write(tmp_path, _caliper_layout(doc))
    assert caliper_json._fast_load(p.read_bytes()) is None
    # text in a value column is named, not kept as an object "metric" (issue #16)
    with pytest.raises(ParseError, match=r"data row 0.*value column 'note'.*a, \[b\]"):
        caliper_json.read(p)


def test_rank_column_declared_a_reference(data_dir, tmp_path):
    """mpi.rank declared ``is_value: false`` refers to the nodes table: its labels are the
    ranks. A label that is no rank was an unexpected ValueError ('invalid literal for
    int()': 'solve'); it is a ParseError naming the file, the row and the value."""
    spec = json.loads((data_dir / "calltree-user/user-profile.json").read_text())
    spec["column_metadata"][0] = {"is_value": False}
    path = tmp_path / "rank-refs.json"
    path.write_text(json.dumps(spec))
    with pytest.raises(ParseError, match=r"rank-refs.json, data row 0: .*mpi.rank.*'main'"):
        perfweave.read(path)
    # references whose labels are ranks read as those ranks: the profile as written
    spec["nodes"] += [{"column": "mpi.rank", "label": str(r)} for r in (0, 1, 2)]
    for record in spec["data"]:
        record[0] += len(spec["nodes"]) - 3
    path.write_text(json.dumps(spec))
    gf = perfweave.read(path)
    want = perfweave.read(data_dir / "calltree-user/user-profile.json")
    assert gf.graph == want.graph
    assert gf.dataframe.equals(want.dataframe)


def test_infinite_value_is_named_as_written(data_dir, tmp_path):
    """An infinite time was named 'np.float64(inf)' (numpy's repr) in the error."""
    spec = json.loads((data_dir / "calltree-user/user-profile.json").read_text())
    spec["data"][1][1] = float("inf")  # json writes Infinity, as Python's and JS's do
    path = tmp_path / "inf.json"
    path.write_text(json.dumps(spec))
    with pytest.raises(ParseError, match=r"inf.json, data row 1: .*'time', found 'inf'$"):
        perfweave.read(path)
