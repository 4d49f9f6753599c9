"""``meta.db`` of an HPCToolkit v4 database: identifier kinds, metrics, and the context tree.

The context tree is stored as arrays of variable-size context records (32 bytes plus
``nFlexWords`` 8-byte words), each pointing at the contiguous array of its children. It
is read one tree level at a time: all children arrays of a level are laid out as 8-byte
slots, every slot gets the slot of the record that would follow it, and the records of
each array are the slots reachable from its first one, found by pointer doubling (a few
numpy steps per level, however many siblings there are). Function, file and module
pointers are resolved once per distinct pointer. Field layouts follow the ``FORMATS.md``
that HPCToolkit writes into every database (meta.db version 4.0).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfweave.calltree.readers._hpctk4_binary import DbFile, clamped

#: lexical types of a context record (FORMATS.md, Context Tree section); -1 marks an entry point
LEXICAL_TYPES = {0: "function", 1: "loop", 2: "line", 3: "instruction"}
ENTRY_KINDS = {0: "unknown entry", 1: "main thread", 2: "application thread"}
COMBINE = {0: "sum", 1: "min", 2: "max"}

_ID_NAMES = np.dtype([("ppNames", "<u8"), ("nKinds", "u1")])
_METRICS = np.dtype(
    {
        "names": ["pMetrics", "nMetrics", "szMetric", "szScopeInst", "szSummary"],
        "formats": ["<u8", "<u4", "u1", "u1", "u1"],
        "offsets": [0, 8, 12, 13, 14],
        "itemsize": 15,
    }
)
_METRIC = np.dtype(
    {
        "names": ["pName", "pScopeInsts", "pSummaries", "nScopeInsts", "nSummaries"],
        "formats": ["<u8", "<u8", "<u8", "<u2", "<u2"],
        "offsets": [0, 8, 16, 24, 26],
        "itemsize": 28,
    }
)
_SCOPE_INST = np.dtype(
    {
        "names": ["pScope", "propMetricId"],
        "formats": ["<u8", "<u2"],
        "offsets": [0, 8],
        "itemsize": 10,
    }
)
_SUMMARY = np.dtype(
    {
        "names": ["pScope", "pFormula", "combine", "statMetricId"],
        "formats": ["<u8", "<u8", "u1", "<u2"],
        "offsets": [0, 8, 16, 18],
        "itemsize": 20,
    }
)
_SCOPE = np.dtype(
    {"names": ["pScopeName", "type"], "formats": ["<u8", "u1"], "offsets": [0, 8], "itemsize": 9}
)
_CONTEXT_HEAD = np.dtype(
    {
        "names": ["pEntryPoints", "nEntryPoints", "szEntryPoint"],
        "formats": ["<u8", "<u2", "u1"],
        "offsets": [0, 8, 10],
        "itemsize": 11,
    }
)
_ENTRY = np.dtype(
    {
        "names": ["szChildren", "pChildren", "ctxId", "entryPoint", "pPrettyName"],
        "formats": ["<u8", "<u8", "<u4", "<u2", "<u8"],
        "offsets": [0, 8, 16, 20, 24],
        "itemsize": 32,
    }
)
_CTX = np.dtype(
    {
        "names": [
            "szChildren",
            "pChildren",
            "ctxId",
            "flags",
            "relation",
            "lexicalType",
            "nFlexWords",
        ],
        "formats": ["<u8", "<u8", "<u4", "u1", "u1", "u1", "u1"],
        "offsets": [0, 8, 16, 20, 21, 22, 23],
        "itemsize": 32,
    }
)
_FUNCTION = np.dtype(
    {
        "names": ["pName", "pModule", "offset", "pFile", "line"],
        "formats": ["<u8", "<u8", "<u8", "<u8", "<u4"],
        "offsets": [0, 8, 16, 24, 32],
        "itemsize": 36,
    }
)
_PATH_SPEC = np.dtype({"names": ["pPath"], "formats": ["<u8"], "offsets": [8], "itemsize": 16})


@dataclass
class ContextTree:
    """Entry points and contexts in tree-level order (parents before children).

    Row ``i`` of every array is one entry point (``lexical == -1``) or context;
    ``parent`` is a row (-1 for entry points) and ``level`` its depth in the stored tree.
    Pointers (function, file, module) and instruction offsets stay u64 as stored (a name
    shows an offset unsigned), 0 where the record has none.
    """

    ctx_id: np.ndarray
    parent: np.ndarray
    level: np.ndarray
    lexical: np.ndarray
    relation: np.ndarray
    entry_kind: np.ndarray
    has_children: np.ndarray
    p_function: np.ndarray
    p_file: np.ndarray
    line: np.ndarray
    p_module: np.ndarray
    offset: np.ndarray
    entry_name: np.ndarray
    level_starts: np.ndarray


@dataclass
class MetaDb:
    """What a reader needs from meta.db."""

    title: str
    kinds: list[str]
    metrics: list[dict]
    tree: ContextTree
    db: DbFile


def read_meta(db: DbFile) -> MetaDb:
    general = db.section_start("General")
    title_ptr = int(db.records(general, "<u8", 1, "General", within=_sect(db, "General"))[0])
    title = db.string(title_ptr, "General") if title_ptr else ""
    return MetaDb(title, _id_names(db), _metrics(db), _context_tree(db), db)


def _sect(db: DbFile, name: str) -> tuple[int, int]:
    start, size = db.sections[name]
    return start, start + size


def _id_names(db: DbFile) -> list[str]:
    head = db.records(
        db.section_start("IdNames"), _ID_NAMES, None, "IdNames", within=_sect(db, "IdNames")
    )
    ptrs = db.records(
        int(head["ppNames"]), "<u8", int(head["nKinds"]), "IdNames", within=_sect(db, "IdNames")
    )
    return [str(s) for s in db.strings(ptrs, "IdNames")]


def _metrics(db: DbFile) -> list[dict]:
    """One row per (metric, scope, propagated or summary value): the ids profile.db and
    cct.db use, with the metric's name and unit, the scope's name and type, and for
    summary values the combination (sum, min, max)."""
    sec = _sect(db, "Metrics")
    head = db.records(sec[0], _METRICS, None, "Metrics", within=sec)
    n = int(head["nMetrics"])
    base = int(head["pMetrics"])
    md = db.table(base, int(head["szMetric"]), n, _METRIC, "Metrics", sec)
    names = db.strings(md["pName"], "Metrics") if n else np.zeros(0, object)
    if not n:
        return []
    # propagated sub-metrics and summary statistics of every metric, as two ragged tables
    n_inst = md["nScopeInsts"].astype(np.int64)
    n_summ = md["nSummaries"].astype(np.int64)
    p_inst = db.offsets(md["pScopeInsts"][n_inst > 0], "Metrics", sec)
    p_summ = db.offsets(md["pSummaries"][n_summ > 0], "Metrics", sec)
    inst_pos = _ragged_offsets(p_inst, n_inst[n_inst > 0], int(head["szScopeInst"]))
    summ_pos = _ragged_offsets(p_summ, n_summ[n_summ > 0], int(head["szSummary"]))
    inst = db.records(inst_pos, _SCOPE_INST, None, "Metrics", within=sec)
    summ = db.records(summ_pos, _SUMMARY, None, "Metrics", within=sec)
    scope_ptr = np.concatenate([inst["pScope"], summ["pScope"]])
    scopes = db.records(scope_ptr, _SCOPE, None, "Metrics", within=sec)
    scope_names = (
        db.strings(scopes["pScopeName"], "Metrics") if len(scopes) else np.zeros(0, object)
    )
    metric_of = np.concatenate([np.repeat(np.arange(n), n_inst), np.repeat(np.arange(n), n_summ)])
    combine = np.r_[np.full(len(inst), -1), summ["combine"].astype(np.int64)].tolist()
    ids = np.r_[inst["propMetricId"], summ["statMetricId"]].astype(np.int64).tolist()
    table = []
    for k, (m, scope) in enumerate(zip(metric_of.tolist(), scope_names.tolist())):
        raw = str(names[m]).strip()
        unit = _UNIT.search(raw)
        base = raw[: unit.start()] if unit else raw
        table.append(
            {
                "name": base.lower().strip(),
                "unit": unit.group(1) if unit else None,
                "scope": str(scope).lower().strip(),
                "summary": k >= len(inst),
                "combine": combine[k],
                "id": ids[k],
            }
        )
    return table


_UNIT = re.compile(r"\s*\(([^()]*)\)\s*$")


def _ragged_offsets(starts: np.ndarray, counts: np.ndarray, stride: int) -> np.ndarray:
    starts = np.asarray(starts, np.int64)
    total = int(counts.sum())
    first = np.repeat(starts, counts)
    k = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    return first + k * stride


def _context_tree(db: DbFile) -> ContextTree:
    sec = _sect(db, "Context")
    head = db.records(sec[0], _CONTEXT_HEAD, None, "Context", within=sec)
    n_entries = int(head["nEntryPoints"])
    if not n_entries:  # the format allows an empty tree; nothing would be left to read
        raise db.error(
            "Context", sec[0] + 8, "at least one entry point (nEntryPoints)", found="none"
        )
    entries = db.table(
        head["pEntryPoints"], head["szEntryPoint"], n_entries, _ENTRY, "Context", sec
    )
    entry_names = (
        db.strings(entries["pPrettyName"], "Strings") if n_entries else np.zeros(0, object)
    )
    found = _records_packed(db, head, entries, sec)
    if found is None:
        found = _records_by_level(db, entries, sec)
    pos, parent, level = found
    ctx = db.records(pos, _CTX, None, "Context", within=sec)
    return _tree_arrays(db, entries, entry_names, pos, parent, level, ctx, sec)


def _records_packed(db: DbFile, head, entries, sec):
    """The records when they fill the section from the first children array on, as
    hpcprof writes them (one pass over the whole section); None when they do not."""
    p = clamped(entries["pChildren"])
    p = p[entries["szChildren"] > 0]
    if not len(p):
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    lo = sec[0] + (int(p.min()) - sec[0]) % 8  # slots aligned like the first children array
    if np.any((p < lo) | ((p - lo) % 8 != 0) | (p >= sec[1])):
        return None  # the level walk names the bad pointer
    n = (sec[1] - lo) // 8
    if n < 4:
        return None
    slots = lo + 8 * np.arange(n, dtype=np.int64)
    step = 4 + db.buf[np.minimum(slots + 23, len(db.buf) - 1)].astype(np.int64)
    jumps = [np.append(np.minimum(np.arange(n) + step, n), n)]
    for _ in range(int(np.ceil(np.log2(n)))):
        jumps.append(jumps[-1][jumps[-1]])
    reach = np.zeros(n + 1, bool)
    seeds = (p - lo) // 8
    after = int(head["pEntryPoints"]) + int(head["szEntryPoint"]) * len(
        entries
    )  # hpcprof's first record
    if lo <= after < int(p.min()) and (after - lo) % 8 == 0:
        seeds = np.r_[seeds, (after - lo) // 8]
    for _ in range(8):  # each round follows the chains from children arrays not yet reached
        reach[seeds] = True
        for jump in jumps:
            reach[jump[np.flatnonzero(reach)]] = True
        reach[n] = False
        first = np.flatnonzero(reach)
        kids = db.records(slots[first], _CTX, None, "Context", within=sec)
        cp = clamped(kids["pChildren"][kids["szChildren"] > 0])
        if np.any((cp < lo) | ((cp - lo) % 8 != 0) | (cp >= sec[1])):
            return None
        seeds = (cp - lo) // 8
        seeds = seeds[~reach[seeds]]
        if not len(seeds):
            break
    else:
        return None
    pos = slots[first]
    end = pos[-1] + 8 * step[first[-1]]
    if end > sec[1]:
        return None
    head = kids
    # children arrays: of the entry points, then of the records (parent rows after the entries)
    n_e = len(entries)
    bp = clamped(np.r_[entries["pChildren"], head["pChildren"]])
    bs = clamped(np.r_[entries["szChildren"], head["szChildren"]])
    owner = np.flatnonzero(bs > 0)
    bp, bs = bp[owner], bs[owner]
    bounds = np.r_[pos, end]
    i0 = np.searchsorted(bounds, bp)
    i1 = np.searchsorted(bounds, bp + bs)
    exact = (i0 < len(bounds)) & (i1 < len(bounds))
    exact &= bounds[np.minimum(i0, len(bounds) - 1)] == bp
    exact &= bounds[np.minimum(i1, len(bounds) - 1)] == bp + bs
    if not exact.all():
        return None
    counts = i1 - i0
    order = np.argsort(i0, kind="stable")
    covered = np.zeros(len(pos) + 1, np.int64)
    np.add.at(covered, i0, 1)
    np.add.at(covered, i1, -1)
    if np.any(np.cumsum(covered)[:-1] != 1) or np.any(counts <= 0):
        return None  # records outside every children array, or in two: read level by level
    parent = np.repeat(owner[order], counts[order])  # rows: entries, then records
    level = _levels(parent, n_e, db, pos)
    return pos, parent, level


def _levels(parent: np.ndarray, n_e: int, db: DbFile, pos: np.ndarray) -> np.ndarray:
    """Depth of every record (1 under an entry point) by pointer doubling over parents;
    a parent chain that never reaches an entry point is a cycle."""
    n = len(parent)
    up = np.r_[np.full(n_e, -1), parent]  # rows: entries, then records
    hop = up.copy()
    dist = (up >= 0).astype(np.int64)
    for _ in range(int(np.ceil(np.log2(max(n, 2)))) + 2):
        live = np.flatnonzero(hop >= 0)
        if not len(live):
            break
        target = hop[live]
        dist[live] += dist[target]
        hop[live] = hop[target]
    if np.any(hop >= 0):
        k = int(np.flatnonzero(hop >= 0)[0]) - n_e
        raise db.error(
            "Context", int(pos[max(k, 0)]), "a context tree without cycles", found="a cycle"
        )
    return dist[n_e:]


def _records_by_level(db: DbFile, entries, sec):
    """The records of any layout, one tree level at a time."""
    n_entries = len(entries)
    p_children = entries["pChildren"]  # u64 as stored, compared unsigned
    sz_children = entries["szChildren"]
    parents = np.arange(n_entries, dtype=np.int64)
    count = n_entries
    limit = (sec[1] - sec[0]) // 32 + n_entries  # more records than fit: a cycle
    all_pos, all_parent, all_level = [], [], []
    level = 1
    while True:
        has = sz_children > 0
        p, sz, par = p_children[has], sz_children[has], parents[has]
        if not len(p):
            break
        pos, block = _level_records(db, p, sz, sec)
        recs = db.records(pos, _CTX, None, "Context", within=sec)
        all_pos.append(pos)
        all_parent.append(par[block])
        all_level.append(np.full(len(pos), level, np.int64))
        parents = count + np.arange(len(pos), dtype=np.int64)
        count += len(pos)
        level += 1
        if count > limit:
            raise db.error("Context", int(pos[0]), "a context tree without cycles", found="a cycle")
        p_children = recs["pChildren"]
        sz_children = recs["szChildren"]
    if not all_pos:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(all_pos), np.concatenate(all_parent), np.concatenate(all_level)


def _level_records(db: DbFile, p: np.ndarray, sz: np.ndarray, sec) -> tuple[np.ndarray, np.ndarray]:
    """Offsets of the context records in the children arrays ``(p, sz)`` (u64 as stored)
    of one level, in array order, and the array each belongs to."""
    lo, hi = np.uint64(sec[0]), np.uint64(sec[1])
    # unsigned, before any conversion: a size with its top bit set is huge, not negative
    room = hi - np.minimum(p, hi)
    bad = (p < lo) | (p > hi) | (sz > room) | (sz % 8 != 0) | (sz < 32)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise db.error(
            "Context",
            int(p[k]),
            f"a children array within section Context (bytes {sec[0]}..{sec[1]}) "
            "of a whole number of 8-byte words",
            found=f"{int(sz[k])} bytes at offset {int(p[k])}",
        )
    p, sz = p.astype(np.int64), sz.astype(np.int64)
    n_slots = sz // 8
    ends = np.cumsum(n_slots)
    total = int(ends[-1])
    starts = ends - n_slots
    block = np.repeat(np.arange(len(p)), n_slots)
    slot_pos = np.repeat(p, n_slots) + 8 * (np.arange(total) - starts[block])
    flex = db.buf[np.minimum(slot_pos + 23, len(db.buf) - 1)].astype(np.int64)
    step = 4 + flex
    nxt = np.arange(total) + step
    nxt = np.where(nxt < ends[block], nxt, total)
    jump = np.append(nxt, total)
    reach = np.zeros(total + 1, bool)
    reach[starts] = True
    for _ in range(int(np.ceil(np.log2(max(int(n_slots.max()) // 4, 1)))) + 1):
        reach[jump[np.flatnonzero(reach)]] = True
        jump = jump[jump]
    first = np.flatnonzero(reach[:total])
    used = np.bincount(block[first], weights=step[first] * 8, minlength=len(p)).astype(np.int64)
    if np.any(used != sz):
        k = int(np.flatnonzero(used != sz)[0])
        raise db.error(
            "Context",
            int(p[k]),
            f"context records filling their children array exactly ({int(sz[k])} bytes)",
            found=f"records of {int(used[k])} bytes",
        )
    return slot_pos[first], block[first]


def _tree_arrays(db, entries, entry_names, pos, parent, level, ctx, sec) -> ContextTree:
    """The tree's columns, rows ordered by level (entry points first)."""
    order = np.argsort(level, kind="stable")
    n_e = len(entries)
    if np.any(order != np.arange(len(order))):
        new_row = np.empty(len(order), np.int64)
        new_row[order] = np.arange(len(order))
        pos, level, ctx = pos[order], level[order], ctx[order]
        parent = parent[order]
        parent = np.where(parent < n_e, parent, n_e + new_row[np.maximum(parent - n_e, 0)])
    n_e = len(entries)
    flags = ctx["flags"].astype(np.int64)
    n_flex = ctx["nFlexWords"].astype(np.int64)
    has_fn, has_src, has_pt = flags & 1 > 0, flags & 2 > 0, flags & 4 > 0
    w_file = has_fn.astype(np.int64)
    w_mod = w_file + 2 * has_src
    need = np.where(has_pt, w_mod + 2, np.where(has_src, w_file + 2, w_file))
    short = need > n_flex
    if short.any():
        k = int(np.flatnonzero(short)[0])
        raise db.error(
            "Context",
            int(pos[k]),
            f"{int(need[k])} flex words for the fields its flags announce",
            found=f"{int(n_flex[k])}",
        )

    def word(w, mask, dtype="<u8"):  # pointers and offsets stay u64 (names print them)
        out = np.zeros(len(ctx), np.uint64 if dtype == "<u8" else np.int64)
        idx = np.flatnonzero(mask)
        if len(idx):
            out[idx] = db.records(pos[idx] + 32 + 8 * w[idx], dtype, None, "Context", within=sec)
        return out

    zero = np.zeros(len(ctx), np.int64)
    lexical = ctx["lexicalType"].astype(np.int64)
    unknown = ~np.isin(lexical, list(LEXICAL_TYPES))
    if unknown.any():
        k = int(np.flatnonzero(unknown)[0])
        raise db.error("Context", int(pos[k]), "lexical type 0-3", found=str(int(lexical[k])))
    level_sizes = np.bincount(level, minlength=1)
    level_sizes[0] = n_e

    def col(head, body):  # entry points' values, then the records'
        return np.concatenate([np.asarray(head), np.asarray(body)])

    none = np.full(len(ctx), None, object)
    zeros, minus = np.zeros(n_e, np.int64), np.full(n_e, -1, np.int64)
    no_ptr = np.zeros(n_e, np.uint64)
    return ContextTree(
        ctx_id=col(entries["ctxId"].astype(np.int64), ctx["ctxId"].astype(np.int64)),
        parent=col(minus, parent),
        level=col(zeros, level),
        lexical=col(minus, lexical),
        relation=col(minus, ctx["relation"].astype(np.int64)),
        entry_kind=col(entries["entryPoint"].astype(np.int64), np.full(len(ctx), -1, np.int64)),
        has_children=col(entries["szChildren"] > 0, ctx["szChildren"] > 0),
        p_function=col(no_ptr, word(zero, has_fn)),
        p_file=col(no_ptr, word(w_file, has_src)),
        line=col(zeros, word(w_file + 1, has_src, "<u4")),
        p_module=col(no_ptr, word(w_mod, has_pt)),
        offset=col(no_ptr, word(w_mod + 1, has_pt)),
        entry_name=col(entry_names.astype(object), none),
        level_starts=np.concatenate([[0], np.cumsum(level_sizes)]),
    )


