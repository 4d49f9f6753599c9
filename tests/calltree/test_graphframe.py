"""GraphFrame operations on small frames whose results are worked out by hand."""

import json

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree._build import build_graphframe
from perfweave.errors import ParseError, QueryError, ShapeError

LITERAL = [
    {
        "frame": {"name": "main", "type": "function"},
        "metrics": {"time": 1.0, "time (inc)": 16.0},
        "children": [
            {
                "frame": {"name": "solve", "type": "function"},
                "metrics": {"time": 2.0, "time (inc)": 12.0},
                "children": [
                    {
                        "frame": {"name": "MPI_Send", "type": "function"},
                        "metrics": {"time": 6.0, "time (inc)": 6.0},
                    },
                    {
                        "frame": {"name": "MPI_Recv", "type": "function"},
                        "metrics": {"time": 4.0, "time (inc)": 4.0},
                    },
                ],
            },
            {
                "frame": {"name": "io", "type": "function"},
                "metrics": {"time": 0.0, "time (inc)": 3.0},
                "children": [
                    {
                        "frame": {"name": "MPI_Send", "type": "function"},
                        "metrics": {"time": 3.0, "time (inc)": 3.0},
                    }
                ],
            },
        ],
    }
]


@pytest.fixture
def gf():
    return pw.GraphFrame.from_literal(LITERAL)


def by_name(gf, col="time"):
    return dict(zip(gf.dataframe["name"], gf.dataframe[col]))


def test_literal_reads_metrics_and_names(gf):
    assert len(gf.graph) == 6
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]
    assert gf.dataframe.index.names == ["node"]
    assert by_name(gf, "time (inc)")["main"] == 16.0


def test_filter_squash_merges_siblings_and_recomputes_inclusive(gf):
    mpi = gf.filter("name =~ '^MPI_'")
    # both MPI_Send nodes now hang off nothing: they become roots with equal frames and merge
    assert sorted(str(r) for r in mpi.graph.roots) == ["MPI_Recv", "MPI_Send"]
    assert by_name(mpi) == {"MPI_Recv": 4.0, "MPI_Send": 9.0}
    assert by_name(mpi, "time (inc)") == {"MPI_Recv": 4.0, "MPI_Send": 9.0}
    kept = gf.filter("name == 'main' or name =~ 'MPI'")
    assert [str(c) for c in kept.graph.roots[0].children] == ["MPI_Recv", "MPI_Send"]
    assert by_name(kept, "time (inc)")["main"] == 14.0


def test_filter_without_squash_keeps_the_graph(gf):
    out = gf.filter(lambda row: row["time"] >= 3, squash=False)
    assert out.graph is gf.graph
    assert sorted(out.dataframe["name"]) == ["MPI_Recv", "MPI_Send", "MPI_Send"]
    assert len(gf.dataframe) == 6  # the input is unchanged


def test_filter_forms_agree_and_errors_name_the_problem(gf):
    a = gf.filter(lambda r: r["time"] > 2.5)
    b = gf.filter("time > 2.5")
    c = gf.filter(gf.dataframe["time"].to_numpy() > 2.5)
    assert a.graph == b.graph == c.graph
    with pytest.raises(QueryError, match="no column 'tme'"):
        gf.filter("tme > 1")
    with pytest.raises(QueryError, match="at the end"):
        gf.filter("time > ")
    with pytest.raises(QueryError, match="position 7"):
        gf.filter("time > > 3")
    with pytest.raises(QueryError, match="matched no rows"):
        gf.filter("time > 1e9")
    with pytest.raises(QueryError, match="bad regular expression"):
        gf.filter("name =~ '('")
    # Hatchet's call-path queries: the object and string dialects keep the same rows
    obj = gf.filter([{"name": "main"}, "*"], squash=False)
    text = gf.filter('MATCH (".", p)->("*") WHERE p."name" = "main"', squash=False)
    assert obj.dataframe.equals(text.dataframe) and len(obj.dataframe) == len(gf.dataframe)
    with pytest.raises(QueryError, match=r"element 1 \('\?'\)"):
        gf.filter([{"name": "main"}, "?"])


def test_query_never_evaluates_python(gf):
    with pytest.raises(QueryError):
        gf.filter("__import__('os').system('true')")
    assert len(gf.filter("`time (inc)` >= 12 and not name == 'solve'").dataframe) >= 1


