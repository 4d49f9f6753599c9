"""Turning lines of whitespace-separated counts into an int64 matrix, fast and checked.

The fast path reads the ASCII bytes of a block with numpy, in chunks of whole lines (see
:func:`block_to_matrix` and :func:`_digit_runs`): digit runs are valued by doubling
windows, a few short passes per doubling in the narrowest dtype that holds it, and
counted per line to check row widths.
Anything unusual (a byte other than digits, spaces and newlines; a number of more than 16
digits) goes to numpy's C parser instead, and only when that fails (or the counts do not
add up) does a slow pass look for the first offending line, so the error names the file,
the line and what was expected.
"""

from __future__ import annotations

import mmap
import warnings
from collections.abc import Sequence

import numpy as np

from perfweave.errors import ParseError

# digit runs of up to 2**_MAX_DOUBLINGS digits are valued exactly; longer ones take the C parser
_MAX_DOUBLINGS = 4
# values below 10**w fit: after the doubling to width w, the dtype that holds them
_WINDOW_DTYPE = {1: np.uint8, 2: np.uint8, 4: np.uint16, 8: np.uint32, 16: np.uint64}
_INT64_MAX = int(np.iinfo(np.int64).max)
# bytes of count text parsed at a time (temporaries of a few times this size)
_CHUNK_BYTES = 1 << 18


