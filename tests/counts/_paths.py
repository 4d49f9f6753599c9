"""Paths to the collective-profiler data copied into tests/data/counts."""

from __future__ import annotations

from pathlib import Path

COUNTS = Path(__file__).parent.parent / "data" / "counts"
TESTS = COUNTS / "collective_profiler_tests"
WRF = COUNTS / "wrf_160ranks_niagara_job5471563"
#: the same WRF run: compact counts of all 964 calls, the 10 backtraces, comm data
WRF_ALL = COUNTS / "wrf_all_calls"
SET1 = COUNTS / "go_tools_testdata" / "pkg" / "counts" / "testData" / "set1"
SET2 = COUNTS / "go_tools_testdata" / "pkg" / "counts" / "testData" / "set2"
CONFORMANCE = COUNTS / "conformance" / "patterns_unit"


def expected(test: str) -> Path:
    return TESTS / test / "expectedOutput"
