"""Performance models of every node of an ensemble over one or several metadata parameters.

Each node's metric values (one per profile; rank/thread rows averaged first, as Thicket's
``Modeling`` does) are modelled over the profiles' values of a numeric metadata column
(``mpi.world.size``), or of several (``["mpi.world.size", "problem_size"]``: Extra-P's
multi-parameter models), with :func:`perfweave.scaling.fit_models`. The models also go into
the statistics table under the column names Thicket's Extra-P bridge uses, so Thicket users
find them: ``<metric>_extrap-model`` (the model text), ``<metric>_RSS_extrap-model``,
``<metric>_SMAPE_extrap-model``, ``<metric>_AR2_extrap-model``; the model cells are
text that also has Thicket's ``eval``/``display`` (:mod:`perfweave.ensemble.model_cells`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.ranks import profile_means
from perfweave.ensemble import _table
from perfweave.ensemble import stats as _stats
from perfweave.ensemble.ensemble import Ensemble
from perfweave.errors import MetadataError, ShapeError
from perfweave.scaling.fit import MIN_FIT, fit_models

MODEL_TAG = "_extrap-model"
INT = np.int64


def parameter(ens: Ensemble, param: Any) -> np.ndarray:
    """The profiles' values of metadata column ``param`` as floats (metadata order); a
    missing column, or a value that is not a finite number, is an error naming both."""
    if param not in ens.metadata.columns:
        cols = [str(c) for c in ens.metadata.columns]
        shown = ", ".join(cols[:15]) + (", ..." if len(cols) > 15 else "")
        raise MetadataError(f"no metadata column {param!r} to model over (columns: {shown})")
    raw = ens.metadata[param]
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        i = int(bad[0])
        profile, value = (
            v.item() if hasattr(v, "item") else v for v in (raw.index[i], raw.iloc[i])
        )
        raise MetadataError(
            f"metadata column {param!r} is not numeric: profile {profile!r} has "
            f"{value!r} (expected a number such as 64; {len(bad)} such value"
            f"{'s' if len(bad) > 1 else ''})"
        )
    return values


def metric_matrix(ens: Ensemble, metric: Any) -> np.ndarray:
    """The (nodes, profiles) matrix of ``metric`` (NaN where a node has no value in a
    profile). Rank/thread rows are reduced per profile by the core's one rule
    (:func:`perfweave.calltree.ranks.profile_means`: a rank/thread of the profile without
    a row for the node counts 0 for an additive metric), so a model is fitted to what
    every other view shows, and no node's value exceeds its parent's."""
    (metric,) = _stats._check_columns(ens, [metric], "metric")
    df = ens.dataframe
    if pd.api.types.is_bool_dtype(df[metric].dtype):
        raise ShapeError(f"metric {metric!r} is not numeric ({df[metric].dtype})")
    n, p = len(ens.graph), len(ens.metadata)
    values = df[metric].to_numpy(dtype=float, na_value=np.nan)
    if _table.is_dense(df, n, p):
        return values.reshape(n, p)
    if df.index.nlevels > 2:
        return profile_means(df, n, list(ens.metadata.index), metric)
    series = pd.Series(values, index=df.index)
    out = np.full((n, p), np.nan)
    node = np.asarray(series.index.get_level_values(0), dtype=INT)
    pos = ens.metadata.index.get_indexer(series.index.get_level_values(1))
    keep = pos >= 0
    out[node[keep], pos[keep]] = series.to_numpy()[keep]
    return out


def _name(metric: Any, suffix: str) -> Any:
    if isinstance(metric, tuple):
        return (*metric[:-1], f"{metric[-1]}{suffix}")
    return f"{metric}{suffix}"


def is_param_list(ens: Ensemble, param: Any) -> bool:
    """Whether ``param`` names several metadata columns (a list, or a tuple that is not
    itself a column)."""
    if isinstance(param, list):
        return True
    return isinstance(param, tuple) and param not in ens.metadata.columns


def parameters(ens: Ensemble, params: Any) -> pd.DataFrame:
    """The profiles' values of several metadata columns (one column each, metadata order)
    for a multi-parameter model: each column checked as :func:`parameter` does, and
    each needs at least 2 distinct values (with fewer than 5 the models are fitted with a
    ``FewParameterValues`` warning, as Extra-P fits them)."""
    params = list(params)
    if not params:
        raise MetadataError("no parameter to model over: give one or more metadata columns")
    seen = set()
    for p in params:
        if p in seen:
            raise MetadataError(f"parameter {p!r} is given twice: name each column once")
        seen.add(p)
    cols = {}
    for p in params:
        values = parameter(ens, p)
        distinct = np.unique(values)
        if len(distinct) < MIN_FIT:
            shown = ", ".join(f"{v:g}" for v in distinct[:10])
            raise MetadataError(
                f"metadata column {p!r} has {len(distinct)} distinct value"
                f"{'s' if len(distinct) != 1 else ''} ({shown}): a multi-parameter model "
                f"needs at least {MIN_FIT} values of each parameter"
            )
        cols[str(p)] = values
    if len(cols) < len(params):
        raise MetadataError(f"two of the parameters {params!r} have the same name as text")
    return pd.DataFrame(cols)


def models(ens: Ensemble, metric: Any, param: Any, agg: str = "mean") -> pd.DataFrame:
    """See :meth:`Ensemble.models`."""
    from perfweave.ensemble.model_cells import ModelSet, model_cells

    if is_param_list(ens, param) and len(param) == 1:
        (param,) = param  # one column in a list: the single-parameter model
    x = parameters(ens, param) if is_param_list(ens, param) else parameter(ens, param)
    Y = metric_matrix(ens, metric)
    fits = fit_models(x, Y, agg=agg)
    fits.index = pd.Index(np.arange(len(ens.graph), dtype=INT), name="node")
    names = ens.graph.frames["name"].to_numpy() if "name" in ens.graph.frames else None
    fits.insert(0, "name", names)
    cells = model_cells(ModelSet(fits, x, Y, param, metric, ens.unit_of(metric), agg))
    _stats._set(
        ens,
        {
            _name(metric, MODEL_TAG): cells,
            _name(metric, "_RSS" + MODEL_TAG): fits["rss"].to_numpy(),
            _name(metric, "_SMAPE" + MODEL_TAG): fits["smape"].to_numpy(),
            _name(metric, "_AR2" + MODEL_TAG): fits["ar2"].to_numpy(),
        },
    )
    return fits
