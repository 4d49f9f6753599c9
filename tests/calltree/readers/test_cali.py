"""Native .cali reader (caliper-reader): Hatchet conformance, file facts, options, bad input."""

from __future__ import annotations

import copy
import math
from collections import defaultdict

import caliperreader
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave
from perfweave import GraphFrame
from perfweave.calltree.readers import cali, detect
from perfweave.errors import IncompleteInputWarning, ParseError
from tests.calltree._peer import assert_same
from tests.calltree.readers._round_trip_checks import assert_round_trips

H = "hatchet/"
EXAMPLE = H + "caliper-example-cali/example-profile.cali"
LULESH = H + "caliper-lulesh-cali/lulesh-annotation-profile.cali"
ORDERED = H + "caliper-ordered-cali/230525-151052_1930517_eWbGeyrlBOPT.cali"
ORDERED_MPI = H + "caliper-ordered-cali-mpi/230525-151723_1930647_FSY8b8cKSEEi.cali"
DUP = H + "caliper-ordered-duplicate/duplicate-node-order.cali"
DUP_OLD = H + "caliper-ordered-duplicate/duplicate-node-order-old.cali"
SW4 = H + "caliper-sw4-cuda-activity-cali/caliper_cuda_activity_profile.cali"
SW4_SUMMARY = (
    H + "caliper-sw4-cuda-activity-profile-cali/caliper_cuda_activity_profile_summary_v2.cali"
)
TS = H + "caliper-timeseries-cali/timeseries.cali"
TS_SMALL = H + "caliper-timeseries-cali/230711-163829_2055495_OV0UMVFsW6yp.cali"
SPOT = [H + f"spotdb/{i}.cali" for i in range(4)]
# file -> (nodes, roots, rows)
FACTS = {
    EXAMPLE: (24, 3, 24),
    LULESH: (19, 1, 19),
    ORDERED: (19, 1, 19),
    ORDERED_MPI: (26, 5, 26),
    DUP: (19, 1, 19),
    DUP_OLD: (26, 5, 26),
    SW4: (549, 1, 549 * 4),
    SW4_SUMMARY: (393, 1, 393),
    TS: (19, 1, 19),
    TS_SMALL: (4, 1, 4),
    SPOT[0]: (31, 1, 31),
    SPOT[1]: (31, 1, 31),
    SPOT[2]: (19, 1, 19),
    SPOT[3]: (19, 1, 19),
}


def _drop_hatchet_duplicate_root_rows(gf):
    """Hatchet registers a root twice, so every root gets an extra all-zero row per rank
    besides its real one; perfweave keeps one row per (node, rank)."""
    df = gf.dataframe
    metrics = gf.exc_metrics + gf.inc_metrics
    dup = df.index.duplicated(keep=False)
    zero = (df[metrics].fillna(0) == 0).all(axis=1).to_numpy()
    gf.dataframe = df[~(dup & zero)]
    return gf


def _records_by_path(path, attr):
    """Sum of one attribute over the records of each call path, from caliper-reader."""
    r = caliperreader.CaliperReader()
    r.read(str(path))
    out = defaultdict(list)
    for rec in r.records:
        if isinstance(rec.get("path"), list) and attr in rec:
            out[tuple(rec["path"])].append(float(rec[attr]))
    return {k: sum(v) for k, v in out.items()}


def _path_of(gf, nid):
    names = gf.graph.frames["name"].to_numpy()
    out = []
    while nid >= 0:
        out.append(names[nid])
        nid = gf.graph.parent[nid]
    return tuple(reversed(out))


@pytest.mark.peer
@pytest.mark.parametrize("rel", sorted(set(FACTS) - {TS, TS_SMALL}))
def test_same_as_hatchet(data_dir, rel):
    import hatchet

    path = str(data_dir / rel)
    ours = GraphFrame.from_cali(path)
    theirs = _drop_hatchet_duplicate_root_rows(hatchet.GraphFrame.from_caliperreader(path))
    assert_same(ours, theirs)
    # the one deliberate difference: an alias of an inclusive attribute ("Avg time/rank" for
    # avg#inclusive#sum#time.duration) is inclusive here; Hatchet classes it by the alias
    native = GraphFrame.from_cali(path, native=True)
    aliased_inc = {
        alias
        for alias, attr in zip(ours.inc_metrics, native.inc_metrics)
        if "inclusive" in attr and "inclusive" not in alias and "(inc)" not in alias
    }
    assert ours.exc_metrics == [m for m in theirs.exc_metrics if m not in aliased_inc]
    assert set(ours.inc_metrics) == set(theirs.inc_metrics) | aliased_inc
    assert ours.metadata == theirs.metadata


