"""Block aggregation of count matrices for a screen (perfweave.counts.blocks) against numpy."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave.counts as pc
from perfweave.counts.blocks import BlockAggregator
from perfweave.counts.blocks import aggregate_blocks as aggregate
from perfweave.counts.blocks import row_units as units_of


def _reference(dense, ranks_per_block, cols_edges, reduce):
    out = np.zeros((len(ranks_per_block), len(cols_edges) - 1), dtype=np.int64)
    for i, ranks in enumerate(ranks_per_block):
        for j in range(len(cols_edges) - 1):
            cell = dense[np.asarray(ranks)][:, cols_edges[j] : cols_edges[j + 1]]
            out[i, j] = cell.max() if reduce == "max" else cell.sum()
    return out


@st.composite
def _case(draw):
    n = draw(st.integers(1, 24))
    w = draw(st.integers(1, 24))
    distinct = draw(st.integers(1, 4))
    base = draw(
        st.lists(
            st.lists(st.integers(0, 2**40), min_size=w, max_size=w),
            min_size=distinct,
            max_size=distinct,
        )
    )
    pick = draw(st.lists(st.integers(0, distinct - 1), min_size=n, max_size=n))
    dense = np.asarray(base, dtype=np.int64)[pick]
    r0 = draw(st.integers(0, n - 1))
    r1 = draw(st.integers(r0 + 1, n))
    c0 = draw(st.integers(0, w - 1))
    c1 = draw(st.integers(c0 + 1, w))
    cells = draw(st.integers(1, 8))
    return dense, (r0, r1), (c0, c1), cells


@settings(max_examples=200, deadline=None)
@given(
    _case(),
    st.sampled_from(["max", "sum"]),
    st.sampled_from(["rank", "rows", "host"]),
    st.lists(st.sampled_from(["a", "b", "c", None]), min_size=24, max_size=24),
    st.integers(1, 16),
)
def test_block_aggregation_equals_numpy(case, reduce, by, host_pool, scale):
    dense, rows, cols, cells = case
    m = pc.CountMatrix.from_dense(dense)
    hosts = np.asarray(host_pool[: m.n_ranks], dtype=object)
    units = units_of(m, by, hosts)
    if by != "rank":
        rows = (min(rows[0], len(units) - 1), min(rows[1], len(units)))
        rows = (rows[0], max(rows[1], rows[0] + 1))
    b = aggregate(m.rows, units, rows, cols, cells, cells, reduce, scale)
    dense = dense * scale
    blocks = [units.ranks_of(a, z) for a, z in zip(b.row_edges[:-1], b.row_edges[1:])]
    expect = _reference(dense, blocks, b.col_edges - 0, reduce)
    assert b.values.dtype == np.int64
    np.testing.assert_array_equal(b.values, expect)
    view = dense[np.concatenate(blocks)][:, cols[0] : cols[1]]
    np.testing.assert_array_equal(b.row_sum, [dense[r][:, cols[0] : cols[1]].sum() for r in blocks])
    col_sum = [
        view[:, a - cols[0] : z - cols[0]].sum() for a, z in zip(b.col_edges[:-1], b.col_edges[1:])
    ]
    np.testing.assert_array_equal(b.col_sum, col_sum)
    assert b.values.shape[0] <= cells and b.values.shape[1] <= cells


def test_overflowing_sums_fall_back_to_float64_and_say_so():
    big = np.full((4, 4), 2**62, dtype=np.int64)
    m = pc.CountMatrix.from_dense(big)
    b = aggregate(m.rows, units_of(m), (0, 4), (0, 4), 1, 1, "sum")
    assert not b.exact and b.values.dtype == np.float64
    assert b.values[0, 0] == float(2**62) * 16


def test_int64_while_the_view_total_fits_float64_past_it():
    # one row's total fits int64, the view's total does not: sums in float64, max exact
    dense = np.array([[2**61, 2**61], [2**61, 5]], dtype=np.int64)
    m = pc.CountMatrix.from_dense(dense)
    b = aggregate(m.rows, units_of(m), (0, 2), (0, 2), 2, 2, "sum")
    assert not b.exact and b.values.dtype == np.float64
    np.testing.assert_array_equal(b.values, dense.astype(np.float64))
    b = aggregate(m.rows, units_of(m), (0, 2), (0, 2), 2, 2, "max")
    assert b.exact and not b.sums_exact and b.values.dtype == np.int64
    # a zoom to the small row fits again; the datatype size can push a view past int64
    b = aggregate(m.rows, units_of(m), (1, 2), (1, 2), 1, 1, "sum", 8)
    assert b.exact and b.values.tolist() == [[40]]
    b = aggregate(m.rows, units_of(m), (0, 1), (0, 1), 1, 1, "sum", 8)
    assert not b.exact and b.values.tolist() == [[float(2**61) * 8]]


def test_a_kept_aggregator_answers_zooms_as_a_fresh_one():
    # a zoom into ranks with rows of their own reads only the rows it uses and keeps that
    # work apart from the whole view's: every view answers as a fresh aggregation does
    rng = np.random.default_rng(7)
    dense = rng.integers(0, 5000, size=(300, 120))
    dense[rng.random(dense.shape) < 0.6] = 0
    m = pc.CountMatrix.from_dense(dense)
    units = units_of(m, "rank")
    kept = BlockAggregator()
    views = [((0, 300), (0, 120)), ((30, 90), (10, 60)), ((0, 300), (0, 120)), ((30, 90), (10, 60))]
    views += [((200, 201), (0, 120)), ((31, 90), (10, 60))]
    for rows, cols in views:
        for reduce in ("max", "sum"):
            got = kept.aggregate(m.rows, units, rows, cols, 40, 40, reduce)
            want = aggregate(m.rows, units, rows, cols, 40, 40, reduce)
            for name in ("values", "row_sum", "row_max", "col_sum", "col_max", "row_ranks"):
                np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
            ranks = units.ranks_of(*rows)
            view = dense[ranks][:, cols[0] : cols[1]]
            assert got.row_sum.sum() == view.sum() == got.col_sum.sum()
