"""Extra-P's JSON input (``extrap --json``), in both of its layouts.

- **The current layout**: ``{"parameters": [names], "measurements": {callpath: {metric:
  [{"point": [values], "values": [repetitions]}, ...]}}}``; each point once per function.
- **The older layout** of ids: ``parameters``, ``callpaths``, ``metrics`` and
  ``coordinates`` (``parameter_value_pairs``), each a list of objects with an ``id``, and
  ``measurements``, one value each (``callpath_id``, ``metric_id``, ``coordinate_id``,
  ``value``); several values of one function at one point are its repetitions. As in
  Extra-P, each list is sorted by id and a ``..._id`` counts from 1 into that sorted list.

A file that is no JSON document but holds one object per line is read as JSON Lines
(:mod:`.jsonlines`), as Extra-P's ``--json`` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from perfweave.calltree.deepjson import parse
from perfweave.ensemble.extrap._experiment import Experiment, coordinate, number
from perfweave.ensemble.extrap.jsonlines import looks_like_lines, read_jsonlines
from perfweave.errors import ParseError


def read_json(path: str | Path) -> Experiment:
    """Read an Extra-P JSON file (either layout) or a JSON Lines file given as JSON."""
    name = str(path)
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    try:
        data = parse(text, name, "a JSON document")
    except ParseError:
        if looks_like_lines(text) and text.count("\n") > 1:
            return read_jsonlines(path)
        raise
    if not isinstance(data, dict):
        raise ParseError(name, "a JSON object with 'parameters' and 'measurements'", found=data)
    exp = Experiment(name)
    if "callpaths" in data:
        _read_ids(exp, data)
    else:
        _read_current(exp, data)
    exp.check()
    return exp


def _key(data: dict, key: str, kind: type | tuple, name: str, where: str) -> Any:
    """``data[key]`` if it is of ``kind``; else an error naming the key and where."""
    if key not in data:
        raise ParseError(name, f"a key {key!r}", position=where, found=f"keys {sorted(data)}")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        what = kind.__name__ if isinstance(kind, type) else "number"
        raise ParseError(name, f"{key!r} as a JSON {what}", position=where, found=value)
    return value


def _read_current(exp: Experiment, data: dict) -> None:
    name = exp.path
    params = _key(data, "parameters", list, name, "top level")
    if not all(isinstance(p, str) for p in params):
        raise ParseError(name, "parameter names as text", position="'parameters'", found=params)
    exp.add_parameters(params, {"position": "'parameters'"})
    measurements = _key(data, "measurements", dict, name, "top level")
    for callpath, metrics in measurements.items():
        where = f"measurements[{callpath!r}]"
        if not isinstance(metrics, dict):
            raise ParseError(name, "an object of metrics", position=where, found=metrics)
        for metric, entries in metrics.items():
            at = f"{where}[{metric!r}]"
            if not isinstance(entries, list):
                raise ParseError(name, "a list of measurements", position=at, found=entries)
            for i, entry in enumerate(entries):
                pos = {"position": f"{at}[{i}]"}
                if not isinstance(entry, dict):
                    raise ParseError(
                        name, "an object with 'point' and 'values'", found=entry, **pos
                    )
                point = _key(entry, "point", list, name, pos["position"])
                values = _key(entry, "values", list, name, pos["position"])
                if not values:
                    raise ParseError(name, "at least one value", found=values, **pos)
                vals = [number(v, name, "a measured value", pos) for v in values]
                exp.add(callpath, metric, coordinate(point, name, pos), vals, pos, repeat=False)


def _by_id(data: dict, key: str, name: str) -> list[dict]:
    items = _key(data, key, list, name, "top level")
    for i, item in enumerate(items):
        if not isinstance(item, dict) or "id" not in item:
            raise ParseError(name, "an object with an 'id'", position=f"{key}[{i}]", found=item)
    try:
        return sorted(items, key=lambda item: item["id"])
    except TypeError:
        raise ParseError(name, "ids of one kind (numbers)", position=key, found=items) from None


def _named(items: list[dict], key: str, name: str) -> list[str]:
    out = []
    for i, item in enumerate(items):
        if not isinstance(item.get("name"), str):
            raise ParseError(name, "a 'name' as text", position=f"{key}[{i}]", found=item)
        out.append(item["name"])
    return out


def _read_ids(exp: Experiment, data: dict) -> None:
    name = exp.path
    exp.add_parameters(_named(_by_id(data, "parameters", name), "parameters", name), {})
    # by position: an id counts into its list as written (an item written twice keeps its
    # place, and its measurements join those of the first)
    callpaths = _named(_by_id(data, "callpaths", name), "callpaths", name)
    metrics = _named(_by_id(data, "metrics", name), "metrics", name)
    points = []
    for i, item in enumerate(_by_id(data, "coordinates", name)):
        pos = f"coordinates[{i}]"
        pairs = _key(item, "parameter_value_pairs", list, name, pos)
        try:
            pairs = sorted(pairs, key=lambda pair: pair["parameter_id"])
            raw = [pair["parameter_value"] for pair in pairs]
        except (TypeError, KeyError):
            raise ParseError(
                name, "pairs of 'parameter_id' and 'parameter_value'", position=pos, found=pairs
            ) from None
        points.append(coordinate(raw, name, {"position": pos}))
    for point in points:
        exp.add_point(point)
    lists = {"coordinate_id": points, "callpath_id": callpaths, "metric_id": metrics}
    for i, m in enumerate(_key(data, "measurements", list, name, "top level")):
        pos = {"position": f"measurements[{i}]"}
        if not isinstance(m, dict):
            raise ParseError(name, "a measurement object", found=m, **pos)
        picked = []
        for key, items in lists.items():
            raw = _key(m, key, (int, float, str), name, pos["position"])
            k = number(raw, name, key, pos) - 1
            if not (0 <= k < len(items) and k == int(k)):
                raise ParseError(name, f"{key} from 1 to {len(items)}", found=raw, **pos)
            picked.append(items[int(k)])
        point, callpath, metric = picked
        value = number(
            _key(m, "value", (int, float, str), name, pos["position"]), name, "value", pos
        )
        exp.add(callpath, metric, point, [value], pos)
