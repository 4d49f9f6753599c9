"""Call sites: backtraces woven with counts and timings into a calltree, on real data."""

from __future__ import annotations

import shutil
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import perfweave.counts as pc
from perfweave.counts.backtraces import Backtrace, BacktraceContext, StackFrame
from perfweave.counts.sites import NO_BACKTRACE
from perfweave.errors import FormatError, MetadataError, ShapeError, UnmatchedCallsWarning
from tests.counts._paths import WRF, WRF_ALL, expected

METRICS = ["time", "late_arrival", "bytes_sent", "bytes_received", "calls"]


@pytest.fixture
def wrf(copy_dir):
    """All 964 WRF calls with their backtraces and communicator 0's timings (the bundled
    timing files; communicator 1's are not bundled)."""
    d = copy_dir(WRF_ALL)
    for name in ("execution", "late_arrival"):
        f = f"alltoallv_{name}_times.rank0_comm0_job5471563.md"
        shutil.copy(WRF / f, d / f)
    return d


def weave(directory, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return pc.read(directory).call_sites(**options)


def weave_with_gaps(directory):
    with pytest.warns(UnmatchedCallsWarning) as caught:
        gf = pc.read(directory).call_sites()
    return gf, [str(w.message) for w in caught]


def stacks(directory):
    """Each backtrace's frame names, outermost first, read by plain text splitting."""
    out = {}
    for p in sorted(directory.glob("*_backtrace_rank*_trace*.md")):
        trace = p.read_text().split("# Trace\n", 1)[1].split("# Context", 1)[0]
        out[p.name] = [line.strip() for line in trace.splitlines() if line.strip()][::-1]
    return out


def test_every_call_is_attributed_to_exactly_one_call_site(wrf):
    gf, _ = weave_with_gaps(wrf)
    calls = gf.metadata["site_calls"]
    prof = pc.read(wrf)
    counted = np.sort(np.concatenate([g.calls for g in prof.groups]))
    assert calls["call"].is_unique and np.array_equal(np.sort(calls["call"]), counted)
    table = gf.metadata["call_sites"]
    assert len(table) == len(stacks(wrf)) == 10  # 10 distinct stacks: 10 call sites
    for b in prof.backtraces:  # each site's calls are its backtrace's
        (site,) = table.index[table["traces"] == b.path.rsplit("/", 1)[-1]]
        assert np.array_equal(np.sort(calls["call"][calls["site"] == site]), b.calls)
    # a site's calls per rank: the same on every one of the 160 ranks
    leaves = gf.dataframe[gf.dataframe["site"] >= 0]
    per_site = leaves.groupby("site")["calls"]
    assert (per_site.min() == per_site.max()).all() and (per_site.size() == 160).all()
    assert per_site.first().tolist() == table["calls"].tolist()


def test_bytes_per_site_sum_to_the_profiles_totals(wrf):
    gf, _ = weave_with_gaps(wrf)
    prof = pc.read(wrf)
    stats = prof.stats()
    calls = gf.metadata["site_calls"].merge(stats, on="call")
    for side, col in (("send", "bytes_sent"), ("recv", "bytes_received")):
        expected_per_site = calls.groupby("site")[f"{side}_bytes"].sum()
        leaves = gf.dataframe[gf.dataframe["site"] >= 0].groupby("site")[col].sum()
        assert np.array_equal(leaves.to_numpy(), expected_per_site.to_numpy(dtype=float))
        assert gf.metadata["call_sites"][col].sum() == pc.message_totals(stats)[f"{side}_bytes"]
    # per rank: the bytes_per_rank of the profile (upstream's heat-map data), by site
    per_rank = prof.bytes_per_rank().merge(gf.metadata["site_calls"], on="call")
    want = per_rank.groupby(["site", "rank"])["bytes_sent"].sum()
    leaves = gf.dataframe[gf.dataframe["site"] >= 0].reset_index()
    got = leaves.groupby(["site", "rank"])["bytes_sent"].sum()
    assert np.array_equal(got.to_numpy(), want.to_numpy(dtype=float))


def test_the_tree_merges_shared_frames_and_inclusive_sums_hold(wrf):
    gf, _ = weave_with_gaps(wrf)
    paths = {tuple(s[:-2]) for s in stacks(wrf).values()}  # without the profiler's 2 frames
    prefixes = {p[:k] for p in paths for k in range(1, len(p) + 1)}
    assert len(gf.graph) == len(prefixes) + len(paths)  # + one MPI_Alltoallv leaf per site
    leaves = [n for n in range(len(gf.graph)) if not len(gf.graph.children_of(n))]
    assert {gf.graph.frame(n)["name"] for n in leaves} == {"MPI_Alltoallv"}
    assert sorted(gf.dataframe.loc[leaves, "site"].unique()) == list(range(10))
    df = gf.dataframe
    for metric in ("calls", "bytes_sent", "bytes_received"):
        inc = df[f"{metric} (inc)"].unstack("rank")
        for node in range(len(gf.graph)):
            kids = list(gf.graph.children_of(node))
            if kids:
                below = inc.loc[kids].sum()
                assert (inc.loc[node] >= below).all() and np.allclose(inc.loc[node], below)
        root = gf.graph.root_ids[0]
        assert inc.loc[root].sum() == df[metric].sum()
    assert (df["calls (inc)"].xs(gf.graph.root_ids[0], level="node") == 964).all()


def test_times_are_the_timing_files_and_nan_where_there_are_none(wrf):
    gf, messages = weave_with_gaps(wrf)
    assert len(messages) == 1 and "NaN time for call site(s)" in messages[0]
    timings = pc.read(wrf).timings
    calls = gf.metadata["site_calls"]
    table = gf.metadata["call_sites"]
    leaves = gf.dataframe[gf.dataframe["site"] >= 0].reset_index()
    for measure, metric in (("execution", "time"), ("late_arrival", "late_arrival")):
        t = timings[timings["measure"] == measure].merge(calls, on="call")
        want = t.groupby(["site", "rank"])["seconds"].sum()
        timed_sites = sorted(t["site"].unique())
        assert timed_sites == sorted(table.index[table["comms"] == "0"])  # communicator 0's
        got = leaves.set_index(["site", "rank"])[metric]
        assert np.allclose(got.loc[want.index], want)
        assert got.drop(index=timed_sites, level="site").isna().all()
        assert (
            f"call site(s) {pc.format_ranklist(sorted(set(table.index) - set(timed_sites)))}"
            in (messages[0])
        )
    # an inclusive time is NaN when a time below is: the root, never a partial sum
    root = gf.graph.root_ids[0]
    assert gf.dataframe.loc[root, "time (inc)"].isna().all()


def test_all_timings_give_every_site_its_time():
    gf = weave(expected("alltoall_bigcounts_c"))
    t = pc.read(expected("alltoall_bigcounts_c")).timings
    (site,) = gf.metadata["call_sites"].index
    assert gf.default_metric == "time (inc)"
    for measure, metric in (("execution", "time"), ("late_arrival", "late_arrival")):
        want = t[t["measure"] == measure].groupby("rank")["seconds"].sum()
        got = gf.dataframe[gf.dataframe["site"] == site][metric].droplevel("node")
        assert np.allclose(got, want)
    assert gf.units["time"] == "s" and gf.unit_of("bytes_sent (inc)") == "B"


def test_call_sites_of_two_lead_ranks_merge_on_comm_world_ranks():
    d = expected("alltoall_multicomms_c")
    gf = weave(d)
    prof = pc.read(d)
    assert gf.metadata["rank"] == "COMM_WORLD"
    (site,) = gf.metadata["call_sites"].index  # the same stack on ranks 0 and 1: one site
    assert gf.metadata["call_sites"].loc[site, "lead_ranks"] == "0-1"
    leaf = gf.dataframe[gf.dataframe["site"] == site].droplevel("node")
    # world rank 0 is only in lead rank 0's communicator (world 0-3); lead rank 1's holds 1-3
    locs = prof.locations
    took_part = locs.groupby("world_rank").size()
    assert leaf["calls"].to_dict() == took_part.to_dict()
    times = prof.timings[prof.timings["measure"] == "execution"].merge(
        locs[["lead_rank", "rank", "world_rank"]], on=["lead_rank", "rank"]
    )
    assert np.allclose(leaf["time"], times.groupby("world_rank")["seconds"].sum())


def test_without_location_files_ranks_are_communicator_ranks(wrf):
    gf, _ = weave_with_gaps(wrf)
    assert gf.metadata["rank"] == "communicator"
    assert sorted(gf.dataframe.index.get_level_values("rank").unique()) == list(range(160))


def test_calls_without_a_backtrace_are_kept_under_their_own_root(wrf):
    (wrf / "alltoallv_backtrace_rank0_trace9.md").unlink()  # call 963
    gf, messages = weave_with_gaps(wrf)
    assert any(
        "1 calls of rank(s) 0 have counts or timings but no backtrace" in m for m in messages
    )
    table = gf.metadata["call_sites"]
    (lost,) = table.index[table["caller"] == NO_BACKTRACE]
    assert table.loc[lost, "call_ids"] == "963"
    assert gf.graph.frame(int(table.loc[lost, "node"]))["name"] == NO_BACKTRACE
    stats = pc.read(wrf).stats()
    assert table["bytes_sent"].sum() == stats["send_bytes"].sum()  # nothing lost


def test_calls_without_counts_have_nan_bytes_never_zero(wrf):
    prof = pc.read(wrf)
    dropped = prof.groups.pop(1)  # counts for some calls only
    with pytest.warns(UnmatchedCallsWarning) as caught:
        gf = prof.call_sites()
    assert any(f"{dropped.n_calls} calls have no counts" in str(w.message) for w in caught)
    calls = gf.metadata["site_calls"]
    hit = calls["site"][np.isin(calls["call"], dropped.calls)].unique()
    leaves = gf.dataframe[gf.dataframe["site"] >= 0]
    lacking = leaves["site"].isin(hit)
    assert leaves.loc[lacking, "bytes_sent"].isna().all()
    assert leaves.loc[~lacking, "bytes_sent"].notna().all()


def test_wrappers_kept_are_marked_as_the_profilers(wrf):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedCallsWarning)
        gf = pc.read(wrf).call_sites(wrappers="keep")
    frames = gf.graph.frames
    profiler = frames[frames["type"] == "profiler"]
    assert set(profiler["name"]) == {"_mpi_alltoallv", "MPI_Alltoallv"}
    assert set(profiler["module"]) == {"liballtoallv_backtrace.so"}
    leaves = gf.dataframe[gf.dataframe["site"] >= 0].index.get_level_values("node").unique()
    assert {gf.graph.frame(n)["name"] for n in leaves} == {"_mpi_alltoallv"}
    assert not (frames["type"] == "mpi").any()
    with pytest.raises(ShapeError, match="wrappers must be one of drop, keep"):
        pc.read(wrf).call_sites(wrappers="mark")


