"""HPCToolkit databases of format version 4 (``meta.db``, ``profile.db``, ``cct.db``).

What HPCToolkit writes since 2022.10 (``hpcprof``). ``meta.db`` holds the metric table
and the calling context tree, ``profile.db`` the values by profile (profile 0 is the
summary over all profiles), ``cct.db`` the same values by context. The byte layout is
HPCToolkit's ``FORMATS.md``; the binary access is in ``_hpctk4_binary``, the tree and
metrics in ``_hpctk4_meta``, the values in ``_hpctk4_values``; this module chooses the
nodes and metrics, names them and builds the GraphFrame.

By default the result is what Hatchet's ``GraphFrame.from_hpctoolkit_latest(dir)`` gives:
an ``entry`` root over the main thread's contexts, nodes named ``function: NAME``,
``loop FILE:LINE``, ``line FILE:LINE`` and ``MODULE:OFFSET``, frames ``{name, type}``,
``time (inc)`` / ``time`` from the ``execution`` / ``function`` scopes of the time metric
(CPUTIME, REALTIME or CYCLES) in the summary profile. Hatchet's options keep their names
and meaning. Beyond Hatchet: ``metric_names="all"`` reads every metric; ``per_profile=True``
gives one row per (node, profile) indexed by the profiles' identifiers (rank, thread,
GPU context, GPU stream ...); absent values are 0, not NaN. See docs/calltree-readers.md.
"""

from __future__ import annotations

import os
import re
import warnings
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers import _hpctk4_meta as meta_db
from perfweave.calltree.readers import _hpctk4_values as values_db
from perfweave.calltree.readers._common import unit_word
from perfweave.calltree.readers._hpctk4_binary import MAGIC, DbFile, open_regular
from perfweave.errors import MissingMetricWarning, OptionError, ParseError

TIME_METRICS = ("cputime", "realtime", "cycles")
#: propagation scope name -> Hatchet's letter for it
SCOPES = {"execution": "i", "function": "e", "point": "p", "lex_aware": "c"}
_SCOPE_SUFFIX = {"i": " (inc)", "e": "", "p": " (point)", "c": " (lex_aware)"}
_CUDA_FILES = (
    "libcuda.so",
    "libcudart.so",
    "libcusparse.so",
    "libcublas.so",
    "libcurand.so",
    "libcusolver.so",
    "libcufft.so",
    "/cuda/",
)
_SYSTEM_SOURCES = ("/usr/src/debug", "/usr/tce")
_NAME_CUTS = (" [", ".", "@", "(", "<")
#: identifier kinds that say where a thread ran, not which thread it is: kept in
#: ``metadata["profiles"]``, never index levels
_PLACEMENT = {"node", "core"}


def sniff(path: Path) -> bool:
    """A directory (or a ``*.db`` in one) whose ``meta.db`` starts with the v4 magic, or
    whose ``meta.db`` is no regular file beside a ``profile.db`` or ``cct.db``: read() then
    names what is wrong with it. Nothing but a regular ``meta.db`` is ever opened for
    reading (a FIFO or ``/dev/zero`` could block or never end)."""
    directory = path if path.is_dir() else path.parent
    if not path.is_dir() and not path.name.endswith(".db"):
        return False
    meta = directory / "meta.db"
    if not os.path.lexists(meta):
        return False
    try:
        fd = open_regular(meta)
    except (ParseError, OSError):
        return any(os.path.lexists(directory / n) for n in ("profile.db", "cct.db"))
    with os.fdopen(fd, "rb") as f:
        head = f.read(14)
    return head == MAGIC + b"meta"


