"""Moving metadata into the performance table, re-indexing profiles, finding nodes.

- :func:`metadata_columns_to_perfdata`: metadata columns copied to every row of their
  profile in the performance table (Thicket's name), e.g. to group or plot by them.
- :func:`replace_profile_index`: a metadata column with one distinct value per profile
  becomes the profile ids (``mpi.world.size`` instead of a hash; thicket#233), in the
  performance table's profile level, the metadata index and ``profile_mapping``.
- :func:`get_node`: the node(s) of a name, first/last in preorder or all.

Unlike Thicket's in-place methods these return a new ensemble, as every perfweave
operation does; the input is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.graph import Node
from perfweave.ensemble import _table
from perfweave.ensemble.ensemble import Ensemble
from perfweave.errors import GraphError, MetadataError, ShapeError

INT = np.int64


def _metadata_column(ens: Ensemble, column: Any, what: str) -> pd.Series:
    if column not in ens.metadata.columns:
        raise MetadataError(
            f"no metadata column {column!r} {what} (columns: "
            f"{list(map(str, ens.metadata.columns))[:12]})"
        )
    return ens.metadata[column]


def metadata_columns_to_perfdata(
    ens: Ensemble,
    metadata_columns: Any | Sequence[Any],
    overwrite: bool = False,
    drop: bool = False,
) -> Ensemble:
    """A new ensemble whose performance table has the metadata ``metadata_columns``
    (each row gets its profile's value); ``drop`` removes them from the metadata."""
    cols = (
        [metadata_columns] if isinstance(metadata_columns, (str, tuple)) else list(metadata_columns)
    )
    for c in cols:
        _metadata_column(ens, c, "to copy to the performance table")
        if c in ens.dataframe.columns and not overwrite:
            raise MetadataError(
                f"the performance table already has a column {c!r}; pass overwrite=True "
                "to replace it"
            )
    pos = _table.profile_positions(ens.dataframe, ens.metadata.index)
    df = ens.dataframe.copy(deep=False)
    for c in cols:
        df[c] = ens.metadata[c].to_numpy()[pos]
    meta = ens.metadata.drop(columns=cols) if drop else ens.metadata
    return ens._replace(dataframe=df, metadata=meta)


def replace_profile_index(ens: Ensemble, column: Any) -> Ensemble:
    """A new ensemble whose profile ids are the values of metadata ``column`` (unique,
    no missing value); the profile level is named ``column``."""
    values = _metadata_column(ens, column, "to index the profiles by")
    if values.isna().any():
        pid = values.index[values.isna()][0]
        raise MetadataError(f"profile {pid!r} has no value in {column!r}; ids cannot be missing")
    dup = values[values.duplicated(keep=False)]
    if len(dup):
        raise MetadataError(
            f"metadata column {column!r} is not unique: {dup.iloc[0]!r} names profiles "
            f"{dup.index[dup == dup.iloc[0]].tolist()[:4]}"
        )
    if isinstance(ens.dataframe.columns, pd.MultiIndex):
        raise ShapeError("replace_profile_index works on index ensembles, not a columns-concat")
    new_of = dict(zip(values.index, values.tolist()))
    df = ens.dataframe
    idx = df.index
    keys = len(ens.profile_levels)  # several after a multi-key groupby-agg: become one
    pos = _table.profile_positions(df, ens.metadata.index)
    new_index = pd.MultiIndex(
        levels=[idx.levels[0], pd.Index(values.tolist()), *idx.levels[1 + keys :]],
        codes=[idx.codes[0], pos, *idx.codes[1 + keys :]],
        names=["node", column, *idx.names[1 + keys :]],
        verify_integrity=False,
    )
    df = df.set_axis(new_index, axis=0)
    meta = ens.metadata.drop(columns=[column])
    meta.index = pd.Index(values.tolist(), name=column)
    if not meta.index.is_monotonic_increasing:
        try:
            order = np.argsort(meta.index.to_numpy(), kind="stable")
        except TypeError:  # values that do not sort (mixed types): keep the order
            order = None
        if order is not None:
            meta = meta.iloc[order]
            df = _reorder_profiles(df, meta.index)
    mapping = {new_of[k]: v for k, v in ens.profile_mapping.items() if k in new_of}
    stats = ens.statsframe.copy(deep=False)
    return ens._replace(dataframe=df, metadata=meta, profile_mapping=mapping, statsframe=stats)


def _reorder_profiles(df: pd.DataFrame, profiles: pd.Index) -> pd.DataFrame:
    """Rows in (node, profile) order for the profile order ``profiles``."""
    pos = _table.profile_positions(df, profiles)
    node = np.asarray(df.index.get_level_values("node"), dtype=INT)
    extra = [np.asarray(df.index.codes[i]) for i in range(2, df.index.nlevels)]
    order = np.lexsort([*reversed(extra), pos, node])
    out = df.iloc[order]
    idx = out.index
    codes = [idx.codes[0], pos[order], *idx.codes[2:]]
    levels = [idx.levels[0], profiles, *idx.levels[2:]]
    out.index = pd.MultiIndex(levels=levels, codes=codes, names=idx.names, verify_integrity=False)
    return out


def get_node(ens: Ensemble, name: str, which: str = "first") -> Node | list[Node]:
    """The node named ``name``: the ``"first"`` or ``"last"`` in preorder, or ``"all"``."""
    if which not in ("first", "last", "all"):
        raise GraphError(f"which must be 'first', 'last' or 'all', not {which!r}")
    names = ens.graph.frames["name"].to_numpy()
    ids = np.flatnonzero(names == name)
    if not len(ids):
        raise GraphError(f"no node named {name!r} in this ensemble's {len(names)} nodes")
    if which == "all":  # node ids are in preorder
        return [Node(ens.graph, i) for i in ids]
    return Node(ens.graph, ids[0] if which == "first" else ids[-1])
