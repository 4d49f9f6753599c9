"""CountMatrixHeatmap without a browser: state, aggregation, zoom, selection, bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import perfweave.counts as pc
from perfweave.counts.blocks import aggregate_blocks as aggregate
from perfweave.counts.blocks import row_units as units_of
from perfweave.counts.profile import CallGroup, CountsProfile
from perfweave.counts.ranklist import format_ranklist
from perfweave.errors import MetadataError, PerfweaveError
from perfweave.widgets._color import color_index
from perfweave.widgets._transport import unpack
from perfweave.widgets.heatmap import CountMatrixHeatmap, group_label

WRF = Path(__file__).parents[1] / "data" / "counts" / "wrf_160ranks_niagara_job5471563"


def _group(dense, calls=(0,), lead=0, size=1) -> CallGroup:
    m = pc.CountMatrix.from_dense(np.asarray(dense, dtype=np.int64))
    return CallGroup(
        lead_rank=lead,
        job=0,
        collective="Alltoallv",
        calls=np.asarray(calls, dtype=np.int64),
        comm_size=m.n_ranks,
        send_datatype_size=size,
        recv_datatype_size=size,
        send=m,
        recv=pc.CountMatrix.from_dense(np.asarray(dense, dtype=np.int64).T.copy()),
    )


def _profile(*groups) -> CountsProfile:
    return CountsProfile(groups=list(groups))


def _reply(widget, action, **args):
    sent = []
    widget.send = lambda content, buffers=None: sent.append((content, buffers or []))
    widget._on_msg(widget, {"type": "request", "id": 1, "action": action, "args": args}, [])
    content, buffers = sent[-1]
    cols = unpack(content["matrix"]["columns"], buffers) if content.get("matrix") else None
    return content, cols


def test_overflowing_sums_are_float64_and_the_note_says_so():
    big = np.full((4, 4), 2**62, dtype=np.int64)
    h = CountMatrixHeatmap(_profile(_group(big)), reduce="sum", max_cells=1)
    assert "float64" in h.note
    h.set_reduce("max")
    assert "marginal" in h.note and h.blocks().values[0, 0] == 2**62
    assert h.blocks().values.dtype == np.int64


def test_color_index_linear_and_log():
    v = np.array([[0, 1, 10, 100]], dtype=np.int64)
    lin, lo, hi = color_index(v, "linear")
    assert lin[0, 0] == 0 and lin[0, 3] == 255 and (lo, hi) == (0.0, 100.0)
    log, lo, hi = color_index(v, "log")
    assert list(log[0]) == [0, 1, 128, 255] and (lo, hi) == (1.0, 100.0)


@pytest.fixture(scope="module")
def wrf():
    return pc.read(WRF)


def test_wrf_state_controls_and_exact_values(wrf):
    h = CountMatrixHeatmap(wrf)
    assert h.lead_ranks == [0] and h.group_labels == [group_label(g) for g in wrf.call_groups(0)]
    assert h.group_labels[0] == "call 0"
    dense = wrf.call_groups(0)[0].send.dense()
    np.testing.assert_array_equal(h.blocks().values, dense)
    content, cols = _reply(h, "matrix")
    assert content["ok"] and cols["values"].dtype == np.int64
    np.testing.assert_array_equal(cols["values"], dense)
    assert cols["color"].dtype == np.uint8 and cols["row_labels"][:2] == ["0", "1"]
    # every control, through messages
    for name, value in [
        ("direction", "recv"),
        ("unit", "bytes"),
        ("scale", "log"),
        ("reduce", "sum"),
        ("group", 2),
        ("group_by", "rows"),
    ]:
        content, _ = _reply(h, "set", name=name, value=value)
        assert content["ok"], content
    assert (h.direction, h.unit, h.scale, h.reduce, h.group_index, h.grouped) == (
        "recv",
        "bytes",
        "log",
        "sum",
        2,
        True,
    )
    g = wrf.call_groups(0)[2]
    assert [x.label for x in g.recv.groups][:5] == h.blocks().row_labels[:5]
    assert len(h.blocks().row_labels) == len(g.recv.groups)
    assert h.info["stats"] and h.info["patterns"]
    assert h.info["timings"] == []  # the bundled timing files are comm 0's: no call 3
    h.set_call_group(0)
    assert [t[:2] for t in h.info["timings"]] == [["execution", 160], ["late_arrival", 160]]


def test_call_group_labels_like_the_issue():
    prof = _profile(_group(np.eye(3, dtype=np.int64), calls=[0, 1, 2, 5]))
    assert CountMatrixHeatmap(prof).group_labels == ["calls 0-2, 5 (4 calls)"]


def test_zoom_zoom_out_and_view(wrf):
    h = CountMatrixHeatmap(wrf, max_cells=32)
    assert h.blocks().values.shape == (32, 32)
    assert h.view["rows"] == (0, 160)
    h.zoom((10, 20), (30, 31))
    assert h.view["rows"] == (10, 20) and h.view["cols"] == (30, 31)
    dense = wrf.call_groups(0)[0].send.dense()
    np.testing.assert_array_equal(h.blocks().values[:, 0], dense[10:20, 30])
    h.zoom((12, 13), (30, 31))  # a single cell
    assert h.blocks().values.tolist() == [[dense[12, 30]]]
    h.zoom_out()
    assert h.view["rows"] == (10, 20)
    h.zoom_out()
    h.zoom_out()  # nothing left: stays on the whole matrix
    assert h.view["rows"] == (0, 160) and h.view["cols"] == (0, 160)
    content, _ = _reply(h, "zoom", rows=[0, 10], cols=[0, 10])
    assert content["ok"] and content["meta"]["view"] == {"rows": [0, 10], "cols": [0, 10]}


def test_selection_by_block_and_method(wrf):
    h = CountMatrixHeatmap(wrf)
    content, _ = _reply(h, "select", row_block=5, col_block=7)
    assert content["ok"]
    s = h.selection
    dense = wrf.call_groups(0)[0].send.dense()
    assert s["ranks"].tolist() == [5] and s["peers"].tolist() == [7]
    assert s["total"] == dense[5, 7] and s["label"] == "call 0"
    h.set_grouped(True)
    assert h.selection is None
    s = h.select((0, 1))
    assert s["ranks"].tolist() == wrf.call_groups(0)[0].send.groups[0].ranks.tolist()
    assert s["total"] == dense[s["ranks"]].sum()


def test_bad_inputs_keep_the_previous_view(wrf, tmp_path):
    h = CountMatrixHeatmap(wrf)
    before = h.view_state, h.blocks().values.copy()
    for call, kind in [
        (lambda: h.zoom((0, 1000)), "out of range"),
        (lambda: h.zoom((5, 5)), "out of range"),
        (lambda: h.zoom("abc"), "start, stop"),
        (lambda: h.set_call_group(99), "out of range"),
        (lambda: h.set_call_group("calls 7"), "no call group"),
        (lambda: h.set_direction("up"), "direction must be"),
        (lambda: h.set_scale("sqrt"), "scale must be"),
        (lambda: h.set_lead_rank(3), "lead rank 3"),
    ]:
        with pytest.raises(PerfweaveError, match=kind):
            call()
        assert kind.split()[0] in h.error
        assert h.view_state == before[0]
        np.testing.assert_array_equal(h.blocks().values, before[1])
    content, cols = _reply(h, "set", name="unit", value="parsecs")
    assert not content["ok"] and "unit must be" in content["error"]
    content, cols = _reply(h, "nope")
    assert not content["ok"]
    h.set_unit("bytes")
    assert h.error == ""
    # a directory with no count files: a message, not a traceback
    empty = CountMatrixHeatmap(tmp_path)
    assert "no count files" in empty.error and empty.blocks() is None
    content, _ = _reply(empty, "matrix")
    assert not content["ok"] and "no count" in content["error"]


def test_all_zero_single_rank_int32_overflow_and_gaps():
    zero = _group(np.zeros((4, 4), dtype=np.int64), calls=[1])
    one = _group([[7]], calls=[2])
    big = _group([[0, 2**40], [3 * 2**31, 1]], calls=[3, 5, 6])
    h = CountMatrixHeatmap(_profile(zero, one, big))
    assert "zero" in h.note and h.blocks().hi == 0
    assert h.group_labels == ["call 1", "call 2", "calls 3, 5-6 (3 calls)"]
    h.set_call_group(1)
    assert h.blocks().values.tolist() == [[7]] and h.note == ""
    h.set_call_group("calls 3, 5-6 (3 calls)")
    assert h.blocks().values.tolist() == [[0, 2**40], [3 * 2**31, 1]]
    _, cols = _reply(h, "matrix")
    assert cols["values"].tolist() == [[0, 2**40], [3 * 2**31, 1]]
    # lead ranks with a gap
    gaps = _profile(_group([[1, 2], [3, 4]], lead=0), _group([[5]], lead=1024))
    g = CountMatrixHeatmap(gaps, lead_rank=1024)
    assert g.lead_ranks == [0, 1024] and g.blocks().values.tolist() == [[5]]
    g.set_lead_rank(0)
    assert g.blocks().values.tolist() == [[1, 2], [3, 4]]


def test_grouped_labels_of_a_band_with_gaps():
    dense = np.zeros((1025, 3), dtype=np.int64)
    dense[[1, 2, 3, 4, 5, 1024]] = [1, 2, 3]
    h = CountMatrixHeatmap(_profile(_group(dense[:, :3])), group_by="rows")
    assert h.blocks().row_labels == [g.label for g in h.matrix.groups]
    assert "1-5, 1024" in h.blocks().row_labels


def test_synthetic_16k_ranks_sends_little():
    rng = np.random.default_rng(1)
    rows = rng.integers(0, 1 << 20, size=(64, 16384), dtype=np.int64)
    m = pc.CountMatrix(rows, rng.integers(0, 64, size=16384))
    g = CallGroup(0, 0, "Alltoallv", np.arange(3), 16384, 4, 4, m, m)
    h = CountMatrixHeatmap(_profile(g))
    content, cols = _reply(h, "matrix")
    size = sum(v.nbytes if hasattr(v, "nbytes") else 0 for v in cols.values())
    assert cols["values"].shape == (512, 512) and size < 8e6
    r = m.row_of_rank[:32]
    assert cols["values"][0, 0] == m.rows[r][:, :32].max()


TESTS = WRF.parent / "collective_profiler_tests"


def test_group_by_host_labels_are_the_location_files(tmp_path):
    src = TESTS / "alltoall_multicomms_c" / "expectedOutput"
    prof = pc.read(src)
    h = CountMatrixHeatmap(prof, lead_rank=1)
    assert h.hosts_known and h.group_by == "rank"
    h.set_group_by("host")
    loc = pc.read_locations(src / "alltoall_locations_comm0_rank1.md")
    host = loc["hostname"].iloc[0]
    assert h.blocks().row_labels == [f"{host}: {format_ranklist(loc['rank'].to_numpy())}"]
    assert h.info["hosts"] == 1
    np.testing.assert_array_equal(h.blocks().values, h.matrix.dense().max(axis=0, keepdims=True))
    # two hosts and a rank no file places: one band per host, ranks listed, values exact
    d = tmp_path / "run"
    shutil.copytree(TESTS / "alltoallv_c" / "expectedOutput", d)
    (d / "alltoallv_locations_comm0_rank0.md").write_text(
        "FORMAT_VERSION: 9\n\nCommunicator ID: 0\nCalls: 0\nCOMM_WORLD ranks: 0-3\n"
        "Hostnames:\n\tRank 0: node-b\n\tRank 1: node-a\n\tRank 3: node-b\n"
    )
    prof = pc.read(d)
    h = CountMatrixHeatmap(prof, group_by="host", reduce="sum")
    hosts = prof.hosts(prof.call_groups(0)[0])
    order = list(dict.fromkeys("(unknown host)" if x is None else x for x in hosts))
    want = [
        f"{name}: {format_ranklist(np.flatnonzero([(x or '(unknown host)') == name for x in hosts]))}"
        for name in order
    ]
    assert h.blocks().row_labels == want == ["node-b: 0, 3", "node-a: 1", "(unknown host): 2"]
    dense = h.matrix.dense()
    np.testing.assert_array_equal(
        h.blocks().values, [dense[[0, 3]].sum(0), dense[[1]].sum(0), dense[[2]].sum(0)]
    )
    assert h.select((0, 1))["ranks"].tolist() == [0, 3]
    content, _ = _reply(h, "set", name="group_by", value="rows")
    assert content["ok"] and h.blocks().row_labels == [g.label for g in h.matrix.groups]


def test_group_by_host_without_locations_says_so(wrf):
    h = CountMatrixHeatmap(wrf)
    assert not h.hosts_known
    before = h.view_state, h.blocks().values.copy()
    with pytest.raises(MetadataError, match="no location file names the hosts of call 0"):
        h.set_group_by("host")
    assert "alltoallv_locations_comm<C>_rank0.md" in h.error and h.group_by == "rank"
    assert h.view_state == before[0]
    np.testing.assert_array_equal(h.blocks().values, before[1])
    content, _ = _reply(h, "set", name="group_by", value="host")
    assert not content["ok"] and "location file" in content["error"]
    with pytest.raises(PerfweaveError, match="group_by must be one of"):
        h.set_group_by("rack")


def test_host_grouping_falls_back_to_ranks_on_a_call_group_without_locations():
    a = _group([[1, 2], [3, 4]], calls=[0])
    b = _group([[5, 6], [7, 8]], calls=[1])
    locs = pd.DataFrame(
        {
            "collective": pd.Series(["alltoallv"] * 2, dtype="string"),
            "comm": [0, 0],
            "lead_rank": [0, 0],
            "calls": pd.Series(["0", "0"], dtype="string"),
            "rank": [0, 1],
            "world_rank": [0, 1],
            "pid": pd.array([None, None], dtype="Int64"),
            "hostname": pd.Series(["h1", "h2"], dtype="string"),
        }
    )
    prof = CountsProfile(groups=[a, b], locations=locs)
    h = CountMatrixHeatmap(prof, group_by="host")
    assert h.blocks().row_labels == ["h1: 0", "h2: 1"]
    h.set_call_group(1)
    assert h.group_by == "rank" and not h.hosts_known
    assert "no location file names the hosts of call 1" in h.note
    assert h.blocks().values.tolist() == [[5, 6], [7, 8]]


def test_cached_column_work_gives_fresh_results():
    """Every control in turn on one widget (its aggregator keeps column-side work) equals a
    fresh aggregation of the same view."""
    rng = np.random.default_rng(3)
    rows = rng.integers(0, 1000, size=(40, 300)) * (rng.random((40, 300)) < 0.4)
    m = pc.CountMatrix(rows, rng.integers(0, 40, size=300))
    g = CallGroup(
        0,
        0,
        "Alltoallv",
        np.arange(2),
        300,
        4,
        8,
        m,
        pc.CountMatrix(rows[::-1] * 3, rng.integers(0, 40, size=300)),
    )
    h = CountMatrixHeatmap(_profile(g), max_cells=37)
    steps = [
        lambda: h.set_direction("recv"),
        lambda: h.set_group_by("rows"),
        lambda: h.set_reduce("sum"),
        lambda: h.set_unit("bytes"),
        lambda: h.zoom((2, 9), (10, 200)),
        lambda: h.set_direction("send"),
        lambda: h.zoom((0, 30), (0, 300)),
        lambda: h.set_group_by("rank"),
        lambda: h.set_reduce("max"),
        lambda: h.zoom_out(),
        lambda: h.set_direction("recv"),
    ]
    for step in steps:
        step()
        v = h.view_state
        factor = (4 if h.direction == "send" else 8) if h.unit == "bytes" else 1
        fresh = aggregate(
            h.matrix.rows,
            units_of(h.matrix, h.group_by),
            tuple(v["rows"]),
            tuple(v["cols"]),
            37,
            37,
            h.reduce,
            factor,
        )
        got = h.blocks()
        for name in ("values", "row_sum", "row_max", "row_ranks", "col_sum", "col_max"):
            np.testing.assert_array_equal(getattr(got, name), getattr(fresh, name), err_msg=name)


def test_warming_the_other_direction_changes_nothing_but_speed(wrf):
    h = CountMatrixHeatmap(wrf, max_cells=40)
    h.study.aggregator.warm(h.call_group.recv, (0, 160), 40)  # what the page's first request starts
    h.set_direction("recv").set_reduce("sum")
    v = h.view_state
    fresh = aggregate(h.matrix.rows, units_of(h.matrix), (0, 160), (0, 160), 40, 40, "sum")
    assert v == {"rows": [0, 160], "cols": [0, 160]}
    np.testing.assert_array_equal(h.blocks().values, fresh.values)
    np.testing.assert_array_equal(h.blocks().col_max, fresh.col_max)


HOSTS = WRF.parent / "wrf_hosts"


def wrf_with_hosts(tmp: Path) -> Path:
    """The WRF run with the location file derived from its per-node files (call 0)."""
    d = tmp / "wrf_with_hosts"
    shutil.copytree(WRF, d)
    shutil.copy(HOSTS / "alltoallv_locations_comm0_rank0.md", d)
    return d


def test_wrf_grouped_by_its_four_nodes(tmp_path):
    # the node each rank ran on, straight from the upstream per-node files
    node = {}
    for f in sorted(HOSTS.glob("data_rank0_call0_*.txt")):
        for line in f.read_text().splitlines():
            if line.split() and line.split()[0].isdigit():
                node[int(line.split()[0])] = f.stem.split("_", 3)[3]
    prof = pc.read(wrf_with_hosts(tmp_path))
    assert prof.hosts(prof.call_groups(0)[0]).tolist() == [node[r] for r in range(160)]
    h = CountMatrixHeatmap(prof, group_by="host", reduce="sum")
    first_rank = {}
    for r in range(160):
        first_rank.setdefault(node[r], r)
    order = sorted(first_rank, key=first_rank.get)
    labels = [
        f"{n}: {format_ranklist(np.array([r for r in range(160) if node[r] == n]))}" for n in order
    ]
    assert h.blocks().row_labels == labels and len(labels) == 4
    dense = h.matrix.dense()
    for i, n in enumerate(order):
        ranks = [r for r in range(160) if node[r] == n]
        assert h.blocks().row_sum[i] == dense[ranks].sum()
    assert h.info["hosts"] == 4
    # call 3 is on another communicator: no location file covers it
    h.set_call_group(2)
    assert h.group_by == "rank" and not h.hosts_known and "no location file" in h.note


def test_unreadable_files_are_listed_and_the_rest_shown(tmp_path):
    d = wrf_with_hosts(tmp_path)
    bad = d / "counts.rank0_call1.md"
    bad.write_text(bad.read_text().replace("Comm size: 160", "Comm size: many", 1))
    (d / "alltoallv_locations_comm0_rank0.md").write_text("Communicator ID: 0\nRank x: a\n")
    h = CountMatrixHeatmap(d)
    assert len(h.load_errors) == 2 and h.error == ""
    assert any("counts.rank0_call1.md" in e and "many" in e for e in h.load_errors)
    assert any("alltoallv_locations_comm0_rank0.md" in e for e in h.load_errors)
    assert h.group_labels == ["call 0", "call 3", "call 4"]
    assert not h.hosts_known  # the location file was the unreadable one
    np.testing.assert_array_equal(h.blocks().values, pc.read(WRF).call_groups(0)[0].send.dense())


def test_side_panel_statistics_are_the_cores(wrf):
    h = CountMatrixHeatmap(wrf)
    stats = wrf.stats(0).set_index("call")
    for index, direction in [(0, "send"), (2, "recv"), (3, "send")]:
        h.set_call_group(index).set_direction(direction)
        call = int(wrf.call_groups(0)[index].calls[0])
        want = {
            k: stats.loc[call, f"{direction}_{k}"]
            for k in ("bytes", "messages", "zeros", "max", "large", "small")
        }
        got = dict(h.info["stats"])
        assert {k: got[k] for k in want} == want and len(got) == 7


@pytest.mark.parametrize(
    "name, bad, error",
    [
        ("direction", "x", "direction must be one of send, recv"),
        ("unit", "parsecs", "unit must be one of"),
        ("scale", "sqrt", "scale must be one of"),
        ("reduce", "mean", "reduce must be one of"),
        ("group_by", "host", "no location file names the hosts of call 0"),
        ("lead_rank", 3, "no count data for lead rank 3"),
        ("group_index", 4, "call group 4 out of range 0..3"),
        ("max_cells", 901, "max_cells must be an integer 1..900"),
        ("height", 0, "height must be a positive number"),
        ("note", "hello", "note shows the heatmap's state"),
        ("view_state", {"rows": [0, 1], "cols": [0, 1]}, "view_state shows the heatmap's"),
        ("info", {}, "info shows the heatmap's state"),
    ],
)
def test_every_public_trait_is_checked_and_a_bad_value_changes_nothing(wrf, name, bad, error):
    h = CountMatrixHeatmap(wrf)
    traits = [n for n in h.trait_names(sync=True) if n != "error"]
    before = {n: getattr(h, n) for n in traits}
    values = h.blocks().values.copy()
    with pytest.raises(PerfweaveError, match=error):
        setattr(h, name, bad)
    assert error in h.error  # the banner says it too
    assert {n: getattr(h, n) for n in traits} == before
    assert (h.study.direction, h.study.group_index, h.study.max_cells) == ("send", 0, 512)
    np.testing.assert_array_equal(h.blocks().values, values)


def test_a_control_trait_set_from_python_changes_the_view_as_its_method_does(wrf):
    by_trait = CountMatrixHeatmap(wrf)
    by_trait.direction = "recv"
    by_trait.group_index = 2
    by_trait.group_by = "rows"
    by_trait.reduce = "sum"
    by_trait.max_cells = 16
    by_method = CountMatrixHeatmap(wrf, max_cells=16)
    by_method.set_direction("recv").set_call_group(2).set_group_by("rows").set_reduce("sum")
    g = wrf.call_groups(0)[2]
    assert by_trait.matrix is g.recv and by_trait.blocks().values.shape[0] <= 16
    for name in ("values", "row_edges", "col_edges", "row_sum", "col_max", "row_labels"):
        np.testing.assert_array_equal(
            getattr(by_trait.blocks(), name), getattr(by_method.blocks(), name), err_msg=name
        )
    assert by_trait.info == by_method.info and by_trait.info["calls"] == "call 3"
    assert by_trait.view_state == by_method.view_state and by_trait.error == ""