def read(
    path: str | PathLike[str],
    metric_names: list[str] | str | None = None,
    metric_scopes: list[str] | None = None,
    summary_metrics: list[str] | None = None,
    max_depth: int | None = None,
    min_percentage_of_application_time: float | None = None,
    exclude_mpi_function_details: bool = False,
    exclude_openmp_function_details: bool = False,
    exclude_cuda_function_details: bool = False,
    exclude_system_libraries_source_code: bool = False,
    exclude_function_call_lines: bool = False,
    exclude_no_source_code_instructions: bool = False,
    exclude_instructions: bool = False,
    exclude_non_function_nodes: bool = False,
    label_function_nodes: bool = True,
    directory_mapping: dict[str, str] | None = None,
    parallel_profiles_mode: bool = False,
    per_profile: bool = False,
    profile_ranks: list[int] | None = None,
    all_entry_points: bool = False,
    **_: Any,
):
    """Read an HPCToolkit v4 database directory (or one of its ``*.db`` files).

    Options as in Hatchet's ``from_hpctoolkit_latest``: ``metric_names`` (names lower-case
    without unit, ``time`` for the time metric; ``"all"`` for every metric),
    ``metric_scopes`` (``i`` inclusive, ``e`` exclusive, ``p`` point, ``c`` lex_aware),
    ``summary_metrics`` (``sum``, ``min``, ``max``), ``max_depth``,
    ``min_percentage_of_application_time``, the ``exclude_*`` switches,
    ``label_function_nodes``, ``directory_mapping``, ``parallel_profiles_mode`` ((node,
    profile) rows from cct.db) and ``profile_ranks``. ``per_profile=True`` indexes the
    per-profile rows by the identifier kinds instead (rank, thread, gpucontext ...);
    ``all_entry_points`` keeps every entry point (Hatchet keeps the main thread's).
    """
    directory = Path(path)
    if not directory.is_dir():
        directory = directory.parent
    meta_file = DbFile(directory / "meta.db", b"meta")
    prof_file = DbFile(directory / "profile.db", b"prof")
    cct_file = DbFile(directory / "cct.db", b"ctxt")
    meta = meta_db.read_meta(meta_file)
    by_profile = parallel_profiles_mode or per_profile
    columns = _choose_metrics(
        meta.metrics,
        metric_names,
        metric_scopes or ["i", "e"],
        summary_metrics or ["sum", "min", "max"],
        by_profile,
    )
    _check_metrics(meta.metrics, metric_names, columns, meta_file.path)
    tree = meta.tree
    row_of = _row_lookup(tree.ctx_id, meta_file)
    values_db.check_context_ids(cct_file, tree.ctx_id)
    infos = values_db.profile_infos(prof_file)
    summary = None
    if not by_profile or min_percentage_of_application_time is not None:
        sparse = values_db.summary_values(prof_file, infos)
        summary_cols = _choose_metrics(
            meta.metrics, metric_names, metric_scopes or ["i", "e"], ["sum"], False
        )
        extra = [c for c in summary_cols if c["column"] not in {d["column"] for d in columns}]
        need = (columns + extra) if not by_profile else summary_cols
        summary = _dense(prof_file, sparse, need, row_of, len(tree.ctx_id))
    names = _node_names(meta, label_function_nodes, directory_mapping or {})
    keep, graph_parent = _select_nodes(
        meta,
        names,
        summary.get("time (inc)") if summary is not None else None,
        all_entry_points=all_entry_points,
        max_depth=max_depth,
        min_pct=min_percentage_of_application_time,
        flags={
            "mpi": exclude_mpi_function_details,
            "openmp": exclude_openmp_function_details,
            "cuda": exclude_cuda_function_details,
            "system": exclude_system_libraries_source_code,
            "call_lines": exclude_function_call_lines,
            "no_source": exclude_no_source_code_instructions,
            "instructions": exclude_instructions,
            "non_function": exclude_non_function_nodes,
        },
    )
    rows = np.flatnonzero(keep)
    new_id = np.full(len(keep), -1, np.int64)
    new_id[rows] = np.arange(len(rows))
    parent = np.where(graph_parent[rows] >= 0, new_id[np.maximum(graph_parent[rows], 0)], -1)
    frames = pd.DataFrame({"name": names["name"][rows], "type": names["type"][rows]}, dtype=object)
    metadata = {
        "hpctoolkit_database": str(directory),
        "title": meta.title,
        "metric_units": {c["column"]: c["unit"] or "" for c in columns},
    }
    if not by_profile:
        data = pd.DataFrame({c["column"]: summary[c["column"]][rows] for c in columns})
        data["node"] = np.arange(len(rows))
        levels: tuple[str, ...] = ()
    else:
        ids = values_db.id_tuples(prof_file, infos, meta.kinds)
        data, levels = _profile_rows(
            cct_file, tree.ctx_id[rows], columns, ids, parallel_profiles_mode, profile_ranks
        )
        table = ids.drop(columns="summary").iloc[1:].fillna(-1).astype(np.int64)
        metadata["profiles"] = table.reset_index().to_dict("list")
    inc = [c["column"] for c in columns if c["column"].endswith(" (inc)")]
    exc = [c["column"] for c in columns if c["column"] not in inc]
    default = "time (inc)" if "time (inc)" in inc else (inc or exc or [None])[0]
    return build_graphframe(
        frames,
        data,
        parent=parent,
        exc_metrics=exc,
        inc_metrics=inc,
        default_metric=default,
        metadata=metadata,
        path=directory,
        index_levels=levels,
        units={k: unit_word(u) for k, u in metadata["metric_units"].items() if u},
    )


