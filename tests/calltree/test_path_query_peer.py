"""Call-path queries against llnl-hatchet's QueryEngine and GraphFrame.filter.

Both libraries query the same graph: perfweave's frame converted with ``to_hatchet`` keeps
node ids (Hatchet's ``_hatchet_nid``), so the matched node sets compare exactly. Real
profiles come from tests/data/hatchet (every format of the peer-ops conformance test),
random trees and DAGs from hypothesis. Hatchet bugs avoided by the queries here (each
named variable gets a condition; ``IS LEAF`` is not a step's first condition; braced
compounds are not run on multi-indexed frames, where Hatchet drops ``multi_index_mode``).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import perfweave as pw
from perfweave.calltree.path_query import PathQuery, path_query
from tests.calltree._peer import assert_same
from tests.calltree.test_peer_ops import DATA, IDS, PRESENT

pytestmark = [pytest.mark.peer, pytest.mark.filterwarnings("ignore")]


def _hatchet_nodes(hgf, query, mode):
    from hatchet.query import ObjectQuery, QueryEngine, parse_string_dialect

    if isinstance(query, list):
        query = ObjectQuery(query, mode)
    elif isinstance(query, str):
        query = parse_string_dialect(query, mode)
    return sorted(n._hatchet_nid for n in QueryEngine().apply(query, hgf.graph, hgf.dataframe))


def _real_queries(gf):
    df = gf.dataframe
    metric = next(
        m for m in gf.exc_metrics + gf.inc_metrics if np.issubdtype(df[m].dtype, np.number)
    )
    cut = float(np.nanmedian(df[metric].to_numpy(float)))
    names = df["name"].astype(str)
    depth = gf.graph.depth[gf.node_ids()]
    top = names[depth == 1].iloc[0] if (depth == 1).any() else names.iloc[0]
    deep = names[depth == depth.max()].iloc[0]
    pre = top[:3]
    obj = [
        [{"name": re.escape(top)}, "*"],
        ["*", {"name": ".*" + re.escape(deep[-3:])}],
        [("+", {metric: f"> {cut!r}"}), {"name": ".*"}],
        [".", "*", {metric: f"> {cut!r}"}],
        [{"name": re.escape(top)}, 2, ("*", {metric: f">= {cut!r}"})],
        [("*", {metric: f"> {cut!r}"}), ("+", {"name": ".*"}), "*"],
        [{"depth": "< 2"}, ".", {"name": ".*", metric: f"<= {cut!r}"}],
    ]
    text = [
        f'MATCH (".", p)->("*", q) WHERE p."name" STARTS WITH "{pre}" AND q."{metric}" > {cut!r}',
        f'MATCH ("*", p)->(".", q) WHERE p."{metric}" >= 0 AND q."{metric}" >= {cut!r} OR q IS LEAF',
        f'MATCH ("+", p) WHERE p."name" =~ "{re.escape(pre)}" OR NOT p."{metric}" < {cut!r}',
        f'MATCH (p)->(2, q)->("*") WHERE p."name" CONTAINS "{pre[1:]}" AND q."{metric}" IS NOT NAN',
        f'MATCH (".", p)->(".", q) WHERE p."depth" <= 1 AND q."{metric}" > {cut!r}',
    ]
    braced = [
        f'{{MATCH (".", p)->("*") WHERE p."name" ENDS WITH "{top[-2:]}"}} XOR '
        f'{{MATCH ("*")->(".", q) WHERE q."{metric}" > {cut!r}}}',
        f'MATCH ("*", p)->(".", q) WHERE {{p."{metric}" > {cut!r} AND q."name" =~ "{pre}"}} '
        f'OR {{p."depth" < 2 AND q IS LEAF}}',
    ]
    return metric, cut, obj, text, braced


@pytest.mark.parametrize("case", PRESENT, ids=IDS)
def test_real_profiles_match_hatchet(case):
    fmt, rel, _, options = case
    ours = pw.read(DATA + rel, format=fmt, **options)
    theirs = ours.to_hatchet()
    metric, cut, obj, text, braced = _real_queries(ours)
    modes = ["any", "all"] if ours.index_levels else ["off"]
    queries = obj + text + (braced if not ours.index_levels else [])
    compared = 0
    for query in queries:
        for mode in modes:
            want = _hatchet_nodes(theirs, query, mode)
            got = path_query(query, mode).nodes(ours).tolist()
            assert got == want, (query, mode)
            compared += bool(want)
    assert compared >= len(queries) // 2  # most queries match something here
    # compound query objects, as Hatchet's ConjunctionQuery & co.
    from hatchet.query import ObjectQuery, QueryEngine

    a, b = obj[0], obj[2]
    mode = modes[0]
    pa, pb = PathQuery(a, mode), PathQuery(b, mode)
    ha, hb = ObjectQuery(a, mode), ObjectQuery(b, mode)
    for ours_q, theirs_q in ((pa & pb, ha & hb), (pa | pb, ha | hb), (pa ^ pb, ha ^ hb)):
        want = sorted(
            n._hatchet_nid for n in QueryEngine().apply(theirs_q, theirs.graph, theirs.dataframe)
        )
        assert ours_q.nodes(ours).tolist() == want


FILTER_CASES = [c for c in PRESENT if c[0] in ("pyinstrument", "caliper", "gprof-dot")]


@pytest.mark.parametrize("case", FILTER_CASES, ids=[c[1].split("/")[0] for c in FILTER_CASES])
def test_filter_and_squash_match_hatchet(case):
    fmt, rel, _, options = case
    ours = pw.read(DATA + rel, format=fmt, **options)
    theirs = ours.to_hatchet()
    metric, cut, obj, text, _ = _real_queries(ours)
    metrics = sorted(set(ours.exc_metrics + ours.inc_metrics))
    mode = "any" if ours.index_levels else "off"
    for query in (obj[1], obj[2], text[0]):
        try:
            want = theirs.filter(query, num_procs=1, multi_index_mode=mode)
        except Exception as e:  # Hatchet's EmptyFilter: ours must refuse too
            assert type(e).__name__ == "EmptyFilter"
            with pytest.raises(pw.errors.QueryError, match="matched no rows"):
                ours.filter(query, multi_index_mode=mode)
            continue
        assert_same(ours.filter(query, multi_index_mode=mode), want, metrics)


# ---------------------------------------------------------------- random trees and DAGs
NAMES = ["main", "MPI_Send", "MPI_Recv", "solve", "foo"]


@st.composite
def frames(draw):
    n = draw(st.integers(1, 30))
    dag = draw(st.booleans())
    src, dst = [], []
    for i in range(1, n):
        k = draw(st.integers(1, 2)) if dag else 1
        for p in sorted(set(draw(st.lists(st.integers(0, i - 1), min_size=k, max_size=k)))):
            src.append(p)
            dst.append(i)
    names = draw(st.lists(st.sampled_from(NAMES), min_size=n, max_size=n))
    times = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    graph = pw.Graph.from_edges(
        [{"name": nm, "type": "function", "id": i} for i, nm in enumerate(names)], src, dst
    )
    gf = pw.GraphFrame._zeros(graph)
    gf.dataframe["time"] = np.asarray(times, float)[graph.frames["id"].to_numpy()]
    return gf


QUANTS = st.sampled_from([".", "*", "+", 2, ".", "*"])
PREDICATES = st.sampled_from(
    [
        {},
        {"name": "MPI_.*"},
        {"name": "main|solve"},
        {"time": "> 4"},
        {"time": "<= 2"},
        {"name": "foo", "time": ">= 1"},
        {"depth": "< 2"},
        {"depth": -1},
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gf=frames(), steps=st.lists(st.tuples(QUANTS, PREDICATES), min_size=1, max_size=4))
def test_random_object_queries_match_hatchet(gf, steps):
    warnings.simplefilter("ignore")
    query = [(q, p) if p else q for q, p in steps]
    theirs = gf.to_hatchet()
    assert path_query(query).nodes(gf).tolist() == _hatchet_nodes(theirs, query, "off")


CONDS = st.sampled_from(
    [
        '{v}."name" STARTS WITH "MPI"',
        '{v}."name" = "main"',
        '{v}."time" > 4',
        '{v}."time" <= 2',
        'NOT {v}."name" ENDS WITH "v"',
        '{v}."name" =~ "so"',
        '{v}."depth" < 2',
        '{v}."name" CONTAINS "o"',
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    gf=frames(),
    steps=st.lists(
        st.tuples(st.sampled_from(['"."', '"*"', '"+"', "2"]), CONDS, CONDS, st.booleans()),
        min_size=1,
        max_size=3,
    ),
)
def test_random_string_queries_match_hatchet(gf, steps):
    warnings.simplefilter("ignore")
    parts, where = [], []
    for i, (quant, c1, c2, use_or) in enumerate(steps):
        v = f"v{i}"
        parts.append(f"({quant}, {v})")
        where.append(f"{c1.format(v=v)} {'OR' if use_or else 'AND'} {c2.format(v=v)}")
    query = "MATCH " + "->".join(parts) + " WHERE " + " AND ".join(where)
    theirs = gf.to_hatchet()
    assert path_query(query).nodes(gf).tolist() == _hatchet_nodes(theirs, query, "off")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    gf=frames(),
    a=st.lists(st.tuples(QUANTS, PREDICATES), min_size=1, max_size=3),
    b=st.lists(st.tuples(QUANTS, PREDICATES), min_size=1, max_size=3),
    op=st.sampled_from(["and", "or", "xor", "not"]),
)
def test_random_compound_queries_match_hatchet(gf, a, b, op):
    from hatchet.query import ObjectQuery, QueryEngine

    warnings.simplefilter("ignore")
    qa, qb = ([(q, p) if p else q for q, p in s] for s in (a, b))
    ours_a, ours_b, theirs_a, theirs_b = (
        PathQuery(qa),
        PathQuery(qb),
        ObjectQuery(qa),
        ObjectQuery(qb),
    )
    ours = {"and": ours_a & ours_b, "or": ours_a | ours_b, "xor": ours_a ^ ours_b, "not": ~ours_a}
    theirs = {
        "and": theirs_a & theirs_b,
        "or": theirs_a | theirs_b,
        "xor": theirs_a ^ theirs_b,
        "not": ~theirs_a if hasattr(theirs_a, "__invert__") else None,
    }
    if theirs[op] is None:  # Hatchet binds __not__, which Python never calls for ~
        from hatchet.query import NegationQuery

        theirs[op] = NegationQuery(theirs_a)
    h = gf.to_hatchet()
    want = sorted(n._hatchet_nid for n in QueryEngine().apply(theirs[op], h.graph, h.dataframe))
    assert ours[op].nodes(gf).tolist() == want


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    gf=frames(),
    steps=st.lists(st.tuples(QUANTS, PREDICATES), min_size=1, max_size=3),
    mode=st.sampled_from(["any", "all"]),
    factor=st.lists(st.integers(0, 3), min_size=3, max_size=3),
)
def test_random_multi_rank_queries_match_hatchet(gf, steps, mode, factor):
    """Three ranks whose times are the rank-0 times scaled: any/all decide differently."""
    import pandas as pd

    warnings.simplefilter("ignore")
    df = gf.dataframe.reset_index()
    ranked = pd.concat([df.assign(rank=r, time=df["time"] * f) for r, f in enumerate(factor)])
    multi = pw.GraphFrame(gf.graph, ranked.set_index(["node", "rank"]).sort_index(), ["time"], [])
    query = [(q, p) if p else q for q, p in steps]
    want = _hatchet_nodes(multi.to_hatchet(), query, mode)
    assert path_query(query, mode).nodes(multi).tolist() == want


@pytest.mark.parametrize("case", FILTER_CASES, ids=[c[1].split("/")[0] for c in FILTER_CASES])
def test_hatchet_query_objects_are_accepted(case):
    from hatchet.query import ObjectQuery, Query, QueryEngine, parse_string_dialect

    fmt, rel, _, options = case
    ours = pw.read(DATA + rel, format=fmt, **options)
    theirs = ours.to_hatchet()
    metric, cut, obj, text, _ = _real_queries(ours)
    mode = "any" if ours.index_levels else "off"
    queries = [
        ObjectQuery(obj[0], mode),
        parse_string_dialect(text[0], mode),
        ObjectQuery(obj[2], mode) | ObjectQuery(obj[1], mode),
    ]
    # a callable step sees the node as the row's name (on a multi-index: in the rows'
    # node level), as in Hatchet
    if ours.index_levels:
        queries.append(
            Query().match(".", lambda rows: rows.index.get_level_values("node")[0]._depth <= 1)
        )
    else:
        queries.append(Query().match(".", lambda row: row.name._depth <= 1).rel("*"))
    for q in queries:
        want = sorted(
            n._hatchet_nid for n in QueryEngine().apply(q, theirs.graph, theirs.dataframe)
        )
        assert path_query(q).nodes(ours).tolist() == want, q
    assert ours.filter(queries[0]).graph == ours.filter(obj[0], multi_index_mode=mode).graph
