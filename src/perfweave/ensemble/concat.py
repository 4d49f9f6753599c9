"""Concatenating ensembles (Thicket's ``concat_thickets``).

``axis="index"`` stacks the profiles of several ensembles over the union of their graphs.
``axis="columns"`` puts ensembles that describe the same runs side by side: profiles are
matched on a metadata column, and every table gets a column MultiIndex ``(header, column)``.
Either way the graphs are unified once and every table is laid out in one step.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.graph import Graph
from perfweave.ensemble import _table
from perfweave.ensemble.build import _ordered_union, _sort_order
from perfweave.ensemble.ensemble import Ensemble
from perfweave.ensemble.profiles import check_unique, source_order
from perfweave.errors import ArgumentTypeError, MetadataError, ShapeError

INT = np.int64


def concat(
    ensembles: Sequence[Ensemble],
    axis: str = "index",
    headers: Sequence[Hashable] | None = None,
    metadata_key: str | None = None,
    fill_perfdata: bool = True,
    calltree: str = "union",
) -> Ensemble:
    """See :meth:`Ensemble.concat`."""
    if calltree not in ("union", "intersection"):
        raise ShapeError(f"calltree must be 'union' or 'intersection', not {calltree!r}")
    out = _concat(ensembles, axis, headers, metadata_key, fill_perfdata)
    return out.intersection() if calltree == "intersection" else out


def _concat(ensembles, axis, headers, metadata_key, fill_perfdata) -> Ensemble:
    ensembles = list(ensembles)
    if not ensembles:
        raise ShapeError("concat of no ensembles")
    for i, e in enumerate(ensembles):
        if not isinstance(e, Ensemble):
            raise ArgumentTypeError(f"item {i} is a {type(e).__name__}, not an Ensemble")
        if isinstance(e.dataframe.columns, pd.MultiIndex):
            raise ShapeError(f"ensemble #{i} is already a columns-concat; concat its parts")
        e._one_profile_level(f"concat (ensemble #{i})")
    levels = ensembles[0].index_levels
    for i, e in enumerate(ensembles):
        if e.index_levels != levels:
            raise ShapeError(
                f"ensemble #{i} has index levels {e.index_levels}, ensemble #0 has {levels}"
            )
    if axis == "index":
        return _concat_index(ensembles, levels, fill_perfdata)
    if axis == "columns":
        return _concat_columns(ensembles, levels, headers, metadata_key)
    raise ShapeError(f"axis must be 'index' or 'columns', not {axis!r}")


def _tables(ensembles: list[Ensemble], levels: list[str]) -> list[pd.DataFrame]:
    if not levels:
        return [e.dataframe for e in ensembles]
    return [e.dataframe.reset_index(level=levels).reset_index(drop=True) for e in ensembles]


def _concat_index(ensembles: list[Ensemble], levels: list[str], fill: bool = True) -> Ensemble:
    names = {e.profile_level for e in ensembles}
    if len(names) > 1:
        raise ShapeError(f"ensembles name their profile level differently: {sorted(names)}")
    ids, sources = [], []
    for k, e in enumerate(ensembles):
        for pid in e.metadata.index:
            ids.append(pid)
            sources.append(e.profile_mapping.get(pid, f"ensemble #{k}, profile {pid!r}"))
    check_unique(ids, sources)
    union, maps = Graph.union_all([e.graph for e in ensembles])
    files = [f for e in ensembles for f in _files(e)]
    # ensembles whose profiles are in Thicket's order of their files stay so; others by id
    in_file_order = all(_in_file_order(e) for e in ensembles)
    order = source_order(files) if in_file_order else _sort_order(ids)
    sorted_ids = pd.Index([ids[i] for i in order])
    level = ensembles[0].profile_level
    df = _table.stack(
        _tables(ensembles, levels),
        [np.asarray(e.dataframe.index.get_level_values("node"), dtype=INT) for e in ensembles],
        maps,
        [_table.profile_positions(e.dataframe, sorted_ids) for e in ensembles],
        list(sorted_ids),
        len(union),
        [f"ensemble #{k}" for k in range(len(ensembles))],
        level=level,
        extra_levels=levels,
        node_names=union.frames["name"].to_numpy(),
        fill=fill,
    )
    meta = pd.concat([e.metadata for e in ensembles], sort=False).iloc[order]
    mapping: dict = {}
    for e in ensembles:
        mapping.update(e.profile_mapping)
    return Ensemble(
        union,
        df,
        meta,
        _ordered_union(e.exc_metrics for e in ensembles),
        _ordered_union(e.inc_metrics for e in ensembles),
        ensembles[0].default_metric,
        None,
        mapping,
        [err for e in ensembles for err in e.errors],
        {m: u for e in reversed(ensembles) for m, u in e.units.items()},
    )


def _files(e: Ensemble) -> list[Any]:
    """The file each profile was read from (None where unknown)."""
    if "file" not in e.metadata.columns:
        return [None] * len(e)
    return [f if isinstance(f, str) else None for f in e.metadata["file"].tolist()]


def _in_file_order(e: Ensemble) -> bool:
    """Whether every profile was read from a file and they are in Thicket's order."""
    files = _files(e)
    if not all(isinstance(f, str) for f in files):
        return False
    return len(e) < 2 or source_order(files) == list(range(len(e)))