# ---------------------------------------------------------------------- metrics
def _choose_metrics(table, names, scopes, combines, by_profile) -> list[dict]:
    """Entries of the metric table to read, each with its column name (Hatchet's naming):
    ``x (inc)`` for the execution scope, ``x`` for function, ``x:min`` for a min summary."""
    if isinstance(names, str) and names != "all":
        raise OptionError(f"metric_names takes a list of names or 'all', not {names!r}")
    wanted = None if isinstance(names, str) else {str(n).lower() for n in (names or ["time"])}
    out, seen = [], set()
    for m in table:
        if m["summary"] == by_profile:
            continue
        short = "time" if m["name"] in TIME_METRICS else m["name"]
        letter = SCOPES.get(m["scope"], m["scope"])
        if (wanted is not None and short not in wanted) or letter not in scopes:
            continue
        if not by_profile:
            combine = meta_db.COMBINE.get(m["combine"], str(m["combine"]))
            if combine not in combines:
                continue
            short = short if combine == "sum" else f"{short}:{combine}"
        column = short + _SCOPE_SUFFIX.get(letter, f" ({letter})")
        if column not in seen:
            seen.add(column)
            rank = "iepc".find(letter) % 5
            out.append(
                {
                    "column": column,
                    "id": m["id"],
                    "unit": m["unit"],
                    "_key": (short != "time", short, rank),
                }
            )
    out.sort(key=lambda c: c.pop("_key"))  # time first, then by name; inclusive before exclusive
    return out


def _check_metrics(table, names, columns, path) -> None:
    """OptionError when none of the metrics named in ``metric_names`` is in the database; a
    MissingMetricWarning naming those that are not, or when no column is left at all (no
    metrics in meta.db, no time metric for the default, scopes or statistics it lacks)."""
    have = sorted({"time" if m["name"] in TIME_METRICS else m["name"] for m in table})
    has = ", ".join(have) or "none"
    if names is not None and not isinstance(names, str) and len(names):
        missing = [str(n) for n in names if str(n).lower() not in have]
        if len(missing) == len(names):
            raise OptionError(
                f"metric_names: no metric {', '.join(map(repr, missing))} in {path} "
                f"(its metrics: {has})"
            )
        if missing:
            warnings.warn(
                MissingMetricWarning(
                    f"{path}: no metric {', '.join(map(repr, missing))}, read without it "
                    f"(its metrics: {has})"
                ),
                stacklevel=4,
            )
    if columns:
        return
    if not table:
        why = "lists no metrics: the tree is read without values"
    elif names is None:
        why = (
            "has no time metric (CPUTIME, REALTIME or CYCLES): the tree is read without "
            f"values (its metrics: {has}; choose with metric_names)"
        )
    else:
        why = (
            "has none of the metrics asked for in the scopes and statistics asked for: "
            f"the tree is read without values (its metrics: {has})"
        )
    warnings.warn(MissingMetricWarning(f"{path} {why}"), stacklevel=4)


def _row_lookup(ctx_id: np.ndarray, db: DbFile):
    """Function mapping context ids to tree rows (-1 where not in the tree)."""
    order = np.argsort(ctx_id, kind="stable")
    sorted_ids = ctx_id[order]
    dup = sorted_ids[1:] == sorted_ids[:-1]
    if dup.any():
        raise db.error(
            "Context",
            db.section_start("Context"),
            "unique context ids",
            found=f"context id {int(sorted_ids[1:][dup][0])} twice",
        )

    def lookup(ids: np.ndarray) -> np.ndarray:
        k = np.minimum(np.searchsorted(sorted_ids, ids), max(len(sorted_ids) - 1, 0))
        if not len(sorted_ids):
            return np.full(len(ids), -1, np.int64)
        return np.where(sorted_ids[k] == ids, order[k], -1)

    return lookup


