"""Values of an HPCToolkit v4 database: ``profile.db`` (by profile) and ``cct.db`` (by context).

Both store sparse blocks of (id, value) pairs with an index of where each context's (or
metric's) run starts. A block is read as two packed structured arrays and expanded with
``np.repeat`` over the run lengths; ``cct.db``'s blocks for all wanted contexts are read
in one ragged gather. Nothing loops per value.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfweave.calltree.readers._hpctk4_binary import DbFile, clamped
from perfweave.errors import SkippedInputWarning

#: a value of larger magnitude is no measurement (1e30 cycles are 10**13 years at 3 GHz,
#: 1e30 bytes a million yottabytes): a handful of them summed would overflow to inf
ABSURD = 1e30

_INFOS = np.dtype(
    {
        "names": ["p", "n", "size"],
        "formats": ["<u8", "<u4", "u1"],
        "offsets": [0, 8, 12],
        "itemsize": 13,
    }
)
_BLOCK = np.dtype(
    {
        "names": ["nValues", "pValues", "nIdx", "pIdx"],
        "formats": ["<u8", "<u8", "<u4", "<u8"],
        "offsets": [0, 8, 16, 24],
        "itemsize": 32,
    }
)
_PROFILE = np.dtype(
    {
        "names": ["nValues", "pValues", "nIdx", "pIdx", "pIdTuple", "flags"],
        "formats": ["<u8", "<u8", "<u4", "<u8", "<u8", "<u4"],
        "offsets": [0, 8, 16, 24, 32, 40],
        "itemsize": 44,
    }
)
_CTX_BLOCK = np.dtype(
    {
        "names": ["nValues", "pValues", "nIdx", "pIdx"],
        "formats": ["<u8", "<u8", "<u2", "<u8"],
        "offsets": [0, 8, 16, 24],
        "itemsize": 32,
    }
)
_PROF_VALUE = np.dtype([("id", "<u2"), ("value", "<f8")])  # packed: 10 bytes
_PROF_INDEX = np.dtype([("ctx", "<u4"), ("start", "<u8")])  # packed: 12 bytes
_CCT_VALUE = np.dtype([("profile", "<u4"), ("value", "<f8")])  # packed: 12 bytes
_CCT_INDEX = np.dtype([("metric", "<u2"), ("start", "<u8")])  # packed: 10 bytes
_ID = np.dtype(
    [("kind", "u1"), ("pad", "u1"), ("flags", "<u2"), ("logical", "<u4"), ("physical", "<u8")]
)


@dataclass
class Sparse:
    """Values as parallel arrays: context id, metric id, profile index, value."""

    ctx: np.ndarray
    metric: np.ndarray
    profile: np.ndarray
    value: np.ndarray


def _sect(db: DbFile, name: str) -> tuple[int, int]:
    start, size = db.sections[name]
    return start, start + size


def profile_infos(db: DbFile) -> np.ndarray:
    sec = _sect(db, "ProfileInfos")
    head = db.records(sec[0], _INFOS, None, "ProfileInfos", within=sec)
    n = int(head["n"])
    return db.table(head["p"], head["size"], n, _PROFILE, "ProfileInfos", sec)


def summary_values(db: DbFile, infos: np.ndarray) -> Sparse:
    """The canonical summary profile (profile 0): (context, statistic metric id, value)."""
    if not len(infos):
        raise db.error(
            "ProfileInfos",
            db.section_start("ProfileInfos"),
            "a summary profile",
            found="no profiles",
        )
    return _profile_block(db, infos[0], 0)


def _profile_block(db: DbFile, info, index: int) -> Sparse:
    n_values, n_ctx = int(info["nValues"]), int(info["nIdx"])
    where = f"profile {index}"
    values = db.records(int(info["pValues"]), _PROF_VALUE, n_values, where)
    index_arr = db.records(int(info["pIdx"]), _PROF_INDEX, n_ctx, where)
    _each_context_once(db, index_arr["ctx"], where, int(info["pIdx"]))
    counts = _run_lengths(db, index_arr["start"], n_values, where, int(info["pIdx"]))
    ctx = np.repeat(index_arr["ctx"].astype(np.int64), counts)
    return Sparse(
        ctx,
        values["id"].astype(np.int64),
        np.full(n_values, index, np.int64),
        values["value"].astype(np.float64),
    )


def _each_context_once(db: DbFile, ctx: np.ndarray, where: str, offset: int) -> None:
    """ParseError if a context id appears twice in a profile's index (its second run of
    values would silently overwrite the first)."""
    if len(ctx) < 2 or np.all(ctx[1:] > ctx[:-1]):  # hpcprof writes them sorted
        return
    ids = np.sort(ctx)
    twice = ids[1:][ids[1:] == ids[:-1]]
    if len(twice):
        raise db.error(
            where, offset, "each context once in its index", found=f"context {int(twice[0])} twice"
        )


def _run_lengths(
    db: DbFile, start: np.ndarray, n_values: int, where: str, offset: int
) -> np.ndarray:
    """Lengths of the runs that begin at ``start`` (sorted) and end at ``n_values``."""
    raw = start.astype(np.uint64)
    # compared unsigned, before any conversion (a wrapped int64 difference could look valid)
    too_big = raw > np.uint64(n_values)
    start = np.where(too_big, -1, raw.astype(np.int64))
    if not len(start):
        if n_values:
            raise db.error(where, offset, "an index for its values", found="none")
        return start
    ends = np.append(start[1:], n_values)
    counts = ends - start
    wrong = np.r_[start[0] != 0, (counts[:-1] < 0) | too_big[1:], counts[-1] < 0]
    if wrong.any():
        k = int(np.flatnonzero(wrong)[0])
        k = min(k, len(start) - 1)
        raise db.error(
            where,
            offset,
            f"start indices rising from 0 to at most {n_values} (the number of values)",
            found=f"start {int(raw[k])} at entry {k}",
        )
    return counts


def id_tuples(db: DbFile, infos: np.ndarray, kinds: list[str]) -> pd.DataFrame:
    """One row per profile (index: profile number): each identifier kind's value (the
    physical id where the identifier is physical, else the logical one)."""
    sec = _sect(db, "IdTuples")
    raw = infos["pIdTuple"]
    has = raw != 0
    n_ids = np.zeros(len(infos), np.int64)
    n_ids[has] = db.records(raw[has], "<u2", None, "IdTuples", within=sec)
    ptr = clamped(raw)  # each non-zero one now known inside the section
    pos = np.repeat(ptr + 8, n_ids) + 16 * (
        np.arange(int(n_ids.sum())) - np.repeat(np.cumsum(n_ids) - n_ids, n_ids)
    )
    ids = db.records(pos, _ID, None, "IdTuples", within=sec)
    kind = ids["kind"].astype(np.int64)
    bad = kind >= len(kinds)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise db.error(
            "IdTuples",
            int(pos[k]),
            f"an identifier kind below {len(kinds)} (meta.db lists {len(kinds)})",
            found=str(int(kind[k])),
        )
    physical = (ids["flags"] & 1) > 0
    value = np.where(physical, ids["physical"].astype(np.int64), ids["logical"].astype(np.int64))
    long = pd.DataFrame(
        {
            "profile": np.repeat(np.arange(len(infos)), n_ids),
            "kind": np.array([k.lower() for k in kinds], dtype=object)[kind]
            if len(kind)
            else np.zeros(0, object),
            "value": value,
            "physical": physical,
        }
    )
    table = long.pivot_table(
        index="profile", columns="kind", values="value", aggfunc="first", sort=False
    )
    order = list(dict.fromkeys(long["kind"]))
    table = table.reindex(index=np.arange(len(infos)), columns=order)
    table.index.name = "profile"
    table.columns.name = None
    table.attrs["physical"] = sorted(set(long.loc[long["physical"], "kind"]))
    table["summary"] = (infos["flags"] & 1) > 0
    return table


def cct_values(db: DbFile, ctx_ids: np.ndarray, metric_ids: np.ndarray) -> Sparse:
    """(context, metric, profile, value) of contexts ``ctx_ids`` and metrics ``metric_ids``
    from cct.db: one gather for the blocks of all contexts."""
    sec = _sect(db, "CtxInfos")
    head = db.records(sec[0], _INFOS, None, "CtxInfos", within=sec)
    n_ctx = int(head["n"])
    ctx_ids = np.asarray(ctx_ids, np.int64)
    check_context_ids(db, ctx_ids)
    size = int(head["size"])
    if not len(ctx_ids):
        blocks = np.zeros(0, _CTX_BLOCK)
    else:
        db.check_array(head["p"], size, n_ctx, _CTX_BLOCK.itemsize, "CtxInfos", sec)
        blocks = db.records(
            int(head["p"]) + size * ctx_ids, _CTX_BLOCK, None, "CtxInfos", within=sec
        )
    n_metrics = blocks["nIdx"].astype(np.int64)
    values = db.ragged(blocks["pValues"], blocks["nValues"], _CCT_VALUE, "context values")
    index = db.ragged(blocks["pIdx"], n_metrics, _CCT_INDEX, "context metric indices")
    n_values = clamped(blocks["nValues"])  # each now known to fit in the file
    # each metric run: its context (row of ctx_ids), start and end inside the ragged values
    owner = np.repeat(np.arange(len(ctx_ids)), n_metrics)
    start = clamped(index["start"])
    last = np.r_[np.cumsum(n_metrics)[n_metrics > 0] - 1] if len(index) else np.zeros(0, np.int64)
    end = np.append(start[1:], 0)
    end[last] = n_values[owner[last]]
    counts = end - start
    bad = (counts < 0) | (start < 0) | (start > n_values[owner]) | (end > n_values[owner])
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise db.error(
            "context metric indices",
            int(blocks["pIdx"][owner[k]]),
            f"metric start indices within the {int(n_values[owner[k]])} values of context {int(ctx_ids[owner[k]])}",
            found=f"start {int(index['start'][k])}",
        )
    first = np.flatnonzero(n_metrics > 0)
    starts_ok = start[np.cumsum(n_metrics)[first] - n_metrics[first]] == 0
    if not starts_ok.all():
        k = int(first[np.flatnonzero(~starts_ok)[0]])
        raise db.error(
            "context metric indices",
            int(blocks["pIdx"][k]),
            "a first metric starting at value 0",
            found=f"context {int(ctx_ids[k])}",
        )
    no_index = (n_metrics == 0) & (n_values > 0)
    if no_index.any():
        k = int(np.flatnonzero(no_index)[0])
        raise db.error(
            "CtxInfos",
            int(blocks["pValues"][k]),
            "metric indices for the values of a context",
            found=f"context {int(ctx_ids[k])}: none",
        )
    metric = np.repeat(index["metric"].astype(np.int64), counts)
    ctx = np.repeat(ctx_ids[owner], counts)
    keep = np.isin(metric, metric_ids)
    return Sparse(
        ctx[keep],
        metric[keep],
        values["profile"].astype(np.int64)[keep],
        values["value"].astype(np.float64)[keep],
    )


def check_context_ids(cct: DbFile, ctx_ids: np.ndarray) -> None:
    """ParseError unless every context id of meta.db is above 0 (the global context's) and
    indexes cct.db's contexts: both modes apply it, so a context whose id matches no
    values is refused, not read as a node that measured nothing."""
    sec = _sect(cct, "CtxInfos")
    n_ctx = int(cct.records(sec[0], _INFOS, None, "CtxInfos", within=sec)["n"])
    outside = (ctx_ids <= 0) | (ctx_ids >= n_ctx)
    if outside.any():
        raise cct.error(
            "CtxInfos",
            sec[0],
            f"context ids 1..{n_ctx - 1} (0 is the global context; {n_ctx} contexts here)",
            found=f"context {int(ctx_ids[outside][0])} of meta.db",
        )


def readable(db: DbFile, value: np.ndarray, ctx: np.ndarray, metric: np.ndarray) -> np.ndarray:
    """``value`` with NaN, infinite and absurd (beyond :data:`ABSURD`) values read as 0:
    one SkippedInputWarning names the file, how many, and the first one's context and
    metric. No profiler measures them; kept, they would poison every sum above them."""
    bad = ~(np.abs(value) <= ABSURD)
    if not bad.any():
        return value
    k = int(np.flatnonzero(bad)[0])
    warnings.warn(
        SkippedInputWarning(
            f"{db.path}: skipped {int(bad.sum())} value(s) that are not finite or beyond "
            f"{ABSURD:g} (first: {float(value[k])!r} of context {int(ctx[k])}, "
            f"metric {int(metric[k])}); read as 0"
        ),
        stacklevel=4,
    )
    return np.where(bad, 0.0, value)
