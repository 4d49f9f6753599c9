"""CountsProfile and CallGroup: everything a profiler results directory holds, woven together.

A CallGroup is a set of calls of one lead rank whose send *and* receive counts (and
datatype sizes) are identical; its matrices are CountMatrix objects shared with every
other group that has the same counts, so memory grows with distinct matrices, not calls.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd

from perfweave.counts._arrays import unique_first_inverse
from perfweave.counts._parallel import map_files
from perfweave.counts.backtraces import BACKTRACE_NAME, Backtrace, read_backtrace
from perfweave.counts.compact import (
    COMPACT_NAME,
    CompactBlock,
    CompactFile,
    CompactStyle,
    read_compact,
    write_compact,
)
from perfweave.counts.grouping import RankGroup
from perfweave.counts.matrix import CountMatrix
from perfweave.counts.percall import PERCALL_NAME, CallCounts, percall_ids, read_percall
from perfweave.counts.ranklist import format_ranklist, parse_ranklist
from perfweave.counts.timings import (
    COMM_DATA_NAME,
    LOCATIONS_NAME,
    TIMINGS_NAME,
    read_comm_data,
    read_locations,
    read_timings,
)
from perfweave.errors import FormatError, MetadataError, PerfweaveError, SkippedInputWarning

__all__ = [
    "CallGroup",
    "CountsProfile",
    "groups_from_compact",
    "groups_from_percall",
    "read",
    "to_compact",
]

T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class CallGroup:
    """Calls of one lead rank with identical send and receive counts."""

    lead_rank: int
    job: int | None
    collective: str
    calls: np.ndarray
    comm_size: int
    send_datatype_size: int
    recv_datatype_size: int
    send: CountMatrix
    recv: CountMatrix

    @property
    def n_calls(self) -> int:
        return int(self.calls.size)

    @property
    def send_groups(self) -> list[RankGroup]:
        """Rank-range groups of the send matrix (label, ranks, row)."""
        return self.send.groups

    @property
    def recv_groups(self) -> list[RankGroup]:
        """Rank-range groups of the receive matrix (label, ranks, row)."""
        return self.recv.groups

    def __repr__(self) -> str:
        return (
            f"CallGroup(rank {self.lead_rank}, {self.collective}, calls "
            f"{format_ranklist(self.calls, sep=',')}, comm size {self.comm_size})"
        )


def _infer_collective(send: CountMatrix, recv: CountMatrix, comm_size: int) -> str:
    if comm_size > 1 and send.width == 1:
        return "Alltoall" if recv.width == 1 else "Allgatherv"
    return "Alltoallv"


def groups_from_compact(send: CompactFile, recv: CompactFile) -> list[CallGroup]:
    """Pair the blocks of a lead rank's send and recv files into CallGroups (by first call)."""
    s_calls, s_block = _call_index(send.blocks)
    r_calls, r_block = _call_index(recv.blocks)
    if not np.array_equal(s_calls, r_calls):
        only = np.setxor1d(s_calls, r_calls)
        c = int(only[0])
        where = send.path if c in set(s_calls.tolist()) else recv.path
        other = recv.path if where == send.path else send.path
        raise FormatError(f"{where}: call {c} has counts here but not in {other}")
    key = s_block * len(recv.blocks) + r_block
    uniq, first, inverse = unique_first_inverse(key)
    order = np.argsort(first, kind="stable")
    by_group = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[by_group], np.arange(uniq.size + 1))
    lead = send.rank if send.rank is not None else -1
    out = []
    for k in order.tolist():
        calls = s_calls[by_group[bounds[k] : bounds[k + 1]]]
        sb = send.blocks[int(uniq[k]) // len(recv.blocks)]
        rb = recv.blocks[int(uniq[k]) % len(recv.blocks)]
        if sb.comm_size != rb.comm_size or sb.collective != rb.collective:
            raise FormatError(
                f"{send.path} (line {sb.line}) and {recv.path} (line {rb.line}): call "
                f"{int(calls[0])} has {sb.collective} comm size {sb.comm_size} in one and "
                f"{rb.collective} comm size {rb.comm_size} in the other"
            )
        calls.setflags(write=False)
        out.append(
            CallGroup(
                lead_rank=lead,
                job=send.job,
                collective=sb.collective,
                calls=calls,
                comm_size=sb.comm_size,
                send_datatype_size=sb.datatype_size,
                recv_datatype_size=rb.datatype_size,
                send=sb.counts,
                recv=rb.counts,
            )
        )
    return out


def _call_index(blocks: Sequence[CompactBlock]) -> tuple[np.ndarray, np.ndarray]:
    calls = np.concatenate([b.calls for b in blocks])
    block = np.repeat(np.arange(len(blocks)), [b.calls.size for b in blocks])
    order = np.argsort(calls, kind="stable")
    return calls[order], block[order]


def groups_from_percall(
    calls: Iterable[CallCounts], *, lead_rank: int | None = None, job: int | None = None
) -> list[CallGroup]:
    """Group per-call counts by identical send/recv counts; equal matrices are shared."""
    shared: dict[bytes, CountMatrix] = {}
    groups: dict[tuple, list[int]] = {}
    info: dict[tuple, CallCounts] = {}
    for i, c in enumerate(calls):
        send = shared.setdefault(c.send.fingerprint, c.send)
        recv = shared.setdefault(c.recv.fingerprint, c.recv)
        key = (
            send.fingerprint,
            recv.fingerprint,
            c.send_datatype_size,
            c.recv_datatype_size,
            c.comm_size,
        )
        groups.setdefault(key, []).append(c.call if c.call is not None else i)
        if key not in info:  # the first call of a group describes it, with shared matrices
            info[key] = dataclasses.replace(c, send=send, recv=recv)
        if lead_rank is None:
            lead_rank = c.rank
    out = []
    for key, ids in groups.items():
        c = info[key]
        arr = np.sort(np.asarray(ids, dtype=np.int64))
        if arr.size > 1 and bool((arr[1:] == arr[:-1]).any()):
            raise FormatError(f"{c.path}: call {int(arr[1:][arr[1:] == arr[:-1]][0])} given twice")
        arr.setflags(write=False)
        out.append(
            CallGroup(
                lead_rank=lead_rank if lead_rank is not None else -1,
                job=job,
                collective=_infer_collective(c.send, c.recv, c.comm_size),
                calls=arr,
                comm_size=c.comm_size,
                send_datatype_size=c.send_datatype_size,
                recv_datatype_size=c.recv_datatype_size,
                send=c.send,
                recv=c.recv,
            )
        )
    out.sort(key=lambda g: int(g.calls[0]))
    return out


def to_compact(
    source: Iterable[CallCounts] | Iterable[CallGroup],
    directory: str | os.PathLike[str],
    *,
    job: int = 0,
    rank: int | None = None,
    style: str | CompactStyle = "tools",
) -> tuple[Path, Path]:
    """Write ``send-counters.job<J>.rank<R>.txt`` and ``recv-counters...`` for ``source``.

    ``source`` is per-call counts (e.g. :func:`read_percall` of every per-call file of a
    rank) or CallGroups. Blocks hold the calls sharing identical counts and datatype size,
    ordered by first call; with the default ``style="tools"`` the files are byte-identical
    to what the upstream conversion tool writes.
    """
    items = list(source)
    groups = (
        items if all(isinstance(x, CallGroup) for x in items) else groups_from_percall(items)  # type: ignore[arg-type]
    )
    if not groups:
        raise FormatError("to_compact: no calls to write")
    if rank is None:
        rank = groups[0].lead_rank
    out_dir = Path(directory)
    paths = []
    for kind in ("send", "recv"):
        blocks = _blocks_for(groups, kind)
        paths.append(
            write_compact(blocks, out_dir / f"{kind}-counters.job{job}.rank{rank}.txt", style=style)
        )
    return paths[0], paths[1]


def _blocks_for(groups: Sequence[CallGroup], kind: str) -> list[CompactBlock]:
    merged: dict[tuple, list[CallGroup]] = {}
    for g in groups:
        m = g.send if kind == "send" else g.recv
        size = g.send_datatype_size if kind == "send" else g.recv_datatype_size
        merged.setdefault((m.fingerprint, size, g.comm_size, g.collective), []).append(g)
    blocks = []
    for (_, size, comm_size, collective), gs in merged.items():
        calls = np.sort(np.concatenate([g.calls for g in gs]))
        m = gs[0].send if kind == "send" else gs[0].recv
        blocks.append(CompactBlock(collective, comm_size, size, calls, m))
    blocks.sort(key=lambda b: int(b.calls[0]))
    return blocks


@dataclass(eq=False)
class CountsProfile:
    """Count matrices, timings, locations and backtraces of one profiler results directory.

    ``groups`` holds every CallGroup (all lead ranks); ``backtraces`` the call sites'
    stacks (:meth:`call_sites` weaves them with the rest); ``errors`` the problems with
    files that could not be read (the rest of the directory is still loaded).
    """

    groups: list[CallGroup] = field(default_factory=list)
    timings: pd.DataFrame = field(default_factory=pd.DataFrame)
    locations: pd.DataFrame = field(default_factory=pd.DataFrame)
    comm_data: pd.DataFrame = field(default_factory=pd.DataFrame)
    backtraces: list[Backtrace] = field(default_factory=list)
    errors: list[PerfweaveError] = field(default_factory=list)
    directory: Path | None = None

    @property
    def ranks(self) -> list[int]:
        """Lead ranks that have count data, sorted."""
        return sorted({g.lead_rank for g in self.groups})

    def call_groups(self, rank: int | None = None, job: int | None = None) -> list[CallGroup]:
        """CallGroups of a lead rank (default: the only / first one), by first call."""
        rank = self._rank(rank)
        return [g for g in self.groups if g.lead_rank == rank and (job is None or g.job == job)]

    def _rank(self, rank: int | None) -> int:
        ranks = self.ranks
        if not ranks:
            raise MetadataError("this profile holds no count data")
        if rank is None:
            return ranks[0]
        if rank not in ranks:
            raise MetadataError(f"no count data for lead rank {rank}; lead ranks: {ranks}")
        return rank

    def calls(self, rank: int | None = None) -> pd.DataFrame:
        """One row per call of a lead rank: ``call, group`` (index into call_groups)."""
        gs = self.call_groups(rank)
        calls = np.concatenate([g.calls for g in gs])
        group = np.repeat(np.arange(len(gs)), [g.n_calls for g in gs])
        order = np.argsort(calls, kind="stable")
        return pd.DataFrame({"call": calls[order], "group": group[order]})

    def group_of(self, call: int, rank: int | None = None) -> CallGroup:
        """The CallGroup holding ``call`` of a lead rank."""
        for g in self.call_groups(rank):
            i = np.searchsorted(g.calls, call)
            if i < g.calls.size and g.calls[i] == call:
                return g
        raise MetadataError(f"lead rank {self._rank(rank)} has no call {call}")

    def groups_of_calls(
        self, calls: Sequence[int] | np.ndarray, rank: int | None = None
    ) -> pd.DataFrame:
        """The call groups of a lead rank that hold any of ``calls``, by first call: ``group``
        (index into ``call_groups(rank)``), ``calls`` (how many of ``calls`` it holds),
        ``n_calls`` (all its calls), ``bytes_sent`` and ``bytes_received`` (of the calls it
        holds, summed over ranks). ``attrs`` holds the lead rank's totals over all its calls
        (``bytes_sent``, ``bytes_received``), so a share is one division."""
        from perfweave.counts.stats import rank_bytes

        gs = self.call_groups(rank)
        wanted = np.asarray(calls, dtype=np.int64)
        records = []
        total_sent = total_received = 0.0
        sums: dict = {}
        for k, g in enumerate(gs):
            sent, received = (float(x.sum()) for x in rank_bytes(g, sums))
            total_sent += sent * g.n_calls
            total_received += received * g.n_calls
            held = int(np.isin(g.calls, wanted).sum())
            if held:
                records.append((k, held, g.n_calls, sent * held, received * held))
        out = pd.DataFrame.from_records(
            records, columns=["group", "calls", "n_calls", "bytes_sent", "bytes_received"]
        )
        out.attrs.update(bytes_sent=total_sent, bytes_received=total_received)
        return out

    def patterns(self, rank: int | None = None, job: int | None = None):
        """Communication patterns of a lead rank (see :func:`perfweave.counts.detect_patterns`)."""
        from perfweave.counts.patterns import detect_patterns

        return detect_patterns(self.call_groups(rank, job))

    def stats(self, rank: int | None = None, threshold: int = 200) -> pd.DataFrame:
        """Per-call statistics of a lead rank (see :func:`perfweave.counts.call_stats`)."""
        from perfweave.counts.stats import call_stats

        return call_stats(self.call_groups(rank), threshold=threshold)

    def bytes_per_rank(self, rank: int | None = None) -> pd.DataFrame:
        """Bytes each rank sends and receives in every call (the upstream heat-map data)."""
        from perfweave.counts.stats import bytes_per_rank

        return bytes_per_rank(self.call_groups(rank))

    def host_totals(self, rank: int | None = None) -> pd.DataFrame:
        """Bytes sent and received per host, from the location files of a lead rank."""
        from perfweave.counts.stats import host_totals

        r = self._rank(rank)
        locs = self.locations
        if not locs.empty:
            locs = locs[locs["lead_rank"] == r]
        return host_totals(self.call_groups(r), locs)

    def hosts(self, group: CallGroup) -> np.ndarray | None:
        """Host name of each communicator rank of ``group`` (object array; None where the
        file names no host), from the location file of its lead rank and collective that
        covers its first call; None when no location file does."""
        locs = self.locations
        if locs.empty:
            return None
        mine = locs[
            (locs["lead_rank"] == group.lead_rank)
            & (locs["collective"].str.lower() == group.collective.lower())
        ]
        first = int(group.calls[0])
        for _, loc in mine.groupby(["comm", "calls"], sort=True):
            calls = parse_ranklist(str(loc["calls"].iloc[0]))
            if len(loc) == group.comm_size and np.isin(first, calls):
                out = np.full(group.comm_size, None, dtype=object)
                names = loc["hostname"].astype(object)
                out[loc["rank"].to_numpy(dtype=np.int64)] = names.where(names.notna(), None)
                return out
        return None

    def call_sites(self, *, wrappers: str = "drop", binary=None):
        """The call sites as a calltree GraphFrame: backtraces woven with the counts and
        timings, rows per (node, rank) (see :func:`perfweave.counts.sites.weave_call_sites`);
        ``binary`` (a path, a :class:`~perfweave.counts.symbols.Symbolizer` or a list of
        them) resolves the frames of the module of that file name to functions and lines."""
        from perfweave.counts.sites import weave_call_sites

        return weave_call_sites(self, wrappers=wrappers, binary=binary)

    def __repr__(self) -> str:
        n_calls = sum(g.n_calls for g in self.groups)
        sites = f", {len(self.backtraces)} backtraces" if self.backtraces else ""
        return (
            f"CountsProfile({len(self.ranks)} lead ranks, {len(self.groups)} call groups, "
            f"{n_calls} calls{sites}, {len(self.errors)} unreadable files)"
        )


def read(
    directory: str | os.PathLike[str], *, strict: bool = False, workers: int | None = None
) -> CountsProfile:
    """Read every count, timing, location, comm and backtrace file of a profiler results
    directory.

    A file that cannot be read is recorded in ``profile.errors`` and reported with a
    warning, and the rest is still read; ``strict=True`` raises the first error (in file
    name order) instead, and also refuses a compact file holding fewer calls than its
    header lists (read with an ``IncompleteInputWarning`` otherwise). Compact files are preferred; per-call files are used for lead
    ranks without them. Count files are parsed on ``workers`` threads (default: the CPUs
    available, at most 8), and per-call files with identical contents are parsed once.
    """
    d = Path(directory)
    if not d.is_dir():
        raise FormatError(f"{d}: not a directory")
    prof = CountsProfile(directory=d)

    def attempt(fn, *args):
        try:
            return fn(*args)
        except PerfweaveError as exc:
            if strict:
                raise
            prof.errors.append(exc)
            warnings.warn(f"skipped: {exc}", SkippedInputWarning, stacklevel=3)
            return None

    files = sorted(p for p in d.iterdir() if p.is_file())
    if not any(_is_count_file(p) for p in files):
        raise FormatError(_no_count_files(d))
    parsed = _parse_count_files(files, workers, strict)
    compact: dict[tuple[int, int], dict[str, CompactFile]] = {}
    percall: dict[int, list[CallCounts]] = {}
    timings, locations, comm = [], [], []
    for p in files:
        name = p.name
        if m := COMPACT_NAME.match(name):
            cf = attempt(_result, parsed[p])
            compact.setdefault((int(m.group(2)), int(m.group(3))), {})[m.group(1)] = cf
        elif m := PERCALL_NAME.match(name):
            cc = attempt(_result, parsed[p])
            if cc is not None:
                percall.setdefault(int(m.group(1)), []).append(cc)
        elif TIMINGS_NAME.match(name):
            timings.append(attempt(read_timings, p))
        elif LOCATIONS_NAME.match(name):
            locations.append(attempt(read_locations, p))
        elif COMM_DATA_NAME.match(name):
            comm.append(attempt(read_comm_data, p))
        elif BACKTRACE_NAME.match(name):
            trace = attempt(read_backtrace, p)
            if trace is not None:
                prof.backtraces.append(trace)

    with_compact = set()
    for (job, rank), pair in sorted(compact.items()):
        send, recv = pair.get("send"), pair.get("recv")
        if "send" in pair and "recv" in pair and send is not None and recv is not None:
            gs = attempt(groups_from_compact, send, recv)
            if gs is not None:
                prof.groups.extend(gs)
                with_compact.add(rank)
        elif not ("send" in pair and "recv" in pair):
            missing = "recv" if "send" in pair else "send"
            attempt(
                _raise, FormatError(f"{d}: {missing}-counters.job{job}.rank{rank}.txt is missing")
            )
        # a pair with an unreadable half is already reported
    jobs = {job for job, _ in compact} | {
        int(m.group(5)) for p in files if (m := TIMINGS_NAME.match(p.name))
    }
    only_job = jobs.pop() if len(jobs) == 1 else None  # per-call files do not name their job
    for rank, items in sorted(percall.items()):
        if rank in with_compact:
            continue
        items.sort(key=lambda c: c.call if c.call is not None else -1)
        gs = attempt(lambda xs: groups_from_percall(xs, job=only_job), items)
        if gs is not None:
            prof.groups.extend(gs)
    prof.timings = _concat(timings)
    prof.locations = _concat(locations)
    prof.comm_data = _concat(comm)
    return prof


def _is_count_file(path: Path) -> bool:
    return bool(COMPACT_NAME.match(path.name) or PERCALL_NAME.match(path.name))


def _no_count_files(directory: Path) -> str:
    """Why ``directory`` gives no profile, naming the subfolders that hold count files (a
    results tree of several runs: each is read on its own, never merged silently)."""
    message = (
        f"no count files in {directory} (expected send-/recv-counters.job<J>.rank<R>.txt "
        "or counts.rank<R>_call<C>.md files)"
    )
    found: list[str] = []
    for root, dirs, names in os.walk(directory):
        rel = Path(root).relative_to(directory)
        if len(rel.parts) >= 3:
            dirs.clear()  # three levels down is as deep as a results tree goes
        dirs.sort()
        if rel.parts and any(_is_count_file(Path(n)) for n in names):
            found.append(str(rel))
    if found:
        shown = ", ".join(found[:8]) + (f", ... ({len(found)} folders)" if len(found) > 8 else "")
        message += f"; count files are in its subfolders {shown}: read one of those"
    return message


def _parse_count_files(
    files: Sequence[Path], workers: int | None, strict: bool = False
) -> dict[Path, CompactFile | CallCounts | PerfweaveError]:
    """The compact and per-call files among ``files``, parsed (per-call files on threads).

    Calls with identical counts write byte-identical per-call files (only the name
    differs), and real runs repeat a few count patterns over many calls: such files are
    parsed once and share one parsed CallCounts (and its matrices).
    """
    compact = [p for p in files if COMPACT_NAME.match(p.name)]
    percall = [p for p in files if PERCALL_NAME.match(p.name)]
    source = _first_with_same_bytes(percall, workers)
    # compact files: a few large ones whose parse holds the GIL between its numpy calls
    # longer, so threads gain nothing on them
    parsed: dict[Path, CompactFile | CallCounts | PerfweaveError] = dict(
        zip(compact, map_files(partial(read_compact, strict=strict), compact, 1))
    )
    distinct = [p for p in percall if source[p] == p]
    parsed.update(zip(distinct, map_files(read_percall, distinct, workers)))
    # a copy of a file that failed is parsed on its own, so its error names it
    again = [p for p in percall if source[p] != p and isinstance(parsed[source[p]], Exception)]
    parsed.update(zip(again, map_files(read_percall, again, workers)))
    for p in percall:
        if p not in parsed:
            prior = parsed[source[p]]
            assert isinstance(prior, CallCounts)
            rank, call = percall_ids(p.name)
            parsed[p] = dataclasses.replace(prior, rank=rank, call=call, path=str(p))
    return parsed


def _first_with_same_bytes(paths: Sequence[Path], workers: int | None) -> dict[Path, Path]:
    """For each path, the first path (in order) whose file has the same contents."""
    size = {p: p.stat().st_size for p in paths}
    by_size: dict[int, list[Path]] = {}
    for p in paths:
        by_size.setdefault(size[p], []).append(p)
    candidates = [p for same in by_size.values() if len(same) > 1 for p in same]
    digests = dict(zip(candidates, map_files(_digest, candidates, workers)))
    first: dict[tuple[int, bytes], Path] = {}
    source = {}
    for p in paths:
        digest = digests.get(p)
        source[p] = p if digest is None else first.setdefault((size[p], digest), p)
    return source


def _digest(path: Path) -> bytes:
    return hashlib.blake2b(path.read_bytes(), digest_size=16).digest()


def _result(value: T | PerfweaveError) -> T:
    if isinstance(value, PerfweaveError):
        raise value
    return value


def _raise(exc: Exception) -> None:
    raise exc


def _concat(frames: list[pd.DataFrame | None]) -> pd.DataFrame:
    frames = [f for f in frames if f is not None]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
