"""pw.link(explorer, heatmap): the call sites of the WRF run and the heatmap of their calls,
each following the other, without a browser."""

from __future__ import annotations

import re
import shutil
import warnings
from pathlib import Path

import pytest

import perfweave as pw
import perfweave.counts as pc
from perfweave.errors import MetadataError, PerfweaveError, UnmatchedCallsWarning

DATA = Path(__file__).parents[1] / "data" / "counts"


@pytest.fixture(scope="module")
def wrf(tmp_path_factory):
    """All 964 WRF calls, their 10 backtraces and communicator 0's timings."""
    d = tmp_path_factory.mktemp("wrf") / "wrf_all_calls"
    shutil.copytree(DATA / "wrf_all_calls", d)
    for name in ("execution", "late_arrival"):
        f = f"alltoallv_{name}_times.rank0_comm0_job5471563.md"
        shutil.copy(DATA / "wrf_160ranks_niagara_job5471563" / f, d / f)
    return d


@pytest.fixture
def linked(wrf):
    prof = pc.read(wrf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedCallsWarning)  # comm 1 has no timings here
        sites = prof.call_sites()
    ex = pw.CalltreeExplorer(sites)
    hm = pw.CountMatrixHeatmap(prof)
    return prof, sites, ex, hm, pw.link(hm, ex)  # either order


def _trace_calls(wrf: Path) -> dict[int, set[int]]:
    """Each backtrace's calls, by trace number, from the files' text."""
    out = {}
    for p in wrf.glob("alltoallv_backtrace_rank0_trace*.md"):
        text = re.search(r"^Calls: (.*)$", p.read_text(), re.M)[1]
        out[int(re.search(r"trace(\d+)", p.name)[1])] = set(pc.parse_ranklist(text).tolist())
    return out


def test_a_call_site_shows_its_calls_in_the_heatmap(linked, wrf):
    prof, sites, ex, hm, _ = linked
    table = sites.metadata["call_sites"]
    site = int(table["calls"].idxmax())
    (trace,) = [int(t) for t in re.findall(r"trace(\d+)", table.loc[site, "traces"])]
    made = _trace_calls(wrf)[trace]
    ex.select([int(table.loc[site, "node"])])
    shown = hm.call_group
    held = made & set(shown.calls.tolist())
    assert held  # the group shown holds calls of the site
    assert hm.focus["lead_rank"] == 0 and set(hm.focus["calls"].tolist()) == made
    groups = [k for k, g in enumerate(prof.call_groups(0)) if made & set(g.calls.tolist())]
    assert hm.focus["groups"]["group"].tolist() == groups
    # the note: the site, its calls and groups, its share of the bytes, the group shown
    stats = prof.stats()
    share = stats[stats["call"].isin(made)]["send_bytes"].sum() / stats["send_bytes"].sum()
    assert hm.note.startswith(f"call site {site} ({table.loc[site, 'caller']}): {len(made)} calls")
    assert f"{share:.1%} of the bytes lead rank 0 sends" in hm.note
    assert f"the group shown: {len(held):,} of its {shown.n_calls:,} calls" in hm.note


def test_an_inner_frame_shows_the_calls_of_every_site_below_it(linked, wrf):
    _, sites, ex, hm, _ = linked
    root = int(sites.graph.root_ids[0])
    ex.select([root])
    every = set().union(*_trace_calls(wrf).values())
    assert set(hm.focus["calls"].tolist()) == every and "call sites 0-9: 964 calls" in hm.note
    ex.clear_selection()
    assert hm.focus is None and "call site" not in hm.note


def test_a_call_group_in_the_heatmap_selects_and_reveals_its_call_sites(linked, wrf):
    _, sites, ex, hm, _ = linked
    table = sites.metadata["call_sites"]
    traces = _trace_calls(wrf)
    n = len(hm.group_labels)
    for k in [*range(1, n), 0]:  # the heatmap opens on group 0: a change selects
        hm.set_call_group(k)
        calls = set(hm.call_group.calls.tolist())
        want = {
            int(s)
            for s, files in table["traces"].items()
            if any(traces[int(t)] & calls for t in re.findall(r"trace(\d+)", files))
        }
        got = {int(table.index[table["node"] == n][0]) for n in ex.selected_nodes}
        assert got == want
        visible = set(ex.visible_rows()["node"].tolist())
        assert set(ex.selected_nodes) <= visible  # their paths are open
    # a block selected in the heatmap does the same for the group shown
    ex.clear_selection()
    hm.select((0, 10))
    assert ex.selected_nodes


