"""One number format per column (perfweave.calltree.numbers), on real profiles.

The expected texts of the first tests are the ones js/test/column-format.test.mjs expects
of the page, which writes the explorer's cells in the format chosen here.
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import perfweave as pw
from perfweave.calltree.numbers import (
    ColumnFormat,
    axis_labels,
    axis_ticks,
    column_format,
    format_column,
    linear_ticks,
    log_ticks,
    spaced_ticks,
)
from perfweave.calltree.shown import with_inclusive

DATA = Path(__file__).resolve().parents[1] / "data"
SAMPLING = DATA / "calltree-sampling/sampling-profile.cali"
PLAIN = re.compile(r"^-?[\d,]+(\.\d+)?$")


def parts(text: str) -> tuple[str, str]:
    """("1.200", "M") of "1.200M", ("68.16", "s") of "68.16 s"."""
    number, unit = re.fullmatch(r"(\S*?)\s?([^\d\s.,]*)", text).groups()
    return number, unit


def assert_one_format(texts: list[str]) -> tuple[str, int]:
    """Every cell in one step of one unit with the same decimals, none in e-notation
    (an exact 0 is "0"); returns (unit, decimals)."""
    found = set()
    for t in texts:
        number, unit = parts(t)
        assert PLAIN.match(number), t
        if number != "0":
            found.add((unit, len(number.partition(".")[2])))
    assert len(found) == 1, found
    return found.pop()


def test_the_issues_column_of_seconds_in_one_step():
    texts = format_column([2.56e-4, 0.001, 0.016, 5.664, 68.16], "s")
    # one step and one number of decimals; a value that is not 0 never reads as 0 (it gets
    # two significant digits of its own where the column's decimals would round it away)
    assert texts == ["0.00026 s", "0.0010 s", "0.02 s", "5.66 s", "68.16 s"]
    # MPI_Barrier's 48.9 ms prediction under 1,616 s: not "0 s", which an exact 0 reads
    assert format_column([1616.2, 0.0489, 0.0], "s") == ["1,616 s", "0.049 s", "0 s"]
    # past MAX_DECIMALS a value is written in a step of its own, as a column of it would be
    assert format_column([1616.2, 3e-9], "s") == ["1,616 s", "3.000 ns"]
    # a prediction column with long and short runs: whole seconds, never 1,616 s over 507.9 s
    assert format_column([1616.2, 507.9], "s") == ["1,616 s", "508 s"]
    assert format_column([0.8, -0.0125], "s") == ["800.0 ms", "-12.5 ms"]  # not "800m"


def test_counts_read_as_counts_and_prefixes_come_per_column():
    assert format_column([1024, 32768, 0]) == ["1,024", "32,768", "0"]
    assert format_column([1.2e6, 12]) == ["1.200M", "0.000012M"]
    assert format_column([5.4864e9], "B") == ["5.486 GB"]
    assert format_column([3e-4, 1e-5]) == ["3.000e-4", "1.000e-5"]  # the whole column
    assert format_column([np.nan, 2.0], "s") == ["–", "2 s"]
    assert column_format([1.0, 2.5], "s").spec() == {
        "scale": 1.0,
        "unit": "s",
        "decimals": 3,
        "exponent": False,
        "base": "s",
    }


def test_a_value_too_small_for_its_columns_step_reads_in_a_step_of_its_own():
    # the explorer's hostile-names page: counts of 4.6e18 and of 3 in one column read
    # "4.612E" and "3", never "3.0e-18E"; a call site's 24 bytes beside 5.486 GB read "24 B"
    assert format_column([4.612e18, 3, 9e15, 7]) == ["4.612E", "3", "0.009E", "7"]
    assert format_column([5.4864e9, 24], "B") == ["5.486 GB", "24 B"]
    assert format_column([2.5e3, 4e-9], "ms") == ["2.500 s", "0.004000 ns"]  # ns at most
    # a format without its column's unit (as older saved pages send) keeps e-notation
    fmt = column_format([1616.2, 3e-9], "s")
    assert ColumnFormat(fmt.scale, fmt.unit, fmt.decimals).text(3e-9) == "3.0e-9 s"


def test_a_sampling_profiles_time_columns_each_in_one_format():
    """The Caliper sampling profile: time is seconds (its attribute's metadata), from
    124 ms at main to single 1 ms samples; every column of its tree reads in one format."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pw.errors.NoRegionWarning)
        gf = pw.read(SAMPLING)
    shown = with_inclusive(gf, ["time"])
    values = gf.node_values(["time"])["time"].to_numpy()
    inclusive = shown.node_values(["time (inc)"])["time (inc)"].to_numpy()
    for column, unit in ((values, gf.unit_of("time")), (inclusive, shown.unit_of("time (inc)"))):
        assert unit == "s"
        texts = format_column(column, unit)
        step, decimals = assert_one_format(texts)
        assert step == "ms"  # the largest value is below 1 s
        # the exact values read back within the column's rounding
        back = [float(parts(t)[0].replace(",", "")) * 1e-3 for t in texts]
        np.testing.assert_allclose(back, column, atol=0.5 * 10**-decimals * 1e-3)


def test_ranks_of_a_scaling_study_on_a_log_axis_never_collide():
    """16 ... 32,768 ranks on a 270-pixel log axis: counts written as counts, and no two
    labels overlap (d3's SI format ran them together as "1.024k2.048k4.096k8.192k")."""
    ranks = [16 * 2**i for i in range(12)]
    kept, labels = axis_ticks(ranks, "", 270, log=True)
    assert kept[-1] == 32768 and "32,768" in labels
    assert all(not re.search(r"\d[kMG]$", t) for t in labels)
    assert "1,024" in axis_labels(ranks, log=True)
    pos = [math.log(k / 16) / math.log(32768 / 16) * 270 for k in kept]
    widths = [7.0 * len(t) for t in labels]
    for i in range(1, len(kept)):
        assert pos[i] - pos[i - 1] >= (widths[i] + widths[i - 1]) / 2, labels
    # every tick kept where there is room for it
    assert axis_ticks([27, 64, 125, 343], "", 2000, log=True)[0] == [27, 64, 125, 343]


def test_axis_labels_name_their_unit():
    assert axis_labels([0.2, 0.4, 0.6, 0.8], "s") == ["200 ms", "400 ms", "600 ms", "800 ms"]
    assert axis_labels([0.5, 1, 2], "s") == ["0.5 s", "1.0 s", "2.0 s"]
    # a log axis: each decade in its own step
    assert axis_labels([1e-5, 1e-3, 0.1, 1], "s", log=True) == ["10 µs", "1 ms", "100 ms", "1 s"]
    assert linear_ticks(50.7, 50.93) == [50.7, 50.75, 50.8, 50.85, 50.9]
    assert linear_ticks(0, 2700) == [0, 500, 1000, 1500, 2000, 2500]
    # vertical labels keep their height apart
    assert spaced_ticks([1, 2, 3], ["1", "2", "3"], (1, 3), 40, label_px=13) == [0, 2]


def test_log_ticks_step_by_the_decades_they_span():
    """Powers of 10 over more than 3 decades, 1-2-5 steps over 1 to 3, 1..9 within one;
    every tick inside the span; nothing where fewer than two fit."""
    # five decades of a scaling chart's times (1e-5 s .. 2 s): one tick per power of 10
    assert log_ticks(1.3e-5, 2.1) == [1e-4, 1e-3, 1e-2, 0.1, 1.0]
    assert log_ticks(27, 4096) == [50, 100, 200, 500, 1000, 2000]  # 2.2 decades
    assert log_ticks(0.35, 0.95) == [0.4, 0.5, 0.6, 0.7, 0.8, 0.9]  # within one
    assert log_ticks(3, 3.5) == [] and log_ticks(0, 10) == [] and log_ticks(5, 1) == []
    rng = np.random.default_rng(3)
    for lo, width in zip(10.0 ** rng.uniform(-9, 9, 200), rng.uniform(0.05, 8, 200)):
        hi = lo * 10**width
        ticks = log_ticks(lo, hi)
        assert all(lo <= t <= hi for t in ticks) and ticks == sorted(set(ticks))
        mantissas = {round(t / 10 ** math.floor(math.log10(t)), 6) for t in ticks}
        allowed = {1.0} if width > 3 else {1.0, 2.0, 5.0} if width > 1 else set(range(1, 10))
        assert mantissas <= set(map(float, allowed)), (lo, hi, ticks)
        assert len(ticks) >= 2 or width < 1


@pytest.mark.parametrize("unit", ["s", "ms", "µs", "ns", "B", "flop", ""])
def test_any_column_is_written_in_one_format(unit):
    rng = np.random.default_rng(7)
    for _ in range(50):
        values = 10.0 ** rng.uniform(-12, 12, size=20) * rng.choice([-1, 1], size=20)
        fmt = column_format(values, unit)
        texts = fmt.texts(values)
        if fmt.exponent:
            assert all("e" in t for t in texts)
            continue
        # values the column's decimals would round to 0 read as what they are, with two
        # significant digits, or past MAX_DECIMALS in a step of their own (never as 0);
        # every other cell is in the one format
        tiny = np.round(np.abs(values) / fmt.scale, fmt.decimals) == 0
        assert_one_format([t for t, small in zip(texts, tiny) if not small])
        for value, text in zip(values[tiny], np.array(texts)[tiny]):
            own = column_format([value], unit)
            if own.scale != fmt.scale and text == own.text(value):
                continue  # written in its own step
            number = parts(text)[0]
            assert float(number) != 0 and float(number) * fmt.scale == pytest.approx(
                value, rel=0.05
            ), (value, text)
