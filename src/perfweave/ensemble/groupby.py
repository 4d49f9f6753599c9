"""Groups of profiles by metadata, and folding them back into one ensemble.

``ens.groupby(by)`` gives a :class:`GroupBy`: a dict ``value -> Ensemble`` (one per
distinct value, a tuple of values for several columns) that remembers where it came from.
:meth:`GroupBy.agg` folds every group into one profile, as Thicket's ``GroupBy.agg``
does: per node, the numeric performance columns of a group's profiles are aggregated with
``func`` into columns ``<column>_<function name>`` (``Avg time/rank_mean``), other columns
keep their first value, and the metadata of a group's profiles collapse column by column
to their common value (or the set of their distinct values). The result's profile level
is named after the ``by`` column and holds its values; for several columns there is one
index level per column, as in Thicket (``dataframe`` indexed ``node, k1, k2``, ``metadata``
by ``k1, k2``, profile ids the tuples ``(v1, v2)``). ``profile_mapping`` lists every
group's sources. The whole fold is one pandas groupby over the performance table.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd

from perfweave.ensemble.ensemble import Ensemble
from perfweave.errors import ArgumentTypeError, MetadataError, ShapeError

INT = np.int64


class GroupBy(dict):
    """``value -> Ensemble`` for each distinct value of the metadata ``by``."""

    def __init__(self, by: Any, source: Ensemble, groups: dict[Any, Ensemble]) -> None:
        super().__init__(groups)
        self.by = by
        self._source = source

    def agg(self, func: Any, disable_tqdm: bool = False) -> Ensemble:
        """One ensemble with one profile per group (see the module docstring). ``func``
        is a function or its name (``np.mean``, ``"median"``), a list of them, or a dict
        ``column -> function(s)`` choosing the columns. ``disable_tqdm`` is accepted for
        Thicket's calls; the fold is one pandas groupby and shows no progress bar."""
        return aggregate(self._source, self.by, func)

    def aggregate_thicket(self, tk: Ensemble, func: Any) -> Ensemble:
        """One group's ensemble (``tk``, a value of this dict) folded into one profile,
        as :meth:`agg` folds each group (Thicket's name)."""
        if not isinstance(tk, Ensemble):
            raise ArgumentTypeError(
                f"aggregate_thicket takes an Ensemble, not a {type(tk).__name__}"
            )
        return aggregate(tk, self.by, func)


def _function_name(f: Any) -> str:
    if isinstance(f, str):
        return f
    name = getattr(f, "__name__", None)
    if not name or name == "<lambda>":
        raise ShapeError(
            f"aggregation function {f!r} has no name to put in the column names; "
            "use a named function"
        )
    return name


_PANDAS = {
    "mean": "mean",
    "median": "median",
    "std": "std",
    "var": "var",
    "min": "min",
    "amin": "min",
    "max": "max",
    "amax": "max",
    "sum": "sum",
    "count": "count",
    "nanmean": "mean",
    "nanmedian": "median",
    "nanstd": "std",
    "nanvar": "var",
    "nanmin": "min",
    "nanmax": "max",
    "nansum": "sum",
}


def _plan(func: Any, numeric: list[Any]) -> list[tuple[Any, Any, str]]:
    """(column, function, function name) triples in output order."""
    if isinstance(func, dict):
        plan = []
        for col, fs in func.items():
            if col not in numeric:
                raise ShapeError(
                    f"no numeric column {col!r} to aggregate (numeric columns: {numeric[:12]})"
                )
            for f in fs if isinstance(fs, list) else [fs]:
                plan.append((col, f, _function_name(f)))
        return plan
    funcs = func if isinstance(func, list) else [func]
    names = [_function_name(f) for f in funcs]
    return [(col, f, name) for f, name in zip(funcs, names) for col in numeric]


def _apply(grouped, col: Any, f: Any, name: str) -> pd.Series:
    how = f if isinstance(f, str) else _PANDAS.get(name) if f in _NUMPY else None
    if how is not None:
        return grouped[col].agg(how)
    return grouped[col].agg(lambda s: f(s.to_numpy()))