def test_update_inclusive_columns_per_rank_and_nan():
    frames = [{"name": n} for n in ("a", "b", "c")]
    data = pd.DataFrame(
        {
            "node": [0, 0, 1, 1, 2],
            "rank": [0, 1, 0, 1, 1],
            "time": [1.0, 10.0, 2.0, 20.0, 300.0],
        }
    )
    gf = build_graphframe(frames, data, parent=[-1, 0, 1], exc_metrics=["time"])
    gf.update_inclusive_columns()
    inc = gf.dataframe["time (inc)"]
    assert inc.loc[(0, 0)] == 3.0 and inc.loc[(0, 1)] == 330.0 and inc.loc[(1, 1)] == 320.0
    assert gf.inc_metrics == ["time (inc)"]
    gf.drop_index_levels()
    assert gf.dataframe.index.names == ["node"]
    assert gf.dataframe.loc[0, "time"] == 5.5
    gf2 = build_graphframe(frames, data, parent=[-1, 0, 1], exc_metrics=["time"]).drop_index_levels(
        np.sum
    )
    assert gf2.dataframe["time"].tolist() == [11.0, 22.0, 300.0]


def test_inclusive_in_a_dag_counts_shared_descendants_once():
    frames = [{"name": n} for n in ("a", "b", "c", "d")]
    data = pd.DataFrame({"node": [0, 1, 2, 3], "time": [1.0, 2.0, 4.0, 8.0]})
    gf = build_graphframe(frames, data, edges=([0, 0, 1, 2], [1, 2, 3, 3]), exc_metrics=["time"])
    gf.update_inclusive_columns()
    assert by_name(gf, "time (inc)") == {"a": 15.0, "b": 10.0, "c": 12.0, "d": 8.0}


def test_arithmetic_counts_missing_nodes_as_zero(gf):
    part = gf.filter("name =~ 'MPI|main'", squash=False)
    total = gf + part
    assert total.graph is gf.graph
    assert by_name(total)["main"] == 2.0 and by_name(total)["io"] == 0.0
    other = pw.GraphFrame.from_literal(
        [
            {
                "frame": {"name": "main", "type": "function"},
                "metrics": {"time": 5.0, "time (inc)": 7.0},
                "children": [
                    {
                        "frame": {"name": "new", "type": "function"},
                        "metrics": {"time": 2.0, "time (inc)": 2.0},
                    }
                ],
            }
        ]
    )
    s, d = gf + other, gf - other
    assert len(s.graph) == 7
    assert by_name(s)["main"] == 6.0 and by_name(s)["new"] == 2.0 and by_name(s)["solve"] == 2.0
    assert by_name(d)["main"] == -4.0 and by_name(d)["new"] == -2.0
    assert np.isnan(by_name(gf * other)["new"]) and by_name(gf * other)["main"] == 5.0
    back = (gf + other) - other
    for name, t in by_name(gf).items():
        assert by_name(back)[name] == pytest.approx(t)
    before = gf.dataframe.copy()
    gf += other
    assert len(gf.graph) == 7 and by_name(gf)["main"] == 6.0
    assert by_name(other)["main"] == 5.0 and len(before) == 6


def test_arithmetic_with_different_metrics_is_a_shape_error(gf):
    other = gf.copy()
    other.dataframe = other.dataframe.assign(bytes=1.0)
    other.exc_metrics = ["time", "bytes"]
    snapshot = gf.dataframe.copy()
    with pytest.raises(ShapeError, match=r"only right \['bytes'\]"):
        gf += other
    pd.testing.assert_frame_equal(gf.dataframe, snapshot)


def test_unify_puts_both_on_one_graph(gf):
    other = pw.GraphFrame.from_literal(
        [{"frame": {"name": "main", "type": "function"}, "metrics": {"time": 1.0}}]
    )
    gf.unify(other)
    assert gf.graph is other.graph and len(gf.graph) == 6
    assert other.dataframe.index.tolist() == [0] and len(gf.dataframe) == 6


def test_copy_is_shallow_and_deepcopy_is_not(gf):
    c = gf.copy()
    assert c.graph is gf.graph and c.dataframe is not gf.dataframe
    d = gf.deepcopy()
    assert d.graph is not gf.graph and d.graph == gf.graph
    d.dataframe.loc[0, "time"] = 99.0
    assert gf.dataframe.loc[0, "time"] == 1.0


