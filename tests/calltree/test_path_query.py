"""Call-path queries (Hatchet's query language) on small trees whose answers follow from
the language's rules, the string-dialect parser, compound queries and bad input."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree.path_query import (
    ConjunctionQuery,
    NegationQuery,
    PathQuery,
    is_path_query,
    path_query,
)
from perfweave.errors import QueryError


def _node(name, time, children=()):
    inc = time + sum(c["metrics"]["time (inc)"] for c in children)
    return {
        "frame": {"name": name, "type": "function"},
        "metrics": {"time": float(time), "time (inc)": float(inc)},
        "children": list(children),
    }


@pytest.fixture(scope="module")
def gf():
    """main(1) -> MPI_Init(2), solve(1) -> [MPI_Send(4), compute(8) -> MPI_Recv(3)],
    MPI_Finalize(0.5)."""
    tree = _node(
        "main",
        1,
        [
            _node("MPI_Init", 2),
            _node("solve", 1, [_node("MPI_Send", 4), _node("compute", 8, [_node("MPI_Recv", 3)])]),
            _node("MPI_Finalize", 0.5),
        ],
    )
    return pw.GraphFrame.from_literal([tree])


def names(gf, query, **kw) -> list[str]:
    keep = path_query(query, **kw).node_mask(gf)
    return sorted(gf.graph.frames["name"][keep])


ALL = ["MPI_Finalize", "MPI_Init", "MPI_Recv", "MPI_Send", "compute", "main", "solve"]


def test_object_dialect_paths(gf):
    # a node and everything below it
    assert names(gf, [{"name": "solve"}, "*"]) == ["MPI_Recv", "MPI_Send", "compute", "solve"]
    # exactly one step down
    assert names(gf, [{"name": "solve"}, {"name": "MPI_.*"}]) == ["MPI_Send", "solve"]
    # "*" in the middle keeps every node on the way
    assert names(gf, [{"name": "main"}, "*", {"name": "MPI_Recv"}]) == [
        "MPI_Recv",
        "compute",
        "main",
        "solve",
    ]
    # a "*" stops at the first node of the next step: every MPI call under main, and the
    # nodes leading to them, is every node here
    assert names(gf, [{"name": "main"}, "*", {"name": "MPI_.*"}]) == ALL
    # ... and never walks through such a node: compute, below solve, is not reached
    assert names(gf, [{"name": "main"}, "*", {"name": "solve|compute"}]) == ["main", "solve"]
    # "+" needs at least one node; 2 means exactly two
    assert names(gf, [{"name": "main"}, ("+", {"time": "> 0.9"}), {"name": "MPI_Recv"}]) == [
        "MPI_Recv",
        "compute",
        "main",
        "solve",
    ]
    assert names(gf, [{"name": "main"}, 2]) == ["MPI_Send", "compute", "main", "solve"]
    # a leading "*" lets the match start anywhere above
    assert names(gf, ["*", {"name": "compute"}]) == ["compute", "main", "solve"]
    # a regex matches the whole value; numbers compare; depth reads the graph
    assert names(gf, [{"name": "MPI"}]) == []
    assert names(gf, [{"time (inc)": ">= 15"}]) == ["main", "solve"]
    assert names(gf, [{"depth": 2}]) == ["MPI_Send", "compute"]
    assert names(gf, [{"depth": -1, "name": "MPI_.*"}]) == [n for n in ALL if n.startswith("MPI")]
    assert names(gf, [{"name": ["MPI_.*", ".*_Se.*"]}]) == ["MPI_Send"]
    assert names(gf, [{"no such column": "x"}]) == []


def test_string_dialect_matches_object_dialect(gf):
    pairs = [
        ('MATCH (".", p)->("*") WHERE p."name" = "solve"', [{"name": "solve"}, "*"]),
        (
            'MATCH (".", p)->("*")->(".", q) WHERE p."name" = "main" AND q."name" STARTS WITH "MPI"',
            [{"name": "main"}, "*", {"name": "MPI.*"}],
        ),
        ('MATCH ("+", p) WHERE p."time" > 0.9', [("+", {"time": "> 0.9"})]),
        ('MATCH (2)->(".", p) WHERE p IS LEAF', [2, {"depth": -1}]),
        ('MATCH ("*")->(".", p) WHERE p."name" =~ "comp"', ["*", {"name": "comp.*"}]),
    ]
    for text, obj in pairs:
        assert names(gf, text) == names(gf, obj), text


def test_string_dialect_operators(gf):
    assert names(gf, 'MATCH (".", p) WHERE p."name" ENDS WITH "nd"') == ["MPI_Send"]
    assert names(gf, 'MATCH (".", p) WHERE p."name" CONTAINS "_F"') == ["MPI_Finalize"]
    assert names(gf, 'MATCH (".", p) WHERE NOT p."name" STARTS WITH "MPI"') == [
        "compute",
        "main",
        "solve",
    ]
    # AND binds tighter than OR
    q = 'MATCH (".", p) WHERE p."time" >= 4 AND p."time" < 5 OR p."name" = "main"'
    assert names(gf, q) == ["MPI_Send", "main"]
    assert names(gf, 'MATCH (".", p) WHERE p IS NOT LEAF') == ["compute", "main", "solve"]
    assert names(gf, 'MATCH (".", p) WHERE p."depth" = 1 AND p."time" <= 1') == [
        "MPI_Finalize",
        "solve",
    ]
    assert names(gf, 'MATCH (".", p) WHERE p."time" IS NAN') == []
    assert names(gf, 'MATCH (".", p) WHERE p."time" IS NOT INF') == ALL


def test_compound_queries(gf):
    a = PathQuery([{"name": "solve"}, "*"])
    b = PathQuery(["*", {"name": "MPI_Recv"}])
    sub_a, sub_b = set(names(gf, a)), set(names(gf, b))
    assert set(names(gf, a & b)) == sub_a & sub_b
    assert set(names(gf, a | b)) == sub_a | sub_b
    assert set(names(gf, a ^ b)) == sub_a ^ sub_b
    assert set(names(gf, ~a)) == set(ALL) - sub_a
    assert names(gf, ConjunctionQuery([{"name": "solve"}, "*"], b)) == names(gf, a & b)
    assert names(gf, NegationQuery(a)) == names(gf, ~a)
    braced = (
        '{MATCH (".", p)->("*") WHERE p."name" = "solve"} AND '
        '{MATCH ("*")->(".", q) WHERE q."name" = "MPI_Recv"}'
    )
    assert names(gf, braced) == names(gf, a & b)
    where = 'MATCH (".", p) WHERE {p."time" > 3} OR {p."name" = "main"}'
    assert names(gf, where) == ["MPI_Send", "compute", "main"]


def test_public_names():
    assert pw.PathQuery is PathQuery and pw.path_query is path_query
    assert pw.calltree.PathQuery is PathQuery


def test_builder_and_callable_predicates(gf):
    q = PathQuery().match(".", lambda row: row["name"] == "solve").rel("*")
    assert names(gf, q) == names(gf, [{"name": "solve"}, "*"])
    q2 = PathQuery().match(".", {"name": "main"}).rel(".", {"time": "> 5"})
    assert names(gf, q2) == []  # no child of main has exclusive time above 5
    assert len(q) == 2
    # the row is named by its node, as in Hatchet; per-row-only predicates (`and`) work too
    by_depth = PathQuery().match(".", lambda row: row.name._depth == 1 and row["time"] < 2)
    assert names(gf, by_depth) == names(gf, [{"depth": 1, "time": "< 2"}])
    assert names(gf, by_depth) == ["MPI_Finalize", "solve"]


def test_filter_accepts_path_queries_and_squashes(gf):
    out = gf.filter([{"name": "main"}, "*", {"name": "MPI_Recv"}])
    assert sorted(out.graph.frames["name"]) == ["MPI_Recv", "compute", "main", "solve"]
    # inclusive times are recomputed over the kept nodes (as Hatchet's squash does)
    inc = dict(zip(out.dataframe["name"], out.dataframe["time (inc)"]))
    assert inc["main"] == 1 + 1 + 8 + 3 and inc["compute"] == 8 + 3
    text = gf.filter(
        'MATCH (".", a)->("*")->(".", b) WHERE a."name" = "main" AND b."name" = "MPI_Recv"'
    )
    assert text.graph == out.graph
    kept = gf.filter(PathQuery([{"name": "solve"}, "*"]), squash=False)
    assert kept.graph is gf.graph and len(kept.dataframe) == 4
    # the ordinary row queries still work
    assert len(gf.filter("time > 2", squash=False).dataframe) == 3
    assert is_path_query('  MATCH ("*")') and not is_path_query("MATCHES > 3")
    assert not is_path_query([True, False])


def _ranked(gf):
    """Two ranks: rank 1 has ten times rank 0's time."""
    df = gf.dataframe.reset_index()
    both = pd.concat([df.assign(rank=0), df.assign(rank=1, time=df["time"] * 10)])
    both = both.set_index(["node", "rank"]).sort_index()
    return pw.GraphFrame(gf.graph, both, gf.exc_metrics, gf.inc_metrics)


