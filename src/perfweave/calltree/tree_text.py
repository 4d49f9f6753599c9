"""The text tree: one line per node, ``value name [context]``, indented with box rules.

Looks like Hatchet's ``tree()`` so its users read it at a glance. Color (ANSI) marks how
large each value is relative to the largest shown; it is on automatically in a terminal
or a notebook and can be forced on or off.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from perfweave.calltree.analysis import DESCRIPTION, node_values
from perfweave.calltree.numbers import fixed_text
from perfweave.calltree.shown import with_inclusive
from perfweave.calltree.writers import node_names, node_view, printable

if TYPE_CHECKING:
    from perfweave.calltree.graphframe import GraphFrame

# red (largest) .. green (smallest), as Hatchet's RdYlGn bands 0.9, 0.7, 0.5, 0.3, 0.1, 0
_BANDS = (0.9, 0.7, 0.5, 0.3, 0.1, -math.inf)
_COLORS = tuple(f"\033[38;5;{c}m" for c in (196, 208, 220, 148, 112, 34))
_END = "\033[0m"
_FAINT = "\033[2m"
_UNDERLINE = "\033[4m"
_RULES = {"tee": "├─ ", "bar": "│  ", "elbow": "└─ ", "blank": "   "}
# highlight_name: dark text on grey, except the placeholders of unresolved frames
_HIGHLIGHT = "\033[48;5;246m\033[38;5;232m"
_UNKNOWN = re.compile(r"<unknown (procedure|file)>")


def _auto_color() -> bool:
    if sys.stdout.isatty():
        return True
    try:
        from IPython import get_ipython

        return get_ipython().__class__.__name__ == "ZMQInteractiveShell"
    except Exception:
        return False


def render(
    gf: GraphFrame,
    *,
    metric_column: str | Sequence[str] | None,
    precision: int,
    depth: int | None,
    threshold: float | None,
    color: bool | None,
    name_column: str,
    invert_colormap: bool,
    rank: int | None,
    thread: int | None,
    expand_name: bool,
    context_column: str | None,
    render_header: bool,
    annotation_column: str | None = None,
    highlight_name: bool = False,
    colormap: str = "RdYlGn",
    colormap_annotations: str | list | dict | None = None,
    min_value: float | None = None,
    max_value: float | None = None,
) -> str:
    from perfweave.errors import ShapeError

    _check_colormap("colormap", colormap)
    if isinstance(colormap_annotations, str):
        _check_colormap("colormap_annotations", colormap_annotations)
    if annotation_column is not None and annotation_column not in gf.dataframe.columns:
        raise ShapeError(
            f"tree(): no annotation column {annotation_column!r}; columns are "
            f"{list(gf.dataframe.columns)[:12]}"
        )

    asked = (
        [metric_column or gf.default_metric]
        if isinstance(metric_column, (str, type(None)))
        else list(metric_column)
    )
    # a frame with only exclusive metrics shows its inclusive columns (calltree.shown)
    gf = with_inclusive(gf, asked)
    metrics = [gf.default_metric] if metric_column is None else asked
    for m in metrics:
        if m not in gf.dataframe.columns:
            raise ShapeError(
                f"tree(): no metric column {m!r}; metrics are {gf.exc_metrics + gf.inc_metrics}"
            )
    use_color = _auto_color() if color is None else bool(color)
    context = context_column if context_column and context_column in gf.dataframe.columns else None
    annotated = [annotation_column] if annotation_column is not None else []
    view = node_view(gf, [name_column] + ([context] if context else []) + annotated, rank, thread)
    # as in Hatchet, a rank/thread asked of a frame without that level is ignored
    rank = rank if "rank" in gf.index_levels else None
    thread = thread if "thread" in gf.index_levels else None
    shown_values = node_values(gf, metrics, rank, thread)  # the one definition of a node's value
    note = shown_values.attrs.get(DESCRIPTION, "")
    g = gf.graph
    n = len(g)
    values = [shown_values[m].to_numpy(float) for m in metrics]
    primary = values[0]
    names = node_names(gf, view, name_column)
    finite = primary[np.isfinite(primary)]
    lo, hi = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 0.0)
    shown = np.ones(n, bool)
    if depth is not None:
        shown &= g.depth < depth
    if threshold:
        shown &= np.nan_to_num(primary) >= threshold * hi
    # the colour scale's ends, as Hatchet's min_value/max_value set them
    lo = lo if min_value is None else float(min_value)
    hi = hi if max_value is None else float(max_value)
    note_colors = _annotation_colors(view, annotation_column, colormap_annotations)
    colors = _COLORS[::-1] if invert_colormap else _COLORS
    span = hi - lo

    def metric_text(v: int) -> str:
        text = fixed_text(primary[v], precision)  # a value that is not 0 never reads 0
        if use_color and np.isfinite(primary[v]):
            frac = (primary[v] - lo) / span if span > 0 else 1.0
            band = next(i for i, b in enumerate(_BANDS) if frac >= b)
            text = colors[band] + text + _END
        for other in values[1:]:
            extra = fixed_text(other[v], precision)
            text += f" {_FAINT}{extra}{_END}" if use_color else f" {extra}"
        if annotation_column is not None:
            note = printable(str(view[annotation_column].iloc[v]))
            color = note_colors.get(note) if use_color else None
            text += f" [{color}{note}{_END}]" if color else f" [{note}]"
        return text

    def name_text(v: int) -> str:
        name = printable(names[v])  # names are data: never a line break or an ANSI code
        if not expand_name and len(name) > 39:
            name = name[:18] + "..." + name[-18:]
        if highlight_name and use_color and not _UNKNOWN.search(name):
            name = _HIGHLIGHT + name + _END
        if context is not None:
            ctx = view[context].iloc[v]
            if not pd.isna(ctx):
                ctx = printable(ctx)
                name += f" {_FAINT}{ctx}{_END}" if use_color else f" {ctx}"
        return name

    lines: list[str] = []
    expanded: set[int] = set()
    for root in g.root_ids.tolist():
        if not shown[root]:
            continue
        stack = [(root, "", "")]
        while stack:
            v, indent, child_indent = stack.pop()
            lines.append(f"{indent}{metric_text(v)} {name_text(v)}")
            if v in expanded:
                continue
            expanded.add(v)
            kids = [c for c in g.children_of(v).tolist() if shown[c]]
            for i in range(len(kids) - 1, -1, -1):
                last = i == len(kids) - 1
                stack.append(
                    (
                        kids[i],
                        child_indent + (_RULES["elbow"] if last else _RULES["tee"]),
                        child_indent + (_RULES["blank"] if last else _RULES["bar"]),
                    )
                )
    out = ""
    unit = gf.unit_of(metrics[0])  # the reader's unit, said once: every value is in it
    shown_metric = f"{metrics[0]} in {unit}" if unit else str(metrics[0])
    if render_header:
        from perfweave import __version__

        out += f"perfweave {__version__} — {shown_metric}\n\n"
    if note:  # say what the numbers are whenever they are not simply each node's row
        out += f"# {shown_metric}: {note}\n"
    elif unit:  # and always the unit the reader gave
        out += f"# {shown_metric}\n"
    out += "\n".join(lines) + "\n"
    if use_color:
        out += _legend(shown_metric, lo, hi, colors)
    return out


def _check_colormap(option: str, name: str) -> None:
    """The tree's colours are Hatchet's default RdYlGn bands; another name is refused."""
    if name != "RdYlGn":
        from perfweave.errors import OptionError

        raise OptionError(
            f"tree({option}={name!r}): the tree text is coloured with Hatchet's default "
            "RdYlGn bands only; invert_colormap=True reverses them, color=False leaves them "
            "out, and a FlameGraph colours by any metric"
        )


def _annotation_colors(
    view: pd.DataFrame, column: str | None, colormap: str | list | dict | None
) -> dict[str, str]:
    """Annotation value -> ANSI colour: a dict as given, or the colours of a list (or of
    the RdYlGn bands) in the order of the sorted distinct values, cycled (Hatchet's rule)."""
    if column is None or colormap is None:
        return {}
    if isinstance(colormap, dict):
        return {str(k): str(v) for k, v in colormap.items()}
    palette = list(_COLORS) if isinstance(colormap, str) else [str(c) for c in colormap]
    if not palette:
        return {}
    values = sorted({printable(str(x)) for x in view[column].dropna()})
    return {x: palette[i % len(palette)] for i, x in enumerate(values)}


def _legend(metric: str, lo: float, hi: float, colors: tuple[str, ...]) -> str:
    span = hi - lo
    text = (
        f"\n{_UNDERLINE}Legend{_END} (Metric: {metric} "
        f"Min: {fixed_text(lo, 2)} Max: {fixed_text(hi, 2)})\n"
    )
    bounds = (1.0, 0.9, 0.7, 0.5, 0.3, 0.1, 0.0)
    for i in range(6):
        low, high = (fixed_text(b * span + lo, 2) for b in (bounds[i + 1], bounds[i]))
        text += f"{colors[i]}█ {_END}{low} - {high}\n"
    return text
