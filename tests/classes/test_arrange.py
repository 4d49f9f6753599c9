"""arrange / identify: classes, their order and names, the axis and opreport's errors."""

from __future__ import annotations

import pandas as pd
import pytest

from perfweave.classes import MergeOptions, arrange, parse_sample_paths
from perfweave.errors import AxisConflict, SpecError

from .conftest import DATA


def _table(listings, name):
    table = parse_sample_paths(listings[name]).table
    return table[table["cg_image"] == ""]


def _expected_error(case: str) -> str:
    lines = (DATA / "opreport_outputs" / case).read_text().splitlines()[1:-1]
    return "\n".join(lines).removeprefix("opreport error: ")


def test_event_axis_for_two_events(listings):
    classes = arrange(_table(listings, "sep"), "all")
    assert classes.axis == "event"
    assert classes.names == ["CPU_CLK_UNHALTED:100000", "RETIRED_INSTRUCTIONS:100000"]
    assert classes.event == ""
    t = classes.templates
    assert t["tgid"].tolist() == ["", ""] and t["cpu"].tolist() == ["", ""]


def test_count_orders_as_text(listings):
    # "100000" < "50000" as strings: opreport's column order in nosep/01_default.txt
    classes = arrange(_table(listings, "nosep"))
    assert [c.template.count for c in classes] == ["100000", "50000"]
    assert classes.axis == "event"


def test_cpu_axis_with_merged_threads(listings):
    table = _table(listings, "um_cpu")
    table = table[table["event"] == "CPU_CLK_UNHALTED"]
    classes = arrange(table, "tgid")
    assert classes.axis == "cpu"
    assert classes.names == [f"cpu:{i}" for i in range(7)]
    assert classes.longnames[3] == "Samples on CPU 3"
    assert classes.event.startswith("Counted CPU_CLK_UNHALTED events")


def test_tgid_and_tid_pair_becomes_tid_axis(listings):
    classes = arrange(_table(listings, "many"), "cpu")
    assert classes.axis == "tid"
    assert classes.names == [f"tid:{t}" for t in range(301, 308)]
    assert classes.longnames[0] == "Processes with a thread ID of 301"


def test_unit_masks_merge_into_one_class(listings):
    table = _table(listings, "um_cpu")
    table = table[table["event"] == "DATA_CACHE_MISSES"]
    assert len(arrange(table)) == 2
    merged = arrange(table, "unitmask")
    assert len(merged) == 1
    assert "unit mask of 0x03" in merged.longnames[0]


@pytest.mark.parametrize(
    ("name", "merge", "event", "case"),
    [
        ("sep", (), None, "sep/01_default.txt"),
        ("sep", "cpu", "CPU_CLK_UNHALTED", "sep/04_event_A_merge_cpu.txt"),
        ("um_cpu", (), "CPU_CLK_UNHALTED", "unitmask_cpu/04_cpu7_two_tgids.txt"),
        ("um_cpu", (), None, "unitmask_cpu/07_all_no_merge.txt"),
        ("many", (), None, "many_tgids/01_seven_tgids_two_cpus.txt"),
    ],
)
def test_axis_conflicts_use_opreport_text(listings, name, merge, event, case):
    table = _table(listings, name)
    if event:
        table = table[table["event"] == event]
    with pytest.raises(AxisConflict) as info:
        arrange(table, merge)
    assert str(info.value) == _expected_error(case)


def test_and_n_more_counts_every_class(listings):
    with pytest.raises(AxisConflict, match=r"tid:305, and 9 more,\n"):
        arrange(_table(listings, "many"))


def test_merge_lib_makes_libraries_applications(listings):
    table = _table(listings, "nosep")
    classes = arrange(table[table["count"] == "100000"], "lib")
    images = {p.image for p in classes.classes[0].profiles}
    assert "/usr/lib/x86_64-linux-gnu/libc.so.6" in images
    assert all(not p.deps for p in classes.classes[0].profiles)


def test_profile_sets_hold_own_files_and_dependents(listings):
    classes = arrange(_table(listings, "sep"), "cpu,tgid")
    perl = next(p for p in classes.classes[0].profiles if p.image == "/usr/bin/perl")
    assert len(perl.files) == 4  # tid 100 and 101 on cpus 0 and 1
    assert [d.lib_image for d in perl.deps] == ["/ext4", "/usr/lib/x86_64-linux-gnu/libc.so.6"]
    assert all(f.split("/")[-1].startswith("CPU_CLK") for f in perl.files)


def test_exclude_dependent_keeps_application_images(listings):
    classes = arrange(_table(listings, "sep"), "all", exclude_dependent=True)
    assert all(not p.deps for c in classes for p in c.profiles)


def test_input_table_is_not_modified(listings):
    table = _table(listings, "sep")
    before = table.copy()
    arrange(table, "all")
    pd.testing.assert_frame_equal(table, before)


def test_no_files_left(listings):
    table = _table(listings, "sep").iloc[:0]
    with pytest.raises(SpecError, match="profile specification too strict"):
        arrange(table)


def test_bad_numeric_field_names_the_file(listings):
    table = _table(listings, "sep").copy()
    table.loc[table.index[0], "tgid"] = "x1"
    with pytest.raises(Exception, match=r"number or 'all' in the tgid field"):
        arrange(table)


def test_merge_options():
    assert MergeOptions.parse("tgid") == MergeOptions(tgid=True, tid=True)
    assert MergeOptions.parse(["cpu", "library"]) == MergeOptions(cpu=True, lib=True)
    everything = MergeOptions.parse("all", exclude_dependent=True)
    assert everything.lib and everything.is_all
    with pytest.raises(SpecError, match="^--merge=lib is meaningless with --exclude-dependent$"):
        MergeOptions.parse("lib,cpu", exclude_dependent=True)
    with pytest.raises(SpecError, match="^unknown merge option: thread$"):
        MergeOptions.parse("thread")
    assert str(MergeOptions.parse("cpu,tgid")) == "cpu,tgid"
