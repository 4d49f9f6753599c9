"""Seeded mutation fuzz of the calltree readers and writers: only perfweave errors escape,
and nothing hangs (issue #16). Each target parses a fixed, seeded set of mutants of real
profiles; every input that once made a reader fail is kept as a regression case."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks._fuzz_calltree import TARGETS
from benchmarks._fuzz_core import Target, _run_one, fuzz
from perfweave.errors import PerfweaveError

REGRESSIONS = Path(__file__).parents[1] / "data" / "fuzz_regressions" / "calltree"
BY_NAME = {t.name: t for t in TARGETS}
#: mutants per target: a fixed set (same seed, same inputs), a few seconds each
INPUTS = 60
#: a parse that never ends is caught by the harness's alarm; the tests do not time
NO_TIME_LIMIT = 300.0


def _describe(failures) -> str:
    return "\n".join(f"{f.kind} at {f.where}: {f.message} [{f.saved}]" for f in failures)


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_only_perfweave_errors_escape(target: Target, tmp_path):
    report = fuzz(
        target,
        seconds=NO_TIME_LIMIT,
        seed=16,
        workdir=tmp_path,
        slow_seconds=NO_TIME_LIMIT,
        max_inputs=INPUTS,
    )
    assert report.tried == INPUTS
    assert not report.failures, _describe(report.failures)


def _cases() -> list[tuple[str, Path]]:
    cases = []
    for target_dir in sorted(p for p in REGRESSIONS.iterdir() if p.name in BY_NAME):
        for case in sorted(p for p in target_dir.iterdir() if p.is_dir()):
            cases.append((target_dir.name, case))
    return cases


def _input_of(target: Target, case: Path) -> Path:
    names = {s.name for s in target.seeds}
    (path,) = [p for p in case.iterdir() if p.name in names]
    return path


@pytest.mark.parametrize(("name", "case"), _cases(), ids=lambda x: getattr(x, "name", x))
def test_inputs_that_once_failed(name: str, case: Path):
    error, _ = _run_one(BY_NAME[name].parse, _input_of(BY_NAME[name], case), NO_TIME_LIMIT)
    assert error is None or isinstance(error, PerfweaveError), repr(error)


def test_regression_cases_are_present():
    found = {name for name, _ in _cases()}
    assert {"cali", "caliper-json", "cprofile", "literal", "pyinstrument", "timemory"} <= found


def test_every_target_has_its_seeds():
    for target in TARGETS:
        assert target.seeds and all(p.is_file() for p in (*target.seeds, *target.companions))
