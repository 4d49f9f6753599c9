"""Python cProfile / pstats files: a marshalled dict of per-function statistics.

Each entry is ``(file, line, function) -> (primitive calls, total calls, exclusive time,
inclusive time, {caller: ...})``. Every function is one node; caller -> callee pairs are
the edges, so a function called from several places has several parents (a DAG).
Recursion makes cycles; the edges that close them are left out (see ``_cycles``) and
listed in ``metadata["cycle_edges"]``. Columns follow Hatchet's reader.

Files written by the pure-Python ``profile`` module (``python -m profile -o``) hold one key
whose function is the profiled script's code object rather than a name; that node is named
after the code object's ``co_name`` (``<module>``), as ``pstats`` shows it.
"""

from __future__ import annotations

import marshal
import math
import types
from os import PathLike
from pathlib import Path
from typing import Any

import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers._common import is_int64, read_input
from perfweave.calltree.readers._cycles import back_edges
from perfweave.calltree.readers._marshal_check import check_lengths
from perfweave.errors import FormatError, ParseError

_SUFFIXES = {".pstats", ".prof", ".profile", ".cprof"}
_TUPLE_CODES = {0x28, 0x29, 0xA8, 0xA9}  # '(' / ')' (small tuple), with or without FLAG_REF


def sniff(path: Path) -> bool:
    if not path.is_file():
        return False
    if path.suffix in _SUFFIXES:
        return True
    with open(path, "rb") as f:
        head = f.read(2)
    return len(head) == 2 and head[0] in (0x7B, 0xFB) and head[1] in _TUPLE_CODES


def read(path: str | PathLike[str], **_: Any):
    """Read a pstats file (``cProfile.Profile.dump_stats`` / ``pstats.Stats.dump_stats``)."""
    p = Path(path)
    stats = _load(p)
    keys = list(stats)
    ids = {key: k for k, key in enumerate(keys)}
    rows, src, dst = [], [], []
    names = [_function_name(key) for key in keys]
    for key, value in stats.items():
        where = f"function {names[ids[key]]!r} ({key[0]}:{key[1]})"
        if not (isinstance(value, tuple) and len(value) == 5 and isinstance(value[4], dict)):
            raise ParseError(
                p,
                "statistics (calls, native calls, time, inclusive time, callers)",
                position=where,
                found=value,
            )
        cc, nc, tt, ct, callers = value
        if not _numbers_fit(key[1], cc, nc, tt, ct):
            raise ParseError(
                p,
                "integer line and call counts, finite times (within 64 bits)",
                position=where,
                found=(key[1], cc, nc, tt, ct),
            )
        rows.append(
            {
                "node": ids[key],
                "file": key[0],
                "line": key[1],
                "name": names[ids[key]],
                "numcalls": cc,
                "nativecalls": nc,
                "time (inc)": ct,
                "time": tt,
            }
        )
        for caller in callers:
            if caller not in ids:
                raise ParseError(
                    p, "callers that are profiled functions", position=where, found=repr(caller)
                )
            src.append(ids[caller])
            dst.append(ids[key])
    if not rows:
        raise ParseError(p, "at least one profiled function", found="an empty statistics dict")
    cyc = back_edges(len(keys), src, dst)
    kept = [(s, d) for s, d, c in zip(src, dst, cyc) if not c]
    dropped = [(names[s], names[d]) for s, d, c in zip(src, dst, cyc) if c]
    frames = [{"type": "function", "name": name} for name in names]
    data = pd.DataFrame(rows)
    for col in ("numcalls", "nativecalls", "line"):
        data[col] = data[col].astype("int64")
    for col in ("time (inc)", "time"):
        data[col] = data[col].astype("float64")
    return build_graphframe(
        frames,
        data,
        edges=([s for s, _ in kept], [d for _, d in kept]),
        exc_metrics=["time"],
        inc_metrics=["time (inc)"],
        default_metric="time",
        units={"time": "s", "time (inc)": "s"},  # cProfile times are seconds
        metadata={"cycle_edges": dropped},
        path=p,
    )


def _numbers_fit(line: object, *stats: object) -> bool:
    """Line and call counts are ints of int64, times finite numbers (ints or floats)."""
    if not all(is_int64(v) for v in (line, stats[0], stats[1])):
        return False
    return all((type(v) is float and math.isfinite(v)) or is_int64(v) for v in stats[2:])


def _load(p: Path) -> dict:
    """The statistics dict, checked for shape; clear errors for Python 2 or foreign files."""
    blob = read_input(p, "pstats")
    try:
        check_lengths(blob, p)  # marshal trusts declared lengths (see _marshal_check)
        stats = marshal.loads(blob)
    except (ValueError, EOFError, TypeError) as exc:
        if blob[:2] == b"{(":
            raise FormatError(
                f"{p}: a Python 2 pstats file (its marshal data cannot be read by Python 3); "
                "load it with Python 2 and save it again with pstats.Stats(...).dump_stats"
            ) from exc
        if isinstance(exc, ParseError):  # check_lengths: names the file and the offset
            raise
        raise ParseError(p, "a pstats file (Python marshal data)", found=str(exc)) from exc
    if not isinstance(stats, dict):
        raise ParseError(p, "a pstats statistics dict", found=f"marshalled {type(stats).__name__}")
    for key in stats:
        if not (
            isinstance(key, tuple)
            and len(key) == 3
            and isinstance(key[0], str)
            and isinstance(key[1], int)
            and isinstance(key[2], (str, types.CodeType))
        ):
            raise ParseError(p, "function keys (file, line, name or code object)", found=key)
    return stats


def _function_name(key: tuple) -> str:
    """The function's name; a code object (the ``profile`` module's key) by its ``co_name``."""
    function = key[2]
    return function.co_name if isinstance(function, types.CodeType) else function
