from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfweave.errors import MergeError, ParseError
from perfweave.merge import load_vignette, process_raw_experiments, t2080_code_table
from perfweave.merge.subexperiments import column_code, make_unique


def test_vignette_hrm_splits_into_three_subexperiments(hrm_raw, code_table):
    subs = process_raw_experiments(hrm_raw, 6, code_table)
    assert len(subs) == 3
    names = dict(zip(code_table["code"], code_table["hems"], strict=True))
    for i, sub in enumerate(subs):
        raw = hrm_raw.iloc[:, 6 * i : 6 * i + 6]
        codes = [int(c[1:].split(".")[0]) for c in raw.columns]
        assert list(sub.columns) == [names[c] for c in codes]
        np.testing.assert_array_equal(sub.to_numpy(), raw.to_numpy())
    assert subs.dropped_rows == (0, 0, 0)
    assert len(subs.hems) == 16
    assert all(sub.columns[0] == "PROCESSOR_CYCLES" for sub in subs)


def test_vignette_much_layout_matches_readme(much_subs):
    # README: PROCESSOR_CYCLES in all 24 subexperiments, each other HEM in 8
    assert len(much_subs) == 24
    counts = pd.Series([c for s in much_subs for c in s.columns]).value_counts()
    assert counts["PROCESSOR_CYCLES"] == 24
    assert (counts.drop("PROCESSOR_CYCLES") == 8).all()
    assert len(counts) == 16


def test_bundled_vignette_equals_test_copy(hrm_raw, much_raw):
    pd.testing.assert_frame_equal(load_vignette("hrm"), hrm_raw)
    pd.testing.assert_frame_equal(load_vignette("much"), much_raw)
    assert len(t2080_code_table()) == 262


def test_csv_path_input(tmp_path, hrm_raw):
    path = tmp_path / "raw.csv"
    hrm_raw.to_csv(path, index=False)
    subs = process_raw_experiments(path, 6)
    pd.testing.assert_frame_equal(subs[2], process_raw_experiments(hrm_raw, 6)[2])


def test_repeated_hem_within_a_subexperiment_is_renamed():
    raw = pd.DataFrame({"X1": [1, 2], "X24": [3, 4], "X1.1": [5, 6], "X1.2": [7, 8]})
    subs = process_raw_experiments(raw, 4)
    assert list(subs[0].columns) == [
        "PROCESSOR_CYCLES",
        "CYCLES_LSU_SCHEDULE_STALLED",
        "PROCESSOR_CYCLES.1",
        "PROCESSOR_CYCLES.2",
    ]


def test_missing_values_dropped_per_subexperiment_and_reported():
    raw = pd.DataFrame(
        {"X1": [1.0, np.nan, 3.0], "X24": [1, 2, 3], "X1.1": [4, 5, 6], "X110": [7, 8, 9]}
    )
    before = raw.copy()
    subs = process_raw_experiments(raw, 2)
    assert subs.dropped_rows == (1, 0)
    assert subs[0]["CYCLES_LSU_SCHEDULE_STALLED"].tolist() == [1, 3]
    assert len(subs[1]) == 3
    pd.testing.assert_frame_equal(raw, before)  # input untouched


def test_min_mean_drops_and_reports_low_columns():
    raw = pd.DataFrame({"X1": [500, 700], "X24": [1, 3], "X1.1": [400, 600], "X110": [90, 120]})
    with pytest.warns(UserWarning, match=r"X24 \(CYCLES_LSU_SCHEDULE_STALLED, mean 2\)"):
        subs = process_raw_experiments(raw, 2, min_mean=100)
    assert list(subs[0].columns) == ["PROCESSOR_CYCLES"]
    assert list(subs[1].columns) == ["PROCESSOR_CYCLES", "CYCLES_LSU_ISSUE_STALLED"]  # mean 105
    assert subs.dropped_columns[["subexperiment", "column"]].values.tolist() == [[0, "X24"]]
    # without min_mean nothing is dropped
    assert list(process_raw_experiments(raw, 2)[0].columns) == [
        "PROCESSOR_CYCLES",
        "CYCLES_LSU_SCHEDULE_STALLED",
    ]


