"""The ScalingView's chart of the focused node (bqplot) and the texts under it.

It draws what :class:`perfweave.scaling.ScalingStudy` answers: a point per run (colored by
group; unticked runs hollow), each group's curve over the measured range, dashed on to the
target, the interval of a new run shaded, a poor fit's warning, the model's text. Scales,
axes and marks are made once per kind and then only given new data, so that a redraw sends
a few arrays instead of new widget models.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w
import numpy as np

from perfweave.calltree.numbers import axis_ticks, linear_ticks, log_ticks
from perfweave.scaling import ScalingStudy
from perfweave.widgets._transport import js_number_text

#: category10, the colors of the groups of runs
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
POOR = "#c62828"  # the color of a poor fit's warning
#: the smallest plot the chart draws (its box's min width and its height, less the
#: margins): ticks are spaced for it, so that their labels never collide
PLOT_WIDTH, PLOT_HEIGHT = 360 - 90, 320 - 70
#: the height of a tick label of the y axis (11 px text)
TICK_HEIGHT = 13.0


def label_axis(axis: Any, ticks: Any, unit: str, log: bool, vertical: bool = False) -> None:
    """Give ``axis`` the ticks whose labels keep apart, written by the column rule
    (:func:`perfweave.calltree.numbers.axis_ticks`: ``800 ms``, never ``800m``; counts as
    counts, ``1,024``); bqplot's own ticks where there are none."""
    if ticks is None or not len(ticks):
        axis.tick_values, axis.tick_labels = None, {}
        return
    length, size = (PLOT_HEIGHT, TICK_HEIGHT) if vertical else (PLOT_WIDTH, None)
    kept, labels = axis_ticks(ticks, unit, length, log, size)
    axis.tick_labels = {js_number_text(t): text for t, text in zip(kept, labels)}
    axis.tick_values = kept


