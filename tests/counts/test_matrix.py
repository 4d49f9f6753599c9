from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from perfweave.counts import CountMatrix, parse_ranklist, rank_groups
from perfweave.errors import ShapeError

dense_matrices = st.integers(1, 9).flatmap(
    lambda n: arrays(np.int64, (n, n), elements=st.integers(0, 3))
)


@settings(max_examples=80, deadline=None)
@given(dense_matrices)
def test_dense_round_trip_and_groups_partition_ranks(dense):
    m = CountMatrix.from_dense(dense)
    assert np.array_equal(m.dense(), dense)
    assert m.rows.shape[0] == len({tuple(r) for r in dense.tolist()})
    seen = np.concatenate([g.ranks for g in m.groups])
    assert sorted(seen.tolist()) == list(range(dense.shape[0]))
    firsts = [int(g.ranks[0]) for g in m.groups]
    assert firsts == sorted(firsts)  # ordered by first rank
    for g in m.groups:
        assert parse_ranklist(g.label).tolist() == g.ranks.tolist()
        assert (dense[g.ranks] == g.row).all()
    assert np.array_equal(m.column_sums(), dense.sum(axis=0))
    assert np.array_equal(m.rank_sums(), dense.sum(axis=1))
    assert np.array_equal(m.nonzero_per_rank(), np.count_nonzero(dense, axis=1))


def test_equality_ignores_how_rows_were_written():
    a = CountMatrix(np.array([[1, 1], [0, 0], [0, 0]]), np.array([1, 0]))
    b = CountMatrix.from_dense(np.array([[0, 0], [1, 1]]))
    assert a == b and hash(a) == hash(b)
    assert a.rows.tolist() == [[0, 0], [1, 1]] and a.row_of_rank.tolist() == [0, 1]
    assert a != CountMatrix.from_dense(np.array([[0, 0], [1, 2]]))


def test_input_is_not_aliased_and_result_is_read_only():
    dense = np.array([[1, 2], [1, 2]])
    m = CountMatrix.from_dense(dense)
    dense[0, 0] = 99
    assert m.dense().tolist() == [[1, 2], [1, 2]]
    with pytest.raises(ValueError):
        m.rows[0, 0] = 5


def test_rank_groups_of_dense_array():
    groups = rank_groups(np.array([[0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]]))
    assert [(g.label, g.ranks.tolist(), g.row.tolist()) for g in groups] == [
        ("0, 2-3", [0, 2, 3], [0, 0, 0, 0]),
        ("1", [1], [1, 1, 1, 1]),
    ]


def test_bad_shapes():
    with pytest.raises(ShapeError):
        CountMatrix.from_dense(np.zeros(3))
    with pytest.raises(ShapeError):
        CountMatrix(np.zeros((2, 2)), np.array([0, 2]))


def test_hash_collision_falls_back_to_exact_rows(monkeypatch):
    """Rows that hash alike but differ are still told apart."""
    import perfweave.counts.matrix as mod

    real = np.random.default_rng

    class Zero:
        def __init__(self, *a, **k):
            pass

        def integers(self, lo, hi, size):
            return np.zeros(size, dtype=np.int64)  # every row hashes to 0

    monkeypatch.setattr(mod.np.random, "default_rng", Zero)
    dense = np.array([[1, 0], [0, 1], [1, 0]])
    m = CountMatrix.from_dense(dense)
    monkeypatch.setattr(mod.np.random, "default_rng", real)
    assert np.array_equal(m.dense(), dense)
    assert m.rows.shape[0] == 2


def test_constructor_leaves_caller_arrays_alone():
    rows = np.array([[1, 1], [0, 0]])
    index = np.array([1, 0, 1])
    m = CountMatrix(rows, index)
    assert rows.flags.writeable and index.flags.writeable
    rows[0, 0] = 7
    assert m.dense().tolist() == [[0, 0], [1, 1], [0, 0]]


def test_from_dense_copies_but_a_parser_output_is_adopted():
    distinct = np.arange(12, dtype=np.int64).reshape(4, 3)
    kept = CountMatrix.from_dense(distinct)
    assert not np.shares_memory(kept.rows, distinct) and distinct.flags.writeable
    adopted = CountMatrix._adopt_dense(distinct.copy())
    assert adopted == kept and adopted.row_of_rank.tolist() == [0, 1, 2, 3]
    owned = distinct.copy()
    assert CountMatrix._adopt_dense(owned).rows is owned and not owned.flags.writeable
    canonical = CountMatrix(distinct, np.array([0, 1, 1, 2, 3]))  # public: always a copy
    assert not np.shares_memory(canonical.rows, distinct)
    assert CountMatrix(owned_too := distinct.copy(), np.arange(4), _owned=True).rows is owned_too
    repeated = np.array([[1, 0], [2, 2], [1, 0]])
    m = CountMatrix._adopt_dense(repeated.copy())  # repeated rows are still merged
    assert m.rows.tolist() == [[1, 0], [2, 2]] and m.row_of_rank.tolist() == [0, 1, 0]


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_wide_rows_distinct_whatever_column_they_differ_in(data):
    """Rows of 300 counts that differ only after the first 128 columns, or nowhere."""
    n_distinct = data.draw(st.integers(1, 6))
    base = np.zeros(300, dtype=np.int64)
    rows = np.tile(base, (n_distinct, 1))
    for k in range(1, n_distinct):  # distinct row k differs from row 0 in one column
        col = data.draw(st.integers(0, 299))
        rows[k, col] = k
    row_of_rank = np.array(data.draw(st.lists(st.integers(0, n_distinct - 1), min_size=1)))
    dense = rows[row_of_rank]
    m = CountMatrix.from_dense(dense)
    assert np.array_equal(m.dense(), dense)
    assert m.rows.shape[0] == len({tuple(r) for r in dense.tolist()})
    adopted = CountMatrix._adopt_dense(dense.copy())
    assert adopted == m and np.array_equal(adopted.row_of_rank, m.row_of_rank)
