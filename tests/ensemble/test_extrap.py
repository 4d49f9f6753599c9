"""Ensemble.from_extrap: every input format of Extra-P 4.2, read and modelled as Extra-P
reads and models it (tests/data/extrap/extrap_models.json, written by Extra-P 4.2.5 in its
own venv: benchmarks/extrap_inputs_reference.py), and bad input named by file and place."""

from __future__ import annotations

import json
import shutil
import warnings
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree.graph import Node
from perfweave.calltree.graphframe import GraphFrame
from perfweave.ensemble.extrap import detect
from perfweave.ensemble.extrap.cube_set import _merge_partial, point_of
from perfweave.ensemble.models import metric_matrix
from perfweave.errors import FormatError, ParseError, SkippedInputWarning
from perfweave.scaling.fit import FewParameterValues

DATA = Path(__file__).parent.parent / "data" / "extrap"
REFERENCE = json.loads((DATA / "extrap_models.json").read_text())
READ = sorted(k for k, v in REFERENCE.items() if "error" not in v)
REJECTED = sorted(k for k, v in REFERENCE.items() if "error" in v)
FEW = "Number of measurements for a parameter needs to be at least 5"


def _callpaths(ens: pw.Ensemble) -> dict[str, int]:
    """Each node's call path in Extra-P's notation (``main->init_mat``)."""
    return {
        "->".join(str(n.frame["name"]) for n in Node(ens.graph, i).path()): i
        for i in range(len(ens.graph))
    }


def _read(rel: str) -> pw.Ensemble:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what a Cube file lacks is the Cube reader's test
        return pw.Ensemble.from_extrap(DATA / rel)


def test_every_format_and_input_is_covered():
    formats = {v["format"] for v in REFERENCE.values()}
    assert formats == {"text", "json", "talpas", "cube", "extra-p"}
    assert len(READ) == 44 and REJECTED == ["json/input_11.JSON", "talpas/talpas_10_neg.txt"]
    assert any(k.endswith(".jsonl") for k in READ) and "json/new/input2.json" in READ


@pytest.mark.parametrize("rel", READ)
def test_read_and_modelled_as_extrap(rel):
    """The points, the mean and number of values at each, and the model of every call
    path and metric are Extra-P's; fewer than 5 values warn where Extra-P warns."""
    ref = REFERENCE[rel]
    ens = _read(rel)
    params = ref["params"]
    assert list(ens.metadata.columns[: len(params)]) == params
    nodes = _callpaths(ens)
    X = ens.metadata[params].to_numpy(float)
    param = params if len(params) > 1 else params[0]
    fits = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for metric in {f["metric"] for f in ref["functions"]}:
            fits[metric] = ens.models(metric or "<default>", param)
    few = any(issubclass(w.category, FewParameterValues) for w in caught)
    assert few == any(FEW in w for w in ref["warnings"]), rel
    for f in ref["functions"]:
        node = nodes[f["callpath"]]
        Y = metric_matrix(ens, f["metric"] or "<default>")[node]
        for point, mean, count in zip(f["points"], f["means"], f["repetitions"]):
            values = Y[(np.array(point) == X).all(axis=1)]
            values = values[~np.isnan(values)]
            assert values.mean() == pytest.approx(mean, rel=1e-12, abs=1e-300), (rel, point)
            if ref["format"] not in ("cube", "extra-p"):  # Cube: values per location
                assert len(values) == count, (rel, f["callpath"], point)
        fit = fits[f["metric"]].loc[node]
        model = f["model"]
        scale = np.abs(f["means"]).max()
        assert fit["reason"] == "", rel
        assert fit["c0"] == pytest.approx(model["c0"], rel=1e-6, abs=1e-9 * scale), rel
        assert fit["smape"] == pytest.approx(model["smape"], rel=1e-6, abs=1e-9), rel
        if len(params) == 1:
            assert fit["p_exp"] == float(Fraction(model["poly"])), (rel, fit["model"])
            assert fit["log_exp"] == model["log"], (rel, fit["model"])
            assert fit["c1"] == pytest.approx(model["c1"], rel=1e-6, abs=1e-9 * scale), rel
            continue
        exps = {n: (0.0, 0) for n in params}
        coefs = {}
        for term in model["terms"]:
            names = sorted(params[j] for j, _, _ in term["factors"])
            for j, poly, log in term["factors"]:
                exps[params[j]] = (float(Fraction(poly)), log)
            coefs["*".join(sorted(names, key=params.index))] = term["coef"]
        for n in params:
            assert (fit[f"p_exp[{n}]"], fit[f"log_exp[{n}]"]) == exps[n], (rel, fit["model"])
        for label, c in coefs.items():
            assert fit[f"c[{label}]"] == pytest.approx(c, rel=1e-6), (rel, fit["model"])


