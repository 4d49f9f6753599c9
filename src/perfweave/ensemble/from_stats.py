"""An ensemble of ensembles' statistics (Thicket's ``Thicket.from_statsframes``).

Each input ensemble becomes one profile whose performance data is its ``statsframe``:
the statistics of its profiles (``Avg time/rank_mean`` ...), one row per node. So several
studies summarised with :meth:`Ensemble.stats` (one build each, say) can be compared side
by side like runs. The profile ids are the positions ``0..n-1``, or, with ``metadata_key``,
each input's value of that metadata column (which must be one value per input, and differ
between inputs); the profiles are in the order of their ids, as Thicket sorts them. Each
profile's metadata are its input's metadata collapsed column by column to their common value
(or the set of their distinct values), as :meth:`GroupBy.agg` collapses a group's, and its
``profile_mapping`` lists every source of its input. The graphs are unified once, as in
:meth:`Ensemble.concat`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from perfweave.ensemble.concat import concat
from perfweave.ensemble.ensemble import Ensemble
from perfweave.ensemble.groupby import _collapse
from perfweave.errors import ArgumentTypeError, MetadataError, ShapeError


def from_statsframes(ensembles: Sequence[Ensemble], metadata_key: str | None = None) -> Ensemble:
    """See the module docstring and :meth:`Ensemble.from_statsframes`."""
    ensembles = list(ensembles)
    if not ensembles:
        raise ShapeError("from_statsframes of no ensembles")
    ids = [_profile_id(e, i, metadata_key) for i, e in enumerate(ensembles)]
    seen: dict[Hashable, int] = {}
    for i, pid in enumerate(ids):
        j = seen.setdefault(pid, i)
        if j != i:
            raise MetadataError(
                f"ensembles #{j} and #{i} both have {metadata_key}={pid!r}; "
                "from_statsframes needs a different value per ensemble"
            )
    level = "profile" if metadata_key is None else metadata_key
    parts = [_one_profile(e, pid, level, metadata_key) for e, pid in zip(ensembles, ids)]
    return concat(parts, axis="index")


def _profile_id(ens: Ensemble, i: int, metadata_key: str | None) -> Hashable:
    if not isinstance(ens, Ensemble):
        raise ArgumentTypeError(f"item {i} is a {type(ens).__name__}, not an Ensemble")
    if isinstance(ens.statsframe.columns, pd.MultiIndex):
        raise ShapeError(
            f"ensemble #{i} is a columns-concat; from_statsframes takes the statistics "
            "of index ensembles (build one per header)"
        )
    if metadata_key is None:
        return i
    if metadata_key not in ens.metadata.columns:
        raise MetadataError(
            f"ensemble #{i} has no metadata {metadata_key!r} "
            f"(columns: {list(ens.metadata.columns)[:12]})"
        )
    values = ens.metadata[metadata_key]
    distinct = list(dict.fromkeys(values.tolist()))
    if len(distinct) != 1:
        raise MetadataError(
            f"ensemble #{i} has {len(distinct)} values of {metadata_key!r} "
            f"({distinct[:6]}), not one to name its profile; group its profiles with "
            f"ens.groupby({metadata_key!r}).agg(...) instead"
        )
    value = distinct[0]
    return value.item() if hasattr(value, "item") else value


def _one_profile(ens: Ensemble, pid: Hashable, level: str, metadata_key: str | None) -> Ensemble:
    """``ens``'s statistics as an ensemble of one profile ``pid``."""
    stats = pd.DataFrame(ens.statsframe, copy=True)
    stats.index = pd.MultiIndex.from_arrays(
        [stats.index, [pid] * len(stats)], names=["node", level]
    )
    meta = ens.metadata.drop(columns=[metadata_key] if metadata_key else [])
    row = {c: _collapse(meta[c]) for c in meta.columns}
    metadata = pd.DataFrame([row], index=pd.Index([pid], name=level), columns=meta.columns)
    derived = [c for c in stats.columns if c != "name"]
    exc = [c for c in derived if _base(c, ens.exc_metrics) is not None]
    inc = [c for c in derived if _base(c, ens.inc_metrics) is not None]
    default = f"{ens.default_metric}_mean"
    if default not in derived:
        default = derived[0] if derived else ens.default_metric
    units = {c: ens.unit_of(base) for c in derived if (base := _stat_of(c, ens)) is not None}
    sources = [ens.profile_mapping.get(p, p) for p in ens.profiles]
    return Ensemble(
        ens.graph,
        stats,
        metadata,
        exc,
        inc,
        default,
        None,
        {pid: sources},
        list(ens.errors),
        {c: u for c, u in units.items() if u},
    )


# statistics whose values are in the unit of the column they describe
_SAME_UNIT = ("mean", "median", "std", "min", "max", "sum")


def _base(column: Any, metrics: list[Any]) -> Any:
    """The metric of ``metrics`` that ``column`` (``<metric>_<statistic>``) describes."""
    for m in sorted(metrics, key=lambda m: -len(str(m))):  # the longest name that fits
        if isinstance(column, str) and column.startswith(f"{m}_"):
            return m
    return None


def _stat_of(column: Any, ens: Ensemble) -> Any:
    """The metric ``column`` describes where the statistic keeps its unit, else None."""
    base = _base(column, ens.exc_metrics + ens.inc_metrics)
    if base is None:
        return None
    stat = column[len(str(base)) + 1 :]
    return base if stat in _SAME_UNIT or stat.startswith("percentiles_") else None
