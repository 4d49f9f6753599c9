"""Cube 4 profiles (``.cubex``) as Score-P and Scalasca write them, read with pycubexr.

A Cube profile is a calling-context tree of *cnodes* (each calls one *region*: a function,
an MPI call, an annotated block, with its file and lines), a list of *locations* (threads
of processes on nodes of a machine: the system tree) and, per metric, one value per cnode
and location. Each metric is stored *inclusive* (a cnode's value holds its callees':
``time``, hardware counters) or *exclusive* (its own: ``visits``, ``bytes_sent``,
``min_time``).

The frame follows Hatchet's ``from_scorep``: one node per call path (frames ``{name:
region, type: function}``; cnodes reached by the same path of region names -- a region
called from two call sites of one function, or per parameter value -- are one node, their
values summed per location, ``min``-type metrics their minimum, ``max``-type ones their
maximum), the columns ``name``, ``file`` (the region's module or source file), ``line``,
``end_line`` (-1 where Cube has none) and ``paradigm``, one row per (node, location)
indexed ``node, rank, thread`` (levels present only where they vary). Metric columns keep
Cube's kind: an inclusive metric ``m`` is ``m (inc)``, an exclusive one ``m``; ``time``
has both, ``time`` exclusive as Cube computes it (the inclusive value minus the callees').
The full rules are in ``docs/calltree-readers.md``.
"""

from __future__ import annotations

import warnings
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers._common import unit_word
from perfweave.calltree.readers._cube_load import CubeProfile, load
from perfweave.errors import MissingMetricWarning, ParseError, SkippedInputWarning

#: the file Score-P writes its profile to inside an experiment directory
PROFILE_NAME = "profile.cubex"
#: files Score-P and Cube write beside a profile that are not profiles: the run's
#: configuration, the experiment's manifest, a trace's anchor and definitions
COMPANION_NAMES = frozenset({"scorep.cfg", "MANIFEST.md", "traces.otf2", "traces.def"})
#: Cube's units of measurement that are counts (a count has no unit); the others are
#: the unit names every reader maps (:func:`~perfweave.calltree.readers._common.unit_word`)
COUNT_UNITS = frozenset({"occ", "#"})
#: Cube value types that hold a minimum or a maximum (reduced by min/max, not summed)
MIN_TYPES = frozenset({"MINDOUBLE"})
MAX_TYPES = frozenset({"MAXDOUBLE"})
#: columns of the frame that are not metrics (a metric may not take one of these names)
ATTRIBUTES = ("name", "file", "line", "end_line", "paradigm")


def sniff(path: Path) -> bool:
    """A ``.cubex`` file, or a Score-P experiment directory holding ``profile.cubex``."""
    if path.is_dir():
        return (path / PROFILE_NAME).is_file()
    return path.suffix.lower() == ".cubex" and path.is_file()


def companion(path: Path) -> bool:
    """Whether ``path`` is a file Score-P or Cube writes beside a profile that is no
    profile itself: ``scorep.cfg``, ``MANIFEST.md``, a trace's files, or the Cube GUI's
    settings ``<name>.ini`` beside ``<name>.cubex``. A directory of Score-P experiments
    given to ``Ensemble.from_files`` leaves them out."""
    if path.name in COMPANION_NAMES:
        return True
    if path.suffix == ".ini" and path.with_suffix(".cubex").is_file():
        return True
    return path.parent.name == "traces" and (path.parent.parent / "traces.otf2").is_file()


def read(path: str | PathLike[str]):
    """Read a Cube 4 file (or a Score-P experiment directory) into a GraphFrame.

    Raises :class:`~perfweave.errors.ParseError` naming the file and what was expected
    for an archive pycubexr cannot read (not a tar, cut short, no ``anchor.xml``, broken
    XML, a metric's index or data that disagree with the tree or the locations).
    """
    file = _profile_file(Path(path))
    cube = load(file)
    if cube.unreadable:
        warnings.warn(
            SkippedInputWarning(
                f"{file}: skipped {len(cube.unreadable)} metric(s) whose Cube value type is "
                f"not one number per cnode and location: {', '.join(cube.unreadable)}"
            ),
            stacklevel=3,
        )
    if not cube.metrics:
        warnings.warn(
            MissingMetricWarning(
                f"{file}: no metric has values (declared without data: "
                f"{', '.join(cube.without_data) or 'none'}); the call tree is read alone"
            ),
            stacklevel=3,
        )
    return _graphframe(cube)


