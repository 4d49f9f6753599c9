"""Turning lines of whitespace-separated counts into an int64 matrix, fast and checked.

The fast path hands all the text of a block to numpy's C parser in one call; only when
that fails (or the count of numbers does not add up) does a slow pass look for the first
offending line, so the error names the file, the line and what was expected.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from perfweave.errors import ParseError


def parse_count_text(text: str, *, allow_marks: bool = False) -> np.ndarray | None:
    """All whitespace-separated integers of ``text``; None if any is not one, or (unless
    ``allow_marks``, for the caller's -1 row marks) if any is negative."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            values = np.fromstring(text, dtype=np.int64, sep=" ")
        except (ValueError, DeprecationWarning):
            return None
    if not allow_marks and values.size and int(values.min()) < 0:
        return None
    return values


def rows_to_matrix(
    rows: Sequence[str],
    width: int | None,
    *,
    path: str,
    first_line: int | Sequence[int],
    expected: str,
) -> np.ndarray:
    """Parse ``rows`` (count text only) into a ``(len(rows), width)`` int64 matrix.

    ``width=None`` takes the width of the first row. ``first_line`` is the file line of
    ``rows[0]`` (rows are consecutive lines) or the line of every row. ``expected``
    describes the width in the error message (e.g. ``"4 counts (Number of ranks: 4)"``).
    """
    n = len(rows)
    if width is None:
        width = len(rows[0].split()) if n else 0
    # a -1 after every row marks where rows end, so one C-level parse also checks widths
    values = parse_count_text(" -1 ".join(rows) + " -1", allow_marks=True)
    if values is not None and values.size == n * (width + 1):
        table = values.reshape(n, width + 1)
        if bool((table[:, width] == -1).all()) and not bool((table[:, :width] < 0).any()):
            return table[:, :width]
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
    """Raise a ParseError for the first row that is not ``width`` non-negative integers."""
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
        if len(tokens) != width:
            raise ParseError(
                path, expected, line=_line_of(first_line, i), found=f"{len(tokens)} counts"
            )
