"""The ClassPicker's layout: its controls and tabs, built once, and drawn from its study.

:class:`PickerView` is the half of :class:`~perfweave.widgets.ClassPicker` that is layout:
``_build`` makes the ipywidgets (spec box with completion, merge toggles, axis, the offers
of other valid views, the Report / Classes / Inverted / opreport-text tabs, a bqplot bar
chart) and ``_draw*`` show what the picker's :class:`~perfweave.classes.ClassStudy` holds.
It computes nothing: every number, name and sentence comes from the study. The style is
``picker.css`` (``js/src/picker/picker.css``, shared with the report tables), put once in
the widget's style element.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets
import numpy as np

from perfweave.calltree.numbers import linear_ticks
from perfweave.classes import ClassStudy, text
from perfweave.classes.study import AXIS_CHOICES
from perfweave.widgets._base import static_file
from perfweave.widgets._html import STYLE as TABLE_STYLE
from perfweave.widgets._html import esc
from perfweave.widgets._html import table as html_table
from perfweave.widgets._picker_table import ReportTable
from perfweave.widgets._spec_box import SpecBox

if TYPE_CHECKING:
    from perfweave.widgets.picker import ClassPicker

MERGE_FLAGS = ("cpu", "tid", "tgid", "lib", "unitmask", "all")
VIEWS = ("report", "classes", "inverted", "opreport")
#: images in the bar chart
TOP_IMAGES = 10
_KIND = {"session": "OProfile session ", "listing": "sample-file listing ", "perf": "perf data "}


def style() -> str:
    """The picker's style element: the shared table style and ``picker.css``."""
    return f"<style>{TABLE_STYLE}\n{static_file('picker.css').read_text()}</style>"


def short_names(paths: list[str]) -> list[str]:
    """Image paths as the chart labels them: the file name, or the whole path where two
    images share a file name."""
    base = [p.rsplit("/", 1)[-1] or p for p in paths]
    return [b if base.count(b) == 1 else p for b, p in zip(base, paths)]


def whole_ticks(top: float) -> np.ndarray:
    """About five round ticks from 0 to ``top`` at whole numbers (samples are counted)."""
    return np.array([t for t in linear_ticks(0.0, float(top), 5) if float(t).is_integer()])


def _box(children: list, **layout: Any) -> widgets.HBox:
    return widgets.HBox(children, layout=widgets.Layout(**layout))


def _chart() -> Any:
    import bqplot as bq

    xs = bq.OrdinalScale()
    ys = bq.LinearScale(min=0.0)
    bars = bq.Bars(
        x=[], y=[], scales={"x": xs, "y": ys}, colors=["#4c72b0"], orientation="horizontal"
    )
    ax_names = bq.Axis(scale=xs, orientation="vertical", tick_style={"font-size": "12px"})
    ax_samples = bq.Axis(
        scale=ys, orientation="horizontal", label="samples", tick_format=",d", num_ticks=6
    )
    fig = bq.Figure(
        marks=[bars],
        axes=[ax_names, ax_samples],
        title="top images by samples",
        fig_margin={"top": 40, "bottom": 50, "left": 120, "right": 30},
        layout=widgets.Layout(width="100%", height="320px"),
        title_style={"font-size": "14px"},
    )
    fig.add_class("pw-picker-chart")
    return fig


