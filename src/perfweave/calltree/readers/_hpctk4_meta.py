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

from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfweave.calltree.readers._hpctk4_binary import DbFile

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
    {"names": ["pScope", "propMetricId"], "formats": ["<u8", "<u2"], "offsets": [0, 8], "itemsize": 10}
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
_TABLE = np.dtype(
    {"names": ["pArray", "n", "size"], "formats": ["<u8", "<u4", "<u2"], "offsets": [0, 8, 12], "itemsize": 14}
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
        "names": ["szChildren", "pChildren", "ctxId", "flags", "relation", "lexicalType", "nFlexWords"],
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
    Pointers (function, file, module) are 0 where the record has none.
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
    metrics: pd.DataFrame
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
    head = db.records(db.section_start("IdNames"), _ID_NAMES, None, "IdNames", within=_sect(db, "IdNames"))
    ptrs = db.records(int(head["ppNames"]), "<u8", int(head["nKinds"]), "IdNames", within=_sect(db, "IdNames"))
    return [str(s) for s in db.strings(ptrs, "IdNames")]


def _metrics(db: DbFile) -> pd.DataFrame:
    """One row per (metric, scope, propagated or summary value): the ids profile.db and
    cct.db use, with the metric's name and unit, the scope's name and type, and for
    summary values the combination (sum, min, max)."""
    sec = _sect(db, "Metrics")
    head = db.records(sec[0], _METRICS, None, "Metrics", within=sec)
    n = int(head["nMetrics"])
    base = int(head["pMetrics"])
    md = db.records(base + int(head["szMetric"]) * np.arange(n), _METRIC, None, "Metrics", within=sec)
    names = db.strings(md["pName"], "Metrics") if n else np.zeros(0, object)
    # propagated sub-metrics and summary statistics of every metric, as two ragged tables
    n_inst = md["nScopeInsts"].astype(np.int64)
    n_summ = md["nSummaries"].astype(np.int64)
    inst_pos = _ragged_offsets(md["pScopeInsts"], n_inst, int(head["szScopeInst"]))
    summ_pos = _ragged_offsets(md["pSummaries"], n_summ, int(head["szSummary"]))
    inst = db.records(inst_pos, _SCOPE_INST, None, "Metrics", within=sec)
    summ = db.records(summ_pos, _SUMMARY, None, "Metrics", within=sec)
    scope_ptr = np.concatenate([inst["pScope"], summ["pScope"]]).astype(np.int64)
    scopes = db.records(scope_ptr, _SCOPE, None, "Metrics", within=sec)
    scope_names = db.strings(scopes["pScopeName"], "Metrics") if len(scopes) else np.zeros(0, object)
    metric_of = np.concatenate([np.repeat(np.arange(n), n_inst), np.repeat(np.arange(n), n_summ)])
    table = pd.DataFrame(
        {
            "raw_name": names[metric_of] if n else np.zeros(0, object),
            "scope": pd.Series(scope_names, dtype=object).str.lower().str.strip().to_numpy(),
            "scope_type": scopes["type"].astype(np.int64),
            "summary": np.r_[np.zeros(len(inst), bool), np.ones(len(summ), bool)],
            "combine": np.r_[np.full(len(inst), -1), summ["combine"].astype(np.int64)],
            "id": np.r_[inst["propMetricId"], summ["statMetricId"]].astype(np.int64),
        }
    )
    raw = table["raw_name"].astype(str).str.strip()
    unit = raw.str.extract(r"\(([^()]*)\)\s*$", expand=False)
    base_name = raw.where(unit.isna(), raw.str.replace(r"\s*\([^()]*\)\s*$", "", regex=True))
    table["name"] = base_name.str.lower().str.strip()
    table["unit"] = unit
    return table


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
    entries = db.records(
        int(head["pEntryPoints"]) + int(head["szEntryPoint"]) * np.arange(n_entries),
        _ENTRY,
        None,
        "Context",
        within=sec,
    )
    entry_names = db.strings(entries["pPrettyName"], "Strings") if n_entries else np.zeros(0, object)
    rows = [
        {
            "pos": np.full(n_entries, -1, np.int64),
            "parent": np.full(n_entries, -1, np.int64),
            "rec": None,
        }
    ]
    p_children = entries["pChildren"].astype(np.int64)
    sz_children = entries["szChildren"].astype(np.int64)
    parents = np.arange(n_entries, dtype=np.int64)
    count = n_entries
    limit = (sec[1] - sec[0]) // 32 + n_entries  # more records than fit: a cycle
    while True:
        has = sz_children > 0
        p, sz, par = p_children[has], sz_children[has], parents[has]
        if not len(p):
            break
        pos, block = _level_records(db, p, sz, sec)
        recs = db.records(pos, _CTX, None, "Context", within=sec)
        rows.append({"pos": pos, "parent": par[block], "rec": recs})
        parents = count + np.arange(len(pos), dtype=np.int64)
        count += len(pos)
        if count > limit:
            raise db.error("Context", int(pos[0]), "a context tree without cycles", found="a cycle")
        p_children = recs["pChildren"].astype(np.int64)
        sz_children = recs["szChildren"].astype(np.int64)
    return _tree_arrays(db, entries, entry_names, rows, sec)


def _level_records(db: DbFile, p: np.ndarray, sz: np.ndarray, sec) -> tuple[np.ndarray, np.ndarray]:
    """Offsets of the context records in the children arrays ``(p, sz)`` of one level,
    in array order, and the array each belongs to."""
    bad = (p < sec[0]) | (p + sz > sec[1]) | (sz % 8 != 0) | (sz < 32)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise db.error(
            "Context",
            int(p[k]),
            f"a children array within section Context (bytes {sec[0]}..{sec[1]}) "
            "of a whole number of 8-byte words",
            found=f"{int(sz[k])} bytes at offset {int(p[k])}",
        )
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


def _tree_arrays(db, entries, entry_names, rows, sec) -> ContextTree:
    recs = [r["rec"] for r in rows[1:]]
    ctx = np.concatenate(recs) if recs else np.zeros(0, _CTX)
    pos = np.concatenate([r["pos"] for r in rows[1:]]) if recs else np.zeros(0, np.int64)
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

    def word(w, mask, dtype="<u8"):
        out = np.zeros(len(ctx), np.int64)
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
    level_sizes = [n_e] + [len(r["pos"]) for r in rows[1:]]
    return ContextTree(
        ctx_id=np.r_[entries["ctxId"].astype(np.int64), ctx["ctxId"].astype(np.int64)],
        parent=np.concatenate([r["parent"] for r in rows]),
        level=np.repeat(np.arange(len(level_sizes)), level_sizes),
        lexical=np.r_[np.full(n_e, -1), lexical],
        relation=np.r_[np.full(n_e, -1), ctx["relation"].astype(np.int64)],
        entry_kind=np.r_[entries["entryPoint"].astype(np.int64), np.full(len(ctx), -1)],
        has_children=np.r_[entries["szChildren"] > 0, ctx["szChildren"] > 0],
        p_function=np.r_[np.zeros(n_e, np.int64), word(zero, has_fn)],
        p_file=np.r_[np.zeros(n_e, np.int64), word(w_file, has_src)],
        line=np.r_[np.zeros(n_e, np.int64), word(w_file + 1, has_src, "<u4")],
        p_module=np.r_[np.zeros(n_e, np.int64), word(w_mod, has_pt)],
        offset=np.r_[np.zeros(n_e, np.int64), word(w_mod + 1, has_pt)],
        entry_name=np.r_[entry_names.astype(object), np.full(len(ctx), None, object)],
        level_starts=np.r_[0, np.cumsum(level_sizes)],
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
            "p_module": fs["pModule"].astype(np.int64),
            "offset": fs["offset"].astype(np.int64),
            "p_file": fs["pFile"].astype(np.int64),
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
        table.loc[anon, "name"] = "<unknown function> [" + module.str.rsplit("/", n=1).str[-1] + "+" + offs + "]"
    return table
