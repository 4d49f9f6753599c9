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

from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers import _hpctk4_meta as meta_db
from perfweave.calltree.readers import _hpctk4_values as values_db
from perfweave.calltree.readers._hpctk4_binary import MAGIC, DbFile
from perfweave.errors import OptionError, ParseError

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


def sniff(path: Path) -> bool:
    directory = path if path.is_dir() else path.parent
    if not path.is_dir() and not path.name.endswith(".db"):
        return False
    meta = directory / "meta.db"
    if not meta.is_file():
        return False
    with open(meta, "rb") as f:
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
    tree = meta.tree
    row_of = _row_lookup(tree.ctx_id, meta_file)
    infos = values_db.profile_infos(prof_file)
    summary = None
    if not by_profile or min_percentage_of_application_time is not None:
        sparse = values_db.summary_values(prof_file, infos)
        summary_cols = _choose_metrics(
            meta.metrics, metric_names, metric_scopes or ["i", "e"], ["sum"], False
        )
        need = pd.concat([columns, summary_cols]).drop_duplicates("column") if not by_profile else summary_cols
        summary = _dense(sparse, need, row_of, len(tree.ctx_id))
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
    frames = pd.DataFrame({"name": names["name"][rows], "type": names["type"][rows]})
    metadata = {
        "hpctoolkit_database": str(directory),
        "title": meta.title,
        "metric_units": dict(zip(columns["column"], columns["unit"].fillna(""))),
    }
    if not by_profile:
        data = pd.DataFrame({c: summary[c][rows] for c in columns["column"]})
        data["node"] = np.arange(len(rows))
        levels: tuple[str, ...] = ()
    else:
        ids = values_db.id_tuples(prof_file, infos, meta.kinds)
        data, levels = _profile_rows(
            cct_file, tree.ctx_id[rows], columns, ids, parallel_profiles_mode, profile_ranks
        )
        metadata["profiles"] = ids.drop(columns="summary").iloc[1:].reset_index().to_dict("list")
    inc = [c for c in columns["column"] if c.endswith(" (inc)")]
    exc = [c for c in columns["column"] if c not in inc]
    default = "time (inc)" if "time (inc)" in inc else (inc or exc or ["time (inc)"])[0]
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
    )


# ---------------------------------------------------------------------- metrics
def _choose_metrics(table, names, scopes, combines, by_profile) -> pd.DataFrame:
    """Rows of the metric table to read, each with its column name (Hatchet's naming)."""
    t = table[table["summary"] != by_profile].copy()
    t["short"] = t["name"].where(~t["name"].isin(TIME_METRICS), "time")
    if isinstance(names, str):
        if names != "all":
            raise OptionError(f"metric_names takes a list of names or 'all', not {names!r}")
    else:
        wanted = [str(n).lower() for n in (names or ["time"])]
        t = t[t["short"].isin(wanted)]
    t["letter"] = t["scope"].map(SCOPES).fillna(t["scope"])
    t = t[t["letter"].isin(scopes)]
    if not by_profile:
        t["combine_name"] = t["combine"].map(meta_db.COMBINE)
        t = t[t["combine_name"].isin(combines)]
        t["short"] = t["short"].where(t["combine_name"] == "sum", t["short"] + ":" + t["combine_name"].astype(str))
    t["column"] = t["short"] + t["letter"].map(_SCOPE_SUFFIX).fillna(" (" + t["letter"] + ")")
    return t.drop_duplicates("column")[["column", "id", "unit"]].reset_index(drop=True)


def _row_lookup(ctx_id: np.ndarray, db: DbFile):
    """Function mapping context ids to tree rows (-1 where not in the tree)."""
    order = np.argsort(ctx_id, kind="stable")
    sorted_ids = ctx_id[order]
    dup = sorted_ids[1:] == sorted_ids[:-1]
    if dup.any():
        raise db.error("Context", db.section_start("Context"), "unique context ids", found=f"context id {int(sorted_ids[1:][dup][0])} twice")

    def lookup(ids: np.ndarray) -> np.ndarray:
        k = np.minimum(np.searchsorted(sorted_ids, ids), max(len(sorted_ids) - 1, 0))
        if not len(sorted_ids):
            return np.full(len(ids), -1, np.int64)
        return np.where(sorted_ids[k] == ids, order[k], -1)

    return lookup


def _dense(sparse, columns: pd.DataFrame, row_of, n_rows: int) -> dict[str, np.ndarray]:
    """Column name -> values per tree row (0 where the file has none)."""
    col_of = pd.Series(np.arange(len(columns)), index=columns["id"].to_numpy())
    col_of = col_of[~col_of.index.duplicated()]
    col = col_of.reindex(sparse.metric).to_numpy()
    row = row_of(sparse.ctx)
    ok = ~np.isnan(col) & (row >= 0)
    out = np.zeros((len(columns), n_rows))
    out[col[ok].astype(np.int64), row[ok]] = sparse.value[ok]
    # metrics sharing one id (a summary equal to its propagated value) fill every column
    for k, (name, mid) in enumerate(zip(columns["column"], columns["id"])):
        first = int(col_of[mid])
        if first != k:
            out[k] = out[first]
    return dict(zip(columns["column"], out))