@pytest.mark.parametrize("rel", REJECTED)
def test_inputs_extrap_rejects_are_errors_naming_the_function(rel):
    with pytest.raises(ParseError, match=r"metric '(time|flops)' at (4|3) of 5 points") as err:
        pw.Ensemble.from_extrap(DATA / rel)
    assert str(DATA / rel) in str(err.value) and "as Extra-P requires" in str(err.value)


def test_profiles_per_point_and_repetition():
    """one_parameter_1: 5 points x 6 repetitions; the metadata say which, the profile ids
    count them in order; the metric is kept as given (no view sums children into it)."""
    ens = pw.Ensemble.from_extrap(DATA / "text" / "one_parameter_1.txt")
    assert len(ens) == 30 and list(ens.profiles) == list(range(30))
    meta = ens.metadata
    assert list(meta.columns) == ["x", "repetition", "file"]
    assert meta["x"].tolist() == [float(x) for x in (20, 30, 40, 50, 60) for _ in range(6)]
    assert meta["repetition"].tolist() == list(range(1, 7)) * 5
    assert ens.inc_metrics == ["time"] and ens.exc_metrics == []
    assert ens.graph.frames["name"].tolist() == ["compute"]
    first = (DATA / "text" / "one_parameter_1.txt").read_text().split("DATA", 1)[1].split()[:6]
    np.testing.assert_array_equal(metric_matrix(ens, "time")[0, :6], [float(v) for v in first])


def test_call_paths_become_a_tree():
    ens = pw.Ensemble.from_extrap(DATA / "text" / "one_parameter_2.txt")
    paths = _callpaths(ens)
    assert len(paths) == len(ens.graph) == 15
    for path, node in paths.items():
        parts = path.split("->")
        if len(parts) > 1:
            parent = ens.graph.parent[node]
            assert paths["->".join(parts[:-1])] == parent


def test_cube_set_models_exclusive_values_papi_included():
    """A Cube set: exclusive values of every metric (PAPI counters are stored inclusively:
    their exclusive column is derived), the mean over locations, parameters from the
    directory names (y and z have one value each and are dropped, as in Extra-P)."""
    ens = _read("cubeset/single_parameter")
    assert list(ens.metadata.columns) == ["x", "repetition", "file"]
    assert sorted(ens.metadata["x"]) == [1, 10, 25, 50, 100, 250, 500, 1000, 2000]
    assert {"time", "PAPI_FP_OPS", "PAPI_FP_OPS (inc)", "time (inc)"} <= set(ens.dataframe)
    assert "PAPI_FP_OPS" in ens.exc_metrics and ens.unit_of("time") == "s"
    assert ens.default_metric == "time"  # exclusive, what Extra-P models
    paths = _callpaths(ens)
    main, children = (
        paths["main"],
        [paths[f"main->{c}"] for c in ("init_mat", "zero_mat", "mat_mul")],
    )
    inc = metric_matrix(ens, "PAPI_FP_OPS (inc)")
    exc = metric_matrix(ens, "PAPI_FP_OPS")
    np.testing.assert_allclose(exc[main], inc[main] - inc[children].sum(axis=0))


