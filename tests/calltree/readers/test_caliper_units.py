"""Caliper's readers pass on the unit they know: ``attribute.unit`` metadata where the file
has it, else seconds for ``time.duration`` and the aggregates of it that keep its unit."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import perfweave as pw
from perfweave.calltree.readers._calistream import parse_cali
from perfweave.calltree.readers._common import caliper_unit
from perfweave.errors import NoRegionWarning

DATA = Path(__file__).resolve().parents[2] / "data"
SAMPLING = DATA / "calltree-sampling/sampling-profile.cali"
ORDERED_JSON = DATA / "hatchet/caliper-ordered-json/caliper-region-node-order.json"
LULESH_JSON = DATA / "hatchet/caliper-lulesh-json/lulesh-annotation-profile.json"
CPI_JSON = DATA / "hatchet/caliper-cpi-json/cpi-callpath-profile.json"
RAJAPERF = DATA / "thicket/rajaperf/quartz/gcc10.3.1_1048576/O3/1/Base_Seq-default.cali"


def test_a_sampling_profiles_time_is_seconds_by_its_metadata():
    """``scount`` (alias ``time``) says nothing of a unit by its name: its attribute's
    ``attribute.unit=sec`` does. Its inclusive column and the explorer share it."""
    contents = parse_cali(SAMPLING.read_text(), str(SAMPLING))
    assert contents.attribute("scount").unit == "sec"
    assert contents.attribute("count").unit is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoRegionWarning)
        gf = pw.read(SAMPLING)
    assert gf.units == {"time": "s"}
    assert gf.unit_of("time") == "s" and gf.unit_of("time (inc)") == "s"
    assert gf.unit_of("count") == ""  # a count has no unit
    ex = pw.CalltreeExplorer(gf)
    assert {c["label"]: c["unit"] for c in ex.columns}["time (inc)"] == "s"
    fmt = next(c["format"] for c in ex.columns if c["label"] == "time (inc)")
    assert fmt["unit"] == "ms" and not fmt["exponent"]  # 124 ms at the top: one step


def test_time_duration_without_metadata_is_seconds_by_its_name():
    """The lulesh profile (no attribute.unit metadata): ``sum#time.duration`` is read as
    ``time``, and ``min#``/``max#``/``avg#time.duration`` keep their names; all seconds."""
    gf = pw.datasets.lulesh()
    assert gf.unit_of("time") == "s"
    assert all(gf.unit_of(f"{op}#time.duration") == "s" for op in ("min", "max", "avg"))
    assert gf.unit_of("count") == ""


@pytest.mark.parametrize(("path", "unit"), [(ORDERED_JSON, "s"), (LULESH_JSON, "µs")])
def test_caliper_json_passes_its_units_on(path, unit):
    """json-split: ``column_metadata``'s ``attribute.unit`` (caliper-region-node-order's
    ``time``), else the name: lulesh's ``sum#time.duration`` and its inclusive sum were
    written by a Caliper whose timer counted whole microseconds (1,276,744 at the largest
    node of a run of a few seconds), not seconds."""
    gf = pw.read(path)
    assert gf.units.get("time") == unit
    assert gf.unit_of("time (inc)") == unit


def test_the_old_timers_whole_microseconds_are_not_read_as_seconds():
    """cpi's sampler profile: each sample's time.duration is ~5,000 (5 ms in µs); read as
    seconds its run took 38 minutes. Shown in the explorer as seconds of the real run."""
    gf = pw.read(CPI_JSON)
    assert gf.units == {"time": "µs"}
    samples = gf.dataframe["time"].to_numpy()
    assert 4900 < np.median(samples[samples > 0]) < 5100  # one 5 ms sampling interval
    ex = pw.CalltreeExplorer(gf)
    fmt = next(c["format"] for c in ex.columns if c["label"].startswith("time"))
    assert fmt["unit"] in ("s", "ms")  # 2.3 s of samples, written in seconds or ms


def test_spot_aliases_carry_the_unit_of_what_they_aggregate():
    gf = pw.read(RAJAPERF)
    assert gf.units["Avg time/rank"] == "s"  # avg#inclusive#sum#time.duration, unit sec
    assert "Reps" not in gf.units and gf.unit_of("Reps") == ""


def test_caliper_unit_rule():
    assert caliper_unit("avg#inclusive#sum#time.duration") == "s"
    assert caliper_unit("sum#time.duration.ns") == "ns"
    assert caliper_unit("percent_total#sum#time.duration") == ""  # a share, not seconds
    assert caliper_unit("count") == ""
    assert caliper_unit("scount", "sec") == "s" and caliper_unit("x", "usec") == "µs"
    assert caliper_unit("time.duration", "nsec") == "ns"  # the metadata first
    assert caliper_unit("alloc.size", "bytes") == "B"
    # Caliper's timer before seconds: whole microseconds (an integer attribute type)
    assert caliper_unit("sum#time.duration", whole=True) == "µs"
    assert caliper_unit("sum#time.duration.ns", whole=True) == "ns"
    assert caliper_unit("sum#time.duration", "sec", whole=True) == "s"  # metadata first
