"""Small helpers shared by the readers: loading JSON with positions in errors."""

from __future__ import annotations

import math
from os import PathLike
from pathlib import Path
from typing import Any

from perfweave.calltree import deepjson
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

# the unit names tools write (Caliper's attribute.unit, Cube's, HPCToolkit's, timemory's
# unit_repr) -> perfweave's, as views write units
UNIT_WORDS = {
    "sec": "s", "s": "s", "second": "s", "seconds": "s",
    "msec": "ms", "ms": "ms", "usec": "µs", "us": "µs", "nsec": "ns", "ns": "ns",
    "byte": "B", "bytes": "B", "B": "B",
}  # fmt: skip


def unit_word(name: str) -> str:
    """A tool's unit name as perfweave writes it (``sec`` -> ``s``, ``usec`` -> ``µs``,
    ``bytes`` -> ``B``); a name it does not know, as it is."""
    name = name.strip()
    return UNIT_WORDS.get(name, UNIT_WORDS.get(name.lower(), name))


# Caliper's timer attributes and their units (with or without aggregation operators)
_CALIPER_TIMERS = {
    "time.duration": "s",
    "time.inclusive.duration": "s",
    "time.duration.ns": "ns",
    "time.inclusive.duration.ns": "ns",
}
# aggregation operators that keep a value's unit (``avg#inclusive#sum#time.duration``)
_SAME_UNIT_OPS = frozenset({"sum", "min", "max", "avg", "inclusive"})


def caliper_unit(attribute: str, declared: Any = None, whole: bool = False) -> str:
    """The unit of a Caliper attribute: its ``attribute.unit`` metadata where the file
    has it (``sec`` -> ``s``, ``nsec`` -> ``ns``), else what the timer's name says for
    ``time.duration`` and the aggregates of it that keep its unit (``sum#time.duration``,
    ``avg#inclusive#sum#time.duration``; not ``percent_total#...`` or ``count``); ``""``
    when neither says.

    Caliper's timer wrote ``time.duration`` as whole microseconds before it wrote
    seconds as a double (hatchet's cpi and lulesh JSON profiles: a 5 ms sample reads
    ``5007``): ``whole`` (an integer attribute type, or only whole values in a file
    without types) makes it ``µs``, else ``s``."""
    if isinstance(declared, str) and declared.strip():
        return unit_word(declared)
    *ops, base = str(attribute).split("#")
    if base in _CALIPER_TIMERS and all(op in _SAME_UNIT_OPS for op in ops):
        unit = _CALIPER_TIMERS[base]
        return "µs" if whole and unit == "s" else unit
    return ""


#: largest (node x rank) grid a reader fills with zero rows for absent records: 2**27
#: cells (128 MiB of flags, more in rows); a file declaring more ranks than that is refused
MAX_FILL_CELLS = 1 << 27
#: MPI ranks are C ints
MAX_RANK = 2**31 - 1


def check_rank_grid(n_nodes: int, ranks: Any, path: Any) -> None:
    """Refuse a rank numbering whose dense (node, rank 0..max) grid is too large to fill.

    Readers give every node a row for every rank ``0..max``; the size that implies is
    checked against :data:`MAX_FILL_CELLS` before anything is allocated, so one record
    with ``mpi.rank`` 4000000000 ends in a ParseError, not an out-of-memory kill.
    """
    import numpy as np

    r = np.asarray(ranks)
    if not len(r):
        return
    top = int(r.max())
    if top > MAX_RANK:
        raise ParseError(path, f"MPI ranks up to {MAX_RANK}", found=f"rank {top}")
    cells = n_nodes * (top + 1)
    if cells > MAX_FILL_CELLS:
        distinct = len(np.unique(r))
        raise ParseError(
            path,
            f"at most {MAX_FILL_CELLS} (node, rank) rows to fill",
            found=f"ranks 0..{top} ({distinct} with records) for {n_nodes} nodes: {cells} rows",
        )


