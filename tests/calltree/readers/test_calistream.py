"""The native .cali stream parser: same contents as caliper-reader, escapes, bad input."""

from __future__ import annotations

import io
from pathlib import Path

import caliperreader
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.calltree.readers import cali
from perfweave.calltree.readers._calistream import (
    AttributeInfo,
    from_caliperreader,
    parse_cali,
    split_record,
)
from perfweave.errors import ParseError

DATA = Path(__file__).resolve().parents[2] / "data"
# every real profile (the fuzz regression inputs are broken on purpose: not compared)
ALL_CALI = sorted(
    str(p.relative_to(DATA)) for p in DATA.rglob("*.cali") if "fuzz_regressions" not in p.parts
)


def _reference(text: str):
    """caliper-reader's view of a stream (blank lines left out, as the reader does)."""
    reader = caliperreader.CaliperReader()
    reader.read(io.StringIO("".join(ln for ln in text.splitlines(True) if ln.strip())))
    return from_caliperreader(reader)


def _assert_same_contents(ours, ref):
    assert ours.records == ref.records
    # dict order decides the dataframe's column order, so it must agree too
    assert [list(r) for r in ours.records] == [list(r) for r in ref.records]
    assert ours.globals == ref.globals and list(ours.globals) == list(ref.globals)
    assert ours.attributes == ref.attributes


def test_every_bundled_file_is_found():
    assert len(ALL_CALI) >= 30
    assert any(p.startswith("hatchet/") for p in ALL_CALI)
    assert any(p.startswith("thicket/") for p in ALL_CALI)


@pytest.mark.parametrize("rel", ALL_CALI)
def test_same_as_caliper_reader(rel):
    path = DATA / rel
    reader = caliperreader.CaliperReader()
    reader.read(str(path))
    ours = parse_cali(path.read_text(), rel)
    _assert_same_contents(ours, from_caliperreader(reader))
    assert ours.records  # every bundled file has snapshots


def test_attribute_metadata_of_a_file():
    rel = "hatchet/caliper-example-cali/example-profile.cali"
    got = parse_cali((DATA / rel).read_text(), rel)
    assert got.attribute("sum#inclusive#sum#time.duration") == AttributeInfo(
        "double", True, "Total time", "sec"
    )
    assert got.attribute("mpi.function") == AttributeInfo("string", False, None)
    assert got.attribute("cali.attribute.name").type == "string"
    assert got.attribute("no such attribute") is None
    main = next(r for r in got.records if r.get("path") == ["main"])
    assert main["sum#inclusive#sum#time.duration"] == "0.301407"


@pytest.mark.parametrize(
    "rel",
    [
        "hatchet/caliper-example-cali/example-profile.cali",
        "hatchet/caliper-sw4-cuda-activity-cali/caliper_cuda_activity_profile.cali",
        "thicket/rajaperf/quartz/gcc10.3.1_1048576/O3/1/Base_Seq-default.cali",
    ],
)
def test_reading_a_caliperreader_object_gives_the_same_graphframe(rel):
    path = DATA / rel
    reader = caliperreader.CaliperReader()
    reader.read(str(path))
    a, b = cali.read(path), cali.read(reader)
    assert a.graph == b.graph
    pd.testing.assert_frame_equal(a.dataframe, b.dataframe, check_exact=True)
    assert (a.exc_metrics, a.inc_metrics, a.metadata) == (b.exc_metrics, b.inc_metrics, b.metadata)


# ------------------------------------------------------------------------- escapes


def _escape(text: str) -> str:
    """Caliper's escaping of a value in a record line."""
    return text.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=").replace("\n", "\\n")


def test_split_record_escapes():
    line = r"__rec=node,id=20,attr=23,data=a\,b\=c\\d\ne\x,parent=5"
    assert split_record(line) == {
        "__rec": ["node"],
        "id": ["20"],
        "attr": ["23"],
        "data": ["a,b=c\\d\nex"],
        "parent": ["5"],
    }
    # caliper-reader's rules: a later key wins, a final empty value drops its field
    assert split_record("a=1,a=2=3,b=x=") == {"a": ["2", "3"]}
    assert split_record("k=,v=1") == {"k": [""], "v": ["1"]}


_TEXT = st.text(alphabet=st.sampled_from(list("ab9 ,=\\\nxé")), min_size=1, max_size=8).filter(
    lambda s: s == s.strip()
)

_HEAD = (
    "__rec=node,id=20,attr=10,data=2069,parent=5\n"  # as_value double
    "__rec=node,id=21,attr=10,data=268,parent=3\n"  # nested string
    "__rec=node,id=22,attr=10,data=12,parent=3\n"  # plain string
)


