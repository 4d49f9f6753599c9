"""Stacking per-profile metric tables into one (node, profile) table over a union graph.

Every input row carries an old node id, a map old -> union id and a profile position; the
output is laid out densely: row ``node * P + profile`` for every union node and profile
(Thicket's "fill_perfdata"), so no sort is needed and missing rows are NaN (``name`` is
missing too, which marks a node the profile does not have). Tables with rank/thread
levels are stacked, remapped and sorted instead (no fill).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from perfweave.errors import ShapeError

INT = np.int64


def profile_positions(
    df: pd.DataFrame, targets: pd.Index, relabel: dict | None = None
) -> np.ndarray:
    """Position in ``targets`` of each row's profile (index level 1, after ``relabel``;
    -1 if absent), one lookup per distinct profile of the level. Profiles keyed by several
    levels (``targets`` a MultiIndex) are read from levels 1..k."""
    idx = df.index
    if targets.nlevels > 1:
        keys = pd.MultiIndex.from_arrays(
            [idx.get_level_values(i) for i in range(1, 1 + targets.nlevels)]
        )
        return targets.get_indexer(keys)
    level = idx.levels[1]
    labels = level if relabel is None else pd.Index([relabel[v] for v in level])
    return targets.get_indexer(labels)[np.asarray(idx.codes[1], dtype=INT)]


def dense_index(n_nodes: int, profiles: Sequence, level: str = "profile") -> pd.MultiIndex:
    """The (node, profile) index of a dense table, built from codes (no sort, no hashing)."""
    p = len(profiles)
    return pd.MultiIndex(
        levels=[pd.Index(np.arange(n_nodes, dtype=INT)), pd.Index(profiles)],
        codes=[np.repeat(np.arange(n_nodes), p), np.tile(np.arange(p), n_nodes)],
        names=["node", level],
        verify_integrity=False,
    )


def is_dense(df: pd.DataFrame, n_nodes: int, n_profiles: int) -> bool:
    """True when ``df`` has exactly the dense (node, profile) layout of :func:`dense_index`."""
    idx = df.index
    if idx.nlevels != 2 or len(df) != n_nodes * n_profiles or not len(df):
        return False
    nodes = idx.levels[0]
    if len(nodes) != n_nodes or not np.array_equal(nodes, np.arange(n_nodes)):
        return False
    if len(idx.levels[1]) != n_profiles:
        return False
    c0, c1 = idx.codes
    return bool(
        np.array_equal(c0, np.repeat(np.arange(n_nodes), n_profiles))
        and np.array_equal(c1, np.tile(np.arange(n_profiles), n_nodes))
    )


def stack(
    tables: Sequence[pd.DataFrame],
    old_nodes: Sequence[np.ndarray],
    maps: Sequence[np.ndarray],
    profile_pos: Sequence[np.ndarray],
    profiles: Sequence,
    n_nodes: int,
    labels: Sequence[str],
    level: str = "profile",
    extra_levels: Sequence[str] = (),
    node_names: np.ndarray | None = None,
    rows_are_data: bool = False,
    fill: bool = True,
) -> pd.DataFrame:
    """One table over the union graph.

    ``tables[i]`` holds the metric columns of part ``i`` (row order matching
    ``old_nodes[i]`` and ``profile_pos[i]``, positions into the sorted ``profiles``);
    ``maps[i]`` sends its node ids to union ids. ``labels[i]`` names part ``i`` in errors.
    With ``extra_levels`` (rank/thread, present as columns of the tables) the rows are
    sorted instead of laid out densely. With ``node_names`` (the union graph's names) the
    dense ``name`` column is a categorical built from them: small, and its missing values
    (nodes a profile lacks) are found from integer codes. ``rows_are_data`` says every
    input row is a measured row (GraphFrames), so no name needs checking. With
    ``fill=False`` only rows with data are kept (sorted by node, then profile).
    """
    lens = np.array([len(t) for t in tables], dtype=INT)
    big = pd.concat(list(tables), ignore_index=True, sort=False) if len(tables) > 1 else tables[0]
    big = big.reset_index(drop=True)
    named = node_names is not None and not extra_levels and "name" in big.columns
    if named:  # names come from the graph; only where each row has one matters
        has_name = np.ones(len(big), bool) if rows_are_data else _has_name(big["name"])
        big = big.drop(columns="name")
    node = np.concatenate(
        [np.asarray(m, dtype=INT)[np.asarray(o, dtype=INT)] for m, o in zip(maps, old_nodes)]
    )
    prof = np.concatenate([np.asarray(p, dtype=INT) for p in profile_pos])
    p = len(profiles)
    if extra_levels:
        out = big.copy()
        out.insert(0, level, pd.Index(profiles).take(prof))
        out.insert(0, "node", node)
        return out.set_index(["node", level, *extra_levels]).sort_index()
    flat = node * p + prof
    if not fill:
        return _sparse(
            big,
            flat,
            node,
            prof,
            p,
            lens,
            labels,
            profiles,
            n_nodes,
            level,
            node_names if named else None,
            has_name if named else None,
        )
    n_rows = n_nodes * p
    seen = np.bincount(flat, minlength=n_rows)
    if len(seen) and seen.max(initial=0) > 1:
        dup = int(np.flatnonzero(seen > 1)[0])
        row = int(np.flatnonzero(flat == dup)[0])
        part = int(np.searchsorted(np.cumsum(lens), row, side="right"))
        raise ShapeError(
            f"{labels[part]}: more than one row for node {dup // p} of profile "
            f"{profiles[dup % p]!r}; keep rank/thread as index levels or aggregate first"
        )
    src = np.full(n_rows, -1, INT)
    src[flat] = np.arange(len(flat), dtype=INT)
    dense = len(flat) == n_rows
    columns = {}
    for col in big.columns:
        values = big[col].array
        columns[col] = values.take(src, allow_fill=not dense)
    if named:  # rows that were filled in an input are not data either
        present = src >= 0
        present[present] = has_name[src[present]]
        columns["name"] = name_column(node_names, p, present)
    out = pd.DataFrame(columns, index=dense_index(n_nodes, profiles, level), copy=False)
    out.columns = pd.Index(list(columns))
    return out


def _sparse(big, flat, node, prof, p, lens, labels, profiles, n_nodes, level, names, has):
    """Rows with data only, in (node, profile) order: one stable sort, no fill."""
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    if len(same):
        row = int(order[same[0] + 1])
        part = int(np.searchsorted(np.cumsum(lens), row, side="right"))
        raise ShapeError(
            f"{labels[part]}: more than one row for node {int(node[row])} of profile "
            f"{profiles[int(prof[row])]!r}; keep rank/thread as index levels or aggregate first"
        )
    if has is not None:
        order = order[has[order]]
    columns = {col: big[col].array.take(order) for col in big.columns}
    if names is not None:
        codes, categories = pd.factorize(np.asarray(names, dtype=object))
        columns["name"] = pd.Categorical.from_codes(
            codes[node[order]], categories=pd.Index(categories)
        )
    index = pd.MultiIndex(
        levels=[pd.Index(np.arange(n_nodes, dtype=INT)), pd.Index(profiles)],
        codes=[node[order], prof[order]],
        names=["node", level],
        verify_integrity=False,
    )
    out = pd.DataFrame(columns, index=index, copy=False)
    out.columns = pd.Index(list(columns))
    return out


def _has_name(col: pd.Series) -> np.ndarray:
    """Where ``name`` is set: from categorical codes, or, for Python strings, with two
    vectorised comparisons (pandas' generic check is slow on object arrays)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        return np.asarray(col.cat.codes) >= 0
    if col.dtype == object:
        values = col.to_numpy()
        try:
            with np.errstate(invalid="ignore"):
                missing = np.equal(values, None) | np.not_equal(values, values)
            return ~np.asarray(missing, dtype=bool)
        except (TypeError, ValueError):  # e.g. pd.NA, whose comparisons are not bools
            pass
    return np.asarray(col.notna(), dtype=bool)


def name_column(node_names: np.ndarray, p: int, present: np.ndarray | None = None):
    """The dense layout's ``name`` column as a categorical (missing where not ``present``)."""
    codes, categories = pd.factorize(np.asarray(node_names, dtype=object))
    row = np.repeat(codes, p)
    if present is not None:
        row[~present] = -1
    return pd.Categorical.from_codes(row, categories=pd.Index(categories))


def present_nodes(df: pd.DataFrame, n_nodes: int) -> np.ndarray:
    """Mask of nodes with at least one real row (``name`` set, or any value if no name)."""
    node = np.asarray(df.index.get_level_values("node"), dtype=INT)
    has = _row_present(df)
    out = np.zeros(n_nodes, bool)
    out[node[has]] = True
    return out


def _row_present(df: pd.DataFrame) -> np.ndarray:
    """Rows that hold data: ``name`` set; in a columns-concat table, data under every
    header (``name`` is filled there for every row)."""
    if isinstance(df.columns, pd.MultiIndex):
        notna = df.notna()
        heads = [h for h in df.columns.get_level_values(0).unique() if h != "name"]
        if not heads:
            return np.ones(len(df), bool)
        out = np.ones(len(df), bool)
        for h in heads:
            out &= notna[h].any(axis=1).to_numpy()
        return out
    if "name" in df.columns:
        return df["name"].notna().to_numpy()
    return df.notna().any(axis=1).to_numpy()
