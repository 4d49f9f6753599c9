"""pyinstrument's JSON profile (``pyinstrument -r json``): one nested ``root_frame`` tree.

Every frame dict is a node (siblings are never merged, as in Hatchet). pyinstrument's
``time`` is inclusive; the exclusive ``time`` column is a node's time minus its children's.
The profile's top-level fields (program, duration, sample_count ...) become metadata.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers._common import is_int64, load_json, sniff_json_keys
from perfweave.errors import ParseError

_REQUIRED = ("function", "time")


def sniff(path: Path) -> bool:
    return sniff_json_keys(path, '"root_frame"')


def read(source: Any, **_: Any):
    """Read a pyinstrument JSON file (path, JSON text or parsed dict)."""
    obj, name = load_json(source, "pyinstrument JSON")
    if not isinstance(obj, dict) or not isinstance(obj.get("root_frame"), dict):
        raise ParseError(
            name,
            "a pyinstrument profile with a 'root_frame' object",
            found=type(obj).__name__ if not isinstance(obj, dict) else f"keys {sorted(obj)[:8]}",
        )
    names: list[str] = []
    files: list[Any] = []
    lines: list[Any] = []
    inc: list[float] = []
    app: list[Any] = []
    parent: list[int] = []
    stack: list[tuple[Any, int, str]] = [(obj["root_frame"], -1, "root_frame")]
    while stack:
        frame, up, where = stack.pop()
        if not isinstance(frame, dict) or any(k not in frame for k in _REQUIRED):
            raise ParseError(
                name,
                "a frame object with 'function' and 'time'",
                position=where,
                found=frame,
            )
        try:
            t = float(frame["time"])
        except (TypeError, ValueError) as exc:
            raise ParseError(
                name, "a numeric 'time'", position=where, found=repr(frame["time"])
            ) from exc
        if not math.isfinite(t):
            raise ParseError(name, "a finite 'time'", position=where, found=repr(frame["time"]))
        line = frame.get("line_no")
        if line is not None and (not is_int64(line) or line < 0):
            raise ParseError(name, "an integer 'line_no'", position=where, found=repr(line)[:40])
        me = len(names)
        names.append(str(frame["function"]))
        files.append(frame.get("file_path_short", frame.get("file_path")))
        lines.append(line)
        inc.append(t)
        app.append(frame.get("is_application_code"))
        parent.append(up)
        children = frame.get("children") or []
        if not isinstance(children, list):
            raise ParseError(
                name, "'children' as a list", position=where, found=type(children).__name__
            )
        for j in range(len(children) - 1, -1, -1):
            stack.append((children[j], me, f"{where}.children[{j}]"))

    par = np.asarray(parent, dtype=np.int64)
    inclusive = np.asarray(inc, dtype=float)
    child_sum = np.zeros(len(inclusive))
    has = par >= 0
    np.add.at(child_sum, par[has], inclusive[has])
    n = len(names)
    data = pd.DataFrame(
        {
            "node": np.arange(n, dtype=np.int64),
            "name": names,
            "file": files,
            "line": lines,
            "time": inclusive - child_sum,
            "time (inc)": inclusive,
            "is_application_code": app,
        }
    )
    if data["line"].notna().all():
        data["line"] = data["line"].astype(np.int64)
    metadata = {k: v for k, v in obj.items() if k != "root_frame"}
    return build_graphframe(
        pd.DataFrame({"name": names, "type": "function"}),
        data,
        parent=par,
        exc_metrics=["time"],
        inc_metrics=["time (inc)"],
        default_metric="time",
        units={"time": "s", "time (inc)": "s"},  # pyinstrument's times are seconds
        metadata=metadata,
        path=name,
    )
