"""Ways out of an axis conflict: every resolution listed works and shows its axis."""

from __future__ import annotations

import pytest

from perfweave.classes import MergeOptions, arrange, axis_merge, load_source, resolutions
from perfweave.classes.profile_spec import ProfileSpec
from perfweave.errors import AxisConflict, SpecError


def codes_of(session, words=()):
    source = load_source(session)
    spec = ProfileSpec.parse(list(words))
    mask = source.mask(spec, ["current"], exclude_dependent=False)
    return source.codes(["current"]).take(mask)


@pytest.mark.parametrize("name", ["sep", "many", "um_cpu", "nosep"])
def test_every_resolution_arranges_along_its_axis(sessions, name):
    codes = codes_of(sessions[name])
    found = resolutions(codes, "")
    assert found
    for res in found:
        selected = codes_of(sessions[name], res.words)
        classes = arrange(selected, res.merge)
        assert classes.axis == res.axis and len(classes) == res.n_classes
    assert len({r.axis for r in found}) == len(found)  # one per axis


def test_sep_many_open_on_the_fewest_changes(sessions):
    with pytest.raises(AxisConflict):
        arrange(codes_of(sessions["many"]), "")
    many = resolutions(codes_of(sessions["many"]), "")
    assert many[0].describe() == "7 classes along tid (--merge=cpu)"
    assert [r.axis for r in many] == ["tid", "tgid", "cpu", "event"]
    sep = resolutions(codes_of(sessions["sep"]), "")
    # two events: only the event axis works unmerged-by-event; the others cut to one event
    assert sep[0].axis == "event" and sep[0].event == ""
    assert all(r.event == "event:CPU_CLK_UNHALTED" for r in sep[1:])


def test_axis_merge_keeps_lib_and_unitmask():
    assert str(axis_merge("cpu", "lib,unitmask,cpu")) == "tgid,lib,unitmask"
    assert str(axis_merge("event", MergeOptions())) == "cpu,tgid"
    with pytest.raises(SpecError, match="unknown axis"):
        axis_merge("colour")