def test_aliases_of_inclusive_attributes_are_inclusive(data_dir):
    """Caliper's `Avg time/rank` is an alias of avg#inclusive#sum#time.duration: inclusive
    (Hatchet and Thicket class it exclusive, so a root shows a fraction of the run)."""
    path = sorted((data_dir / "thicket/mpi_scaling_cali").glob("*.cali"))[0]
    gf = GraphFrame.from_cali(str(path))
    assert gf.exc_metrics == []
    assert gf.inc_metrics == ["Min time/rank", "Max time/rank", "Avg time/rank", "Total time"]
    assert gf.default_metric == "Avg time/rank"
    native = GraphFrame.from_cali(str(path), native=True)
    assert native.inc_metrics[2] == "avg#inclusive#sum#time.duration"


@pytest.mark.peer
@pytest.mark.parametrize("rel", [TS, TS_SMALL])
def test_timeseries_as_one_profile_like_hatchet_where_complete(data_dir, rel):
    """Hatchet sums a node's snapshot records but yields NaN when any record lacks the
    attribute; perfweave sums the records that have it (NaN only if none has)."""
    import hatchet

    path = str(data_dir / rel)
    ours = GraphFrame.from_caliperreader(path)
    theirs = hatchet.GraphFrame.from_caliperreader(path)
    metrics = theirs.exc_metrics + theirs.inc_metrics
    complete = [m for m in metrics if theirs.dataframe[m].notna().all()]
    assert complete  # some metrics are comparable as they are
    assert_same(ours, theirs, metrics=complete)
    for m in set(metrics) - set(complete):
        sums = _records_by_path(path, next(k for k in _native_names(path, m)))
        for nid, value in ours.dataframe[m].items():
            expected = sums.get(_path_of(ours, nid))
            if expected is None:
                assert math.isnan(value) or value == 0
            else:
                assert math.isclose(value, expected, rel_tol=1e-12)


def _native_names(path, alias):
    r = caliperreader.CaliperReader()
    r.read(str(path))
    names = [a for a in r.attributes() if r.attribute(a).get("attribute.alias") == alias]
    return names + [alias]


@pytest.mark.parametrize("rel", sorted(FACTS))
def test_counts(data_dir, rel):
    nodes, roots, rows = FACTS[rel]
    gf = cali.read(data_dir / rel)
    assert (len(gf.graph), len(gf.graph.root_ids), len(gf.dataframe)) == (nodes, roots, rows)
    assert not gf.dataframe.index.has_duplicates


def test_example_profile_facts(data_dir):
    gf = cali.read(data_dir / EXAMPLE)
    names = gf.graph.frames["name"].to_numpy()
    assert set(names[gf.graph.root_ids]) == {"main", "MPI_Initialized", "MPI_Comm_dup"}
    assert gf.index_levels == []
    # aliases of *#inclusive#sum#time.duration: inclusive (Hatchet says exclusive)
    assert gf.inc_metrics == ["Min time/rank", "Max time/rank", "Avg time/rank", "Total time"]
    assert gf.exc_metrics == []
    main = gf.dataframe.loc[int(np.flatnonzero(names == "main")[0])]
    assert main["Total time"] == 0.301407 and main["spot.channel"] == "regionprofile"
    # globals parsed to Python values
    assert gf.metadata["spot.format.version"] == 2
    assert gf.metadata["cali.caliper.version"] == "2.6.0-dev"
    assert gf.metadata["mpi.world.size"] == 1


