from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.counts import (
    CompactBlock,
    CountMatrix,
    format_compact,
    parse_compact,
    read_compact,
    write_compact,
)
from perfweave.errors import IncompleteInputWarning, ParseError
from tests.counts._paths import COUNTS, SET1, SET2, expected

ALL_COMPACT = sorted(COUNTS.rglob("*-counters.job*.rank*.txt"))


def test_all_compact_files_found():
    assert len(ALL_COMPACT) == 34  # 30 from the profiler, 4 made for symbols/results*


@pytest.mark.parametrize("path", ALL_COMPACT, ids=lambda p: str(p.relative_to(COUNTS)))
def test_read_then_write_is_byte_identical(path, tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cf = read_compact(path)
    # only the go tools' set2 files hold fewer calls than their header lists ('calls 0-3',
    # calls 0-2 present): read as they are, and said so
    incomplete = [w for w in caught if issubclass(w.category, IncompleteInputWarning)]
    assert bool(incomplete) == ("set2" in path.parts), [str(w.message) for w in caught]
    out = write_compact(cf.blocks, tmp_path / path.name, style=cf.style)
    assert out.read_bytes() == path.read_bytes()


def test_multicomm_file_values():
    cf = read_compact(expected("alltoallv_multicomms_c") / "send-counters.job0.rank0.txt")
    assert (cf.kind, cf.job, cf.rank) == ("send", 0, 0)
    assert len(cf.blocks) == 2
    small, big = cf.blocks
    assert small.collective == "Alltoallv" and small.comm_size == 2 and small.datatype_size == 4
    assert small.calls.tolist() == [0, 2] and small.call_range == (0, 2)
    assert small.counts.dense().tolist() == [[0, 1], [0, 1]]
    assert big.calls.tolist() == [1]
    assert big.counts.dense().tolist() == [[0, 1, 2, 3]] * 4
    assert big.counts.dense().dtype == np.int64
    assert cf.calls.tolist() == [0, 1, 2]


def test_recv_rows_and_rank_groups():
    cf = read_compact(expected("alltoallv_f") / "recv-counters.job0.rank0.txt")
    m = cf.blocks[0].counts
    assert m.dense().tolist() == [[1, 0, 1], [2, 0, 0], [0, 3, 0]]
    assert [g.label for g in m.groups] == ["0", "1", "2"]


def test_alltoall_rows_hold_one_count_and_layout_is_kept():
    cf = read_compact(expected("alltoall_multicomms_c") / "send-counters.job0.rank1.txt")
    b = cf.blocks[0]
    assert b.collective == "Alltoall" and b.counts.shape == (3, 1)
    # identical rows are merged in the matrix but the file's own row layout is kept
    assert b.counts.rows.shape[0] == 1
    assert b.layout.tolist() == [0, 1, 0]


def test_allgatherv_send_one_count_recv_full_rows():
    d = expected("allgatherv_c")
    send = read_compact(d / "send-counters.job0.rank0.txt")
    recv = read_compact(d / "recv-counters.job0.rank0.txt")
    assert send.blocks[1].counts.dense().tolist() == [[2]] * 4
    assert recv.blocks[1].counts.dense().tolist() == [[2, 2, 2, 2]] * 4


def test_both_spacing_variants():
    with pytest.warns(IncompleteInputWarning, match="header"):
        tools = read_compact(SET2 / "input" / "send-counters.job0.rank0.txt")
    assert tools.style.gap == "  " and tools.style.sep == ","
    assert tools.blocks[1].calls.tolist() == [1, 2]
    assert tools.blocks[1].counts.dense().tolist() == [[0] * 4, [1] * 4, [0] * 4, [0] * 4]
    prof = read_compact(expected("alltoallv_c") / "send-counters.job0.rank0.txt")
    assert prof.style.gap == " " and prof.style.sep == ", " and prof.style.trailing == " "


def test_styles_are_written_as_named():
    block = read_compact(SET1 / "expectedOutput" / "recv-counters.job0.rank0.txt").blocks[0]
    assert "Alltoallv calls  0-2\nCount: 2 calls - 0,2\n" in format_compact([block], "tools")
    assert "Rank(s) 0,2-3: 0 0 0 0\n" in format_compact([block], "tools")
    assert "Rank(s) 0, 2-3: 0 0 0 0 \n" in format_compact([block], "profiler")
    with pytest.raises(ValueError, match="style"):
        format_compact([block], "fancy")


def test_bigcounts_calls_are_one_block():
    cf = read_compact(expected("alltoallv_bigcounts_c") / "send-counters.job0.rank0.txt")
    assert cf.blocks[0].calls.size == 1_000_000
    assert cf.blocks[0].calls[-1] == 999_999


GOOD = (
    "# Raw counters\n"
    "\n"
    "Number of ranks: 3\n"
    "Datatype size: 4\n"
    "Alltoallv calls 0-1\n"
    "Count: 2 calls - 0-1\n"
    "\n"
    "\n"
    "BEGINNING DATA\n"
    "Rank(s) 0, 2: 1 2 0 \n"
    "Rank(s) 1: 0 0 3 \n"
    "END DATA\n"
)


def test_good_block_parses():
    cf = parse_compact(GOOD, path="x.txt")
    assert cf.blocks[0].counts.dense().tolist() == [[1, 2, 0], [0, 0, 3], [1, 2, 0]]


@pytest.mark.parametrize(
    ("broken", "line", "expected"),
    [
        (GOOD.replace("END DATA\n", ""), 11, "'END DATA' closing the block started at line 1"),
        (GOOD.replace("END DATA\n", "") + GOOD, 12, "'END DATA' closing the block"),
        (GOOD.replace("Number of ranks: 3", "Number of ranks: 4"), 10, "4 counts per row"),
        (
            GOOD.replace("Number of ranks: 3", "Number of ranks: 4")
            .replace("1 2 0 ", "1 2 0 0 ")
            .replace("0 0 3 ", "0 0 3 0 "),
            12,
            "rows covering all 4 ranks",
        ),
        (GOOD.replace("Rank(s) 1:", "Rank(s) 2:"), 11, "rank 2 in one row only"),
        (GOOD.replace("Rank(s) 0, 2:", "Rank(s) 0:"), 12, "all 3 ranks"),
        (GOOD.replace("1 2 0 ", "1 2 0 5 "), 10, "3 counts per row"),
        (GOOD.replace("0 0 3 ", "0 0 "), 11, "3 counts per row"),
        (GOOD.replace("0 0 3 ", "0 x 3 "), 11, "a non-negative integer count"),
        (GOOD.replace("0 0 3 ", "0 1.5 3 "), 11, "a non-negative integer count"),
        (GOOD.replace("0 0 3 ", "0 -1 3 "), 11, "a non-negative integer count"),
        (GOOD.replace("Alltoallv calls", "Bcast calls"), 5, "a collective name"),
        (GOOD.replace("Count: 2 calls", "Count: 3 calls"), 6, "3 call ids"),
        (GOOD.replace("Rank(s) 0, 2:", "Rank(s) 0, 5:"), 10, "ranks 0-2"),
        (GOOD.replace("Datatype size: 4\n", ""), 8, "'Datatype size: <bytes>'"),
        (GOOD.replace("Rank(s) 1:", "Ranks 1:"), 11, "'Rank(s) <rank list>: <counts>'"),
        ("hello\n" + GOOD, 1, "'# Raw counters'"),
        (GOOD.replace("BEGINNING DATA\n", "").replace("END DATA\n", ""), 9, "header line"),
    ],
)
def test_bad_input_names_file_line_and_expectation(broken, line, expected):
    with pytest.raises(ParseError) as info:
        parse_compact(broken, path="send-counters.job0.rank0.txt")
    err = info.value
    assert err.path == "send-counters.job0.rank0.txt"
    assert err.line == line
    assert expected in str(err)


def test_a_call_in_two_blocks_is_an_error():
    with pytest.raises(ParseError, match="call 1 in one block only"):
        parse_compact(GOOD + GOOD.replace("Count: 2 calls - 0-1", "Count: 1 calls - 1"))


def test_error_from_file_names_the_file(tmp_path):
    bad = tmp_path / "recv-counters.job0.rank3.txt"
    bad.write_text(GOOD.replace("0 0 3 ", "0 0 three "))
    with pytest.raises(ParseError) as info:
        read_compact(bad)
    assert str(bad) in str(info.value) and info.value.line == 11
    assert "'three'" in str(info.value)


@st.composite
def blocks(draw):
    n = draw(st.integers(1, 12))
    n_rows = draw(st.integers(1, min(n, 4)))
    rows = np.array(
        draw(
            st.lists(
                st.lists(st.integers(0, 10**9), min_size=n, max_size=n),
                min_size=n_rows,
                max_size=n_rows,
            )
        )
    )
    row_of_rank = np.array(draw(st.lists(st.integers(0, n_rows - 1), min_size=n, max_size=n)))
    calls = sorted(draw(st.sets(st.integers(0, 10_000), min_size=1, max_size=20)))
    return CompactBlock(
        "Alltoallv",
        n,
        draw(st.sampled_from([1, 4, 8])),
        np.array(calls),
        CountMatrix(rows, row_of_rank),
    )


@settings(max_examples=60, deadline=None)
@given(blocks(), st.sampled_from(["tools", "profiler"]))
def test_write_then_parse_round_trips(block, style):
    text = format_compact([block], style=style)
    back = parse_compact(text).blocks[0]
    assert back.counts == block.counts
    assert np.array_equal(back.counts.dense(), block.counts.dense())
    assert back.calls.tolist() == block.calls.tolist()
    assert back.datatype_size == block.datatype_size
    assert format_compact([back], style=style) == text


@pytest.mark.parametrize(
    ("label", "expected"),
    [("0-x", "a rank list such as '0-3, 7'"), ("2-0", "low <= high"), ("0,,2", "a rank list")],
)
def test_bad_rank_label_names_its_line(label, expected):
    text = GOOD.replace("Rank(s) 0, 2:", f"Rank(s) {label}:")
    with pytest.raises(ParseError) as info:
        parse_compact(text, path="x.txt")
    assert info.value.line == 10 and expected in str(info.value)


def test_unusual_but_valid_labels():
    text = GOOD.replace("Rank(s) 0, 2:", "Rank(s) 2, 0-0:")
    assert parse_compact(text).blocks[0].counts.dense().tolist() == [
        [1, 2, 0],
        [0, 0, 3],
        [1, 2, 0],
    ]
    text = GOOD.replace("Rank(s) 0, 2:", "Rank(s) 2,0:")
    assert parse_compact(text).blocks[0].counts.row_of_rank.tolist() == [0, 1, 0]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_block_label_fast_path_agrees_with_per_row_parse(data):
    from perfweave.counts.compact import _rows_ranks
    from perfweave.counts.ranklist import format_ranklist, parse_ranklist

    n = data.draw(st.integers(1, 60))
    k = data.draw(st.integers(1, min(n, 6)))
    row_of_rank = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    labels = []
    for j in range(k):
        ranks = np.flatnonzero(row_of_rank == j)
        if ranks.size:
            items = format_ranklist(ranks).split(", ")
            items = data.draw(st.permutations(items))
            labels.append(data.draw(st.sampled_from([", ", ","])).join(items))
    ranks, rows = _rows_ranks(labels, 1, "x")
    expect = [parse_ranklist(lab) for lab in labels]
    assert sorted(ranks.tolist()) == list(range(n))
    for j, r in enumerate(expect):
        assert sorted(ranks[rows == j].tolist()) == r.tolist()


@pytest.mark.parametrize("eol", ["\r\n", "\r"])
def test_cr_line_ends_read_like_lf(tmp_path, eol):
    p = tmp_path / "send-counters.job0.rank0.txt"
    p.write_bytes(GOOD.replace("\n", eol).encode())
    blocks = read_compact(p).blocks
    assert blocks[0].counts == parse_compact(GOOD).blocks[0].counts
    assert blocks[0].calls.tolist() == [0, 1]


def test_non_utf8_compact_file_is_a_parse_error(tmp_path):
    p = tmp_path / "send-counters.job0.rank0.txt"
    p.write_bytes(GOOD.encode().replace(b"Datatype size: 4", b"Datatype size: \xff"))
    with pytest.raises(ParseError, match="UTF-8 text"):
        read_compact(p)


def test_parse_compact_reads_cr_line_ends_as_read_compact_does():
    text = (expected("alltoallv_c") / "send-counters.job0.rank0.txt").read_text()
    plain = parse_compact(text)
    for ends in ("\r\n", "\r"):
        other = parse_compact(text.replace("\n", ends))
        assert [b.counts for b in other.blocks] == [b.counts for b in plain.blocks]