def _column_of(columns: list[dict], metric: np.ndarray) -> np.ndarray:
    """Column index of each metric id (-1 for metrics not read); ids are u16."""
    lookup = np.full(1 << 16, -1, np.int64)
    for k, c in reversed(list(enumerate(columns))):
        lookup[c["id"]] = k
    return lookup[metric]


def _dense(db: DbFile, sparse, columns: list[dict], row_of, n_rows: int) -> dict[str, np.ndarray]:
    """Column name -> values per tree row (0 where the file has none). A (context,
    metric) given twice is a ParseError (one value would overwrite the other)."""
    col = _column_of(columns, sparse.metric)
    row = row_of(sparse.ctx)
    ok = np.flatnonzero((col >= 0) & (row >= 0))
    cell = col[ok] * n_rows + row[ok]
    times = np.bincount(cell)[cell]
    if np.any(times > 1):
        k = ok[np.flatnonzero(times > 1)[0]]
        raise ParseError(
            db.path,
            "one value per context and metric",
            position="section profile 0",
            found=f"context {int(sparse.ctx[k])}, metric {int(sparse.metric[k])} twice",
        )
    value = values_db.readable(db, sparse.value[ok], sparse.ctx[ok], sparse.metric[ok])
    out = np.zeros((len(columns), n_rows))
    out[col[ok], row[ok]] = value
    firsts = _column_of(columns, np.array([c["id"] for c in columns], np.int64))
    for k, first in enumerate(firsts.tolist()):  # columns sharing one metric id
        if first != k:
            out[k] = out[first]
    return {c["column"]: out[k] for k, c in enumerate(columns)}


def _profile_rows(cct, ctx_ids, columns, ids, by_index, profile_ranks):
    """(node, profile) rows from cct.db: indexed by profile number (Hatchet's
    ``parallel_profiles_mode``) or by the identifier kinds of the profiles."""
    sparse = values_db.cct_values(cct, ctx_ids, np.array([c["id"] for c in columns], np.int64))
    if profile_ranks:
        if "rank" not in ids.columns:
            raise OptionError(
                "profile_ranks: the profiles of this database have no rank identifier"
            )
        chosen = ids.index[ids["rank"].isin(list(profile_ranks))].to_numpy()
        keep = np.isin(sparse.profile, chosen)
        sparse = values_db.Sparse(
            sparse.ctx[keep], sparse.metric[keep], sparse.profile[keep], sparse.value[keep]
        )
    sparse.value = values_db.readable(cct, sparse.value, sparse.ctx, sparse.metric)
    bad = (sparse.profile <= 0) | (sparse.profile >= len(ids))
    if bad.any():
        raise ParseError(
            cct.path,
            f"profile indices 1..{len(ids) - 1} (profile.db's profiles)",
            position="context values",
            found=str(int(sparse.profile[bad][0])),
        )
    order = np.argsort(ctx_ids, kind="stable")
    node = order[np.searchsorted(ctx_ids[order], sparse.ctx)]
    key = node * len(ids) + sparse.profile
    uniq, pair = np.unique(key, return_inverse=True)
    col = _column_of(columns, sparse.metric)
    mat = np.zeros((len(uniq), len(columns)))
    mat[pair.reshape(-1), col] = sparse.value
    data = pd.DataFrame(mat, columns=[c["column"] for c in columns])
    data["node"] = uniq // len(ids)
    profile = uniq % len(ids)
    if by_index:
        data["profile"] = profile
        return data, ("profile",)
    physical = set(ids.attrs.get("physical", []))
    present = ids.loc[np.unique(profile)]
    kinds = [k for k in ids.columns if k not in physical | _PLACEMENT and k != "summary"]
    kinds = [k for k in kinds if present[k].notna().any()]
    levels = []
    if not kinds or present[kinds].duplicated().any():  # identifiers do not tell them apart
        data["profile"] = profile
        levels.append("profile")
    for k in kinds:
        name = "hostid" if k == "node" else k
        data[name] = ids[k].to_numpy()[profile]
        data[name] = data[name].fillna(-1).astype(np.int64)
        levels.append(name)
    return data, tuple(levels)


