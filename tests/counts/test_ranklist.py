from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfweave.counts import format_ranklist, parse_ranklist
from perfweave.errors import ParseError


@pytest.mark.parametrize(
    ("text", "ranks"),
    [
        ("0-3, 7", [0, 1, 2, 3, 7]),
        ("1-5, 1024", [1, 2, 3, 4, 5, 1024]),
        ("0,2-3", [0, 2, 3]),
        ("0", [0]),
        ("0-999999", list(range(1_000_000))),
        ("7, 0-1", [0, 1, 7]),
    ],
)
def test_parse(text, ranks):
    got = parse_ranklist(text)
    assert got.dtype == np.int64
    assert got.tolist() == ranks


def test_format_upstream_styles():
    assert format_ranklist([0, 1, 2, 3, 7]) == "0-3, 7"
    assert format_ranklist([0, 2, 3], sep=",") == "0,2-3"
    assert format_ranklist(np.array([5, 1, 2])) == "1-2, 5"
    assert format_ranklist([4]) == "4"
    assert format_ranklist([]) == ""


@pytest.mark.parametrize("text", ["", "a", "1-", "-3", "3-1", "1,,2", "1.5", "0-3, 2", "1;2", "٣"])
def test_bad_ranklists_raise_parse_error(text):
    with pytest.raises(ParseError) as info:
        parse_ranklist(text, path="f.txt", line=9)
    assert "f.txt, line 9" in str(info.value)


def test_repeated_rank_is_named():
    with pytest.raises(ParseError, match="rank 2 repeats"):
        parse_ranklist("0-3, 2")


@given(st.sets(st.integers(0, 5000), min_size=1, max_size=200), st.sampled_from([", ", ","]))
def test_round_trip_is_exact(ranks, sep):
    text = format_ranklist(sorted(ranks), sep=sep)
    assert parse_ranklist(text).tolist() == sorted(ranks)
    assert format_ranklist(parse_ranklist(text), sep=sep) == text


@given(st.lists(st.tuples(st.integers(0, 300), st.integers(0, 5)), min_size=1, max_size=30))
def test_parse_matches_reference_expansion(spans):
    """Any non-overlapping set of ranges parses to the same ranks as a plain expansion."""
    ranks: set[int] = set()
    items = []
    for start, length in spans:
        block = set(range(start, start + length + 1))
        if block & ranks:
            continue
        ranks |= block
        items.append(f"{start}-{start + length}" if length else str(start))
    assert parse_ranklist(", ".join(items)).tolist() == sorted(ranks)
