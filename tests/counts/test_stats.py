from __future__ import annotations

import dataclasses
import re
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave.counts as pc
from perfweave.counts import (
    call_stats,
    format_heatmap,
    message_totals,
    read,
    read_locations,
    stats,
    stats_summary,
)
from perfweave.counts.stats import host_totals
from tests.counts._paths import TESTS, expected

STATS_TESTS = sorted(
    p.parent.parent.name for p in TESTS.glob("*/expectedOutput/stats-job0-rank0.md")
)

_LINES = [
    (r"(\d+)/\d+ calls use a datatype of size (\d+) while sending data", "send_datatype_size"),
    (r"(\d+)/\d+ calls use a datatype of size (\d+) while receiving data", "recv_datatype_size"),
    (r"(\d+)/\d+ calls use a communicator size of (\d+)", "comm_size"),
    (r"(\d+)/\d+ of all calls have (\d+) send counts equals to zero", "send_zeros"),
    (r"(\d+)/\d+ of all calls have (\d+) recv counts equals to zero", "recv_zeros"),
    (r"(\d+)/\d+ calls have a send count min of (\d+)$", "send_min"),
    (r"(\d+)/\d+ calls have a recv count min of (\d+)$", "recv_min"),
    (r"(\d+)/\d+ calls have a send count max of (\d+)", "send_max"),
    (r"(\d+)/\d+ calls have a recv count max of (\d+)", "recv_max"),
]


def _upstream_tallies(text: str) -> dict[str, dict[int, int]]:
    out: dict[str, dict[int, int]] = {}
    for line in text.splitlines():
        for pattern, key in _LINES:
            m = re.match(pattern, line)
            if m:
                out.setdefault(key, {})[int(m.group(2))] = int(m.group(1))
    return out


def test_all_stats_files_found():
    assert len(STATS_TESTS) == 5


@pytest.mark.parametrize("test", STATS_TESTS)
def test_tallies_match_upstream_stats_file(test):
    text = (expected(test) / "stats-job0-rank0.md").read_text()
    stats = read(expected(test)).stats(0)
    summary = stats_summary(stats)
    ours = {
        key: dict(zip(part["value"].astype(int), part["calls"]))
        for key, part in summary.groupby("statistic", sort=False)
    }
    upstream = _upstream_tallies(text)
    assert len(upstream) == len(_LINES)
    for key, tallies in upstream.items():
        assert ours[key] == tallies, key
    total = int(re.search(r"Total number of alltoallv calls: (\d+)", text).group(1))
    assert len(stats) == total
    tot = message_totals(stats)
    m = re.search(r"(\d+)/(\d+) of all messages are large", text)
    assert (tot["send_large"], tot["send_messages"]) == (int(m.group(1)), int(m.group(2)))
    m = re.search(r"(\d+)/\d+ of all messages are small \(", text)
    assert tot["send_small"] == int(m.group(1))
    m = re.search(r"(\d+)/\d+ of all messages are small, but not 0-size", text)
    assert tot["send_small_nonzero"] == int(m.group(1))


def test_nonzero_minimum_is_computed():
    """Upstream always prints 'min of 0 (excluding zero)'; the real non-zero minimum is 1."""
    text = (expected("alltoallv_dt_c") / "stats-job0-rank0.md").read_text()
    assert "2/2 calls have a send count min of 0 (excluding zero)" in text
    stats = read(expected("alltoallv_dt_c")).stats(0)
    assert stats["send_min_nonzero"].tolist() == [1, 1]
    multi = read(expected("alltoallv_multicomms_c")).stats(0)
    assert multi["send_min"].tolist() == [0, 0, 0]
    assert multi["send_min_nonzero"].tolist() == [1, 1, 1]


def test_all_zero_call_has_no_nonzero_minimum():
    prof = read(TESTS.parent / "go_tools_testdata/pkg/counts/testData/set1/expectedOutput")
    stats = prof.stats(0)
    assert stats.loc[stats.call == 0, "send_min_nonzero"].isna().all()
    assert stats.loc[stats.call == 0, "send_zeros"].item() == 16


