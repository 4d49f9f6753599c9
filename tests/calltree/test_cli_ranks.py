"""`perfweave tree|convert` on a multi-rank profile: aggregate (said so), --rank, inclusive metrics."""

from __future__ import annotations

import math

import pytest

import perfweave as pw
from perfweave.cli import main
from perfweave.examples import path

CPI = str(path("cpi-callpath-profile.json"))  # the bundled Caliper JSON: 4 ranks, exclusive only


def _root_value(line: str) -> float:
    return float(line.split()[0])


def test_tree_inclusive_metric_on_caliper_json_is_the_mean_over_ranks(capsys):
    gf = pw.read(CPI)
    assert "time (inc)" not in gf.dataframe.columns  # the reader gives exclusive time only
    assert main(["tree", CPI, "--metric", "time (inc)", "--depth", "1", "--color", "never"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "# mean over 4 ranks (--aggregate sum|min|max|median, --rank N)"
    root = next(line for line in lines if line.endswith(" _start"))
    df = gf.dataframe.reset_index()
    start = int(df.loc[df["name"] == "_start", "node"].iloc[0])
    below = df[df["node"].isin(gf.graph.subtree(start))]
    expected = below.groupby("rank")["time"].sum().mean()  # inclusive per rank, then the mean
    assert _root_value(root) == pytest.approx(expected, abs=1e-3)


def test_rank_and_aggregate_options(capsys):
    values = {}
    for option in (["--rank", "0"], ["--rank", "3"], ["--aggregate", "max"], []):
        assert main(["tree", CPI, "--metric", "time (inc)", "--color", "never", *option]) == 0
        lines = capsys.readouterr().out.splitlines()
        values[" ".join(option)] = _root_value(next(x for x in lines if x.endswith(" _start")))
        if option[:1] == ["--rank"]:
            assert lines[0] == f"# rank {option[1]} of 4"
    per_rank = [values["--rank 0"], values["--rank 3"]]
    assert values["--aggregate max"] >= max(per_rank)
    assert values["--rank 0"] != values["--rank 3"]  # the ranks differ, so the choice shows
    assert min(per_rank) <= values["--aggregate max"]


def test_rank_that_does_not_exist_is_named(capsys):
    assert main(["tree", CPI, "--rank", "7"]) == 1
    err = capsys.readouterr().err
    assert "--rank 7: no such rank; expected one of 0..3 (4 ranks)" in err and CPI in err


def test_convert_aggregates_and_says_so_on_stderr(capsys):
    assert main(["convert", CPI, "--to", "folded", "--metric", "time"]) == 0
    captured = capsys.readouterr()
    assert (
        captured.err.strip()
        == "perfweave convert: mean over 4 ranks (--aggregate sum|min|max|median, --rank N)"
    )
    folded = dict(line.rsplit(" ", 1) for line in captured.out.splitlines())
    gf = pw.read(CPI)
    df = gf.dataframe.reset_index()
    main_exc = df[df["name"] == "main"].groupby("rank")["time"].sum()
    assert float(folded["_start;__libc_start_main;main"]) == pytest.approx(main_exc.mean())
    assert main(["convert", CPI, "--to", "folded", "--metric", "time", "--rank", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.err.strip() == "perfweave convert: rank 2 of 4"
    folded = dict(line.rsplit(" ", 1) for line in captured.out.splitlines())
    assert float(folded["_start;__libc_start_main;main"]) == pytest.approx(main_exc.loc[2])


def test_single_rank_profile_has_no_note(capsys):
    lit = "tests/data/hatchet/json/hatchet-graph-literal.json"
    assert main(["tree", lit, "--depth", "1", "--color", "never"]) == 0
    assert not capsys.readouterr().out.startswith("#")
    assert main(["tree", lit, "--rank", "0"]) == 1
    assert "the profile has no ranks" in capsys.readouterr().err


AMS = "tests/data/hatchet-more/perfflowaspect-ams"  # PerfFlowAspect: 2 ranks, rank 1 ran few


def _values(text: str) -> list[float]:
    return [float(ln.lstrip("│├└─ ").split()[0]) for ln in text.splitlines() if ln[:1] != "#"]


def test_one_rank_counts_0_where_it_measured_nothing(capsys):
    # rank 1 of the AMS trace never ran many of the calls rank 0 ran: they read nan where
    # every reduction over ranks counts them 0; now 0, and the first line says so
    with pytest.warns(pw.errors.PerfweaveWarning):
        gf = pw.read(AMS)
    text = gf.tree(rank=1, color=False)
    assert "a node with no row in rank 1 counts 0" in text.splitlines()[0]
    values = _values(text)
    assert not [v for v in values if math.isnan(v)] and values.count(0.0) > 100
    assert max(values) > 0  # what rank 1 did run keeps its time
    assert main(["tree", AMS, "--rank", "1", "--color", "never"]) == 0
    out = capsys.readouterr().out
    assert "a node with no row in rank 1 counts 0" in out.splitlines()[0]
    assert _values(out) == values
