"""Lay an Extra-P experiment out as an Ensemble: one profile per point and repetition.

- **Profiles.** Points in sorted order, each with its repetitions 1, 2, ... (the most any
  function has there); metadata: one column per parameter, ``repetition`` and ``file``;
  profile ids 0, 1, ... in that order. Repetition ``r`` of a function is its ``r``-th
  value at the point (NaN where it has fewer), so folding repeats by their mean, as
  ``Ensemble.models`` does, gives Extra-P's mean of the values.
- **Nodes.** Call paths split at ``->`` (``main->init_mat``: ``init_mat`` under ``main``),
  siblings in order of first appearance; a prefix that is no call path of its own (Extra-P
  adds it to its call tree too) is a node without values.
- **Metrics.** One column per metric. These formats do not say whether a call path's value
  includes its callees, so each value is kept as given and the metrics are listed as
  inclusive ones: no view adds children's values into their parent's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfweave.calltree.graphframe import GraphFrame
from perfweave.ensemble import _table
from perfweave.ensemble.ensemble import Ensemble
from perfweave.ensemble.extrap._experiment import SEPARATOR, Experiment

REPETITION = "repetition"


def call_tree(callpaths: list[str]) -> tuple[pd.DataFrame, np.ndarray, dict[str, int]]:
    """Frames, parent ids and the node of each call path, for call paths split at ``->``."""
    node_of: dict[tuple[str, ...], int] = {}
    names: list[str] = []
    parent: list[int] = []
    for path in callpaths:
        parts = tuple(path.split(SEPARATOR))
        for depth in range(1, len(parts) + 1):
            key = parts[:depth]
            if key not in node_of:
                node_of[key] = len(names)
                names.append(parts[depth - 1])
                parent.append(node_of[key[:-1]] if depth > 1 else -1)
    frames = pd.DataFrame({"name": names, "type": "function"})
    return (
        frames,
        np.asarray(parent, dtype=np.int64),
        {path: node_of[tuple(path.split(SEPARATOR))] for path in callpaths},
    )


def profile_table(exp: Experiment) -> list[tuple[tuple[float, ...], int]]:
    """(point, repetition) of every profile, points sorted, repetitions from 1."""
    most = {p: 0 for p in exp.points}
    for at in exp.functions.values():
        for point, values in at.items():
            most[point] = max(most[point], len(values))
    return [(p, r) for p in sorted(exp.points) for r in range(1, most[p] + 1)]


def to_ensemble(exp: Experiment, point_metadata: dict | None = None) -> Ensemble:
    """The ensemble of a checked experiment (see the module docstring);
    ``point_metadata`` adds metadata columns per point (``{point: {column: value}}``)."""
    callpaths = list(dict.fromkeys(c for c, _ in exp.functions))
    metrics = list(dict.fromkeys(m for _, m in exp.functions))
    frames, parent, node_of = call_tree(callpaths)
    profiles = profile_table(exp)
    rows = np.array([node_of[c] for c in callpaths], dtype=np.int64)
    row_of = {c: i for i, c in enumerate(callpaths)}
    col_of = {m: j for j, m in enumerate(metrics)}
    # values[profile, callpath, metric]
    values = np.full((len(profiles), len(callpaths), len(metrics)), np.nan)
    index = {key: i for i, key in enumerate(profiles)}
    for (callpath, metric), at in exp.functions.items():
        i, j = row_of[callpath], col_of[metric]
        for point, reps in at.items():
            for r, v in enumerate(reps, start=1):
                values[index[(point, r)], i, j] = v
    default = "time" if "time" in metrics else metrics[0]
    # one frame of every call path numbers the graph canonically; the table is then laid
    # out densely in one step (node-major, as Ensemble.from_graphframes lays it out)
    data = pd.DataFrame({"node": rows, "row": np.arange(len(rows))})
    gf = GraphFrame.from_records(frames, data, parent=parent, path=exp.path)
    node = np.empty(len(rows), dtype=np.int64)  # the new id of each call path's node
    node[gf.dataframe["row"].to_numpy()] = np.asarray(gf.dataframe.index, dtype=np.int64)
    n, p = len(gf.graph), len(profiles)
    table = np.full((n, p, len(metrics)), np.nan)
    table[node] = values.transpose(1, 0, 2)
    present = np.zeros(n, bool)
    present[node] = True
    df = pd.DataFrame(
        {m: table[:, :, j].ravel() for j, m in enumerate(metrics)},
        index=_table.dense_index(n, list(range(p))),
    )
    names = gf.graph.frames["name"].to_numpy()
    df["name"] = _table.name_column(names, p, np.repeat(present, p))
    meta = []
    for point, r in profiles:
        more = (point_metadata or {}).get(point, {})
        meta.append({**dict(zip(exp.parameters, point)), REPETITION: r, **more, "file": exp.path})
    metadata = pd.DataFrame(meta, index=pd.Index(range(p), name="profile"))
    mapping = dict.fromkeys(range(p), exp.path)
    return Ensemble(gf.graph, df, metadata, [], metrics, default, None, mapping)