def test_lulesh_facts_and_default_metric(data_dir):
    gf = cali.read(data_dir / LULESH)
    names = gf.graph.frames["name"].to_numpy()
    main = gf.dataframe.loc[int(np.flatnonzero(names == "main")[0])]
    assert (main["count"], main["time"], main["max#time.duration"]) == (2, 0.025121, 0.024836)
    assert gf.dataframe["count"].dtype.kind in "iu"
    # Hatchet would pick the first metric, min#time.duration; "time" is the summed time
    assert gf.default_metric == "time"
    assert gf.exc_metrics == [
        "min#time.duration",
        "max#time.duration",
        "time",
        "avg#time.duration",
        "count",
    ]


def test_gpu_activity_nodes_and_ranks(data_dir):
    gf = cali.read(data_dir / SW4)
    types = gf.graph.frames["type"].value_counts().to_dict()
    assert types == {"function": 393, "kernel": 155, "memcpy": 1}
    assert gf.index_levels == ["rank"]
    assert sorted(set(gf.dataframe.index.get_level_values("rank"))) == [0, 1, 2, 3]
    assert gf.exc_metrics == ["time", "time (gpu)"] and gf.default_metric == "time"
    kernels = np.flatnonzero(gf.graph.frames["type"].to_numpy() == "kernel")
    # a kernel hangs under the host path that launched it
    parents = gf.graph.frames["name"].to_numpy()[gf.graph.parent[kernels]]
    assert "cudaLaunchKernel" in set(parents)
    main = int(gf.graph.root_ids[0])
    assert gf.dataframe.loc[(main, 1), "time"] == 0.10279


def test_node_order_attribute_orders_siblings(data_dir):
    reader = caliperreader.CaliperReader()
    reader.read(str(data_dir / ORDERED))
    slots = {
        rec["path"][-1]: rec
        for rec in reader.records
        if isinstance(rec.get("path"), list) and "min#min#aggregate.slot" in rec
    }
    # LagrangeLeapFrog's children appear as LagrangeNodal(5), LagrangeElements(11),
    # CalcTimeConstraintsForElems(61): give the last one the smallest slot
    slots["CalcTimeConstraintsForElems"]["min#min#aggregate.slot"] = "4"
    before = copy.deepcopy(reader.records)
    gf = cali.read(reader)
    assert reader.records == before  # records are not modified
    names = gf.graph.frames["name"].to_numpy()
    leap = int(np.flatnonzero(names == "LagrangeLeapFrog")[0])
    assert list(names[gf.graph.children_of(leap)]) == [
        "CalcTimeConstraintsForElems",
        "LagrangeNodal",
        "LagrangeElements",
    ]
    assert "Node order" not in gf.dataframe.columns
    by_frame = cali.read(reader, node_ordering=False)
    names = by_frame.graph.frames["name"].to_numpy()
    leap = int(np.flatnonzero(names == "LagrangeLeapFrog")[0])
    assert list(names[by_frame.graph.children_of(leap)]) == sorted(
        ["CalcTimeConstraintsForElems", "LagrangeNodal", "LagrangeElements"]
    )


def test_native_names_and_string_attributes(data_dir):
    gf = cali.read(data_dir / EXAMPLE, native=True, string_attributes=["mpi.function", "loop"])
    assert gf.inc_metrics == [
        "min#inclusive#sum#time.duration",
        "max#inclusive#sum#time.duration",
        "avg#inclusive#sum#time.duration",
        "sum#inclusive#sum#time.duration",
    ]
    assert gf.default_metric == "avg#inclusive#sum#time.duration"
    names = gf.graph.frames["name"].to_numpy()
    barrier = int(np.flatnonzero(names == "MPI_Barrier")[0])
    assert gf.dataframe.loc[barrier, "mpi.function"] == "MPI_Barrier"
    cycle = int(np.flatnonzero(names == "lulesh.cycle")[0])
    assert gf.dataframe.loc[cycle, "loop"] == "lulesh.cycle"
    plain = cali.read(data_dir / EXAMPLE, string_attributes="loop")
    assert "loop" in plain.dataframe.columns and "mpi.function" not in plain.dataframe.columns


def test_spot_timeseries_channel_is_skipped(data_dir):
    r = caliperreader.CaliperReader()
    r.read(str(data_dir / SPOT[0]))
    channels = {rec.get("spot.channel") for rec in r.records}
    assert "timeseries" in channels
    gf = cali.read(data_dir / SPOT[0])
    assert set(gf.dataframe["spot.channel"]) == {"regionprofile"}
    assert gf.metadata["launchdate"] == 1600990151


