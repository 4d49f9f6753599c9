"""Fuzz targets for Extra-P's input formats (``Ensemble.from_extrap``, issue 31).

Seeds are Extra-P's own test inputs copied into ``tests/data/extrap`` (its README says
where from). Each target reads one mutated input with its format given, as a user naming
the format would; only ``perfweave.errors`` exceptions may escape.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from benchmarks._fuzz_core import Target
from perfweave.ensemble.extrap import read_extrap

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "extrap"


def _reader(fmt: str) -> Callable[[Path], object]:
    def parse(path: Path) -> object:
        return read_extrap(path, format=fmt)

    parse.__name__ = f"read_extrap_{fmt.replace('-', '_')}"
    return parse


TARGETS = [
    Target(
        "extrap.text",
        (DATA / "text" / "one_parameter_5.txt", DATA / "text" / "two_parameter_7.txt"),
        _reader("text"),
    ),
    Target(
        "extrap.json",
        (DATA / "json" / "input_1.JSON", DATA / "json" / "new" / "input2.json"),
        _reader("json"),
    ),
    Target(
        "extrap.jsonlines",
        (DATA / "jsonlines" / "matrix_3p.jsonl", DATA / "jsonlines" / "extended2.jsonl"),
        _reader("jsonlines"),
    ),
    Target("extrap.talpas", (DATA / "talpas" / "talpas_1.txt",), _reader("talpas")),
    Target("extrap.saved", (DATA / "saved" / "two_parameter_1.extra-p",), _reader("extra-p")),
]
