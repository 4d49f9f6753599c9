"""The explorer's filter box takes Hatchet's call-path queries (the string dialect)."""

from __future__ import annotations

import glob

import pandas as pd
import pytest

import perfweave as pw
from perfweave.errors import QueryError
from perfweave.widgets import CalltreeExplorer, replay

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

QUERY = 'MATCH (".", p)->("*")->(".", q) WHERE p."name" = "main" AND q."name" STARTS WITH "Calc"'


@pytest.fixture(scope="module")
def lulesh(data_dir):
    gf = pw.read(str(data_dir / "hatchet/caliper-lulesh-json/lulesh-annotation-profile.json"))
    return gf.drop_index_levels()


def test_match_query_in_the_filter_box(lulesh):
    ex = CalltreeExplorer(lulesh)
    ex.filter(QUERY)
    expected = lulesh.filter(QUERY)
    assert ex.error == ""
    assert ex.graphframe.graph == expected.graph
    pd.testing.assert_frame_equal(ex.graphframe.dataframe, expected.dataframe)
    # main and the paths from it to the first Calc* node of each branch
    graph = ex.graphframe.graph
    leaves = [graph.frame(i)["name"] for i in range(len(graph)) if not len(graph.children_of(i))]
    assert graph.frame(graph.root_ids[0])["name"] == "main" and len(graph) > 2
    assert all(n.startswith("Calc") for n in leaves)
    assert not any(
        n.startswith("Calc") for n in graph.frames["name"][graph.parent[graph.parent >= 0]]
    )
    again = replay(lulesh, ex.history)
    assert again.graph == ex.graphframe.graph
    assert ex.history_labels == [f"filter {QUERY}"]


def test_match_query_on_an_ensemble_uses_any_profile(data_dir):
    files = sorted(glob.glob(str(data_dir / "thicket/mpi_scaling_cali/*.cali")))
    ens = pw.Ensemble.from_files(files)
    metric = (ens.inc_metrics + ens.exc_metrics)[0]
    query = f'MATCH ("*", p) WHERE p."{metric}" > 1.0'
    ex = CalltreeExplorer(ens)
    ex.filter(query)
    assert ex.error == ""
    expected = ens.query(query, multi_index_mode="any")
    assert ex.graphframe.graph == expected.graph


def test_bad_match_query_shows_the_token_and_keeps_the_view(lulesh):
    ex = CalltreeExplorer(lulesh)
    before = ex.visible_rows()
    bad = 'MATCH (".", p) WHER p."name" = "main"'
    with pytest.raises(QueryError, match=f"position {bad.index('WHER')}, found 'WHER'"):
        ex.filter(bad)
    assert f"position {bad.index('WHER')}" in ex.error and "WHERE" in ex.error
    pd.testing.assert_frame_equal(ex.visible_rows(), before)
