"""Count matrices of MPI collectives (alltoallv, alltoall, allgatherv).

Reads what the collective profiler (gvallee/collective_profiler) writes — compact and
per-call count files, timings, locations, backtraces — into a :class:`CountsProfile` of
:class:`CallGroup` objects whose send/recv matrices are :class:`CountMatrix` (distinct
rows + row per rank, ``dense()`` for the int64 array), and analyses them: rank-range
groups, communication patterns, statistics, per-rank and per-host bytes, and the call
sites (``profile.call_sites()``: backtraces, counts and timings woven into a calltree;
:class:`Symbolizer` resolves a program's frames through its ELF symbols and lines).
:class:`CallGroupStudy` is one call group's matrix as a person studies it (the view, its
blocks and the group's summary): what CountMatrixHeatmap shows.
"""

from perfweave.counts.backtraces import (
    Backtrace,
    BacktraceContext,
    StackFrame,
    parse_backtrace,
    read_backtrace,
)
from perfweave.counts.blocks import (
    BlockAggregator,
    Blocks,
    RowUnits,
    aggregate_blocks,
    block_edges,
    row_units,
)
from perfweave.counts.compact import (
    CompactBlock,
    CompactFile,
    CompactStyle,
    format_compact,
    parse_compact,
    parse_rows,
    read_compact,
    write_compact,
)
from perfweave.counts.grouping import RankGroup, group_ranks, rank_groups
from perfweave.counts.matrix import CountMatrix
from perfweave.counts.patterns import (
    Pattern,
    PatternReport,
    detect_patterns,
    format_patterns,
    format_patterns_summary,
    tally,
    write_patterns,
)
from perfweave.counts.percall import (
    CallCounts,
    parse_percall,
    read_percall,
    read_percall_files,
)
from perfweave.counts.profile import (
    CallGroup,
    CountsProfile,
    groups_from_compact,
    groups_from_percall,
    read,
    to_compact,
)
from perfweave.counts.ranklist import format_ranklist, parse_ranklist
from perfweave.counts.sites import (
    calls_of_nodes,
    check_same_profile,
    nodes_of_sites,
    site_groups,
    sites_of_calls,
    sites_of_nodes,
    weave_call_sites,
)
from perfweave.counts.stats import (
    bytes_per_rank,
    call_stats,
    format_heatmap,
    host_totals,
    message_totals,
    rank_bytes,
    stats_summary,
)
from perfweave.counts.study import CallGroupStudy
from perfweave.counts.symbols import Location, Symbolizer
from perfweave.counts.timings import read_comm_data, read_locations, read_timings

read_counts = read  # the name perfweave re-exports (perfweave.read reads calltrees)

__all__ = [
    "calls_of_nodes",
    "check_same_profile",
    "Backtrace",
    "BacktraceContext",
    "StackFrame",
    "Location",
    "Symbolizer",
    "nodes_of_sites",
    "parse_backtrace",
    "rank_bytes",
    "read_backtrace",
    "site_groups",
    "sites_of_calls",
    "sites_of_nodes",
    "weave_call_sites",
    "BlockAggregator",
    "Blocks",
    "RowUnits",
    "aggregate_blocks",
    "block_edges",
    "row_units",
    "CallCounts",
    "CallGroupStudy",
    "CallGroup",
    "CompactBlock",
    "CompactFile",
    "CompactStyle",
    "CountMatrix",
    "CountsProfile",
    "Pattern",
    "PatternReport",
    "RankGroup",
    "bytes_per_rank",
    "call_stats",
    "detect_patterns",
    "format_compact",
    "format_heatmap",
    "format_patterns",
    "format_patterns_summary",
    "format_ranklist",
    "group_ranks",
    "groups_from_compact",
    "groups_from_percall",
    "host_totals",
    "message_totals",
    "parse_compact",
    "parse_percall",
    "parse_ranklist",
    "parse_rows",
    "rank_groups",
    "read",
    "read_comm_data",
    "read_compact",
    "read_counts",
    "read_locations",
    "read_percall",
    "read_percall_files",
    "read_timings",
    "stats_summary",
    "tally",
    "to_compact",
    "write_compact",
    "write_patterns",
]