_NUMPY = {
    getattr(np, n)
    for n in ("mean", "median", "std", "var", "min", "max", "sum", "nanmean", "nanmedian")
    + ("nanstd", "nanvar", "nanmin", "nanmax", "nansum")
}


def _collapse(values: pd.Series) -> Any:
    """A group's metadata values: the common value, or the set of distinct values."""
    items = [tuple(v) if isinstance(v, (list, set)) else v for v in values.tolist()]
    distinct = set(items)
    return next(iter(distinct)) if len(distinct) == 1 else distinct


def aggregate(ens: Ensemble, by: Any, func: Any) -> Ensemble:
    """See :class:`GroupBy.agg`."""
    cols = by if isinstance(by, list) else [by]
    meta = ens.metadata  # ``by`` was checked by ``ens.groupby``, the only way here
    if ens.index_levels:
        raise ShapeError("agg folds profiles of one row per node; drop rank/thread levels first")
    if isinstance(ens.dataframe.columns, pd.MultiIndex):
        raise ShapeError("agg works on index ensembles, not on a columns-concat")
    keys = meta[cols[0]] if len(cols) == 1 else pd.Series(list(zip(*(meta[c] for c in cols))))
    keys.index = meta.index
    if len(cols) == 1 and keys.isna().any():
        raise MetadataError(
            f"profile {keys.index[keys.isna()][0]!r} has no value in {cols[0]!r} to group by"
        )
    codes, uniques = pd.factorize(keys, sort=True)
    df = ens.dataframe
    node = np.asarray(df.index.get_level_values("node"), dtype=INT)
    pos = meta.index.get_indexer(df.index.get_level_values(1))
    group = codes[pos]
    numeric = ens.performance_cols
    plan = _plan(func, numeric)
    grouped = df.groupby([node, group], sort=True)
    out: dict[Any, pd.Series] = {}
    for col, f, name in plan:
        out[f"{col}_{name}"] = _apply(grouped, col, f, name)
    for col in df.columns:
        if col not in numeric:
            out[col] = grouped[col].first()
    table = pd.DataFrame(out)
    idx = table.index
    group_levels, group_codes = _key_levels(uniques, cols)
    row_group = np.asarray(idx.get_level_values(1), dtype=INT)
    table.index = pd.MultiIndex(
        levels=[pd.Index(np.arange(len(ens.graph), dtype=INT)), *group_levels],
        codes=[np.asarray(idx.get_level_values(0), dtype=INT)]
        + [c[row_group] for c in group_codes],
        names=["node", *cols],
        verify_integrity=False,
    )
    meta_out = meta.groupby(codes, sort=True).agg(_collapse)
    meta_out.index = (
        pd.Index(uniques, name=cols[0])
        if len(cols) == 1
        else pd.MultiIndex.from_tuples(list(uniques), names=cols)
    )
    mapping: dict[Hashable, list] = {k: [] for k in uniques}
    for pid, code in zip(meta.index, codes):
        mapping[uniques[code]].append(ens.profile_mapping.get(pid, pid))
    renamed = _renamed(plan)
    default = next(
        (f"{ens.default_metric}_{n}" for c, _, n in plan if c == ens.default_metric), None
    )
    return Ensemble(
        ens.graph,
        table,
        meta_out,
        [m for c, m in renamed if c in ens.exc_metrics],
        [m for c, m in renamed if c in ens.inc_metrics],
        default or ens.default_metric,
        None,
        mapping,
        list(ens.errors),
        ens.units,
    )


def _key_levels(uniques: Any, cols: list[Any]) -> tuple[list[pd.Index], list[np.ndarray]]:
    """Index levels of the groups' keys: one level of values per ``by`` column (a group's
    position in ``uniques`` -> its code in each level)."""
    if len(cols) == 1:
        return [pd.Index(uniques)], [np.arange(len(uniques), dtype=INT)]
    levels, codes = [], []
    for j in range(len(cols)):
        code, level = pd.factorize(pd.Series([u[j] for u in uniques], dtype=object), sort=True)
        levels.append(pd.Index(list(level)))
        codes.append(np.asarray(code, dtype=INT))
    return levels, codes


def _renamed(plan: list[tuple[Any, Callable, str]]) -> list[tuple[Any, str]]:
    return [(col, f"{col}_{name}") for col, _, name in plan]
