"""Extra-P's text format (``extrap --text``).

Lines of ``KEYWORD values`` (empty lines and lines starting with ``#`` are skipped)::

    PARAMETER x y                 # parameter names (several lines append)
    POINTS (20 1) (20 2) ...      # points, in order (several lines append; with one
                                  # parameter the parentheses may be left out)
    METRIC time                   # the metric of the DATA lines that follow
    REGION main->compute          # the call path of the DATA lines that follow
    DATA 81.8 82.1 81.5           # the repetitions measured at the next point

After each ``REGION`` or ``METRIC`` line the ``DATA`` lines count the points from the
first again, one line per point; every call path needs a line for every point of each
metric. A point written twice is an error (which DATA line would be its?). A file without
``METRIC`` lines has one metric, named :data:`DEFAULT_METRIC` (Extra-P calls it ""). At
most 4 parameters, as in Extra-P.
"""

from __future__ import annotations

import re
from pathlib import Path

from perfweave.ensemble.extrap._experiment import (
    DEFAULT_CALLPATH,
    DEFAULT_METRIC,
    Experiment,
    coordinate,
    number,
)
from perfweave.errors import ParseError

#: most parameters Extra-P's text format takes
MAX_PARAMETERS = 4
_GROUP = re.compile(r"\(([^()]*)\)")
_KEYWORDS = ("PARAMETER", "POINTS", "METRIC", "REGION", "DATA")


def read_text(path: str | Path) -> Experiment:
    """Read an Extra-P text file (see the module docstring)."""
    name = str(path)
    with open(path, encoding="utf-8", errors="replace") as fh:
        lines = fh.read().splitlines()
    exp = Experiment(name)
    points: list[tuple[float, ...]] = []
    metric, callpath = DEFAULT_METRIC, DEFAULT_CALLPATH
    at = 0  # the point of the next DATA line
    seen_data = False
    for number_, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = {"line": number_}
        keyword, *more = line.split(None, 1)
        rest = " ".join(more[0].split()) if more else ""
        if keyword not in _KEYWORDS:
            raise ParseError(name, f"one of {', '.join(_KEYWORDS)}", found=line, **where)
        if keyword == "PARAMETER":
            if not rest:
                raise ParseError(name, "parameter names after PARAMETER", found=line, **where)
            exp.add_parameters(rest.split(" "), where)
            if len(exp.parameters) > MAX_PARAMETERS:
                raise ParseError(
                    name, f"at most {MAX_PARAMETERS} parameters (Extra-P's text format)",
                    found=", ".join(exp.parameters), **where,
                )  # fmt: skip
        elif keyword == "POINTS":
            for point in _points(rest, exp, where):
                if point in exp.points:  # DATA lines count the points as written
                    raise ParseError(
                        name, "each point once in the POINTS lines (a DATA line per point)",
                        found=f"{exp.point_text(point)} a second time", **where,
                    )  # fmt: skip
                points.append(point)
                exp.add_point(point)
        elif keyword == "METRIC":
            metric, at = rest or DEFAULT_METRIC, 0
        elif keyword == "REGION":
            if not rest:
                raise ParseError(name, "a call path after REGION", found=line, **where)
            callpath, at = rest, 0
        else:  # DATA
            if not exp.parameters:
                raise ParseError(name, "PARAMETER before the first DATA line", found=line, **where)
            if at >= len(points):
                raise ParseError(
                    name,
                    f"one DATA line per point ({len(points)} points) after REGION {callpath!r}"
                    + (f", METRIC {metric!r}" if metric != DEFAULT_METRIC else ""),
                    found=f"DATA line {at + 1}",
                    **where,
                )
            if not rest:
                raise ParseError(name, "values after DATA", found=line, **where)
            values = [number(v, name, "a DATA value", where) for v in rest.split(" ")]
            exp.add(callpath, metric, points[at], values, where, repeat=False)
            at += 1
            seen_data = True
    if not seen_data and exp.parameters and points:
        raise ParseError(name, "DATA lines with measurements", found="none")
    exp.check()
    return exp


def _points(text: str, exp: Experiment, where: dict) -> list[tuple[float, ...]]:
    """The points of a POINTS line: ``(a b) (c d)``; with one parameter also ``a b c``."""
    if not exp.parameters:
        raise ParseError(exp.path, "PARAMETER before POINTS", found=f"POINTS {text}", **where)
    groups = _GROUP.findall(text)
    if groups:
        rest = _GROUP.sub(" ", text).strip()
        if rest:
            raise ParseError(exp.path, "points in parentheses: (1 2) (3 4)", found=text, **where)
        parts = [g.split() for g in groups]
    elif len(exp.parameters) == 1:
        parts = [[v] for v in text.split()]
    else:
        raise ParseError(
            exp.path,
            f"points of {len(exp.parameters)} values in parentheses: ({' '.join(exp.parameters)})",
            found=text,
            **where,
        )
    if not parts:
        raise ParseError(exp.path, "points after POINTS", found=text, **where)
    out = []
    for values in parts:
        if len(values) != len(exp.parameters):
            raise ParseError(
                exp.path,
                f"one value per parameter ({', '.join(exp.parameters)}) in each point",
                found=f"({' '.join(values)})",
                **where,
            )
        out.append(coordinate(values, exp.path, where))
    return out
