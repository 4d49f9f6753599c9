"""Seeded mutation fuzz of the counts, classes and merge parsers: only perfweave errors
escape (issue #16). Each target parses a fixed, seeded set of mutants of real inputs, and
every input that once made a parser fail is kept as a regression case."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks._fuzz_core import Target, fuzz
from benchmarks._fuzz_counts_classes_merge import TARGETS
from perfweave.errors import PerfweaveError
from tests.fuzz._harness import assert_only_perfweave_errors, regression_cases, replay

BY_NAME = {t.name: t for t in TARGETS}
#: mutants per target: a fixed set (same seed, same inputs), a few seconds each
INPUTS = 150
#: a parse this slow counts as a failure here only if it never ends: the tests do not time
NO_TIME_LIMIT = 600.0


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_only_perfweave_errors_escape(target: Target, tmp_path):
    assert_only_perfweave_errors(target, tmp_path, INPUTS, NO_TIME_LIMIT)


def test_the_fuzz_finds_a_parser_that_lets_other_errors_escape(tmp_path):
    """The harness itself: a parser raising a bare ValueError on some inputs is reported,
    with the failing input kept; PerfweaveErrors are not reported."""
    seed = BY_NAME["counts.ranklist"].seeds[0]

    def fragile(path: Path) -> None:
        text = path.read_text(errors="replace")
        if "-" not in text:
            raise ValueError("no range")
        raise PerfweaveError("fine")

    report = fuzz(Target("fragile", (seed,), fragile), 60.0, 3, tmp_path, max_inputs=200)
    assert report.tried == 200 and report.failing_inputs > 0
    (failure,) = report.failures  # one distinct failure however often it happened
    assert failure.kind == "ValueError" and failure.saved.is_file()
    assert "-" not in failure.saved.read_text(errors="replace")


def _cases() -> list[tuple[str, Path]]:
    return regression_cases("counts_classes_merge", BY_NAME)


@pytest.mark.parametrize(("name", "case"), _cases(), ids=lambda x: getattr(x, "name", x))
def test_inputs_that_once_failed(name: str, case: Path):
    replay(BY_NAME[name], case, NO_TIME_LIMIT)


def test_regression_cases_are_present():
    found = {name for name, _ in _cases()}
    assert {"counts.compact", "counts.percall", "merge.raw_csv"} <= found
