"""Call sites: the collective profiler's backtraces, counts and timings woven into a calltree.

Each backtrace file is the stack of one call site and the calls made from it. The weave
turns the stacks (outermost frame first) into one calltree, merging stacks that share
frames as Hatchet merges call paths, so each distinct stack ends in one leaf: its call
site. Rows are per (node, rank) and hold, per call site and rank,

- ``calls``: the calls made from the site that the rank took part in (every rank of the
  communicator takes part in a collective, so it is the same on every rank of it);
- ``bytes_sent``, ``bytes_received``: the rank's counts times the datatype size, summed
  over the site's calls (the profile's count matrices);
- ``time``, ``late_arrival``: the rank's execution and late-arrival times in seconds,
  summed over the site's calls (the timing files);

and inner frames have the exclusive value 0 and the inclusive columns (``calls (inc)`` ...)
of everything below them. ``rank`` is the COMM_WORLD rank where a location file maps the
call's communicator to it, else the rank in the communicator (``metadata["rank"]`` says
which: ``"COMM_WORLD"``, ``"communicator"`` or ``"mixed"``).

Where a file is missing the columns say so, never 0: a site with a call that has no counts
has NaN bytes; a rank without a time for one of the site's calls has a NaN time there; an
inclusive value is NaN when any value below it is. Calls with counts or timings but no
backtrace are kept under a ``(no backtrace)`` root, so the tree's totals are the profile's.
Each gap is reported once, with an :class:`~perfweave.errors.UnmatchedCallsWarning`.

Frames are named by their symbol where the trace line has one, else by module and offset
or address (:attr:`perfweave.counts.backtraces.StackFrame.name`). The profiler's own frames
(its ``lib<collective>_*.so`` wrappers, innermost) are replaced by one leaf named for the
MPI function the program called (``MPI_Alltoallv``; ``wrappers="drop"``, the default) or
kept with the frame type ``"profiler"`` (``wrappers="keep"``). With ``binary=`` (paths of
the program or libraries, or :class:`~perfweave.counts.symbols.Symbolizer` objects), frames of a
module of the same file name are resolved through its ELF symbols and line table: named by
the function, with its ``offset`` and the call's ``source`` line (``file:line``).

Besides the GraphFrame's rows, ``metadata["call_sites"]`` has one row per call site (its
node, caller frame, trace files, lead ranks, calls, communicators, call groups and totals)
and ``metadata["site_calls"]`` one row per call (``collective, lead_rank, call, comm, site,
group``: ``group`` indexes ``profile.groups``, -1 without counts); :func:`sites_of_nodes`,
:func:`nodes_of_sites`, :func:`sites_of_calls`, :func:`site_groups` and
:func:`calls_of_nodes` answer the questions a linked view asks with them, on the woven frame
or any frame derived from it.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from perfweave.counts.backtraces import Backtrace
from perfweave.counts.ranklist import format_ranklist
from perfweave.counts.stats import rank_bytes
from perfweave.counts.symbols import Symbolizer
from perfweave.errors import (
    ArgumentTypeError,
    FormatError,
    MetadataError,
    ShapeError,
    UnmatchedCallsWarning,
)

if TYPE_CHECKING:  # pragma: no cover
    from perfweave.calltree.graphframe import GraphFrame
    from perfweave.counts.profile import CountsProfile

__all__ = [
    "METRICS",
    "NO_BACKTRACE",
    "WRAPPERS",
    "calls_of_nodes",
    "check_same_profile",
    "nodes_of_sites",
    "site_groups",
    "sites_of_calls",
    "sites_of_nodes",
    "weave_call_sites",
]

#: what ``wrappers=`` takes: the profiler's frames replaced by the MPI function, or kept
WRAPPERS = ("drop", "keep")
#: the root under which calls without a backtrace are kept
NO_BACKTRACE = "(no backtrace)"
#: exclusive metrics of a call-site frame, in column order
METRICS = ("time", "late_arrival", "bytes_sent", "bytes_received", "calls")
_UNITS = {"time": "s", "late_arrival": "s", "bytes_sent": "B", "bytes_received": "B"}
#: the collective profiler's shared libraries (``liballtoallv_backtrace.so`` ...)
_PROFILER_MODULE = re.compile(r"^lib(?:alltoallv|alltoall|allgatherv)(?:[_.-][\w.+-]*)?\.so[\d.]*$")
_MEASURES = {"execution": "time", "late_arrival": "late_arrival"}
_KEY = ["collective", "lead_rank", "call"]


#: what ``binary=`` takes: a path or a Symbolizer, or a sequence of them
Binaries = str | os.PathLike[str] | Symbolizer | Sequence[str | os.PathLike[str] | Symbolizer]


def weave_call_sites(
    profile: CountsProfile, *, wrappers: str = "drop", binary: Binaries | None = None
) -> GraphFrame:
    """The calltree of ``profile``'s call sites (see the module docstring); ``binary``
    names the program (and libraries) whose frames are resolved to functions and lines.

    Raises :class:`~perfweave.errors.MetadataError` when the profile has no backtrace,
    :class:`~perfweave.errors.FormatError` when its files contradict each other (a call
    made from two stacks or timed in two communicators, a location file of another size
    than the communicator's counts or timings).
    """
    from perfweave.calltree.graphframe import GraphFrame

    if wrappers not in WRAPPERS:
        raise ShapeError(f"wrappers must be one of {', '.join(WRAPPERS)}, not {wrappers!r}")
    traces = sorted(profile.backtraces, key=lambda b: (b.collective.lower(), b.rank, b.trace))
    if not traces:
        raise MetadataError(_no_backtraces(profile))
    runs = _timing_runs(profile.timings)
    calls = _calls(profile, traces, runs)
    symbolizers = _symbolizers(binary, traces)
    stacks = [_stack(b, wrappers, symbolizers) for b in traces]
    if bool((calls["stack"] < 0).any()):
        calls.loc[calls["stack"] < 0, "stack"] = len(stacks)
        stacks.append([_entry(NO_BACKTRACE, "unattributed")])
    tree = _Tree(stacks)
    calls["site"] = tree.site_of_stack[calls["stack"].to_numpy()]
    comms = _communicators(profile, calls, runs)
    calls["_comm"] = _comm_of(calls, comms.keys)
    sums, covered = _site_sums(profile, calls, comms, runs, tree.n_sites)
    site_values = _with_gaps(sums, covered)
    data, inclusive = tree.rows(site_values)
    has_time = bool(np.isfinite(site_values["time"]).any())
    gf = GraphFrame.from_records(
        tree.frames,
        data,
        parent=tree.parent,
        exc_metrics=list(METRICS),
        inc_metrics=inclusive,
        default_metric="time (inc)" if has_time else "bytes_sent (inc)",
        units=_UNITS,
        path=str(profile.directory) if profile.directory else None,
    )
    node_of_site = _node_of_site(gf, tree.n_sites)
    gf.metadata.update(
        {
            "source": "collective profiler call sites",
            "directory": str(profile.directory) if profile.directory else None,
            "wrappers": wrappers,
            "binaries": [s.path for s in symbolizers.values()],
            "rank": comms.rank_kind,
            "call_sites": _site_table(calls, traces, tree, node_of_site, site_values),
            "site_calls": calls[[*_KEY, "comm", "site", "group"]].reset_index(drop=True),
        }
    )
    _warn_gaps(calls, covered, tree, traces, runs.empty)
    return gf


def _no_backtraces(profile: CountsProfile) -> str:
    where = f" in {profile.directory}" if profile.directory else ""
    unread = sum(1 for e in profile.errors if "_backtrace_rank" in str(e))
    why = f" ({unread} could not be read: see profile.errors)" if unread else ""
    return (
        f"no backtrace files{where}{why}: the call sites are unknown (expected "
        "<collective>_backtrace_rank<R>_trace<T>.md, which the profiler writes when its "
        "backtrace library is used)"
    )


# ---------------------------------------------------------------------- questions of a view
def sites_of_nodes(gf: GraphFrame, nodes: Iterable[int]) -> np.ndarray:
    """The call sites at or below ``nodes`` of ``gf`` (the woven frame or one derived from
    it by filter, squash, focus ...), sorted."""
    nodes = np.asarray(list(nodes), dtype=np.int64)
    graph = gf.graph
    if nodes.size and (nodes.min() < 0 or nodes.max() >= len(graph)):
        bad = int(nodes[(nodes < 0) | (nodes >= len(graph))][0])
        raise MetadataError(f"no node {bad}: the tree's nodes are 0..{len(graph) - 1}")
    from perfweave.calltree.forest import level_order

    below = np.zeros(len(graph), bool)
    below[nodes] = True
    parent = graph.parent
    for level in level_order(graph.depth)[1:]:  # top-down: below a chosen node if its parent is
        below[level] |= below[parent[level]]
    site = _site_column(gf)
    return np.unique(site[below[gf.node_ids()] & (site >= 0)])


def nodes_of_sites(gf: GraphFrame, sites: Iterable[int]) -> np.ndarray:
    """The nodes of ``gf`` that are the call sites ``sites``, sorted."""
    wanted = np.asarray(list(sites), dtype=np.int64)
    site = _site_column(gf)
    return np.unique(gf.node_ids()[np.isin(site, wanted)])


def sites_of_calls(
    gf: GraphFrame, calls: Iterable[int], *, lead_rank: int, collective: str | None = None
) -> np.ndarray:
    """The call sites from which the calls ``calls`` of ``lead_rank`` were made, sorted."""
    table = _site_calls(gf)
    mask = (table["lead_rank"].to_numpy() == lead_rank) & np.isin(
        table["call"].to_numpy(), np.asarray(list(calls), dtype=np.int64)
    )
    if collective is not None:
        mask &= (table["collective"] == collective.lower()).to_numpy()
    return np.unique(table["site"].to_numpy()[mask])


def site_groups(gf: GraphFrame, sites: Iterable[int]) -> pd.DataFrame:
    """The call groups holding the calls of ``sites``: ``group`` (index into the profile's
    ``groups``), ``lead_rank``, ``calls`` (how many of the group's calls the sites made)
    and ``first_call`` (the first of them), one row per group, by first call."""
    table = _site_calls(gf)
    wanted = np.asarray(list(sites), dtype=np.int64)
    mine = table[np.isin(table["site"].to_numpy(), wanted) & (table["group"].to_numpy() >= 0)]
    out = mine.groupby("group", sort=False).agg(
        lead_rank=("lead_rank", "first"), calls=("call", "size"), first_call=("call", "min")
    )
    return out.reset_index().sort_values("first_call", kind="stable").reset_index(drop=True)


def calls_of_nodes(
    gf: GraphFrame, nodes: Iterable[int], lead_rank: int | None = None
) -> tuple[np.ndarray, int, str] | None:
    """The calls made from the call sites at or below ``nodes``, of one lead rank
    (``lead_rank`` when the sites made calls there, else the first that did), and a label
    naming the sites (``call site 5 (wrf.exe [0x3314863])``, ``call sites 2, 5``); None
    when no call site is at or below the nodes."""
    sites = sites_of_nodes(gf, nodes)
    if not sites.size:
        return None
    table = _site_calls(gf)
    mine = table[np.isin(table["site"].to_numpy(), sites)]
    leads = np.unique(mine["lead_rank"].to_numpy())
    lead = int(lead_rank) if lead_rank is not None and lead_rank in leads else int(leads[0])
    calls = np.sort(mine["call"].to_numpy()[mine["lead_rank"].to_numpy() == lead])
    if sites.size == 1:
        sites_table = gf.metadata.get("call_sites")
        caller = (
            f" ({sites_table.loc[int(sites[0]), 'caller']})"
            if isinstance(sites_table, pd.DataFrame) and int(sites[0]) in sites_table.index
            else ""
        )
        return calls, lead, f"call site {int(sites[0])}{caller}"
    return calls, lead, f"call sites {format_ranklist(sites)}"


def check_same_profile(gf: GraphFrame, profile: CountsProfile) -> None:
    """Raise :class:`~perfweave.errors.MetadataError` unless ``gf`` is a call-site tree
    whose counted calls are all in ``profile`` (a view linking the two relies on it)."""
    table = _site_calls(gf)
    counted = table[table["group"].to_numpy() >= 0][_KEY]
    known = _counted_calls(profile)[_KEY]
    both = counted.merge(known, on=_KEY, how="left", indicator=True)
    missing = both[both["_merge"] == "left_only"]
    if len(missing):
        r = missing.iloc[0]
        raise MetadataError(
            f"the call sites are not of this profile: call {int(r['call'])} of lead rank "
            f"{int(r['lead_rank'])} ({r['collective']}) has counts in the call-site tree but "
            f"not in the profile ({len(missing)} such calls)"
        )


def _site_calls(gf: GraphFrame) -> pd.DataFrame:
    table = gf.metadata.get("site_calls")
    if not isinstance(table, pd.DataFrame):
        raise MetadataError(
            "this GraphFrame is not a call-site tree (CountsProfile.call_sites() makes one)"
        )
    return table


def _site_column(gf: GraphFrame) -> np.ndarray:
    _site_calls(gf)
    if "site" not in gf.dataframe.columns:
        raise MetadataError("this call-site tree has lost its 'site' column")
    return gf.dataframe["site"].to_numpy(dtype=np.int64)


# ---------------------------------------------------------------------- stacks and the tree
def _symbolizers(binary: Binaries | None, traces: Sequence[Backtrace]) -> dict[str, Symbolizer]:
    """The binaries asked for by their file name; each must name a module of the traces."""
    if binary is None:
        return {}
    items = [binary] if isinstance(binary, (str, os.PathLike, Symbolizer)) else list(binary)
    out: dict[str, Symbolizer] = {}
    for item in items:
        if not isinstance(item, (str, os.PathLike, Symbolizer)):
            raise ArgumentTypeError(
                f"binary must be a path or a Symbolizer (or a list of them), not "
                f"{type(item).__name__}"
            )
        s = item if isinstance(item, Symbolizer) else Symbolizer(item)
        out[s.name] = s
    modules = {f.module_name for b in traces for f in b.frames if f.module_name}
    for name, s in out.items():
        if name not in modules:
            raise MetadataError(
                f"{s.path}: no frame of the backtraces is of a module named {name!r} (their "
                f"modules: {', '.join(sorted(modules)) or 'none'}); frames are matched to a "
                "binary by its file name"
            )
    return out


def _entry(name: str, kind: str, module: str = "", offset: str = "", source: str = "") -> dict:
    return {"name": name, "type": kind, "module": module, "offset": offset, "source": source}


def _stack(trace: Backtrace, wrappers: str, symbolizers: dict[str, Symbolizer]) -> list[dict]:
    """The frames of a trace, outermost first, as frame attributes (resolved through the
    binary of their module's name where one is given)."""
    frames = list(trace.frames)
    inner = 0  # the profiler's frames are the innermost ones
    while inner < len(frames) and _PROFILER_MODULE.match(frames[inner].module_name):
        inner += 1
    out = []
    for k, f in enumerate(frames):
        if k < inner and wrappers == "drop":
            continue
        kind = "profiler" if k < inner else "function" if f.symbol else "address"
        # a symbol's offset tells two call sites in one function apart (not in the name)
        offset = f"{f.offset:+#x}" if f.symbol and f.offset is not None else ""
        name, source = f.name, ""
        symbolizer = symbolizers.get(f.module_name)
        where = symbolizer.locate_frame(f) if symbolizer is not None else None
        if where is not None:
            source = where.source
            if where.symbol and not f.symbol:
                name, offset = where.symbol, f"{where.offset:+#x}"
                kind = "profiler" if k < inner else "function"
        out.append(_entry(name, kind, f.module_name, offset, source))
    out.reverse()
    if wrappers == "drop":
        out.append(_entry(_mpi_name(trace.collective), "mpi"))
    return out


def _mpi_name(collective: str) -> str:
    return f"MPI_{collective[:1].upper()}{collective[1:].lower()}"


class _Tree:
    """Stacks merged into call paths (Hatchet's merge: equal frames under the same path
    are one node), numbered level by level; the sites are the stacks' leaves."""

    def __init__(self, stacks: Sequence[list[dict]]) -> None:
        from perfweave.calltree.forest import merge_groups

        lengths = np.array([len(s) for s in stacks], dtype=np.int64)
        entries = [f for s in stacks for f in s]
        keys = pd.Series(
            [(f["name"], f["type"], f["module"], f["offset"], f["source"]) for f in entries]
        )
        code = pd.factorize(keys)[0].astype(np.int64)
        starts = np.cumsum(lengths) - lengths
        stack = np.repeat(np.arange(len(stacks)), lengths)
        entry = np.arange(len(entries), dtype=np.int64)
        depth = entry - starts[stack]
        parent = np.where(depth > 0, entry - 1, -1)
        node = merge_groups(parent, depth, code)
        n = int(node.max()) + 1
        first = np.full(n, len(entries), dtype=np.int64)
        np.minimum.at(first, node, entry)
        self.parent = np.where(parent[first] >= 0, node[np.maximum(parent[first], 0)], -1)
        self.depth = depth[first]
        self.frames = pd.DataFrame([entries[i] for i in first.tolist()])
        # a site is a distinct leaf, numbered by its first stack (traces come sorted)
        self.site_of_stack, site_node = pd.factorize(node[starts + lengths - 1])
        self.site_of_stack = self.site_of_stack.astype(np.int64)
        self.site_node = np.asarray(site_node, dtype=np.int64)
        self.n_sites = self.site_node.size
        self.n_nodes = n

    def rows(self, site_values: dict[str, np.ndarray]) -> tuple[pd.DataFrame, list[str]]:
        """Rows per (node, rank) where a call below the node took part on the rank: the
        exclusive values (the sites' own, 0 on inner frames), the inclusive sums (NaN
        where any value below is NaN) and ``site`` (-1 on inner frames)."""
        from perfweave.calltree.forest import level_order

        width = site_values["calls"].shape[1]
        exc = np.zeros((self.n_nodes, len(METRICS), width))
        exc[self.site_node] = np.stack([site_values[m] for m in METRICS], axis=1)
        inc = exc.reshape(self.n_nodes, -1).copy()
        for level in reversed(level_order(self.depth)[1:]):  # deepest first; NaN propagates
            order = level[np.argsort(self.parent[level], kind="stable")]
            par = self.parent[order]
            first = np.flatnonzero(np.r_[True, par[1:] != par[:-1]])
            inc[par[first]] += np.add.reduceat(inc[order], first, axis=0)
        inc = inc.reshape(exc.shape)
        dense = {m: exc[:, k] for k, m in enumerate(METRICS)}
        inc = {m: inc[:, k] for k, m in enumerate(METRICS)}
        node, rank = np.nonzero(inc["calls"] > 0)
        site = np.full(self.n_nodes, -1, dtype=np.int64)
        site[self.site_node] = np.arange(self.n_sites)
        cols: dict[str, np.ndarray] = {"node": node, "rank": rank}
        names = []
        for metric in METRICS:
            cols[metric] = dense[metric][node, rank]
        for metric in METRICS:
            cols[f"{metric} (inc)"] = inc[metric][node, rank]
            names.append(f"{metric} (inc)")
        cols["site"] = site[node]
        return pd.DataFrame(cols), names


def _node_of_site(gf: GraphFrame, n_sites: int) -> np.ndarray:
    site = gf.dataframe["site"].to_numpy()
    node = gf.node_ids()
    out = np.full(n_sites, -1, dtype=np.int64)
    out[site[site >= 0]] = node[site >= 0]
    return out


# ---------------------------------------------------------------------- calls
def _calls(profile: CountsProfile, traces: Sequence[Backtrace], runs: pd.DataFrame) -> pd.DataFrame:
    """One row per call any file names: ``collective, lead_rank, call, comm, stack, group``
    (stack -1: no backtrace; comm -1: unknown; group -1: no counts), by key."""
    parts = [
        pd.DataFrame(
            {
                "collective": [b.collective.lower()] * c.calls.size,
                "lead_rank": np.full(c.calls.size, b.rank, dtype=np.int64),
                "call": c.calls,
                "comm": np.full(c.calls.size, c.comm, dtype=np.int64),
                "stack": np.full(c.calls.size, k, dtype=np.int64),
            }
        )
        for k, b in enumerate(traces)
        for c in b.contexts
    ]
    made = pd.concat(parts, ignore_index=True)
    twice = made.duplicated(_KEY, keep=False)
    if bool(twice.any()):
        a, b = made[twice].sort_values(_KEY, kind="stable").iloc[:2].itertuples()
        raise FormatError(
            f"{traces[a.stack].path} and {traces[b.stack].path}: call {a.call} of rank "
            f"{a.lead_rank} is listed in both (a call is made from one call site)"
        )
    timed = _timed_calls(runs)
    out = made.merge(_counted_calls(profile), on=_KEY, how="outer").merge(
        timed, on=_KEY, how="outer", suffixes=("", "_timed")
    )
    clash = out["comm"].notna() & out["comm_timed"].notna() & (out["comm"] != out["comm_timed"])
    if bool(clash.any()):
        r = out[clash].iloc[0]
        raise FormatError(
            f"{traces[int(r['stack'])].path}: call {int(r['call'])} was made on communicator "
            f"{int(r['comm'])}, but the timing files of rank {int(r['lead_rank'])} time it "
            f"on communicator {int(r['comm_timed'])}"
        )
    out["comm"] = out["comm"].fillna(out["comm_timed"]).fillna(-1).astype(np.int64)
    out["stack"] = out["stack"].fillna(-1).astype(np.int64)
    out["group"] = out["group"].fillna(-1).astype(np.int64)
    out = out.drop(columns="comm_timed").sort_values(_KEY, kind="stable")
    return out.reset_index(drop=True)


def _empty(columns: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {c: pd.Series(dtype=object if c == "collective" else np.int64) for c in columns}
    )


def _counted_calls(profile: CountsProfile) -> pd.DataFrame:
    """``collective, lead_rank, call, group`` of every call with counts."""
    gs = profile.groups
    if not gs:
        return _empty([*_KEY, "group"])
    sizes = [g.calls.size for g in gs]
    return pd.DataFrame(
        {
            "collective": np.repeat([g.collective.lower() for g in gs], sizes).astype(object),
            "lead_rank": np.repeat([g.lead_rank for g in gs], sizes).astype(np.int64),
            "call": np.concatenate([g.calls for g in gs]).astype(np.int64),
            "group": np.repeat(np.arange(len(gs)), sizes).astype(np.int64),
        }
    )


def _timed_calls(runs: pd.DataFrame) -> pd.DataFrame:
    """``collective, lead_rank, call, comm`` of every call the timing files hold."""
    if runs.empty:
        return _empty([*_KEY, "comm"])
    calls = runs[[*_KEY, "comm"]].drop_duplicates()
    twice = calls.duplicated(_KEY, keep=False)
    if bool(twice.any()):
        r = calls[twice].sort_values(_KEY, kind="stable").iloc[0]
        raise FormatError(
            f"call {int(r['call'])} of rank {int(r['lead_rank'])} ({r['collective']}) is timed "
            "in the timing files of two communicators"
        )
    return calls


def _timing_runs(timings: pd.DataFrame) -> pd.DataFrame:
    """The timing rows as runs of one (collective, measure, lead rank, comm, call):
    ``collective, measure, lead_rank, comm, call, start, stop`` (row numbers). A file's
    rows come as such runs, so each row is looked at once, strings without grouping."""
    cols = ["collective", "measure", "lead_rank", "comm", "call"]
    if timings.empty:
        return pd.DataFrame(columns=[*cols, "start", "stop"])
    n = len(timings)
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for col in cols:
        values = timings[col]
        if pd.api.types.is_numeric_dtype(values.dtype):
            arr = values.to_numpy()
        else:  # the strings' own object array (no copy for pandas' string dtype)
            arr = np.asarray(values.array, dtype=object)
        change[1:] |= arr[1:] != arr[:-1]
    start = np.flatnonzero(change)
    runs = timings.iloc[start][cols].reset_index(drop=True)  # rows first: no column copies
    runs["collective"] = runs["collective"].astype(str).str.lower().astype(object)
    runs["measure"] = runs["measure"].astype(str)
    for col in ("lead_rank", "comm", "call"):
        runs[col] = runs[col].to_numpy(dtype=np.int64)
    runs["start"] = start
    runs["stop"] = np.append(start[1:], n)
    return runs


# ---------------------------------------------------------------------- ranks
class _Comms:
    """The communicators (collective, lead rank, comm id) of the calls, and the output rank
    of each of their ranks: the COMM_WORLD rank from a location file, else its own."""

    def __init__(self, keys: pd.DataFrame, maps: list[np.ndarray], mapped: np.ndarray) -> None:
        self.keys = keys
        self.maps = maps
        self.mapped = mapped
        self.n_ranks = max((int(m.max()) + 1 for m in maps if m.size), default=1)
        self.rank_kind = (
            "COMM_WORLD" if mapped.all() else "communicator" if not mapped.any() else "mixed"
        )

    def describe(self, k: int) -> str:
        row = self.keys.iloc[k]
        return f"communicator {int(row['comm'])} of rank {int(row['lead_rank'])}"


def _communicators(profile: CountsProfile, calls: pd.DataFrame, runs: pd.DataFrame) -> _Comms:
    """Sizes from the counts, timings and location files; rank maps from the latter."""
    keys = calls[["collective", "lead_rank", "comm"]].drop_duplicates().reset_index(drop=True)
    size = np.zeros(len(keys), dtype=np.int64)
    counted = calls["group"].to_numpy() >= 0
    if counted.any():
        comm_size = np.array([g.comm_size for g in profile.groups], dtype=np.int64)
        at = _comm_of(calls[counted], keys)
        np.maximum.at(size, at, comm_size[calls["group"].to_numpy()[counted]])
    if not runs.empty:
        np.maximum.at(size, _comm_of(runs, keys), (runs["stop"] - runs["start"]).to_numpy())
    maps: list[np.ndarray] = []
    mapped = np.zeros(len(keys), dtype=bool)
    for k, (collective, lead, comm) in enumerate(keys.itertuples(index=False)):
        world = _world_ranks(profile.locations, collective, lead, comm)
        if world is None:
            maps.append(np.arange(size[k], dtype=np.int64))
            continue
        if size[k] and world.size != size[k]:
            raise FormatError(
                f"{collective}_locations_comm{comm}_rank{lead}.md lists {world.size} ranks, "
                f"but the counts or timings of communicator {comm} of rank {lead} have "
                f"{size[k]}"
            )
        maps.append(world)
        mapped[k] = True
    return _Comms(keys, maps, mapped)


def _comm_of(frame: pd.DataFrame, keys: pd.DataFrame) -> np.ndarray:
    """Row of ``keys`` matching each row of ``frame`` by (collective, lead_rank, comm)."""
    numbered = keys.assign(_k=np.arange(len(keys), dtype=np.int64))
    got = frame[["collective", "lead_rank", "comm"]].merge(numbered, how="left")["_k"]
    return got.to_numpy(dtype=np.int64)


def _world_ranks(locs: pd.DataFrame, collective: str, lead: int, comm: int) -> np.ndarray | None:
    """COMM_WORLD rank of each rank of a communicator, from its location file (or None)."""
    if locs.empty or comm < 0:
        return None
    mine = locs[
        (locs["collective"].str.lower() == collective).to_numpy()
        & (locs["lead_rank"].to_numpy() == lead)
        & (locs["comm"].to_numpy() == comm)
    ]
    if mine.empty:
        return None
    return mine.sort_values("rank", kind="stable")["world_rank"].to_numpy(dtype=np.int64)


# ---------------------------------------------------------------------- values
def _site_sums(
    profile: CountsProfile, calls: pd.DataFrame, comms: _Comms, runs: pd.DataFrame, n_sites: int
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Dense (site x rank) sums of each metric, and how many calls each sum covers."""
    width = comms.n_ranks
    shape = (n_sites, width)
    sums = {m: np.zeros(shape) for m in METRICS}
    covered = {m: np.zeros(shape, dtype=np.int64) for m in METRICS}
    site = calls["site"].to_numpy()
    comm = calls["_comm"].to_numpy()
    group = calls["group"].to_numpy()
    # calls: every rank of a call's communicator takes part (one rank when nothing says
    # how large the communicator is: its lead)
    pairs, n = np.unique(np.stack([site, comm]), axis=1, return_counts=True)
    for (s, k), count in zip(pairs.T.tolist(), n.tolist()):
        ranks = comms.maps[k] if comms.maps[k].size else np.zeros(1, dtype=np.int64)
        sums["calls"][s, ranks] += count
        covered["calls"][s, ranks] += count
    # bytes: per communicator, (site x group) call counts times (group x rank) bytes
    have = group >= 0
    sums_of: dict = {}  # rank sums of each distinct matrix, once
    for k in np.unique(comm[have]).tolist():
        mine = have & (comm == k)
        groups, slot = np.unique(group[mine], return_inverse=True)
        made = np.zeros((n_sites, groups.size))
        np.add.at(made, (site[mine], slot), 1.0)
        ranks = comms.maps[k]
        both = [rank_bytes(profile.groups[g], sums_of) for g in groups.tolist()]
        for side, metric in enumerate(("bytes_sent", "bytes_received")):
            per_rank = np.stack([pair[side] for pair in both]).astype(np.float64)
            if per_rank.shape[1] != ranks.size:
                raise FormatError(
                    f"calls of {comms.describe(k)} have counts of {per_rank.shape[1]} ranks, "
                    f"its location file {ranks.size}"
                )
            sums[metric][:, ranks] += made @ per_rank
        covered["bytes_sent"][:, ranks] += made.sum(axis=1).astype(np.int64)[:, None]
    covered["bytes_received"] = covered["bytes_sent"]
    # times: each timing row to its measure, its call's site and its rank, in one pass
    # (the runs cover the rows in order)
    if not runs.empty:
        joined = runs.merge(calls[[*_KEY, "site", "_comm"]], on=_KEY, how="left")
        slot = joined["measure"].map({m: k for k, m in enumerate(_MEASURES)}).to_numpy()
        length = (joined["stop"] - joined["start"]).to_numpy()
        key = np.repeat(slot * n_sites + joined["site"].to_numpy(), length)
        rank = profile.timings["rank"].to_numpy(dtype=np.int64)
        if comms.mapped.any():
            rank = _map_ranks(comms, np.repeat(joined["_comm"].to_numpy(), length), rank)
        flat = key * width + rank
        seconds = profile.timings["seconds"].to_numpy(dtype=np.float64)
        size = len(_MEASURES) * n_sites * width
        total = np.bincount(flat, weights=seconds, minlength=size).reshape(-1, *shape)
        count = np.bincount(flat, minlength=size).reshape(-1, *shape)
        for k, metric in enumerate(_MEASURES.values()):
            sums[metric] += total[k]
            covered[metric] += count[k]
    return sums, covered


def _with_gaps(
    sums: dict[str, np.ndarray], covered: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The sums, NaN where they cover fewer calls than the rank took part in."""
    expected = covered["calls"]
    return {
        m: np.where(covered[m] < expected, np.nan, v) if m != "calls" else v
        for m, v in sums.items()
    }


def _map_ranks(comms: _Comms, comm: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Output ranks of the communicator ranks ``rank`` of communicators ``comm``."""
    out = rank.copy()
    for k in np.flatnonzero(comms.mapped).tolist():
        at = comm == k
        if not at.any():
            continue
        world = comms.maps[k]
        mine = rank[at]
        if int(mine.max()) >= world.size:
            raise FormatError(
                f"the timings of {comms.describe(k)} have rank {int(mine.max())}, its "
                f"location file {world.size} ranks"
            )
        out[at] = world[mine]
    return out


# ---------------------------------------------------------------------- the site table
def _site_table(
    calls: pd.DataFrame,
    traces: Sequence[Backtrace],
    tree: _Tree,
    node_of_site: np.ndarray,
    values: dict[str, np.ndarray],
) -> pd.DataFrame:
    """One row per call site: where it is, what it made and what that moved and took."""
    names = tree.frames["name"].to_numpy(dtype=object)
    kinds = tree.frames["type"].to_numpy(dtype=object)
    sources = tree.frames["source"].to_numpy(dtype=object)
    records = []
    by_site = calls.groupby("site", sort=True)
    for s in range(tree.n_sites):
        mine = by_site.get_group(s)
        stacks = np.flatnonzero(tree.site_of_stack == s)
        files = [traces[k].path.rsplit("/", 1)[-1] for k in stacks if k < len(traces)]
        caller = _caller(tree, int(tree.site_node[s]), names, kinds, sources)
        leads = np.unique(mine["lead_rank"].to_numpy())
        ids = "; ".join(
            f"rank {lead}: {format_ranklist(part['call'].to_numpy())}"
            for lead, part in mine.groupby("lead_rank", sort=True)
        )
        if leads.size == 1:
            ids = format_ranklist(mine["call"].to_numpy())
        groups = mine["group"].to_numpy()
        records.append(
            {
                "site": s,
                "node": int(node_of_site[s]),
                "caller": caller,
                "collective": ", ".join(sorted(set(mine["collective"]))),
                "traces": ", ".join(files),
                "lead_ranks": format_ranklist(leads),
                "calls": len(mine),
                "call_ids": ids,
                "comms": format_ranklist(mine["comm"].to_numpy()[mine["comm"].to_numpy() >= 0]),
                "groups": format_ranklist(groups[groups >= 0]),
                "bytes_sent": _total(values["bytes_sent"][s], values["calls"][s]),
                "bytes_received": _total(values["bytes_received"][s], values["calls"][s]),
                "time_mean": _mean(values["time"][s], values["calls"][s]),
                "time_max": _max(values["time"][s], values["calls"][s]),
                "late_arrival_mean": _mean(values["late_arrival"][s], values["calls"][s]),
                "late_arrival_max": _max(values["late_arrival"][s], values["calls"][s]),
            }
        )
    return pd.DataFrame.from_records(records).set_index("site")


def _caller(
    tree: _Tree, node: int, names: np.ndarray, kinds: np.ndarray, sources: np.ndarray
) -> str:
    """The innermost frame of the program above a site (the MPI and profiler frames are
    the profiler's): where in the program the collective was called, with its source
    line where a binary resolved it (``exchange_halo (/src/prog.c:10)``)."""
    while node >= 0 and kinds[node] in ("mpi", "profiler"):
        node = int(tree.parent[node])
    if node < 0:
        return ""
    return f"{names[node]} ({sources[node]})" if sources[node] else str(names[node])


def _total(v: np.ndarray, calls: np.ndarray) -> float:
    took_part = calls > 0
    return float(v[took_part].sum()) if took_part.any() else 0.0


def _mean(v: np.ndarray, calls: np.ndarray) -> float:
    took_part = calls > 0
    return float(v[took_part].mean()) if took_part.any() else float("nan")


def _max(v: np.ndarray, calls: np.ndarray) -> float:
    took_part = calls > 0
    return float(v[took_part].max()) if took_part.any() else float("nan")


# ---------------------------------------------------------------------- gaps
def _warn_gaps(
    calls: pd.DataFrame,
    covered: dict[str, np.ndarray],
    tree: _Tree,
    traces: Sequence[Backtrace],
    no_timings: bool,
) -> None:
    """One UnmatchedCallsWarning per kind of gap: calls without a backtrace, sites with
    calls that have no counts, sites with ranks that have no times."""
    lost = calls["stack"].to_numpy() >= len(traces)
    if lost.any():
        leads = format_ranklist(calls["lead_rank"].to_numpy()[lost])
        warnings.warn(
            f"{int(lost.sum())} calls of rank(s) {leads} have counts or timings but no "
            f"backtrace: they are under {NO_BACKTRACE!r}",
            UnmatchedCallsWarning,
            stacklevel=3,
        )
    uncounted = calls["group"].to_numpy() < 0
    if uncounted.any():
        sites = format_ranklist(calls["site"].to_numpy()[uncounted])
        warnings.warn(
            f"{int(uncounted.sum())} calls have no counts: bytes_sent and bytes_received are "
            f"NaN for call site(s) {sites}",
            UnmatchedCallsWarning,
            stacklevel=3,
        )
    expected = covered["calls"]
    short = {m: (covered[m] < expected).any(axis=1) for m in ("time", "late_arrival")}
    if short["time"].any() or short["late_arrival"].any():
        why = "there are no timing files" if no_timings else "some calls have no times"
        parts = [
            f"{m} for call site(s) {format_ranklist(np.flatnonzero(short[m]))}"
            for m in ("time", "late_arrival")
            if short[m].any()
        ]
        warnings.warn(
            f"NaN {' and '.join(parts)}: on the ranks where {why}",
            UnmatchedCallsWarning,
            stacklevel=3,
        )