def test_cube_directory_names_read_as_extrap_reads_them():
    here = Path("x")
    assert point_of("mm.x10y1z1.r1", here) == (["x", "y", "z"], [10.0, 1.0, 1.0])
    assert point_of("mm.a1.1b1.1c1.1", here) == (["a", "b", "c"], [1.1, 1.1, 1.1])
    assert point_of("mm.a1,5.b2,5.r3", here) == (["a", "b"], [1.5, 2.5])
    assert point_of("x1y2z3", here) == (["x", "y", "z"], [1.0, 2.0, 3.0])  # no prefix
    with pytest.raises(ParseError, match="a run directory named"):
        point_of("mm.results", here)


def test_cube_set_repetitions_are_averaged(tmp_path):
    """Two runs at each point (.r1, .r2): two profiles per point; their mean is the
    model's input, as Extra-P's mean over repetitions."""
    for d in (DATA / "cubeset" / "single_parameter").iterdir():
        for r in (1, 2):
            shutil.copytree(d, tmp_path / d.name.replace(".r1", f".r{r}"))
    ens = _read(str(tmp_path))
    assert len(ens) == 18 and ens.metadata["repetition"].tolist() == [1, 2] * 9
    one = _read("cubeset/single_parameter")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = ens.models("time", "x"), one.models("time", "x")
    pd.testing.assert_frame_equal(a[["model", "smape"]], b[["model", "smape"]])


def test_call_paths_missing_at_some_points_merge_into_their_parent():
    """Extra-P merges a call path measured at some points only into its nearest ancestor
    measured everywhere (exclusive values added) and drops it."""

    def frame(names, parents, values):
        graph = pw.Graph.from_parents([{"name": n, "type": "function"} for n in names], parents)
        df = pd.DataFrame({"time": values, "time (inc)": values, "name": names})
        df.index = pd.Index(range(len(names)), name="node")
        return GraphFrame(graph, df, ["time"], ["time (inc)"], "time")

    full = frame(["main", "a"], [-1, 0], [1.0, 2.0])
    extra = frame(["main", "a", "b"], [-1, 0, 1], [1.0, 2.0, 0.5])
    out = _merge_partial([full, extra], [(1.0,), (2.0,)])
    pd.testing.assert_frame_equal(out[0].dataframe, full.dataframe)
    assert out[1].graph.frames["name"].tolist() == ["main", "a"]
    assert out[1].dataframe["time"].tolist() == [1.0, 2.5]
    assert out[1].dataframe["time (inc)"].tolist() == [1.0, 2.0]


