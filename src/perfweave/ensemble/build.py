"""Building ensembles: from in-memory GraphFrames, or by reading many files.

File reads are independent and may run on any ``concurrent.futures.Executor``; the graphs
are unified once at the end (:meth:`Graph.union_all`, one old->new map per profile,
applied once), and the tables are laid out in one vectorised step.
"""

from __future__ import annotations

import gc
import glob as _glob
import multiprocessing as mp
import os
import pickle
import sys
import warnings
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from perfweave.calltree.graph import Graph
from perfweave.calltree.graphframe import GraphFrame
from perfweave.ensemble import _processes, _table
from perfweave.ensemble.ensemble import Ensemble
from perfweave.ensemble.profiles import profile_ids, source_order
from perfweave.errors import (
    ArgumentError,
    ArgumentTypeError,
    FormatError,
    ParallelReadWarning,
    ParseError,
    PerfweaveError,
    ShapeError,
    SkippedInputWarning,
)

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Executor

INT = np.int64
_GLOB_CHARS = set("*?[")


def from_graphframes(
    gfs: Sequence[GraphFrame],
    metadata: Sequence[dict] | pd.DataFrame | None = None,
    *,
    profiles: Sequence[Hashable] | None = None,
    profile_key: str | None = None,
    sources: Sequence[str] | None = None,
    fill_perfdata: bool = True,
) -> Ensemble:
    """See :meth:`Ensemble.from_graphframes`."""
    gfs = list(gfs)
    if not gfs:
        raise ShapeError("an ensemble needs at least one GraphFrame")
    for i, gf in enumerate(gfs):
        if not isinstance(gf, GraphFrame):
            raise ArgumentTypeError(
                f"item {i} is a {type(gf).__name__}, not a perfweave GraphFrame "
                "(convert Hatchet/Thicket objects first)"
            )
    labels = list(sources) if sources is not None else [f"graphframe #{i}" for i in range(len(gfs))]
    meta_rows = [dict(gf.metadata) for gf in gfs]
    if metadata is not None:
        extra = (
            metadata.to_dict("records") if isinstance(metadata, pd.DataFrame) else list(metadata)
        )
        if len(extra) != len(gfs):
            raise ShapeError(f"{len(extra)} metadata rows for {len(gfs)} GraphFrames")
        for row, more in zip(meta_rows, extra):
            row.update(more)
    ids = profile_ids(meta_rows, labels, profiles, profile_key)
    return _assemble(gfs, ids, meta_rows, labels, fill_perfdata)


def _assemble(
    gfs: list[GraphFrame],
    ids: list[Any],
    meta_rows: list[dict],
    labels: list[str],
    fill: bool = True,
    order: list[int] | None = None,
) -> Ensemble:
    """Union the graphs once, lay the tables out densely, build metadata and stats;
    profiles in ``order`` (positions), by default sorted by id."""
    union, maps = union_distinct([gf.graph for gf in gfs])
    order = _sort_order(ids) if order is None else order
    pos_of = np.empty(len(ids), INT)
    pos_of[order] = np.arange(len(ids), dtype=INT)
    sorted_ids = [ids[i] for i in order]
    levels = _extra_levels(gfs, labels)
    if levels:
        tables = [gf.dataframe.reset_index(level=levels) for gf in gfs]
    else:
        tables = [gf.dataframe for gf in gfs]
    old_nodes = [gf.node_ids() for gf in gfs]
    prof = [np.full(len(t), pos_of[i], INT) for i, t in enumerate(tables)]
    df = _table.stack(
        [t.reset_index(drop=True) for t in tables] if levels else tables,
        old_nodes,
        maps,
        prof,
        sorted_ids,
        len(union),
        labels,
        extra_levels=levels,
        node_names=union.frames["name"].to_numpy(),
        rows_are_data=True,
        fill=fill,
    )
    meta = pd.DataFrame([meta_rows[i] for i in order], index=pd.Index(sorted_ids, name="profile"))
    exc = _ordered_union(gf.exc_metrics for gf in gfs)
    inc = _ordered_union(gf.inc_metrics for gf in gfs)
    mapping = {ids[i]: labels[i] for i in order}
    units = {m: u for gf in reversed(gfs) for m, u in gf.units.items()}  # the first wins
    return Ensemble(union, df, meta, exc, inc, gfs[0].default_metric, None, mapping, units=units)


