"""``perfweave ensemble`` on the bundled RAJAPerf profiles."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pandas as pd

from perfweave.cli import main
from perfweave.ensemble import Ensemble


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_summary(quartz_files):
    code, out, _ = _run(["ensemble", *quartz_files])
    assert code == 0
    assert "profiles: 5" in out and "nodes:    74" in out


def test_stats_csv_and_json(quartz_files, tmp_path):
    target = tmp_path / "ens.json"
    code, out, _ = _run(
        ["ensemble", *quartz_files, "--metric", "Avg time/rank", "--stats", "--json", str(target)]
    )
    assert code == 0
    table = pd.read_csv(io.StringIO(out), index_col="node")
    assert len(table) == 74
    assert table.loc[0, "name"] == "RAJAPerf"
    ens = Ensemble.from_json(str(target))
    expected = ens.dataframe["Avg time/rank"].xs(0, level="node").mean()
    assert abs(table.loc[0, "Avg time/rank_mean"] - expected) < 1e-9


def test_tree_and_errors(quartz_files, tmp_path):
    code, out, _ = _run(["ensemble", *quartz_files, "--tree", "max", "--metric", "Avg time/rank"])
    assert code == 0 and out.splitlines()[0] == "# Avg time/rank_max in s"  # the unit
    assert out.splitlines()[1].endswith("RAJAPerf")
    bad = tmp_path / "bad.cali"
    bad.write_bytes(b"__rec=ctx,ref=1\n")
    code, _, err = _run(["ensemble", quartz_files[0], str(bad)])
    assert code == 1 and "bad.cali" in err
    code, out, err = _run(["ensemble", quartz_files[0], str(bad), "--skip-errors"])
    assert code == 0 and "skipped" in err and "profiles: 1" in out
