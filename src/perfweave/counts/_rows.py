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


def parse_count_text(text: str) -> np.ndarray | None:
    """All whitespace-separated non-negative integers of ``text``; None if any is not one."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            values = np.fromstring(text, dtype=np.int64, sep=" ")
        except (ValueError, DeprecationWarning):
            return None
    if values.size and int(values.min()) < 0:
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
    values = parse_count_text(" ".join(rows))
    if values is not None and values.size == n * width and _rows_regular(rows, width):
        return values.reshape(n, width)
    _diagnose(rows, width, path=path, first_line=first_line, expected=expected)
    assert values is not None  # _diagnose raises whenever something is wrong
    return values.reshape(n, width)


def _rows_regular(rows: Sequence[str], width: int) -> bool:
    """Cheap per-row width check: single spaces between the counts of every row."""
    want = width - 1
    return all(r.count(" ") - (r[:1] == " ") - (r[-1:] == " ") == want for r in rows)


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