class PickerView:
    """Controls, tabs and drawing of a ClassPicker (mixed into it: see the module doc)."""

    _study: ClassStudy
    _syncing: bool

    def _build(self: ClassPicker) -> None:  # type: ignore[misc]
        study = self._study
        src = study.source
        self._title = widgets.Label(f"ClassPicker: {_KIND.get(src.kind, '')}{text(src.label)}")
        self._spec_box = SpecBox(
            self._completions,
            lambda spec: self._from_control(lambda: self.set_spec(spec)),
            value=" ".join(study.words),
            placeholder="profile spec, e.g. event:CPU_CLK_UNHALTED tgid:100",
            layout=widgets.Layout(width="100%"),
        )
        self._toggles = {}
        for flag in MERGE_FLAGS:
            tb = widgets.ToggleButton(
                description=flag, tooltip=f"--merge={flag}", layout=widgets.Layout(width="92px")
            )
            tb.add_class(f"pw-picker-merge-{flag}")
            tb.add_class("pw-picker-toggle")
            self._toggles[flag] = tb
        self._xdep_box = widgets.ToggleButton(
            description="-x", tooltip="--exclude-dependent", layout=widgets.Layout(width="60px")
        )
        self._xdep_box.add_class("pw-picker-merge-x")
        self._xdep_box.add_class("pw-picker-toggle")
        self._axis_box = widgets.Dropdown(
            options=list(AXIS_CHOICES), value="auto", description="axis"
        )
        self._axis_box.layout.width = "180px"
        self._axis_box.add_class("pw-picker-axis")
        self._axis_label = widgets.HTML(layout=widgets.Layout(flex="1 1 0", min_width="0"))
        self._axis_label.add_class("pw-picker-axis-shown")
        self._offers_label = widgets.Label("or show:")
        self._offer_buttons: list[widgets.Button] = []
        self._offers_box = _box(
            [self._offers_label], display="none", flex_flow="row wrap", align_items="center"
        )
        self._offers_box.add_class("pw-picker-offers")
        self._classes_html = widgets.HTML(layout=widgets.Layout(max_width="100%", overflow="auto"))
        self._classes_html.add_class("pw-picker-classes")
        self._build_tables()
        self._build_tabs()
        self._children = [
            widgets.HTML(style()),
            self._title,
            self._spec_box,
            _box(
                [
                    widgets.Label("merge", layout=widgets.Layout(width="48px")),
                    *self._toggles.values(),
                    self._xdep_box,
                ],
                flex_flow="row wrap",
            ),
            _box([self._axis_box, self._axis_label], align_items="center"),
            self._offers_box,
            self._tabs,
        ]

    def _build_tables(self: ClassPicker) -> None:  # type: ignore[misc]
        self._by_box = widgets.Dropdown(
            options=["image", "application"], value="image", description="rows"
        )
        self._by_box.layout.width = "200px"
        self._by_box.add_class("pw-picker-by")
        self._filter_box = widgets.Text(
            placeholder="filter names", description="filter", continuous_update=False
        )
        self._filter_box.layout.width = "240px"
        self._filter_box.add_class("pw-picker-filter")
        self._rows_label = widgets.Label()
        self._rows_label.add_class("pw-picker-rowcount")
        self._table = ReportTable(layout=widgets.Layout(width="100%"))
        self._table.add_class("pw-picker-report")
        self._inv_filter = widgets.Text(
            placeholder="filter binaries and applications",
            description="filter",
            continuous_update=False,
        )
        self._inv_filter.layout.width = "320px"
        self._inv_filter.add_class("pw-picker-inv-filter")
        self._inv_rows = widgets.Label()
        self._inv_rows.add_class("pw-picker-inv-rowcount")
        self._inv_table = ReportTable(kind="inverted", layout=widgets.Layout(width="100%"))
        self._inv_table.add_class("pw-picker-inverted")
        self._chart = _chart()
        self._chart_class = widgets.Dropdown(description="chart of")
        self._chart_class.layout.width = "360px"
        self._chart_class.add_class("pw-picker-chart-class")
        self._text_area = widgets.Textarea(layout=widgets.Layout(width="100%", height="320px"))
        self._text_area.add_class("pw-picker-opreport")
        self._cmd = widgets.Textarea(
            description="command", rows=2, layout=widgets.Layout(width="100%", height="auto")
        )
        self._cmd.add_class("pw-picker-command")
        self._no_counts = widgets.HTML()
        self._no_counts.add_class("pw-picker-nocounts")

    def _build_tabs(self: ClassPicker) -> None:  # type: ignore[misc]
        #: the report tab with counts (without, it is the one _no_counts line: the table and
        #: the chart are left out, not hidden, as a bqplot figure drawn hidden breaks)
        wrap = {"flex_flow": "row wrap", "align_items": "center"}
        self._report_parts = (
            _box([self._by_box, self._filter_box, self._rows_label], **wrap),
            self._table,
            self._chart_class,
            self._chart,
        )
        self._report_tab = widgets.VBox(list(self._report_parts))
        inverted = widgets.VBox([_box([self._inv_filter, self._inv_rows], **wrap), self._inv_table])
        opreport = widgets.VBox([self._cmd, self._text_area])
        self._tabs = widgets.Tab(
            children=[self._report_tab, self._classes_html, inverted, opreport]
        )
        for k, title in enumerate(["Report", "Classes", "Inverted", "opreport text"]):
            self._tabs.set_title(k, title)
        self._tabs.add_class("pw-picker-tabs")
        self._drawn_tabs: set[str] = set()

    # ------------------------------------------------------------------ drawing
    def _sync_controls(self: ClassPicker) -> None:  # type: ignore[misc]
        """Put every control back to the study's state."""
        study = self._study
        try:
            typed = shlex.split(self._spec_box.value or "")
        except ValueError:
            typed = None
        if typed != study.words:
            self._spec_box.value = " ".join(shlex.quote(w) for w in study.words)
        m = study.merge
        state = {"cpu": m.cpu, "tid": m.tid, "tgid": m.tgid, "lib": m.lib, "unitmask": m.unitmask}
        state["all"] = m.is_all
        for flag, on in state.items():
            self._toggles[flag].value = bool(on)
            self._toggles[flag].description = ("✓ " if on else "") + flag
        self._xdep_box.description = ("✓ " if study.exclude_dependent else "") + "-x"
        self._xdep_box.value = study.exclude_dependent
        self._axis_box.value = study.axis_choice
        levels = study.report_levels()
        if list(self._by_box.options) != levels:
            self._by_box.options = levels
        self._by_box.value = study.by
        self._filter_box.value = study.filters["report"]
        self._inv_filter.value = study.filters["inverted"]

    def _draw(self: ClassPicker) -> None:  # type: ignore[misc]
        study = self._study
        if study.classes is None:
            self._resync()
            self._axis_label.value = esc(study.status())
            return
        # the report table first: its window leaves for the page before the other updates
        self._draw_table()
        self._resync()
        self._draw_status()
        self._draw_offers()
        self._draw_chart()
        self._drawn_tabs = set()
        self._draw_tab()
        self._cmd.value = text(study.command_line) or (
            "(the perfweave opreport command reads session directories; this source is "
            f"{study.source.kind})"
        )

    def _draw_status(self: ClassPicker) -> None:  # type: ignore[misc]
        """The status beside the axis: what is on screen, in the words of the controls."""
        self._axis_label.value = esc(self._study.status())

    def _draw_offers(self: ClassPicker) -> None:  # type: ignore[misc]
        """One button per other valid view (hidden when there is none)."""
        offers = self._study.offers
        if [b.description for b in self._offer_buttons] != [r.describe() for r in offers]:
            buttons = []
            for res in offers:
                b = widgets.Button(
                    description=res.describe(),
                    tooltip=f"show {res.describe()}",
                    layout=widgets.Layout(width="auto"),
                )
                b.add_class("pw-picker-fix")
                b.on_click(lambda _b, r=res: self._from_control(lambda: self.resolve(r)))
                buttons.append(b)
            self._offer_buttons = buttons
            self._offers_box.children = [self._offers_label, *buttons]
        self._offers_label.value = "resolve with:" if self._study.offers_fix else "or show:"
        self._offers_box.layout.display = "" if offers else "none"

    def _draw_tab(self: ClassPicker, _change: Any = None) -> None:  # type: ignore[misc]
        """Draw the classes, inverted and opreport-text tabs only when they are open."""
        view, study = self.view, self._study
        if study.classes is None or view in self._drawn_tabs:
            return
        self._drawn_tabs.add(view)
        if view == "classes":
            desc = study.classes.describe().reset_index()
            self._classes_html.value = html_table(desc, cls="pw-picker-classlist")
        elif view == "inverted":
            self._draw_table("inverted")
        elif view == "opreport":
            self._text_area.value = text(study.opreport_text) or (
                "(no sample counts in this source: opreport's text needs them)"
            )

    def _draw_table(self: ClassPicker, view: str = "report") -> None:  # type: ignore[misc]
        """Give a table its rows: the filter and sort only reorder row positions."""
        study = self._study
        report = view == "report"
        table, label = (
            (self._table, self._rows_label) if report else (self._inv_table, self._inv_rows)
        )
        if not report and self.view != "inverted":
            self._drawn_tabs.discard("inverted")  # drawn when opened
            return
        rows = study.rows(view)
        if rows is None:
            table.show(None)
            label.value = ""
            if report:
                self._no_counts.value = esc(study.no_counts_text())
                if tuple(self._report_tab.children) != (self._no_counts,):
                    self._report_tab.children = (self._no_counts,)
            return
        if report and tuple(self._report_tab.children) != self._report_parts:
            self._report_tab.children = self._report_parts
        order = study.row_order(view)
        label.value = f"{len(order)} of {len(rows)} rows"
        table.show(rows, order, study.sorts[view])

    def _draw_chart(self: ClassPicker, _change: Any = None) -> None:  # type: ignore[misc]
        """Bars of the top images (those the name filter keeps) of the class picked beside
        the chart (bqplot 0.13 draws no bars from a 2-D ``y``, so one class at a time),
        horizontal: the image names read level, beside their bars."""
        fig, bars, study = self._chart, self._chart.marks[0], self._study
        if study.rows("report") is None or study.classes is None:
            bars.x, bars.y = [], []
            return
        labels = [text(n) for n in study.classes.names]
        self._syncing = True
        try:
            if list(self._chart_class.options) != labels:  # 200 classes: send only a change
                self._chart_class.options = labels
            if self._chart_class.value not in labels:
                self._chart_class.value = labels[0]
        finally:
            self._syncing = False
        k = labels.index(self._chart_class.value)
        names, counts = study.top_images(k, TOP_IMAGES)
        shown = short_names([text(n) for n in names])
        longest = max((len(n) for n in shown), default=4)
        with bars.hold_sync():
            # top bar first: the ordinal axis runs bottom-up, so give the names reversed
            bars.x = shown[::-1]
            bars.y = counts.astype(np.float64)[::-1]
        fig.fig_margin = {"top": 40, "bottom": 50, "left": min(300, 16 + 7 * longest), "right": 30}
        fig.layout.height = f"{max(160, 90 + 26 * len(names))}px"
        top = float(counts.max()) if len(counts) else 1.0
        with fig.axes[1].scale.hold_sync():
            fig.axes[1].scale.min, fig.axes[1].scale.max = 0.0, top * 1.05
        fig.axes[1].tick_values = whole_ticks(top)  # whole samples, no repeated labels
        needle = study.filters["report"]
        matching = f" matching {needle!r}" if needle else ""
        if len(names) > 1:
            fig.title = f"top {len(names)} images{matching} of {labels[k]} by samples"
        elif names:
            fig.title = f"the one image{matching} with samples in {labels[k]}"
        else:
            fig.title = f"no image{matching} has samples in {labels[k]}"
