from __future__ import annotations

import pandas as pd

from perfweave.cli import main
from perfweave.merge import hrm_merge
from tests.merge.conftest import MERGE_DATA


def test_cli_hrm_writes_the_merge(tmp_path, hrm_subs):
    out = tmp_path / "merged.csv"
    rc = main(
        [
            "merge",
            "hrm",
            str(MERGE_DATA / "data_hrm_raw_vignette.csv"),
            "--n-pmcs",
            "6",
            "--anchor",
            "PROCESSOR_CYCLES",
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    written = pd.read_csv(out)
    expected = hrm_merge(hrm_subs, "PROCESSOR_CYCLES")
    pd.testing.assert_frame_equal(written, expected, check_dtype=False)


def test_cli_much_reports_dropped_hems(tmp_path, capsys):
    out = tmp_path / "much.csv"
    args = ["merge", "much", str(MERGE_DATA / "data_much_raw_vignette.csv"), "--n-pmcs", "6"]
    rc = main([*args, "--n-sims", "20", "--n-runs", "300", "--seed", "4", "--out", str(out)])
    assert rc == 0
    assert pd.read_csv(out).shape[0] == 300
    assert "dependent HEMs dropped: L2_DEMAND_ACCESSES" in capsys.readouterr().err


def test_cli_design_and_errors(capsys):
    assert main(["merge", "design", "--hems", "13", "--pmcs", "4", "--moves", "50000"]) == 0
    captured = capsys.readouterr()
    assert "13 subexperiments for 13 HEMs" in captured.err
    assert len(captured.out.strip().splitlines()) == 13
    assert main(["merge", "design", "--hems", "a,b,c", "--pmcs", "2", "--hrm"]) == 1
    assert "--hrm needs --anchor" in capsys.readouterr().err
    rc = main(
        [
            "merge",
            "hrm",
            str(MERGE_DATA / "data_hrm_raw_vignette.csv"),
            "--n-pmcs",
            "5",
            "--anchor",
            "X",
        ]
    )
    assert rc == 1
    assert "n_pmcs=5" in capsys.readouterr().err