class ScalingChart:
    """The chart (:attr:`figure`) of a study's focused node and the texts under it
    (:attr:`title`, :attr:`model_text`, :attr:`figures`, :attr:`quality`), in :attr:`box`."""

    def __init__(self, study: ScalingStudy) -> None:
        import bqplot as bq

        self.study = study
        self._axes_cache: dict[bool, tuple] = {}
        self.title = w.Label(layout=w.Layout(width="100%"))
        self.model_text = w.Label(layout=w.Layout(width="100%"))
        self.model_text.add_class("pw-scaling-model")
        self.figures = w.Label(layout=w.Layout(width="100%"))
        self.quality = w.Label(layout=w.Layout(width="100%"))
        self.quality.add_class("pw-scaling-quality")
        self.figure = bq.Figure(
            marks=[],
            axes=[],
            fig_margin={"top": 20, "bottom": 50, "left": 70, "right": 20},
            layout=w.Layout(width="100%", height="320px"),
            legend_location="top-left",
            padding_x=0.03,  # a point at the edge of the range is drawn whole
            padding_y=0.05,
        )
        self.figure.add_class("pw-scaling-chart")
        self.box = w.VBox(
            [self.title, self.figure, self.model_text, self.figures, self.quality],
            layout=w.Layout(flex="1 1 420px", min_width="360px"),
        )

    def draw(self, log: bool) -> None:
        """Draw the focused node on linear or log axes: points per run, a curve per group,
        dashed to the target, the interval as a band, a poor fit's warning; then the texts."""
        study = self.study
        sx, sy, ax_x, ax_y = self._axes(log)
        data = study.chart_data()
        drawn = (data["param"] > 0) & (data["value"] > 0) if log else data["value"].notna()
        data = data[drawn & data["value"].notna()]
        fits = study.group_models()
        curves = study.group_curves(log, fits)
        colors = {c.group: PALETTE[i % len(PALETTE)] for i, c in enumerate(curves)}
        legend = study.group_by is not None  # a legend names the groups' colors
        specs: list[tuple[str, dict]] = []
        for c in curves:
            style = {"colors": [colors[c.group]]}
            x, y = c.curve
            specs.append(
                ("fit", {"x": x, "y": y, **style, "labels": [c.name], "display_legend": legend})
            )
            x, y = c.extrapolation
            specs.append(("extrapolation", {"x": x, "y": y, **style}))
        for kind, selected in (("runs", True), ("excluded", False)):
            for g in colors:  # unticked runs: hollow rings in their group's color
                pts = data[(data["group"] == g) & (data["selected"] == selected)]
                xy = {"x": pts["param"].to_numpy(), "y": pts["value"].to_numpy()}
                specs.append((kind, {**xy, "colors": [colors[g]]}))
        bands = [c.band for c in curves]
        drawn_y = np.concatenate(
            [np.asarray(v["y"], float) for _, v in specs] + [b[1] for b in bands]
        )
        floor = np.nanmin(drawn_y[drawn_y > 0]) if log and (drawn_y > 0).any() else 0.0
        band_specs = []
        for c, (xs, low, high) in zip(curves, bands):
            if log:  # a bound at 0 is the bottom of the chart; no band where high <= 0
                low = np.where(high > 0, np.maximum(low, floor), np.nan)
                high = np.where(high > 0, high, np.nan)
            y = np.vstack([low, high]) if len(xs) else np.zeros((2, 0))
            band_specs.append(("band", {"x": xs, "y": y, "fill_colors": [colors[c.group]]}))
        specs = band_specs + specs + [("quality", {"text": [study.fit_warning(fits)]})]
        marks = self._marks([kind for kind, _ in specs], sx, sy)
        with self.figure.hold_sync():
            for mark, (_, values) in zip(marks, specs):
                with mark.hold_sync():
                    for name, value in values.items():
                        setattr(mark, name, value)
            self._tick(ax_x, ax_y, specs, log)
            if list(self.figure.marks) != marks:
                self.figure.marks = marks
            if list(self.figure.axes) != [ax_x, ax_y]:
                self.figure.axes = [ax_x, ax_y]
        self._write(fits)

    def _tick(self, ax_x: Any, ax_y: Any, specs: list[tuple[str, dict]], log: bool) -> None:
        """Ticks of both axes: on a log x axis the measured scales and the target (d3's log
        ticks crowd), on a linear one round steps from 0 (bqplot spreads its ticks over its
        padded domain); on the y axis round steps (:mod:`perfweave.calltree.numbers`)."""
        study = self.study
        if log:
            ticks = sorted({*study.x[study.x > 0].tolist(), study.target})
        else:
            hi = study.measured_range()[1]
            ticks = linear_ticks(0.0, max(hi if np.isfinite(hi) else 0.0, study.target))
        label_axis(ax_x, ticks, "", log)
        ys = [np.ravel(np.asarray(v["y"], float)) for k, v in specs if k != "quality"]
        values = np.concatenate(ys or [np.zeros(0)])
        values = values[np.isfinite(values) & ((values > 0) if log else True)]
        if not len(values):
            y_ticks = None
        elif log:  # d3's log ticks crowd a span of a few decades (2, 1, 900m, 800m, ...)
            y_ticks = log_ticks(values.min(), values.max()) or sorted({values.min(), values.max()})
        else:
            y_ticks = linear_ticks(values.min(), values.max())
        label_axis(ax_y, y_ticks, self.study.unit, log, vertical=True)

    def _write(self, fits: Any) -> None:
        """The texts under the chart (:meth:`ScalingStudy.focus_text`); a poor fit in red."""
        text = self.study.focus_text(fits)
        self.title.value = text.title
        self.model_text.value = text.model
        self.figures.value = text.figures
        self.quality.value = text.quality
        self.quality.style.text_color = POOR if text.poor else None
        self.quality.style.font_weight = "bold" if text.poor else ""

    def _axes(self, log: bool) -> tuple:
        """The (x scale, y scale, x axis, y axis) of linear or log axes, made once each."""
        import bqplot as bq

        if log not in self._axes_cache:
            # a linear x axis starts at 0: scales are counts of ranks or sizes
            sx, sy = (
                (bq.LogScale(), bq.LogScale())
                if log
                else (bq.LinearScale(min=0.0), bq.LinearScale())
            )
            # tick labels are set with the ticks (label_axis: "800 ms", "1,024"); the
            # format is bqplot's fallback only, never an SI suffix ("800m")
            fmt = {"tick_format": ",~r"} if log else {"tick_format": ",~r", "num_ticks": 6}
            ax_x = bq.Axis(scale=sx, label=str(self.study.param), **fmt)
            ax_y = bq.Axis(
                scale=sy, orientation="vertical", tick_format=",~r", label_offset="55px",
                label=str(self.study.metric),  # each tick says its unit
            )  # fmt: skip
            self._axes_cache[log] = (sx, sy, ax_x, ax_y)
        return self._axes_cache[log]

    def _marks(self, kinds: list[str], sx: Any, sy: Any) -> list[Any]:
        """Marks of the given kinds on these scales: the current ones when they are of the
        same kinds and scales, new ones otherwise."""
        current = list(self.figure.marks)
        same = len(current) == len(kinds) and all(
            getattr(m, "_pw_kind", None) == k and m.scales["x"] is sx
            for m, k in zip(current, kinds)
        )
        if same:
            return current
        made = []
        for kind in kinds:
            mark = self._mark(kind, {"x": sx, "y": sy})
            mark._pw_kind = kind
            made.append(mark)
        return made

    def _mark(self, kind: str, scales: dict) -> Any:
        """A new, empty mark of one kind."""
        import bqplot as bq

        param = str(self.study.param)
        if kind == "fit":
            return bq.Lines(x=[], y=[], scales=scales, stroke_width=2)
        if kind == "extrapolation":
            return bq.Lines(x=[], y=[], scales=scales, stroke_width=2, line_style="dashed")
        if kind == "runs":
            tip = bq.Tooltip(fields=["x", "y"], labels=[param, "value"])
            return bq.Scatter(
                x=[], y=[], scales=scales, default_size=48, stroke="white", tooltip=tip
            )
        if kind == "excluded":  # a ring: the run is not in the fit
            tip = bq.Tooltip(fields=["x", "y"], labels=[param, "unticked"])
            return bq.Scatter(
                x=[], y=[], scales=scales, default_size=48, fill=False, stroke_width=2,
                tooltip=tip,
            )  # fmt: skip
        if kind == "band":  # the interval of new measurements, under the curves
            return bq.Lines(
                x=[], y=[[], []], scales=scales, fill="between", fill_opacities=[0.16],
                stroke_width=0, opacities=[0.0, 0.0],
            )  # fmt: skip
        # "quality": a poor fit's warning, at the chart's top left
        place = {"x": bq.LinearScale(min=0.0, max=1.0), "y": bq.LinearScale(min=0.0, max=1.0)}
        return bq.Label(
            x=[0.02], y=[0.95], text=[""], scales=place, colors=[POOR], default_size=13,
            font_weight="bold", align="start",
        )  # fmt: skip
