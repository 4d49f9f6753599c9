"""Frame tables: one row of attributes per node, with vectorised identity and order.

A graph keeps its frames as a pandas DataFrame (one column per attribute, missing values
for attributes a frame does not have). ``frame_codes`` gives every node an integer that is
equal exactly when the frames are equal, and a rank that sorts frames as Hatchet does
(by their sorted ``(attribute, value)`` pairs).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfweave.calltree.frame import Frame, _sortable

INT = np.int64


def normalize_table(table: pd.DataFrame) -> pd.DataFrame:
    """Columns sorted by name, a RangeIndex, and a ``type`` column ("None" where absent)."""
    table = table.reset_index(drop=True)
    if "type" not in table.columns:
        table = table.assign(type="None")
    elif table["type"].isna().any():
        table = table.assign(type=table["type"].astype(object).where(table["type"].notna(), "None"))
    return table[sorted(table.columns)]


def frame_codes(
    table: pd.DataFrame, with_rank: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    """(code, rank) per row: equal frames share a code; rank orders the distinct frames."""
    n = len(table)
    if n == 0:
        return np.zeros(0, INT), np.zeros(0, INT)
    combined = np.zeros(n, INT)
    for col in table.columns:
        c, uniq = pd.factorize(table[col], use_na_sentinel=True)
        combined, _ = pd.factorize(combined * (len(uniq) + 1) + (c + 1))
    combined = combined.astype(INT)
    if not with_rank:
        return combined, None
    n_codes = int(combined.max()) + 1
    first = np.full(n_codes, n, INT)
    np.minimum.at(first, combined, np.arange(n, dtype=INT))
    reps = table.iloc[first]
    rank_of_code = _rank_frames(reps)
    return combined, rank_of_code[combined]


def _rank_frames(reps: pd.DataFrame) -> np.ndarray:
    """Rank of each (distinct) frame row in Hatchet's frame order."""
    k = len(reps)
    if not reps.isna().to_numpy().any():
        try:  # all frames have the same attributes: a lexicographic sort over columns
            keys = [pd.factorize(reps[c], sort=True)[0] for c in reps.columns]
            order = np.lexsort(keys[::-1])
            rank = np.empty(k, INT)
            rank[order] = np.arange(k)
            return rank
        except TypeError:  # a column mixes numbers and strings
            pass
    tuples = [_sortable(f.tuple_repr) for f in frames_of(reps)]
    order = sorted(range(k), key=tuples.__getitem__)
    rank = np.empty(k, INT)
    rank[np.asarray(order, dtype=INT)] = np.arange(k)
    return rank


def frames_of(table: pd.DataFrame) -> list[Frame]:
    """Frame objects for the rows of a frame table (missing attributes left out)."""
    cols = list(table.columns)
    out = []
    for row in table.itertuples(index=False, name=None):
        out.append(Frame({c: _plain(v) for c, v in zip(cols, row) if not _missing(v)}))
    return out


def frame_at(table: pd.DataFrame, i: int) -> Frame:
    row = table.iloc[i]
    return Frame({c: _plain(v) for c, v in row.items() if not _missing(v)})


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and v != v) or v is pd.NA


def _plain(v):
    """numpy scalars to Python scalars (so frames print and compare like Hatchet's)."""
    return v.item() if isinstance(v, np.generic) else v


def joint_codes(a: pd.DataFrame, b: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Frame codes of two tables in one shared code space."""
    both = pd.concat([a, b], ignore_index=True, sort=True)
    codes, _ = frame_codes(both, with_rank=False)
    return codes[: len(a)], codes[len(a) :]