def test_threshold_splits_small_and_large():
    prof = read(expected("alltoallv_c"))
    # send rows 0 1 2 3 of 4-byte counts: 0, 4, 8, 12 bytes
    assert call_stats(prof.call_groups(0), threshold=8)["send_large"].item() == 8
    assert call_stats(prof.call_groups(0), threshold=13)["send_large"].item() == 0


HEATMAPS = sorted(TESTS.glob("*/expectedOutput/alltoallv_heat-map.rank*-*.md"))


@pytest.mark.parametrize("path", HEATMAPS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_heat_map_data_matches_upstream(path):
    rank, direction = re.match(r"alltoallv_heat-map\.rank(\d+)-(send|recv)\.md", path.name).groups()
    per_rank = read(path.parent).bytes_per_rank(int(rank))
    assert format_heatmap(per_rank, direction) == path.read_text()


def test_bytes_per_rank_alltoall_counts_every_peer():
    per_rank = read(expected("alltoall_simple_c")).bytes_per_rank(0)
    # 8 one-byte elements to each of 4 ranks
    assert per_rank["bytes_sent"].tolist() == [32, 32, 32, 32]


def test_host_totals_from_locations():
    prof = read(expected("alltoall_multicomms_c"))
    totals = prof.host_totals(1)
    assert totals.to_dict("list") == {
        "hostname": ["login02.hpcadvisorycouncil.com"],
        "ranks": [3],
        "bytes_sent": [3 * 3 * 16 * 4],
        "bytes_received": [3 * 3 * 16 * 4],
    }


def test_host_totals_split_by_host(copy_dir):
    d = copy_dir(expected("alltoallv_c"))
    (d / "alltoallv_locations_comm0_rank0.md").write_text(
        "FORMAT_VERSION: 9\n\nCommunicator ID: 0\nCalls: 0\nCOMM_WORLD ranks: 0-3\n"
        "PIDs: 10-13\nHostnames:\n\tRank 0: a\n\tRank 1: a\n\tRank 2: b\n\tRank 3: b\n"
    )
    prof = read(d)
    totals = prof.host_totals(0).set_index("hostname")
    # send rows are 0 1 2 3 (x4 bytes) for every rank; rank r receives 4 * r counts
    assert totals.loc["a"].tolist() == [2, 48, 16]
    assert totals.loc["b"].tolist() == [2, 48, 80]
    assert read_locations(d / "alltoallv_locations_comm0_rank0.md")["pid"].tolist() == [
        10,
        11,
        12,
        13,
    ]


def test_host_totals_without_locations_is_empty():
    assert host_totals(read(expected("alltoallv_c")).call_groups(0), pd.DataFrame()).empty


def test_stats_repeat_group_values_for_a_million_calls():
    stats = read(expected("alltoallv_bigcounts_c")).stats(0)
    assert len(stats) == 1_000_000
    assert np.array_equal(stats["call"].to_numpy(), np.arange(1_000_000))
    assert (stats["send_zeros"] == 4).all()


def test_hosts_of_a_call_group_from_its_location_file(copy_dir):
    prof = read(expected("alltoall_multicomms_c"))
    (g1,) = prof.call_groups(1)
    loc = read_locations(expected("alltoall_multicomms_c") / "alltoall_locations_comm0_rank1.md")
    assert prof.hosts(g1).tolist() == loc["hostname"].tolist() and len(loc) == g1.comm_size
    d = copy_dir(expected("alltoallv_c"))
    assert read(d).hosts(read(d).call_groups(0)[0]) is None  # no location file
    (d / "alltoallv_locations_comm0_rank0.md").write_text(
        "FORMAT_VERSION: 9\n\nCommunicator ID: 0\nCalls: 0\nCOMM_WORLD ranks: 0-3\n"
        "Hostnames:\n\tRank 0: b\n\tRank 1: a\n\tRank 3: b\n"
    )
    prof = read(d)
    (group,) = prof.call_groups(0)
    assert prof.hosts(group).tolist() == ["b", "a", None, "b"]
    other = dataclasses.replace(group, calls=np.array([1]))  # a call no file covers
    assert prof.hosts(other) is None


def _side_reference(rows, row_of_rank, comm_size, dtsize, threshold):
    """call_stats' per-side figures straight from their definitions, on the dense matrix."""
    dense = rows[row_of_rank]
    mult = comm_size if (rows.shape[1] == 1 and comm_size > 1) else 1
    nz = dense[dense > 0]
    large = dense * dtsize >= threshold
    return {
        "zeros": int((dense == 0).sum()) * mult,
        "min": int(dense.min()),
        "min_nonzero": int(nz.min()) if nz.size else None,
        "max": int(dense.max()),
        "large": int(large.sum()) * mult,
        "small": int((~large).sum()) * mult,
        "small_nonzero": int(((~large) & (dense > 0)).sum()) * mult,
        "bytes": int(dense.sum()) * mult * dtsize,
    }


@pytest.mark.parametrize("seed", range(12))
def test_call_stats_side_equals_its_definition(seed):
    """The pass-saving per-side statistics equal the definitions on random matrices (zeros,
    all-zero rows, counts on both sides of the large-message threshold, odd datatype sizes)."""
    from perfweave.counts.matrix import CountMatrix
    from perfweave.counts.stats import _side

    rng = np.random.default_rng(seed)
    n, distinct = int(rng.integers(1, 40)), int(rng.integers(1, 6))
    rows = rng.integers(0, 400, size=(distinct, n))
    rows[rng.random(rows.shape) < rng.random()] = 0
    row_of_rank = rng.integers(0, distinct, size=n)
    row_of_rank[:distinct] = np.arange(min(distinct, n))
    rows = rows[: row_of_rank.max() + 1]
    m = CountMatrix(rows, row_of_rank)
    for dtsize, threshold in ((1, 200), (8, 200), (3, 7), (4, 0), (2, 1)):
        got = _side(m, n, dtsize, threshold)
        want = _side_reference(rows, row_of_rank, n, dtsize, threshold)
        got_min_nz = None if np.isnan(got["min_nonzero"]) else got["min_nonzero"]
        assert got_min_nz == want.pop("min_nonzero")
        assert {k: got[k] for k in want} == want, (dtsize, threshold)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 30), st.integers(0, 5), st.data())
