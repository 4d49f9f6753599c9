"""How every view writes numbers: one format per column, in the column's unit.

A column (a table's column, the values of a chart axis, a list of predictions) is written
in **one format chosen from its largest magnitude**, so that a reader compares digits, not
notations (``68.16 s`` above ``0.00 s``, never ``68.16`` above ``2.56e-4``):

- a time (unit ``s``, ``ms``, ``µs`` or ``ns``) is written in the largest of s, ms, µs, ns
  in which the column's largest magnitude is at least 1 (``800 ms``, never ``800m``);
  seconds never become kiloseconds (``1,616 s``);
- any other quantity (bytes, flops, a count, a number without unit) is written as it is
  below 1,000,000 (counts read as counts: ``1,024``, ``32,768``), from there with the SI
  prefix k, M, G, T, P or E that brings the largest magnitude to 1..999 (``5.486 GB``,
  ``1.200M``);
- every cell has the same decimals: enough for :data:`DIGITS` significant digits of the
  largest magnitude (none from 1,000 on, none for a column of whole numbers written
  without a prefix), with thousands separators; a column whose largest magnitude needs
  more than :data:`MAX_DECIMALS` decimals is written in e-notation, every cell;
- an exact zero is ``0``, a missing value ``–`` (a dash); a value that is not zero never
  reads as zero: where the column's decimals would round it to 0 it gets two significant
  digits of its own (``0.049 s`` in a column of ``68.16 s``); where that would take more
  than :data:`MAX_DECIMALS` decimals it is written in its own step, as a column of its own
  would write it (``3.000 ns`` in a column of ``1,616 s``, ``24 B`` in a column of
  ``5.486 GB``, never ``3.0e-9 s`` or ``2.4e-8 GB``).

:func:`column_format` chooses the format, :meth:`ColumnFormat.text` writes a value in it
(the explorer's page applies the same :meth:`ColumnFormat.spec` with ``columnText`` in
``js/src/lib/format.js``). A linear chart axis follows the same rule (:func:`axis_labels`),
with as many decimals as its ticks need; a log axis writes each tick in its own step; an
axis leaves out ticks whose labels would collide (:func:`axis_ticks`). Round ticks come
from one place: :func:`linear_ticks` (1-2-5 steps) and :func:`log_ticks` (decades).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: significant digits of a column's largest magnitude
DIGITS = 4
#: more decimals than this and the column is written in e-notation
MAX_DECIMALS = 6
#: time units, in seconds
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}
_TIME_STEPS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
#: prefixes of quantities that are not times, from PREFIX_FROM on
_PREFIXES = ("", "k", "M", "G", "T", "P", "E")
PREFIX_FROM = 1e6
#: units never given a prefix
_BARE = frozenset({"%", "×"})
MISSING = "–"


@dataclass(frozen=True)
class ColumnFormat:
    """One column's format: a value (in the column's unit) is divided by ``scale`` and
    written with ``decimals`` decimals (in e-notation when ``exponent``), then ``unit``.
    ``base`` is the column's unit before its step (``s`` for a column shown in ``ms``),
    in which a value too small for the step is written in a step of its own."""

    scale: float = 1.0
    unit: str = ""
    decimals: int = 0
    exponent: bool = False
    base: str | None = None

    def text(self, value: Any, missing: str = MISSING) -> str:
        """``value`` in this format (``missing`` for NaN or None)."""
        try:
            x = float(value)
        except (TypeError, ValueError):
            return missing
        if math.isnan(x):
            return missing
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        y = x / self.scale
        decimals = self.decimals if self.exponent else never_zero(y, self.decimals)
        if decimals > MAX_DECIMALS and self.base is not None:
            return column_format([x], self.base).text(x)  # its own step: "3.000 ns", "24 B"
        if x == 0:
            digits = "0"
        elif self.exponent or decimals > MAX_DECIMALS:
            places = self.decimals if self.exponent else 1
            mantissa, exp = f"{y:.{places}e}".split("e")
            digits = f"{mantissa}e{int(exp):+d}"  # as JavaScript writes it: 3.2e-4
        else:
            digits = f"{y:,.{decimals}f}"
        return _with_unit(digits, self.unit)

    def texts(self, values: Any, missing: str = MISSING) -> list[str]:
        """Every value of a column in this format."""
        return [self.text(v, missing) for v in np.ravel(np.asarray(values, dtype=object))]

    def spec(self) -> dict[str, Any]:
        """The format for the page (``columnText`` in ``js/src/lib/format.js``)."""
        out = {
            "scale": self.scale,
            "unit": self.unit,
            "decimals": self.decimals,
            "exponent": self.exponent,
        }
        if self.base is not None:
            out["base"] = self.base
        return out


def never_zero(value: float, decimals: int) -> int:
    """The decimals ``value`` is written with in a column of ``decimals``: the column's,
    or, where they would write a value that is not 0 as 0 (``0.000`` for 1.02e-4), two
    significant digits of its own (5 decimals: ``0.00010``)."""
    if value == 0 or not math.isfinite(value):
        return decimals
    if float(f"{abs(value):.{max(decimals, 0)}f}") != 0:
        return decimals
    return 1 - math.floor(math.log10(abs(value)))


def fixed_text(value: Any, decimals: int, thousands: bool = False) -> str:
    """``value`` with ``decimals`` decimals, as a text tree or table with a ``precision``
    writes it (``tree()``, ``perfweave tree``, ``perfweave imbalance``), by the rule of
    every column: a value that is not 0 never reads as 0 (:func:`never_zero`; e-notation
    past :data:`MAX_DECIMALS` decimals: ``3.2e-9``), NaN is ``nan``, an exact 0 keeps the
    decimals (``0.000``). ``thousands`` adds separators (``1,608.000``)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return "nan"
    if not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    places = never_zero(x, decimals)
    if places > MAX_DECIMALS:
        mantissa, exp = f"{x:.1e}".split("e")
        return f"{mantissa}e{int(exp):+d}"
    return f"{x:,.{places}f}" if thousands else f"{x:.{places}f}"


