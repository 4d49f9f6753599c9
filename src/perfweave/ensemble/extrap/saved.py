"""Extra-P's saved experiments (``.extra-p``): a ZIP archive with ``experiment.json``.

Extra-P writes each function's statistics at each point (``mean``, ``median``,
``minimum``, ``maximum``, ``std``, ``repetitions``), not the repeated values themselves
(it keeps those only when asked, in a binary file of its own). So the ensemble has one
profile per point (``repetition`` 1), the metric's value is the stored mean (what
Extra-P models by default) and ``<metric> median``, ``<metric> min``, ``<metric> max``
and ``<metric> std`` hold the other statistics; the metadata column ``repetitions`` says
how many values each mean is of (the most of any function at that point). The models
Extra-P saved are not read: ``Ensemble.models`` fits them again from the means, as
Extra-P's default modeler does.
"""

from __future__ import annotations

import zipfile
import zlib
from fractions import Fraction
from pathlib import Path
from typing import Any

from perfweave.calltree.deepjson import parse
from perfweave.ensemble.extrap._experiment import Experiment, coordinate
from perfweave.errors import ParseError

DATA_FILE = "experiment.json"
#: the statistics of a point besides the mean, and their columns' suffixes
STATISTICS = {"median": "median", "minimum": "min", "maximum": "max", "std": "std"}


def read_saved(path: str | Path) -> tuple[Experiment, dict[tuple[str, str], dict]]:
    """The experiment of the means, and per function and point the other statistics
    (``{(callpath, metric): {point: {"median": ..., ..., "repetitions": n}}}``)."""
    name = str(path)
    try:
        with zipfile.ZipFile(path) as archive:
            try:
                raw = archive.read(DATA_FILE)
            except KeyError:
                raise ParseError(
                    name, f"an Extra-P experiment (a ZIP archive holding {DATA_FILE})",
                    found=f"members {archive.namelist()[:5]}",
                ) from None  # fmt: skip
    except ParseError:
        raise
    # a damaged archive fails in zipfile, zlib or the file system: all say the file is bad
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError,
            RuntimeError, ValueError) as exc:  # fmt: skip
        raise ParseError(name, "an Extra-P experiment (a ZIP archive)", found=str(exc)) from None
    where = f"{name}/{DATA_FILE}"
    data = parse(raw.decode("utf-8", errors="replace"), where, "a JSON document")
    if not isinstance(data, dict) or "Extra-P" not in data:
        raise ParseError(where, "an object with the key 'Extra-P' (its version)", found=data)
    exp = Experiment(name)
    params = data.get("parameters")
    if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
        raise ParseError(where, "'parameters' as a list of names", found=params)
    exp.add_parameters(params, {})
    measurements = data.get("measurements")
    if not isinstance(measurements, dict):
        raise ParseError(where, "'measurements' as an object of call paths", found=measurements)
    stats: dict[tuple[str, str], dict] = {}
    for callpath, metrics in measurements.items():
        if not isinstance(metrics, dict):
            raise ParseError(where, "an object of metrics", position=callpath, found=metrics)
        for metric, entries in metrics.items():
            at = f"measurements[{callpath!r}][{metric!r}]"
            if not isinstance(entries, list):
                raise ParseError(where, "a list of measurements", position=at, found=entries)
            for i, entry in enumerate(entries):
                pos = {"position": f"{at}[{i}]"}
                if not isinstance(entry, dict) or "coordinate" not in entry or "mean" not in entry:
                    raise ParseError(where, "a 'coordinate' and a 'mean'", found=entry, **pos)
                point = coordinate(
                    [_number(v, where, pos) for v in _list(entry["coordinate"], where, pos)],
                    where, pos,
                )  # fmt: skip
                exp.add(callpath, metric, point, [_number(entry["mean"], where, pos)], pos, False)
                more = {k: _number(entry.get(k, "nan"), where, pos) for k in STATISTICS}
                more["repetitions"] = int(_number(entry.get("repetitions", 1), where, pos))
                stats.setdefault((callpath, metric), {})[point] = more
    exp.check()
    return exp, stats


def _list(value: Any, where: str, pos: dict) -> list:
    if not isinstance(value, list):
        raise ParseError(where, "a coordinate as a list of values", found=value, **pos)
    return value


def _number(value: Any, where: str, pos: dict) -> float:
    """Extra-P's serialised number: a JSON number, ``"nan"``, ``"inf"``, ``"-inf"`` or a
    fraction ``"1/3"``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(Fraction(value)) if "/" in value else float(value)
        except (ValueError, ZeroDivisionError):
            pass
    raise ParseError(where, "a number (or 'nan', 'inf', 'a/b')", found=value, **pos)
