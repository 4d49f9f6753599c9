"""Rows of a GraphFrame as a dense (node x rank/thread combination) matrix.

A node's rows are summed per combination (several rows of one node and combination are
parts of that node: a sampling profile keeps one row per sampled call stack), so each
cell of the matrix is one node on one rank/thread. The analyses and the node values
read the dataframe through this one layout. Codes come from the MultiIndex directly
(no factorising of millions of rank values).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from perfweave.errors import ShapeError

INT = np.int64


@dataclass
class Layout:
    """Where each row sits: its node, its combination column, and what the columns are."""

    node: np.ndarray  # node id per row
    combo: np.ndarray  # combination column per row (0 where there are no levels)
    n_nodes: int
    levels: list[str]  # index levels besides node, in index order
    combo_values: dict[str, np.ndarray]  # level -> its value for each combination column
    level_counts: dict[str, int]  # level -> how many distinct values the rows have

    @property
    def k(self) -> int:
        return len(next(iter(self.combo_values.values()))) if self.combo_values else 1

    @cached_property
    def flat(self) -> np.ndarray:
        """The cell (node * k + combination) of each row."""
        return self.node * self.k + self.combo if self.k > 1 else self.node

    @cached_property
    def rows_per_cell(self) -> np.ndarray:
        """How many rows each (node, combination) cell has, n_nodes x k."""
        size = self.n_nodes * self.k
        return np.bincount(self.flat, minlength=size).reshape(self.n_nodes, self.k)

    @cached_property
    def is_grid(self) -> bool:
        """Whether the rows are exactly the cells in order (every node on every rank/thread
        once, node-major): the matrix is then the column reshaped, no scatter needed."""
        n = len(self.flat)
        return n == self.n_nodes * self.k and bool((self.flat == np.arange(n, dtype=INT)).all())

    def dense(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(sum, has a non-NaN row) per (node, combination) cell, each n_nodes x k."""
        shape = (self.n_nodes, self.k)
        nan = np.isnan(values)
        any_nan = bool(nan.any())
        if self.is_grid:
            present = ~nan.reshape(shape) if any_nan else np.ones(shape, bool)
            total = np.where(nan, 0.0, values) if any_nan else values
            return total.reshape(shape).astype(float, copy=True), present
        size = self.n_nodes * self.k
        flat = self.flat[~nan] if any_nan else self.flat
        count = np.bincount(flat, minlength=size) if any_nan else self.rows_per_cell.ravel()
        total = np.bincount(flat, weights=values[~nan] if any_nan else values, minlength=size)
        # (bincount of no rows gives integers, whatever the weights)
        return total.astype(float, copy=False).reshape(shape), (count > 0).reshape(shape)

    def first_rows(self) -> np.ndarray:
        """Boolean per row: the first row of its (node, combination) cell."""
        first = np.zeros(len(self.flat), bool)
        _, idx = np.unique(self.flat, return_index=True)
        first[idx] = True
        return first

    def has_duplicates(self) -> bool:
        if self.is_grid:
            return False
        return bool(len(self.flat)) and int(self.rows_per_cell.max()) > 1

    def first_row_of_node(self) -> np.ndarray:
        """Position of the first row of each node that has rows (in node order)."""
        return first_rows(self.node)


def first_rows(node: np.ndarray) -> np.ndarray:
    """Position of the first row of each node in a table's ``node`` column (in node order;
    no sort when the table is sorted by node, the usual case)."""
    if len(node) and not (node[1:] >= node[:-1]).all():
        order = np.argsort(node, kind="stable")
        sorted_nodes = node[order]
        return order[np.flatnonzero(np.r_[True, sorted_nodes[1:] != sorted_nodes[:-1]])]
    return np.flatnonzero(np.r_[True, node[1:] != node[:-1]]) if len(node) else node


def layout(df: pd.DataFrame, n_nodes: int) -> Layout:
    """The layout of a GraphFrame's dataframe over a graph of ``n_nodes`` nodes."""
    index = df.index
    levels = [lvl for lvl in index.names if lvl != "node"]
    if levels:  # codes into the level: no materialised Index of millions of values
        i = index.names.index("node")
        node = np.asarray(index.levels[i], dtype=INT)[np.asarray(index.codes[i])]
    else:
        node = np.asarray(index.get_level_values("node"), dtype=INT)
    if not levels:
        return Layout(node, np.zeros(len(df), INT), n_nodes, [], {}, {})
    combo = np.zeros(len(df), INT)
    used: dict[str, int] = {}
    width = 1
    parts: list[tuple[str, np.ndarray, int]] = []
    for lvl in levels:
        i = index.names.index(lvl)
        codes = np.asarray(index.codes[i], dtype=INT)
        values = np.asarray(index.levels[i])
        if (codes < 0).any():
            raise ShapeError(f"the {lvl!r} index level has missing values")
        parts.append((lvl, values, width))
        used[lvl] = int((np.bincount(codes, minlength=len(values)) > 0).sum())
        combo = combo * len(values) + codes
        width *= len(values)
    combo_values = {}
    for pos, (lvl, values, _) in enumerate(parts):
        inner = int(np.prod([len(v) for _, v, _ in parts[pos + 1 :]], dtype=INT))
        combo_values[lvl] = np.repeat(np.tile(values, width // (len(values) * inner)), inner)
    return Layout(node, combo, n_nodes, levels, combo_values, used)
