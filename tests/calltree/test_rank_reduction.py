"""Issue 28: one reduction over ranks and threads (calltree.ranks), on every reader's
multi-rank data.

A (rank, thread) without a row for a node measured nothing there: for an additive metric
it counts 0 in every reduction. So no node's inclusive value exceeds its parent's in any
monotone reduction (mean, median, min, max, sum), whichever way a frame is reduced:
``drop_index_levels``, ``node_values`` (tree(), the CLI), ``load_imbalance`` and
``rank_spread`` (the explorer's glyph and columns), over threads or over ranks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree.ranks import (
    is_additive,
    profile_means,
    rank_cells,
    rank_spread,
    reduce_ranks,
)
from perfweave.errors import ShapeError

H, MORE = "tests/data/hatchet/", "tests/data/hatchet-more/"
GAMESS = MORE + "hpctoolkit-gamess"

# every reader whose bundled data has rank/thread levels: (path, reader options)
MULTI_RANK = {
    "hpctoolkit4-gamess": (GAMESS, {"per_profile": True}),  # 16 ranks, 1 or 4 threads
    "hpctoolkit4-cpi": (MORE + "hatchet_cpi_v4_database", {"per_profile": True}),
    "perfflowaspect-ams": (MORE + "perfflowaspect-ams/ams_mpi_test1", {}),  # 3 ranks
    "caliper-json-cpi": (H + "caliper-cpi-json/cpi-callpath-profile.json", {}),
    "caliper-json-lulesh": (H + "caliper-lulesh-json/lulesh-annotation-profile.json", {}),
    "cali-sw4": (H + "caliper-sw4-cuda-activity-cali/caliper_cuda_activity_profile.cali", {}),
    "hpctoolkit-allgather": (H + "hpctoolkit-allgather-database", {}),  # 10 ranks x 2
    "hpctoolkit-cpi": (H + "hpctoolkit-cpi-database", {}),
    "tau-cpi": (H + "tau-cpi-mpi", {}),
    "timemory": (H + "timemory", {}),
    "cube-cpi": ("tests/data/cube/scorep-cpi-cubex", {}),  # 4 ranks, two call sites merged
    "cube-kripke": ("tests/data/cube/kripke.p8.d2.g32.r1", {}),  # 8 ranks, PAPI counters
    "cube-fastest": ("tests/data/cube/fastest.p16.size131072.r1", {}),  # 16 ranks
    # 4 processes of 2 threads (and the PyTorch-shaped trace in test_trace_event.py)
    "trace-event-multiprocess": ("tests/data/speedscope-trace-event/multiprocess.json", {}),
    # perf record -a: samples of 2 processes (pid -> rank, tid -> thread)
    "perf-script-system-wide": ("tests/data/speedscope-linux-perf/system-wide.linux-perf.txt", {}),
}
HOW = ("mean", "median", "min", "max", "sum")

# readers whose bundled data has no rank/thread levels; a new reader goes here (saying
# why) or, with its multi-rank data, into MULTI_RANK (docs/calltree.md, "Reducing ranks
# and threads")
NO_RANK_DATA = {
    "hatchet-json": "the bundled Hatchet JSON file has one row per node",
    "literal": "Hatchet's literal format has no rank/thread levels",
    "pyinstrument": "one Python process, one row per node",
    "cprofile": "one Python process, one row per node",
    "gprof-dot": "one process, one row per node",
    "speedscope": "speedscope's bundled sample files hold one profile (one thread) each; "
    "several profiles as threads are tested in test_speedscope.py",
}
FORMAT_OF = {
    "hpctoolkit4-gamess": "hpctoolkit4",
    "hpctoolkit4-cpi": "hpctoolkit4",
    "perfflowaspect-ams": "perfflowaspect",
    "caliper-json-cpi": "caliper",
    "caliper-json-lulesh": "caliper",
    "cali-sw4": "cali",
    "hpctoolkit-allgather": "hpctoolkit",
    "hpctoolkit-cpi": "hpctoolkit",
    "tau-cpi": "tau",
    "timemory": "timemory",
    "cube-cpi": "cube",
    "cube-kripke": "cube",
    "cube-fastest": "cube",
    "trace-event-multiprocess": "trace-event",
    "perf-script-system-wide": "perf-script",
}

_read: dict[str, pw.GraphFrame] = {}


def _frame(case: str) -> pw.GraphFrame:
    """The case's frame with an inclusive column of every additive metric (read once)."""
    if case not in _read:
        path, options = MULTI_RANK[case]
        gf = pw.read(path, **options)
        assert gf.index_levels, f"{case}: expected rank/thread levels"
        if not any(is_additive(m) for m in gf.inc_metrics):
            gf.update_inclusive_columns()
        _read[case] = gf
    return _read[case].copy()


