"""Ensemble.query / Ensemble.filter with call-path queries against Thicket's ``query``.

The same .cali files are read by both libraries; nodes compare by call path (names from
the root). Predicates on data decide a node over its profiles' rows with
``multi_index_mode`` ``any`` or ``all``, as in Thicket.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from perfweave.calltree.path_query import PathQuery
from perfweave.ensemble import Ensemble
from perfweave.errors import QueryError

pytestmark = pytest.mark.peer("thicket")


def _paths(graph):
    names = graph.frames["name"].tolist()
    out = []
    for i, p in enumerate(graph.parent):
        out.append((*out[p], names[i]) if p >= 0 else (names[i],))
    return out


def _our_paths(ens) -> list[tuple]:
    paths = _paths(ens.graph)
    return sorted({paths[i] for i in ens.dataframe.index.get_level_values("node")})


def _their_paths(th) -> list[tuple]:
    nodes = th.dataframe.index.get_level_values("node")
    return sorted({tuple(n.frame["name"] for n in node.path()) for node in nodes})


@pytest.fixture(scope="module", params=["quartz", "mpi_scaling"])
def pair(request, quartz_files, mpi_files):
    warnings.simplefilter("ignore")
    import thicket

    files = quartz_files if request.param == "quartz" else mpi_files
    return Ensemble.from_files(files), thicket.Thicket.from_caliperreader(files, disable_tqdm=True)


def _queries(ens):
    metric = (ens.inc_metrics + ens.exc_metrics)[0]
    cut = float(np.nanmedian(ens.dataframe[metric].to_numpy(float)))
    depth = ens.graph.depth
    first = ens.graph.frames["name"][depth == (1 if (depth == 1).any() else 0)].iloc[0]
    return [
        [{metric: f"> {cut!r}"}, "*"],
        ["*", {metric: f">= {cut!r}"}],
        [("+", {"name": ".*"}), {metric: f"<= {cut!r}"}],
        f'MATCH (".", p)->("*", q) WHERE p."{metric}" >= 0 AND q."{metric}" > {cut!r}',
        f'MATCH ("*", p) WHERE p."{metric}" < {cut!r} AND p."{metric}" IS NOT NAN',
        # names are a categorical column here (an object column in Thicket)
        f'MATCH (".", p)->("*") WHERE p."name" STARTS WITH "{first[:4]}"',
        f'MATCH ("*")->(".", p) WHERE p."name" CONTAINS "{first[1:3]}" OR p."{metric}" > {cut!r}',
    ]


@pytest.mark.parametrize("mode", ["any", "all"])
def test_query_keeps_the_nodes_thicket_keeps(pair, mode):
    ens, th = pair
    for query in _queries(ens):
        theirs = th.query(query, squash=False, multi_index_mode=mode)
        ours = ens.query(query, squash=False, multi_index_mode=mode)
        assert _our_paths(ours) == _their_paths(theirs), query
        assert len(ours.dataframe) == len(theirs.dataframe)


def test_query_squashes_like_thicket(pair):
    ens, th = pair
    query = _queries(ens)[0]
    theirs = th.query(query, multi_index_mode="any")
    ours = ens.query(query, multi_index_mode="any")
    assert sorted(_paths(ours.graph)) == sorted(
        tuple(n.frame["name"] for n in node.path()) for node in theirs.graph.traverse()
    )
    metric = (ens.inc_metrics + ens.exc_metrics)[0]
    a = ours.dataframe[metric].groupby(level="node").sum().to_numpy()
    b = theirs.dataframe[metric].groupby(level="node").sum()
    assert np.sort(a) == pytest.approx(np.sort(b.to_numpy()))
    # the statistics table follows the new graph
    assert len(ours.statsframe) == len(ours.graph)


def test_filter_and_query_objects_agree(pair):
    ens, _ = pair
    text = _queries(ens)[3]
    a = ens.query(text, multi_index_mode="all")
    b = ens.filter(PathQuery(text, multi_index_mode="all"))
    assert a.graph == b.graph
    pd.testing.assert_frame_equal(a.dataframe, b.dataframe)
    with pytest.raises(QueryError, match="multi_index_mode='any'"):
        ens.query(text)


def test_hatchet_query_objects_on_ensembles(pair):
    from hatchet.query import ObjectQuery, parse_string_dialect

    ens, th = pair
    queries = _queries(ens)
    for q in (ObjectQuery(queries[0], "all"), parse_string_dialect(queries[4], "any")):
        assert _our_paths(ens.query(q, squash=False)) == _their_paths(th.query(q, squash=False))
