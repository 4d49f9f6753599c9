"""Integer fields of count files, checked before anything is sized from them.

Every number the count readers take from a file (a rank, a call id, ``Number of ranks``,
``Comm size``, a datatype size) goes through :func:`read_uint`, so a 10,000-digit number,
``1e400`` or a value beyond int64 is a :class:`~perfweave.errors.ParseError` naming the
file, line and value, never an ``OverflowError`` or a 30 GiB allocation.
"""

from __future__ import annotations

from perfweave.errors import ParseError

#: most ranks a communicator (or items a rank list) may have: 2**24 = 16,777,216, above
#: the largest MPI jobs run so far (Fugaku: 7.6 M cores); one int64 per rank is 128 MiB
MAX_RANKS = 1 << 24
#: most calls one count file may list: 2**26 = 67,108,864 (an int64 per call is 512 MiB)
MAX_CALLS = 1 << 26
#: largest datatype size in bytes (MPI sizes are C ints)
MAX_DATATYPE_SIZE = (1 << 31) - 1
#: largest rank or call id: below 2**62, so ``id + 1`` and differences stay in int64
MAX_ID = (1 << 62) - 1
_MAX_DIGITS = 19  # int64's own width; longer numbers are refused without converting them


def read_uint(
    text: str,
    *,
    path: str | None,
    line: int | None,
    expected: str,
    maximum: int = MAX_ID,
    minimum: int = 0,
    found: str | None = None,
) -> int:
    """``text`` (ASCII digits) as an int in ``[minimum, maximum]``, or a ParseError.

    ``expected`` describes the field; the bounds are added to it when a value is out of
    range. ``found`` is what the error quotes (default: ``text``).
    """
    value = text.strip()
    if not (value.isascii() and value.isdigit()):
        raise ParseError(path, expected, line=line, found=text if found is None else found)
    digits = value.lstrip("0") or "0"
    if len(digits) > _MAX_DIGITS or not minimum <= int(digits) <= maximum:
        raise ParseError(
            path,
            f"{expected} with a value from {minimum:,} to {maximum:,}",
            line=line,
            found=text if found is None else found,
        )
    return int(digits)
