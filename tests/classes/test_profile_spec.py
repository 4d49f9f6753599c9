"""opreport's profile specification tags and how they select sample files."""

from __future__ import annotations

import pytest

from perfweave.classes import ProfileSpec, parse_sample_paths
from perfweave.errors import SpecError


@pytest.fixture
def sep(listings):
    return parse_sample_paths(listings["sep"]).table


def _selected(spec_words, table, **kw):
    mask = ProfileSpec.parse(spec_words).mask(table, **kw)
    return table[mask]


def test_no_spec_selects_everything(sep):
    assert len(_selected([], sep)) == len(sep) == 28


def test_event_and_tid_lists(sep):
    chosen = _selected(["event:CPU_CLK_UNHALTED", "tid:100,200"], sep)
    assert set(chosen["event"]) == {"CPU_CLK_UNHALTED"}
    assert set(chosen["tid"]) == {"100", "200"}
    assert len(chosen) == 10


def test_numeric_values_compare_as_numbers(sep):
    assert len(_selected(["tgid:0100"], sep)) == len(_selected(["tgid:100"], sep)) == 20
    assert len(_selected(["cpu:all"], sep)) == 28


def test_unseparated_files_do_not_match_explicit_values(listings):
    nosep = parse_sample_paths(listings["nosep"]).table
    assert _selected(["tid:1"], nosep).empty
    # 8 files: one has count 50000, one is a call-graph file
    assert len(_selected(["count:100000"], nosep)) == 6


def test_image_globs_and_excludes(sep):
    perl = _selected(["image:/usr/bin/perl"], sep)
    assert set(perl["image"]) == {"/usr/bin/perl"}
    no_libc = _selected(["image-exclude:*libc*"], sep)
    assert "/usr/lib/x86_64-linux-gnu/libc.so.6" not in set(no_libc["lib_image"])
    libs = _selected(["lib-image:*libc.so.6"], sep)
    assert set(libs["lib_image"]) == {"/usr/lib/x86_64-linux-gnu/libc.so.6"}
    bare = _selected(["*ext4"], sep)
    assert set(bare["lib_image"]) == {"/ext4"}


def test_exclude_dependent_and_callgraph(listings):
    nosep = parse_sample_paths(listings["nosep"]).table
    own = _selected([], nosep, exclude_dependent=True)
    assert (own["image"] == own["lib_image"]).all() and len(own) == 3
    with_cg = ProfileSpec.parse([]).mask(nosep, exclude_callgraph=False)
    assert with_cg.sum() == 8 and _selected([], nosep).shape[0] == 7


def test_word_given_twice_uses_opreport_wording():
    with pytest.raises(SpecError, match="^tag specified more than once: tid:2$"):
        ProfileSpec.parse(["tid:2", "event:X", "tid:2"])


def test_unknown_tag_is_named():
    with pytest.raises(SpecError, match='not a valid tag "colour:red"'):
        ProfileSpec.parse(["colour:red"])


def test_non_numeric_value():
    with pytest.raises(SpecError, match="'abc' is not a number"):
        ProfileSpec.parse(["tid:abc"])


def test_sessions_and_excludes():
    assert ProfileSpec.parse(["session:a,b", "session-exclude:a"]).sessions() == ["b"]
    with pytest.raises(SpecError, match="No session given"):
        ProfileSpec.parse(["session-exclude:current"]).sessions()


def test_mask_leaves_the_table_alone(sep):
    before = sep.copy()
    ProfileSpec.parse(["tid:100", "image-exclude:*perl"]).mask(sep, exclude_dependent=True)
    assert sep.equals(before)
