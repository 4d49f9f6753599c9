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

_FLAG_REF = 0x80
_FIXED = {"N": 0, "F": 0, "T": 0, "S": 0, ".": 0, "i": 4, "g": 8, "y": 16, "r": 4}
_SIZED4 = set("sutaA")  # 4-byte length, then that many bytes
_SIZED1 = set("zZf")  # 1-byte length, then that many bytes
_SEQ4 = set("([<>")  # 4-byte item count


def check_lengths(blob: bytes) -> None:
    """Raise ValueError (offset and what) where ``blob`` declares more than it holds."""
    pos, end = 0, len(blob)
    pending = [1]  # items still to read in each open container (-1: a dict, until '0')

    def count(size: int) -> int:
        nonlocal pos
        if pos + size > end:
            raise ValueError(f"marshal data cut at offset {pos}")
        value = int.from_bytes(blob[pos : pos + size], "little", signed=size == 4)
        pos += size
        return value

    while pending:
        if pending[-1] == 0:
            pending.pop()
            continue
        if pos >= end:
            raise ValueError(f"marshal data cut at offset {pos}")
        at, code = pos, chr(blob[pos] & ~_FLAG_REF)
        pos += 1
        if code == "0":  # the end of a dict
            if pending[-1] != -1:
                raise ValueError(f"a dict end outside a dict at offset {at}")
            pending.pop()
            continue
        if pending[-1] > 0:
            pending[-1] -= 1
        left = end - pos
        if code in _FIXED:
            if _FIXED[code] > left:
                raise ValueError(f"marshal data cut at offset {pos}")
            pos += _FIXED[code]
        elif code in _SIZED4 or code in _SIZED1:
            n = count(4 if code in _SIZED4 else 1)
            if not 0 <= n <= end - pos:
                raise ValueError(f"a string of {n} bytes at offset {at}, {end - pos} left")
            pos += n
        elif code == "l":
            n = abs(count(4))
            if 2 * n > end - pos:
                raise ValueError(f"an integer of {n} digits at offset {at}, {end - pos} left")
            pos += 2 * n
        elif code in _SEQ4 or code == ")":
            n = count(1 if code == ")" else 4)
            if not 0 <= n <= end - pos:
                raise ValueError(f"{n} items declared at offset {at}, {end - pos} bytes left")
            pending.append(n)
        elif code == "{":
            pending.append(-1)
        elif code == "c":
            return  # a code object: marshal reads the rest (see the module docstring)
        else:
            raise ValueError(f"marshal type code {code!r} at offset {at}")
