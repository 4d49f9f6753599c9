"""A directory of Score-P Cube experiments named the Extra-P way (``extrap --cube``).

Each subdirectory holds the ``.cubex`` file(s) of one run, its name the point::

    mm.x10y1z1.r1/profile.cubex     # prefix "mm", x=10, y=1, z=1, repetition 1

The name is read as Extra-P reads it: the text between the first ``.`` and the first
``.r`` (or the end) alternates names and numbers (``x10y1z1``, ``a1.1b1.1``,
``x1,5.y2``: ``,`` is a decimal point), the same names in the same order in every
directory; a parameter with one value in all of them is dropped, as Extra-P drops it.
Files whose names start with ``.`` are skipped. Several files at one point are its
repetitions (``repetition`` 1, 2, ... in order of the ``.r`` number, then the path).

Every file is read with perfweave's Cube reader, then as Extra-P's Cube reader does:

- **exclusive values**: every metric is modelled on its exclusive values (Extra-P asks
  pycubexr for them; the default metric is ``time``, not ``time (inc)``); a metric Cube stores inclusively only (``PAPI_*`` counters) gets its
  exclusive column, inclusive minus the children's (``PAPI_FP_OPS`` beside
  ``PAPI_FP_OPS (inc)``);
- **locations**: each node's value is the mean over the run's locations (ranks and
  threads; a location without a row counts 0 for an additive metric), Extra-P's default
  ``weak`` scaling; ``scaling="strong"`` sums them;
- **call paths not measured at every point** are merged into their nearest ancestor that
  is: their exclusive values are added to its, and they are dropped, as Extra-P merges them.

Deliberate difference: where two cnodes share a call path (one region called from two
sites), perfweave's Cube reader sums them (the call path's time); Extra-P pools their
values as if they were more locations, which halves the sum of two.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from perfweave.calltree.graphframe import GraphFrame
from perfweave.ensemble.ensemble import Ensemble
from perfweave.ensemble.extrap._layout import REPETITION
from perfweave.errors import FormatError, ParseError

SCALINGS = ("weak", "strong")
_NUMBER = re.compile(r"([0-9.,]+)")
_REPETITION = re.compile(r"\.r(\d+)$")


def profile_files(path: Path) -> list[Path]:
    """The ``.cubex`` files one directory below ``path`` (names not starting with ``.``)."""
    if not path.is_dir():
        raise FormatError(f"{path}: a Cube set must be a directory of run directories")
    files = sorted(p for p in path.glob("*/*.cubex") if not p.name.startswith("."))
    if not files:
        raise FormatError(
            f"{path}: no .cubex file in its subdirectories (expected <dir>/mm.x10y1z1.r1/"
            "profile.cubex)"
        )
    return files


def point_of(folder: str, path: Path) -> tuple[list[str], list[float]]:
    """The parameter names and values in a run directory's name, as Extra-P reads them."""
    start = folder.find(".") + 1
    end = folder.find(".r")
    text = folder[start : end if end != -1 else None]
    parts = _NUMBER.split(text)
    if len(parts) <= 1:
        raise ParseError(
            path, "a run directory named <prefix>.<name><value>...[.r<repetition>]",
            found=folder,
        )  # fmt: skip
    parts.remove("")
    names = [p for i, p in enumerate(parts) if i % 2 == 0]
    values = []
    for i, p in enumerate(parts):
        if i % 2:
            try:
                values.append(float(p.replace(",", ".").rstrip(".")))
            except ValueError:
                raise ParseError(path, "a number after each parameter name", found=p) from None
    if len(values) != len(names) or not all(names):
        raise ParseError(path, "a value after each parameter name", found=folder)
    return names, values