def _match_keys(
    ensembles: list[Ensemble], headers: list[Hashable], metadata_key: str | None
) -> tuple[list[dict], pd.Index]:
    """Profile id -> match key for every ensemble, and the sorted common keys. Without
    ``metadata_key`` the key is the profile's position: profiles read from files are in
    Thicket's order (:func:`perfweave.ensemble.profiles.source_order`), so the same runs
    are paired as Thicket pairs them."""
    keymaps: list[dict] = []
    if metadata_key is None:
        sizes = {len(e) for e in ensembles}
        if len(sizes) > 1:
            raise MetadataError(
                "without metadata_key, ensembles are matched by profile order and need as "
                f"many profiles each; they have {[len(e) for e in ensembles]}"
            )
        for e in ensembles:
            keymaps.append({pid: i for i, pid in enumerate(e.metadata.index)})
        return keymaps, pd.Index(range(len(ensembles[0])))
    for h, e in zip(headers, ensembles):
        if metadata_key == e.metadata.index.name:
            values = e.metadata.index.to_series()
        elif metadata_key in e.metadata.columns:
            values = e.metadata[metadata_key]
        else:
            raise MetadataError(
                f"ensemble {h!r} has no metadata column {metadata_key!r} to match profiles "
                f"on (columns: {list(map(str, e.metadata.columns))[:12]})"
            )
        if values.isna().any():
            pid = values.index[values.isna()][0]
            raise MetadataError(f"ensemble {h!r}: profile {pid!r} has no {metadata_key!r}")
        dup = values[values.duplicated()]
        if len(dup):
            raise MetadataError(
                f"ensemble {h!r}: {metadata_key!r} = {dup.iloc[0]!r} names more than one "
                "profile, so profiles cannot be matched on it"
            )
        keymaps.append(dict(zip(values.index, values.tolist())))
    first = set(keymaps[0].values())
    for h, km in zip(headers[1:], keymaps[1:]):
        other = set(km.values())
        if other != first:
            only_a = ", ".join(sorted(map(repr, first - other))[:5])
            only_b = ", ".join(sorted(map(repr, other - first))[:5])
            raise MetadataError(
                f"{metadata_key!r} does not match between ensembles {headers[0]!r} and {h!r}: "
                f"only in {headers[0]!r}: {only_a or 'none'}; only in {h!r}: {only_b or 'none'}"
            )
    keys = list(first)
    return keymaps, pd.Index([keys[i] for i in _sort_order(keys)])


def _concat_columns(
    ensembles: list[Ensemble],
    levels: list[str],
    headers: Sequence[Hashable] | None,
    metadata_key: str | None,
) -> Ensemble:
    headers = list(range(len(ensembles))) if headers is None else list(headers)
    if len(headers) != len(ensembles) or len(set(headers)) != len(headers):
        raise ShapeError(f"need one distinct header per ensemble, got {headers!r}")
    if "name" in headers:
        raise ShapeError("'name' cannot be a header (it labels the node-name column)")
    keymaps, keys = _match_keys(ensembles, headers, metadata_key)
    level = metadata_key or "profile"
    union, maps = Graph.union_all([e.graph for e in ensembles])
    n = len(union)
    parts = []
    for k, e in enumerate(ensembles):
        table = _tables([e], levels)[0]
        table = table.drop(columns=[c for c in ("name",) if c in table.columns])
        part = _table.stack(
            [table],
            [np.asarray(e.dataframe.index.get_level_values("node"), dtype=INT)],
            [maps[k]],
            [_table.profile_positions(e.dataframe, keys, keymaps[k])],
            list(keys),
            n,
            [f"ensemble {headers[k]!r}"],
            level=level,
            extra_levels=levels,
        )
        part.columns = pd.MultiIndex.from_tuples([(headers[k], c) for c in part.columns])
        parts.append(part)
    if levels:
        df = pd.concat(parts, axis=1).sort_index()
    else:
        data = {}
        for part in parts:
            data.update({c: part[c].array for c in part.columns})
        df = pd.DataFrame(data, index=parts[0].index, copy=False)
        df.columns = pd.MultiIndex.from_tuples(list(data))
    if levels:
        names = union.frames["name"].to_numpy()[np.asarray(df.index.get_level_values("node"))]
    else:
        names = _table.name_column(union.frames["name"].to_numpy(), len(keys))
    df.insert(0, ("name", ""), names)
    exc = [(h, m) for h, e in zip(headers, ensembles) for m in e.exc_metrics]
    inc = [(h, m) for h, e in zip(headers, ensembles) for m in e.inc_metrics]
    metas = []
    for h, e, km in zip(headers, ensembles, keymaps):
        m = e.metadata.copy()
        m.index = pd.Index([km[p] for p in m.index], name=level)
        if metadata_key in m.columns:
            m = m.drop(columns=[metadata_key])
        m = m.reindex(keys)
        m.columns = pd.MultiIndex.from_tuples([(h, c) for c in m.columns])
        metas.append(m)
    meta = pd.concat(metas, axis=1)
    meta.index.name = level
    mapping = _column_mapping(ensembles, headers, keymaps)
    default = (headers[0], ensembles[0].default_metric)
    return Ensemble(union, df, meta, exc, inc, default, None, mapping)


def _column_mapping(
    ensembles: list[Ensemble], headers: list[Hashable], keymaps: list[dict]
) -> dict[Any, dict[Hashable, Any]]:
    """Match key -> {header: source of the matched profile}."""
    out: dict[Any, dict[Hashable, Any]] = {}
    for h, e, km in zip(headers, ensembles, keymaps):
        for pid, key in km.items():
            out.setdefault(key, {})[h] = e.profile_mapping.get(pid, pid)
    return out
