"""Seeded mutation fuzz of Extra-P's input formats (Ensemble.from_extrap): only perfweave
errors escape. Each target reads a fixed, seeded set of mutants of Extra-P's test inputs."""

from __future__ import annotations

import pytest

from benchmarks._fuzz_core import Target
from benchmarks._fuzz_extrap import TARGETS
from tests.fuzz._harness import assert_only_perfweave_errors

#: mutants per target: a fixed set (same seed, same inputs)
INPUTS = 150
#: a parse this slow counts as a failure here only if it never ends: the tests do not time
NO_TIME_LIMIT = 600.0


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_only_perfweave_errors_escape(target: Target, tmp_path):
    assert_only_perfweave_errors(target, tmp_path, INPUTS, NO_TIME_LIMIT)