def read_cube_set(path: str | Path, scaling: str = "weak") -> Ensemble:
    """Read a directory of Cube experiments (see the module docstring)."""
    from perfweave.calltree.readers import read

    if scaling not in SCALINGS:
        raise FormatError(f"scaling {scaling!r}: choose one of {', '.join(SCALINGS)}")
    root = Path(path)
    files = profile_files(root)
    names0: list[str] | None = None
    points = []
    for f in files:
        names, values = point_of(f.parent.name, f)
        if names0 is None:
            names0 = names
        elif names != names0:
            raise ParseError(
                f, f"the parameters {names0} in every run directory's name (as the first)",
                found=f.parent.name,
            )  # fmt: skip
        points.append(values)
    assert names0 is not None
    table = np.array(points, dtype=float)
    varying = [j for j in range(table.shape[1]) if len(np.unique(table[:, j])) > 1]
    if not varying:
        raise ParseError(
            root, "run directories at more than one value of a parameter",
            found=", ".join(f.parent.name for f in files[:3]),
        )  # fmt: skip
    params = [names0[j] for j in varying]
    table = table[:, varying]
    reps = [int(m.group(1)) if (m := _REPETITION.search(f.parent.name)) else 0 for f in files]
    order = sorted(range(len(files)), key=lambda i: (tuple(table[i]), reps[i], str(files[i])))
    profiles = [_location_values(read(str(files[i]), format="cube"), scaling) for i in order]
    profiles = _merge_partial(profiles, [tuple(table[i]) for i in order])
    meta, seen = [], {}
    for i in order:
        point = tuple(table[i])
        seen[point] = seen.get(point, 0) + 1
        meta.append({**dict(zip(params, point)), REPETITION: seen[point], "file": str(files[i])})
    return Ensemble.from_graphframes(
        profiles, meta, profiles=list(range(len(profiles))), sources=[str(files[i]) for i in order]
    )


def _location_values(gf: GraphFrame, scaling: str) -> GraphFrame:
    """One row per node: exclusive columns for inclusive-only metrics, then the mean (weak)
    or sum (strong) over the run's locations."""
    from perfweave.calltree.ranks import reduce_ranks

    gf = gf.copy()
    gf.generate_exclusive_columns()
    metrics = [m for m in gf.exc_metrics + gf.inc_metrics if m in gf.dataframe.columns]
    how = "mean" if scaling == "weak" else "sum"
    if gf.dataframe.index.nlevels > 1:
        table = reduce_ranks(gf, metrics, how=how, across="threads")
        table.attrs = {}
    else:
        table = gf.dataframe[metrics].reindex(pd.RangeIndex(len(gf.graph), name="node"))
    table.insert(0, "name", gf.graph.frames["name"].to_numpy())
    # the default metric is the exclusive one, what Extra-P models ("time", not "time (inc)")
    default = gf.default_metric
    if default.endswith(" (inc)") and default[: -len(" (inc)")] in gf.exc_metrics:
        default = default[: -len(" (inc)")]
    return GraphFrame(gf.graph, table, gf.exc_metrics, gf.inc_metrics, default, {}, gf.units)


def _paths(gf: GraphFrame) -> list[tuple]:
    """Each node's call path as a tuple of frame names (root first)."""
    graph = gf.graph
    names = graph.frames["name"].tolist()
    parent = graph.parent
    out: list[tuple] = [()] * len(graph)
    for nid in np.argsort(graph.depth, kind="stable").tolist():
        p = int(parent[nid])
        out[nid] = (out[p] if p >= 0 else ()) + (names[nid],)
    return out


def _merge_partial(gfs: list[GraphFrame], points: list[tuple]) -> list[GraphFrame]:
    """Call paths measured at some points only, merged into their nearest ancestor that is
    measured at every point (their exclusive values added to its), as Extra-P does."""
    paths = [_paths(gf) for gf in gfs]
    at: dict[tuple, set] = {}
    for ps, point in zip(paths, points):
        for p in ps:
            at.setdefault(p, set()).add(point)
    everywhere = {p for p, s in at.items() if len(s) == len(set(points))}
    if len(everywhere) == len(at):
        return gfs
    out = []
    for gf, ps in zip(gfs, paths):
        keep = np.array([p in everywhere for p in ps])
        target = np.arange(len(ps))
        for nid in np.flatnonzero(~keep).tolist():
            p = ps[nid]
            while p and p not in everywhere:
                p = p[:-1]
            target[nid] = ps.index(p) if p else -1
        df = gf.dataframe.copy()
        for m in gf.exc_metrics:
            moved = df[m].to_numpy(dtype=float)
            sums = np.zeros(len(ps))
            ok = (~keep) & (target >= 0) & ~np.isnan(moved)
            np.add.at(sums, target[ok], moved[ok])
            df[m] = np.where(
                keep, np.where(np.isnan(moved) & (sums != 0), 0.0, moved) + sums, moved
            )
        new_id = np.cumsum(keep) - 1
        parent = gf.graph.parent[keep]
        parent = np.where(parent >= 0, new_id[np.maximum(parent, 0)], -1)
        data = df[keep].reset_index(drop=True)
        data.insert(0, "node", np.arange(int(keep.sum())))
        frames = gf.graph.frames[keep].reset_index(drop=True)
        out.append(
            GraphFrame.from_records(
                frames, data, parent=parent, exc_metrics=gf.exc_metrics,
                inc_metrics=gf.inc_metrics, default_metric=gf.default_metric, units=gf.units,
            )
        )  # fmt: skip
    return out
