"""Fixtures for the HEM merging tests: the vignette data copied into tests/data/merge."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from perfweave.merge import process_raw_experiments

MERGE_DATA = Path(__file__).parents[1] / "data" / "merge"


@pytest.fixture(scope="session")
def hrm_raw() -> pd.DataFrame:
    return pd.read_csv(MERGE_DATA / "data_hrm_raw_vignette.csv")


@pytest.fixture(scope="session")
def much_raw() -> pd.DataFrame:
    return pd.read_csv(MERGE_DATA / "data_much_raw_vignette.csv")


@pytest.fixture(scope="session")
def code_table() -> pd.DataFrame:
    return pd.read_csv(MERGE_DATA / "T2080_code2name.csv")


@pytest.fixture(scope="session")
def hrm_subs(hrm_raw):
    return process_raw_experiments(hrm_raw, 6)


@pytest.fixture(scope="session")
def much_subs(much_raw):
    return process_raw_experiments(much_raw, 6)
