"""Call stacks into a calltree: what the sampling readers (``perf script``, speedscope) share.

A reader hands over *entries*: one per frame of a sampled stack (or one per call of an
evented profile), each with its parent entry (``-1`` at a root), its depth, a frame code
(equal codes are the same frame) and the cell (rank/thread) it was measured on, plus the
values it adds to the exclusive and inclusive columns. Entries with the same call path
become one node (:func:`perfweave.calltree._forest.merge_groups`: equal frames under the
same parent path merge, level by level), and the values of a node's entries on one cell
are summed into one row.

A call path is one node however often a function recurses on it (``f`` / ``g`` / ``f`` is
three nodes), so a sample counts once on every node of its stack: the inclusive value of
a recursive function's node never counts a sample twice.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfweave.calltree._forest import merge_groups

INT = np.int64


def stack_entries(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Entries of stacks laid end to end, root first, ``lengths[s]`` entries for stack s.

    Returns each entry's parent entry (``-1`` at a root), its depth, its stack, and whether
    it is its stack's leaf (the innermost frame, where a sample counts exclusively).
    """
    lengths = np.asarray(lengths, dtype=INT)
    total = int(lengths.sum())
    stack = np.repeat(np.arange(len(lengths), dtype=INT), lengths)
    starts = np.cumsum(lengths) - lengths
    entry = np.arange(total, dtype=INT)
    depth = entry - starts[stack]
    parent = np.where(depth > 0, entry - 1, -1)
    leaf = depth == lengths[stack] - 1
    return parent, depth, stack, leaf


def merged_nodes(
    parent: np.ndarray, depth: np.ndarray, frame: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Entries merged into call-path nodes (the same frame under the same parent node):
    each entry's node, each node's first entry, and each node's parent node (-1: a root)."""
    node = merge_groups(parent, depth, frame)
    n_nodes = int(node.max()) + 1 if len(node) else 0
    first = np.full(n_nodes, len(node), INT)
    np.minimum.at(first, node, np.arange(len(node), dtype=INT))
    up = parent[first]
    return node, first, np.where(up >= 0, node[np.maximum(up, 0)], -1)


def call_path_rows(
    parent: np.ndarray,
    depth: np.ndarray,
    frame: np.ndarray,
    cell: np.ndarray,
    values: dict[str, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """Merge entries into call-path nodes and sum their values per (node, cell).

    Returns ``node_parent`` and ``node_frame`` (a frame code per node) and a table with
    columns ``node``, ``cell`` and one per key of ``values`` (each an array over the
    entries), one row per (node, cell) that has an entry, ordered by node then cell.
    """
    node, first, node_parent = merged_nodes(parent, depth, frame)
    node_frame = frame[first]
    n_cells = int(cell.max()) + 1 if len(cell) else 1
    key = node * n_cells + cell
    summed = pd.DataFrame(values).groupby(key, sort=True).sum()  # integers stay exact
    rows = summed.index.to_numpy(dtype=INT)
    table = pd.DataFrame({"node": rows // n_cells, "cell": rows % n_cells})
    for column in values:
        table[column] = summed[column].to_numpy()
    return node_parent, node_frame, table
