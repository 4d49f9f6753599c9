"""The ScalingView's numbers: axis ticks in the metric's unit that never collide, counts of
ranks read as counts, and one format for the column of predictions at the target."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree.numbers import MAX_DECIMALS, TIME_UNITS
from perfweave.widgets._transport import js_number_text
from perfweave.widgets.scaling_view import PLOT_WIDTH, ScalingView

TIME = re.compile(r"^[\d,]+(\.\d+)? (s|ms|µs|ns)$")


def _ranks_study() -> pw.Ensemble:
    """Twelve scales from 16 to 32,768 ranks, a few call paths whose time (seconds)
    grows from microseconds to seconds."""
    from perfweave.calltree.graph import Graph
    from perfweave.ensemble._table import dense_index

    n, ranks = 4, 16 * 2 ** np.arange(12)
    graph, _ = Graph._new(pd.DataFrame({"name": [f"f{i}" for i in range(n)]}), [-1, 0, 0, 1], None)
    profiles = [f"run{r}" for r in ranks]
    values = 1e-6 * (1 + np.arange(n))[:, None] * ranks[None, :] ** 1.3
    df = pd.DataFrame(
        {"time": values.ravel(), "name": np.repeat([f"f{i}" for i in range(n)], len(ranks))},
        index=dense_index(n, profiles),
    )
    meta = pd.DataFrame({"ranks": ranks}, index=pd.Index(profiles, name="profile"))
    return pw.Ensemble(
        graph, df, meta, inc_metrics=["time"], default_metric="time", units={"time": "s"}
    )


def labels(axis) -> list[str]:
    """The labels the page draws: bqplot looks each tick up by JavaScript's text of it."""
    assert set(axis.tick_labels) == {js_number_text(t) for t in axis.tick_values}
    return [axis.tick_labels[js_number_text(t)] for t in axis.tick_values]


def test_ranks_from_16_to_32768_on_a_log_axis():
    view = ScalingView(_ranks_study(), param="ranks", metric="time")
    x, y = view.chart.axes
    shown = labels(x)
    # counts as counts (d3's ".4~s" wrote 1.024k2.048k4.096k8.192k, run together)
    assert all(re.fullmatch(r"[\d,]+", t) for t in shown), shown
    assert shown[-1] == f"{view.target:,.0f}" and "32,768" in shown  # the target, the largest run
    pos = [math.log(t) for t in x.tick_values]
    width = (max(pos) - min(pos)) / PLOT_WIDTH  # log units per pixel on the smallest chart
    for i in range(1, len(shown)):
        room = (pos[i] - pos[i - 1]) / width
        assert room >= 7 * (len(shown[i]) + len(shown[i - 1])) / 2, shown
    # the time axis: each decade in its unit (no "800m" for 800 ms), log steps
    assert y.label == "time" and all(TIME.match(t) for t in labels(y)), labels(y)
    view.set_log_axes(False)
    shown = labels(view.chart.axes[1])
    assert all(TIME.match(t) for t in shown)
    assert len({t.split(" ")[1] for t in shown}) == 1  # a linear axis: one step
    assert len({len(t.split(" ")[0].partition(".")[2]) for t in shown}) == 1


@pytest.fixture(scope="module")
def mpi():
    return pw.datasets.mpi_scaling()


@pytest.mark.parametrize("target", [2700, 32768])
def test_the_target_column_is_in_one_format(mpi, target):
    """The predictions at the target and their intervals, down the whole column: one step
    of seconds, the same decimals (never 1,616 s above 507.9 s)."""
    view = ScalingView(mpi, param="mpi.world.size", metric="Avg time/rank", target=target)
    view.explorer.expand(0, subtree=True)
    column = view.target_column()
    cells = view.explorer.visible_rows()[column].dropna()
    # cells below the column's resolution (0.049 s under 1,616 s) have digits of their own
    numbers = [
        n
        for t in cells
        for n in re.findall(r"(?<![\d.e-])(-?[\d,]+(?:\.\d+)?) (s|ms|µs|ns)\b", t)
        if n[0][0] != "0"
    ]
    assert len(numbers) > 20
    # one step for the column; a value past its resolution (more than MAX_DECIMALS decimals
    # of it) reads in a step of its own ("1.093 µs" under "10,860 s"), never as 0
    step = max({unit for _, unit in numbers}, key=lambda u: TIME_UNITS[u])
    own = [(n, u) for n, u in numbers if u != step]
    for n, u in own:
        seconds = float(n.replace(",", "")) * TIME_UNITS[u]
        assert seconds < 10.0 ** (1 - MAX_DECIMALS) * TIME_UNITS[step], (n, u, step)
    ones = [n for n, u in numbers if u == step]
    assert len(ones) > 20 and len({len(n.partition(".")[2]) for n in ones}) == 1, ones


def test_javascript_text_of_numbers():
    # what String(x) gives in a browser (checked with node): bqplot's tick label keys
    cases = {1024.0: "1024", 2e-05: "0.00002", 1e-07: "1e-7", 1.5e-07: "1.5e-7"}
    cases |= {1e21: "1e+21", 2700.0: "2700", 0.30000000000000004: "0.30000000000000004"}
    assert {k: js_number_text(k) for k in cases} == cases