def union_distinct(graphs: list[Graph]) -> tuple[Graph, list[np.ndarray]]:
    """``Graph.union_all(graphs)``, computed over the distinct graphs only.

    Runs of one program often have identical call trees (same nodes, numbering, frames and
    order); a repeated tree adds nothing to the union and takes the map of its first copy,
    so 10,000 profiles of a handful of shapes cost a handful of graphs.
    """
    first: dict[Any, int] = {}
    same_object: dict[int, int] = {}  # id of a tree met before -> its j (reader processes
    # send the identical trees of a chunk as one object: see _share_trees)
    rep = np.empty(len(graphs), INT)
    distinct: list[int] = []
    for i, g in enumerate(graphs):
        j = same_object.get(id(g))
        if j is None:
            key = _tree_key(g)
            j = first.get(key) if key is not None else None
            if j is None:
                j = len(distinct)
                distinct.append(i)
                if key is not None:
                    first[key] = j
            if key is not None:
                same_object[id(g)] = j
        rep[i] = j
    if len(distinct) == len(graphs):
        return Graph.union_all(graphs)
    parts = [graphs[i] for i in distinct]
    if len(parts) == 1:  # as the union of several copies (its nodes in union order)
        parts = parts * 2
    union, maps = Graph.union_all(parts)
    return union, [maps[j] for j in rep]


def _tree_key(g: Graph) -> tuple | None:
    """Everything the union reads from a tree (None for a DAG: never shared)."""
    if not g.is_tree():
        return None
    frames = g.frames
    order = None if g.order_key is None else g.order_key.tobytes()
    cells = tuple(frames.to_numpy(dtype=object).ravel().tolist())
    return (len(g), np.asarray(g.parent).tobytes(), order, tuple(frames.columns), cells)


def _sort_order(ids: list[Any]) -> list[int]:
    """Positions of ``ids`` in sorted order (ids of mixed types sort by their text)."""
    try:
        return sorted(range(len(ids)), key=ids.__getitem__)
    except TypeError:
        return sorted(range(len(ids)), key=lambda i: str(ids[i]))


def _extra_levels(gfs: list[GraphFrame], labels: list[str]) -> list[str]:
    levels = gfs[0].index_levels
    for gf, label in zip(gfs, labels):
        if gf.index_levels != levels:
            raise ShapeError(
                f"{label} is indexed by {['node', *gf.index_levels]} but {labels[0]} by "
                f"{['node', *levels]}; drop or add index levels so they agree"
            )
    return list(levels)


def _ordered_union(lists) -> list[Any]:
    out: dict[Any, None] = {}
    for lst in lists:
        out.update(dict.fromkeys(lst))
    return list(out)


# ---------------------------------------------------------------------- reading files
def expand_paths(paths_or_glob: str | os.PathLike | Sequence[str | os.PathLike]) -> list[str]:
    """A list of files from a list, a glob pattern or a directory (searched recursively;
    hidden files and the files profilers write beside their profiles, such as Score-P's
    ``scorep.cfg``, left out: :func:`perfweave.calltree.readers.is_companion`)."""
    if isinstance(paths_or_glob, (str, os.PathLike)):
        text = os.fspath(paths_or_glob)
        if os.path.isdir(text):
            from perfweave.calltree.readers import is_companion

            files = sorted(
                str(p)
                for p in Path(text).rglob("*")
                if p.is_file()
                and not any(part.startswith(".") for part in p.parts)
                and not is_companion(p)
            )
            if not files:
                raise FileNotFoundError(2, "no files in directory", text)
            return files
        if _GLOB_CHARS & set(text):
            files = sorted(_glob.glob(text, recursive=True))
            if not files:
                raise FileNotFoundError(2, "no file matches the pattern", text)
            return files
        return [text]
    files = [os.fspath(p) for p in paths_or_glob]
    if not files:
        raise FileNotFoundError(2, "no files given", "<empty list>")
    return files


def _read_one(path: str, fmt: str | None, reader: Any, options: dict) -> tuple:
    """Read one file; never raises (errors come back as text, so they cross processes)."""
    try:
        if callable(reader):
            gf = reader(path, **options)
        else:
            from perfweave.calltree.readers import read

            gf = read(path, format=fmt, **options)
        return path, gf, None
    except PerfweaveError as exc:
        return path, None, str(exc)
    except FileNotFoundError:
        return path, None, f"{path}: no such file"
    except Exception as exc:  # a reader library failed on a broken file
        return path, None, f"{path}: could not be read ({type(exc).__name__}: {exc})"


def _format_reader(fmt: str | None, reader: Any, options: dict) -> Any:
    """The reader module's ``read`` for a format name whose reader takes ``options`` (what
    :func:`perfweave.calltree.readers.read` calls after its checks, looked up once for
    many files), else ``reader`` as given (a callable, or None: read() says what is wrong)."""
    if fmt is None or callable(reader):
        return reader
    from perfweave.calltree import readers

    try:
        read = readers.reader(fmt).read
        known = readers.reader_options(fmt)
    except PerfweaveError:
        return reader
    return read if set(options) <= set(known) else reader


