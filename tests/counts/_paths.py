"""Paths to the collective-profiler data copied into tests/data/counts."""

from __future__ import annotations

from pathlib import Path

COUNTS = Path(__file__).parent.parent / "data" / "counts"
TESTS = COUNTS / "collective_profiler_tests"
WRF = COUNTS / "wrf_160ranks_niagara_job5471563"
SET1 = COUNTS / "go_tools_testdata" / "pkg" / "counts" / "testData" / "set1"
SET2 = COUNTS / "go_tools_testdata" / "pkg" / "counts" / "testData" / "set2"
CONFORMANCE = COUNTS / "conformance" / "patterns_unit"


def expected(test: str) -> Path:
    return TESTS / test / "expectedOutput"