def _with_unit(digits: str, unit: str) -> str:
    """``0.80 s``, ``1.200M`` (a bare prefix is written onto the number), ``12``."""
    if not unit:
        return digits
    return f"{digits}{unit}" if unit in _PREFIXES else f"{digits} {unit}"


#: values looked at per pass of :func:`_magnitude` (its temporaries stay this small)
_CHUNK = 1 << 16


def _magnitude(values: Any) -> tuple[float, bool]:
    """The largest finite magnitude of ``values`` (0 when none) and whether every finite
    value is a whole number. A long column is read in chunks: a million values need no
    million-sized temporaries."""
    arr = np.asarray(values, dtype=float).ravel()
    top, whole = 0.0, True
    for start in range(0, len(arr), _CHUNK):
        size = np.abs(arr[start : start + _CHUNK])
        finite = np.isfinite(size)
        top = max(top, float(np.max(size, where=finite, initial=0.0)))
        whole = whole and bool(np.all(size == np.rint(size), where=finite))
    return top, whole


def _step(top: float, unit: str) -> tuple[float, str]:
    """(scale, shown unit) of a column whose largest magnitude is ``top`` in ``unit``."""
    if unit in TIME_UNITS:
        if top == 0:
            return 1.0, unit
        seconds = top * TIME_UNITS[unit]
        step, name = next((s for s in _TIME_STEPS if seconds >= s[0]), _TIME_STEPS[-1])
        return step / TIME_UNITS[unit], name
    if unit in _BARE or top < PREFIX_FROM:
        return 1.0, unit
    tier = min(len(_PREFIXES) - 1, int(math.floor(math.log10(top) / 3)))
    return 1000.0**tier, _PREFIXES[tier] + unit


def column_format(values: Any, unit: str = "", digits: int = DIGITS) -> ColumnFormat:
    """The one format of a column of ``values`` in ``unit`` (see the module docstring):
    the step (s/ms/µs/ns for a time, an SI prefix from 1,000,000 for anything else) and
    the decimals of ``digits`` significant digits, both from the largest magnitude."""
    top, whole = _magnitude(values)
    scale, shown = _step(top, unit)
    shown_top = top / scale
    if shown_top == 0 or (whole and scale == 1.0):
        return ColumnFormat(scale, shown, 0, base=unit)
    decimals = max(0, digits - 1 - math.floor(math.log10(shown_top)))
    if decimals > MAX_DECIMALS:
        return ColumnFormat(scale, shown, digits - 1, exponent=True, base=unit)
    return ColumnFormat(scale, shown, decimals, base=unit)


def format_column(values: Any, unit: str = "", missing: str = MISSING) -> list[str]:
    """The values of one column written in its one format (:func:`column_format`)."""
    return column_format(values, unit).texts(values, missing)


def format_quantity(value: float, unit: str = "") -> str:
    """One value alone: the column rule over a column of one (``477.6 ms``, ``50.80 s``,
    ``1,608 s``, ``32,768``)."""
    return column_format([value], unit).text(value)