def _formats(
    files: list[str], reader: Any, undetected: list[tuple[str, str]] | None = None
) -> str | None:
    """The one format of all files (None for a callable reader); mixed formats raise.

    With ``undetected`` (a list), a file that is missing or of no known format is appended
    to it as (path, message) instead of raising, and left out of the format check.
    """
    if callable(reader):
        return None
    if reader is not None:
        return str(reader)
    from perfweave.calltree.readers import detect

    seen: dict[str, str] = {}
    for f in files:
        try:
            if not os.path.exists(f):
                raise FileNotFoundError(2, "No such file or directory", f)
            fmt = detect(f)
        except (FileNotFoundError, FormatError) as exc:
            if undetected is None:
                raise
            message = f"{f}: no such file" if isinstance(exc, FileNotFoundError) else str(exc)
            undetected.append((f, message))
            continue
        seen.setdefault(fmt, f)
        if len(seen) > 1:
            (fa, pa), (fb, pb) = list(seen.items())[:2]
            raise FormatError(
                f"files of mixed formats: {pa} is {fa} but {pb} is {fb}; "
                "build one ensemble per format (or pass reader=)"
            )
    if not seen:
        first = undetected[0][1] if undetected else "no files"
        raise FormatError(f"no file of a format perfweave recognises ({first})")
    return next(iter(seen))


def from_files(
    paths_or_glob: str | Sequence[str],
    reader: str | Callable | None = None,
    intersection: bool = False,
    executor: Executor | None = None,
    *,
    workers: int | None = None,
    profile_key: str | None = None,
    on_error: str = "raise",
    progress: bool | None = None,
    fill_perfdata: bool = True,
    **options: Any,
) -> Ensemble:
    """See :meth:`Ensemble.from_files`."""
    if on_error not in ("raise", "skip"):
        raise ArgumentError("on_error must be 'raise' or 'skip'")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise ArgumentError(f"workers must be None or a whole number >= 1, not {workers!r}")
    if executor is not None and workers is not None:
        raise ArgumentError("give either executor= or workers=, not both")
    # Python's cycle collector paused (as the trace-event readers do): the caller ends up
    # holding every file's GraphFrame, hundreds of objects each, and every full collection
    # walked all of them again (10,000 RAJAPerf files: 2.5 s of this process's 7 s of CPU,
    # more in one process); reading and assembling leave no cycles to collect
    collecting = gc.isenabled()
    gc.disable()
    try:
        files = expand_paths(paths_or_glob)
        skip = on_error == "skip"
        undetected: list[tuple[str, str]] = []
        fmt = _formats(files, reader, undetected if skip else None)
        if undetected:  # unrecognisable files are skipped like unreadable ones
            gone = {path for path, _ in undetected}
            files = [f for f in files if f not in gone]
        results = _read_all(files, fmt, reader, options, executor, progress, workers)
        gfs, labels, errors = [], [], list(undetected)
        for path, gf, err in results:
            if err is None:
                gfs.append(gf)
                labels.append(path)
            elif not skip:
                raise ParseError(path, f"a readable {fmt or 'profile'} file ({err})")
            else:
                errors.append((path, err))
        for path, err in errors:
            warnings.warn(SkippedInputWarning(f"skipped {path}: {err}"), stacklevel=3)
        if not gfs:
            raise ParseError(files[0], f"at least one readable profile; none was ({errors[0][1]})")
        meta_rows = [{**gf.metadata, "file": path} for gf, path in zip(gfs, labels)]
        ids = profile_ids(meta_rows, labels, None, profile_key)
        # ids of perfweave's own (hashes) say nothing of order: Thicket's order of the files;
        # ids the user chose with profile_key are put in their order
        order = source_order(labels) if profile_key is None else None
        ens = _assemble(gfs, ids, meta_rows, labels, fill_perfdata, order)
        ens.errors = errors
        return ens.intersection() if intersection else ens
    finally:
        if collecting:
            gc.enable()


def _read_all(files, fmt, reader, options, executor, progress, workers) -> list[tuple]:
    """Read every file, in order: on ``executor``, on a pool of reader processes, or here,
    with a progress bar on long runs."""
    n = reader_processes(len(files), reader, workers)
    method, why = None, ""
    if executor is None and n > 1:
        _check_sendable(reader)
        # chosen before the bar exists: fork is only safe while no other thread runs
        method, why = _processes.start_method()
    bar = _progress_bar(len(files), progress)
    try:
        if executor is not None:
            return _read_on(executor, files, fmt, reader, options, bar, _chunk_size(len(files)))
        if method is not None:
            try:
                with _process_pool(n, method) as pool:
                    size = _chunk_size(len(files), n)
                    return _read_on(pool, files, fmt, reader, options, bar, size)
            except (BrokenProcessPool, OSError) as exc:
                why = f"the reader processes failed ({type(exc).__name__}: {exc})"
                bar.reset()
        if why:
            warnings.warn(
                ParallelReadWarning(f"read {len(files)} files in this process: {why}"),
                stacklevel=4,
            )
        out = []
        read = _format_reader(fmt, reader, options)
        for f in files:
            out.append(_read_one(f, fmt, read, options))
            bar.update(1)
        return out
    finally:
        bar.close()