def _profile_file(path: Path) -> Path:
    if path.is_dir():
        inside = path / PROFILE_NAME
        if not inside.is_file():
            raise ParseError(
                path, f"a Score-P experiment directory holding {PROFILE_NAME}", found="none"
            )
        return inside
    return path


# ---------------------------------------------------------------------- call paths
def _depths(parent: np.ndarray) -> np.ndarray:
    """Depth of each node of a forest given by parent indices (one numpy step per level)."""
    depth = np.zeros(len(parent), np.int64)
    up = parent.copy()
    while True:
        live = up >= 0
        if not live.any():
            return depth
        depth[live] += 1
        up[live] = parent[up[live]]


def _merge_call_paths(
    parent: np.ndarray, names: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nodes of a tree whose nodes reached by the same path of names are one.

    ``parent`` (index of each node's parent, -1 for a root) and ``names`` (an integer code
    per node). Returns ``(node, first, node_parent)``: the merged node of each input node,
    the first input node (lowest index) of each merged node, and each merged node's parent.
    Level by level: a node's key is (its parent's merged node, its name).
    """
    depth = _depths(parent)
    n_names = int(names.max()) + 1 if len(names) else 1
    node = np.empty(len(parent), np.int64)
    firsts: list[np.ndarray] = []
    count = 0
    order = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[order], np.arange(int(depth.max(initial=0)) + 2))
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        at = order[lo:hi]
        up = parent[at]
        key = (np.where(up >= 0, node[np.maximum(up, 0)], -1) + 1) * n_names + names[at]
        uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        node[at] = count + inverse.reshape(-1)
        firsts.append(at[first])
        count += len(uniq)
    first = np.concatenate(firsts) if firsts else np.empty(0, np.int64)
    up = parent[first]
    node_parent = np.where(up >= 0, node[np.maximum(up, 0)], -1)
    return node, first, node_parent


def _exclusive_of(inclusive: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Per node (rows), its inclusive values minus its children's: Cube's exclusive value."""
    out = inclusive.astype(np.result_type(inclusive.dtype, np.int64), copy=True)
    child = np.flatnonzero(parent >= 0)
    np.subtract.at(out, parent[child], inclusive[child])
    return out