# ---------------------------------------------------------------------- names
def _node_names(meta, label_functions: bool, mapping: dict[str, str]) -> dict[str, Any]:
    """Name and type of every tree row, and the facts the exclude options test.

    Names are built once per distinct (lexical type, function / file / module, line or
    offset), then spread to the rows by index.
    """
    tree, db = meta.tree, meta.db
    lex = tree.lexical
    label = "function: " if label_functions else ""
    fn = meta_db.functions(db, tree.p_function)
    fn_name = np.array(
        [_short_function_name(n) for n in fn["name"].tolist()] + ["<unknown function>"], object
    )
    fn_file = np.array(_source_paths(fn["file"].tolist(), mapping) + [None], object)
    k = np.searchsorted(fn.index.to_numpy(), tree.p_function)
    k = np.where(
        (k < len(fn)) & (fn.index.to_numpy()[np.minimum(k, max(len(fn) - 1, 0))] == tree.p_function)
        if len(fn)
        else False,
        k,
        len(fn),
    )
    file_ptr, file_idx = np.unique(tree.p_file, return_inverse=True)
    files = np.array(_source_paths(list(meta_db.paths(db, file_ptr, "Files")), mapping), object)
    mod_ptr, mod_idx = np.unique(tree.p_module, return_inverse=True)
    modules = meta_db.paths(db, mod_ptr, "Modules")
    is_fn, is_src, is_ins = lex == 0, (lex == 1) | (lex == 2), lex == 3
    file_idx, mod_idx = file_idx.reshape(-1), mod_idx.reshape(-1)
    name = np.full(len(lex), "entry", object)
    # one string per distinct name: functions by function, sources by (type, file, line),
    # instructions by (module, offset)
    fn_texts = np.array([label + t for t in fn_name.tolist()], object)
    name[is_fn] = fn_texts[k[is_fn]]
    src_key = (lex[is_src] * (len(files) + 1) + file_idx[is_src]) * (1 << 32) + tree.line[is_src]
    uniq, inv = np.unique(src_key, return_inverse=True)
    kinds, line = np.divmod(uniq, 1 << 32)
    t, f = np.divmod(kinds, len(files) + 1)
    shown = [x if x is not None else "<unknown file>" for x in files.tolist()]
    name[is_src] = np.array(
        [
            f"{'loop' if a == 1 else 'line'} {shown[b]}:{c}"
            for a, b, c in zip(t.tolist(), f.tolist(), line.tolist())
        ],
        object,
    )[inv.reshape(-1)]
    pairs = np.zeros(int(is_ins.sum()), dtype=[("m", "<i8"), ("o", "<u8")])
    pairs["m"], pairs["o"] = mod_idx[is_ins], tree.offset[is_ins]
    uniq, inv = np.unique(pairs, return_inverse=True)
    mods = [m if m is not None else "<unknown module>" for m in modules.tolist()]
    name[is_ins] = np.array(
        [f"{mods[m]}:{o}" for m, o in zip(uniq["m"].tolist(), uniq["o"].tolist())], object
    )[inv.reshape(-1)]
    types = np.array(["entry", "function", "loop", "line", "instruction"], dtype=object)[lex + 1]
    return {
        "name": name,
        "type": types,
        "base": np.where(is_fn, fn_name[k], None),
        "func_file": np.where(is_fn, fn_file[k], None),
        "file": np.where(is_src, files[file_idx], None),
        "label": label,
    }


_MPI = re.compile(r"P?MPI_[a-zA-Z_]+")


def _short_function_name(name: str) -> str:
    """Hatchet's display name: an MPI routine cut to ``MPI_Xxx``; a name cut before the
    first `` [``, ``.``, ``@``, ``(`` or ``<`` that does not start it."""
    if name.startswith(("MPI_", "PMPI_")) and len(name) > 4 + name.startswith("P"):
        m = _MPI.match(name)
        if m and "\n" not in name:
            name = name[: m.end()]
    cuts = [i for i in (name.find(c) for c in _NAME_CUTS) if i > 0]
    return name[: min(cuts)] if cuts else name


