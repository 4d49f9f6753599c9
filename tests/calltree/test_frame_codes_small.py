"""The plain-Python frame codes of small all-text tables agree with the vectorised path."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.calltree import _frames


def _vectorised(table: pd.DataFrame, monkeypatch) -> tuple[np.ndarray, np.ndarray]:
    with monkeypatch.context() as m:
        m.setattr(_frames, "_SMALL", -1)
        return _frames.frame_codes(table)


_WORDS = st.sampled_from(["main", "solve", "Main", "a,b", "é", "", "z", "10", "9", "kernel"])


@st.composite
def text_tables(draw):
    n = draw(st.integers(1, 40))
    ncols = draw(st.integers(1, 3))
    return pd.DataFrame(
        {
            name: draw(st.lists(_WORDS, min_size=n, max_size=n))
            for name in ["file", "name", "type"][:ncols]
        }
    )


@settings(max_examples=80, deadline=None)
@given(text_tables())
def test_text_tables_get_the_same_codes_and_ranks(table):
    with pytest.MonkeyPatch.context() as mp:
        expected = _vectorised(table, mp)
    got = _frames._text_frame_codes(table, with_rank=True)
    assert got is not None
    assert np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])
    assert _frames._text_frame_codes(table, with_rank=False)[1] is None


def test_a_real_graph_uses_it_and_ranks_frames_in_name_order():
    table = pd.DataFrame({"name": ["b", "a", "b", "c"], "type": ["function"] * 4})
    code, rank = _frames.frame_codes(table)
    assert code.tolist() == [0, 1, 0, 2] and rank.tolist() == [1, 0, 1, 2]


@pytest.mark.parametrize(
    "column",
    [
        ["a", math.nan, "b"],  # missing value
        [1, 2, 1],  # numbers
        ["a", 2, "b"],  # mixed
        pd.Categorical(["b", "a", "b"], categories=["b", "a"]),  # category order, not text
    ],
)
def test_other_tables_take_the_vectorised_path(column, monkeypatch):
    table = pd.DataFrame({"name": column})
    assert _frames._text_frame_codes(table, with_rank=True) is None
    code, rank = _frames.frame_codes(table)
    expected = _vectorised(table, monkeypatch)
    assert np.array_equal(code, expected[0]) and np.array_equal(rank, expected[1])