def _inclusive_of(exclusive: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Per node (rows), its exclusive values plus all its descendants' (deepest first)."""
    out = exclusive.astype(np.result_type(exclusive.dtype, np.int64), copy=True)
    depth = _depths(parent)
    for level in range(int(depth.max(initial=0)), 0, -1):
        at = np.flatnonzero(depth == level)
        np.add.at(out, parent[at], out[at])
    return out


# ---------------------------------------------------------------------- values
def _numbers(values: np.ndarray) -> np.ndarray:
    """Values in native byte order as int64 or float64 (an unsigned count beyond int64's
    range as float64)."""
    if values.dtype.kind == "f":
        return values.astype(np.float64)
    if values.dtype.kind == "u" and values.size and int(values.max()) > np.iinfo(np.int64).max:
        return values.astype(np.float64)
    return values.astype(np.int64)


def _merge(values: np.ndarray, node: np.ndarray, n_nodes: int, how: str) -> np.ndarray:
    """(cnode x location) values onto the merged nodes: summed, or their min / max."""
    if n_nodes == len(node):  # no call path repeats: a permutation
        out = np.empty((n_nodes, values.shape[1]), values.dtype)
        out[node] = values
        return out
    if how == "sum":
        out = np.zeros((n_nodes, values.shape[1]), values.dtype)
        np.add.at(out, node, values)
        return out
    out = np.full((n_nodes, values.shape[1]), np.nan)
    (np.fmin if how == "min" else np.fmax).at(out, node, values)
    return out


def _columns(cube: CubeProfile, node: np.ndarray, n_nodes: int):
    """Metric columns as (name, nodes x locations matrix) in Cube's metric order, with
    the exclusive and inclusive metric lists, the units and each column's description."""
    visits = next((m.values for m in cube.metrics if m.name == "visits"), None)
    taken = set(ATTRIBUTES) | {"rank", "thread", "node"}
    columns: list[tuple[str, np.ndarray]] = []
    exc: list[str] = []
    inc: list[str] = []
    units: dict[str, str] = {}
    described: dict[str, str] = {}
    for m in cube.metrics:
        values = _numbers(m.values)
        how = "min" if m.data_type in MIN_TYPES else "max" if m.data_type in MAX_TYPES else "sum"
        if how != "sum" and visits is not None:
            values = np.where(visits > 0, values, np.nan)  # not visited: no minimum at all
        unit = "" if m.unit in COUNT_UNITS else unit_word(m.unit)
        if m.name == "time" and how == "sum":
            if m.kind == "INCLUSIVE":
                pair = [("time (inc)", values), ("time", _exclusive_of(values, cube.parent))]
            else:
                pair = [("time (inc)", _inclusive_of(values, cube.parent)), ("time", values)]
            inc.append("time (inc)")
            exc.append("time")
        else:
            name = f"{m.name} (inc)" if m.kind == "INCLUSIVE" else m.name
            pair = [(name, values)]
            (inc if m.kind == "INCLUSIVE" else exc).append(name)
        for name, matrix in pair:
            if name in taken:
                raise ParseError(
                    cube.path,
                    f"metric names other than the columns {', '.join(sorted(taken))}",
                    position="anchor.xml",
                    found=name,
                )
            taken.add(name)
            columns.append((name, _merge(matrix, node, n_nodes, how)))
            described[name] = m.description
            if unit:
                units[name] = unit
    return columns, exc, inc, units, described


# ---------------------------------------------------------------------- the frame
def _levels(locations: pd.DataFrame) -> tuple[list[str], pd.DataFrame]:
    """Index levels (``rank`` where ranks vary, ``thread`` where threads vary) and the
    locations with a ``thread`` that tells the locations of a rank apart: Cube's own
    number, or where two locations of one rank share it (GPU streams, metric locations
    beside threads), the locations of each rank numbered 0.. in id order."""
    loc = locations.copy()
    if loc.duplicated(["rank", "thread"]).any():
        loc["thread"] = loc.groupby("rank", sort=False).cumcount().astype(np.int64)
    levels = [lvl for lvl in ("rank", "thread") if loc[lvl].nunique() > 1]
    return levels, loc


def _metadata(cube: CubeProfile, descriptions: dict[str, str]) -> dict:
    """anchor.xml's attributes as written, then the system tree: the machine, how many
    nodes, processes and locations, the tree's nodes and the locations as tables
    (dicts of lists), and what the metrics are."""
    loc = cube.locations
    system = cube.system.astype(object).where(cube.system.notna(), None)  # absent attrs
    meta: dict = dict(cube.attrs)
    meta.update(
        {
            "cube_file": str(cube.path),
            "machine": ", ".join(dict.fromkeys(loc["machine"].astype(str))),
            "num_nodes": int(loc["node"].nunique()),
            "num_processes": int(loc["process"].nunique()),
            "num_locations": len(loc),
            "system_tree": system.to_dict("list"),
            "locations": loc.to_dict("list"),
            "metric_descriptions": descriptions,
            "metrics_without_data": list(cube.without_data),
        }
    )
    return meta


def _graphframe(cube: CubeProfile):
    names, codes = np.unique(cube.regions["name"].to_numpy(dtype=str), return_inverse=True)
    name_code = codes.reshape(-1)[cube.region]
    node, first, node_parent = _merge_call_paths(cube.parent, name_code)
    n_nodes = len(first)
    region = cube.regions.iloc[cube.region[first]].reset_index(drop=True)
    frames = pd.DataFrame({"name": region["name"].to_numpy(object), "type": "function"})
    columns, exc, inc, units, described = _columns(cube, node, n_nodes)
    levels, locations = _levels(cube.locations)
    n_loc = len(locations)
    rows = np.repeat(np.arange(n_nodes, dtype=np.int64), n_loc)
    data = {"node": rows}
    for level in levels:
        data[level] = np.tile(locations[level].to_numpy(np.int64), n_nodes)
    for attr in ATTRIBUTES:
        data[attr] = region[attr].to_numpy()[rows]
    for name, matrix in columns:
        data[name] = matrix.reshape(-1)
    default = "time (inc)" if "time (inc)" in inc else (inc or exc or [None])[0]
    return build_graphframe(
        frames,
        pd.DataFrame(data),
        parent=node_parent,
        exc_metrics=exc,
        inc_metrics=inc,
        default_metric=default,
        metadata=_metadata(cube, described),
        path=cube.path,
        index_levels=levels,
        units=units,
    )