def _assert_round_trips_with_nan(gf):
    """JSON keeps NaN metric values; the literal format writes them as 0 (it is JSON),
    so the literal round trip is checked on the NaN-as-zero frame."""
    metrics = gf.exc_metrics + gf.inc_metrics
    if not gf.dataframe[metrics].isna().any().any():
        assert_round_trips(gf)
        return
    back = GraphFrame.from_json(gf.to_json())
    assert back.graph == gf.graph
    assert_same(back, gf)
    filled = gf.copy()
    filled.dataframe = gf.dataframe.fillna({m: 0 for m in metrics})
    assert_round_trips(filled)


@pytest.mark.parametrize("rel", [EXAMPLE, SW4, TS_SMALL, SPOT[2]])
def test_detected_and_round_trips(data_dir, rel, tmp_path):
    path = data_dir / rel
    assert detect(path) == "cali"
    gf = perfweave.read(path)
    assert gf.graph == cali.read(path).graph
    _assert_round_trips_with_nan(gf)
    # a .cali stream under another name is recognised by its first record
    other = tmp_path / "profile.txt"
    other.write_bytes(path.read_bytes())
    assert detect(other) == "cali"


# ---------------------------------------------------------------------------- bad input


def test_truncated_file(data_dir, tmp_path):
    text = (data_dir / LULESH).read_text()
    p = tmp_path / "cut.cali"
    p.write_text(text[: text.index("\n", len(text) // 2) + 15])
    with pytest.raises(ParseError, match="truncated") as info:
        cali.read(p)
    assert str(p) in str(info.value) and "line" in str(info.value)


def test_unknown_node_reference(data_dir, tmp_path):
    lines = (data_dir / LULESH).read_text().splitlines(keepends=True)
    lines[16] = lines[16].replace("ref=155", "ref=99999")
    p = tmp_path / "badref.cali"
    p.write_text("".join(lines))
    with pytest.raises(ParseError, match="line 17") as info:
        cali.read(p)
    assert str(p) in str(info.value)


def test_not_a_cali_file(data_dir, tmp_path):
    p = tmp_path / "x.cali"
    p.write_text((data_dir / "hatchet/json/hatchet-graph-literal.json").read_text())
    with pytest.raises(ParseError, match="line 1"):
        cali.read(p)
    empty = tmp_path / "empty.cali"
    empty.write_text("")
    with pytest.raises(ParseError, match="empty"):
        cali.read(empty)


def test_no_path_records(data_dir, tmp_path):
    lines = (data_dir / LULESH).read_text().splitlines(keepends=True)
    p = tmp_path / "nopath.cali"
    p.write_text("".join(lines[:13]))  # nodes and the one record without a path
    with pytest.raises(ParseError, match="'path'"):
        cali.read(p)


SAMPLED = """\
__rec=node,id=20,attr=10,data=2069,parent=5
__rec=node,id=21,attr=8,data=sum#time.duration,parent=20
__rec=node,id=22,attr=10,data=268,parent=3
__rec=node,id=23,attr=8,data=region,parent=22
__rec=node,id=24,attr=10,data=12,parent=3
__rec=node,id=25,attr=8,data=module#cali.sampler.pc,parent=24
__rec=node,id=26,attr=8,data=source.function#cali.sampler.pc,parent=24
__rec=node,id=27,attr=10,data=13,parent=1
__rec=node,id=28,attr=8,data=mpi.rank,parent=27
__rec=node,id=30,attr=23,data=main
__rec=node,id=31,attr=23,data=solve,parent=30
__rec=node,id=40,attr=25,data=app
__rec=node,id=41,attr=26,data=kernel_a,parent=40
__rec=node,id=42,attr=26,data=kernel_b,parent=40
__rec=ctx,ref=31=41,attr=21=28,data=5.0=0
__rec=ctx,ref=31=42,attr=21=28,data=2.0=0
__rec=ctx,ref=31=41,attr=21=28,data=1.5=0
__rec=ctx,ref=30=41,attr=21=28,data=4.0=1
"""


def test_sampled_records_name_the_sampled_function(tmp_path):
    """A sample replaces the innermost region of its path by the sampled function; a
    node's samples on one rank are summed into one row (``sampled_rows="keep"``: separate
    rows, as Hatchet reads them); absent ranks get zero rows."""
    p = tmp_path / "sampled.cali"
    p.write_text(SAMPLED)
    summed = cali.read(p)
    gf = cali.read(p, sampled_rows="keep")
    names = gf.graph.frames["name"].to_numpy()
    paths = sorted(_path_of(gf, n) for n in range(len(gf.graph)))
    assert paths == [("kernel_a",), ("main",), ("main", "kernel_a"), ("main", "kernel_b")]
    under_main = int(
        np.flatnonzero(names == "kernel_a")[gf.graph.parent[names == "kernel_a"] >= 0][0]
    )
    flat = gf.dataframe.reset_index()

    def times(node, rank):
        return sorted(flat.loc[(flat["node"] == node) & (flat["rank"] == rank), "time"])

    assert times(under_main, 0) == [1.5, 5.0]
    assert times(under_main, 1) == [0.0]
    root_a = int(np.flatnonzero((names == "kernel_a") & (gf.graph.parent < 0))[0])
    assert times(root_a, 1) == [4.0]
    assert gf.dataframe["time"].sum() == 12.5
    assert not summed.dataframe.index.has_duplicates
    assert summed.dataframe.loc[(under_main, 0), "time"] == 6.5
    assert summed.dataframe.loc[(under_main, 1), "time"] == 0.0
    assert summed.dataframe["time"].sum() == 12.5


def test_callpath_of_gpu_records():
    cp = cali._callpath
    assert cp(
        {"path": ["main", "hipMemcpy"], "rocm.activity": "COPY", "rocm.api": "hipMemcpy"}
    ) == (
        ("main", "COPY"),
        "memcpy",
        False,
    )
    assert cp(
        {"path": ["main"], "rocm.activity": "KERNEL_DISPATCH_COMPLETE", "rocm.kernel.name": "k"}
    ) == (("main", "k"), "kernel", False)
    assert cp({"path": ["main"], "cupti.activity.kind": "memset"}) == (
        ("main", "memset"),
        "memset",
        False,
    )
    assert cp({"path": "main"}) == (("main",), "function", False)
    assert cp({"path": []}) == (("unknown_context",), "function", False)
    assert cp({"function": "main"}) is None


def test_record_without_rank_in_a_multi_rank_profile(tmp_path):
    p = tmp_path / "norank.cali"
    p.write_text(
        SAMPLED.replace(
            "__rec=ctx,ref=30=41,attr=21=28,data=4.0=1", "__rec=ctx,ref=30=41,attr=21,data=4.0"
        )
    )
    with pytest.raises(ParseError, match="mpi.rank in every record") as info:
        cali.read(p)
    assert str(p) in str(info.value) and "kernel_a" in str(info.value)


AGGREGATED = """\
__rec=node,id=20,attr=10,data=2069,parent=5
__rec=node,id=21,attr=8,data=sum#time.duration,parent=20
__rec=node,id=22,attr=10,data=268,parent=3
__rec=node,id=23,attr=8,data=region,parent=22
__rec=node,id=24,attr=10,data=12,parent=3
__rec=node,id=25,attr=8,data=phase,parent=24
__rec=node,id=30,attr=23,data=main
__rec=node,id=31,attr=23,data=solve,parent=30
__rec=node,id=40,attr=25,data=setup
__rec=node,id=41,attr=25,data=run
__rec=ctx,ref=31=40,attr=21,data=5.0
__rec=ctx,ref=31=41,attr=21,data=1.5
__rec=ctx,ref=31=40,attr=21,data=2.0
__rec=ctx,ref=30,attr=21,data=4.0
"""


def test_records_of_a_node_are_aggregated(tmp_path):
    """Without ranks, a node's records make one row: numbers summed, text attributes as
    their distinct values in file order."""
    p = tmp_path / "agg.cali"
    p.write_text(AGGREGATED)
    gf = cali.read(p, string_attributes=["phase"])
    names = gf.graph.frames["name"].to_numpy()
    solve = int(np.flatnonzero(names == "solve")[0])
    main = int(np.flatnonzero(names == "main")[0])
    assert len(gf.dataframe) == 2
    assert gf.dataframe.loc[solve, "time"] == 8.5
    assert gf.dataframe.loc[solve, "phase"] == "setup,run"
    assert gf.dataframe.loc[main, "time"] == 4.0
    assert pd.isna(gf.dataframe.loc[main, "phase"])


# ------------------------------------------------------------------ property: synthetic files

_HEADER = """\
__rec=node,id=20,attr=10,data=2069,parent=5
__rec=node,id=21,attr=8,data=sum#time.duration,parent=20
__rec=node,id=22,attr=10,data=268,parent=3
__rec=node,id=23,attr=8,data=region,parent=22
"""


@st.composite
def region_profiles(draw):
    """Records as (call path, value) with paths over a few region names."""
    paths = draw(
        st.lists(
            st.lists(
                st.sampled_from(["main", "solve", "io", "a,b", "x=y"]), min_size=1, max_size=4
            ),
            min_size=1,
            max_size=15,
        )
    )
    values = draw(st.lists(st.integers(0, 100), min_size=len(paths), max_size=len(paths)))
    return [(tuple(p), float(v)) for p, v in zip(paths, values)]


def _cali_text(records) -> str:
    """A .cali stream for the records: one context node per distinct path prefix."""
    ids: dict[tuple, int] = {}
    lines = [_HEADER]
    for path, value in records:
        for depth in range(1, len(path) + 1):
            prefix = path[:depth]
            if prefix not in ids:
                ids[prefix] = 100 + len(ids)
                label = prefix[-1].replace(",", "\\,").replace("=", "\\=")
                parent = f",parent={ids[prefix[:-1]]}" if depth > 1 else ""
                lines.append(f"__rec=node,id={ids[prefix]},attr=23,data={label}{parent}\n")
        lines.append(f"__rec=ctx,ref={ids[path]},attr=21,data={value}\n")
    return "".join(lines)


@settings(max_examples=40, deadline=None)
@given(region_profiles())
def test_synthetic_region_profiles(tmp_path_factory, records):
    p = tmp_path_factory.mktemp("cali") / "synthetic.cali"
    p.write_text(_cali_text(records))
    gf = cali.read(p)
    prefixes = {path[:d] for path, _ in records for d in range(1, len(path) + 1)}
    assert len(gf.graph) == len(prefixes)
    assert {_path_of(gf, n) for n in range(len(gf.graph))} == prefixes
    totals: dict[tuple, float] = defaultdict(float)
    for path, value in records:
        totals[path] += value
    got = {_path_of(gf, n): v for n, v in gf.dataframe["time"].items()}
    assert got == {p: totals.get(p, 0.0) for p in prefixes}


# ------------------------------------------------------------------ property: value conversion

_VALUES = st.one_of(
    st.none(),
    st.integers(-(2**63), 2**64 - 1).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["0x1f", "abc", "", " 7 ", "1_000", "1e3", "nan", "-0"]),
    st.lists(st.sampled_from(["1", "a"]), min_size=1, max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_VALUES, min_size=1, max_size=12), st.sampled_from(["int", "uint", "double", "addr"])
)
def test_whole_column_conversion_equals_value_by_value(values, kind):
    """The whole-column int/float passes give what converting value by value gives."""

    def convert(fn):
        try:
            return fn(values, kind)
        except (OverflowError, ValueError) as exc:  # out of the column's integer range
            return type(exc)

    fast, each = convert(cali._to_number), convert(cali._to_number_each)
    if isinstance(each, type):
        assert fast is each
        return
    assert fast.dtype == each.dtype
    assert np.array_equal(fast, each, equal_nan=fast.dtype.kind == "f")


@pytest.mark.parametrize("rel", [TS, SW4, SPOT[0]])
def test_records_sharing_path_lists_read_like_unshared_ones(data_dir, rel):
    """Records of one context node share its path list (the reader places them once);
    with every list a separate object the result is the same."""
    shared = caliperreader.CaliperReader()
    shared.read(str(data_dir / rel))
    paths = [r["path"] for r in shared.records if isinstance(r.get("path"), list)]
    assert len({id(p) for p in paths}) < len(paths)  # the lists are shared
    unshared = caliperreader.CaliperReader()
    unshared.read(str(data_dir / rel))
    unshared.records = copy.deepcopy(unshared.records)
    a, b = cali.read(shared), cali.read(unshared)
    assert a.graph == b.graph
    pd.testing.assert_frame_equal(a.dataframe, b.dataframe, check_exact=True)


RAJA = "thicket/rajaperf/quartz/gcc10.3.1_1048576/O3/1/Base_Seq-default.cali"


def _first_snapshot_line(lines: list[str]) -> int:
    """The first snapshot of a region (its ref= names a path node and the spot channel)."""
    return next(
        i
        for i, line in enumerate(lines)
        if line.startswith("__rec=ctx,ref=") and line.split(",")[1].count("=") == 2
    )


@pytest.mark.parametrize(("change", "found"), [("cut", 13), ("extra", 15)])
def test_a_snapshot_whose_values_do_not_match_its_attributes(data_dir, tmp_path, change, found):
    """A record with fewer (or more) data= values than attr= ids: strict names the file and
    the line; lenient reads it pairwise with one counted IncompleteInputWarning."""
    lines = (data_dir / RAJA).read_text().splitlines(keepends=True)
    i = _first_snapshot_line(lines)
    record = lines[i].rstrip("\n")
    assert record.split(",data=")[1].count("=") + 1 == 14
    if change == "cut":
        lines[i] = record.rsplit("=", 1)[0] + "\n"
    else:
        lines[i] = record + "=7.5\n"
    bad = tmp_path / "short.cali"
    bad.write_text("".join(lines))
    with pytest.raises(ParseError) as info:
        cali.read(bad)
    message = str(info.value)
    assert str(bad) in message and f"line {i + 1}" in message
    assert f"as many data= values as attr= ids (14), found {found}" in message
    assert info.value.line == i + 1

    with pytest.warns(IncompleteInputWarning) as seen:
        lenient = cali.read(bad, strict=False)
    assert len(seen) == 1
    text = str(seen[0].message)
    assert str(bad) in text and "1 record(s)" in text and f"{i + 1} ({found} of 14)" in text
    # everything else is read as from the intact file; a cut value is NaN
    whole = cali.read(data_dir / RAJA).dataframe
    got = lenient.dataframe
    assert got.shape == whole.shape
    differs = ~((got == whole) | (got.isna() & whole.isna()))
    if change == "cut":
        assert int(differs.to_numpy().sum()) == 1
        assert differs["Reps"].sum() == 1  # the last attribute
        assert got["Reps"][differs["Reps"]].isna().all()
    else:
        assert not differs.to_numpy().any()


def test_many_uneven_snapshots_are_counted_in_one_warning(data_dir, tmp_path):
    lines = (data_dir / RAJA).read_text().splitlines(keepends=True)
    cut = [i for i, line in enumerate(lines) if line.startswith("__rec=ctx,") and "data=" in line]
    for i in cut:
        lines[i] = lines[i].rstrip("\n").rsplit("=", 1)[0] + "\n"
    bad = tmp_path / "short.cali"
    bad.write_text("".join(lines))
    with pytest.warns(IncompleteInputWarning) as seen:
        cali.read(bad, strict=False)
    assert len(seen) == 1
    assert f"{len(cut)} record(s)" in str(seen[0].message)
    assert f"and {len(cut) - 5} more" in str(seen[0].message)


def test_lenient_warnings_from_reader_processes_reach_the_caller(data_dir, tmp_path):
    """A warning a reader issues in a reader process is issued again by from_files."""
    lines = (data_dir / RAJA).read_text().splitlines(keepends=True)
    i = _first_snapshot_line(lines)
    lines[i] = lines[i].rstrip("\n").rsplit("=", 1)[0] + "\n"
    (tmp_path / "short.cali").write_text("".join(lines))
    files = [str(tmp_path / "short.cali"), str(data_dir / RAJA.replace("/1/", "/2/"))]
    with pytest.raises(perfweave.errors.ParseError, match=f"line {i + 1}"):
        perfweave.Ensemble.from_files(files, workers=2)
    with pytest.warns(IncompleteInputWarning, match="short.cali: 1 record") as seen:
        ens = perfweave.Ensemble.from_files(files, workers=2, strict=False)
    assert len(seen) == 1 and len(ens) == 2
