"""Hatchet's literal format: a list of root dicts with frame, metrics and children.

A node dict repeated under several parents (same ``_hatchet_nid`` in its metrics) is one
node of a DAG. Metrics whose name contains ``(inc)`` are inclusive, the others exclusive.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers._common import file_ends, load_json, sniff_json_keys
from perfweave.errors import ParseError

# a list whose first node starts with its frame object (perfweave's literal writer):
# known from the first bytes however long the first name or frame is
_FRAME_FIRST = re.compile(rb'\s*\[\s*\{\s*"frame"\s*:\s*\{')


def sniff(path: Path) -> bool:
    """A JSON list whose first node starts with ``"frame": {``, or whose first 4 KiB hold
    ``"frame"`` and ``"metrics"`` (Hatchet writes ``name`` first) and no Hatchet JSON key."""
    head, _ = file_ends(path)
    if _FRAME_FIRST.match(head):
        return True
    return sniff_json_keys(path, '"frame"', '"metrics"') and not sniff_json_keys(
        path, '"dataframe_indices"'
    )


def read(source: Any, **_: Any):
    roots, name = load_json(source, "Hatchet literal")
    if not isinstance(roots, list) or not roots:
        raise ParseError(name, "a non-empty list of root node dicts", found=type(roots).__name__)
    frames: list[dict] = []
    rows: list[dict] = []
    src: list[int] = []
    dst: list[int] = []
    by_nid: dict[Any, int] = {}
    metric_names: dict[str, None] = {}
    stack: list[tuple[Any, int, str]] = [
        (r, -1, f"[{i}]") for i, r in reversed(list(enumerate(roots)))
    ]
    while stack:
        entry, parent, where = stack.pop()
        if not isinstance(entry, dict) or not isinstance(
            entry.get("frame", entry.get("name")), (dict, str)
        ):
            raise ParseError(
                name,
                "a node dict with a 'frame' dict",
                position=f"node {where}",
                found=entry,
            )
        metrics = entry.get("metrics", {}) or {}
        nid = metrics.get("_hatchet_nid")
        if nid is not None and nid in by_nid:
            me = by_nid[nid]
        else:
            me = len(frames)
            frame = (
                dict(entry["frame"])
                if isinstance(entry.get("frame"), dict)
                else {"name": entry["name"]}
            )
            attributes = entry.get("attributes", {}) or {}
            _check_node(frame, metrics, attributes, name, where)
            frames.append(frame)
            row = {"node": me, "name": frame.get("name") or entry.get("name")}
            for k, v in metrics.items():
                if k != "_hatchet_nid":
                    row[k] = v
                    metric_names.setdefault(k)
            row.update(attributes)
            rows.append(row)
            if nid is not None:
                by_nid[nid] = me
            for j, child in reversed(list(enumerate(entry.get("children", []) or []))):
                stack.append((child, me, f"{where}.children[{j}]"))
        if parent >= 0:
            src.append(parent)
            dst.append(me)
    inc = [m for m in metric_names if "(inc)" in m]
    exc = [m for m in metric_names if "(inc)" not in m]
    default = "time" if "time" in metric_names else None
    return build_graphframe(
        frames,
        pd.DataFrame(rows),
        edges=(src, dst),
        exc_metrics=exc,
        inc_metrics=inc,
        default_metric=default,
        path=name,
    )


_SCALARS = (str, int, float, bool, type(None))


def _check_node(frame: dict, metrics: Any, attributes: Any, name: str, where: str) -> None:
    """Frame and attribute values are scalars, metrics finite numbers; else ParseError."""
    if not isinstance(metrics, dict) or not isinstance(attributes, dict):
        raise ParseError(
            name, "'metrics' and 'attributes' objects", position=f"node {where}", found=metrics
        )
    for part, values in (("frame", frame), ("attributes", attributes)):
        for key, value in values.items():
            if not isinstance(value, _SCALARS):
                raise ParseError(
                    name,
                    f"a text or number as {part} value {key!r}",
                    position=f"node {where}",
                    found=value,
                )
    for key, value in metrics.items():
        if key == "_hatchet_nid":
            continue
        ok = type(value) in (int, float) and math.isfinite(value) or value is None
        if not ok:
            raise ParseError(
                name, f"a finite number as metric {key!r}", position=f"node {where}", found=value
            )
