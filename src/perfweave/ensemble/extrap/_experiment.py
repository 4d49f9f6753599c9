"""An Extra-P experiment as its readers leave it: parameters, points and the repeated
measurements of every function (a call path and a metric) at each point.

Every format reader fills one :class:`Experiment`; :meth:`Experiment.check` applies
Extra-P's rules for a complete experiment (at least one parameter, point, call path and
metric; each point one value per parameter; every function measured at every point) and
:func:`to_ensemble` lays it out as an :class:`~perfweave.ensemble.Ensemble`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from perfweave.errors import ParseError

#: Extra-P's names for a measurement that names no call path or metric (its JSON Lines
#: reader's defaults; its text reader calls the metric "")
DEFAULT_CALLPATH = "<root>"
DEFAULT_METRIC = "<default>"
#: the separator of call path elements (``main->init_mat``)
SEPARATOR = "->"

Point = tuple[float, ...]


@dataclass
class Experiment:
    """What an Extra-P input holds, in the order the file gives it."""

    path: str
    parameters: list[str] = field(default_factory=list)
    #: the points in order of first appearance
    points: dict[Point, None] = field(default_factory=dict)
    #: (callpath, metric) -> point -> the repeated values measured there
    functions: dict[tuple[str, str], dict[Point, list[float]]] = field(default_factory=dict)

    def add_parameters(self, names: list[str], where: dict[str, Any]) -> None:
        """Append parameter names (a name given twice is an error)."""
        for name in names:
            if name in self.parameters:
                raise ParseError(self.path, "each parameter named once", found=name, **where)
            self.parameters.append(name)

    def add_point(self, point: Point) -> None:
        self.points.setdefault(point, None)

    def add(
        self,
        callpath: str,
        metric: str,
        point: Point,
        values: list[float],
        where: dict[str, Any],
        repeat: bool = True,
    ) -> None:
        """Add the ``values`` measured for (callpath, metric) at ``point``; with
        ``repeat`` False a second set of values at one point is an error (a format that
        lists each point once per function), else they are more repetitions."""
        self.add_point(point)
        at = self.functions.setdefault((callpath, metric), {})
        if point in at and not repeat:
            raise ParseError(
                self.path,
                f"one set of values per point of call path {callpath!r}, metric {metric!r}",
                found=f"a second one at {self.point_text(point)}",
                **where,
            )
        at.setdefault(point, []).extend(values)

    def point_text(self, point: Point) -> str:
        return "(" + ", ".join(f"{n}={v:g}" for n, v in zip(self.parameters, point)) + ")"

    def check(self) -> None:
        """Extra-P's rules for a complete experiment, as a :class:`ParseError` naming the
        file and what is missing."""
        if not self.parameters:
            raise ParseError(self.path, "at least one parameter", found="none")
        if not self.points:
            raise ParseError(self.path, "at least one measurement point", found="none")
        if not self.functions:
            raise ParseError(self.path, "measurements of at least one call path", found="none")
        k = len(self.parameters)
        for point in self.points:
            if len(point) != k:
                raise ParseError(
                    self.path,
                    f"one value per parameter ({', '.join(self.parameters)}) at every point",
                    found=f"point {point!r}",
                )
        for (callpath, metric), at in self.functions.items():
            if len(at) != len(self.points):
                missing = next(p for p in self.points if p not in at)
                raise ParseError(
                    self.path,
                    "a measurement of every call path and metric at every point (as Extra-P "
                    "requires)",
                    found=f"call path {callpath!r}, metric {metric!r} at {len(at)} of "
                    f"{len(self.points)} points; none at {self.point_text(missing)}",
                )


def number(value: Any, path: str, what: str, where: dict[str, Any]) -> float:
    """``value`` as a finite float (a JSON number or numeric text); anything else is an
    error naming what it is (``what``) and where. ``nan`` or ``inf`` (``DATA 1 nan``, a
    JSON ``NaN``) measured nothing: the models count a value that is not finite as a
    missing repetition, so read as a number it was dropped without a word."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ParseError(path, f"a number as {what}", found=value, **where)
    try:
        out = float(value)
    except ValueError:
        raise ParseError(path, f"a number as {what}", found=value, **where) from None
    except OverflowError:  # an integer past the double range
        out = math.inf
    if not math.isfinite(out):
        raise ParseError(path, f"a finite number as {what}", found=value, **where)
    return out


def coordinate(values: Any, path: str, where: dict[str, Any]) -> Point:
    """A point's parameter values as finite floats."""
    out = tuple(number(v, path, "a parameter value", where) for v in values)
    bad = [v for v in out if not math.isfinite(v)]
    if bad:
        raise ParseError(path, "finite parameter values", found=f"{bad[0]}", **where)
    return out
