"""``perfweave models --extrap``: an Extra-P experiment on the command line, modelled as
Extra-P models it (tests/data/extrap/extrap_models.json, written by Extra-P 4.2.5)."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd

from perfweave.cli import main

DATA = Path(__file__).parent.parent / "data" / "extrap"


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_a_text_experiment_gets_extraps_models():
    path = DATA / "text" / "one_parameter_2.txt"
    code, out, err = _run(["models", str(path), "--extrap", "--param", "x", "--csv", "--top", "0"])
    assert code == 0 and err == ""
    table = pd.read_csv(io.StringIO(out))
    ref = json.loads((DATA / "extrap_models.json").read_text())["text/one_parameter_2.txt"]
    assert len(table) == len(ref["functions"]) == 15
    by_path = dict(zip(table["path"], table["model"]))
    for f in ref["functions"]:
        c0, c1 = f["model"]["c0"], f["model"]["c1"]
        assert by_path[f["callpath"].replace("->", " > ")].startswith(f"{c0:.3g} + {c1:.3g}")


def test_a_cube_set_with_three_values_per_parameter_warns_once():
    path = DATA / "cubeset" / "multi_parameter"
    code, out, err = _run(["models", str(path), "--extrap", "--param", "x,y,z", "--top", "1"])
    assert code == 0 and out.startswith("'time' over 'x', 'y', 'z': 27 runs, 4 call paths")
    warnings = [line for line in err.splitlines() if line]
    assert len(warnings) == 1 and "fewer than 5 distinct parameter values (fewest: 3)" in err


def test_an_incomplete_experiment_is_one_error_naming_the_function():
    code, out, err = _run(
        ["models", str(DATA / "json" / "input_11.JSON"), "--extrap", "--param", "x"]
    )
    assert code == 1 and out == ""
    assert "input_11.JSON" in err and "call path 'sweep', metric 'time' at 4 of 5 points" in err
    code, _, err = _run(["models", "a.txt", "b.txt", "--extrap", "--param", "x"])
    assert code == 1 and "--extrap reads one experiment, not 2 paths" in err
