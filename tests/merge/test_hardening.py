"""Bad merge inputs end in a perfweave error naming what is wrong (issue #16): huge event
codes, a directory for a CSV, a column without readings, a merge too large for memory."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from perfweave.errors import MergeError, ParseError
from perfweave.merge import hrm_merge, much_merge, process_raw_experiments
from perfweave.merge.much import MuchMerger, merge_memory_bytes
from tests.merge.conftest import MERGE_DATA

RAW = MERGE_DATA / "data_much_raw_vignette.csv"


def _header_changed(tmp_path, old: str, new: str):
    text = RAW.read_text()
    header, _, rest = text.partition("\n")
    assert f'"{old}"' in header
    path = tmp_path / "raw.csv"
    path.write_text(header.replace(f'"{old}"', f'"{new}"', 1) + "\n" + rest)
    return path


@pytest.mark.parametrize("code", ["9" * 10_000, "1" + "0" * 19])
def test_event_code_with_too_many_digits(tmp_path, code):
    path = _header_changed(tmp_path, "X446", "X" + code)
    with pytest.raises(ParseError, match="an event code listed in the code table") as info:
        process_raw_experiments(path, 6)
    err = info.value
    assert err.path == str(path) and err.line == 1 and err.position.startswith("column 4")
    assert len(err.found) < 60  # the code is abbreviated, not printed whole


def test_non_ascii_digit_code_is_a_parse_error(tmp_path):
    path = _header_changed(tmp_path, "X446", "X\u00b2")  # a superscript two: isdigit(), not int()
    with pytest.raises(ParseError, match="event code"):
        process_raw_experiments(path, 6)


def test_a_directory_instead_of_a_csv(tmp_path):
    with pytest.raises(ParseError, match="a readable CSV file") as info:
        process_raw_experiments(tmp_path, 6)
    assert info.value.path == str(tmp_path)
    with pytest.raises(ParseError, match="a readable CSV file"):
        process_raw_experiments(tmp_path / "missing.csv", 6)


def test_a_column_without_readings_is_named(much_raw):
    raw = much_raw.astype(float)
    raw.iloc[:, 6] = np.nan  # the anchor (X1.1) of the second subexperiment
    with pytest.raises(ParseError, match="no row of it is complete") as info:
        process_raw_experiments(raw, 6)
    assert info.value.found == "column 7 (X1.1) without any reading"
    assert "subexperiment 1 (columns 7-12)" in info.value.expected


def test_empty_subexperiments_are_refused_by_the_merges(much_subs):
    subs = [much_subs[0].iloc[:0], *much_subs[1:]]
    with pytest.raises(MergeError, match="subexperiment 0 has no rows"):
        much_merge(subs, n_runs=50, n_sims=10, seed=1)
    with pytest.raises(MergeError, match="subexperiment 0 has no rows"):
        MuchMerger(subs)
    empty = [s.iloc[:0] for s in much_subs]
    with pytest.raises(MergeError, match="no rows"):
        hrm_merge(empty, "PROCESSOR_CYCLES")


def test_much_merge_too_large_for_memory_is_refused_with_the_figure(much_subs):
    with pytest.raises(MergeError, match=r"n_runs=100,000,000 with \d+ HEMs needs about") as info:
        much_merge(much_subs, n_runs=10**8, n_sims=10, seed=1)
    assert "GiB is available: lower n_runs" in str(info.value)
    # the estimate grows with runs and HEMs; the default merge stays small
    assert merge_memory_bytes(10, 10**8) == 100 * merge_memory_bytes(10, 10**6)
    assert merge_memory_bytes(20, 1000) < 2**30
    assert len(much_merge(much_subs, n_runs=200, n_sims=10, seed=1).merged) == 200


def test_inputs_are_left_alone(much_raw):
    before = much_raw.copy()
    raw = much_raw.astype(float)
    raw.iloc[:, 6] = np.nan
    with pytest.raises(ParseError):
        process_raw_experiments(raw, 6)
    pd.testing.assert_frame_equal(much_raw, before)
