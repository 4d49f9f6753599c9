"""Hatchet's GraphFrame JSON (``to_json``/``to_dict``): graph by node id + dataframe records.

Detection reads only the first and last 4 KiB (:func:`sniff`), so it must not depend on
where the graph ends: Hatchet writes ``graph`` first, and a graph of a few hundred nodes
pushes the other keys past any fixed window. perfweave writes the small keys first.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers._common import file_ends, load_json
from perfweave.errors import ParseError

_KEYS = ("graph", "dataframe_indices", "dataframe", "inclusive_metrics", "exclusive_metrics")
_KEY = rb'"(' + b"|".join(k.encode() for k in _KEYS) + rb')"\s*:'
_ANY_KEY = re.compile(_KEY)
_FIRST_KEY = re.compile(rb"\s*\{\s*" + _KEY)
# the start of a section in the format's shape: a graph of {id: {"data"|"children": ...}},
# dataframe records led by the "node" index level
_GRAPH_START = re.compile(
    rb'\s*\{\s*"graph"\s*:\s*\[\s*\{\s*"[^"\\]*"\s*:\s*\{\s*"(data|children)"\s*:'
)
_RECORDS_START = re.compile(rb'\s*\{\s*"dataframe"\s*:\s*\[\s*\{\s*"node"\s*:')


def sniff(path: Path) -> bool:
    """A JSON object whose first key is one of the format's five keys, and either a second
    of them in the first or last 4 KiB, or a first section that starts in the format's
    shape (a graph or dataframe too large for both ends to show another key)."""
    head, tail = file_ends(path)
    if _FIRST_KEY.match(head) is None:
        return False
    if _GRAPH_START.match(head) or _RECORDS_START.match(head):
        return True
    keys = {m.group(1) for m in _ANY_KEY.finditer(head)}
    keys.update(m.group(1) for m in _ANY_KEY.finditer(tail))
    return len(keys) >= 2


def read(source: Any, **_: Any):
    spec, name = load_json(source, "Hatchet GraphFrame JSON")
    return from_dict(spec, name)


def from_dict(spec: dict, name: str = "<dict>"):
    if not isinstance(spec, dict):
        raise ParseError(
            name, "a JSON object with keys " + ", ".join(_KEYS), found=type(spec).__name__
        )
    missing = [k for k in _KEYS if k not in spec]
    if missing:
        raise ParseError(name, "keys " + ", ".join(_KEYS), found=f"no {', '.join(missing)}")
    _check_shape(spec, name)
    ids: dict[str, int] = {}
    frames: list[dict] = []
    src: list[int] = []
    dst: list[int] = []
    for part in spec["graph"]:
        for nid, value in part.items():
            if str(nid) not in ids:
                ids[str(nid)] = len(frames)
                frames.append(dict(value["data"]))
    for part in spec["graph"]:
        for nid, value in part.items():
            for child in value.get("children", []):
                if str(child) not in ids:
                    raise ParseError(
                        name,
                        "children that are nodes of the graph",
                        position=f"node {nid}",
                        found=f"child {child}",
                    )
                src.append(ids[str(nid)])
                dst.append(ids[str(child)])
    df = pd.DataFrame(spec["dataframe"])
    if "node" not in df.columns:
        raise ParseError(
            name, "dataframe records with a 'node' field", found=f"fields {list(df.columns)}"
        )
    unknown = set(map(str, df["node"])) - ids.keys()
    if unknown:
        raise ParseError(
            name, "dataframe rows for nodes of the graph", found=f"node {sorted(unknown)[0]}"
        )
    df["node"] = [ids[str(n)] for n in df["node"]]
    extra = [lvl for lvl in spec["dataframe_indices"] if lvl not in ("node", "rank", "thread")]
    if extra:
        raise ParseError(name, "index levels among node, rank, thread", found=str(extra))
    return build_graphframe(
        frames,
        df,
        edges=(src, dst),
        exc_metrics=spec["exclusive_metrics"],
        inc_metrics=spec["inclusive_metrics"],
        default_metric=spec.get("default_metric"),
        path=name,
        units=spec.get("units"),
    )


def _check_shape(spec: dict, name: str) -> None:
    """The sections have the JSON types the format gives them, else ParseError naming one."""
    graph = spec["graph"]
    if not isinstance(graph, list) or not all(isinstance(part, dict) for part in graph):
        raise ParseError(name, "'graph' as a list of {id: node} objects", found=graph)
    for part in graph:
        for nid, value in part.items():
            children = value.get("children", []) if isinstance(value, dict) else None
            if (
                not isinstance(value, dict)
                or not isinstance(value.get("data"), dict)
                or not isinstance(children, list)
                or not all(isinstance(c, (int, str)) for c in children)
            ):
                raise ParseError(
                    name,
                    "a node object with a 'data' object and a 'children' list of ids",
                    position=f"node {nid}",
                    found=value,
                )
    rows = spec["dataframe"]
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ParseError(name, "'dataframe' as a list of record objects", found=rows)
    for key in ("dataframe_indices", "exclusive_metrics", "inclusive_metrics"):
        value = spec[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ParseError(name, f"{key!r} as a list of names", found=value)
    units = spec.get("units", {})  # perfweave's key: metric -> unit
    if not isinstance(units, dict) or not all(isinstance(u, str) for u in units.values()):
        raise ParseError(name, "'units' as an object of metric: unit text", found=units)
    default = spec.get("default_metric")  # perfweave's key: a metric column
    metrics = spec["exclusive_metrics"] + spec["inclusive_metrics"]
    if default is not None and default not in metrics:
        raise ParseError(name, f"'default_metric' among the metrics {metrics}", found=default)
