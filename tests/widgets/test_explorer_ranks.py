"""Issue 28 in the explorer, without a browser: GAMESS read per profile (16 ranks, 8 of
them with 4 threads) shows nested values, an excess column (max - mean, in seconds) and
the imbalance, each header saying what is compared; the person can compare every thread.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.errors import ShapeError
from perfweave.widgets import CalltreeExplorer
from perfweave.widgets._transport import unpack

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def gamess(data_dir):
    return pw.read(str(data_dir / "hatchet-more/hpctoolkit-gamess"), per_profile=True)


def _glyph_rows(ex: CalltreeExplorer) -> dict:
    payload, buffers = ex._on_rows(0, 1000)
    return unpack(payload["rows"]["columns"], buffers)


def test_values_nest_and_the_imbalance_compares_ranks_with_threads_summed(gamess):
    ex = CalltreeExplorer(gamess)
    by_key = {c["key"]: c for c in ex.columns}
    excess = by_key["time (inc).excess"]
    assert excess["label"] == "time (inc) excess (ranks, threads summed)"
    assert excess["kind"] == "excess" and excess["unit"] == "s"
    ratio = by_key["time (inc).imbalance"]
    assert ratio["label"] == "time (inc) imbalance (ranks, threads summed)"
    assert ex.glyph["what"] == "ranks" and ex.glyph["profiles"] == [f"rank {r}" for r in range(16)]
    ex.expand(0, subtree=True)
    rows = ex.visible_rows().set_index("node")
    # the cells are node_values (the tree's numbers): no node above its parent
    values = gamess.node_values("time (inc)")["time (inc)"]
    np.testing.assert_allclose(rows["time (inc)"], values.loc[rows.index], equal_nan=True)
    parent = np.asarray(gamess.graph.parent)[rows.index]
    shown = rows.index[parent >= 0]
    child, above = rows.loc[shown, "time (inc)"], values.loc[parent[parent >= 0]]
    assert child.notna().sum() > 10_000 and not above[child.notna().to_numpy()].isna().any()
    assert not (child.to_numpy() > above.to_numpy() * (1 + 1e-12)).any()
    # the excess and imbalance are load_imbalance's over ranks, threads summed
    li = gamess.load_imbalance("time (inc)").dataframe
    want = li["time (inc).excess"].reindex(rows.index)
    np.testing.assert_allclose(rows["time (inc).excess"], want, equal_nan=True)
    per_rank = gamess.dataframe["time (inc)"].groupby(level=["node", "rank"]).sum()
    entry = per_rank.loc[0]
    assert rows.loc[0, "time (inc).excess"] == pytest.approx(entry.max() - entry.mean())
    # the glyph's points are each rank's threads summed
    cols = _glyph_rows(ex)
    assert cols["strip"].shape[1] == 16
    assert cols["quartiles"][0, 4] == pytest.approx(entry.max())
    ex.select(0)
    title = ex.details["title"]
    assert title.startswith("entry: time (inc) on its 16 ranks, threads summed, largest first")
    assert "excess" in title and "efficiency" in title


def test_every_thread_can_be_compared_instead(gamess):
    ex = CalltreeExplorer(gamess, across="threads")
    labels = {c["key"]: c["label"] for c in ex.columns}
    assert labels["time (inc).excess"] == "time (inc) excess (every thread)"
    assert len(ex.glyph["profiles"]) == 40 and ex.glyph["profiles"][1] == "rank 0, thread 1"
    every = gamess.load_imbalance("time (inc)", across="threads").dataframe
    ex.set_across("ranks")
    assert ex.columns[-1]["label"] == "time (inc) imbalance (ranks, threads summed)"
    ex.set_across("threads")
    rows = ex.visible_rows().set_index("node")
    np.testing.assert_allclose(
        rows["time (inc).excess"], every.loc[rows.index, "time (inc).excess"]
    )
    # the main threads beside idle helper threads: every thread reads as far more imbalanced
    assert every.loc[0, "time (inc).imbalance"] > 2
    assert gamess.load_imbalance("time (inc)").dataframe.loc[0, "time (inc).imbalance"] < 1.05


def test_a_bad_choice_is_refused_and_the_view_stays(gamess):
    ex = CalltreeExplorer(gamess)
    before = [c["label"] for c in ex.columns]
    with pytest.raises(ShapeError, match="across='rank'"):
        ex.set_across("rank")
    assert "across='rank'" in ex.error and [c["label"] for c in ex.columns] == before
    threads_only = gamess._derive(gamess.graph, gamess.dataframe.xs(0, level="rank"))
    with pytest.raises(ShapeError, match="no rank level"):
        CalltreeExplorer(threads_only, across="ranks")
    view = CalltreeExplorer(threads_only)
    assert view.columns[-1]["label"] == "time (inc) imbalance (threads)"


def test_sorting_by_the_excess_puts_the_lost_time_first(gamess):
    """Issue 28, part 3: by max / mean, tiny MPI lines (0.3 ms mean, 16x) come first; by the
    excess, where ranks lose tens of seconds."""
    li = gamess.load_imbalance("time").dataframe
    by_ratio = li["time.imbalance"].idxmax()
    by_excess = li["time.excess"].idxmax()
    assert li.loc[by_ratio, "time.excess"] < 1e-3 * li.loc[by_excess, "time.excess"]
    ex = CalltreeExplorer(gamess, metrics=["time"])
    ex.sort_by("time.excess")
    ex.expand(0, subtree=True)
    shown = ex.visible_rows()
    for parent in shown.loc[shown["expanded"], "node"]:
        kids = shown[shown["node"].isin(gamess.graph.children_of(parent))]["time.excess"]
        assert list(kids.dropna()) == sorted(kids.dropna(), reverse=True)
    assert isinstance(shown, pd.DataFrame)
