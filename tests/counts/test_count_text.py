"""The count-text parser behind compact and per-call files (perfweave.counts._count_text)."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from perfweave.counts import _count_text
from perfweave.counts._count_text import block_to_matrix, rows_to_matrix
from perfweave.errors import ParseError

INT64_MAX = np.iinfo(np.int64).max


def _runs(data: bytes):
    return _count_text._digit_runs(np.frombuffer(data, dtype=np.uint8))


def test_digit_runs_values_ends_and_newlines():
    values, ends, newlines = _runs(b"0 12  345\n6789 \n7")
    assert values.tolist() == [0, 12, 345, 6789, 7]
    assert ends.tolist() == [0, 3, 8, 13, 16]
    assert newlines.tolist() == [9, 15]
    assert values.dtype == np.uint16  # the narrowest dtype holding 4-digit counts


@pytest.mark.parametrize(
    "data", [b"1\t2", b"1 -2", b"+3", b"1.5", b"1,2", b"1\r\n2", "1 \u00e9".encode(), b"x"]
)
def test_digit_runs_rejects_anything_but_digits_spaces_and_newlines(data):
    assert _runs(data) is None


def test_digit_runs_exact_up_to_16_digits_longer_ones_rejected():
    big = 9_999_999_999_999_999  # 16 digits
    values, _, _ = _runs(f"{big} 1000000000000000 7".encode())
    assert values.tolist() == [big, 10**15, 7]
    assert _runs(b"12345678901234567") is None  # 17 digits: the general parser's job


def test_block_to_matrix_none_unless_every_line_has_the_width():
    data = b"1 2\n3 4\n5 6"
    assert block_to_matrix(data, 0, len(data), 3, 2).tolist() == [[1, 2], [3, 4], [5, 6]]
    assert block_to_matrix(data, 4, len(data), 2, 2).tolist() == [[3, 4], [5, 6]]
    assert block_to_matrix(data, 0, len(data), 2, 2) is None  # three lines, not two
    assert block_to_matrix(b"1 2 3\n4", 0, 7, 2, 2) is None  # 3 + 1, though 4 in all
    assert block_to_matrix(b"1 2\n\n3 4", 0, 8, 2, 2) is None  # a blank line is a row


rows_of_counts = st.integers(1, 9).flatmap(
    lambda w: st.lists(
        st.lists(st.one_of(st.integers(0, 99), st.integers(0, INT64_MAX)), min_size=w, max_size=w),
        min_size=1,
        max_size=12,
    )
)


@settings(max_examples=150, deadline=None)
@given(
    rows_of_counts,
    st.lists(st.sampled_from([" ", "  ", "   "]), min_size=1, max_size=5),
    st.sampled_from(["", " ", "  "]),
    st.sampled_from([1, 5, 40, 1 << 18]),
)
def test_rows_parse_to_their_integers(matrix, gaps, edge, chunk):
    """Any spacing, any int64 value, any chunk size: the integers written, exactly."""
    rows = [
        edge + "".join(f"{v}{gaps[j % len(gaps)]}" for j, v in enumerate(r)).rstrip() + edge
        for r in matrix
    ]
    with patch.object(_count_text, "_CHUNK_BYTES", chunk):
        got = rows_to_matrix(rows, len(matrix[0]), path="x", first_line=1, expected="w")
    assert got.dtype == np.int64 and got.flags.c_contiguous
    assert got.tolist() == matrix


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.int64, st.tuples(st.integers(1, 30), st.integers(1, 30)), elements=st.integers(0, 10**6)
    )
)
def test_fast_and_general_paths_agree(matrix):
    rows = [" ".join(map(str, r)) + " " for r in matrix.tolist()]
    fast = rows_to_matrix(rows, matrix.shape[1], path="x", first_line=1, expected="w")
    tabbed = [r.replace(" ", "\t") for r in rows]  # tabs: only the C parser takes them
    general = rows_to_matrix(tabbed, matrix.shape[1], path="x", first_line=1, expected="w")
    assert np.array_equal(fast, matrix) and np.array_equal(general, matrix)


def test_int64_limits():
    rows = [f"{INT64_MAX} 0", "12345678901234567 1"]
    assert rows_to_matrix(rows, 2, path="x", first_line=1, expected="w").tolist() == [
        [INT64_MAX, 0],
        [12345678901234567, 1],
    ]
    with pytest.raises(ParseError) as info:  # numpy would saturate it to INT64_MAX
        rows_to_matrix(["0 1", f"{INT64_MAX + 1} 2"], 2, path="x.txt", first_line=7, expected="w")
    assert info.value.line == 8 and "below 2**63" in str(info.value)
    assert str(INT64_MAX + 1) in str(info.value)


def _big_rows(n: int, width: int) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(3)
    m = rng.integers(0, 5000, size=(n, width))
    m[rng.random(m.shape) < 0.6] = 0
    return m, [" ".join(map(str, r)) + " " for r in m.tolist()]


@pytest.mark.parametrize(
    ("damage", "expected", "found"),
    [
        (lambda r: r.replace(" ", " x ", 1), "a non-negative integer count", "'x'"),
        (lambda r: r + "5 ", "300 counts per row", "301 counts"),
        (lambda r: r.rsplit(" ", 2)[0], "300 counts per row", "299 counts"),
        (lambda r: "", "300 counts per row", "0 counts"),
    ],
)
def test_error_in_a_late_chunk_names_its_line(damage, expected, found):
    m, rows = _big_rows(400, 300)  # ~480 KB of text: two chunks and more
    assert block_to_matrix(*_joined(rows), 400, 300).tolist() == m.tolist()
    rows[377] = damage(rows[377])
    with pytest.raises(ParseError) as info:
        rows_to_matrix(rows, 300, path="big.txt", first_line=10, expected="300 counts per row")
    err = info.value
    assert (err.path, err.line) == ("big.txt", 387)
    assert expected in str(err) and found in str(err)


def _joined(rows: list[str]) -> tuple[bytes, int, int]:
    data = "\n".join(rows).encode()
    return data, 0, len(data)


def test_rows_are_not_modified_and_result_is_new():
    rows = ["1 2 ", "3 4 "]
    before = list(rows)
    a = rows_to_matrix(rows, 2, path="x", first_line=1, expected="w")
    b = rows_to_matrix(rows, 2, path="x", first_line=1, expected="w")
    assert rows == before and not np.shares_memory(a, b)
