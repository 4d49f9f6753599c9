"""gprof2dot DOT reader: the callgrind cpi call graph against Hatchet and the file itself,
DOT syntax the parser must accept, recursion, random DAGs and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave
from perfweave import GraphFrame
from perfweave.calltree.readers import detect
from perfweave.errors import ParseError
from tests.calltree._peer import assert_same
from tests.calltree.readers._round_trip_checks import assert_round_trips

DOT = Path(__file__).resolve().parents[2] / "data" / "hatchet" / "gprof2dot-cpi"
CPI = DOT / "callgrind.dot.64042.0.1"


def _row(gf, name):
    df = gf.dataframe
    return df[df["name"] == name].iloc[0]


def _id(gf, name):
    return int(gf.graph.frames.index[gf.graph.frames["name"] == name][0])


def _names(gf, ids):
    return sorted(gf.graph.frame(int(i))["name"] for i in ids)


def _label(module, name, inc, exc, calls):
    return f"{module}\\n{name}\\n{inc:.2f}%\\n({exc:.2f}%)\\n{calls}\u00d7"


def _write(tmp_path, text, name="g.dot"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# --------------------------------------------------------------------- the real file
def test_cpi_structure_and_values():
    gf = GraphFrame.from_gprof_dot(CPI)
    g = gf.graph
    assert len(g) == 105 and len(gf.dataframe) == 105 and not g.is_tree()
    assert _names(gf, g.root_ids) == [
        "(below main)",
        "0x0000000000000ff0",
        "_dl_catch_error'2",
        "hwloc_topology_load",
        "ibv_get_device_list",
        "psm_allocate_vbufs",
        "psm_no_lock",
    ]
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]
    assert gf.default_metric == "time" and gf.dataframe.index.names == ["node"]
    # line 5: "(below main)" ... label="libc-2.17.so\n(below main)\n97.95%\n(0.00%)\n0×"
    below = _row(gf, "(below main)")
    assert (below["module"], below["time (inc)"], below["time"], below["calls"]) == (
        "libc-2.17.so",
        97.95,
        0.0,
        0,
    )
    main = _row(gf, "main")
    assert (main["module"], main["time (inc)"], main["time"], main["calls"]) == (
        "cpi",
        97.94,
        53.77,
        1,
    )
    assert _names(gf, g.children_of(_id(gf, "(below main)"))) == ["main"]
    # malloc is called from three MPI functions: one node, three parents
    assert _names(gf, g.parents_of(_id(gf, "malloc"))) == [
        "MPIR_Knomial_Bcast_inter_node_MV2",
        "MPIR_Reduce_knomial_MV2",
        "MPIR_Reduce_knomial_trace",
    ]
    assert sum(len(g.parents_of(i)) > 1 for i in range(len(g))) == 8
    assert len(g._child_idx) == 107  # every '->' line of the file is an edge
    assert gf.metadata["cycle_edges"] == []


def test_detected_and_round_trips():
    assert detect(CPI) == "gprof-dot"
    assert perfweave.read(CPI).graph == GraphFrame.from_gprof_dot(CPI).graph
    assert_round_trips(GraphFrame.from_gprof_dot(CPI))


@pytest.mark.peer
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pydot's use of pyparsing
def test_same_as_hatchet():
    import hatchet as ht

    ours = GraphFrame.from_gprof_dot(CPI)
    theirs = ht.GraphFrame.from_gprof_dot(str(CPI))
    assert_same(ours, theirs)
    a = ours.dataframe.set_index("name")["module"].sort_index()
    b = theirs.dataframe.set_index("name")["module"].sort_index()
    assert a.to_dict() == b.to_dict()


# --------------------------------------------------------------------- DOT syntax
def test_dot_syntax_comments_quotes_ports_subgraphs_and_chains(tmp_path):
    text = f"""
    // a comment
    /* a block
       comment */
    strict digraph "call graph" {{
      graph [rankdir=LR]; node [shape=box]
      edge [fontname=Arial]
      "say \\"hi\\"" [label="{_label("m", "hi", 10, 10, 2)}"];
      main [label="{_label("m", "main", 100, 50, 1)}"]
      main:p1:n -> {{ work "say \\"hi\\"" }} ;
      work [label="{_label("m", "work", 40, 30, 3)}", color=red]
      work -> leaf -> sink
      leaf [label="m\\nleaf\\n10.00%\\n(10.00%)\\n3\u00d7"]
      sink [label="m\\nsink\\n0.00%\\n(0.00%)\\n3\u00d7"]
      rankdir = TB
      subgraph cluster_x {{ a2 }}
    }}
    """
    gf = GraphFrame.from_gprof_dot(_write(tmp_path, text))
    g = gf.graph
    assert _names(gf, g.root_ids) == ["a2", "main"]
    assert _names(gf, g.children_of(_id(gf, "main"))) == ['say "hi"', "work"]
    assert _names(gf, g.children_of(_id(gf, "work"))) == ["leaf"]
    assert _names(gf, g.children_of(_id(gf, "leaf"))) == ["sink"]
    assert len(gf.dataframe) == 5  # a2 has no label: a node without a row, as in Hatchet
    assert _row(gf, 'say "hi"')["calls"] == 2


def test_labels_without_module_or_calls(tmp_path):
    text = (
        'digraph { a [label="a\\n100.00%\\n(60.00%)"]; b [label="b\\n40%\\n(40%)\\n7×"]; a -> b }'
    )
    gf = GraphFrame.from_gprof_dot(_write(tmp_path, text))
    a, b = _row(gf, "a"), _row(gf, "b")
    assert a["module"] is None and (a["time (inc)"], a["time"]) == (100.0, 60.0)
    assert b["calls"] == 7 and a["calls"] != a["calls"]  # NaN where the label has none


def test_recursion_is_made_acyclic(tmp_path):
    """Hatchet adds the self edge f -> f, after which f has itself as a parent; a root
    that recurses disappears from its roots. Here the back edges are left out instead."""
    lab = {n: _label("m", n, 50, 10, 1) for n in "fgh"}
    text = f"""digraph {{
      f [label="{lab["f"]}"]; g [label="{lab["g"]}"]; h [label="{lab["h"]}"];
      f -> f; f -> g; g -> h; h -> g;
    }}"""
    gf = GraphFrame.from_gprof_dot(_write(tmp_path, text))
    assert _names(gf, gf.graph.root_ids) == ["f"]
    assert gf.metadata["cycle_edges"] == [("f", "f"), ("h", "g")]
    assert len(gf.graph) == 3 and len(gf.dataframe) == 3


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 15).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(
                    lambda e: e[0] < e[1]
                )
            ),
            st.lists(st.integers(0, 9999), min_size=n, max_size=n),
        )
    )
)
def test_random_dags_read_back_exactly(tmp_path_factory, case):
    n, edges, values = case
    lines = ["digraph {"]
    for i in range(n):
        inc, exc = values[i] / 100, values[i] / 200
        lines.append(f'  "f {i}" [label="{_label("lib", f"f {i}", inc, exc, i)}"];')
    lines += [f'  "f {s}" -> "f {d}";' for s, d in edges]
    lines.append("}")
    gf = GraphFrame.from_gprof_dot(_write(tmp_path_factory.mktemp("dot"), "\n".join(lines)))
    g = gf.graph
    assert len(g) == n and gf.metadata["cycle_edges"] == []
    got = {
        (g.frame(s)["name"], g.frame(int(c))["name"]) for s in range(n) for c in g.children_of(s)
    }
    assert got == {(f"f {s}", f"f {d}") for s, d in edges}
    for i in range(n):
        row = _row(gf, f"f {i}")
        assert row["time (inc)"] == pytest.approx(round(values[i] / 100, 2))
        assert row["calls"] == i


# --------------------------------------------------------------------- bad input
def test_no_nodes(tmp_path):
    with pytest.raises(ParseError, match=r"empty\.dot: expected at least one node"):
        GraphFrame.from_gprof_dot(_write(tmp_path, "digraph G {\n graph [a=b];\n}\n", "empty.dot"))
    with pytest.raises(ParseError, match="an empty file"):
        GraphFrame.from_gprof_dot(_write(tmp_path, "  // nothing\n", "blank.dot"))


def test_truncated_file_names_the_line(tmp_path):
    cut = "\n".join(CPI.read_text(encoding="utf-8").splitlines()[:40])
    with pytest.raises(ParseError) as err:
        GraphFrame.from_gprof_dot(_write(tmp_path, cut, "cut.dot"))
    assert "cut.dot, line 40" in str(err.value) and "'}' closing the graph" in str(err.value)


def test_unclosed_string_and_bad_token(tmp_path):
    with pytest.raises(ParseError, match=r"line 2"):
        GraphFrame.from_gprof_dot(_write(tmp_path, 'digraph {\n a [label="x\n]}\n'))
    with pytest.raises(ParseError, match=r"line 1.*'digraph' or 'graph'"):
        GraphFrame.from_gprof_dot(_write(tmp_path, "hello -> world"))


def test_label_not_from_gprof2dot(tmp_path):
    text = 'digraph {\n main [label="main"];\n main -> x;\n}'
    with pytest.raises(ParseError) as err:
        GraphFrame.from_gprof_dot(_write(tmp_path, text, "plain.dot"))
    msg = str(err.value)
    assert "plain.dot, line 2, node 'main'" in msg and "inclusive%" in msg