def _inclusive(gf: pw.GraphFrame) -> list[str]:
    inc = [m for m in gf.inc_metrics if is_additive(m)]
    assert inc, f"no additive inclusive metric in {gf.inc_metrics}"
    return inc


def _above_parent(gf: pw.GraphFrame, values: np.ndarray) -> np.ndarray:
    """Nodes whose value exceeds their parent's (beyond rounding), by graph node id."""
    parent = np.asarray(gf.graph.parent)
    child = np.flatnonzero(parent >= 0)
    mine, theirs = values[child], values[parent[child]]
    both = np.isfinite(mine) & np.isfinite(theirs)
    bad = both & (mine > theirs + 1e-9 * np.abs(theirs) + 1e-12)
    bad |= np.isfinite(mine) & ~np.isfinite(theirs)  # a value below a node without one
    return child[bad]


def _by_node(gf: pw.GraphFrame, frame: pd.DataFrame, column: str) -> np.ndarray:
    out = np.full(len(gf.graph), np.nan)
    out[np.asarray(frame.index, dtype=np.int64)] = frame[column].to_numpy(dtype=float)
    return out


def test_every_reader_is_in_the_property_test():
    """DESIGN.md: the rule is kept by a property test over every reader's multi-rank data."""
    from perfweave.calltree.readers import available_formats, detect

    covered = set(FORMAT_OF.values())
    assert FORMAT_OF.keys() == MULTI_RANK.keys()
    for case, (path, _) in MULTI_RANK.items():
        assert detect(path) == FORMAT_OF[case], case
    missing = set(available_formats()) - covered - set(NO_RANK_DATA)
    assert not missing, (
        f"readers {sorted(missing)}: add their bundled multi-rank data to MULTI_RANK "
        "(rank/thread levels), or say in NO_RANK_DATA why they have none"
    )


@pytest.mark.parametrize("case", list(MULTI_RANK))
@pytest.mark.parametrize("how", HOW)
def test_no_node_exceeds_its_parent_after_drop_index_levels(case, how):
    gf = _frame(case)
    reduced = gf.copy().drop_index_levels(getattr(np, how))
    assert not reduced.index_levels
    for m in _inclusive(gf):
        bad = _above_parent(gf, _by_node(gf, reduced.dataframe, m))
        assert not len(bad), f"{case} {how} {m}: {len(bad)} nodes above their parent"


@pytest.mark.parametrize("case", list(MULTI_RANK))
def test_no_node_exceeds_its_parent_in_any_view(case):
    gf = _frame(case)
    for m in _inclusive(gf):
        # tree(), the CLI and the explorer's cells: node_values
        assert not len(_above_parent(gf, gf.node_values(m)[m].to_numpy())), (case, m)
        for across in ("threads", "ranks"):
            for how in HOW:
                values = reduce_ranks(gf, m, how, across)[m].to_numpy()
                assert not len(_above_parent(gf, values)), (case, m, how, across)
            # load_imbalance and the explorer's glyph and excess column
            spread = rank_spread(gf, m, across)
            li = gf.load_imbalance(m, across=across).dataframe
            for stat, values in (("mean", spread.mean), ("max", spread.max)):
                assert not len(_above_parent(gf, values)), (case, m, stat, across)
                np.testing.assert_allclose(
                    _by_node(gf, li, f"{m}.{stat}")[li.index], values[li.index]
                )


