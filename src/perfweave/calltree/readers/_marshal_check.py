"""A length check of Python marshal data before ``marshal.loads`` reads it.

``marshal`` trusts the lengths in its data: a tuple, list, set or dict declared with
1,500,000,000 items is allocated (and freed, item by item) in C before the data runs out,
which takes minutes and cannot be interrupted. :func:`check_lengths` walks the data without
building anything and refuses a length that exceeds the bytes left (every item takes at
least one byte), so what ``marshal.loads`` then allocates is bounded by the file size.

Only the types a pstats file holds are accepted: dicts, tuples, strings, ints, floats,
None/booleans and back-references. A code object (the ``profile`` module's keys) ends the
walk: its layout depends on the Python version, and ``marshal`` reads the rest.
"""

from __future__ import annotations

from os import PathLike

from perfweave.errors import ParseError

EXPECTED = "a pstats file (Python marshal data, no length past its end)"

_FLAG_REF = 0x80
_FIXED = {"N": 0, "F": 0, "T": 0, "S": 0, ".": 0, "i": 4, "g": 8, "y": 16, "r": 4}
_SIZED4 = set("sutaA")  # 4-byte length, then that many bytes
_SIZED1 = set("zZf")  # 1-byte length, then that many bytes
_SEQ4 = set("([<>")  # 4-byte item count


def check_lengths(blob: bytes, path: str | PathLike[str] | None = None) -> None:
    """Raise a ParseError naming ``path``, the offset and what was found where ``blob``
    declares more than it holds."""
    pos, end = 0, len(blob)

    def refuse(at: int, found: str) -> ParseError:
        return ParseError(path, EXPECTED, position=at, found=found)

    pending = [1]  # items still to read in each open container (-1: a dict, until '0')

    def count(size: int) -> int:
        nonlocal pos
        if pos + size > end:
            raise refuse(pos, "the end of the data")
        value = int.from_bytes(blob[pos : pos + size], "little", signed=size == 4)
        pos += size
        return value

    while pending:
        if pending[-1] == 0:
            pending.pop()
            continue
        if pos >= end:
            raise refuse(pos, "the end of the data")
        at, code = pos, chr(blob[pos] & ~_FLAG_REF)
        pos += 1
        if code == "0":  # the end of a dict
            if pending[-1] != -1:
                raise refuse(at, "a dict end outside a dict")
            pending.pop()
            continue
        if pending[-1] > 0:
            pending[-1] -= 1
        left = end - pos
        if code in _FIXED:
            if _FIXED[code] > left:
                raise refuse(pos, "the end of the data")
            pos += _FIXED[code]
        elif code in _SIZED4 or code in _SIZED1:
            n = count(4 if code in _SIZED4 else 1)
            if not 0 <= n <= end - pos:
                raise refuse(at, f"a string of {n} bytes, {end - pos} left")
            pos += n
        elif code == "l":
            n = abs(count(4))
            if 2 * n > end - pos:
                raise refuse(at, f"an integer of {n} digits, {end - pos} bytes left")
            pos += 2 * n
        elif code in _SEQ4 or code == ")":
            n = count(1 if code == ")" else 4)
            if not 0 <= n <= end - pos:
                raise refuse(at, f"{n} items declared, {end - pos} bytes left")
            pending.append(n)
        elif code == "{":
            pending.append(-1)
        elif code == "c":
            return  # a code object: marshal reads the rest (see the module docstring)
        else:
            raise refuse(at, f"marshal type code {code!r}")
