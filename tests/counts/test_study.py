"""CallGroupStudy without any widget: what it shows of the bundled profiler runs, its call
group summary (pattern, statistics, timings), zoom, selection, the calls of linked call
sites, host rows, and that a refused change leaves it as it was."""

from __future__ import annotations

import numpy as np
import pytest

import perfweave.counts as pc
from perfweave.counts.study import CallGroupStudy, group_label
from perfweave.errors import MetadataError, PerfweaveError, ShapeError

from ._paths import WRF, WRF_ALL, expected


@pytest.fixture(scope="module")
def wrf():
    return pc.read(WRF)


@pytest.fixture(scope="module")
def wrf_all():
    return pc.read(WRF_ALL)


def _state(s: CallGroupStudy) -> tuple:
    return (
        s.lead_rank,
        s.group_index,
        s.direction,
        s.unit,
        s.reduce,
        s.group_by,
        s.max_cells,
        s.view.get("rows"),
        s.view.get("cols"),
        s.history,
        s.blocks,
        s.note,
        None if s.selection is None else s.selection["total"],
        None if s.focus is None else s.focus["label"],
    )


def test_it_shows_the_first_call_group_whole_and_exact(wrf):
    s = CallGroupStudy(wrf)
    groups = wrf.call_groups(0)
    assert s.lead_rank == 0 and s.group_labels == [group_label(g) for g in groups]
    assert s.group_labels == ["call 0", "call 1", "call 3", "call 4"]
    assert s.call_group is groups[0] and s.matrix is groups[0].send
    assert s.view["rows"] == (0, 160) and s.view["cols"] == (0, 160)
    np.testing.assert_array_equal(s.blocks.values, groups[0].send.dense())
    assert s.blocks.row_labels[:3] == ["0", "1", "2"] and s.note == ""
    s.set_option("direction", "recv")
    s.set_option("unit", "bytes")
    dense = groups[0].recv.dense() * groups[0].recv_datatype_size
    np.testing.assert_array_equal(s.blocks.values, dense)


def test_the_summary_joins_the_pattern_statistics_and_timings_of_the_group(wrf):
    s = CallGroupStudy(wrf)
    stats = wrf.stats(0).set_index("call")
    report = wrf.patterns(0)
    t = wrf.timings
    for index, direction in [(0, "send"), (2, "recv")]:
        s.set_call_group(index)
        s.set_option("direction", direction)
        g = wrf.call_groups(0)[index]
        call = int(g.calls[0])
        got = s.summary()
        assert got["collective"] == g.collective and got["comm_size"] == g.comm_size == 160
        assert got["calls"] == group_label(g)
        assert got["rank_groups"] == getattr(g, direction).rows.shape[0]
        assert got["datatype_size"] == getattr(g, f"{direction}_datatype_size")
        want = {k: stats.loc[call, f"{direction}_{k}"] for k in ("bytes", "messages", "max")}
        assert {k: v for k, v in got["stats"] if k in want} == want
        (pattern,) = [p for p in report.patterns if call in p.calls]
        assert got["pattern"]["number"] == pattern.number
        assert got["patterns"] == [
            f"{d}: {ranks} rank{'s' * (ranks != 1)} to {peers} peer{'s' * (peers != 1)}"
            for d, tally in (("send", pattern.send), ("recv", pattern.recv))
            for peers, ranks in tally
        ]
        mine = t[(t["lead_rank"] == 0) & (t["call"] == call)]
        want_t = [
            [m, len(x), x.min(), x.mean(), x.max()] for m, x in mine.groupby("measure")["seconds"]
        ]
        assert got["timings"] == want_t
    s.set_call_group(0)
    assert [row[:2] for row in s.summary()["timings"]] == [
        ["execution", 160],
        ["late_arrival", 160],
    ]


def test_zoom_history_and_selection_totals(wrf):
    s = CallGroupStudy(wrf, max_cells=32)
    dense = wrf.call_groups(0)[0].send.dense()
    assert s.blocks.values.shape == (32, 32)
    s.zoom((10, 20), (30, 40))
    s.zoom((12, 13), (30, 31))
    assert s.blocks.values.tolist() == [[dense[12, 30]]]
    assert s.history == (((0, 160), (0, 160)), ((10, 20), (30, 40)))
    s.zoom_out()
    np.testing.assert_array_equal(s.blocks.values, dense[10:20, 30:40])
    sel = s.select((2, 5))  # the view's columns
    assert sel["ranks"].tolist() == [2, 3, 4] and sel["peers"].tolist() == list(range(30, 40))
    assert sel["total"] == dense[2:5, 30:40].sum() and sel["rows_text"] == "2-4"
    block = s.select_block(3, 4)  # 10 rows and columns in 10 blocks: one cell
    assert block["total"] == dense[13, 34] and block["peers_text"] == "34"
    s.zoom_out()
    s.zoom_out()  # nothing left: the whole matrix
    assert s.view["rows"] == (0, 160) and s.history == ()