def test_gamess_per_profile_reads_as_a_nested_tree():
    """The issue's reproduction: entry 40.21 s and its descendant beging_ 50.21 s (125 %),
    309 nodes above their parent, because a node's mean was taken over its own rows only."""
    gf = _frame("hpctoolkit4-gamess")
    values = gf.node_values("time (inc)")["time (inc)"].to_numpy()
    assert not len(_above_parent(gf, values))
    # the mean is over the profile's 40 (rank, thread) cells: each node's rows summed / 40
    cells = gf.dataframe.index.droplevel("node").unique()
    assert len(cells) == 40
    sums = gf.dataframe["time (inc)"].groupby(level="node").sum()
    np.testing.assert_allclose(values[sums.index], sums.to_numpy() / 40, rtol=1e-12)
    # the rows that exist alone give the numbers the issue read, above their parents
    present_only = gf.dataframe["time (inc)"].groupby(level="node").mean()
    old = np.full(len(gf.graph), np.nan)
    old[present_only.index] = present_only.to_numpy()
    assert len(_above_parent(gf, old)) == 309
    note = gf.node_values("time (inc)").attrs["perfweave.node_values"]
    assert note == "mean over 40 threads (16 ranks); a thread without a row for a node counts 0"


def test_tree_and_cli_show_the_same_nested_values(capsys):
    from perfweave.cli import main

    gf = _frame("hpctoolkit4-gamess")
    values = gf.node_values("time (inc)")["time (inc)"].to_numpy()
    text = gf.tree(color=False, depth=5, metric_column="time (inc)").splitlines()
    assert text[0].startswith("# time (inc) in s: mean over 40 threads (16 ranks)")
    shown = [float(line.strip("└├─│ ").split()[0]) for line in text[1:] if line.strip()]
    assert shown[:4] == pytest.approx([round(v, 3) for v in values[:4]], abs=1e-3)
    assert main(["tree", GAMESS, "-O", "per_profile=true", "--depth", "5", "--color", "never"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "# mean over 40 threads (16 ranks); a thread without a row for a node counts 0 "
        "(--aggregate sum|min|max|median, --rank N)"
    )
    cli = [line for line in out if not line.startswith("#")]
    assert [float(line.strip("└├─│ ").split()[0]) for line in cli if line.strip()] == shown


def test_non_additive_metrics_reduce_over_the_cells_that_have_a_value():
    """timemory's min/max/mean/stddev columns are statistics of each row: a rank without a
    row is left out (not 0); its sum column counts 0 there."""
    gf = _frame("timemory")
    node = int(gf.dataframe.index.get_level_values("node")[-1])
    gap = gf.dataframe.drop(index=gf.dataframe.xs(node, level="node", drop_level=False).index[:1])
    gf.dataframe = gap
    rows = gap.xs(node, level="node")
    assert len(rows) == 1  # the node's other rank kept its row
    values = gf.node_values()
    for m in ("max.wall_clock", "min.wall_clock", "mean.wall_clock", "stddev.wall_clock"):
        assert not is_additive(m)
        assert values.loc[node, m] == pytest.approx(rows[m].iloc[0])
    for m in ("sum.wall_clock", "sqr.wall_clock"):
        assert is_additive(m)
        assert values.loc[node, m] == pytest.approx(rows[m].iloc[0] / 2)


def test_additive_names():
    additive = ["time", "time (inc)", "count", "sum#time.duration", "Total time", "gpuop"]
    statistics = [
        "min#inclusive#sum#time.duration",
        "Max time/rank",
        "Avg time/rank (exc)",
        "stddev.wall_clock (inc)",
        "ts",
        "time.imbalance",
        "cpu %",
    ]
    assert all(is_additive(m) for m in additive)
    assert not any(is_additive(m) for m in statistics)


def test_ranks_sum_their_threads_and_say_so():
    gf = _frame("hpctoolkit4-gamess")
    cells = rank_cells(gf, ["time (inc)"], "ranks")
    assert (
        cells.labels == [f"rank {r}" for r in range(16)] and cells.what == "ranks, threads summed"
    )
    per_rank = gf.dataframe["time (inc)"].groupby(level=["node", "rank"]).sum().unstack("rank")
    full = per_rank.reindex(index=range(len(gf.graph))).to_numpy()
    has = ~np.isnan(full).all(axis=1)
    np.testing.assert_allclose(cells.values["time (inc)"][has], np.nan_to_num(full[has]))
    assert np.isnan(cells.values["time (inc)"][~has]).all()
    every = rank_cells(gf, ["time (inc)"], "threads")
    assert every.width == 40 and every.what == "every thread"
    threads_only = gf._derive(gf.graph, gf.dataframe.xs(0, level="rank"))
    with pytest.raises(ShapeError, match="no rank level"):
        rank_cells(threads_only, [], "ranks")


def test_ensemble_profiles_reduce_their_own_ranks_by_the_rule():
    """An ensemble of per-rank profiles: each profile's mean over its own cells, 0 where a
    profile's rank has no row for the node (the explorer's glyph per profile)."""
    gf = _frame("hpctoolkit4-cpi")
    df = gf.dataframe[["time (inc)"]]
    two = pd.concat({"a": df, "b": df * 2}, names=["profile"]).reorder_levels(
        ["node", "profile", "rank", "thread"]
    )
    got = profile_means(two.sort_index(), len(gf.graph), ["a", "b"], "time (inc)")
    want = gf.node_values("time (inc)")["time (inc)"].to_numpy()
    np.testing.assert_allclose(got[:, 0], want, equal_nan=True)
    np.testing.assert_allclose(got[:, 1], 2 * want, equal_nan=True)


@pytest.mark.peer
def test_hatchet_averages_only_the_rows_that_exist():
    """The deliberate difference from Hatchet's drop_index_levels (docs/calltree.md): on the
    4-rank cpi database read per profile, Hatchet's mean of a node is over its own rows, so
    some nodes exceed their parent; perfweave's is over the frame's 4 cells."""
    from tests.calltree._peer import rows

    gf = _frame("hpctoolkit4-cpi")
    theirs = gf.to_hatchet()
    theirs.drop_index_levels()
    ours = gf.copy().drop_index_levels()
    m = "time (inc)"
    # nodes matched by call path; paths shared by equal siblings are left out
    theirs_by_path, ours_by_path = rows(theirs, [m], []), rows(ours, [m], [])
    assert theirs_by_path.keys() == ours_by_path.keys()
    unique = {k[0] for k, v in ours_by_path.items() if len(v) == 1}
    their_values = {k[0]: v[0][0] for k, v in theirs_by_path.items() if k[0] in unique}
    our_values = {k[0]: v[0][0] for k, v in ours_by_path.items() if k[0] in unique}
    per_rank: dict = {path: [] for path in unique}
    for key, values in rows(gf, [m], ["rank", "thread"]).items():
        if key[0] in unique:
            per_rank[key[0]].extend(v[0] for v in values)
    for path, values in per_rank.items():
        assert their_values[path] == pytest.approx(np.mean(values))
        assert our_values[path] == pytest.approx(np.sum(values) / 4)
    above = [
        p
        for p in their_values
        if p[:-1] in their_values and their_values[p] > their_values[p[:-1]] * (1 + 1e-9)
    ]
    assert above and not [
        p
        for p in our_values
        if p[:-1] in our_values and our_values[p] > our_values[p[:-1]] * (1 + 1e-9)
    ]
