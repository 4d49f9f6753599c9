"""Round trips: every writer's file, read back by ``perfweave.read`` with format detection.

``perfweave convert --to json|literal|dot`` on one bundled profile of every reader's
format, then ``perfweave.read`` of the output with no format given: the node count, the
names and the sums of the values survive. Folded stacks are for flame graph tools (not a
format ``perfweave.read`` detects); :func:`parse_folded` gives their paths and values back.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree.display import node_names
from perfweave.calltree.folded import parse_folded
from perfweave.calltree.readers import detect
from perfweave.calltree.shown import with_inclusive
from perfweave.cli import main

DATA = Path("tests/data")
# one bundled profile per reader format (the readers' own tests use the same files)
SOURCES = {
    "hpctoolkit": DATA / "hatchet/hpctoolkit-cpi-database",
    "hpctoolkit4": DATA / "hatchet-more/hatchet_cpi_v4_database",
    "tau": DATA / "hatchet/tau-cpi-mpi",
    "cube": DATA / "cube/kripke.p8.d2.g32.r1/profile.cubex",
    "cali": DATA / "hatchet/caliper-example-cali/example-profile.cali",
    "caliper": DATA / "hatchet/caliper-cpi-json/cpi-callpath-profile.json",
    "hatchet-json": DATA / "hatchet/json/hatchet-graph-literal.json",
    "timemory": DATA / "hatchet/timemory/wall.tree.json",
    "pyinstrument": DATA / "hatchet/pyinstrument-hatchet-json/pyinstrument-hatchet-profile.json",
    "cprofile": DATA / "hatchet/cprofile-hatchet-pstats/cprofile-cycle.pstats",
    "gprof-dot": DATA / "hatchet/gprof2dot-cpi/callgrind.dot.64042.0.1",
    "perfflowaspect": DATA / "hatchet-more/perfflowaspect-laghos/laghos_1iter.pfw",
    "trace-event": DATA / "speedscope-trace-event/multiprocess.json",
    "perf-script": DATA / "speedscope-linux-perf/system-wide.linux-perf.txt",
    "speedscope": DATA / "speedscope-json/0.1.2/simple-sampled.speedscope.json",
}
# the format perfweave.read detects in each writer's output
DETECTED = {"json": "hatchet-json", "literal": "literal", "dot": "gprof-dot"}


def test_every_reader_has_a_source():
    from perfweave.calltree.readers import available_formats

    # literal: no bundled file; the literal writer's output is read in every case below
    assert set(SOURCES) | {"literal"} == set(available_formats())
    assert all(detect(path) == fmt for fmt, path in SOURCES.items())


def _numeric(gf: pw.GraphFrame) -> list[str]:
    """The numeric columns of a frame (declared metrics and others, e.g. TAU's Calls)."""
    return [c for c in gf.dataframe.columns if pd.api.types.is_numeric_dtype(gf.dataframe[c])]


def _sums(gf: pw.GraphFrame, columns: list[str]) -> dict[str, float]:
    """Per column, the sum over nodes of what convert writes for a node: for a metric its
    rows summed per rank/thread, then the mean over ranks/threads; for another column
    (a count, a line, a pid) its first row, as ``drop_index_levels`` keeps it."""
    metrics = [c for c in columns if c in gf.exc_metrics + gf.inc_metrics]
    values = gf.node_values(metrics) if metrics else pd.DataFrame()
    first = gf.dataframe.groupby(level="node").first()
    return {
        c: float(np.nansum((values[c] if c in metrics else first[c]).to_numpy(float)))
        for c in columns
    }


def _names(gf: pw.GraphFrame) -> list[str]:
    return sorted(node_names(gf.graph, gf.dataframe).tolist())


@pytest.mark.parametrize("to", list(DETECTED))
@pytest.mark.parametrize("fmt", list(SOURCES))
def test_converted_file_reads_back(fmt, to, tmp_path, capsys):
    source = pw.read(SOURCES[fmt])
    out = tmp_path / "converted"  # no suffix: detection goes by the content
    assert main(["convert", str(SOURCES[fmt]), "--to", to, "-o", str(out)]) == 0
    assert detect(out) == DETECTED[to]
    back = pw.read(out)
    assert len(back.graph) == len(source.graph)
    assert _names(back) == _names(source)
    if to == "dot":  # one metric: the one the picture shows
        columns = [back.default_metric]
        if back.default_metric not in source.dataframe.columns:  # derived for the view
            assert back.default_metric in back.inc_metrics
            source = source.copy()
            source.update_inclusive_columns()
    else:  # every numeric column, declared metric or not (TAU's Calls, pstats' numcalls)
        columns = _numeric(source)
        assert set(columns) <= set(_numeric(back))
        assert set(source.exc_metrics + source.inc_metrics) <= set(
            back.exc_metrics + back.inc_metrics
        )
    expected, got = _sums(source, columns), _sums(back, columns)
    for c in columns:
        assert math.isclose(got[c], expected[c], rel_tol=1e-9, abs_tol=1e-12), (c, got, expected)


# the sources whose reader gives units; the DOT of two shows a metric without a reader's
# unit (perf-script: samples) or with the unit its name declares (Caliper's Avg time/rank)
UNITS_KEPT = [
    (fmt, to)
    for fmt in SOURCES
    if pw.read(SOURCES[fmt]).units
    for to in ("json", "dot")
    if (fmt, to) not in {("perf-script", "dot"), ("cali", "dot")}
]


@pytest.mark.parametrize("fmt, to", UNITS_KEPT)
def test_converted_file_keeps_units_and_the_shown_metric(fmt, to, tmp_path, capsys):
    """A converted file says what the source said. Before, every unit was lost, and the
    tree of a Caliper profile converted to JSON showed its counts (the default metric
    became `count`) where the source's showed `time (inc) in µs`."""
    source = SOURCES[fmt]
    out = tmp_path / "converted"
    assert main(["tree", str(source), "--color", "never"]) == 0
    want = capsys.readouterr().out
    assert main(["convert", str(source), "--to", to, "-o", str(out)]) == 0
    capsys.readouterr()
    back, gf = pw.read(out), pw.read(source)
    metrics = back.exc_metrics + back.inc_metrics
    assert {m: back.unit_of(m) for m in metrics} == {m: gf.unit_of(m) for m in metrics}
    if to == "dot":
        return
    assert any(back.unit_of(m) for m in metrics)
    assert back.default_metric == with_inclusive(gf).default_metric
    assert main(["tree", str(out), "--color", "never"]) == 0
    got = capsys.readouterr().out

    def lines(text: str) -> list[str]:  # value and name of each node (sibling order aside)
        return sorted(line.strip("└├─│ ") for line in text.splitlines() if line[:1] != "#")

    assert lines(got) == lines(want)
    unit = [line for line in want.splitlines() if line.startswith("# ") and " in " in line]
    assert unit == [line for line in got.splitlines() if line in unit]


def test_folded_stacks_give_paths_and_values_back(tmp_path, capsys):
    """Folded stacks are display-only for perfweave.read (flame graph tools read them), as
    ``convert --help`` says; parse_folded gives each non-zero node's path and value back."""
    with pytest.raises(SystemExit):
        main(["convert", "--help"])
    assert "folded: display-only" in " ".join(capsys.readouterr().out.split())
    source = pw.read(SOURCES["hpctoolkit4"])
    out = tmp_path / "converted.folded"
    assert main(["convert", str(SOURCES["hpctoolkit4"]), "--to", "folded", "-o", str(out)]) == 0
    with pytest.raises(pw.errors.FormatError, match="not a profile format"):
        detect(out)
    stacks = parse_folded(out.read_text(encoding="utf-8"), str(out))
    values = source.node_values(["time"])["time"].to_numpy(float)
    names = node_names(source.graph, source.dataframe)
    shown = np.flatnonzero(np.isfinite(values) & (values != 0))
    assert sorted(path[-1] for path, _ in stacks) == sorted(names[shown].tolist())
    assert math.isclose(sum(v for _, v in stacks), float(values[shown].sum()), rel_tol=1e-5)


def _hatchet_ordered(gf: pw.GraphFrame, **dump) -> str:
    """JSON as Hatchet's ``to_json`` orders it: the graph first, the small keys last."""
    spec = gf.to_dict()
    keys = ("graph", "dataframe_indices", "dataframe", "inclusive_metrics", "exclusive_metrics")
    return json.dumps({k: spec[k] for k in keys}, default=str, **dump)


@pytest.mark.parametrize(
    "dump", [{}, {"indent": 2}, {"sort_keys": True}], ids=["hatchet", "indented", "sorted"]
)
def test_hatchet_json_with_a_graph_past_the_window_is_detected(dump, tmp_path):
    """Files written before the small keys came first (and Hatchet's own): the graph, far
    longer than the 4 KiB detection reads, comes first (or the dataframe, sorted)."""
    source = pw.read(SOURCES["hpctoolkit4"])
    path = tmp_path / "hatchet.json"
    path.write_text(_hatchet_ordered(source, **dump), encoding="utf-8")
    head = path.read_bytes()[:4096]
    assert not (b'"graph"' in head and b'"dataframe"' in head)  # the old rule missed it
    assert detect(path) == "hatchet-json"
    back = pw.read(path)
    assert len(back.graph) == len(source.graph)
    assert _names(back) == _names(source)


def test_other_json_with_a_graph_key_is_not_hatchet_json(tmp_path):
    """Only the format's keys in its shape: JSON Graph Format's "graph" object is not it."""
    path = tmp_path / "jgf.json"
    nodes = {str(k): {"label": f"n{k}"} for k in range(400)}
    path.write_text(json.dumps({"graph": {"nodes": nodes, "edges": []}}), encoding="utf-8")
    with pytest.raises(pw.errors.FormatError, match="not a profile format"):
        detect(path)


def test_literal_with_a_long_first_name_is_detected(tmp_path):
    """The literal writer puts "frame" first: a first node whose name is longer than the
    detection window is still a literal."""
    long = "kokkos::parallel_for<" + "Functor<double>, " * 400 + ">"
    gf = pw.GraphFrame.from_literal(
        [
            {
                "frame": {"name": long, "type": "function"},
                "metrics": {"time": 1.0},
                "children": [{"frame": {"name": "leaf"}, "metrics": {"time": 2.0}}],
            }
        ]
    )
    out = tmp_path / "converted"
    out.write_text(json.dumps(gf.to_literal()), encoding="utf-8")
    assert out.read_bytes().index(b'"metrics"') > 4096
    back = pw.read(out)
    assert _names(back) == sorted([long, "leaf"])
    assert back.node_values(["time"])["time"].tolist() == [1.0, 2.0]


def test_dot_names_survive_quotes_backslashes_and_newlines(tmp_path):
    """Names are written escaped in DOT strings and read back exactly."""
    names = ['say "hi"', "C:\\path\\", "two\nlines", "tab\there", "back\\nslash-n", "plain"]
    tree = {"frame": {"name": names[0]}, "metrics": {"time": 1.5}, "children": []}
    for k, name in enumerate(names[1:]):
        tree["children"].append({"frame": {"name": name}, "metrics": {"time": 0.1 * (k + 1)}})
    gf = pw.GraphFrame.from_literal([tree])
    out = tmp_path / "graph.dot"
    out.write_text(gf.to_dot(metric="time"), encoding="utf-8")
    back = pw.read(out)
    assert _names(back) == sorted(names)
    assert back.node_values(["time"])["time"].tolist() == gf.node_values(["time"])["time"].tolist()
    assert back.exc_metrics == ["time"] and back.inc_metrics == []


def test_dot_value_that_is_not_a_number_names_node_and_line(tmp_path):
    gf = pw.read(SOURCES["hatchet-json"])
    text = gf.to_dot(metric="time")
    bad = text.replace('perfweave_value="', 'perfweave_value="x', 1)
    path = tmp_path / "bad.dot"
    path.write_text(bad, encoding="utf-8")
    line = next(k for k, s in enumerate(bad.splitlines(), 1) if 'perfweave_value="x' in s)
    with pytest.raises(pw.errors.ParseError, match=rf"line {line}.*node '0'.*perfweave_value"):
        pw.read(path)


@pytest.mark.parametrize(
    "key, value, said",
    [("units", "s", "'units' as an object"), ("default_metric", "nope", "'default_metric' among")],
)
def test_bad_perfweave_key_in_hatchet_json_names_file_and_value(key, value, said, tmp_path):
    spec = json.loads(pw.read(SOURCES["hatchet-json"]).to_json())
    spec[key] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(spec))
    with pytest.raises(pw.errors.ParseError, match=f"bad.json.*{said}.*{value}"):
        pw.read(path)