def test_saved_experiment_holds_statistics_not_repetitions():
    """A .extra-p file keeps each point's mean, median, min, max, std and count: one
    profile per point, the mean as the metric, the others beside it."""
    ens = _read("saved/two_parameter_1.extra-p")
    text = _read("text/two_parameter_1.txt")
    assert len(ens) == 25 and (ens.metadata["repetitions"] == 5).all()
    assert {"metr", "metr median", "metr min", "metr max", "metr std"} <= set(ens.dataframe)
    means = metric_matrix(ens, "metr")[0]
    by_point = text.metadata.assign(v=metric_matrix(text, "metr")[0]).groupby(["x", "y"])["v"]
    np.testing.assert_allclose(means, by_point.mean().to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(
        metric_matrix(ens, "metr median")[0], by_point.median().to_numpy(), rtol=1e-12
    )


def test_detection():
    assert detect(DATA / "cubeset" / "single_parameter") == "cube"
    assert detect(DATA / "text" / "one_parameter_1.txt") == "text"
    assert detect(DATA / "talpas" / "talpas_1.txt") == "talpas"
    assert detect(DATA / "jsonlines" / "test1.jsonl") == "jsonlines"
    assert detect(DATA / "json" / "input_1.JSON") == "json"
    assert detect(DATA / "saved" / "two_parameter_1.extra-p") == "extra-p"
    with pytest.raises(FormatError, match="Extra-P's formats are"):
        pw.Ensemble.from_extrap(DATA / "text" / "one_parameter_1.txt", format="csv")


BAD = [
    ("t.txt", "PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1\nDATA 2\nDATA 3\n",
     r"t.txt, line 6: expected one DATA line per point \(2 points\) after REGION 'r'"),
    ("t.txt", "PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1\nDATUM 2\n",
     r"t.txt, line 5: expected one of PARAMETER, .* found 'DATUM 2'"),
    ("t.txt", "PARAMETER x y\nPOINTS 1 2\n",
     r"line 2: expected points of 2 values in parentheses: \(x y\)"),
    ("t.txt", "PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1 abc\n",
     r"line 4: expected a number as a DATA value, found 'abc'"),
    ("t.txt", "PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1\n",
     r"call path 'r', metric '<default>' at 1 of 2 points; none at \(x=2\)"),
    ("t.json",
     '{"parameters": ["x"], "measurements": {"r": {"m": [{"point": [1], "values": ["a"]}]}}}',
     r"measurements\['r'\]\['m'\]\[0\]: expected a number as a measured value, found 'a'"),
    ("t.json", '{"parameters": ["x"], "measurements": {"r": {"m": [{"point": [1]}]}}}',
     r"expected a key 'values'"),
    ("t.json", '{"parameters": ["x"], "measurements": ',
     r"t.json, line 1, column \d+: expected a JSON document"),
    ("t.jsonl", '{"params": {"x": 1}, "value": 2}\n{"params": {"y": 1}, "value": 2}\n',
     r"t.jsonl, line 2: expected a value of every parameter \(x\), found \"none of 'x'\""),
    ("t.jsonl", '{"params": {"x": 1}, "value": 2}\n{"params": {"x": 2}, "value": true}\n',
     r"line 2: expected 'value' as number or list of numbers, found 'True'"),
    ("t.txt", '{"parameters":{"x":20};"metric":"time";"callpath":"c";"value":1}\n'
     '{"parameters":{"x":30};"metric":"time";"value":1}\n',
     r"line 2: expected a key 'callpath'"),
    ("t.extra-p", "not a zip", r"expected an Extra-P experiment \(a ZIP archive\)"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "message"), BAD)
def test_bad_input_is_named_by_file_and_place(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ParseError, match=message):
        pw.Ensemble.from_extrap(path)


def test_a_point_written_twice_in_points_is_named(tmp_path):
    """DATA lines count the points as POINTS writes them: with (x=20) written twice, the
    third DATA line is the second (x=20)'s. The points were kept once each, so that line's
    value was read as x=40's and the fourth as x=50's, with no word of it."""
    path = tmp_path / "t.txt"
    path.write_text("PARAMETER x\nPOINTS (20) (30)\nPOINTS (20) (40) (50)\nREGION r\n"
                    "DATA 1\nDATA 2\nDATA 3\nDATA 4\n")  # fmt: skip
    with pytest.raises(ParseError, match=r"t.txt, line 3: expected each point once .*\(x=20\)"):
        pw.Ensemble.from_extrap(path)


def test_json_ids_count_into_their_lists_as_written(tmp_path):
    """The older JSON layout names a measurement's coordinate and call path by id, counted
    into each list as written. Coordinate 3 repeats x=4 and call path 2 repeats 'a': kept
    once each, every later id pointed one item further on (coordinate 3 at x=16, call path
    2 at 'b') and the last was refused as out of range."""

    def coord(i: int, x: int) -> dict:
        return {"id": i, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": x}]}

    doc = {
        "parameters": [{"id": 1, "name": "x"}],
        "callpaths": [{"id": 1, "name": "a"}, {"id": 2, "name": "a"}, {"id": 3, "name": "b"}],
        "metrics": [{"id": 1, "name": "time"}],
        "coordinates": [coord(1, 4), coord(2, 8), coord(3, 4), coord(4, 16)],
        "measurements": [
            {"coordinate_id": c, "callpath_id": cp, "metric_id": 1, "value": 10 * c + cp}
            for c in (1, 2, 3, 4)
            for cp in (1, 2, 3)
        ],
    }
    path = tmp_path / "ids.json"
    path.write_text(json.dumps(doc))
    ens = pw.Ensemble.from_extrap(path)
    df = ens.dataframe.reset_index().merge(ens.metadata.reset_index(), on="profile")
    got = (
        df.dropna(subset=["time"])
        .groupby(["name", "x"], observed=True)["time"]
        .agg(sorted)
        .to_dict()
    )
    assert got == {
        ("a", 4.0): [11.0, 12.0, 31.0, 32.0],
        ("a", 8.0): [21.0, 22.0],
        ("a", 16.0): [41.0, 42.0],
        ("b", 4.0): [13.0, 33.0],
        ("b", 8.0): [23.0],
        ("b", 16.0): [43.0],
    }


NOT_FINITE = [
    ("t.txt", "PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1 nan\nDATA 2\n",
     r"t.txt, line 4: expected a finite number as a DATA value, found 'nan'"),
    ("t.txt", "PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1\nDATA -inf\n",
     r"t.txt, line 5: expected a finite number as a DATA value, found '-inf'"),
    ("t.json", '{"parameters": ["x"], "measurements": {"r": {"m": [{"point": [1], '
     '"values": [NaN]}]}}}',
     r"measurements\['r'\]\['m'\]\[0\]: expected a finite number as a measured value"),
    ("t.jsonl", '{"params": {"x": 1}, "value": 1' + "0" * 400 + "}\n",
     r"t.jsonl, line 1: expected a finite number as a value"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "text", "message"), NOT_FINITE, ids=["text-nan", "text-inf", "json-NaN", "jsonl-1e400"]
)
def test_a_measured_value_that_is_not_finite_is_named(tmp_path, name, text, message):
    """``nan`` or ``inf`` measured nothing: read as a value, the models counted it as a
    missing repetition without a word (a 'good' fit of the rest); an integer past the
    double range escaped as a bare OverflowError."""
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ParseError, match=message):
        pw.Ensemble.from_extrap(path)


def test_a_parameter_the_first_line_lacks_is_named(tmp_path):
    """JSON Lines takes its parameters from the first line, as Extra-P does: a later line's
    'y' is ignored, so its measurements at y=1 and y=2 pool as repetitions of x=1 (kept, as
    Extra-P reads them), which no word said."""
    lines = [{"x": 1}, {"x": 1, "y": 2}, {"x": 2, "y": 1}, {"x": 2}]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps({"params": p, "value": 5}) + "\n" for p in lines))
    with pytest.warns(SkippedInputWarning, match=r"t.jsonl: 2 lines .* line 2, 'y'"):
        ens = pw.Ensemble.from_extrap(path)
    assert ens.metadata["x"].tolist() == [1.0, 1.0, 2.0, 2.0]


def test_saved_experiment_without_its_data_file(tmp_path):
    path = tmp_path / "e.extra-p"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("other.json", "{}")
    with pytest.raises(ParseError, match=r"a ZIP archive holding experiment.json"):
        pw.Ensemble.from_extrap(path)


def test_bad_cube_sets(tmp_path):
    with pytest.raises(FormatError, match="no .cubex file in its subdirectories"):
        pw.Ensemble.from_extrap(tmp_path)
    src = DATA / "cubeset" / "single_parameter"
    shutil.copytree(src / "mm.x1y1z1.r1", tmp_path / "mm.x1y1z1.r1")
    shutil.copytree(src / "mm.x10y1z1.r1", tmp_path / "mm.a10b1.r1")
    with pytest.raises(
        ParseError,
        match=r"mm.x1y1z1.r1/profile.cubex: expected the parameters \['a', 'b'\] in every run",
    ):
        pw.Ensemble.from_extrap(tmp_path)
