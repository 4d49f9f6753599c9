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

#: colors of "merged" and "pooled" in every chart (merged first)
MERGED_COLOR = "#1f77b4"
POOLED_COLOR = "#ff7f0e"
CHOSEN_COLOR = "#d62728"


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

    def show_pair(self, x: np.ndarray, merged: np.ndarray, pooled: np.ndarray) -> None:
        """Merged and pooled shares over the same bins (the x axis spans the bins)."""
        x = np.asarray(x, dtype=float)
        if len(x) > 1:
            with self.x.hold_sync():
                self.x.min, self.x.max = float(x[0]), float(x[-1])
            # round ticks inside the domain: none sits on the edge, half cut off
            self.figure.axes[0].tick_values = value_ticks(float(x[0]), float(x[-1]), 4)
        top = max(float(np.max(merged, initial=0.0)), float(np.max(pooled, initial=0.0)))
        with self.y.hold_sync():  # explicit: bqplot kept stale domains (see the scores)
            self.y.min, self.y.max = 0.0, (top * 1.08) or 1.0
        self.figure.axes[1].tick_values = value_ticks(0.0, self.y.max)
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
            axis.tick_values = value_ticks(lo - pad, hi + pad, 4)  # inside: none cut off
        with self.mark.hold_sync():
            self.mark.x = x
            self.mark.y = y
        self.x_axis.label = x_name
        self.y_axis.label = y_name
        self.figure.title = f"merged runs (r = {r:.3f})"


def value_ticks(lo: float, hi: float, n: int = 5) -> np.ndarray:
    """About ``n`` round tick values inside [lo, hi] (0, 1.5, 3, 4.5, 6 for 0..6.9): bqplot
    puts its ticks at the padded domain's edges (-0.027 on a percent axis)."""
    if not hi > lo:
        return np.array([lo])
    raw = (hi - lo) / n
    mag = 10 ** np.floor(np.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = np.ceil(lo / step - 1e-9) * step
    return np.round(np.arange(first, hi + step * 1e-9, step), 12) + 0.0  # no -0


def index_ticks(n: int) -> np.ndarray:
    """Tick values 1..n at a round step (1, 20, 40, ..., 100 for n = 100)."""
    if n <= 1:
        return np.array([1.0])
    raw = (n - 1) / 5
    mag = 10 ** np.floor(np.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    step = max(1.0, float(np.ceil(step)))
    ticks = np.arange(step, n + 0.5, step)
    ticks = ticks[ticks - 1 >= step / 2]  # keep 1 clear of the next tick
    return np.concatenate([[1.0], ticks])


def shares(merged: np.ndarray, pooled: np.ndarray, bins: int = 40):
    """Percent of merged runs and of pooled readings in each of common bins (centres, 2 x
    bins): unlike a density (1e-7 per cycle) a share reads directly off the axis."""
    merged = np.asarray(merged, dtype=float)
    pooled = np.asarray(pooled, dtype=float)
    both = np.concatenate([merged, pooled])
    lo, hi = float(np.min(both)), float(np.max(both))
    if hi <= lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, bins + 1)
    a, _ = np.histogram(merged, edges)
    b, _ = np.histogram(pooled, edges)
    centres = (edges[:-1] + edges[1:]) / 2
    return centres, np.vstack([100 * a / max(len(merged), 1), 100 * b / max(len(pooled), 1)])
