"""One HTML table for the composite widgets (ClassPicker's class list, MergePanel's tables).

:func:`table` writes every header and cell as escaped text (a name is data, never markup);
numbers are right-aligned in one format per column (:func:`format_numbers`: fixed point with
thousands separators and the same decimals down a column, so ``20,140,400`` never stands
beside ``2.01404e+07``); pandas' ``NAME.1`` names of repeated columns read ``NAME (2)``.
:data:`STYLE` is the one style block, put once in each widget's style element.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree import numbers
from perfweave.classes.source import text

#: the style of every :func:`table` (once per widget, inside its <style> element)
STYLE = (
    ".pw-table{border-collapse:collapse;font:12px/1.45 var(--jp-code-font-family,monospace);"
    "color:var(--jp-ui-font-color1,#1f2328)}"
    ".pw-table th,.pw-table td{padding:2px 8px;border-bottom:1px solid "
    "var(--jp-border-color2,#e0e0e0);vertical-align:top;text-align:left;min-width:4ch}"
    ".pw-table th{background:var(--jp-layout-color2,#f3f4f6);font-weight:600;"
    "white-space:normal;position:sticky;top:0}"
    ".pw-table .pw-num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    ".pw-table-empty{color:var(--jp-ui-font-color2,#59636e);font-style:italic}"
)

_REPEAT = re.compile(r"^(.*)\.(\d+)$")


def esc(value: Any) -> str:
    """``value`` as HTML text (non-UTF-8 names keep a visible replacement character)."""
    return html.escape(text(value), quote=True)


def clean_headers(names: Iterable[Any]) -> list[str]:
    """Column names as a table shows them: a repeat pandas named ``NAME.k`` (k >= 1, with
    ``NAME`` also present) reads ``NAME (k+1)``; every other name is kept."""
    names = [str(n) for n in names]
    present = set(names)
    out = []
    for n in names:
        m = _REPEAT.match(n)
        if m and m.group(1) in present and int(m.group(2)) >= 1:
            n = f"{m.group(1)} ({int(m.group(2)) + 1})"
        out.append(n)
    return out


def decimals_for(values: np.ndarray, digits: int = 4) -> int:
    """Decimals that show about ``digits`` significant digits of the column's largest
    magnitude (0 for integers and for numbers of ``digits`` or more integer digits)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0 or np.all(finite == np.round(finite)):
        return 0
    top = float(np.max(np.abs(finite)))
    if top == 0:
        return digits - 1
    return int(min(6, max(0, digits - 1 - math.floor(math.log10(top)))))


def format_numbers(values: Any, decimals: int | None = None) -> list[str]:
    """One column's numbers in one format: fixed point, thousands separators, the same
    number of decimals (:func:`decimals_for` unless given); missing values are ""."""
    arr = np.asarray(values, dtype=float)
    d = decimals_for(arr) if decimals is None else decimals
    return ["" if not np.isfinite(v) else f"{v:,.{d}f}" for v in arr]


def format_quantity(value: float, unit: str = "") -> str:
    """A value alone, by the rule of every column (:mod:`perfweave.calltree.numbers`: a
    time in the step that keeps it at or above 1, four significant digits, thousands
    separators): ``477.6 ms``, ``50.80 s``, ``1,608 s``; for text beside the cells."""
    return numbers.format_quantity(value, unit)


def _is_numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def table(
    frame: pd.DataFrame,
    *,
    cls: str = "",
    decimals: dict[str, int] | None = None,
    titles: dict[str, str] | None = None,
    empty: str = "(none)",
) -> str:
    """``frame`` (its columns, not its index) as an HTML table of escaped text.

    ``decimals`` fixes the decimals of some columns (by name); ``titles`` gives a header a
    hover text (a full name behind an abbreviation). Long names may wrap after ``_``.
    """
    if frame.empty:
        return f'<div class="pw-table-empty {esc(cls)}">{esc(empty)}</div>'
    decimals = decimals or {}
    titles = titles or {}
    names = [str(c) for c in frame.columns]
    shown = clean_headers(names)
    numeric = [_is_numeric(frame.iloc[:, k]) for k in range(len(names))]
    cells: list[list[str]] = []
    for k, name in enumerate(names):
        col = frame.iloc[:, k]
        if numeric[k]:
            texts = format_numbers(col.to_numpy(dtype=float), decimals.get(name))
            cells.append([f'<td class="pw-num">{t}</td>' for t in texts])
        else:
            cells.append([f"<td>{esc(v)}</td>" for v in col.tolist()])
    head = []
    for k, (name, label) in enumerate(zip(names, shown)):
        title = f' title="{esc(titles[name])}"' if name in titles else ""
        num = ' class="pw-num"' if numeric[k] else ""
        head.append(f"<th{num}{title}>{_wrap(esc(label))}</th>")
    body = "".join("<tr>" + "".join(row) + "</tr>" for row in zip(*cells))
    return (
        f'<table class="pw-table {esc(cls)}"><thead><tr>{"".join(head)}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def _wrap(escaped: str) -> str:
    """Let a long escaped name wrap after each underscore (no markup in escaped text)."""
    return escaped.replace("_", "_<wbr>")