@st.composite
def escaped_streams(draw):
    """A stream declaring attributes with awkward names, region nodes and snapshots whose
    names and values need escaping; returns (text, expected records)."""
    metric, region, label = draw(st.lists(_TEXT, min_size=3, max_size=3, unique=True))
    lines = [
        _HEAD,
        f"__rec=node,id=30,attr=8,data={_escape(metric)},parent=20\n",
        f"__rec=node,id=31,attr=8,data={_escape(region)},parent=21\n",
        f"__rec=node,id=32,attr=8,data={_escape(label)},parent=22\n",
    ]
    paths: dict[tuple, int] = {}
    expected = []
    for _ in range(draw(st.integers(1, 6))):
        path = tuple(draw(st.lists(_TEXT, min_size=1, max_size=3)))
        for depth in range(1, len(path) + 1):
            if path[:depth] not in paths:
                paths[path[:depth]] = nid = 100 + len(paths)
                parent = f",parent={paths[path[: depth - 1]]}" if depth > 1 else ""
                lines.append(
                    f"__rec=node,id={nid},attr=31,data={_escape(path[depth - 1])}{parent}\n"
                )
        value, tag = draw(_TEXT), draw(_TEXT)
        lines.append(f"__rec=node,id={900 + len(expected)},attr=32,data={_escape(tag)}\n")
        lines.append(
            f"__rec=ctx,ref={paths[path]}={900 + len(expected)},attr=30,data={_escape(value)}\n"
        )
        rec = {region: path[0] if len(path) == 1 else list(path), "path": list(path)}
        rec.update({label: tag, metric: value})
        expected.append(rec)
    return "".join(lines), expected


@settings(max_examples=60, deadline=None)
@given(escaped_streams())
def test_escaped_streams_round_trip_and_match_caliper_reader(stream):
    text, expected = stream
    ours = parse_cali(text, "gen.cali")
    assert ours.records == expected
    _assert_same_contents(ours, _reference(text))


_LINE_TEXT = st.text(alphabet=st.sampled_from(list("a1 ,=\\n")), max_size=12)


@settings(max_examples=200, deadline=None)
@given(_LINE_TEXT, _LINE_TEXT)
def test_arbitrary_fields_split_like_caliper_reader(key, value):
    from caliperreader.caliperstreamreader import _read_cali_record

    line = f"__rec=ctx,{key}=1\\,2,attr=8,data={value}".strip()
    try:
        expected = _read_cali_record(line)
    except StopIteration:  # a final lone backslash
        with pytest.raises(ParseError, match="line 1"):
            parse_cali(line + "\n", "x.cali")
        return
    assert split_record(line) == expected


# ------------------------------------------------------------------------- bad input

_GOOD = _HEAD + (
    "__rec=node,id=30,attr=8,data=time,parent=20\n"
    "__rec=node,id=31,attr=8,data=region,parent=21\n"
    "__rec=node,id=40,attr=31,data=main\n"
)


@pytest.mark.parametrize(
    "bad, line, message",
    [
        ("__rec=ctx,ref=41,attr=30,data=1.0\n", 7, "known node"),
        ("__rec=ctx,ref=40,attr=77,data=1.0\n", 7, "declared attribute id"),
        ("__rec=ctx,ref=x,attr=30,data=1.0\n", 7, "known node"),
        ("__rec=snapshot,ref=40\n", 7, "record kind"),
        ("ref=40,attr=30,data=1.0\n", 7, "__rec="),
        ("__rec=node,id=x,attr=8,data=y\n", 7, "integer id"),
        ("__rec=node,id=50,attr=99,data=y\n__rec=ctx,ref=50\n", 8, "attribute id"),
        ("__rec=ctx,ref=40,attr=30,data=1.0\\\n", 7, "final"),
    ],
)
def test_bad_records_name_file_and_line(bad, line, message):
    with pytest.raises(ParseError, match=message) as info:
        parse_cali(_GOOD + bad, "bad.cali")
    err = info.value
    assert (err.path, err.line) == ("bad.cali", line)
    assert f"bad.cali, line {line}" in str(err)


def test_truncated_and_empty_streams():
    with pytest.raises(ParseError, match="truncated") as info:
        parse_cali(_GOOD + "__rec=ctx,ref=40,attr=30,da", "cut.cali")
    assert info.value.line == 7
    with pytest.raises(ParseError, match="empty"):
        parse_cali("\n\n", "blank.cali")


def test_blank_lines_are_skipped_and_lines_counted():
    text = _GOOD.replace("\n", "\n\n", 1) + "__rec=ctx,ref=40,attr=30,data=2.5\n"
    got = parse_cali(text, "b.cali")
    assert got.records == [{"region": "main", "path": ["main"], "time": "2.5"}]
    with pytest.raises(ParseError) as info:
        parse_cali(text + "__rec=bogus\n", "b.cali")
    assert info.value.line == text.count("\n") + 1


def test_bad_file_through_the_reader(tmp_path):
    p = tmp_path / "kind.cali"
    p.write_text(_GOOD + "__rec=bogus,ref=40\n")
    with pytest.raises(ParseError, match="line 7") as info:
        cali.read(p)
    assert str(p) in str(info.value) and "'bogus'" in str(info.value)
