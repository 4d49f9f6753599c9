"""Row callables in ``filter``: one vectorised call where it means the same as per-row
calls, light per-row objects otherwise -- always the mask ``DataFrame.apply`` gives."""

from __future__ import annotations

import math
import operator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import perfweave as pw
from perfweave.calltree.row_filter import _vectorised, per_row_mask, row_mask

DATA = Path(__file__).parent.parent / "data"
CPI = DATA / "hatchet" / "caliper-cpi-json" / "cpi-callpath-profile.json"


def apply_mask(table: pd.DataFrame, predicate) -> np.ndarray:
    """The reference: what ``filter`` did before (and Hatchet does), ``apply`` per row."""
    return np.asarray(table.apply(predicate, axis=1), dtype=bool)


@pytest.fixture(scope="module")
def cpi() -> pw.GraphFrame:
    return pw.read(CPI)


@pytest.fixture(scope="module")
def cpi_rows(cpi) -> pd.DataFrame:
    return cpi.dataframe.reset_index()


def _cut(cpi) -> float:
    t = cpi.dataframe["time"].to_numpy()
    return float(np.quantile(t[t > 0], 0.5))


# predicates a Hatchet user writes; which of them run as one vectorised call
ELEMENTWISE = {
    "metric": lambda r: r["time"] > 5.0,
    "attribute": lambda r: r.time >= 1.0,
    "rank level": lambda r: r["rank"] == 2,
    "node and rank": lambda r: (r["node"] % 3 == 0) & (r["rank"] < 2),
    "row label": lambda r: r.name % 2 == 0,
    "string column": lambda r: r["name"] == "MPI_Bcast",
}
PER_ROW = {
    "python and": lambda r: r["time"] > 0.5 and r["name"] == "main",
    "str method": lambda r: r["name"].startswith("MPI"),
    "if statement": lambda r: 1 if r["time"] > 1.0 else 0,
    "scalar on the table": lambda r: True,
    "in a set": lambda r: r["name"] in {"main", "MPI_Init", "_start"},
    "series method": lambda r: r.isna().sum() >= 3,
    "count is a Series method": lambda r: callable(r.count),
    "invert of python bools": lambda r: ~(r["time"] > 1.0),
}


@pytest.mark.parametrize("label", list(ELEMENTWISE))
def test_elementwise_predicates_run_once_on_columns(cpi_rows, label):
    predicate = ELEMENTWISE[label]
    vectorised = _vectorised(cpi_rows, predicate)
    assert vectorised is not None
    expected = apply_mask(cpi_rows, predicate)
    np.testing.assert_array_equal(vectorised, expected)
    np.testing.assert_array_equal(row_mask(cpi_rows, predicate), expected)
    np.testing.assert_array_equal(per_row_mask(cpi_rows, predicate), expected)


@pytest.mark.parametrize("label", list(PER_ROW))
def test_other_predicates_fall_back_to_identical_per_row_results(cpi_rows, label):
    predicate = PER_ROW[label]
    expected = apply_mask(cpi_rows, predicate)
    np.testing.assert_array_equal(row_mask(cpi_rows, predicate), expected)
    np.testing.assert_array_equal(per_row_mask(cpi_rows, predicate), expected)


def test_a_scalar_result_on_the_table_is_not_a_mask(cpi_rows):
    # on the whole table len(r) would be the row count; per row it is the field count
    predicate = lambda r: len(r) == len(cpi_rows.columns)  # noqa: E731
    assert _vectorised(cpi_rows, predicate) is None
    assert row_mask(cpi_rows, predicate).all()
    assert not row_mask(cpi_rows, lambda r: False).any()


def test_a_reduction_over_a_column_is_not_taken_from_the_vectorised_call():
    # per row, r["t"].mean() is the value itself (a numpy scalar): nothing is above it;
    # on the table it is the column mean: the spot check must notice the difference
    table = pd.DataFrame({"node": np.arange(50), "t": np.linspace(0, 1, 50)})
    predicate = lambda r: r["t"] > r["t"].mean()  # noqa: E731
    assert _vectorised(table, predicate) is not None
    expected = apply_mask(table, predicate)
    assert not expected.any()
    np.testing.assert_array_equal(row_mask(table, predicate), expected)


def test_a_genuine_error_in_the_predicate_reaches_the_caller(cpi):
    with pytest.raises(KeyError, match="no such column"):
        cpi.filter(lambda r: r["no such column"] > 1)
    with pytest.raises(AttributeError, match="mean"):
        cpi.filter(lambda r: r["time"] > r["time"].mean())


@pytest.mark.parametrize("predicates", [ELEMENTWISE, PER_ROW])
def test_graphframe_filter_keeps_the_rows_apply_keeps(cpi, cpi_rows, predicates):
    for label, predicate in predicates.items():
        expected = apply_mask(cpi_rows, predicate)
        if not expected.any():
            continue
        out = cpi.filter(predicate, squash=False)
        assert len(out.dataframe) == expected.sum(), label
        pd.testing.assert_frame_equal(out.dataframe, cpi.dataframe[expected])