def _source_paths(paths: list, mapping: dict[str, str]) -> list:
    """File paths as Hatchet shows them: a leading ``src`` dropped, ``mapping`` applied
    (one entry per distinct file)."""
    prefixes = []
    for item, target in mapping.items():
        prefix = item if item.startswith("/") else f"/{item}"
        prefixes.append((prefix if prefix.endswith("/") else f"{prefix}/", target))
    out = []
    for p in paths:
        if not isinstance(p, str):  # no file (None; NaN once pandas 3 held the column)
            out.append(None)
            continue
        p = p[3:] if p.startswith("src") else p
        for prefix, target in prefixes:
            if p.startswith(prefix):
                p = f"{target}/{p[len(prefix) :]}"
                break
        out.append(p)
    return out


# ---------------------------------------------------------------------- node choice
def _select_nodes(meta, names, inc_time, *, all_entry_points, max_depth, min_pct, flags):
    """Which tree rows become nodes, and each one's graph parent (a row), following
    Hatchet's traversal: excluded nodes hand their children to their parent, cut nodes
    keep no children, pruned nodes (below the time share) go with their subtree."""
    tree = meta.tree
    n = len(tree.ctx_id)
    lex, parent = tree.lexical, tree.parent
    entry = lex == -1
    mains = np.flatnonzero(entry & (tree.entry_kind == 1))
    if all_entry_points or not len(mains):
        roots = np.flatnonzero(entry)
    else:
        roots = mains[:1]
    base = pd.Series(names["base"], dtype=object)
    ffile = pd.Series(names["func_file"], dtype=object).fillna("")
    fpath = pd.Series(names["file"], dtype=object).fillna("")
    is_fn, is_src = lex == 0, (lex == 1) | (lex == 2)
    drop_self = np.zeros(n, bool)
    cut = np.zeros(n, bool)
    if flags["non_function"]:
        drop_self |= ~is_fn & ~entry
    if flags["instructions"]:
        drop_self |= lex == 3
    if flags["system"]:
        drop_self |= is_src & fpath.str.startswith(_SYSTEM_SOURCES).to_numpy()
    if flags["no_source"]:
        drop_self |= is_src & (tree.line == 0)
    if flags["call_lines"]:
        drop_self |= (lex == 2) & tree.has_children
    if flags["mpi"]:
        cut |= is_fn & base.fillna("").str.startswith(("MPI_", "PMPI_")).to_numpy()
    if flags["openmp"]:
        omp = is_fn & ffile.str.contains("/openmp/", regex=False).to_numpy() & ~drop_self
        cut |= omp
        names["name"][omp] = (names["label"] + "<omp> " + base[omp].astype(str)).to_numpy()
    if flags["cuda"]:
        cuda = np.zeros(n, bool)
        for item in _CUDA_FILES:
            cuda |= ffile.str.contains(item, regex=False).to_numpy()
        cut |= is_fn & cuda
    cut &= ~drop_self
    prune = np.zeros(n, bool)
    if min_pct is not None:
        total = inc_time[roots[0]] if inc_time is not None and len(roots) else 0.0
        share = inc_time if inc_time is not None else np.zeros(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            prune = ~entry & ((share == 0) | (share / total * 100 < min_pct))
    visible = np.zeros(n, bool)
    visible[roots] = True
    keep = np.zeros(n, bool)
    graph_parent = np.full(n, -1, np.int64)
    depth = np.zeros(n, np.int64)  # depth of the row's node, or of its nearest kept ancestor
    keep[roots] = True
    limit = np.inf if max_depth is None else max_depth
    starts = tree.level_starts
    for lvl in range(1, len(starts) - 1):
        r = np.arange(starts[lvl], starts[lvl + 1])
        p = parent[r]
        ok = visible[p] & ~cut[p] & (depth[p] < limit) & ~prune[r]
        visible[r] = ok
        kept = ok & ~drop_self[r]
        keep[r] = kept
        gp = np.where(keep[p], p, graph_parent[p])
        graph_parent[r] = gp
        depth[r] = np.where(kept, depth[p] + 1, depth[p])
    return keep, graph_parent
