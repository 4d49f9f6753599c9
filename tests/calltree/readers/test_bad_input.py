"""Bad and extreme input to the calltree readers (issue #16): a perfweave error naming the
file and value, or -- for depth -- a correct reading; never a bare Python exception.

Inputs are real profiles from tests/data with one thing changed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import perfweave as pw
from perfweave.calltree import deepjson
from perfweave.errors import OptionError, ParseError

DATA = Path(__file__).resolve().parents[2] / "data" / "hatchet"
HATCHET_JSON = DATA / "json/hatchet-graph-literal.json"  # (a Hatchet GraphFrame JSON)
PYINSTRUMENT = DATA / "pyinstrument-hatchet-json/pyinstrument-hatchet-profile.json"
CALI = DATA / "caliper-ordered-cali/230525-151052_1930517_eWbGeyrlBOPT.cali"
CALI_JSON = DATA / "caliper-cpi-json/cpi-callpath-profile.json"
DOT = DATA / "gprof2dot-cpi/callgrind.dot.64042.0.1"


def _chain_literal(depth: int) -> list[dict]:
    """A literal tree ``depth`` calls deep, built from the bundled file's first frame."""
    first = pw.read(HATCHET_JSON).to_literal()[0]
    node: dict = {"frame": first["frame"], "metrics": {"time": 1.0, "time (inc)": 1.0}}
    for d in range(depth - 1):
        node = {
            "frame": {"name": f"f{d}", "type": "function"},
            "metrics": {"time": 1.0, "time (inc)": float(d + 2)},
            "children": [node],
        }
    return [node]