def test_a_refused_change_leaves_the_study_as_it_was(wrf_all):
    s = CallGroupStudy(wrf_all, max_cells=40)
    s.zoom((5, 50), (0, 100))
    s.select((0, 3))
    s.show_calls([3, 5], label="site 7")
    before = _state(s)
    for change, error in [
        (lambda: s.zoom((0, 1000)), "out of range"),
        (lambda: s.zoom("abc"), "start, stop"),
        (lambda: s.select_block(99), "no row block 99"),
        (lambda: s.set_call_group(9), "out of range 0..3"),
        (lambda: s.set_call_group("calls 7"), "no call group"),
        (lambda: s.set_lead_rank(3), "lead rank 3"),
        (lambda: s.set_option("direction", "up"), "direction must be one of send, recv"),
        (lambda: s.set_option("group_by", "host"), "no location file names the hosts"),
        (lambda: s.set_option("max_cells", 0), "max_cells must be an integer 1..900"),
        (lambda: s.show_calls([99999]), "holds 1 call 99999"),
        (lambda: s.show_calls(["x"]), "call ids"),
    ]:
        with pytest.raises(PerfweaveError, match=error):
            change()
        assert _state(s) == before


def test_a_change_that_fails_half_way_is_undone(wrf, monkeypatch):
    """The study puts every piece back when a step after the checks raises."""
    s = CallGroupStudy(wrf)
    s.zoom((0, 10))
    before = _state(s)

    def broken(*_args):
        raise ShapeError("broken aggregation")

    monkeypatch.setattr(s.aggregator, "aggregate", broken)
    with pytest.raises(ShapeError, match="broken"):
        s.set_call_group(2)
    assert _state(s) == before and s.call_group is wrf.call_groups(0)[0]


def test_calls_of_linked_call_sites_move_to_their_group_and_say_their_share(wrf_all):
    s = CallGroupStudy(wrf_all)
    calls = [3, 4, 5]  # calls 3 and 5 are group 2's, call 4 group 3's
    s.show_calls(calls, label="call site 5")
    table = wrf_all.groups_of_calls(calls, 0)
    assert table["group"].tolist() == [2, 3] and s.group_index == 2
    share = table["bytes_sent"].sum() / table.attrs["bytes_sent"]
    assert s.note == (
        f"call site 5: 3 calls in 2 call groups, {share:.1%} of the bytes lead rank 0 sends; "
        "the group shown: 2 of its 361 calls"
    )
    s.set_call_group(0)  # the calls shown stay, the note says the group holds none
    assert s.note.endswith("the group shown holds none of them") and s.focus["calls"].size == 3
    s.clear_focus()
    assert s.focus is None and s.note == ""


def test_rows_by_host_from_the_location_files():
    prof = pc.read(expected("alltoall_multicomms_c"))
    s = CallGroupStudy(prof, lead_rank=1)
    assert s.hosts_known and s.check("group_by", "host") == "host"
    s.set_option("group_by", "host")
    loc = pc.read_locations(expected("alltoall_multicomms_c") / "alltoall_locations_comm0_rank1.md")
    host = loc["hostname"].iloc[0]
    assert s.blocks.row_labels == [f"{host}: {pc.format_ranklist(loc['rank'].to_numpy())}"]
    assert s.summary()["hosts"] == 1
    np.testing.assert_array_equal(s.blocks.values, s.matrix.dense().max(axis=0, keepdims=True))


def test_a_directory_without_count_files_is_an_empty_study_that_says_why(tmp_path):
    s = CallGroupStudy.of(tmp_path)
    assert s.lead_rank is None and s.blocks is None and s.call_group is None
    assert "no count files" in s.empty_reason and str(tmp_path) in s.empty_reason
    for question in (s.summary, s.zoom_out, lambda: s.set_option("unit", "bytes")):
        with pytest.raises(MetadataError, match="no count files"):
            question()
    with pytest.raises(ShapeError, match="CountsProfile or a directory"):
        CallGroupStudy.of(42)


def test_the_other_directions_work_is_kept_for_the_switch(wrf):
    s = CallGroupStudy(wrf, max_cells=40)
    work = s.warming()
    fresh = pc.aggregate_blocks(
        wrf.call_groups(0)[0].recv.rows,
        pc.row_units(wrf.call_groups(0)[0].recv),
        (0, 160),
        (0, 160),
        40,
        40,
        "max",
    )
    work()
    s.set_option("direction", "recv")
    np.testing.assert_array_equal(s.blocks.values, fresh.values)
    np.testing.assert_array_equal(s.blocks.col_max, fresh.col_max)


def test_the_summary_work_runs_aside_and_leaves_no_thread_behind(wrf, monkeypatch):
    # the statistics and patterns start on a thread of their own while the view is
    # aggregated; the thread ends with its work (none is left to meet a later fork), and a
    # failure there reaches the summary as a failure here would
    import threading

    def broken(rank=None, job=None):
        raise MetadataError("pattern report unreadable")

    monkeypatch.setattr(wrf, "patterns", broken)
    s = CallGroupStudy(wrf)
    got = s.summary()
    assert got["patterns"] == ["patterns unavailable: pattern report unreadable"]
    assert dict(got["stats"])["messages"] == 160 * 160
    for t in threading.enumerate():
        if t.name == "perfweave-summary":
            t.join(timeout=30)
    assert not [t for t in threading.enumerate() if t.name == "perfweave-summary"]
