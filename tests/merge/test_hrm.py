from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from perfweave.errors import MergeError
from perfweave.merge import hrm_merge, process_raw_experiments

ANCHOR = "PROCESSOR_CYCLES"


def test_mergingtools_documented_example():
    # the example of mergingTools' HRM_merge help page, with its documented result
    sub1 = pd.DataFrame({"H1": [30, 35, 32], "H2": [15, 16, 14], "H3": [20, 25, 30]})
    sub2 = pd.DataFrame({"H1": [40, 25, 21], "H4": [10, 13, 11], "H5": [12, 15, 17]})
    merged = hrm_merge([sub1, sub2], "H1")
    expected = pd.DataFrame(
        {
            "H1": [21.0, 31.0, 40.0],
            "H2": [15, 14, 16],
            "H3": [20, 30, 25],
            "H4": [11, 13, 10],
            "H5": [17, 15, 12],
        }
    )
    pd.testing.assert_frame_equal(merged, expected)


def test_vignette_columns_are_sorted_subexperiments(hrm_subs):
    merged = hrm_merge(hrm_subs, ANCHOR)
    assert merged.shape == (1000, 16)
    expected_cols = [ANCHOR] + [c for s in hrm_subs for c in s.columns if c != ANCHOR]
    assert list(merged.columns) == expected_cols
    for sub in hrm_subs:
        ordered = sub.sort_values(ANCHOR, kind="stable").reset_index(drop=True)
        for col in sub.columns.drop(ANCHOR):
            np.testing.assert_array_equal(merged[col].to_numpy(), ordered[col].to_numpy())
            assert merged[col].dtype == sub[col].dtype


def test_vignette_anchor_is_type2_quantiles_of_pooled_anchor(hrm_subs):
    merged = hrm_merge(hrm_subs, ANCHOR)
    pooled = np.sort(np.concatenate([s[ANCHOR].to_numpy() for s in hrm_subs])).astype(float)
    n = len(pooled)  # 3000 pooled readings, 1000 output rows
    expected = []
    for i in range(1000):
        # n * p = 3000 i / 999: an integer only at i = 0, 333, 666, 999
        num = 3000 * i
        j, rem = divmod(num, 999)
        if rem:
            expected.append(pooled[j])  # x_(j+1) in 1-based terms
        elif j == 0:
            expected.append(pooled[0])
        elif j == n:
            expected.append(pooled[-1])
        else:
            expected.append((pooled[j - 1] + pooled[j]) / 2)
    np.testing.assert_array_equal(merged[ANCHOR].to_numpy(), np.array(expected))
    # and it is a non-decreasing column spanning the pooled range
    assert merged[ANCHOR].is_monotonic_increasing
    assert merged[ANCHOR].iloc[0] == pooled[0] and merged[ANCHOR].iloc[-1] == pooled[-1]


def test_ties_in_anchor_keep_run_order():
    sub = pd.DataFrame({"A": [5, 1, 5, 1], "B": [1, 2, 3, 4]})
    merged = hrm_merge([sub], "A")
    assert merged["B"].tolist() == [2, 4, 1, 3]


def test_inputs_not_modified(hrm_subs):
    copies = [s.copy() for s in hrm_subs]
    hrm_merge(hrm_subs, ANCHOR)
    for before, after in zip(copies, hrm_subs, strict=True):
        pd.testing.assert_frame_equal(before, after)


def test_unequal_row_counts_are_an_error():
    raw = pd.DataFrame(
        {"X1": [1.0, 2, 3], "X24": [1, 2, 3], "X1.1": [1, 2, 3], "X110": [np.nan, 2, 3]}
    )
    subs = process_raw_experiments(raw, 2)
    with pytest.raises(MergeError, match=r"unequal row counts \[3, 2\]"):
        hrm_merge(subs, ANCHOR)


def test_anchor_absent_names_subexperiment(hrm_subs):
    subs = [hrm_subs[0], hrm_subs[1].drop(columns=ANCHOR)]
    with pytest.raises(MergeError, match=r"absent from subexperiment\(s\) \[1\]"):
        hrm_merge(subs, ANCHOR)
    with pytest.raises(MergeError, match="no subexperiments"):
        hrm_merge([], ANCHOR)


def test_hem_in_two_subexperiments_keeps_both_copies():
    a = pd.DataFrame({"A": [2, 1], "B": [10, 20]})
    b = pd.DataFrame({"A": [1, 2], "B": [30, 40]})
    merged = hrm_merge([a, b], "A")
    assert list(merged.columns) == ["A", "B", "B.1"]
    assert merged["B"].tolist() == [20, 10] and merged["B.1"].tolist() == [30, 40]
