"""Readable labels for an ensemble's profiles.

Profiles are indexed by ids a person cannot read (an 18-digit hash of the metadata, as in
Thicket); the ids stay the index, and everything a person reads shows a label instead:

1. ``a=1, b=x`` of the fewest metadata columns (at most three, picked one by one, each
   telling the most profiles apart) that tell every profile apart, among the columns that
   describe a run rather than measure it: whole numbers or short text (at most 24
   characters), not a date, time, path, file, host or user;
2. else the paths of the files the profiles were read from, without the folders they all
   start with, the parts they all end with and the suffix (``27_cores``), when those differ;
3. else the columns of 1. even if some profiles share them;
4. else the id itself.

A label that is still shared gets `` #2``, `` #3`` ... so labels are unique.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from pathlib import PurePath

import numpy as np
import pandas as pd

MAX_VALUE_CHARS = 24
_NOT_DESCRIPTIVE = re.compile(r"date|time|stamp|path|file|host|user|uuid|(^|[._])id$", re.I)


def _value_text(value: object) -> str | None:
    """Text of a scalar describing a run, or None (floats with a fraction, lists, long text)."""
    if isinstance(value, bool | np.bool_):
        return str(value)
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return str(int(value)) if np.isfinite(value) and float(value).is_integer() else None
    if isinstance(value, str):
        return value if 0 < len(value) <= MAX_VALUE_CHARS else None
    return None


def _descriptive_columns(metadata: pd.DataFrame) -> dict[Hashable, list[str]]:
    """Columns whose values differ between profiles and read as a description, as text."""
    out: dict[Hashable, list[str]] = {}
    for column in metadata.columns:
        if _NOT_DESCRIPTIVE.search(str(column)):
            continue
        texts = [_value_text(v) for v in metadata[column].tolist()]
        if any(t is None for t in texts) or len(set(texts)) < 2:
            continue
        out[column] = texts  # type: ignore[assignment]
    return out


def _file_names(profiles: list, mapping: Mapping) -> list[str] | None:
    """The files' paths without the folders they all start with, the parts they all end with
    and the suffix (``27_cores``, ``lassen/1048576/3/Base_CUDA-block_128``); None when a
    profile was not read from a file."""
    names = [mapping.get(p) for p in profiles]
    if not all(isinstance(n, str | PurePath) and str(n) for n in names):
        return None
    paths = [PurePath(str(n)) for n in names]
    parts = [p.with_suffix("").parts if p.suffix else p.parts for p in paths]
    common = 0
    while all(len(q) > common + 1 for q in parts) and len({q[common] for q in parts}) == 1:
        common += 1
    tail = 0  # trailing parts every path shares (``.../Base_Seq-default``) say nothing either
    while (
        all(len(q) > common + tail + 1 for q in parts) and len({q[-1 - tail] for q in parts}) == 1
    ):
        tail += 1
    return ["/".join(q[common : len(q) - tail]) for q in parts]


def _greedy(columns: dict[Hashable, list[str]], n: int, most: int = 3) -> list[Hashable]:
    """Up to ``most`` columns, each adding the most distinct value combinations."""
    chosen: list[Hashable] = []
    keys = [()] * n
    for _ in range(most):
        best, best_keys = None, keys
        for column, texts in columns.items():
            if column in chosen:
                continue
            trial = [(*k, t) for k, t in zip(keys, texts)]
            if len(set(trial)) > len(set(best_keys)):
                best, best_keys = column, trial
        if best is None:
            break
        chosen.append(best)
        keys = best_keys
        if len(set(keys)) == n:
            break
    return chosen


def _unique(labels: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return out


def profile_labels(metadata: pd.DataFrame, profile_mapping: Mapping | None = None) -> pd.Series:
    """A label per profile (index: the profile ids of ``metadata``), chosen as the module
    docstring says."""
    profiles = metadata.index.tolist()
    n = len(profiles)
    columns = _descriptive_columns(metadata) if n > 1 else {}
    chosen = _greedy(columns, n)
    combos = [", ".join(f"{c}={columns[c][i]}" for c in chosen) for i in range(n)]
    files = _file_names(profiles, profile_mapping or {})
    if chosen and len(set(combos)) == n:
        labels = combos
    elif files is not None and len(set(files)) == n:
        labels = files
    elif chosen:
        labels = combos
    else:
        labels = files or [str(p) for p in profiles]
    return pd.Series(_unique(labels), index=metadata.index, name="label", dtype=object)


def summary(labels: list[str], limit: int = 4) -> str:
    """``labels`` on one line: ``mpi.world.size = 27, 64, ...`` when they share a column."""
    prefix = labels[0].split("=", 1)[0] + "=" if labels and "=" in labels[0] else None
    if (
        prefix
        and "," not in prefix
        and all(lab.startswith(prefix) and "," not in lab for lab in labels)
    ):
        values = [lab[len(prefix) :] for lab in labels]
        head = f"{prefix[:-1]} = "
    else:
        values, head = list(labels), ""
    sep = "; " if any(", " in v for v in values) else ", "
    more = f"{sep}... ({len(values)} in all)" if len(values) > limit else ""
    return head + sep.join(values[:limit]) + more


def by_profile(ens, column: Hashable) -> pd.DataFrame:
    """``column`` of ``ens`` as nodes x profiles, headed by the profiles' labels."""
    from perfweave.errors import ShapeError

    df = ens.dataframe
    if column not in df.columns:
        raise ShapeError(f"no column {column!r} in the ensemble's dataframe")
    if ens.index_levels:
        raise ShapeError(
            f"by_profile needs one row per (node, profile); aggregate the "
            f"{', '.join(ens.index_levels)} levels first"
        )
    wide = df[column].unstack(ens.profile_level).reindex(columns=ens.metadata.index)
    wide.columns = pd.Index(ens.labels.tolist(), name="profile")
    names = ens.statsframe["name"].reindex(wide.index) if "name" in ens.statsframe else None
    if names is not None:
        wide.insert(0, "name", names.to_numpy())
    return wide