def _profile_rows(cct, ctx_ids, columns, ids, by_index, profile_ranks):
    """(node, profile) rows from cct.db: indexed by profile number (Hatchet's
    ``parallel_profiles_mode``) or by the identifier kinds of the profiles."""
    sparse = values_db.cct_values(cct, ctx_ids, columns["id"].to_numpy())
    if profile_ranks:
        if "rank" not in ids.columns:
            raise OptionError("profile_ranks: the profiles of this database have no rank identifier")
        chosen = ids.index[ids["rank"].isin(list(profile_ranks))].to_numpy()
        keep = np.isin(sparse.profile, chosen)
        sparse = values_db.Sparse(sparse.ctx[keep], sparse.metric[keep], sparse.profile[keep], sparse.value[keep])
    bad = (sparse.profile <= 0) | (sparse.profile >= len(ids))
    if bad.any():
        raise ParseError(cct.path, f"profile indices 1..{len(ids) - 1} (profile.db's profiles)", position="context values", found=str(int(sparse.profile[bad][0])))
    order = np.argsort(ctx_ids, kind="stable")
    node = order[np.searchsorted(ctx_ids[order], sparse.ctx)]
    key = node * len(ids) + sparse.profile
    uniq, pair = np.unique(key, return_inverse=True)
    col_of = pd.Series(np.arange(len(columns)), index=columns["id"].to_numpy())
    col_of = col_of[~col_of.index.duplicated()]
    col = col_of.reindex(sparse.metric).to_numpy().astype(np.int64)
    mat = np.zeros((len(uniq), len(columns)))
    mat[pair.reshape(-1), col] = sparse.value
    data = pd.DataFrame(mat, columns=columns["column"].to_list())
    data["node"] = uniq // len(ids)
    profile = uniq % len(ids)
    if by_index:
        data["profile"] = profile
        return data, ("profile",)
    physical = set(ids.attrs.get("physical", []))
    kinds = [k for k in ids.columns if k not in physical and k not in ("summary", "summary".upper())]
    kinds = [k for k in kinds if ids.loc[profile, k].notna().any()] if len(profile) else kinds
    levels = []
    if not kinds or ids.loc[1:, kinds].duplicated().any():
        data["profile"] = profile
        levels.append("profile")
    for k in kinds:
        name = "hostid" if k == "node" else k
        data[name] = ids[k].to_numpy()[profile]
        data[name] = data[name].fillna(-1).astype(np.int64)
        levels.append(name)
    return data, tuple(levels)


# ---------------------------------------------------------------------- names
def _node_names(meta, label_functions: bool, mapping: dict[str, str]) -> dict[str, np.ndarray]:
    """Name and type of every tree row, and the facts the exclude options test."""
    tree, db = meta.tree, meta.db
    n = len(tree.ctx_id)
    lex = tree.lexical
    fn = meta_db.functions(db, tree.p_function)
    fn_name = _short_function_names(fn["name"])
    fn_file = _source_paths(fn["file"], mapping)
    fidx = pd.Index(fn.index)
    k = fidx.get_indexer(tree.p_function)
    file_path = _source_paths(pd.Series(meta_db.paths(db, tree.p_file, "Files")), mapping)
    module = meta_db.paths(db, tree.p_module, "Modules")
    name = np.full(n, "", object)
    is_fn = lex == 0
    has_fn = is_fn & (k >= 0)
    base = np.full(n, None, object)
    base[has_fn] = fn_name.to_numpy()[k[has_fn]]
    base[is_fn & (k < 0)] = "<unknown function>"
    func_file = np.full(n, None, object)
    func_file[has_fn] = fn_file.to_numpy()[k[has_fn]]
    name[is_fn] = ("function: " if label_functions else "") + pd.Series(base[is_fn], dtype=object).astype(str)
    src = (lex == 1) | (lex == 2)
    kind = np.where(lex == 1, "loop", "line")
    fp = file_path.to_numpy()
    name[src] = (
        pd.Series(kind[src]) + " " + pd.Series(fp[src]).fillna("<unknown file>").astype(str) + ":" + pd.Series(tree.line[src]).astype(str)
    ).to_numpy()
    ins = lex == 3
    name[ins] = (pd.Series(module[ins]).fillna("<unknown module>").astype(str) + ":" + pd.Series(tree.offset[ins]).astype(str)).to_numpy()
    entry = lex == -1
    name[entry] = "entry"
    types = np.array(["entry", "function", "loop", "line", "instruction"], dtype=object)[lex + 1]
    label = "function: " if label_functions else ""
    return {"name": name, "type": types, "base": base, "func_file": func_file, "file": fp, "label": label}


def _short_function_names(names: pd.Series) -> pd.Series:
    """Hatchet's display names: MPI routines cut to ``MPI_Xxx``; a name cut before the
    first `` [``, ``.``, ``@``, ``(`` or ``<`` that does not start it."""
    s = names.astype(str)
    mpi = s.str.fullmatch(r"P?MPI_.+")
    if mpi.any():
        s = s.where(~mpi, s.str.extract(r"^(P?MPI_[a-zA-Z_]+)", expand=False).fillna(s))
    for cut in _NAME_CUTS:
        at = s.str.find(cut)
        s = s.where(~(at > 0), s.str.split(cut, n=1, regex=False).str[0])
    return s


def _source_paths(paths: pd.Series, mapping: dict[str, str]) -> pd.Series:
    """File paths as Hatchet shows them: a leading ``src`` dropped, ``mapping`` applied."""
    s = paths.reset_index(drop=True)
    text = s.astype(object).where(s.notna(), None)
    present = text.notna()
    t = text[present].astype(str)
    t = t.where(~t.str.startswith("src"), t.str.slice(3))
    done = pd.Series(False, index=t.index)
    for item, target in mapping.items():
        prefix = item if item.startswith("/") else f"/{item}"
        prefix = prefix if prefix.endswith("/") else f"{prefix}/"
        hit = ~done & t.str.startswith(prefix)
        t = t.where(~hit, target + "/" + t.str.slice(len(prefix)))
        done |= hit
    out = text.copy()
    out[present] = t
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
    typ = names["type"]
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
