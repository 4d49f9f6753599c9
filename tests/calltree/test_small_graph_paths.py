"""Shortcuts for small graphs agree with the general paths: plain-Python frame codes of
all-text tables, and the one-take node index of build_graphframe."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.calltree import _frames
from perfweave.calltree._build import build_graphframe


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


@st.composite
def node_tables(draw):
    """A random forest and metric rows for its nodes (repeats, gaps, any order)."""
    n = draw(st.integers(1, 30))
    parent = [-1] + [draw(st.integers(-1, i - 1)) for i in range(1, n)]
    names = draw(st.lists(st.sampled_from(["a", "b", "c", "main"]), min_size=n, max_size=n))
    rows = draw(st.lists(st.integers(0, n - 1), min_size=0, max_size=60))
    with_name = draw(st.booleans())
    return parent, names, rows, with_name


@settings(max_examples=80, deadline=None)
@given(node_tables())
def test_node_index_equals_set_index_then_sort_index(case):
    parent, names, rows, with_name = case
    frames = pd.DataFrame({"name": names, "type": ["function"] * len(names)})
    data = pd.DataFrame(
        {"node": np.asarray(rows, dtype=np.int64), "time": np.arange(len(rows), dtype=float)}
    )
    if with_name:
        data["name"] = [names[r] for r in rows]
    gf = build_graphframe(frames, data, parent=parent, exc_metrics=["time"])
    # the general path: remap node ids, then pandas' set_index + sort_index
    _, pos = type(gf.graph)._new(frames, np.asarray(parent), None)
    ref = data.copy()
    ref["node"] = pos[ref["node"].to_numpy()]
    if not with_name:
        ref["name"] = gf.graph.frames["name"].to_numpy()[ref["node"].to_numpy()]
    ref = ref.set_index("node").sort_index()
    pd.testing.assert_frame_equal(gf.dataframe, ref, check_exact=True)
    assert data["node"].tolist() == rows  # the input is not modified
