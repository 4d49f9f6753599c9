"""Compare a perfweave GraphFrame with an llnl-hatchet one, node by node.

Nodes are matched by their call path (the frames from a root; in a DAG the smallest of a
node's paths), so the comparison does not depend on how either library numbers nodes or
orders children. Siblings with equal frames are compared as multisets.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pandas as pd


def _frame_key(frame) -> tuple:
    attrs = frame.attrs if hasattr(frame, "attrs") else dict(frame)
    return tuple(
        sorted(
            (str(k), str(v.item() if isinstance(v, np.generic) else v)) for k, v in attrs.items()
        )
    )


def node_keys(graph) -> dict:
    """node -> path key (the smallest frame path from a root), following children lists.

    Children lists are what both libraries traverse; Hatchet's ``parents`` lists are not
    always complete (its Caliper reader leaves some empty), so they are not used.
    """
    keys: dict = {}
    stack = [(root, ()) for root in graph.roots]
    while stack:
        node, prefix = stack.pop()
        key = prefix + (_frame_key(node.frame),)
        if node in keys and keys[node] <= key:
            continue
        keys[node] = key
        stack.extend((c, key) for c in node.children)
    return keys


def structure(graph) -> dict[tuple, int]:
    """Multiset of (path key, sorted child frame keys) over all nodes."""
    out: dict[tuple, int] = defaultdict(int)
    for node, key in node_keys(graph).items():
        kids = tuple(sorted(_frame_key(c.frame) for c in node.children))
        out[(key, kids)] += 1
    return dict(out)


def rows(gf, metrics, levels) -> dict[tuple, list[tuple]]:
    """(path key, rank/thread values) -> sorted list of metric tuples."""
    keys = node_keys(gf.graph)
    df = gf.dataframe.reset_index()
    out: dict[tuple, list[tuple]] = defaultdict(list)
    nodes = df["node"].tolist()
    key_by_id = {
        getattr(n, "nid", None) if hasattr(n, "nid") else id(n): k for n, k in keys.items()
    }
    by_obj = {n: k for n, k in keys.items()}
    lvl_values = [df[lvl].tolist() for lvl in levels]
    vals = [pd.to_numeric(df[m], errors="coerce").tolist() for m in metrics]
    for i, n in enumerate(nodes):
        k = by_obj[n] if n in by_obj else key_by_id[n]
        out[(k, *(v[i] for v in lvl_values))].append(tuple(v[i] for v in vals))
    return {
        k: sorted(
            v, key=lambda t: tuple((math.isnan(x) if isinstance(x, float) else False, x) for x in t)
        )
        for k, v in out.items()
    }


def _close(a: float, b: float, rel: float) -> bool:
    a_nan = a is None or (isinstance(a, float) and math.isnan(a))
    b_nan = b is None or (isinstance(b, float) and math.isnan(b))
    if a_nan or b_nan:
        return a_nan and b_nan
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-9)


def assert_same(ours, theirs, metrics=None, rel: float = 1e-9, nan_as_zero: bool = False) -> None:
    """Same graph structure and the same metric values per (call path, rank, thread)."""
    assert len(ours.graph) == len(theirs.graph), (len(ours.graph), len(theirs.graph))
    assert structure(ours.graph) == structure(theirs.graph)
    levels = [lvl for lvl in theirs.dataframe.index.names if lvl != "node"]
    assert [lvl for lvl in ours.dataframe.index.names if lvl != "node"] == levels
    if metrics is None:
        metrics = sorted(set(theirs.exc_metrics + theirs.inc_metrics))
    assert set(metrics) <= set(ours.dataframe.columns), set(metrics) - set(ours.dataframe.columns)
    a, b = rows(ours, metrics, levels), rows(theirs, metrics, levels)
    assert a.keys() == b.keys(), set(a) ^ set(b)
    for key in a:
        assert len(a[key]) == len(b[key]), key
        for ra, rb in zip(a[key], b[key]):
            for m, x, y in zip(metrics, ra, rb):
                if nan_as_zero:
                    x = 0.0 if x is None or (isinstance(x, float) and math.isnan(x)) else x
                    y = 0.0 if y is None or (isinstance(y, float) and math.isnan(y)) else y
                assert _close(x, y, rel), (
                    f"{m} at {key[0][-1]} {key[1:]}: perfweave {x} vs hatchet {y}"
                )


def literal_multiset(literal: list[dict]) -> dict:
    """A to_literal() tree as a multiset of (path, metrics) — children order aside."""
    out: dict[tuple, int] = defaultdict(int)

    def walk(entry, path):
        here = path + (tuple(sorted((str(k), str(v)) for k, v in entry["frame"].items())),)
        metrics = tuple(
            sorted(
                (k, round(float(v), 6)) for k, v in entry["metrics"].items() if k != "_hatchet_nid"
            )
        )
        out[(here, metrics)] += 1
        for c in entry.get("children", []):
            walk(c, here)

    for root in literal:
        walk(root, ())
    return dict(out)