def test_filter_then_squash_keeps_the_selected_nodes(cpi):
    cut = _cut(cpi)
    fast = cpi.filter(lambda r: r["time"] > cut)
    slow = cpi.filter(lambda r: r["time"] > cut and r["rank"] >= 0)
    assert len(fast.graph) == len(slow.graph) < len(cpi.graph)
    pd.testing.assert_frame_equal(fast.dataframe, slow.dataframe)


def test_ensemble_filter_and_filter_metadata_take_row_callables():
    files = sorted((DATA / "thicket" / "rajaperf" / "quartz").rglob("*.cali"))[:4]
    ens = pw.Ensemble.from_files([str(f) for f in files], profile_key="file")
    table = ens.dataframe.reset_index()
    metric = ens.default_metric
    cut = float(np.nanmedian(table[metric].to_numpy(float)))
    expected = apply_mask(table, lambda r: r[metric] > cut)
    out = ens.filter(lambda r: r[metric] > cut, squash=False)
    pd.testing.assert_frame_equal(out.dataframe, ens.dataframe[expected])
    slow = ens.filter(lambda r: r[metric] > cut and r["profile"] is not None, squash=False)
    pd.testing.assert_frame_equal(slow.dataframe, out.dataframe)

    chosen = ens.profiles[1]
    one = ens.filter_metadata(lambda r: r.name == chosen)
    assert one.profiles == [chosen]
    same = ens.filter_metadata(lambda r: r["file"] == ens.metadata.loc[chosen, "file"])
    assert same.profiles == [chosen]


# ---------------------------------------------------------------------- property tests
COLUMNS = {"time": st.floats(-1, 10), "node": st.integers(0, 40), "rank": st.integers(0, 3)}
NAMES = ["main", "MPI_Send", "MPI_Recv", "solve", None]
COMPARE = [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]


@st.composite
def tables(draw) -> pd.DataFrame:
    n = draw(st.integers(1, 30))
    time = draw(st.lists(st.floats(0, 10) | st.just(math.nan), min_size=n, max_size=n))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=n, max_size=n))
    rank = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return pd.DataFrame({"node": np.arange(n) * 3 % 41, "rank": rank, "name": names, "time": time})


@st.composite
def comparisons(draw):
    if draw(st.booleans()):
        column = draw(st.sampled_from(sorted(COLUMNS)))
        op = draw(st.sampled_from(COMPARE))
        value = draw(COLUMNS[column])
        return lambda r: op(r[column], value)
    value = draw(st.sampled_from(NAMES[:-1]))
    return lambda r: r["name"] == value


def _combine(children):
    """Elementwise combinations: what both a Series and a Python/numpy bool support alike."""
    pair = st.tuples(children, children)
    return st.one_of(
        pair.map(lambda ab: lambda r: ab[0](r) & ab[1](r)),
        pair.map(lambda ab: lambda r: ab[0](r) | ab[1](r)),
        pair.map(lambda ab: lambda r: ab[0](r) ^ ab[1](r)),
    )


elementwise = st.recursive(comparisons(), _combine, max_leaves=4)


def _python_logic(children):
    """Python-level logic, reductions and ``~``: meaningful per row, not on columns."""
    pair = st.tuples(children, children)
    return st.one_of(
        _combine(children),
        pair.map(lambda ab: lambda r: ab[0](r) and ab[1](r)),
        pair.map(lambda ab: lambda r: ab[0](r) or ab[1](r)),
        children.map(lambda a: lambda r: not a(r)),
        children.map(lambda a: lambda r: ~a(r)),
        st.just(lambda r: r["time"] > r["time"].min()),
        st.just(lambda r: str(r["name"]).startswith("MPI")),
    )


anything = st.recursive(comparisons(), _python_logic, max_leaves=4)
_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(table=tables(), predicate=elementwise)
def test_vectorised_and_per_row_masks_agree(table, predicate):
    vectorised = _vectorised(table, predicate)
    assert vectorised is not None
    per_row = per_row_mask(table, predicate)
    np.testing.assert_array_equal(vectorised, per_row)
    np.testing.assert_array_equal(per_row, apply_mask(table, predicate))
    np.testing.assert_array_equal(row_mask(table, predicate), per_row)


def _outcome(fn):
    try:
        return fn()
    except Exception as exc:  # compared by type: both paths must fail alike
        return type(exc)


@_SETTINGS
@given(table=tables(), predicate=anything)
def test_row_mask_is_apply_on_any_predicate(table, predicate):
    expected = _outcome(lambda: apply_mask(table, predicate))
    got = _outcome(lambda: row_mask(table, predicate))
    if isinstance(expected, type):
        assert got is expected
    else:
        np.testing.assert_array_equal(got, expected)