def test_n_pmcs_must_divide_columns(hrm_raw):
    with pytest.raises(MergeError, match=r"18 columns .* n_pmcs=4 .*2 columns left over"):
        process_raw_experiments(hrm_raw, 4)
    with pytest.raises(MergeError, match="positive integer"):
        process_raw_experiments(hrm_raw, 0)


def test_column_without_code_names_the_column(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("X1,cycles\n1,2\n")
    with pytest.raises(ParseError) as info:
        process_raw_experiments(path, 2)
    assert info.value.found == "cycles"
    assert "column 2" in str(info.value) and str(path) in str(info.value)


def test_code_missing_from_table_names_code_and_column():
    raw = pd.DataFrame({"X1": [1], "X9999.2": [2]})
    with pytest.raises(ParseError, match=r"column 2 \(X9999\.2\).*found '9999'"):
        process_raw_experiments(raw, 2)


def test_non_numeric_reading_names_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("X1,X24\n1,2\n3,oops\n")
    with pytest.raises(ParseError, match=r"line 3.*found 'oops'"):
        process_raw_experiments(path, 2)


def test_custom_code_table_dict():
    raw = pd.DataFrame({"E7": [1, 2], "E8": [3, 4]})
    subs = process_raw_experiments(raw, 2, {7: "SEVEN", 8: "EIGHT"})
    assert list(subs[0].columns) == ["SEVEN", "EIGHT"]


@pytest.mark.parametrize(
    ("name", "code"),
    [("X446.2", "446"), ("X1", "1"), ("446", "446"), ("X1.1", "1"), ("abc", None), ("Y12x", "12x")],
)
def test_column_code(name, code):
    assert column_code(name) == code


@given(st.lists(st.sampled_from(["A", "B", "A.1", "C"]), max_size=12))
def test_make_unique_properties(names):
    out = make_unique(names)
    assert len(out) == len(names)
    assert len(set(out)) == len(out)
    seen = set()
    for original, renamed in zip(names, out, strict=True):
        if original not in seen:  # first occurrences keep their name
            assert renamed == original
        else:
            assert renamed.startswith(original + ".")
        seen.add(original)


def test_unknown_vignette_name():
    from perfweave.errors import PerfweaveError

    with pytest.raises(PerfweaveError, match="'hrm', 'much'"):
        load_vignette("nope")


_TABLE = t2080_code_table()


@given(
    st.integers(1, 4),
    st.integers(1, 4),
    st.lists(st.sampled_from(_TABLE["code"].tolist()[:40]), min_size=16, max_size=16),
    st.integers(0, 10**6),
)
def test_split_property(n_pmcs, n_subs, codes, seed):
    rng = np.random.default_rng(seed)
    codes = codes[: n_pmcs * n_subs]
    names = make_unique([f"X{c}" for c in codes])  # R's header convention for repeats
    raw = pd.DataFrame(rng.integers(0, 10**7, size=(5, len(codes))), columns=names)
    subs = process_raw_experiments(raw, n_pmcs)
    hem = dict(zip(_TABLE["code"], _TABLE["hems"], strict=True))
    assert len(subs) == n_subs
    for i, sub in enumerate(subs):
        block = codes[i * n_pmcs : (i + 1) * n_pmcs]
        assert list(sub.columns) == make_unique([hem[c] for c in block])
        np.testing.assert_array_equal(sub.to_numpy(), raw.iloc[:, i * n_pmcs : (i + 1) * n_pmcs])


def test_code_table_by_name_and_bad_name(hrm_raw):
    by_name = process_raw_experiments(hrm_raw, 6, "T2080")
    assert list(by_name[0].columns) == list(process_raw_experiments(hrm_raw, 6)[0].columns)
    with pytest.raises(ParseError, match="code table"):
        process_raw_experiments(hrm_raw, 6, "P4080")
