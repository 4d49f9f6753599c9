"""Speedup and parallel efficiency per node, relative to the smallest scale of a run.

The definitions are Chopper's (``Chopper.speedup_efficiency`` of the ``hatchet`` package
from the University of Maryland): the profiles are ordered by a numeric metadata column,
the scale ``p`` (``mpi.world.size``, a node or thread count); the base is the smallest
scale ``p0`` with values ``T0`` per node, and for every other scale ``p`` with values
``Tp``

- strong scaling (fixed total problem): speedup ``T0 / Tp``, efficiency
  ``(T0 * p0) / (Tp * p)``;
- weak scaling (fixed problem per process): efficiency ``T0 / Tp``; a speedup is not
  defined (Chopper refuses it too).

Columns are named ``"<p>.<metric>.speedup"`` / ``"<p>.<metric>.efficiency"`` as Chopper
names them, one per scale other than the base. Where several profiles share a scale
(repeated runs), their values are first reduced per node with ``agg`` (the mean by
default). Chopper takes the first GraphFrame given as the base, whatever its scale (its
sort result is discarded); perfweave takes the smallest scale, as its docstring intends.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from perfweave.ensemble import stats as _stats
from perfweave.ensemble.ensemble import Ensemble
from perfweave.ensemble.reshape import _metadata_column
from perfweave.ensemble.significance import matrix
from perfweave.errors import MetadataError, ShapeError

_AGG = {"mean": np.nanmean, "median": np.nanmedian, "min": np.nanmin, "max": np.nanmax}


def scales(ens: Ensemble, column: Any) -> np.ndarray:
    """The numeric scale of every profile (metadata ``column``), checked."""
    raw = _metadata_column(ens, column, "to take the scale from")
    values = pd.to_numeric(raw, errors="coerce")
    bad = values.isna() & raw.notna()
    if bad.any() or pd.api.types.is_bool_dtype(raw.dtype):
        where = raw[bad] if bad.any() else raw
        raise MetadataError(
            f"metadata column {column!r} is not numeric (profile {where.index[0]!r} has "
            f"{where.iloc[0]!r}); speedup and efficiency need a number such as a process count"
        )
    if values.isna().any():
        raise MetadataError(
            f"profile {values.index[values.isna()][0]!r} has no value in metadata column "
            f"{column!r}; every profile needs a scale"
        )
    out = values.to_numpy()
    if (out <= 0).any():
        raise MetadataError(f"metadata column {column!r} holds a scale <= 0: {out.min()!r}")
    if len(np.unique(out)) < 2:
        raise MetadataError(
            f"metadata column {column!r} has one value ({out[0]!r}) in every profile; "
            "speedup needs at least two scales"
        )
    return out


def _per_scale(mat: np.ndarray, scale: np.ndarray, levels: np.ndarray, agg: str) -> np.ndarray:
    """(nodes, scales): each scale's profiles reduced with ``agg`` (NaN skipped)."""
    out = np.empty((len(mat), len(levels)))
    reduce = _AGG[agg]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN nodes give NaN
        for j, level in enumerate(levels):
            cols = mat[:, scale == level]
            out[:, j] = cols[:, 0] if cols.shape[1] == 1 else reduce(cols, axis=1)
    return out


def scaling_table(
    ens: Ensemble,
    column: Any,
    metrics: Sequence[Any] | None,
    scaling: str,
    what: str,
    agg: str = "mean",
) -> pd.DataFrame:
    """Speedup or efficiency columns per node (see the module docstring): returned with a
    ``name`` column first, and added to ``ens.statsframe``."""
    if scaling not in ("strong", "weak"):
        raise ShapeError(f"scaling must be 'strong' or 'weak', not {scaling!r}")
    if what == "speedup" and scaling == "weak":
        raise ShapeError(
            "a speedup is defined for strong scaling only (the work grows with the scale "
            "in weak scaling); use efficiency(..., scaling='weak')"
        )
    if agg not in _AGG:
        raise ShapeError(f"agg must be one of {', '.join(_AGG)}, not {agg!r}")
    metrics = [ens.default_metric] if metrics is None else metrics
    metrics = _stats._check_columns(ens, metrics)
    scale = scales(ens, column)
    levels = np.unique(scale)
    base = levels[0]
    out: dict[Any, np.ndarray] = {}
    for metric in metrics:
        per = _per_scale(matrix(ens, metric), scale, levels, agg)
        with np.errstate(all="ignore"):
            for j, level in enumerate(levels[1:], start=1):
                if what == "speedup" or scaling == "weak":
                    value = per[:, 0] / per[:, j]
                else:
                    value = (per[:, 0] * base) / (per[:, j] * level)
                out[f"{_scale_label(level)}.{_plain(metric)}.{what}"] = value
    _stats._set(ens, out)
    table = pd.DataFrame(out, index=ens.statsframe.index)
    names = ens.graph.frames["name"].to_numpy()
    table.insert(0, "name", names[np.asarray(table.index, dtype=np.int64)])
    return table


def _scale_label(level: Any) -> str:
    value = level.item() if hasattr(level, "item") else level
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def _plain(metric: Any) -> str:
    return "/".join(map(str, metric)) if isinstance(metric, tuple) else str(metric)