def axis_labels(ticks: Sequence[float], unit: str = "", log: bool = False) -> list[str]:
    """The labels of a chart axis's ticks. A linear axis is a column: one step for the
    axis (the column rule, from its largest tick: ``200 ms`` ... ``800 ms``, ``1,024`` ...
    ``32,768``) and the fewest decimals (at most :data:`MAX_DECIMALS`) that write every
    tick exactly. On a log axis each tick takes its own step (``10 µs``, ``1 ms``,
    ``100 ms``, ``1 s``), as a reader of decades expects."""
    values = np.asarray(ticks, dtype=float)
    if log:
        return [axis_labels([v], unit)[0] for v in values]
    base = column_format(values, unit)
    if base.exponent:
        return base.texts(values)
    scaled = values / base.scale
    for decimals in range(MAX_DECIMALS + 1):
        if np.allclose(np.round(scaled, decimals), scaled, rtol=1e-9, atol=0):
            break
    return ColumnFormat(base.scale, base.unit, decimals).texts(values)


def linear_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About ``count`` ticks inside ``lo``..``hi``, in steps of 1, 2 or 5 times a power of
    10 (nice numbers a reader can interpolate between)."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return []
    if hi <= lo:
        return [float(lo)]
    power = 10.0 ** math.floor(math.log10((hi - lo) / count))
    step = next(m * power for m in (1, 2, 5, 10) if (hi - lo) / (m * power) <= count + 1)
    first = math.ceil(lo / step - 1e-9)
    return [float(f"{k * step:.12g}") for k in range(first, int(math.floor(hi / step + 1e-9)) + 1)]


def log_ticks(lo: float, hi: float) -> list[float]:
    """Ticks of a log axis inside ``lo``..``hi`` (both above 0): the powers of 10 when the
    span covers more than 3 decades, 1, 2 and 5 times them over 1 to 3 decades, 1 to 9
    times them within one (d3's own ticks crowd a span of a few decades: 2, 1, 900m,
    800m, ...). Empty when fewer than two fit (the caller then marks the ends)."""
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo <= 0 or hi < lo:
        return []
    decades = math.log10(hi / lo)
    steps = (1,) if decades > 3 else (1, 2, 5) if decades > 1 else tuple(range(1, 10))
    powers = range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
    inside = [float(f"{m * 10.0**k:.6g}") for k in powers for m in steps]
    inside = [t for t in inside if lo <= t <= hi]
    return inside if len(inside) >= 2 else []


def axis_ticks(
    ticks: Sequence[float],
    unit: str,
    length_px: float,
    log: bool = False,
    label_px: float | None = None,
) -> tuple[list[float], list[str]]:
    """The ticks of an axis ``length_px`` long that keep their labels apart, and their
    labels (:func:`axis_labels`, :func:`spaced_ticks` over the ticks' own span)."""
    values = [float(t) for t in ticks]
    if not values:
        return [], []
    labels = axis_labels(values, unit, log)
    keep = spaced_ticks(values, labels, (min(values), max(values)), length_px, log, label_px)
    return [values[i] for i in keep], [labels[i] for i in keep]


#: the width of a digit of an axis label (11 px sans-serif) and the space between labels
CHAR_PX = 7.0
GAP_PX = 8.0


def spaced_ticks(
    ticks: Sequence[float],
    labels: Sequence[str],
    span: tuple[float, float],
    length_px: float,
    log: bool = False,
    label_px: float | None = None,
) -> list[int]:
    """Indices of the ticks to keep so that no two labels collide on an axis
    ``length_px`` long over ``span`` (linear or log): labels are :data:`CHAR_PX` per
    character wide (a horizontal axis) or ``label_px`` tall (a vertical one), at least
    :data:`GAP_PX` apart. A linear axis keeps every k-th tick from its first (evenly
    spaced round numbers, the smallest k that fits); a log axis (measured scales, often
    irregular) keeps its largest tick (a scaling chart's target), then each tick downwards
    that has room beside the last one kept."""
    lo, hi = span
    if not len(ticks):
        return []
    values = np.asarray(ticks, dtype=float)
    if log:
        at = np.log(np.maximum(values, 1e-300))
        a, b = math.log(max(lo, 1e-300)), math.log(max(hi, 1e-300))
    else:
        at, a, b = values, lo, hi
    width = (b - a) or 1.0
    pos = (at - a) / width * length_px
    size = [label_px if label_px is not None else CHAR_PX * len(t) for t in labels]
    order = [int(i) for i in np.argsort(-values, kind="stable")]

    def apart(i: int, j: int) -> bool:
        return abs(pos[j] - pos[i]) >= (size[i] + size[j]) / 2 + GAP_PX

    if not log:
        for k in range(1, len(order) + 1):
            every = order[::-1][::k]
            if all(apart(i, j) for i, j in zip(every, every[1:])):
                return sorted(every, key=lambda i: values[i])
    kept = [order[0]]
    for i in order[1:]:
        if apart(i, kept[-1]):
            kept.append(i)
    return sorted(kept, key=lambda i: values[i])
