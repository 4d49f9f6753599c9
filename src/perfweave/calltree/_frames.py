"""Frame tables: one row of attributes per node, with vectorised identity and order.

A graph keeps its frames as a pandas DataFrame (one column per attribute, missing values
for attributes a frame does not have). ``frame_codes`` gives every node an integer that is
equal exactly when the frames are equal, and a rank that sorts frames as Hatchet does
(by their sorted ``(attribute, value)`` pairs).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfweave.calltree.frame import Frame

INT = np.int64


def normalize_table(table: pd.DataFrame) -> pd.DataFrame:
    """Columns sorted by name, a RangeIndex, and a ``type`` column ("None" where absent)."""
    index = table.index
    # (speed, small graphs) a table that is already normalized is returned as it is
    if (
        not (isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1)
        or index.name is not None
    ):
        table = table.reset_index(drop=True)
    if "type" not in table.columns:
        table = table.assign(type="None")
    elif table["type"].isna().any():
        table = table.assign(type=table["type"].astype(object).where(table["type"].notna(), "None"))
    columns = sorted(table.columns)
    return table if list(table.columns) == columns else table[columns]


def frame_codes(
    table: pd.DataFrame, with_rank: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    """(code, rank) per row: equal frames share a code; rank orders the distinct frames."""
    n = len(table)
    if n == 0:
        return np.zeros(0, INT), np.zeros(0, INT)
    if n <= _SMALL:  # (speed) small all-text tables: one plain pass, no per-column pandas calls
        small = _text_frame_codes(table, with_rank)
        if small is not None:
            return small
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


_SMALL = 4096  # rows up to which a Python pass beats pandas' fixed per-call costs


def _text_frame_codes(
    table: pd.DataFrame, with_rank: bool
) -> tuple[np.ndarray, np.ndarray | None] | None:
    """``frame_codes`` of a table whose every value is a ``str`` (object or string dtype),
    else None. Same result as the vectorised path: codes number the distinct rows in order
    of first appearance; ranks sort them as tuples in column order (which is the
    column-by-column lexicographic order of factorize(sort=True) codes for text)."""
    cols = []
    for c in table.columns:
        s = table[c]
        if not (s.dtype == object or isinstance(s.dtype, pd.StringDtype)):
            return None
        values = s.tolist()
        if not all(type(v) is str for v in values):
            return None
        cols.append(values)
    index: dict[tuple, int] = {}
    code = np.fromiter(
        (index.setdefault(row, len(index)) for row in zip(*cols)), INT, count=len(table)
    )
    if not with_rank:
        return code, None
    distinct = list(index)
    k = len(distinct)
    rank_of_code = np.empty(k, INT)
    rank_of_code[sorted(range(k), key=distinct.__getitem__)] = np.arange(k, dtype=INT)
    return code, rank_of_code[code]


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
    # frames with different attributes: sort the rows' (attribute, value) sequences as
    # tuples, vectorised: one (column index, value rank) pair per present attribute, in
    # column (= attribute name) order, padded with -1 (a shorter tuple sorts first)
    values = [_value_ranks(reps[c].to_numpy(dtype=object)) for c in reps.columns]
    present = np.stack([p for p, _ in values], axis=1)
    slot = np.cumsum(present, axis=1) - 1
    keys = np.full((k, 2 * len(values)), -1, INT)
    rows, cols = np.nonzero(present)
    keys[rows, 2 * slot[rows, cols]] = cols
    keys[rows, 2 * slot[rows, cols] + 1] = np.stack([r for _, r in values], axis=1)[rows, cols]
    order = np.lexsort(keys.T[::-1])
    rank = np.empty(k, INT)
    rank[order] = np.arange(k)
    return rank


def _value_ranks(vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(present, rank) of one attribute's values in ``_sortable`` order: numbers by value
    first, then everything else by its text."""
    present = ~pd.isna(vals)
    rank = np.zeros(len(vals), INT)
    kind = pd.api.types.infer_dtype(vals[present], skipna=True)
    if kind in ("integer", "floating", "mixed-integer-float", "boolean", "decimal"):
        is_num = present
    elif kind in ("string", "empty"):
        is_num = np.zeros(len(vals), bool)
    else:
        is_num = present & np.fromiter(
            (isinstance(v, (int, float, np.number)) for v in vals), bool, len(vals)
        )
    is_txt = present & ~is_num
    n_num = 0
    if is_num.any():
        uniq, inv = np.unique(vals[is_num].astype(np.float64), return_inverse=True)
        rank[is_num], n_num = inv, len(uniq)
    if is_txt.any():
        codes, _ = pd.factorize(np.asarray([str(v) for v in vals[is_txt]], dtype=object), sort=True)
        rank[is_txt] = n_num + codes
    return present, rank


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