def node_order_key(n: int, node: Any, order: Any, *, by_appearance: bool = True) -> Any:
    """Sibling order key of ``n`` nodes from Caliper's node-order attribute.

    ``node`` is the node of each record and ``order`` (float, NaN where a record holds
    none) its node-order value; a node's key is the smallest value of its records. Nodes
    without one sort after all that have one: in first appearance (``by_appearance``), or
    all tied.
    """
    import numpy as np

    key = np.full(n, np.iinfo(np.int64).max // 2, np.int64)
    if by_appearance:
        key += np.arange(n, dtype=np.int64)
    ok = ~np.isnan(order)
    np.minimum.at(key, np.asarray(node)[ok], order[ok].astype(np.int64))
    return key


def read_input(path: str | PathLike[str], what: str) -> bytes:
    """The bytes of the file ``path``; ParseError when it is a directory, not a file."""
    p = Path(path)
    try:
        return p.read_bytes()
    except IsADirectoryError as exc:
        raise ParseError(p, f"a {what} file", found="a directory") from exc


def read_text(path: str | PathLike[str], what: str) -> str:
    """The text of the file ``path`` (UTF-8, undecodable bytes replaced, universal
    newlines); ParseError when it is a directory, not a file."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8", errors="replace")
    except IsADirectoryError as exc:
        raise ParseError(p, f"a {what} file", found="a directory") from exc


def load_json(source: str | PathLike[str] | Any, what: str) -> tuple[Any, str]:
    """Parse JSON from a path, a JSON string or an already-parsed object.

    Returns (object, name used in errors). Malformed or truncated JSON raises ParseError
    with the line and column where parsing stopped; nesting of any depth is read (see
    :mod:`perfweave.calltree.deepjson`); an integer too long for Python to convert
    (over 4,300 digits) is a ParseError too.
    """
    if isinstance(source, (dict, list)):
        return source, "<object>"
    text, name = None, "<string>"
    if isinstance(source, PathLike) or (
        isinstance(source, str) and not source.lstrip().startswith(("{", "["))
    ):
        name = str(Path(source))
        text = read_text(source, what)
    else:
        text = source
    return deepjson.parse(text, name, f"valid JSON ({what})"), name


def is_int64(value: object) -> bool:
    """Whether ``value`` is a Python ``int`` (not a bool) that fits int64."""
    return type(value) is int and -(2**63) <= value < 2**63


def to_int(text: str, path: Any, what: str, *, line: int | None = None) -> int:
    """``int(text)`` for a count, id or rank of a file, or ParseError naming the value.

    Refuses (ParseError) what is not a plain integer and integers outside int64: every
    integer perfweave reads ends in an int64 numpy column.
    """
    try:
        value = int(text)
    except (TypeError, ValueError, OverflowError):
        shown = (
            str(text) if len(str(text)) <= 40 else f"{str(text)[:37]}... ({len(str(text))} chars)"
        )
        raise ParseError(path, what, line=line, found=shown) from None
    if not is_int64(value):
        raise ParseError(path, f"{what} within int64", line=line, found=str(value))
    return value


def finite(value: float, path: Any, what: str, **where: Any) -> float:
    """``value`` if it is a finite number, else ParseError naming it and ``where``."""
    if not math.isfinite(value):
        raise ParseError(path, f"a finite {what}", found=str(value), **where)
    return value


#: bytes a format's ``sniff`` reads from each end of a file: detection never reads a file
#: whole, whatever its size
SNIFF_BYTES = 4096


def file_ends(path: Path, size: int = SNIFF_BYTES) -> tuple[bytes, bytes]:
    """The first and the last ``size`` bytes of the file ``path`` (overlapping when it is
    shorter than ``2 * size``); two empty strings when it is not a regular file."""
    if not path.is_file():
        return b"", b""
    with open(path, "rb") as f:
        head = f.read(size)
        if len(head) < size:
            return head, head
        f.seek(0, 2)
        f.seek(max(0, f.tell() - size))
        return head, f.read(size)


def sniff_json_keys(path: Path, *needles: str, size: int = SNIFF_BYTES) -> bool:
    """True when ``path`` is a file whose first bytes look like JSON holding all ``needles``."""
    if not path.is_file():
        return False
    with open(path, "rb") as f:
        head = f.read(size).lstrip()
    if head[:1] not in (b"{", b"["):
        return False
    return all(n.encode() in head for n in needles)
