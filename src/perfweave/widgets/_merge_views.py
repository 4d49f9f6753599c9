"""Charts of the MergePanel (bqplot marks) and its color bars.

Pure drawing: every function takes plain arrays and updates widgets in place (marks are
created once and only their data change, so a redraw is a few trait updates). The matrices
are :class:`~perfweave.widgets._matrix.CorrelationMatrix`, the tables
:func:`perfweave.widgets._html.table`. Every name that reaches HTML is escaped.
"""

from __future__ import annotations

import html

import bqplot as bq
import ipywidgets as widgets
import numpy as np

from perfweave.calltree.numbers import linear_ticks
from perfweave.merge.study import HrmDetails

#: colors of "merged" and "pooled" in every chart (merged first)
MERGED_COLOR = "#1f77b4"
POOLED_COLOR = "#ff7f0e"
CHOSEN_COLOR = "#d62728"


#: the share of a marginal chart's width by its left corner that no x tick takes: half a
#: tick label ("105k", about 14 px) of the 235 px between the axes
CORNER_CLEAR = 0.06


def _ticks(lo: float, hi: float, count: int = 5) -> np.ndarray:
    """Round tick values inside [lo, hi] (bqplot puts its own at the padded domain's edges,
    -0.027 on a percent axis)."""
    return np.asarray(linear_ticks(lo, hi, count), dtype=float)


def x_ticks(lo: float, hi: float) -> np.ndarray:
    """Round x ticks inside [lo, hi] (none on an edge, half cut off) and clear of the left
    corner (:data:`CORNER_CLEAR`), where a label would run into the y axis's lowest one;
    the corner's tick stays where fewer than two would be left."""
    ticks = _ticks(lo, hi, 4)
    clear = ticks[ticks - lo >= CORNER_CLEAR * (hi - lo)]
    return clear if len(clear) >= 2 else ticks


def simulation_ticks(n: int) -> np.ndarray:
    """Simulation numbers 1..n as ticks: 1, then round numbers clear of it (1, 20, ..., 100)."""
    ticks = [t for t in linear_ticks(1.0, float(max(n, 1))) if t == int(t) and t > 1]
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    return np.array([1.0, *(t for t in ticks if t - 1 >= step / 2)])


def title_html(text: str) -> str:
    return f"<b>{html.escape(text)}</b>"


#: bqplot's "RdBu" scheme (d3's RdBu, min red -> max blue), for the HTML color bars
RDBU = [
    "#67001f",
    "#b2182b",
    "#d6604d",
    "#f4a582",
    "#fddbc7",
    "#f7f7f7",
    "#d1e5f0",
    "#92c5de",
    "#4393c3",
    "#2166ac",
    "#053061",
]


def color_bar_html(label: str, top: float) -> str:
    """One diverging color bar from -top (red) through 0 (white) to +top (blue)."""
    gradient = ",".join(RDBU)
    return (
        '<span class="pw-merge-cbar" style="display:inline-flex;align-items:center;'
        'gap:6px;margin-right:24px;font-size:12px">'
        f"<span>{html.escape(label)}</span><span>−{top:.2f}</span>"
        '<span style="display:inline-block;width:160px;height:12px;border:1px solid #999;'
        f'background:linear-gradient(to right,{gradient})"></span>'
        f"<span>+{top:.2f}</span></span>"
    )