def test_the_calltree_analyses_apply(wrf):
    gf, _ = weave_with_gaps(wrf)
    imb = gf.load_imbalance("bytes_sent (inc)")
    table = gf.metadata["call_sites"]
    heaviest = int(table["bytes_sent"].idxmax())
    node = int(table.loc[heaviest, "node"])
    per_rank = gf.dataframe.loc[node, "bytes_sent"]
    assert imb.dataframe.loc[node, "bytes_sent (inc).max"] == per_rank.max()
    assert imb.dataframe.loc[node, "bytes_sent (inc).mean"] == pytest.approx(per_rank.mean())
    flat = gf.flat_profile("bytes_sent")
    assert flat.loc["MPI_Alltoallv", "bytes_sent"] == pytest.approx(per_rank_total(gf))


def per_rank_total(gf):
    return gf.dataframe["bytes_sent"].groupby(level="rank").sum().mean()


def test_questions_a_linked_view_asks(wrf):
    gf, _ = weave_with_gaps(wrf)
    table = gf.metadata["call_sites"]
    root = int(gf.graph.root_ids[0])
    assert pc.sites_of_nodes(gf, [root]).tolist() == list(range(10))
    for site, rec in table.iterrows():
        assert pc.sites_of_nodes(gf, [rec["node"]]).tolist() == [site]
        assert pc.nodes_of_sites(gf, [site]).tolist() == [rec["node"]]
    calls = gf.metadata["site_calls"]
    assert pc.sites_of_calls(gf, [0, 963], lead_rank=0).tolist() == sorted(
        calls["site"][calls["call"].isin([0, 963])].unique()
    )
    groups = pc.site_groups(gf, [5])  # the site that made 360 calls
    prof = pc.read(wrf)
    for g, n in zip(groups["group"], groups["calls"]):
        assert n == np.isin(prof.groups[g].calls, calls["call"][calls["site"] == 5]).sum()
    assert groups["calls"].sum() == table.loc[5, "calls"]
    # on a frame derived by a filter and squash: nodes renumbered, sites kept
    small = gf.filter("`calls (inc)` >= 100")
    kept = pc.sites_of_nodes(small, [int(small.graph.root_ids[0])])
    assert kept.tolist() == sorted(table.index[table["calls"] >= 100])
    assert len(pc.nodes_of_sites(small, kept)) == len(kept)


