"""Row callables for ``filter``: one vectorised call where it means the same, else per row.

A Hatchet-style predicate ``lambda row: row["time"] > 0.5`` is written for one row, but
most such predicates also work on whole columns. :func:`row_mask` therefore first calls
the predicate once with a :class:`_Columns` view of the table (``row["col"]`` and
``row.col`` are columns, ``row.name`` the row labels). The result is used only when it is
a boolean Series aligned with the rows (or a boolean array of their length) *and* agrees
with per-row calls on a sample of rows (which catches predicates that reduce a column,
``row["time"] > row["time"].mean()``, or use ``~`` on Python bools). Otherwise -- the call
raised (``and``/``or``/``if`` on a Series, ``row["name"].startswith``), returned a scalar
or something else -- the predicate runs per row on light :class:`_Row` objects, and where
those lack what it uses, on the pandas row Series that ``DataFrame.apply`` builds, so the
mask is always the one ``table.apply(predicate, axis=1)`` gives.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd

_SAMPLE = 16  # rows checked per-row against a vectorised result (spread over the table)
_SERIES_ATTRS = frozenset(dir(pd.Series))


class _Unsupported(Exception):
    """The light row cannot do what the predicate asks; use pandas row Series instead."""


class _Columns:
    """The whole table seen as one row whose fields are columns (for one vectorised call)."""

    __slots__ = ("_table",)

    def __init__(self, table: pd.DataFrame) -> None:
        self._table = table

    def __getitem__(self, key: Hashable) -> pd.Series:
        if not isinstance(key, (str, int, float, tuple)) or key not in self._table.columns:
            raise KeyError(key)
        col = self._table[key]
        if not isinstance(col, pd.Series):  # a duplicated column name
            raise KeyError(key)
        return col

    @property
    def name(self) -> pd.Series:
        return pd.Series(self._table.index, index=self._table.index)

    def __getattr__(self, attr: str) -> pd.Series:
        if attr in _SERIES_ATTRS or attr.startswith("_") or attr not in self._table.columns:
            raise AttributeError(attr)
        return self[attr]

    def __bool__(self) -> bool:
        raise TypeError("a column view has no truth value")

    def __len__(self) -> int:
        raise TypeError("a column view has no length")

    def __iter__(self):
        raise TypeError("a column view cannot be iterated")

    def __eq__(self, other: object) -> bool:
        raise TypeError("a column view cannot be compared")

    __hash__ = None  # type: ignore[assignment]


class _LazyColumns(dict):
    """Column -> the column's values as ``apply(axis=1)`` rows hold them, built on first use."""

    def __init__(self, table: pd.DataFrame) -> None:
        super().__init__()
        self._position = {c: i for i, c in enumerate(table.columns)}
        self._values = table.values  # what apply(axis=1) slices its rows from

    def __missing__(self, key: Hashable) -> Any:
        j = self._position[key]  # KeyError for a name that is not a column
        column = self._values[:, j]
        # object columns as lists (their items are the row values); numeric ones stay
        # arrays so an item is the numpy scalar a row Series gives
        self[key] = out = column.tolist() if column.dtype == object else column
        return out


class _Row:
    """One row: ``row["col"]``, ``row.col``, ``row.get``, ``"col" in row``, ``row.name``.

    Values are the ones ``DataFrame.apply(axis=1)`` hands out (same Python/numpy types).
    Anything else a pandas Series can do raises :class:`_Unsupported`.
    """

    __slots__ = ("_columns", "_pos", "name")

    def __init__(self, columns: _LazyColumns, pos: int, name: Hashable) -> None:
        self._columns = columns
        self._pos = pos
        self.name = name

    def __getitem__(self, key: Hashable) -> Any:
        try:
            return self._columns[key][self._pos]
        except (KeyError, TypeError):
            raise _Unsupported from None

    def get(self, key: Hashable, default: Any = None) -> Any:
        try:
            return self._columns[key][self._pos]
        except (KeyError, TypeError):
            return default

    def __contains__(self, key: Hashable) -> bool:
        try:
            return key in self._columns._position
        except TypeError:
            raise _Unsupported from None

    def __getattr__(self, attr: str) -> Any:
        if attr in _SERIES_ATTRS or attr.startswith("_"):
            raise _Unsupported
        return self[attr]

    def _unsupported(self, *args: Any) -> Any:
        raise _Unsupported

    __bool__ = __len__ = __iter__ = __eq__ = __ne__ = _unsupported
    __lt__ = __le__ = __gt__ = __ge__ = __repr__ = __str__ = __format__ = _unsupported
    __hash__ = None  # type: ignore[assignment]


