"""Statistics of count matrices: per call, per rank and per host, as DataFrames.

Everything is computed once per CallGroup from its distinct rows (weighted by how many
ranks use each row) and then repeated for the group's calls, so a million identical
calls cost one computation. A row of a single count in a communicator of more than one
rank (Alltoall, Allgatherv's send side) stands for that count sent to every peer.

Message sizes are ``count * datatype size`` bytes; a message is *large* when that is
``>= threshold`` (upstream's default threshold is 200) and *small* otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from perfweave.counts.matrix import CountMatrix
from perfweave.counts.ranklist import parse_ranklist

__all__ = [
    "bytes_per_rank",
    "call_stats",
    "format_heatmap",
    "host_totals",
    "message_totals",
    "rank_bytes",
    "stats_summary",
]


def _multiplicity(m: CountMatrix, comm_size: int) -> int:
    return comm_size if (m.width == 1 and comm_size > 1) else 1


#: distinct rows per pass of :func:`_row_tallies`: a block of a wide matrix stays in the
#: cache while every tally reads it (a 4,096-rank block of 64 rows is 2 MB)
_BLOCK_CELLS = 1 << 18


def _row_tallies(rows: np.ndarray, large: int | None) -> tuple[np.ndarray, ...]:
    """Per row: non-zero counts, counts ``>= large`` (None: not asked) and the row sum; and
    over all rows the minimum, the smallest non-zero count (NaN when none) and the maximum.

    The rows are read block by block, each block once from memory for every tally (a
    16k-rank call holds tens of millions of cells: one pass per tally over all of them was
    most of the heatmap's first summary)."""
    n = rows.shape[0]
    nonzero = np.zeros(n, np.int64)
    large_per_row = np.zeros(n, np.int64)
    sums = np.zeros(n, rows[:0].sum(axis=1).dtype)
    lo = hi = None
    least = None  # the smallest non-zero count
    unsigned = rows.dtype.kind == "i" and rows.dtype.str.replace("i", "u")
    step = max(1, _BLOCK_CELLS // max(1, rows.shape[1]))
    for start in range(0, n, step):
        block = rows[start : start + step]
        part = slice(start, start + len(block))
        nonzero[part] = np.count_nonzero(block, axis=1)
        if large is not None:
            large_per_row[part] = np.count_nonzero(block >= large, axis=1)
        sums[part] = block.sum(axis=1)
        b_lo, b_hi = block.min(), block.max()
        lo = b_lo if lo is None else min(lo, b_lo)
        hi = b_hi if hi is None else max(hi, b_hi)
        if b_lo > 0:
            b_least = b_lo
        elif b_lo == 0 and unsigned:
            # counts are >= 0: minus one, read unsigned, zero becomes the largest value, so
            # the plain minimum is the smallest non-zero count minus one (no mask)
            shifted = int((block - 1).view(unsigned).min())
            b_least = None if shifted == np.iinfo(unsigned).max else shifted + 1  # all zero
        else:
            positive = block[block > 0]
            b_least = positive.min() if positive.size else None
        if b_least is not None:
            least = b_least if least is None else min(least, b_least)
    return nonzero, large_per_row, sums, lo, hi, least


def _side(m: CountMatrix, comm_size: int, dtsize: int, threshold: int) -> dict[str, float]:
    rows = m.rows
    w = np.bincount(m.row_of_rank, minlength=rows.shape[0])
    mult = _multiplicity(m, comm_size)
    width = rows.shape[1] if rows.ndim == 2 else 0
    if not rows.size:
        nonzero = large_per_row = sums = np.zeros(rows.shape[0], np.int64)
        lo, hi, least = 0, 0, None
    elif dtsize > 0:  # count * dtsize >= threshold  <=>  count >= ceil(threshold / dtsize)
        nonzero, large_per_row, sums, lo, hi, least = _row_tallies(rows, -(-threshold // dtsize))
    else:
        nonzero, _, sums, lo, hi, least = _row_tallies(rows, None)
        large_per_row = np.count_nonzero(rows * dtsize >= threshold, axis=1)
    if threshold > 0:  # every large count is non-zero
        small_nonzero = nonzero - large_per_row
    else:
        small_nonzero = np.count_nonzero((rows * dtsize < threshold) & (rows > 0), axis=1)
    return {
        "zeros": int(w @ (width - nonzero)) * mult,
        "min": int(lo),
        "min_nonzero": np.nan if least is None else int(least),
        "max": int(hi),
        "messages": m.n_ranks * m.width * mult,
        "large": int(w @ large_per_row) * mult,
        "small": int(w @ (width - large_per_row)) * mult,
        "small_nonzero": int(w @ small_nonzero) * mult,
        "bytes": int(w @ sums) * mult * dtsize,
    }


def call_stats(groups: Sequence, threshold: int = 200) -> pd.DataFrame:
    """One row per call: datatype and communicator sizes, zero counts, min / max counts
    (also the smallest non-zero count, NaN when all are zero), message counts by size
    and total bytes, for the send and the receive side."""
    records = []
    for k, g in enumerate(groups):
        rec = {
            "group": k,
            "comm_size": g.comm_size,
            "send_datatype_size": g.send_datatype_size,
            "recv_datatype_size": g.recv_datatype_size,
        }
        for side, m, dt in (
            ("send", g.send, g.send_datatype_size),
            ("recv", g.recv, g.recv_datatype_size),
        ):
            for key, value in _side(m, g.comm_size, dt, threshold).items():
                rec[f"{side}_{key}"] = value
        records.append(rec)
    per_group = pd.DataFrame.from_records(records)
    if per_group.empty:
        return per_group
    sizes = np.array([g.calls.size for g in groups])
    calls = np.concatenate([g.calls for g in groups])
    table = per_group.iloc[np.repeat(np.arange(len(groups)), sizes)].reset_index(drop=True)
    table.insert(0, "call", calls)
    table = table.sort_values("call", kind="stable").reset_index(drop=True)
    for col in ("send_min_nonzero", "recv_min_nonzero"):
        table[col] = table[col].astype("Int64")
    return table


_SUMMARY_COLUMNS = (
    "send_datatype_size",
    "recv_datatype_size",
    "comm_size",
    "send_zeros",
    "recv_zeros",
    "send_min",
    "recv_min",
    "send_min_nonzero",
    "recv_min_nonzero",
    "send_max",
    "recv_max",
)


def stats_summary(stats: pd.DataFrame) -> pd.DataFrame:
    """How many calls have each value of each statistic: ``statistic, value, calls``
    (the tallies of upstream's ``stats-job<J>-rank<R>.md``), largest tallies first."""
    parts = []
    for col in _SUMMARY_COLUMNS:
        counts = stats[col].value_counts(dropna=False, sort=False)
        part = pd.DataFrame(
            {
                "statistic": pd.Series([col] * len(counts), dtype="string"),
                "value": counts.index.to_numpy(dtype="float64", na_value=np.nan),
                "calls": counts.to_numpy(dtype=np.int64),
            }
        )
        parts.append(part.sort_values(["calls", "value"], ascending=[False, False], kind="stable"))
    out = pd.concat(parts, ignore_index=True)
    out["value"] = out["value"].astype("Int64")
    return out


def message_totals(stats: pd.DataFrame) -> pd.Series:
    """Totals over all calls of messages, large / small / small non-zero messages, bytes."""
    keys = ("messages", "large", "small", "small_nonzero", "bytes")
    data = {
        f"{side}_{k}": int(stats[f"{side}_{k}"].sum()) for side in ("send", "recv") for k in keys
    }
    return pd.Series(data, dtype="int64")


def rank_bytes(group, sums: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Bytes each communicator rank sends and receives in one call of a CallGroup: its
    row's counts times the datatype size (times the communicator size for a single-count
    row: Alltoall, Allgatherv's send side). ``sums``, a dict the caller keeps, holds each
    matrix's rank sums so that groups sharing a matrix sum it once."""
    g = group

    def rank_sums(m: CountMatrix) -> np.ndarray:
        if sums is None:
            return m.rank_sums()
        if id(m) not in sums:
            sums[id(m)] = (m, m.rank_sums())  # the matrix too: its id stays its own
        return sums[id(m)][1]

    sent = rank_sums(g.send) * g.send_datatype_size * _multiplicity(g.send, g.comm_size)
    recv = rank_sums(g.recv) * g.recv_datatype_size * _multiplicity(g.recv, g.comm_size)
    return sent, recv


def bytes_per_rank(groups: Sequence) -> pd.DataFrame:
    """Bytes each rank sends and receives in each call: ``call, rank, bytes_sent,
    bytes_received`` (upstream's heat-map data), sorted by call then rank."""
    parts = []
    for g in groups:
        sent, recv = rank_bytes(g)
        n, c = g.comm_size, g.calls.size
        parts.append(
            pd.DataFrame(
                {
                    "call": np.repeat(g.calls, n),
                    "rank": np.tile(np.arange(n, dtype=np.int64), c),
                    "bytes_sent": np.tile(sent, c),
                    "bytes_received": np.tile(recv, c),
                }
            )
        )
    if not parts:
        return pd.DataFrame(columns=["call", "rank", "bytes_sent", "bytes_received"])
    out = pd.concat(parts, ignore_index=True)
    return out.sort_values(["call", "rank"], kind="stable").reset_index(drop=True)


def format_heatmap(per_rank: pd.DataFrame, direction: str = "send") -> str:
    """Upstream's ``<coll>_heat-map.rank<R>-{send,recv}.md`` text from :func:`bytes_per_rank`."""
    col = {"send": "bytes_sent", "recv": "bytes_received"}[direction]
    out = ["FORMAT_VERSION: 9\n\n"]
    calls = per_rank["call"].to_numpy()
    ranks = per_rank["rank"].to_numpy()
    values = per_rank[col].to_numpy()
    starts = np.flatnonzero(np.r_[True, calls[1:] != calls[:-1]]) if calls.size else []
    for i in range(len(starts)):
        a = starts[i]
        b = starts[i + 1] if i + 1 < len(starts) else calls.size
        out.append(f"# Call {calls[a]}:\n")
        out.append(
            "".join(
                f"Rank {r}: {v} bytes\n" for r, v in zip(ranks[a:b].tolist(), values[a:b].tolist())
            )
        )
    out.append("\n")
    return "".join(out)


def host_totals(groups: Sequence, locations: pd.DataFrame) -> pd.DataFrame:
    """Bytes sent and received per host: ``hostname, ranks, bytes_sent, bytes_received``.

    ``locations`` is the table of a lead rank's location files (one row per communicator
    rank with the calls it covers); calls without a location are left out.
    """
    columns = ["hostname", "ranks", "bytes_sent", "bytes_received"]
    if locations is None or locations.empty:
        return pd.DataFrame(columns=columns)
    per_rank = bytes_per_rank(groups)
    maps = []
    for calls_text, loc in locations.groupby("calls", sort=False):
        calls = parse_ranklist(str(calls_text))
        maps.append(
            pd.DataFrame(
                {
                    "call": np.repeat(calls, len(loc)),
                    "rank": np.tile(loc["rank"].to_numpy(dtype=np.int64), calls.size),
                    "hostname": np.tile(loc["hostname"].to_numpy(dtype=object), calls.size),
                    "world_rank": np.tile(loc["world_rank"].to_numpy(dtype=np.int64), calls.size),
                }
            )
        )
    where = pd.concat(maps, ignore_index=True)
    merged = per_rank.merge(where, on=["call", "rank"], how="inner")
    out = merged.groupby("hostname", sort=True).agg(
        ranks=("world_rank", "nunique"),
        bytes_sent=("bytes_sent", "sum"),
        bytes_received=("bytes_received", "sum"),
    )
    return out.reset_index()
