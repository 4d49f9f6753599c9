"""Plain, slow reference implementations to check results where Hatchet cannot be used.

They walk Node objects one at a time, the obvious way, so they are easy to trust.
"""

from __future__ import annotations

import math
from collections import defaultdict

import pandas as pd

from tests.calltree._peer import _frame_key, node_keys


def inclusive(gf, metric: str) -> dict[tuple, float]:
    """(node id, rank/thread...) -> sum of ``metric`` over the node and all descendants."""
    df = gf.dataframe
    levels = [lvl for lvl in df.index.names if lvl != "node"]
    values: dict[tuple, float] = {}
    for idx, v in df[metric].items():
        key = idx if isinstance(idx, tuple) else (idx,)
        values[key] = v
    out = {}
    for key in values:
        node, rest = key[0], key[1:]
        total, seen_value = 0.0, False
        for d in gf.graph.node(node).traverse():
            v = values.get((d.nid, *rest))
            if v is not None and not (isinstance(v, float) and math.isnan(v)):
                total += v
                seen_value = True
        out[key] = total if seen_value else math.nan
    assert len(levels) == len(next(iter(values))) - 1
    return out


def squashed(gf, metric: str) -> dict[tuple, float]:
    """Rows of a filtered tree frame grouped by squashed call path: (path, levels) -> sum.

    A row's squashed path is the frames of its node's ancestors that have rows, then its
    own frame: exactly where squash puts it.
    """
    kept = set(gf.node_ids().tolist())
    keys = {}
    for node in gf.graph.traverse():
        if node.nid not in kept:
            continue
        path, up = [_frame_key(node.frame)], node.parents
        while up:
            (p,) = up
            if p.nid in kept:
                path.append(_frame_key(p.frame))
            up = p.parents
        keys[node.nid] = tuple(reversed(path))
    out: dict[tuple, float] = defaultdict(float)
    for idx, v in gf.dataframe[metric].items():
        idx = idx if isinstance(idx, tuple) else (idx,)
        if not pd.isna(v):
            out[(keys[idx[0]], *idx[1:])] += v
    return dict(out)


def by_path(gf, metric: str) -> dict[tuple, float]:
    """(path, levels) -> value, for comparing a squashed frame with :func:`squashed`."""
    keys = node_keys(gf.graph)
    by_id = {n.nid: k for n, k in keys.items()}
    out: dict[tuple, float] = defaultdict(float)
    for idx, v in gf.dataframe[metric].items():
        idx = idx if isinstance(idx, tuple) else (idx,)
        if not pd.isna(v):
            out[(by_id[idx[0]], *idx[1:])] += v
    return dict(out)


def name_paths(gf) -> list[tuple[str, ...]]:
    """Each node's call path of names, root first, walked up parent by parent."""
    names = gf.graph.frames["name"].tolist()
    parent = gf.graph.parent
    out = []
    for n in range(len(gf.graph)):
        path = [names[n]]
        while parent[n] >= 0:
            n = int(parent[n])
            path.append(names[n])
        out.append(tuple(reversed(path)))
    return out
