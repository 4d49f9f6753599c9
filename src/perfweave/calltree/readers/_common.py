"""Small helpers shared by the readers: loading JSON with positions in errors."""

from __future__ import annotations

import json
from os import PathLike
from pathlib import Path
from typing import Any

from perfweave.errors import ParseError

# Caliper attribute names -> the column names every perfweave/Hatchet reader uses
# (shared by the json-split and the native .cali readers)
CALIPER_RENAMES = {
    "mpi.rank": "rank",
    "module#cali.sampler.pc": "module",
    "sum#time.duration": "time",
    "sum#avg#sum#time.duration": "time",
    "inclusive#sum#time.duration": "time (inc)",
    "sum#avg#inclusive#sum#time.duration": "time (inc)",
}


def load_json(source: str | PathLike[str] | Any, what: str) -> tuple[Any, str]:
    """Parse JSON from a path, a JSON string or an already-parsed object.

    Returns (object, name used in errors). Malformed or truncated JSON raises ParseError
    with the line and column where parsing stopped.
    """
    if isinstance(source, (dict, list)):
        return source, "<object>"
    text, name = None, "<string>"
    if isinstance(source, PathLike) or (
        isinstance(source, str) and not source.lstrip().startswith(("{", "["))
    ):
        p = Path(source)
        name = str(p)
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except IsADirectoryError as exc:
            raise ParseError(p, f"a {what} file", found="a directory") from exc
    else:
        text = source
    try:
        return json.loads(text), name
    except json.JSONDecodeError as exc:
        raise ParseError(
            name,
            f"valid JSON ({what})",
            line=exc.lineno,
            position=f"column {exc.colno}",
            found=exc.msg,
        ) from exc


def sniff_json_keys(path: Path, *needles: str, size: int = 4096) -> bool:
    """True when ``path`` is a file whose first bytes look like JSON holding all ``needles``."""
    if not path.is_file():
        return False
    with open(path, "rb") as f:
        head = f.read(size).lstrip()
    if head[:1] not in (b"{", b"["):
        return False
    return all(n.encode() in head for n in needles)