def test_deep_literal_tree_reads_and_converts(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(deepjson.dumps(_chain_literal(10_000)))
    with pytest.raises(RecursionError):
        json.loads(path.read_text())  # the reason: Python's json gives up
    gf = pw.read(path, format="literal")
    assert len(gf.graph) == 10_000 and int(gf.graph.depth.max()) == 9_999
    back = gf.to_literal()  # and the writer walks it without recursion
    text = deepjson.dumps(back)
    top = deepjson.loads(text)[0]
    assert top["frame"]["name"] == "f9998"  # the outermost call of _chain_literal
    assert text.count('"children"') == 9_999 and text.count('"frame": {"name": "foo"') == 1


def test_deep_literal_via_cli_convert(tmp_path, capsys):
    from perfweave.cli import main

    path = tmp_path / "deep.json"
    path.write_text(deepjson.dumps(_chain_literal(3_000)))
    out = tmp_path / "out.json"
    assert main(["convert", str(path), "--to", "literal", "-o", str(out)]) == 0
    assert len(pw.read(out, format="literal").graph) == 3_000
    assert main(["convert", str(path), "--to", "folded"]) == 0
    folded = capsys.readouterr().out.splitlines()
    assert len(folded) == 3_000 and folded[-1].count(";") == 2_999


def test_deep_pyinstrument_tree(tmp_path):
    obj = json.loads(PYINSTRUMENT.read_text())
    leaf = obj["root_frame"]
    for d in range(10_000):
        leaf = {
            "function": f"g{d}",
            "file_path_short": "x.py",
            "line_no": d,
            "time": 1.0,
            "children": [leaf],
        }
    obj["root_frame"] = leaf
    path = tmp_path / "deep.json"
    path.write_text(deepjson.dumps(obj))
    gf = pw.read(path, format="pyinstrument")
    assert int(gf.graph.depth.max()) >= 10_000


@pytest.mark.parametrize("path,fmt", [(HATCHET_JSON, "hatchet-json"), (CALI_JSON, "caliper")])
def test_integer_of_too_many_digits_is_a_parse_error(tmp_path, path, fmt):
    text = path.read_text()
    number = re.search(r"(?<=[\[:, ])\d+(?=[,\]}])", text)
    bad = tmp_path / path.name
    bad.write_text(text[: number.start()] + "9" * 10_000 + text[number.end() :])
    with pytest.raises(ParseError) as err:
        pw.read(bad, format=fmt)
    assert str(bad) in str(err.value)


@pytest.mark.parametrize("fmt", ["cprofile", "gprof-dot", "literal", "pyinstrument", "cali"])
def test_a_directory_given_as_a_file(tmp_path, fmt):
    with pytest.raises(ParseError, match="a directory"):
        pw.read(tmp_path, format=fmt)


def _cali_with(tmp_path: Path, old: str, new: str, count: int = 1) -> Path:
    text = CALI.read_text()
    assert old in text
    bad = tmp_path / CALI.name
    bad.write_text(text.replace(old, new, count))
    return bad


@pytest.mark.parametrize("value", ["1e400", "inf", "12abc", "9" * 5_000, "-1e400", "nan"])
def test_cali_metric_out_of_range_or_not_a_number(tmp_path, value):
    # the first snapshot's first value is "min#inclusive#sum#time.duration" (a double:
    # 2e23 is a fine double, but not beyond float range, not text, not NaN)
    bad = _cali_with(tmp_path, "data=1.250952=", f"data={value}=")
    with pytest.raises(ParseError) as err:
        pw.read(bad)
    msg = str(err.value)
    assert str(bad) in msg and "min#inclusive#sum#time.duration" in msg and "record" in msg


def test_cali_node_order_is_an_integer(tmp_path):
    # "Node order" (min#min#aggregate.slot) is an int metric: 2e23 does not fit 64 bits
    bad = _cali_with(tmp_path, "=1.250952=1=1.250952=1\n", "=1.250952=1=1.250952=2e23\n")
    with pytest.raises(ParseError, match="an integer of 64 bits"):
        pw.read(bad)


def test_cali_unknown_parent_is_an_error_not_a_root(tmp_path):
    bad = _cali_with(
        tmp_path,
        "__rec=node,id=39,attr=38,data=lulesh.cycle,parent=33",
        "__rec=node,id=39,attr=38,data=lulesh.cycle,parent=9999",
    )
    with pytest.raises(ParseError) as err:
        pw.read(bad)
    assert err.value.line is not None and "9999" in str(err.value)
    assert "parent" in err.value.expected


def test_dot_call_count_too_long(tmp_path):
    text = DOT.read_text()
    m = re.search(r"(\d+)\\u00d7|(\d+)×", text)
    bad = tmp_path / DOT.name
    span = m.span(1) if m.group(1) else m.span(2)
    bad.write_text(text[: span[0]] + "9" * 10_000 + text[span[1] :])
    with pytest.raises(ParseError, match="call count"):
        pw.read(bad, format="gprof-dot")


def _cpi_json(tmp_path: Path, change) -> Path:
    """The bundled Caliper json-split profile with ``change(doc)`` applied."""
    doc = json.loads(CALI_JSON.read_text())
    change(doc)
    bad = tmp_path / CALI_JSON.name
    bad.write_text(json.dumps(doc))
    return bad


@pytest.mark.parametrize("rank", [float("inf"), -1, 2.5, 4_000_000_000, "zero"])
def test_caliper_json_rank_out_of_range(tmp_path, rank):
    def change(doc):
        doc["data"][1][doc["columns"].index("mpi.rank")] = rank

    bad = _cpi_json(tmp_path, change)
    with pytest.raises(ParseError, match="mpi.rank") as err:
        pw.read(bad, format="caliper")
    assert "data row 1" in str(err.value)


def test_caliper_json_sparse_huge_rank_refused_before_allocating(tmp_path):
    # a rank that fits an MPI int but would make every node a row for 2e9 ranks
    def change(doc):
        doc["data"][1][doc["columns"].index("mpi.rank")] = 2_000_000_000

    with pytest.raises(ParseError, match=r"rows to fill.*ranks 0\.\.2000000000"):
        pw.read(_cpi_json(tmp_path, change), format="caliper")


def test_caliper_json_text_metric_is_named(tmp_path):
    def change(doc):
        doc["data"][2][doc["columns"].index("sum#time.duration")] = "fast"

    with pytest.raises(ParseError, match=r"data row 2.*'time'.*fast"):
        pw.read(_cpi_json(tmp_path, change), format="caliper")


def test_caliper_json_is_value_flags_that_do_not_fit(tmp_path):
    def hierarchy_as_value(doc):
        doc["column_metadata"][doc["columns"].index("source.function#callpath.address")] = {
            "is_value": True
        }

    with pytest.raises(ParseError, match="hierarchy column"):
        pw.read(_cpi_json(tmp_path, hierarchy_as_value), format="caliper")

    def metric_as_label(doc):  # a metric flagged as a label must hold node indices
        doc["column_metadata"][doc["columns"].index("sum#time.duration")] = {"is_value": False}

    with pytest.raises(ParseError, match="indices into 'nodes'"):
        pw.read(_cpi_json(tmp_path, metric_as_label), format="caliper")

    def flags_shifted(doc):  # one flag missing: not one per column
        doc["column_metadata"].pop(0)

    with pytest.raises(ParseError, match="one entry per column"):
        pw.read(_cpi_json(tmp_path, flags_shifted), format="caliper")


def deep_cali(depth: int) -> str:
    """The bundled ordered .cali profile's attributes with a region chain ``depth`` deep:
    one snapshot per region (time 1 at every level, node order = depth)."""
    head = []
    for line in CALI.read_text().splitlines():
        if line.startswith("__rec=node,id=33,"):  # the first region node ("main")
            break
        if not line.startswith("__rec=ctx"):
            head.append(line)
    lines = list(head)
    for d in range(depth):
        parent = f",parent={1000 + d - 1}" if d else ""
        lines.append(f"__rec=node,id={1000 + d},attr=32,data=f{d}{parent}")
        lines.append(
            f"__rec=ctx,ref={1000 + d}=134,attr=117=120=123=127=125=130=133,data=1=1=1=1=1=1={d}"
        )
    return "\n".join(lines) + "\n"


def test_deep_cali_chain_reads_whole(tmp_path):
    path = tmp_path / "deep.cali"
    path.write_text(deep_cali(5_000))
    gf = pw.read(path)
    g = gf.graph
    assert len(g) == 5_000 and int(g.depth.max()) == 4_999
    deepest = int(np.argmax(g.depth))
    assert g.frames["name"].iloc[deepest] == "f4999"
    assert gf.dataframe["Total time"].sum() == 5_000  # every snapshot kept, once


def test_cali_path_is_a_linked_sequence_equal_to_its_list(tmp_path):
    from perfweave.calltree.readers._calistream import CaliPath, parse_cali

    contents = parse_cali(deep_cali(4), "x.cali")
    last = contents.records[-1]["path"]
    assert isinstance(last, CaliPath) and last == ["f0", "f1", "f2", "f3"]
    assert last.up == ["f0", "f1", "f2"] and last[1:3] == ["f1", "f2"] and len(last) == 4
    assert contents.records[-1]["region"] == ["f0", "f1", "f2", "f3"]


TAU = DATA / "tau-cpi-mpi"


def _tau_copy(tmp_path: Path) -> Path:
    out = tmp_path / "tau"
    out.mkdir()
    for f in sorted(TAU.glob("profile.*")):
        (out / f.name).write_bytes(f.read_bytes())
    return out


def test_tau_callpath_10000_calls_deep(tmp_path):
    out = _tau_copy(tmp_path)
    prof = out / "profile.0.0.0"
    lines = prof.read_text().splitlines()
    count = int(lines[0].split()[0])
    chain = " => ".join([".TAU application"] + [f"f{d}()  " for d in range(10_000)])
    lines[0] = lines[0].replace(str(count), str(count + 1), 1)
    lines.insert(2 + count, f'"{chain}" 1 0 5 5 0 GROUP="TAU_CALLPATH"')
    prof.write_text("\n".join(lines) + "\n")
    gf = pw.read(out, format="tau")
    assert int(gf.graph.depth.max()) == 10_000
    leaf = int(np.argmax(gf.graph.depth))
    assert gf.graph.frames["name"].iloc[leaf].strip() == "f9999()"


def test_tau_directory_in_place_of_a_profile_is_named(tmp_path):
    out = _tau_copy(tmp_path)
    (out / "profile.3.0.0").unlink()
    (out / "profile.3.0.0").mkdir()
    with pytest.warns(pw.errors.SkippedInputWarning, match=r"profile\.3\.0\.0.*directory"):
        gf = pw.read(out, format="tau")
    ranks = sorted(set(gf.dataframe.index.get_level_values("rank")))
    assert ranks == [0, 1, 2]  # the other ranks are kept


def test_control_characters_in_names_stay_inside_their_line(tmp_path, capsys):
    from perfweave.cli import main

    text = HATCHET_JSON.read_text()
    assert text.count('"name":"bar"') > 1  # in the graph and the dataframe
    bad = tmp_path / "names.json"
    bad.write_text(text.replace('"name":"bar"', '"name":"ba\\nr\\u001b[2J;x"'))
    gf = pw.read(bad)
    plain = pw.read(HATCHET_JSON)
    folded = gf.to_flamegraph().splitlines()
    assert len(folded) == len(plain.to_flamegraph().splitlines())
    assert "foo;ba\\nr\\x1b[2J\\x3bx " in gf.to_flamegraph()
    shown = gf.tree(color=False)
    assert "\x1b" not in shown and shown.count("\n") == plain.tree(color=False).count("\n")
    assert main(["tree", str(bad), "--color", "never"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "ba\\nr\\x1b[2J;x" in out


def test_an_option_the_reader_does_not_take_is_refused():
    with pytest.raises(
        OptionError, match=r"caliper reader has no option 'bogus_option'.*node_ordering"
    ):
        pw.read(CALI_JSON, bogus_option=3)
    assert issubclass(OptionError, TypeError)  # what Python raises for an unknown keyword
    with pytest.raises(OptionError, match="no option 'node_order'"):  # a misspelling
        pw.read(CALI, node_order=False)
    ordered = pw.read(CALI, node_ordering=False)  # an option it takes still works
    assert len(ordered.graph) == len(pw.read(CALI).graph)


def test_error_quoting_a_deeply_nested_value_stays_short(tmp_path):
    # a node that is not a dict but 5,000 nested lists: the message shows a short repr
    bad = tmp_path / "lit.json"
    bad.write_text(
        '[{"frame": {"name": "a"}, "metrics": {}, "children": [' + "[" * 5000 + "]" * 5000 + "]}]"
    )
    with pytest.raises(ParseError, match=r"node \[0\]\.children\[0\]") as err:
        pw.read(bad, format="literal")
    assert len(str(err.value)) < 300


@pytest.mark.parametrize(
    "change,match",
    [
        (lambda f: f.update(line_no=10**30), "integer 'line_no'"),
        (lambda f: f.update(line_no="12"), "integer 'line_no'"),
        (lambda f: f.update(time=float("inf")), "finite 'time'"),
    ],
)
def test_pyinstrument_numbers_out_of_range(tmp_path, change, match):
    obj = json.loads(PYINSTRUMENT.read_text())
    change(obj["root_frame"]["children"][0])
    bad = tmp_path / PYINSTRUMENT.name
    bad.write_text(json.dumps(obj))
    with pytest.raises(ParseError, match=match) as err:
        pw.read(bad, format="pyinstrument")
    assert "root_frame.children[0]" in str(err.value)


SW4 = DATA / "caliper-sw4-cuda-activity-cali/caliper_cuda_activity_profile.cali"


@pytest.mark.parametrize(
    "rank,match",
    [("1e400", "mpi.rank"), ("-3", "mpi.rank"), ("2000000000", "rows to fill")],
)
def test_cali_rank_out_of_range(tmp_path, rank, match):
    text = SW4.read_text()
    line = "__rec=ctx,ref=44,attr=32=50=1771,data=1=102789882.000000=0.102790"
    assert line in text
    bad = tmp_path / SW4.name
    bad.write_text(text.replace(line, line.replace("data=1=", f"data={rank}="), 1))
    with pytest.raises(ParseError, match=match) as err:
        pw.read(bad)
    assert str(bad) in str(err.value)


def test_dot_subgraphs_nested_too_deep_are_refused_by_depth(tmp_path):
    text = DOT.read_text()
    body = text.index("{") + 1
    deep = tmp_path / DOT.name
    deep.write_text(text[:body] + "{" * 5_000 + "}" * 5_000 + text[body:])
    with pytest.raises(ParseError, match="nested at most 200 deep.*201 levels"):
        pw.read(deep, format="gprof-dot")
    fine = tmp_path / "fine.dot"
    fine.write_text(text[:body] + "{" * 150 + "}" * 150 + text[body:])
    assert len(pw.read(fine, format="gprof-dot").graph) == len(pw.read(DOT).graph)


def test_deep_tree_postorder_and_json(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(deepjson.dumps(_chain_literal(5_000)))
    gf = pw.read(path, format="literal")
    post = [n.nid for n in gf.graph.traverse(order="post")]
    assert len(post) == 5_000 and post == sorted(post, reverse=True)  # leaf first
    assert len(json.loads(gf.to_json())["dataframe"]) == 5_000


def test_deep_node_ordered_graphs_compare(tmp_path):
    a, b = tmp_path / "a.cali", tmp_path / "b.cali"
    a.write_text(deep_cali(3_000))
    b.write_text(deep_cali(3_000).replace("data=f2999,", "data=g2999,"))
    ga, gb = pw.read(a).graph, pw.read(b).graph
    assert ga._order_key is not None  # compared through the frame-order signature
    assert ga == pw.read(a).graph and ga != gb


def test_paths_of_dag_nodes_and_of_a_deep_node(tmp_path):
    def reference(node):  # the definition: each parent's paths, then the node
        parents = node.parents
        if not parents:
            return [(node,)]
        return [path + (node,) for p in parents for path in reference(p)]

    dag = pw.read(DATA / "cprofile-hatchet-pstats/cprofile-cycle.pstats").graph
    assert not dag.is_tree()
    for node in dag.traverse():
        assert [[n.nid for n in p] for p in node.paths()] == [
            [n.nid for n in p] for p in reference(node)
        ]
    path = tmp_path / "deep.cali"
    path.write_text(deep_cali(3_000))
    g = pw.read(path).graph
    leaf = next(n for n in g.traverse() if n.nid == int(np.argmax(g.depth)))
    assert [n.frame["name"] for n in leaf.path()] == [f"f{d}" for d in range(3_000)]


@pytest.mark.parametrize("kind", ["loop", "dangling"])
def test_a_symbolic_link_that_leads_nowhere_is_a_parse_error_naming_it(tmp_path, kind):
    link = tmp_path / "profile.json"
    if kind == "loop":
        (tmp_path / "other").symlink_to(link)
        link.symlink_to(tmp_path / "other")
    else:
        link.symlink_to(tmp_path / "gone.json")
    with pytest.raises(ParseError, match="profile.json.*symbolic link that leads nowhere"):
        pw.read(link)
    with pytest.raises(FileNotFoundError):  # a path that is simply not there stays so
        pw.read(tmp_path / "missing.json")