def test_multi_index_modes(gf):
    ranked = _ranked(gf)
    q = [{"time": "> 5"}]
    # any rank above 5: rank 1 has 10, 20, 10, 40, 80, 30, 5 -> all but MPI_Finalize (5)
    assert names(ranked, q, multi_index_mode="any") == sorted(set(ALL) - {"MPI_Finalize"})
    # every rank above 5: only compute (8 and 80)
    assert names(ranked, q, multi_index_mode="all") == ["compute"]
    s = 'MATCH (".", p) WHERE p."time" > 5'
    assert names(ranked, s, multi_index_mode="all") == ["compute"]
    with pytest.raises(QueryError, match="multi_index_mode='any'"):
        names(ranked, q)
    # predicates on the graph alone need no mode
    # (solve -> compute -> MPI_Recv is the only path three deep below depth 1)
    assert names(ranked, [{"depth": 1}, ".", {"depth": "> 1"}]) == ["MPI_Recv", "compute", "solve"]
    # (MPI_Send is the one leaf at depth 2; the leading "*" keeps its ancestors)
    assert names(ranked, 'MATCH ("*")->(".", p) WHERE p IS LEAF AND p."depth" = 2') == [
        "MPI_Send",
        "main",
        "solve",
    ]
    assert names(ranked, [{"name": "solve"}, "*"], multi_index_mode="any") == names(
        gf, [{"name": "solve"}, "*"]
    )
    out = ranked.filter(q, multi_index_mode="all", squash=False)
    assert set(out.dataframe["name"]) == {"compute"} and len(out.dataframe) == 2


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ('MATCH (".", p) WHERE p."name" STARTS "x"', "'WITH' at position 37, found '\"x\"'"),
        ('MATCH (".", p) WHERE q."name" = "x"', "names 'q'"),
        ('MATCH ("?", p)', 'quantifier "\\?" at position 7'),
        ('MATCH (".", p) WHERE p."time" > "x"', "a number after '>' at position 32"),
        ('MATCH (".", p) WHERE p."name" =~ 3', "a quoted regex"),
        ('MATCH (".", p) WHERE p.name = "x"', "a quoted metric name .* position 23"),
        ('MATCH (".", p)->', "at the end"),
        ('MATCH (".", p) WHERE p."name" = \'x\' $', "unexpected character '\\$' at position 36"),
        ('MATCH (".", p) WHERE p."name" > 3', "needs numbers"),
        ('MATCH (".", p) WHERE p."time" STARTS WITH "x"', "needs strings"),
    ],
)
def test_bad_string_queries_name_token_and_position(gf, query, message):
    with pytest.raises(QueryError, match=message):
        path_query(query).node_mask(gf)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ([{"name": "x"}, "?"], r"element 1 \('\?'\)"),
        ([{"time": "about 5"}], "key 'time'.*give a number or a string starting"),
        ([{"time": "> five"}], "'> five' is not a comparison"),
        ([{"name": 5}], "holds strings; give a regex"),
        ([{"name": "("}], "not a valid regex"),
        ([("*", "main")], "needs a dict"),
        ([{"name": "x"}, 1.5], "element 1"),
        ([], "no steps"),
    ],
)
def test_bad_object_queries(gf, query, message):
    with pytest.raises(QueryError, match=message):
        path_query(query).node_mask(gf)