def test_groups_of_the_calls_shown_are_browsed_and_another_group_ends_them(linked, wrf):
    _, sites, ex, hm, _ = linked
    root = int(sites.graph.root_ids[0])
    ex.select([root])  # every call: all four groups hold some
    hm.set_call_group(1)
    assert ex.selected_nodes == [root] and hm.focus is not None
    assert f"the group shown: {hm.call_group.n_calls:,} of its" in hm.note
    table = sites.metadata["call_sites"]
    ex.select([int(table.loc[7, "node"])])  # one group only
    k = next(i for i in range(len(hm.group_labels)) if i != hm.group_index)
    hm.set_call_group(k)  # a group of none of its calls: the tree follows the heatmap
    assert hm.focus is None and "call site" not in hm.note
    calls = set(hm.call_group.calls.tolist())
    traces = _trace_calls(wrf)
    want = {int(table.loc[s, "node"]) for s in table.index if traces[s] & calls}
    assert set(ex.selected_nodes) == want


def test_the_link_follows_a_filtered_tree_and_ends_with_unlink(linked):
    _, sites, ex, hm, link = linked
    ex.filter("`calls (inc)` >= 100")  # the sites of one call each are gone, nodes renumbered
    shown = ex.graphframe
    hm.set_call_group(1)
    hm.set_call_group(0)
    kept = shown.dataframe.loc[ex.selected_nodes, "site"].unique().tolist()
    table = sites.metadata["call_sites"]
    assert all(table.loc[s, "calls"] >= 100 for s in kept) and kept
    link.unlink()
    ex.clear_selection()
    hm.set_call_group(1)
    assert ex.selected_nodes == []


def test_the_link_needs_a_call_site_tree_of_the_heatmaps_profile(linked, wrf):
    prof, _, ex, hm, _ = linked
    plain = pw.CalltreeExplorer(pw.GraphFrame.from_lists(("main", "solve")))
    with pytest.raises(MetadataError, match="not a call-site tree"):
        pw.link(plain, hm)
    other = pw.CountMatrixHeatmap(pc.read(pc_expected("alltoall_simple_c")))
    with pytest.raises(MetadataError, match="not of this profile: call 0 of lead rank 0"):
        pw.link(ex, other)
    with pytest.raises(PerfweaveError, match="link joins a CalltreeExplorer and"):
        pw.link(hm, hm)


def pc_expected(test: str) -> Path:
    return DATA / "collective_profiler_tests" / test / "expectedOutput"


def test_show_calls_refuses_calls_no_group_holds_and_keeps_the_view(linked):
    _, _, _, hm, _ = linked
    before = (hm.group_index, hm.view_state, hm.note)
    with pytest.raises(MetadataError, match="no call group of lead rank 0 holds 2 calls 5000-5001"):
        hm.show_calls([5000, 5001])
    assert "no call group" in hm.error
    assert (hm.group_index, hm.view_state, hm.note) == before and hm.focus is None
    with pytest.raises(MetadataError, match="no count data for lead rank 7"):
        hm.show_calls([0], lead_rank=7)


def test_the_explorer_shows_each_sites_ranks(linked):
    _, sites, _, _, _ = linked
    ex = pw.CalltreeExplorer(sites, glyph_metric="bytes_sent (inc)")
    table = sites.metadata["call_sites"]
    heaviest = int(table.loc[int(table["bytes_sent"].idxmax()), "node"])
    ex.reveal([heaviest])
    assert ex.selected_nodes == [heaviest] and ex.glyph  # the rank glyphs of a frame with ranks
    per_rank = sites.dataframe.loc[heaviest, "bytes_sent"]
    assert ex.details["title"].startswith("MPI_Alltoallv: bytes_sent (inc) on its 160 ranks")
    first = int(re.match(r"rank (\d+): ", ex.details["lines"][0])[1])
    assert per_rank.loc[first] == per_rank.max()  # the largest first (10 ranks tie here)