def test_writers_round_trip(gf):
    again = pw.GraphFrame.from_json(gf.to_json())
    assert again.graph == gf.graph
    pd.testing.assert_frame_equal(
        again.dataframe[gf.dataframe.columns], gf.dataframe, check_dtype=False
    )
    lit = pw.GraphFrame.from_literal(gf.to_literal())
    assert lit.graph == gf.graph and by_name(lit) == by_name(gf)
    assert pw.GraphFrame.from_dict(json.loads(json.dumps(gf.to_dict()))).graph == gf.graph
    folded = gf.to_flamegraph().splitlines()
    assert "main;io;MPI_Send 3" in folded and "main;solve;MPI_Send 6" in folded
    assert sum(float(line.rsplit(" ", 1)[1]) for line in folded) == 16.0  # exclusive values add up
    dot = gf.to_dot()
    assert dot.startswith('strict digraph "" {') and dot.count("->") == 5


def test_tree_text(gf):
    assert gf.tree(color=False).splitlines()[0] == "1.000 main"  # default metric: time
    text = gf.tree(metric_column="time (inc)", color=False)
    assert text.splitlines()[0] == "16.000 main"
    assert "├─ 3.000 io" in text and "│  └─ 3.000 MPI_Send" in text
    assert gf.tree("time (inc)", color=False, depth=1) == "16.000 main\n"
    shallow = gf.tree("time (inc)", color=False, threshold=0.5)
    assert "solve" in shallow and "io" not in shallow
    colored = gf.tree(color=True)
    assert "\033[" in colored and "Legend" in colored
    with pytest.raises(ShapeError, match="no metric column 'nope'"):
        gf.tree(metric_column="nope")


@pytest.mark.parametrize(
    "text, match",
    [
        ('[{"frame": {"name": "a"}, "metrics": {}', "line 1"),
        ("[]", "non-empty list"),
        ('[{"metrics": {}}]', "node \\[0\\]"),
    ],
)
def test_bad_literal_input(tmp_path, text, match):
    p = tmp_path / "bad.json"
    p.write_text(text)
    with pytest.raises(ParseError, match=match) as info:
        pw.GraphFrame.from_literal(str(p))
    assert str(p) in str(info.value)


def test_bad_hatchet_json(tmp_path):
    good = json.loads(pw.GraphFrame.from_literal(LITERAL).to_json())
    bad = dict(good, graph=[{"0": {"data": {"name": "a"}, "children": [42]}}])
    with pytest.raises(ParseError, match="child 42"):
        pw.GraphFrame.from_json(json.dumps(bad))
    cyclic = dict(
        good,
        graph=[
            {
                "0": {"data": {"name": "a"}, "children": [1]},
                "1": {"data": {"name": "b"}, "children": [0]},
            }
        ],
    )
    cyclic["dataframe"] = [{"node": 0, "name": "a", "time": 1.0, "time (inc)": 1.0}]
    with pytest.raises(ParseError, match="cycle|root"):
        pw.GraphFrame.from_json(json.dumps(cyclic))
    p = tmp_path / "trunc.json"
    p.write_text(pw.GraphFrame.from_literal(LITERAL).to_json()[:-40])
    with pytest.raises(ParseError, match=r"trunc.json, line 1, column \d+"):
        pw.GraphFrame.from_json(p)
    missing = dict(good, exclusive_metrics=["time", "cycles"])
    with pytest.raises(ShapeError, match="metric 'cycles'"):
        pw.GraphFrame.from_json(json.dumps(missing))


def test_flamegraph_keeps_an_explicit_metric_even_when_it_is_the_default():
    gf = pw.GraphFrame.from_literal(
        [
            {
                "frame": {"name": "main"},
                "metrics": {"time": 1.0, "time (inc)": 3.0},
                "children": [{"frame": {"name": "f"}, "metrics": {"time": 2.0, "time (inc)": 2.0}}],
            }
        ]
    )
    gf.default_metric = "time (inc)"
    assert gf.to_flamegraph().splitlines() == ["main 1", "main;f 2"]
    assert gf.to_flamegraph(metric="time (inc)").splitlines() == ["main 3", "main;f 2"]
