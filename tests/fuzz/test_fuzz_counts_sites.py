"""Seeded mutation fuzz of the call sites (issue 33): the backtrace reader, the weave over
a directory holding a mutated backtrace, and the symbolizer fed mutated ELF binaries. Only
perfweave errors escape (named warnings are fine); each target parses a fixed, seeded set
of mutants of real inputs."""

from __future__ import annotations

import random

import pytest

from benchmarks._fuzz_core import Target
from benchmarks._fuzz_counts_sites import SYMBOLS, TARGETS, elf_regions, mutate_elf_fields
from tests.fuzz._harness import assert_only_perfweave_errors

#: mutants per target: a fixed set (same seed, same inputs)
INPUTS = 150
#: a parse this slow counts as a failure here only if it never ends: the tests do not time
NO_TIME_LIMIT = 600.0


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_only_perfweave_errors_escape(target: Target, tmp_path):
    assert_only_perfweave_errors(target, tmp_path, INPUTS, NO_TIME_LIMIT)


def test_the_elf_field_mutator_keeps_the_layout_and_changes_what_is_read():
    """ELF field mutants keep the seed's size and change bytes only in the parts the
    symbolizer reads (header, section headers, symbols, strings, DWARF)."""
    for name in ("prog", "prog-pie"):
        data = (SYMBOLS / name).read_bytes()
        read = bytearray(len(data))
        for offset, size in elf_regions(data):
            read[offset : offset + size] = b"\x01" * size
        assert 0 < sum(read) < len(data)
        rng = random.Random(5)
        changed_any = 0
        for _ in range(100):
            mutant = mutate_elf_fields(data, rng)
            assert len(mutant) == len(data)
            changed = [k for k in range(len(data)) if mutant[k] != data[k]]
            assert all(read[k] for k in changed)
            changed_any += bool(changed)
        assert changed_any >= 90
