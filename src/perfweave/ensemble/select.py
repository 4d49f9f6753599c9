"""Choosing profiles and nodes: intersection, filter_metadata, filter_profile, groupby."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from perfweave.calltree.row_filter import row_mask
from perfweave.ensemble import _table
from perfweave.ensemble.ensemble import Ensemble
from perfweave.errors import MetadataError

if TYPE_CHECKING:  # pragma: no cover
    from perfweave.ensemble.groupby import GroupBy

INT = np.int64


def intersection(ens: Ensemble) -> Ensemble:
    """Nodes present in every profile (a node is present where its ``name`` is set)."""
    df = ens.dataframe
    node = np.asarray(df.index.get_level_values("node"), dtype=INT)
    prof = _table.profile_positions(df, ens.metadata.index)
    has = _table._row_present(df) & (prof >= 0)
    n, p = len(ens.graph), len(ens.metadata)
    pairs = np.zeros(n * p, bool)
    pairs[node[has] * p + prof[has]] = True
    keep = pairs.reshape(n, p).all(axis=1)
    return ens._restrict(keep)


def select_profiles(ens: Ensemble, profiles: Sequence[Hashable]) -> Ensemble:
    """Keep ``profiles`` (in table order) and the nodes they have; statistics are reset."""
    missing = [p for p in profiles if p not in ens.metadata.index]
    if missing:
        raise MetadataError(f"no profile {missing[0]!r} in this ensemble")
    if not profiles:
        raise MetadataError("no profile selected; an ensemble needs at least one")
    wanted = ens.metadata.index.isin(profiles)
    meta = ens.metadata[wanted]
    pos = _table.profile_positions(ens.dataframe, ens.metadata.index)
    rows = (pos >= 0) & wanted[pos]
    df = ens.dataframe[rows]
    if isinstance(df.index, pd.MultiIndex):
        df.index = df.index.remove_unused_levels()
    kept = set(meta.index)
    mapping = {k: v for k, v in ens.profile_mapping.items() if k in kept}
    sub = ens._replace(dataframe=df, metadata=meta, profile_mapping=mapping)
    present = _table.present_nodes(df, len(ens.graph))
    return sub._restrict(present, reset_stats=True)


def filter_metadata(ens: Ensemble, predicate: Callable[[pd.Series], bool] | Any) -> Ensemble:
    """Profiles whose metadata row satisfies ``predicate`` (or a boolean mask)."""
    if callable(predicate):
        mask = row_mask(ens.metadata, predicate)
    else:
        mask = predicate
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != (len(ens.metadata),):
        raise MetadataError(
            f"filter_metadata needs one boolean per profile ({len(ens.metadata)}), "
            f"got shape {mask.shape}"
        )
    if not mask.any():
        raise MetadataError("filter_metadata kept no profile; an ensemble needs at least one")
    return select_profiles(ens, ens.metadata.index[mask].tolist())


def groupby(ens: Ensemble, by: Any) -> GroupBy:
    """One ensemble per distinct value (tuple for several columns) of metadata ``by``,
    in a :class:`~perfweave.ensemble.groupby.GroupBy` that can fold them back (``agg``)."""
    from perfweave.ensemble.groupby import GroupBy

    cols = [by] if not isinstance(by, list) else by
    for c in cols:
        if c not in ens.metadata.columns:
            raise MetadataError(
                f"no metadata column {c!r} to group by (columns: {list(ens.metadata.columns)[:12]})"
            )
    # by the columns' values: after a groupby-agg a key is also the index's name
    # (one column in a list groups by that column: a scalar key, as pandas 2 and Thicket
    # give it; pandas 3 warns that a list of one will give 1-tuples)
    keys = ens.metadata[cols[0]] if len(cols) == 1 else [ens.metadata[c] for c in cols]
    groups = ens.metadata.groupby(keys, dropna=False, sort=True).groups
    return GroupBy(
        by, ens, {key: select_profiles(ens, list(index)) for key, index in groups.items()}
    )