def test_a_profile_without_backtraces_says_so():
    with pytest.raises(MetadataError, match="no backtrace files in .*wrf_160ranks"):
        pc.read(WRF).call_sites()
    with pytest.raises(MetadataError, match="not a call-site tree"):
        pc.sites_of_nodes(_plain_frame(), [0])


def _plain_frame():
    from perfweave.calltree import GraphFrame

    return GraphFrame.from_lists(("a", "b"))


def test_a_call_made_from_two_stacks_is_a_format_error(wrf):
    extra = wrf / "alltoallv_backtrace_rank0_trace10.md"
    text = (wrf / "alltoallv_backtrace_rank0_trace0.md").read_text()
    extra.write_text(text.replace("[0x863704]", "[0x863705]"))
    with pytest.raises(FormatError, match=r"trace0.md and .*trace10.md: call 0 of rank 0"):
        pc.read(wrf).call_sites()


def test_a_location_file_of_another_size_is_a_format_error(copy_dir):
    d = copy_dir(expected("alltoall_multicomms_c"))
    loc = d / "alltoall_locations_comm0_rank1.md"
    loc.write_text(loc.read_text().replace("COMM_WORLD ranks: 1-3", "COMM_WORLD ranks: 1-4"))
    with pytest.raises(FormatError, match="lists 4 ranks, but the counts or timings"):
        pc.read(d).call_sites()