def _as_mask(result: Any, table: pd.DataFrame) -> np.ndarray | None:
    """A boolean mask aligned with ``table``'s rows, or None if ``result`` is not one."""
    if isinstance(result, pd.Series):
        if result.dtype != bool or not result.index.equals(table.index):
            return None
        return result.to_numpy(dtype=bool)
    if isinstance(result, np.ndarray) and result.dtype == bool and result.shape == (len(table),):
        return result
    return None


def _vectorised(table: pd.DataFrame, predicate: Callable) -> np.ndarray | None:
    try:
        result = predicate(_Columns(table))
    except Exception:
        return None
    return _as_mask(result, table)


def _per_row(table: pd.DataFrame, predicate: Callable, positions: np.ndarray | None = None):
    """``predicate`` on light rows (all, or at ``positions``); raises _Unsupported."""
    if table.columns.has_duplicates:
        raise _Unsupported  # duplicated column names: leave them to pandas
    if positions is not None:
        table = table.iloc[positions]
    columns = _LazyColumns(table)
    labels = table.index.tolist()
    try:
        out = [predicate(_Row(columns, i, label)) for i, label in enumerate(labels)]
    except _Unsupported:
        raise
    except Exception as exc:  # the light row may differ from a Series here: let pandas decide
        raise _Unsupported from exc
    return _truth(out)


def _truth(results: list) -> np.ndarray:
    arr = np.empty(len(results), dtype=object)
    arr[:] = results
    return arr.astype(bool)


def _by_apply(table: pd.DataFrame, predicate: Callable) -> np.ndarray:
    result = table.apply(predicate, axis=1)
    return np.asarray(result, dtype=bool)


def _sample(mask: np.ndarray) -> np.ndarray:
    """Positions to check: spread over the table, plus the first kept and dropped rows."""
    n = len(mask)
    spread = np.linspace(0, n - 1, min(n, _SAMPLE)).astype(np.int64)
    kept = np.flatnonzero(mask)[:4]
    dropped = np.flatnonzero(~mask)[:4]
    return np.unique(np.concatenate([spread, kept, dropped]))


def per_row_mask(table: pd.DataFrame, predicate: Callable) -> np.ndarray:
    """``table.apply(predicate, axis=1)`` as a boolean mask, on light rows where possible."""
    if len(table) == 0:
        return np.zeros(0, bool)
    try:
        return _per_row(table, predicate)
    except _Unsupported:
        pass  # outside the handler, so a genuine error from apply has no chained noise
    return _by_apply(table, predicate)


def row_mask(table: pd.DataFrame, predicate: Callable) -> np.ndarray:
    """The rows of ``table`` for which ``predicate(row)`` holds, as ``apply(axis=1)`` says.

    ``table`` is the frame the predicate's rows come from (for a GraphFrame, its dataframe
    with the index levels reset to columns, as in Hatchet).
    """
    if len(table) == 0:
        return np.zeros(0, bool)
    mask = _vectorised(table, predicate)
    if mask is not None:
        check = _sample(mask)
        try:
            agrees = np.array_equal(_per_row(table, predicate, check), mask[check])
        except _Unsupported:
            agrees = False
        if agrees:
            return mask
    return per_row_mask(table, predicate)