# ---------------------------------------------------------------------- name tables
def paths(db: DbFile, pointers: np.ndarray, section: str) -> np.ndarray:
    """The path of each load module or source file pointer (None where 0)."""
    out = np.full(len(pointers), None, object)
    uniq, inv = np.unique(pointers, return_inverse=True)
    nz = uniq != 0
    if nz.any():
        specs = db.records(uniq[nz], _PATH_SPEC, None, section, within=_sect(db, section))
        names = np.full(len(uniq), None, object)
        names[nz] = db.strings(specs["pPath"], "Strings")
        out = names[inv.reshape(-1)]
    return out


def functions(db: DbFile, pointers: np.ndarray) -> pd.DataFrame:
    """Name, module pointer, offset, file pointer and line of each distinct function
    pointer (index: the pointer). An anonymous function (no name) is named after its
    module and offset."""
    uniq = np.unique(pointers[pointers != 0])
    fs = db.records(uniq, _FUNCTION, None, "Functions", within=_sect(db, "Functions"))
    names = np.full(len(uniq), None, object)
    named = fs["pName"] != 0
    if named.any():
        names[named] = db.strings(fs["pName"][named], "Strings")
    table = pd.DataFrame(
        {
            "name": names,
            "p_module": fs["pModule"],
            "offset": fs["offset"],
            "p_file": fs["pFile"],
            "line": fs["line"].astype(np.int64),
        },
        index=uniq,
    )
    table["module"] = paths(db, table["p_module"].to_numpy(), "Modules")
    table["file"] = paths(db, table["p_file"].to_numpy(), "Files")
    anon = table["name"].isna()
    if anon.any():
        module = table.loc[anon, "module"].fillna("<unknown module>").astype(str)
        offs = table.loc[anon, "offset"].map("{:#x}".format)
        table.loc[anon, "name"] = (
            "<unknown function> [" + module.str.rsplit("/", n=1).str[-1] + "+" + offs + "]"
        )
    return table
