"""What the fuzz test modules share: the seeded fuzz check of one target and the replay of
the inputs that once failed (kept under ``tests/data/fuzz_regressions/<family>/<target>/``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from benchmarks._fuzz_core import Target, _run_one, fuzz
from perfweave.errors import PerfweaveError

REGRESSIONS = Path(__file__).parents[1] / "data" / "fuzz_regressions"


def describe(failures) -> str:
    return "\n".join(f"{f.kind} at {f.where}: {f.message} [{f.saved}]" for f in failures)


def assert_only_perfweave_errors(target: Target, workdir: Path, inputs: int, limit: float):
    """``inputs`` seeded mutants of the target's seeds parse or raise a PerfweaveError.
    ``limit`` is far above any parse time: only a parse that never ends counts."""
    report = fuzz(
        target, seconds=limit, seed=16, workdir=workdir, slow_seconds=limit, max_inputs=inputs
    )
    assert report.tried == inputs
    assert not report.failures, describe(report.failures)


def regression_cases(family: str, targets: Mapping[str, Target]) -> list[tuple[str, Path]]:
    """(target name, case folder) of every kept input of a family's targets."""
    root = REGRESSIONS / family
    return [
        (target_dir.name, case)
        for target_dir in sorted(p for p in root.iterdir() if p.name in targets)
        for case in sorted(p for p in target_dir.iterdir() if p.is_dir())
    ]


def replay(target: Target, case: Path, limit: float) -> None:
    """The kept input of ``case`` (the file named as one of the target's seeds, its
    companions beside it) parses or raises a PerfweaveError."""
    names = {s.name for s in target.seeds}
    (path,) = [p for p in case.iterdir() if p.name in names]
    error, _ = _run_one(target.parse, path, limit)
    assert error is None or isinstance(error, PerfweaveError), repr(error)
