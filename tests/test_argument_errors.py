"""Bad arguments to the cores raise the perfweave error that says what is wrong, named in
perfweave.errors (issue 30): ArgumentError for a value the call does not take (still a
ValueError), ArgumentTypeError for a type it does not take (still a TypeError), and a
pstats file whose marshal lengths run past its end a ParseError naming file and offset."""

from __future__ import annotations

import numpy as np
import pytest

import perfweave as pw
from perfweave.calltree.frame import Frame
from perfweave.counts.compact import format_compact, read_compact
from perfweave.ensemble import Ensemble
from perfweave.errors import ArgumentError, ArgumentTypeError, ParseError, PerfweaveError
from perfweave.merge.quantiles import quantile_type2
from tests.counts._paths import COUNTS

PSTATS = "tests/data/hatchet/cprofile-hatchet-pstats/cprofile-cycle.pstats"


@pytest.fixture(scope="module")
def gf():
    return pw.read(PSTATS)


def test_argument_errors_are_perfweave_errors_and_value_errors():
    assert issubclass(ArgumentError, PerfweaveError) and issubclass(ArgumentError, ValueError)
    assert issubclass(ArgumentTypeError, PerfweaveError)
    assert issubclass(ArgumentTypeError, TypeError)


def test_traverse_order_names_the_value(gf):
    with pytest.raises(ArgumentError, match="order must be 'pre' or 'post', not 'in'"):
        list(gf.graph.traverse(order="in"))
    assert len(list(gf.graph.traverse(order="post"))) == len(gf.graph)


def test_frame_without_attributes():
    with pytest.raises(ArgumentError, match="a Frame needs at least one attribute"):
        Frame()


def test_compact_style_names_the_styles():
    cf = read_compact(next(COUNTS.rglob("*-counters.job*.rank*.txt")))
    with pytest.raises(ArgumentError, match="style must be one of .*, not 'fancy'"):
        format_compact(cf.blocks, style="fancy")


def test_quantiles_refuse_nan_and_probabilities_outside_0_1():
    with pytest.raises(ArgumentError, match="x holds NaN"):
        quantile_type2([1.0, np.nan], [0.5])
    with pytest.raises(ArgumentError, match=r"probs must lie in \[0, 1\]"):
        quantile_type2([1.0, 2.0], [1.5])


def test_concat_of_something_not_an_ensemble(gf):
    ens = Ensemble.from_graphframes([gf, gf.copy()], metadata=[{"run": 1}, {"run": 2}])
    with pytest.raises(ArgumentTypeError, match="item 1 is a GraphFrame, not an Ensemble"):
        Ensemble.concat([ens, gf])


def test_pstats_length_past_the_end_names_the_file_and_offset(tmp_path):
    """A list declared with 1,500,000,000 items in a 19-byte file: refused before marshal
    allocates it, as a ParseError naming the offset (was a ValueError wrapped without it)."""
    blob = b"{z\x01a[" + (1_500_000_000).to_bytes(4, "little") + b"N" * 10
    path = tmp_path / "huge.pstats"
    path.write_bytes(blob)
    with pytest.raises(
        ParseError,
        match=r"huge\.pstats, offset 4: expected a pstats file .*found "
        r"'1500000000 items declared, 10 bytes left'",
    ):
        pw.read(path, format="cprofile")
