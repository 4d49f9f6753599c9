"""Multi-parameter models of an ensemble (``Ensemble.models(metric, [a, b])``), the CLI
(``perfweave models --param a --param b``) and ScalingStudy's one-parameter rule, on a
small two-parameter study written as Caliper json-split files."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from perfweave.cli import main
from perfweave.ensemble import Ensemble
from perfweave.errors import MetadataError
from perfweave.scaling import ScalingStudy, predict
from perfweave.scaling.fit import FewParameterValues
from tests.scaling._multi_runs import EXPECTED, RANKS, SIZES, TRUTH, write_runs


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("multi_runs")
    write_runs(folder)
    return folder


@pytest.fixture(scope="module")
def ens(runs) -> Ensemble:
    return Ensemble.from_files(str(runs))


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_models_per_node_over_two_metadata_columns(ens):
    fits = ens.models("time", ["ranks", "size"])
    assert fits.index.name == "node" and list(fits.columns[:2]) == ["name", "c0"]
    for _, row in fits.iterrows():
        combination, (pe, pl), (qe, ql) = EXPECTED[row["name"]]
        assert row["combination"] == combination, row["model"]
        got = [row["p_exp[ranks]"], row["log_exp[ranks]"], row["p_exp[size]"], row["log_exp[size]"]]
        assert got == [pe, pl, qe, ql]
        assert row["n"] == 25 and row["smape"] < 1e-9
    solve = fits.set_index("name").loc["solve"]
    assert solve["model"] == "2 + 0.01 * log2(ranks)^(1) * size^(1)"
    # Thicket's column names in the statistics table hold the model texts
    stats = ens.statsframe
    assert stats["time_extrap-model"].tolist() == fits["model"].tolist()
    np.testing.assert_allclose(stats["time_SMAPE_extrap-model"], fits["smape"])
    at = predict(fits, {"ranks": 1024, "size": 3200})
    names = fits["name"].tolist()
    truth = [TRUTH[n](1024.0, 3200.0) for n in names]
    np.testing.assert_allclose(at, truth, rtol=1e-9)


def test_a_list_of_one_column_is_the_single_parameter_model(ens):
    one = ens.models("time", ["ranks"])
    pd.testing.assert_frame_equal(one, ens.models("time", "ranks"))
    assert "c1" in one.columns


def test_bad_parameter_columns_are_named(ens):
    with pytest.raises(MetadataError, match="no metadata column 'nodes' to model over"):
        ens.models("time", ["ranks", "nodes"])
    with pytest.raises(MetadataError, match=r"'machine' is not numeric: profile .* has '[ab]'"):
        ens.models("time", ["ranks", "machine"])
    with pytest.raises(
        MetadataError,
        match=r"'fixed' has 1 distinct value \(7\): a multi-parameter model needs at least 2",
    ):
        ens.models("time", ["ranks", "fixed"])
    with pytest.raises(MetadataError, match="parameter 'ranks' is given twice"):
        ens.models("time", ["ranks", "ranks"])


def test_fewer_runs_are_fitted_with_a_warning_per_parameter(runs):
    """Four values of a parameter: modelled as Extra-P models them, with a warning and a
    note naming the parameter, never "good"."""
    keep = [p for p in sorted(runs.glob("*.json")) if "_1600." not in p.name]
    small = Ensemble.from_files([str(p) for p in keep])
    with pytest.warns(FewParameterValues, match="fewest: 4"):
        fits = small.models("time", ["ranks", "size"])
    has = fits["reason"] == ""
    assert has.all() and fits["note"].str.contains("4 distinct values of 'size'").all()
    assert not (fits["quality"] == "good").any()


def test_scaling_study_takes_one_parameter(ens):
    with pytest.raises(MetadataError, match="models one parameter, not 2 .*'ranks', 'size'"):
        ScalingStudy(ens, ["ranks", "size"], "time")
    study = ScalingStudy(ens, ["ranks"], "time")
    assert study.param == "ranks" and len(study.models()) == len(TRUTH)


def test_cli_two_parameters(runs, ens):
    code, out, _ = _run(["models", str(runs), "--param", "ranks", "--param", "size", "--csv"])
    assert code == 0
    table = pd.read_csv(io.StringIO(out), index_col="node")
    at_max = f"at {max(RANKS)},{max(SIZES)}"
    assert list(table.columns) == ["path", "term", "model", at_max, "smape", "ar2", "quality"]
    largest = {n: TRUTH[n](max(RANKS), max(SIZES)) for n in TRUTH}
    want = sorted(largest, key=largest.get, reverse=True)
    assert [p.split(" > ")[-1] for p in table["path"]] == want
    np.testing.assert_allclose(table[at_max], sorted(largest.values(), reverse=True), rtol=1e-9)
    # a comma list is the same; --target predicts at one value per parameter
    code, out2, _ = _run(["models", str(runs), "--param", "ranks,size", "--csv"])
    assert out2 == out
    code, out3, _ = _run(
        ["models", str(runs), "--param", "ranks,size", "--target", "4096,100", "--top", "1"]
    )
    assert code == 0 and "over 'ranks', 'size'" in out3 and "at ranks=4096,size=100" in out3
    assert "4 call paths (3 with terms, 1 constant, 0 without a model)" in out3
    top = out3.strip().splitlines()[-1]
    assert "exchange" in top  # 1 + 0.3 * 4096 is the largest at 4096 ranks, size 100


def test_cli_bad_target_and_parameter(runs):
    code, _, err = _run(["models", str(runs), "--param", "ranks,size", "--target", "4096"])
    assert code != 0 and "--target '4096' has 1 value(s) for 2 parameter(s) (ranks, size)" in err
    code, _, err = _run(["models", str(runs), "--param", "ranks,size", "--target", "a,b"])
    assert code != 0 and "expected numbers (one per parameter: ranks, size)" in err
    code, _, err = _run(["models", str(runs), "--param", "ranks", "--param", "machine"])
    assert code != 0 and "'machine' is not numeric" in err


def test_scaling_view_says_it_takes_one_parameter(ens):
    from perfweave.widgets import ScalingView

    with pytest.raises(MetadataError, match="models one parameter, not 2"):
        ScalingView(ens, param=["ranks", "size"], metric="time")