def test_tallies_read_block_by_block_equal_whole_matrix_ones(n, width, dtsize, data):
    # the summary reads a wide matrix a block of rows at a time: with blocks of a few
    # cells every tally must still be the whole matrix's
    cells = data.draw(
        st.lists(st.integers(0, 300), min_size=n * width, max_size=n * width), label="counts"
    )
    rows = np.asarray(cells, dtype=np.int64).reshape(n, width)
    m = pc.CountMatrix.from_dense(rows)
    threshold = data.draw(st.integers(0, 400), label="threshold")
    want = _numpy_side(rows, dtsize, threshold)
    for block in (1, width, 7 * width, 1 << 18):
        with mock.patch.object(stats, "_BLOCK_CELLS", block):
            got = stats._side(m, 1, dtsize, threshold)  # one rank per count: no multiplicity
        for key, value in want.items():
            assert got[key] == value or (value != value and got[key] != got[key]), key


def _numpy_side(dense: np.ndarray, dtsize: int, threshold: int) -> dict:
    size = dense * dtsize
    positive = dense[dense > 0]
    return {
        "zeros": int((dense == 0).sum()),
        "min": int(dense.min()),
        "min_nonzero": int(positive.min()) if positive.size else float("nan"),
        "max": int(dense.max()),
        "large": int((size >= threshold).sum()),
        "small": int((size < threshold).sum()),
        "small_nonzero": int(((size < threshold) & (dense > 0)).sum()),
        "bytes": int(dense.sum()) * dtsize,
    }
