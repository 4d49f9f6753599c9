"""The sample file path grammar: real listings, edge cases, bad paths, property tests."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.classes import (
    SampleSpec,
    parse_sample_path,
    parse_sample_paths,
    read_listing,
    scan_session,
)
from perfweave.errors import ParseError

from .conftest import DATA

NOSEP = "samples/current/{root}/usr/bin/perl/{dep}"


def test_listing_fields_for_each_image_kind(listings):
    specs = {
        s.lib_image: s
        for s in parse_sample_paths(listings["nosep"]).specs()
        if s.image == "/usr/bin/perl"
    }
    assert set(specs) == {
        "/usr/bin/perl",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/ext4",
        "anon (tgid:4242 range:0x7f0000000000-0x7f0000100000)",
    }
    own = specs["/usr/bin/perl"]
    assert (own.event, own.count, own.unitmask, own.tgid, own.tid, own.cpu) == (
        "CPU_CLK_UNHALTED",
        "100000",
        "0",
        "all",
        "all",
        "all",
    )
    assert not own.is_dependent and specs["/ext4"].is_dependent


def test_callgraph_file_names_its_target(listings):
    cg = [s for s in parse_sample_paths(listings["nosep"]).specs() if s.is_callgraph]
    assert len(cg) == 1
    assert (cg[0].image, cg[0].lib_image, cg[0].cg_image) == (
        "/usr/bin/bash",
        "/usr/bin/bash",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
    )


def test_separated_fields(listings):
    spec = parse_sample_path(listings["sep"][14])
    assert spec.filename.endswith("CPU_CLK_UNHALTED.100000.0.100.101.0")
    assert (spec.tgid, spec.tid, spec.cpu) == ("100", "101", "0")


@pytest.mark.parametrize("name", ["sep", "nosep", "um_cpu", "many"])
def test_vectorised_parse_equals_per_path_parse(listings, name):
    assert parse_sample_paths(listings[name]).specs() == [
        parse_sample_path(p) for p in listings[name]
    ]


def test_scan_session_lists_the_same_files(sessions, listings):
    for name, directory in sessions.items():
        found = [p.removeprefix(str(directory) + "/") for p in scan_session(directory)]
        assert found == sorted(listings[name])
    assert scan_session(sessions["sep"], "no-such-session") == []


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (f"{NOSEP}/{{root}}/usr/bin/perl/CPU.100000.0.all.all", "six non-empty fields"),
        (f"{NOSEP}/{{root}}/usr/bin/perl/CPU.100000..all.all.all", "six non-empty fields"),
        ("samples/current/usr/bin/perl/CPU.1.0.all.all.all", "'{root}' or '{kern}'"),
        ("samples/current/{root}/usr/bin/perl/CPU.1.0.all.all.all", "'{dep}'"),
        (f"{NOSEP}/usr/lib/libc.so/CPU.1.0.all.all.all", "after '{dep}'"),
        (f"{NOSEP}/{{anon:anon}}/4242.0x1/CPU.1.0.all.all.all", "anonymous region"),
        ("CPU.1.0.all.all.all", "directories"),
        (f"{NOSEP}/{{root}}/bin/x/{{cg}}/CPU.1.0.all.all.all", "after '{cg}'"),
    ],
)
def test_bad_paths_name_the_path_and_what_was_expected(path, expected):
    with pytest.raises(ParseError, match="expected") as info:
        parse_sample_path(path)
    assert info.value.path == path
    assert expected in info.value.expected
    with pytest.raises(ParseError):
        parse_sample_paths([path])


def test_bad_paths_are_collected_not_dropped(listings):
    bad = f"{NOSEP}/{{root}}/usr/bin/perl/CPU.100000.0.all.all"
    paths = [listings["nosep"][0], bad, listings["nosep"][1]]
    parsed = parse_sample_paths(paths, on_error="collect")
    assert parsed.table["filename"].tolist() == [paths[0], paths[2]]
    assert [e.path for e in parsed.errors] == [bad]


def test_listing_reports_bad_lines_by_number(tmp_path, listings):
    good = listings["sep"][:3]
    listing = tmp_path / "files.txt"
    listing.write_text("\n".join([good[0], "garbage/line", good[1], "", good[2]]) + "\n")
    with pytest.raises(ParseError, match=r"files.txt, line 2"):
        read_listing(listing)
    parsed = read_listing(listing, on_error="collect")
    assert len(parsed.table) == 3
    assert [(e.line, e.found) for e in parsed.errors] == [(2, "garbage/line")]


def test_shared_listing_files_parse():
    for path in (DATA / "synthetic_sessions").glob("sample_files_*.txt"):
        parsed = read_listing(path)
        assert not parsed.errors and len(parsed.table) > 0


# -- property tests ------------------------------------------------------------------------

_word = st.text(string.ascii_letters + string.digits + "_-+", min_size=1, max_size=8)
_number = st.integers(0, 99999).map(str)
_sep = st.one_of(st.just("all"), _number)


@st.composite
def _sample_paths(draw):
    app = draw(st.lists(_word, min_size=1, max_size=4))
    kind = draw(st.sampled_from(["{root}", "{kern}", "{anon:anon}"]))
    if kind == "{anon:anon}":
        lib_parts = [f"{draw(_number)}.0x{draw(_number)}.0x{draw(_number)}"]
    else:
        lib_parts = draw(st.lists(_word, min_size=1, max_size=4))
    fields = [draw(_word), draw(_number), draw(_number), draw(_sep), draw(_sep), draw(_sep)]
    prefix = draw(st.sampled_from(["", "samples/current/", "/srv/x/samples/s1/"]))
    path = f"{prefix}{{root}}/{'/'.join(app)}/{{dep}}/{kind}/{'/'.join(lib_parts)}"
    if draw(st.booleans()):
        path += "/{cg}/{root}/" + "/".join(draw(st.lists(_word, min_size=1, max_size=3)))
    return path + "/" + ".".join(fields), app, kind, lib_parts, fields


@settings(max_examples=100, deadline=None)
@given(_sample_paths())
def test_generated_paths_round_trip(case):
    path, app, kind, lib_parts, fields = case
    spec = parse_sample_path(path)
    assert spec.image == "/" + "/".join(app)
    if kind == "{anon:anon}":
        tgid, start, end = lib_parts[0].split(".")
        assert spec.lib_image == f"anon (tgid:{tgid} range:{start}-{end})"
    else:
        assert spec.lib_image == "/" + "/".join(lib_parts)
    assert [spec.event, spec.count, spec.unitmask, spec.tgid, spec.tid, spec.cpu] == fields
    assert parse_sample_paths([path]).specs() == [spec]


_noise = st.text(string.ascii_letters + "{}/._:" + string.digits, max_size=40)
_tokens = st.lists(
    st.sampled_from(["{root}", "{kern}", "{dep}", "{cg}", "{anon:x}", "a", "b.c", "1.2.3", ""]),
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(st.one_of(_noise, _tokens.map("/".join)), st.sampled_from(["", "/E.1.0.all.all.all"]))
def test_vectorised_and_per_path_parsers_agree(body, tail):
    path = body + tail
    try:
        expected: SampleSpec | None = parse_sample_path(path)
    except ParseError:
        expected = None
    parsed = parse_sample_paths([path], on_error="collect")
    if expected is None:
        assert parsed.table.empty and len(parsed.errors) == 1
    else:
        assert parsed.specs() == [expected] and not parsed.errors


def test_a_path_with_a_newline_is_reported(listings):
    bad = listings["sep"][0] + "\nmore"
    parsed = parse_sample_paths([listings["sep"][1], bad], on_error="collect")
    assert parsed.table["filename"].tolist() == [listings["sep"][1]]
    assert [e.path for e in parsed.errors] == [bad]
