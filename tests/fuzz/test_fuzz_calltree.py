"""Seeded mutation fuzz of the calltree readers and writers: only perfweave errors escape,
and nothing hangs (issue #16). Each target parses a fixed, seeded set of mutants of real
profiles; every input that once made a reader fail is kept as a regression case."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks._fuzz_calltree import TARGETS
from benchmarks._fuzz_core import Target
from tests.fuzz._harness import assert_only_perfweave_errors, regression_cases, replay

BY_NAME = {t.name: t for t in TARGETS}
#: mutants per target: a fixed set (same seed, same inputs), a few seconds each
INPUTS = 60
#: a parse that never ends is caught by the harness's alarm; the tests do not time
NO_TIME_LIMIT = 300.0


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_only_perfweave_errors_escape(target: Target, tmp_path):
    assert_only_perfweave_errors(target, tmp_path, INPUTS, NO_TIME_LIMIT)


def _cases() -> list[tuple[str, Path]]:
    return regression_cases("calltree", BY_NAME)


@pytest.mark.parametrize(("name", "case"), _cases(), ids=lambda x: getattr(x, "name", x))
def test_inputs_that_once_failed(name: str, case: Path):
    replay(BY_NAME[name], case, NO_TIME_LIMIT)


def test_regression_cases_are_present():
    found = {name for name, _ in _cases()}
    assert {"cali", "caliper-json", "cprofile", "literal", "pyinstrument", "timemory"} <= found


def test_every_target_has_its_seeds():
    for target in TARGETS:
        assert target.seeds and all(p.is_file() for p in (*target.seeds, *target.companions))
