"""Bad sample-file names, odd session trees and API traps (issue #16): a perfweave error
or a named warning, never "count nan", a silent skip or a RecursionError."""

from __future__ import annotations

import os
import shutil
import warnings

import pytest

from perfweave.classes import opreport, parse_sample_path, parse_sample_paths, scan_session
from perfweave.classes.profile_spec import ProfileSpec
from perfweave.errors import ParseError, SkippedInputWarning, SpecError

LIBC = "samples/current/{root}/usr/bin/perl/{dep}/{root}/usr/lib/x86_64-linux-gnu/libc.so.6"
ONE = f"{LIBC}/RETIRED_INSTRUCTIONS.100000.0.100.100.1"
MERGE = "cpu,tid,tgid"


@pytest.fixture
def sep_copy(sessions, tmp_path):
    """A private copy of the 'sep' session (tests change it), removed after the test without
    recursion (pytest's own clean-up of a 1,000-level tree would hit the recursion limit)."""
    copy = shutil.copytree(sessions["sep"], tmp_path / "sep")
    yield copy
    _remove_tree(str(copy))


def _remove_tree(top: str) -> None:
    folders, stack = [], [top]
    while stack:
        folder = stack.pop()
        folders.append(folder)
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    os.unlink(entry.path)
    for folder in reversed(folders):  # children were listed after their parents
        os.rmdir(folder)


@pytest.mark.parametrize(
    ("fields", "bad"),
    [
        ("EV.nan.0.all.all.all", "nan"),
        ("EV.inf.0.all.all.all", "inf"),
        ("EV.100.nan.all.all.all", "nan"),
        ("EV.100.0.inf.all.all", "inf"),
        ("EV.100.0.all.-1.all", "-1"),
        ("EV.100.0x10.all.all.all", "0x10"),
        ("EV.100.0.all.all." + "9" * 30, "9" * 30),
    ],
)
def test_non_decimal_event_fields_are_refused(fields, bad):
    path = f"{LIBC}/{fields}"
    with pytest.raises(ParseError) as info:
        parse_sample_path(path)
    assert info.value.path == path and info.value.found == bad
    # the vectorised parser refuses the same path with the same error
    parsed = parse_sample_paths([ONE, path], on_error="collect")
    assert parsed.table["filename"].tolist() == [ONE]
    assert [str(e) for e in parsed.errors] == [str(info.value)]


def test_nan_count_in_a_session_is_an_error_not_a_column(sep_copy):
    src = sep_copy / ONE
    src.rename(src.with_name("RETIRED_INSTRUCTIONS.nan.0.100.100.1"))
    with pytest.raises(ParseError, match="decimal count") as info:
        opreport(sep_copy, [], MERGE)
    assert info.value.path.endswith("RETIRED_INSTRUCTIONS.nan.0.100.100.1")


def test_directory_in_place_of_a_sample_file_is_named(sessions, sep_copy):
    whole = opreport(sessions["sep"], [], MERGE)
    (sep_copy / ONE).unlink()
    (sep_copy / ONE).mkdir()
    with pytest.warns(SkippedInputWarning, match="a directory where a sample file should be"):
        files = scan_session(sep_copy)
    assert str(sep_copy / ONE) not in files
    with pytest.warns(SkippedInputWarning) as caught:
        report = opreport(sep_copy, [], MERGE)
    assert [str(sep_copy / ONE) in str(w.message) for w in caught] == [True]
    assert report != whole  # its samples are missing, and the user was told


def _make_deep(top, levels: int) -> str:
    """``top/d/d/.../d`` (``levels`` deep), made one level at a time (``os.makedirs`` and
    ``Path.mkdir(parents=True)`` recurse once per level)."""
    path = str(top)
    for _ in range(levels):
        path += "/d"
        os.mkdir(path)
    return path


def test_a_thousand_level_directory_is_walked(sessions, sep_copy):
    _make_deep(sep_copy / "samples" / "current" / "{root}", 1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert opreport(sep_copy, [], MERGE) == opreport(sessions["sep"], [], MERGE)


def test_a_sample_file_deep_in_the_tree_is_found(sep_copy):
    deep = _make_deep(sep_copy / "samples" / "current" / "{root}", 1000)
    for part in ("{dep}", "{kern}", "ext4"):
        deep += "/" + part
        os.mkdir(deep)
    target = deep + "/CPU_CLK_UNHALTED.100000.0.100.100.1"
    shutil.copyfile(sep_copy / ONE, target)
    assert target in scan_session(sep_copy)


def test_a_string_of_specs_is_words_not_characters(sessions):
    session = sessions["sep"]
    one = opreport(session, "event:CPU_CLK_UNHALTED", MERGE)
    assert one == opreport(session, ["event:CPU_CLK_UNHALTED"], MERGE)
    assert "RETIRED_INSTRUCTIONS" not in one and "CPU_CLK_UNHALTED" in one
    two = opreport(session, "event:CPU_CLK_UNHALTED tgid:100", MERGE)
    assert two == opreport(session, ["event:CPU_CLK_UNHALTED", "tgid:100"], MERGE)
    with pytest.raises(SpecError, match="must be strings, not int"):
        ProfileSpec.parse(["event:X", 3])


def test_missing_session_directory_says_so(tmp_path):
    missing = tmp_path / "no-such-session"
    with pytest.raises(SpecError, match="does not exist") as info:
        opreport(missing)
    assert "opcontrol" not in str(info.value) and str(missing) in str(info.value)
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(SpecError, match="is not a directory"):
        opreport(a_file)
    # an existing directory without samples keeps opreport's own message
    with pytest.raises(SpecError, match="No sample file found"):
        opreport(tmp_path)
