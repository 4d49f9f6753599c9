"""String columns crossing to the page: a long column encodes each distinct string once, and
the bytes are the same as encoding every string in turn (names with markup, surrogates,
None and NaN included)."""

from __future__ import annotations

import numpy as np
import pytest

from perfweave.widgets._transport import pack, unpack


def _expected(strings):
    encoded = [str(s).encode("utf-8", "surrogatepass") for s in strings]
    return b"".join(encoded), np.cumsum([len(b) for b in encoded]).astype("<u4")


@pytest.mark.parametrize(
    "strings",
    [
        [f"f{i % 500}" for i in range(10_000)],  # names repeat: the distinct ones encoded once
        np.array([f"ä{i % 7}<b>" for i in range(5000)], dtype=object),
        [f"f{i % 500}" for i in range(5000)] + [None, float("nan"), "\ud800x"] * 700,
        ["a"] * 3,
        [("tuple", i) for i in range(3000)],
    ],
    ids=["repeated", "markup", "mixed", "short", "tuples"],
)
def test_string_columns_round_trip_byte_for_byte(strings):
    header, buffers = pack({"name": strings})
    data, ends = _expected(strings)
    assert header == [{"key": "name", "dtype": "str", "shape": [len(strings)]}]
    assert buffers[0] == data and buffers[1] == ends.tobytes()
    assert unpack(header, buffers)["name"] == [str(s) for s in strings]