def _progress_bar(total: int, progress: bool | None):
    """A tqdm bar (notebook or terminal) that starts no monitor thread of its own."""
    from tqdm.auto import tqdm

    class Bar(tqdm):
        monitor_interval = 0  # its thread would rule out forking the reader processes

    show = {"disable": progress is False, "delay": 0 if progress else 2.0}
    return Bar(total=total, desc="reading profiles", unit="file", **show)


#: file lists at least this long are read on all cores by default (``workers=None``)
PARALLEL_MIN_FILES = 256


def reader_processes(n_files: int, reader: Any, workers: int | None) -> int:
    """How many reader processes ``from_files`` uses (1: read in this process).

    ``workers`` if given; otherwise every core the process may use, when the list has at
    least :data:`PARALLEL_MIN_FILES` files and the reader is a format name (a callable
    reader may not survive being sent to another process: pass ``workers=`` for it).
    """
    if workers is not None:
        return workers
    if callable(reader) or n_files < PARALLEL_MIN_FILES:
        return 1
    return max(1, min(_usable_cores(), n_files // 64))


def _check_sendable(reader: Any) -> None:
    """A callable reader must be importable by the reader processes (they start fresh)."""
    if not callable(reader):
        return
    main = sys.modules.get("__main__")
    interactive = getattr(reader, "__module__", None) == "__main__" and not hasattr(
        main, "__file__"
    )
    try:
        pickle.dumps(reader)
    except Exception:
        interactive = True
    if interactive:
        name = getattr(reader, "__qualname__", repr(reader))
        raise ArgumentError(
            f"reader {name} cannot be sent to reader processes (defined in a notebook, "
            "a lambda or a local function): define it in an importable module, pass "
            "workers=1, or a dask.distributed executor= (which sends functions by value)"
        )


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def _process_pool(n: int, method: str) -> ProcessPoolExecutor:
    """``n`` reader processes started by ``method`` (see :mod:`._processes`); forkserver
    workers start with the readers already imported."""
    ctx = mp.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload(["perfweave.ensemble.build"])
    return ProcessPoolExecutor(max_workers=n, mp_context=ctx)


def _chunk_size(n_files: int, n_workers: int = 8) -> int:
    """Files per task: few enough tasks to keep messages cheap, enough to balance load."""
    return max(1, min(64, n_files // (n_workers * 8)))


def _read_chunk(
    paths: list[str], fmt: str | None, reader: Any, options: dict, capture: bool = False
) -> tuple[list[tuple], list[Warning]]:
    """Read ``paths``; with ``capture`` (in a reader process) the warnings the readers
    issue are caught and sent back, so the caller sees them as if read here."""
    reader = _format_reader(fmt, reader, options)
    if not capture:
        return [_read_one(p, fmt, reader, options) for p in paths], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = [_read_one(p, fmt, reader, options) for p in paths]
    _share_trees(out)
    return out, [w.message for w in caught if isinstance(w.message, Warning)]


def _share_trees(results: list[tuple]) -> None:
    """Give the GraphFrames of a chunk whose call trees are identical (what
    :func:`union_distinct` reads of a tree: :func:`_tree_key`) one Graph object, so that
    it is sent back once (pickle writes an object met twice once; a Graph was 40% of a
    RAJAPerf GraphFrame's bytes and of the time to send it) and the union recognises it
    by identity. Graphs are immutable, and frames may share one."""
    first: dict[Any, Graph] = {}
    for _, gf, _ in results:
        if not isinstance(gf, GraphFrame):
            continue
        key = _tree_key(gf.graph)
        if key is not None:
            gf.graph = first.setdefault(key, gf.graph)


def _read_on(executor, files, fmt, reader, options, bar, size: int) -> list[tuple]:
    chunks = [files[i : i + size] for i in range(0, len(files), size)]
    capture = isinstance(executor, ProcessPoolExecutor)
    with warnings.catch_warnings():
        # Python >= 3.12 warns when forking beside threads it did not start (BLAS's);
        # start_method() forks only when no other Python thread runs
        warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
        futures = [executor.submit(_read_chunk, c, fmt, reader, options, capture) for c in chunks]
    out: list[tuple] = []
    for fut in futures:
        part, caught = fut.result()
        for message in caught:
            warnings.warn(message, stacklevel=5)
        out.extend(part)
        bar.update(len(part))
    return out
