"""``perfweave models`` on the MPI scaling ensemble."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from perfweave.cli import main
from perfweave.ensemble import Ensemble
from perfweave.scaling import predict

MPI = str(Path(__file__).parent.parent / "data" / "thicket" / "mpi_scaling_cali")
ARGS = ["models", MPI, "--param", "mpi.world.size", "--metric", "Avg time/rank"]


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def fits() -> pd.DataFrame:
    return Ensemble.from_files(MPI).models("Avg time/rank", "mpi.world.size")


def test_fastest_growing_first(fits):
    code, out, _ = _run([*ARGS, "--top", "4", "--csv"])
    assert code == 0
    table = pd.read_csv(io.StringIO(out), index_col="node")
    assert len(table) == 4
    # p^(9/4) > p^(7/4) > p^(4/3) log2(p) > p log2(p): the steepest terms of this ensemble
    assert table["term"].tolist() == ["p^(9/4)", "p^(7/4)", "p^(4/3) log2(p)", "p log2(p)"]
    assert table.index.tolist() == [2, 0, 4, 1]
    np.testing.assert_allclose(table["smape"], fits.loc[table.index, "smape"])
    growing = fits[fits["c1"] > 0]
    assert growing["p_exp"].max() == 9 / 4


def test_target_ranks_by_predicted_value(fits):
    code, out, _ = _run([*ARGS, "--top", "0", "--target", "4096", "--csv"])
    assert code == 0
    table = pd.read_csv(io.StringIO(out), index_col="node")
    assert len(table) == len(fits)
    at = table["at mpi.world.size=4096 (s)"].to_numpy()
    finite = at[np.isfinite(at)]
    assert (np.diff(finite) <= 0).all() and np.isnan(at[len(finite) :]).all()
    # a time below 0 is no value: the shrinking models that cross 0 before 4096 ranks
    below = predict(fits, 4096.0) < 0
    assert set(table.index[np.isnan(at)]) == set(fits.index[below]) == {8, 24, 41}
    low, high = table["90% low"], table["90% high"]
    assert ((low <= at) | np.isnan(at)).all()
    assert ((high >= low) & (low >= 0) | np.isnan(at)).all()
    row = fits.loc[2]  # MPI_Allreduce: 1.92e-05 + 9.09e-09 * p^(9/4)
    expected = row["c0"] + row["c1"] * 4096 ** (9 / 4)
    # the unit in the header
    assert table.loc[2, "at mpi.world.size=4096 (s)"] == pytest.approx(expected)


def test_text_table_has_a_summary_line():
    code, out, _ = _run([*ARGS, "--top", "3"])
    assert code == 0
    first = out.splitlines()[0]
    assert "5 runs, 45 call paths" in first and "0 without a model" in first
    assert "1.92e-05 + 9.09e-09 * p^(9/4)" in out


def test_missing_and_non_numeric_parameter():
    code, _, err = _run(["models", MPI, "--param", "mpi.size"])
    assert code == 1 and "no metadata column 'mpi.size'" in err and "mpi.world.size" in err
    code, _, err = _run(["models", MPI, "--param", "cluster"])
    assert code == 1 and "metadata column 'cluster' is not numeric" in err
    assert "has 'opal'" in err


def test_no_model_for_any_call_path_is_said_once():
    # the five runs share one launch date: one message, not a row per call path saying it
    code, out, err = _run(["models", MPI, "--param", "launchdate", "--top", "1"])
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert "5 runs at launchdate = 1.61661e+09: no call path can be modelled" in err
    assert "a model needs at least 5" in err


def test_quality_and_intervals_in_the_text_table(fits):
    """Each row says how far to trust it (a poor fit in capitals), a shrinking model reads
    as shrinking, the prediction past the data comes with its interval and none is a
    time below 0."""
    code, out, _ = _run([*ARGS, "--top", "0", "--target", "4096"])
    assert code == 0
    assert "mpi.world.size=4096 is 11.9x the largest measured (343): an extrapolation" in out
    rows = {line.split()[0]: line for line in out.splitlines()[4:] if line[:1].isdigit()}
    assert len(rows) == len(fits)
    shrinking = rows["41"]  # CalcTimeConstraintsForElems: 0.159 - 2.2e-07 * p^(5/3)
    assert " -p^(5/3) " in shrinking and "< 0: model invalid here" in shrinking
    assert shrinking.rstrip().endswith("POOR")
    assert rows["5"].rstrip().endswith("good")  # main: a constant within 9 %
    assert (
        sum(r.rstrip().endswith("POOR") for r in rows.values()) == (fits["quality"] == "poor").sum()
    )
    assert out.rstrip().splitlines()[-1].startswith("POOR: SMAPE above 50%")
    code, csv, _ = _run([*ARGS, "--top", "0", "--csv"])
    table = pd.read_csv(io.StringIO(csv), index_col="node")
    assert (table["quality"] == fits.loc[table.index, "quality"]).all()
    assert table.loc[41, "term"] == "-p^(5/3)"