class LinesView:
    """A small line chart (scores per simulation, marginal distributions)."""

    def __init__(
        self,
        title: str,
        x_label: str,
        y_label: str,
        *,
        legend: bool = False,
        marker: bool = True,
        width: int = 330,
        x_format: str = ".3~s",
        y_format: str = ".2~g",
    ):
        self.x = bq.LinearScale()
        self.y = bq.LinearScale()
        # placeholders span a non-empty domain (no NaN axis ticks). One 1-D mark per
        # series: bqplot 0.13's front end draws nothing from a 2-D ``y`` array
        self.lines = self._series(MERGED_COLOR, "merged", legend)
        self.pooled = self._series(POOLED_COLOR, "pooled", legend)
        self.point = bq.Scatter(
            x=np.array([0.0]),
            y=np.array([0.0]),
            scales={"x": self.x, "y": self.y},
            colors=[CHOSEN_COLOR],
            default_size=60,
            names=np.array([""]),
            display_names=True,
        )
        self.figure = bq.Figure(
            # the chosen-simulation marker only where there is one (not on the marginals,
            # where a placeholder point would draw at 0 and stretch the axis)
            marks=[self.lines, self.point] if marker else [self.lines, self.pooled],
            axes=[
                bq.Axis(scale=self.x, label=x_label, tick_format=x_format, num_ticks=5),
                bq.Axis(
                    scale=self.y,
                    side="left",
                    label=y_label,
                    tick_format=y_format,
                    num_ticks=5,
                    label_offset="50px",
                ),
            ],
            title=title,
            legend_location="top-right",
            padding_x=0.0,
            padding_y=0.0,  # the domains are set explicitly (no negative share ticks)
            fig_margin={"top": 35, "bottom": 45, "left": 65, "right": 30},
            layout=widgets.Layout(width=f"{width}px", height="260px"),
            title_style={"font-size": "13px"},
        )

    def _series(self, color: str, label: str, legend: bool) -> bq.Lines:
        return bq.Lines(
            x=np.array([0.0, 1.0]),
            y=np.array([0.0, 1.0]),
            scales={"x": self.x, "y": self.y},
            colors=[color],
            labels=[label],
            display_legend=legend,
            stroke_width=1.5,
        )

    def show_scores(self, scores: np.ndarray, chosen: int) -> None:
        """MUCH's score of every simulation, the chosen one marked (numbered from 1)."""
        scores = np.asarray(scores, dtype=float)
        with self.x.hold_sync():  # simulations 1..n: integer ticks inside the data
            self.x.min, self.x.max = 1.0, float(max(len(scores), 2))
        # an explicit y domain: bqplot kept the placeholder's 0..1 domain after the data
        # changed, which flattened scores of ~1e-3 onto the axis
        lo, hi = float(np.nanmin(scores)), float(np.nanmax(scores))
        pad = (hi - lo) * 0.08 or abs(hi) * 0.1 or 1e-12
        with self.y.hold_sync():
            self.y.min, self.y.max = max(lo - pad, 0.0), hi + pad
        self.figure.axes[1].tick_values = _ticks(self.y.min, self.y.max)
        ticks = simulation_ticks(len(scores))
        if not np.array_equal(self.figure.axes[0].tick_values, ticks):
            self.figure.axes[0].tick_values = ticks
        with self.lines.hold_sync():
            self.lines.x = np.arange(1, len(scores) + 1, dtype=float)
            self.lines.y = scores
            self.lines.colors = ["#7f7f7f"]
            self.lines.labels = ["score"]
        with self.point.hold_sync():
            self.point.x = np.array([chosen + 1.0])
            self.point.y = np.array([float(scores[chosen])])
            self.point.names = np.array([f"chosen #{chosen + 1}"])
        self.figure.title = f"score (MSE to target) of {len(scores)} simulations"

    def show_anchor(self, details: HrmDetails) -> bool:
        """HRM: the anchor's pooled readings as a cumulative curve (% of readings <= x) and
        the quantiles the merge took (dots); False when no reading is finite."""
        curve_x, curve_y = details.pooled_curve()
        if len(curve_x) == 0:
            return False
        lo, hi = float(curve_x[0]), float(curve_x[-1])
        hi = hi if hi > lo else lo + 1.0
        with self.x.hold_sync():
            self.x.min, self.x.max = lo, hi
        with self.y.hold_sync():
            self.y.min, self.y.max = 0.0, 100.0
        self.figure.axes[0].tick_values = x_ticks(lo, hi)
        self.figure.axes[1].tick_values = _ticks(0.0, 100.0)
        self.figure.axes[0].label = details.anchor
        with self.lines.hold_sync():
            self.lines.x, self.lines.y = curve_x, curve_y
            self.lines.colors = ["#7f7f7f"]
            self.lines.labels = ["pooled"]
        taken_x, taken_y = details.taken()
        with self.point.hold_sync():
            self.point.x, self.point.y = taken_x, taken_y
            self.point.names = np.full(len(taken_x), "")
            self.point.colors = [MERGED_COLOR] * len(taken_x)
        n = int(np.isfinite(np.asarray(details.pooled, dtype=float)).sum())
        self.figure.title = f"{n} pooled readings, quantiles taken (dots)"
        return True

    def show_pair(self, x: np.ndarray, merged: np.ndarray, pooled: np.ndarray) -> None:
        """Merged and pooled shares over the same bins (the x axis spans the bins)."""
        x = np.asarray(x, dtype=float)
        if len(x) > 1:
            lo, hi = float(x[0]), float(x[-1])
            with self.x.hold_sync():
                self.x.min, self.x.max = lo, hi
            self.figure.axes[0].tick_values = x_ticks(lo, hi)
        top = max(float(np.max(merged, initial=0.0)), float(np.max(pooled, initial=0.0)))
        with self.y.hold_sync():  # explicit: bqplot kept stale domains (see the scores)
            self.y.min, self.y.max = 0.0, (top * 1.08) or 1.0
        self.figure.axes[1].tick_values = _ticks(0.0, self.y.max)
        for mark, y in ((self.lines, merged), (self.pooled, pooled)):
            with mark.hold_sync():
                mark.x = np.asarray(x, dtype=float)
                mark.y = np.asarray(y, dtype=float)


class ScatterView:
    """Scatter of two HEMs of the merged table."""

    def __init__(self) -> None:
        self.x = bq.LinearScale()
        self.y = bq.LinearScale()
        self.mark = bq.Scatter(
            x=np.array([0.0, 1.0]),
            y=np.array([0.0, 1.0]),
            scales={"x": self.x, "y": self.y},
            colors=[MERGED_COLOR],
            default_size=8,
            opacities=[0.5],
            stroke=None,
        )
        self.x_axis = bq.Axis(scale=self.x, label="x", tick_format=".3~s", num_ticks=5)
        self.y_axis = bq.Axis(
            scale=self.y,
            side="left",
            label="y",
            tick_format=".3~s",
            num_ticks=5,
            label_offset="50px",
        )
        self.figure = bq.Figure(
            marks=[self.mark],
            axes=[self.x_axis, self.y_axis],
            title="merged runs",
            fig_margin={"top": 35, "bottom": 45, "left": 65, "right": 30},
            layout=widgets.Layout(width="330px", height="260px"),
            title_style={"font-size": "13px"},
        )

    def show(self, x: np.ndarray, y: np.ndarray, x_name: str, y_name: str, r: float) -> None:
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        for scale, axis, v in ((self.x, self.x_axis, x), (self.y, self.y_axis, y)):
            lo, hi = float(np.nanmin(v)), float(np.nanmax(v))
            pad = (hi - lo) * 0.04 or 1.0
            with scale.hold_sync():
                scale.min, scale.max = lo - pad, hi + pad
            axis.tick_values = _ticks(lo - pad, hi + pad, 4)  # inside: none cut off
        with self.mark.hold_sync():
            self.mark.x = x
            self.mark.y = y
        self.x_axis.label = x_name
        self.y_axis.label = y_name
        self.figure.title = f"merged runs (r = {r:.3f})"