def test_nullable_columns(gf):
    nullable = gf.copy()
    df = nullable.dataframe.copy()
    df["calls"] = pd.array([1, None, 3, 4, None, 6, 7], dtype="Int64")
    nullable.dataframe = df
    want = sorted(df["name"][df["calls"].fillna(0).to_numpy() > 3])
    assert names(nullable, [{"calls": "> 3"}]) == want
    assert names(nullable, 'MATCH (".", p) WHERE p."calls" > 3') == want
    assert len(names(nullable, 'MATCH (".", p) WHERE p."calls" IS NAN')) == 2


def test_user_strings_are_never_evaluated(gf):
    marker = Path(tempfile.mkdtemp()) / "ran"
    evil = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    for q in (
        [{"time": f"> 1 or {evil}"}],
        [{"name": evil}],
        f'MATCH (".", p) WHERE p."name" = "{evil}"',
        f'MATCH (".", p) WHERE p."name" =~ "{evil}"',
    ):
        with contextlib.suppress(QueryError):
            path_query(q).node_mask(gf)
    assert not marker.exists()


def test_filter_errors_keep_the_frame(gf):
    before = gf.dataframe.copy()
    with pytest.raises(QueryError, match="matched no rows"):
        gf.filter([{"name": "nothing"}])
    with pytest.raises(QueryError, match="a number or a quoted string after '=' at the end"):
        gf.filter('MATCH (".", p) WHERE p."name" = ')
    pd.testing.assert_frame_equal(gf.dataframe, before)


def test_dag_paths():
    # a -> b -> d, a -> c -> d: d is reached along two paths
    g = pw.Graph.from_edges(
        [{"name": n, "type": "function"} for n in "abcd"], [0, 0, 1, 2], [1, 2, 3, 3]
    )
    gf = pw.GraphFrame._zeros(g)
    assert names(gf, [{"name": "a"}, {"name": "c"}, {"name": "d"}]) == ["a", "c", "d"]
    assert names(gf, ["*", {"name": "d"}]) == ["a", "b", "c", "d"]
    assert np.array_equal(
        path_query([{"name": "b"}, "*"]).nodes(gf),
        np.flatnonzero(g.frames["name"].isin(["b", "d"])),
    )