def _digit_runs(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Values and last-byte offsets of the digit runs of the ASCII bytes ``raw`` (uint8),
    and the offsets of its newlines.

    None if ``raw`` holds a byte other than an ASCII digit, space or newline, or a run of
    more than 16 digits. Values come in the narrowest unsigned dtype that holds them. They
    are built without a per-byte int64 array: ``value[i]`` is the number formed by the
    digits of the run ending at ``i`` that lie in the window of the last ``w`` bytes, and
    doubling ``w`` adds the window ``w`` bytes back (times ``10**w``) wherever the current
    window is all digits: a few short passes per doubling, and only as many doublings as
    the longest run needs (one for counts below 100, two below 10,000).
    """
    if raw.size == 0:
        empty = np.zeros(0, dtype=np.intp)
        return np.zeros(0, dtype=np.uint8), empty, empty
    value = raw - np.uint8(ord("0"))  # digits 0-9; every other byte wraps to >= 10
    is_digit = value < 10
    is_newline = raw == ord("\n")
    n_plain = (
        np.count_nonzero(is_digit)
        + np.count_nonzero(raw == ord(" "))
        + np.count_nonzero(is_newline)
    )
    if int(n_plain) != raw.size:
        return None
    np.multiply(value, is_digit, out=value)  # 0 on separators
    full = is_digit  # window of the last w bytes is all digits
    w = 1
    while bool((full[w:] & is_digit[:-w]).any()):  # a run longer than w digits
        if w == 2**_MAX_DOUBLINGS:
            return None
        wider = _WINDOW_DTYPE[2 * w]
        if value.dtype != wider:
            value = value.astype(wider)
        carry = full[w:] * value[:-w]
        carry *= wider(10**w)
        value[w:] += carry
        doubled = np.zeros(raw.size, dtype=bool)
        np.logical_and(full[w:], full[:-w], out=doubled[w:])
        full = doubled
        w *= 2
    run_end = np.empty(raw.size, dtype=bool)
    np.greater(is_digit[:-1], is_digit[1:], out=run_end[:-1])
    run_end[-1] = is_digit[-1]
    ends = np.flatnonzero(run_end)
    return value[ends], ends, np.flatnonzero(is_newline)


def block_to_matrix(
    data: bytes | mmap.mmap, start: int, stop: int, n_rows: int, width: int
) -> np.ndarray | None:
    """``data[start:stop]`` as a new ``(n_rows, width)`` int64 matrix, if it is ``n_rows``
    lines (newline-separated, none after the last) of ``width`` decimal counts separated by
    spaces; otherwise None (the caller then takes the general path that names the line).

    The bytes go through :func:`_digit_runs` in chunks of whole lines of about
    ``_CHUNK_BYTES``: the byte-sized temporaries then stay in the CPU cache and are reused
    from chunk to chunk instead of being mapped afresh for every block (on a loaded
    machine page faults cost as much as the parsing). Sizes that the bytes cannot hold (each
    count takes a digit and a separator) are declined before the matrix is allocated.
    """
    if stop - start < 2 * n_rows * width - 1:
        return None
    out = np.empty((n_rows, width), dtype=np.int64)
    every = np.frombuffer(data, dtype=np.uint8)
    row = 0
    while True:
        cut = data.find(b"\n", start + _CHUNK_BYTES, stop)
        cut = stop if cut < 0 else cut
        runs = _digit_runs(every[start:cut])
        if runs is None:
            return None
        values, ends, newlines = runs
        k = newlines.size + 1  # lines in this chunk
        if row + k > n_rows or values.size != k * width:
            return None
        line_end = np.append(newlines, cut - start)
        if bool((np.diff(np.searchsorted(ends, line_end), prepend=0) != width).any()):
            return None
        out[row : row + k] = values.reshape(k, width)
        row += k
        if cut == stop:
            return out if row == n_rows else None
        start = cut + 1


def parse_count_text(text: str, *, allow_marks: bool = False) -> np.ndarray | None:
    """All whitespace-separated integers of ``text`` (numpy's C parser); None if any is not
    one, or (unless ``allow_marks``, for the caller's -1 row marks) if any is negative."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            values = np.fromstring(text, dtype=np.int64, sep=" ")
        except (ValueError, DeprecationWarning):
            return None
    if not allow_marks and values.size and int(values.min()) < 0:
        return None
    return values


def ascii_bytes(text: str) -> bytes | None:
    """``text`` as ASCII bytes, or None if it is not ASCII (so not plain count text)."""
    try:
        return text.encode("ascii")
    except UnicodeEncodeError:
        return None


def rows_to_matrix(
    rows: Sequence[str],
    width: int | None,
    *,
    path: str,
    first_line: int | Sequence[int],
    expected: str,
) -> np.ndarray:
    """Parse ``rows`` (count text only) into a new ``(len(rows), width)`` int64 matrix.

    ``width=None`` takes the width of the first row. ``first_line`` is the file line of
    ``rows[0]`` (rows are consecutive lines) or the line of every row. ``expected``
    describes the width in the error message (e.g. ``"4 counts (Number of ranks: 4)"``).
    """
    n = len(rows)
    if width is None:
        width = len(rows[0].split()) if n else 0
    if n == 0:
        return np.zeros((0, width), dtype=np.int64)
    data = ascii_bytes("\n".join(rows))
    matrix = None if data is None else block_to_matrix(data, 0, len(data), n, width)
    if matrix is not None:
        return matrix
    # numpy's C parser; a -1 after every row marks where rows end, so it checks widths too
    values = parse_count_text(" -1 ".join(rows) + " -1", allow_marks=True)
    if values is not None and values.size == n * (width + 1):
        table = values.reshape(n, width + 1)
        if bool((table[:, width] == -1).all()) and not bool((table[:, :width] < 0).any()):
            matrix = np.ascontiguousarray(table[:, :width])
            if bool((matrix == _INT64_MAX).any()):  # numpy's parser saturates on overflow
                _diagnose(rows, width, path=path, first_line=first_line, expected=expected)
            return matrix
    _diagnose(rows, width, path=path, first_line=first_line, expected=expected)
    raise AssertionError("unreachable: _diagnose raises on any malformed row")  # pragma: no cover


def _line_of(first_line: int | Sequence[int], i: int) -> int:
    return first_line + i if isinstance(first_line, int) else int(first_line[i])


def _diagnose(
    rows: Sequence[str],
    width: int,
    *,
    path: str,
    first_line: int | Sequence[int],
    expected: str,
) -> None:
    """Raise a ParseError for the first row that is not ``width`` non-negative integers
    (each below 2**63)."""
    for i, row in enumerate(rows):
        tokens = row.split()
        for tok in tokens:
            if not (tok.isascii() and tok.isdigit()):
                raise ParseError(
                    path,
                    "a non-negative integer count",
                    line=_line_of(first_line, i),
                    found=tok,
                )
            digits = tok.lstrip("0") or "0"
            if len(digits) > 19 or int(digits) > _INT64_MAX:
                raise ParseError(
                    path, "a count below 2**63 (int64)", line=_line_of(first_line, i), found=tok
                )
        if len(tokens) != width:
            raise ParseError(
                path, expected, line=_line_of(first_line, i), found=f"{len(tokens)} counts"
            )