def test_calls_of_nodes_and_groups_of_calls_answer_a_linked_heatmap(wrf):
    gf, _ = weave_with_gaps(wrf)
    prof = pc.read(wrf)
    table = gf.metadata["call_sites"]
    calls, lead, label = pc.calls_of_nodes(gf, [int(table.loc[5, "node"])])
    want = next(b for b in prof.backtraces if b.path.endswith(table.loc[5, "traces"])).calls
    assert np.array_equal(calls, want) and lead == 0
    assert label == f"call site 5 ({table.loc[5, 'caller']})"
    root = int(gf.graph.root_ids[0])
    assert pc.calls_of_nodes(gf, [root])[2] == "call sites 0-9"
    groups = prof.groups_of_calls(calls)
    stats = prof.stats()
    for row in groups.itertuples():
        g = prof.call_groups(0)[row.group]
        assert row.calls == np.isin(g.calls, calls).sum() and row.n_calls == g.n_calls
        mine = stats[stats["call"].isin(np.intersect1d(g.calls, calls))]
        assert row.bytes_sent == mine["send_bytes"].sum()
    assert groups.attrs["bytes_sent"] == stats["send_bytes"].sum()
    assert prof.groups_of_calls([10**6]).empty
    pc.check_same_profile(gf, prof)  # the same profile: no error
    with pytest.raises(MetadataError, match="not of this profile"):
        pc.check_same_profile(gf, pc.read(expected("alltoall_simple_c")))


# ---------------------------------------------------------------------- property: any stacks
FRAMES = ["main", "solve", "exchange", "halo"]


