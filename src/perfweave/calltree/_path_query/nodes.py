"""The node-level view of a GraphFrame that predicates are evaluated on.

Hatchet evaluates a predicate on one node's data: the row (a frame indexed by node) or the
node's rows (indexed by node and rank/thread/profile), which ``multi_index_mode`` reduces
with ``any`` or ``all``. Here a predicate gives a boolean mask over all rows at once and
:meth:`NodeTable.per_node` reduces it to a mask over the graph's nodes.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from pandas.api.types import is_string_dtype

from perfweave.errors import QueryError

MODES = ("off", "any", "all")


class NodeTable:
    """A GraphFrame's rows and graph arrays, shaped for node predicates."""

    def __init__(self, gf, multi_index_mode: str = "off") -> None:
        if multi_index_mode not in MODES:
            raise QueryError(f"multi_index_mode must be one of {MODES}, not {multi_index_mode!r}")
        self.gf = gf
        self.graph = gf.graph
        self.df: pd.DataFrame = gf.dataframe
        self.n = len(gf.graph)
        self.node_of_row = gf.node_ids()
        self.multi = len(self.df.index.names) > 1
        self.mode = multi_index_mode
        self.rows_per_node = np.bincount(self.node_of_row, minlength=self.n)
        self.leaf = np.diff(gf.graph._child_ptr) == 0
        self.depth = np.asarray(gf.graph.depth)
        self.node_id = np.arange(self.n)

    def require_mode(self, what: str) -> None:
        """Hatchet refuses predicates on data on a multi-index with mode ``off``."""
        if self.multi and self.mode == "off":
            levels = ", ".join(str(x) for x in self.df.index.names)
            raise QueryError(
                f"{what} on a frame indexed by ({levels}) needs multi_index_mode='any' "
                "(a node matches when one of its rows does) or 'all' (when all do)"
            )

    def per_node(self, row_mask: np.ndarray) -> np.ndarray:
        """Reduce a row mask to a node mask (the node's row; any/all of its rows)."""
        hits = np.bincount(self.node_of_row[row_mask], minlength=self.n)
        if self.multi and self.mode == "all":
            return (hits == self.rows_per_node) & (self.rows_per_node > 0)
        return hits > 0

    def column(self, key):
        """The column named ``key`` (a 1-tuple names a plain column), or None."""
        if isinstance(key, (tuple, list)) and len(key) == 1:
            key = key[0]
        if isinstance(key, list):
            key = tuple(key)
        try:
            if key in self.df.columns:
                col = self.df[key]
                return col if isinstance(col, pd.Series) else None
        except TypeError:
            return None
        return None


def numbers(col: pd.Series) -> np.ndarray:
    """A numeric column as a numpy array: integers as they are, anything else (floats,
    booleans, nullable extension types) as float with NaN for missing values."""
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu":
        return col.to_numpy()
    return col.to_numpy(dtype=float, na_value=np.nan)


def holds_strings(col: pd.Series) -> bool:
    """A column of strings (string dtype, objects, or categories that are strings), as
    Hatchet's ``is_string_dtype`` check on a node's rows sees it."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        return is_string_dtype(col.cat.categories)
    return is_string_dtype(col.dtype) or (col.dtype == object and is_string_dtype(col))


def compile_regex(pattern: str, where: str, *, whole: bool = False) -> re.Pattern:
    """``pattern`` compiled (anchored at the end with ``whole``, as Hatchet's object
    dialect matches a cell), or a QueryError naming it."""
    try:
        return re.compile(pattern + r"\Z" if whole else pattern)
    except re.error as e:
        raise QueryError(f"{where}: {pattern!r} is not a valid regex: {e}") from None
