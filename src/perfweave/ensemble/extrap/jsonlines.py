"""Extra-P's line formats: JSON Lines (``.jsonl``) and Talpas (``extrap --talpas``).

Both hold one measurement per line; lines of one call path, metric and point are its
repetitions (a ``value`` may also be a list of them). The parameters and their order are
those of the first line; a later line needs a value of each. A parameter the first line
does not name is ignored, as Extra-P ignores it, so lines that differ only in it pool as
repetitions of one point: a SkippedInputWarning names the first such line and parameter.

- **JSON Lines**: ``{"params": {"x": 1, "y": 2}, "value": 2.5}``, with ``"callpath"`` and
  ``"metric"`` optional (Extra-P's defaults :data:`DEFAULT_CALLPATH`,
  :data:`DEFAULT_METRIC`).
- **Talpas**: ``{"parameters":{"x":20};"metric":"time";"callpath":"compute";"value":82.0}``:
  ``;`` separates the keys (every ``;`` on the line is read as ``,``, as Extra-P does),
  ``callpath`` and ``metric`` required.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from perfweave.calltree.deepjson import parse
from perfweave.ensemble.extrap._experiment import (
    DEFAULT_CALLPATH,
    DEFAULT_METRIC,
    Experiment,
    coordinate,
    number,
)
from perfweave.errors import ParseError, SkippedInputWarning


def looks_like_lines(text: str) -> bool:
    """Whether ``text`` holds one JSON object per line (Extra-P's test before JSON Lines)."""
    lines = [line.strip() for line in text.splitlines()]
    return any(lines) and all(line.startswith("{") or not line for line in lines)


def read_jsonlines(path: str | Path) -> Experiment:
    """Read an Extra-P JSON Lines file."""
    return _read(path, talpas=False)


def read_talpas(path: str | Path) -> Experiment:
    """Read an Extra-P Talpas file."""
    return _read(path, talpas=True)


def _read(path: str | Path, talpas: bool) -> Experiment:
    name = str(path)
    exp = Experiment(name)
    params_key = "parameters" if talpas else "params"
    kind = "a Talpas line" if talpas else "a JSON Lines object"
    order: list[str] | None = None
    ignored: list[tuple[int, str]] = []  # (line, parameter) of lines naming more parameters
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line_no, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            where = {"line": line_no}
            text = line.replace(";", ",") if talpas else line
            data = parse(text, name, f"{kind} (one JSON object per line)", line=line_no)
            if not isinstance(data, dict):
                raise ParseError(name, f"{kind}: a JSON object", found=data, **where)
            params = _field(data, params_key, dict, name, where)
            if order is None:
                order = list(params)
                if not order:
                    raise ParseError(name, "at least one parameter", found=params, **where)
                exp.add_parameters([str(p) for p in order], where)
            missing = [p for p in order if p not in params]
            if missing:
                raise ParseError(
                    name, f"a value of every parameter ({', '.join(order)})",
                    found=f"none of {missing[0]!r}", **where,
                )  # fmt: skip
            if len(params) > len(order):
                ignored.append((line_no, next(str(p) for p in params if p not in order)))
            point = coordinate([params[p] for p in order], name, where)
            if talpas:
                callpath = _field(data, "callpath", str, name, where)
                metric = _field(data, "metric", str, name, where)
            else:
                callpath = _field(data, "callpath", str, name, where, DEFAULT_CALLPATH)
                metric = _field(data, "metric", str, name, where, DEFAULT_METRIC)
            raw = _field(data, "value", (int, float, str, list), name, where)
            values = raw if isinstance(raw, list) else [raw]
            if not values:
                raise ParseError(name, "at least one value", found=raw, **where)
            exp.add(
                callpath, metric, point, [number(v, name, "a value", where) for v in values], where
            )
    exp.check()
    if ignored:
        line_no, param = ignored[0]
        warnings.warn(
            SkippedInputWarning(
                f"{name}: {len(ignored)} lines name a parameter the first line does not (the "
                f"first: line {line_no}, {param!r}); it is ignored, as Extra-P ignores it, so "
                f"lines that differ only in it are repetitions of one point of "
                f"{', '.join(order or [])}"
            ),
            stacklevel=4,
        )
    return exp


def _field(data: dict, key: str, kind: Any, name: str, where: dict, default: Any = None) -> Any:
    """``data[key]`` of type ``kind`` (``default`` when absent and a default is given)."""
    if key not in data:
        if default is not None:
            return default
        raise ParseError(name, f"a key {key!r}", found=f"keys {sorted(data)}", **where)
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        what = kind.__name__ if isinstance(kind, type) else "number or list of numbers"
        raise ParseError(name, f"{key!r} as {what}", found=value, **where)
    return value