@st.composite
def woven_inputs(draw):
    stacks = draw(
        st.lists(st.lists(st.sampled_from(FRAMES), min_size=1, max_size=4), min_size=1, max_size=5)
    )
    n_calls = draw(st.integers(min_value=len(stacks), max_value=12))
    site_of_call = draw(
        st.lists(st.integers(0, len(stacks) - 1), min_size=n_calls, max_size=n_calls)
    )
    site_of_call[: len(stacks)] = range(len(stacks))  # every stack makes a call
    counts = draw(
        st.lists(
            st.lists(st.integers(0, 50), min_size=9, max_size=9), min_size=n_calls, max_size=n_calls
        )
    )
    timed = draw(st.lists(st.booleans(), min_size=n_calls, max_size=n_calls))
    return stacks, site_of_call, counts, timed


def _profile(stacks, site_of_call, counts, timed):
    calls = np.arange(len(site_of_call))
    traces = []
    for k, names in enumerate(stacks):
        frames = [
            StackFrame("liballtoallv_backtrace.so", "MPI_Alltoallv", 0x7D, 0x2AE, 0),
            *(StackFrame("./app", name, 0x10, 0x400 + j, 0) for j, name in enumerate(names[::-1])),
        ]
        mine = calls[np.asarray(site_of_call) == k]
        traces.append(
            Backtrace(
                f"alltoallv_backtrace_rank0_trace{k}.md",
                "alltoallv",
                0,
                k,
                None,
                None,
                tuple(frames),
                (BacktraceContext(0, 0, 0, mine, 0),),
            )
        )
    groups = []
    for c, flat in enumerate(counts):
        m = pc.CountMatrix.from_dense(np.asarray(flat, dtype=np.int64).reshape(3, 3))
        groups.append(pc.CallGroup(0, 0, "Alltoallv", np.array([c]), 3, 4, 4, m, m))
    rows = [(c, r, 0.5 + c + r) for c in calls if timed[c] for r in range(3)]
    timings = pd.DataFrame(
        {
            "collective": pd.Series(["alltoallv"] * len(rows) * 2, dtype="string"),
            "measure": pd.Series(
                ["execution"] * len(rows) + ["late_arrival"] * len(rows), dtype="string"
            ),
            "lead_rank": 0,
            "comm": 0,
            "job": 0,
            "call": [c for c, _, _ in rows] * 2,
            "rank": [r for _, r, _ in rows] * 2,
            "seconds": [s for _, _, s in rows] * 2,
        }
    )
    return pc.CountsProfile(groups=groups, timings=timings, backtraces=traces)


@given(woven_inputs())
def test_any_stacks_weave_into_a_tree_whose_sums_are_the_profiles(inputs):
    stacks, site_of_call, counts, timed = inputs
    prof = _profile(*inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedCallsWarning)
        gf = prof.call_sites()
    table, calls = gf.metadata["call_sites"], gf.metadata["site_calls"]
    assert len(table) == len({tuple(s) for s in stacks})  # equal stacks: one call site
    assert calls["call"].is_unique and len(calls) == len(site_of_call)
    df = gf.dataframe
    root_rows = df.loc[list(gf.graph.root_ids)]
    sent = sum(pc.rank_bytes(g)[0] for g in prof.groups)
    got = root_rows.groupby(level="rank")["bytes_sent (inc)"].sum().to_numpy()
    assert np.array_equal(got, sent.astype(float))
    assert (root_rows.groupby(level="rank")["calls (inc)"].sum() == len(site_of_call)).all()
    for node in range(len(gf.graph)):  # inclusive >= the children's, per rank
        kids = list(gf.graph.children_of(node))
        if kids:
            mine = df.loc[node, "calls (inc)"]
            below = df.loc[kids, "calls (inc)"].groupby(level="rank").sum()
            assert (mine.reindex(below.index) >= below).all()
    # a site's time is NaN exactly when one of its calls was not timed, never 0
    untimed = {s for c, s in enumerate(calls.set_index("call")["site"]) if not timed[c]}
    for site, rec in table.iterrows():
        assert np.isnan(rec["time_max"]) == (site in untimed)
