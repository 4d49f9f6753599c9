from __future__ import annotations

import numpy as np
import pytest

from perfweave.counts import (
    CallGroup,
    CountMatrix,
    detect_patterns,
    format_patterns,
    format_patterns_summary,
    parse_rows,
    read,
    tally,
    write_patterns,
)
from perfweave.errors import ParseError
from tests.counts._paths import CONFORMANCE, expected

WITH_PATTERNS = [
    "alltoallv_c",
    "alltoallv_dt_c",
    "alltoallv_f",
    "alltoallv_multicomms_c",
    "alltoallv_bigcounts_c",
]


@pytest.mark.parametrize("test", WITH_PATTERNS)
def test_pattern_files_are_byte_identical_to_upstream(test, tmp_path):
    report = read(expected(test)).patterns(0)
    p1, p2 = write_patterns(report, tmp_path)
    assert p1.name == "patterns-job0-rank0.md"
    assert p2.name == "patterns-summary-job0-rank0.md"
    assert p1.read_bytes() == (expected(test) / p1.name).read_bytes()
    assert p2.read_bytes() == (expected(test) / p2.name).read_bytes()


def _group(send: CountMatrix, recv: CountMatrix, calls=(0,), dt=8) -> CallGroup:
    return CallGroup(0, 0, "Alltoallv", np.array(calls), send.n_ranks, dt, dt, send, recv)


CASES = sorted(p.name for p in CONFORMANCE.iterdir())


@pytest.mark.parametrize("case", CASES)
def test_upstream_unit_cases(case):
    d = CONFORMANCE / case
    strict = case != "threeRanksNto1"
    send = parse_rows((d / "send_rows.txt").read_text(), strict=strict)
    recv = parse_rows((d / "recv_rows.txt").read_text(), strict=strict)
    report = detect_patterns([_group(send, recv)])
    assert format_patterns(report) == (d / "expected_patterns.md").read_text()
    assert format_patterns_summary(report) == (d / "expected_patterns_summary.md").read_text()


def test_inconsistent_upstream_row_is_rejected_in_strict_mode():
    """Upstream's threeRanksNto1 recv row has 111 counts for 110 ranks; strict parsing says so."""
    text = (CONFORMANCE / "threeRanksNto1" / "recv_rows.txt").read_text()
    with pytest.raises(ParseError) as info:
        parse_rows(text, path="recv_rows.txt")
    assert info.value.line == 1 and "110 counts per row" in str(info.value)
    assert "111 counts" in str(info.value)


def test_tally_counts_nonzero_peers_self_included_and_skips_empty_rows():
    m = CountMatrix.from_dense(np.array([[1, 2, 0], [0, 0, 3], [1, 0, 0], [0, 0, 0]]))
    assert tally(m) == ((2, 1), (1, 2))  # 1 rank -> 2 peers, 2 ranks -> 1 peer
    assert tally(CountMatrix.from_dense(np.zeros((3, 3), dtype=np.int64))) == ()


def test_alltoall_single_count_goes_to_every_peer():
    m = CountMatrix.from_dense(np.array([[16], [16], [0], [16]]))
    assert tally(m, comm_size=4) == ((4, 3),)


def test_patterns_group_calls_and_number_by_first_call():
    a = CountMatrix.from_dense(np.eye(3, dtype=np.int64))
    b = CountMatrix.from_dense(np.ones((3, 3), dtype=np.int64))
    report = detect_patterns([_group(b, b, calls=(1, 4)), _group(a, a, calls=(0, 2, 3))])
    assert [(p.number, p.calls.tolist()) for p in report.patterns] == [(0, [0, 2, 3]), (1, [1, 4])]
    assert report.total_calls == 5
    frame = report.to_frame()
    assert frame[frame.direction == "send"][["pattern", "peers", "ranks"]].values.tolist() == [
        [0, 1, 3],
        [1, 3, 3],
    ]


def test_empty_calls_are_their_own_category():
    zero = CountMatrix.from_dense(np.zeros((4, 4), dtype=np.int64))
    full = CountMatrix.from_dense(np.ones((4, 4), dtype=np.int64))
    report = detect_patterns([_group(zero, zero, calls=(0, 5)), _group(full, full, calls=(1,))])
    assert [p.calls.tolist() for p in report.empty] == [[0], [5]]
    assert "## Pattern #0 (2/3 alltoallv calls)\n\nAlltoallv calls: 0,5\n\n\n" in format_patterns(
        report
    )


def _n_to_one(n_senders: int, n: int = 200) -> CountMatrix:
    dense = np.zeros((n, n), dtype=np.int64)
    dense[:n_senders, 0] = 7
    return CountMatrix.from_dense(dense)


def test_summary_numbers_n_to_1_patterns_in_turn():
    """Deliberate fix: upstream writes '## Pattern #0' for every N -> 1 (and N -> n) pattern."""
    a, b = _n_to_one(200), _n_to_one(150)
    report = detect_patterns(
        [_group(a, _transpose(a), calls=(0,)), _group(b, _transpose(b), calls=(1,))]
    )
    assert len(report.n_to_one) == 2
    summary = format_patterns_summary(report)
    assert summary.startswith("\n# N to 1 patterns\n\n## Pattern #0 (1/2 alltoallv calls)")
    assert (
        "## Pattern #1 (1/2 alltoallv calls)\n\nAlltoallv calls: 1\n\n150 ranks sent to 1"
        in summary
    )
    assert summary.count("## Pattern #0") == 1  # upstream: 2


def _transpose(m: CountMatrix) -> CountMatrix:
    return CountMatrix.from_dense(m.dense().T)


def test_pattern_listed_once_per_category():
    """Deliberate fix: a pattern with two N -> n tallies is listed once (upstream: twice)."""
    dense = np.zeros((9, 9), dtype=np.int64)
    dense[:4, :4] = 1  # 4 ranks send to 4 peers
    dense[4:, 4:] = 1  # 5 ranks send to 5 peers
    m = CountMatrix.from_dense(dense)
    report = detect_patterns([_group(m, m)])
    assert tally(m) == ((4, 4), (5, 5))
    assert len(report.n_to_n) == 1
    assert format_patterns_summary(report).count("## Pattern #") == 1


def test_equal_rank_counts_are_ordered_by_peers():
    """Upstream sorts lines by rank count only (unstable for ties); ties go by peer count."""
    m = CountMatrix.from_dense(np.array([[1, 1, 1], [1, 1, 0], [0, 0, 0]]))
    text = format_patterns(detect_patterns([_group(m, m)]))
    assert text.index("1 ranks sent to 2 other ranks") < text.index("1 ranks sent to 3 other ranks")


def test_every_call_is_analysed_even_outside_the_header_range():
    """Rank 2's files say 'calls 0-1' but hold calls 0 and 2; upstream skips call 2."""
    report = read(expected("alltoallv_multicomms_c")).patterns(2)
    assert report.total_calls == 2
    assert [p.calls.tolist() for p in report.patterns] == [[0, 2]]
    assert "## Pattern #0 (2/2 alltoallv calls)\n\nAlltoallv calls: 0,2\n" in format_patterns(
        report
    )


def test_one_to_n_section():
    dense = np.zeros((150, 150), dtype=np.int64)
    dense[0, :] = 1
    m = CountMatrix.from_dense(dense)
    summary = format_patterns_summary(detect_patterns([_group(m, _transpose(m))]))
    assert summary.startswith("# 1 to N patterns\n\n## Pattern #0 (1/1 alltoallv calls)")
    assert "1 ranks sent to 150 other ranks" in summary
