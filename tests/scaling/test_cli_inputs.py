"""``perfweave models`` on what a user points it at: a directory that also holds a
README.md, a single profile, and the number format of its predicted columns."""

from __future__ import annotations

import io
import re
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from perfweave.cli import main

MPI = Path(__file__).parent.parent / "data" / "thicket" / "mpi_scaling_cali"
ARGS = ["--param", "mpi.world.size", "--metric", "Avg time/rank"]


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_a_readme_beside_the_profiles_is_skipped_with_one_warning(tmp_path):
    for f in MPI.glob("*.cali"):
        shutil.copy(f, tmp_path)
    (tmp_path / "README.md").write_text("# the MPI scaling runs\n")
    code, out, err = _run(["models", str(tmp_path), *ARGS, "--top", "3"])
    assert code == 0
    warnings = [line for line in err.splitlines() if line]
    assert len(warnings) == 1 and "warning: skipped" in warnings[0]
    assert "README.md" in warnings[0] and "not a profile" in warnings[0]
    assert out.startswith("'Avg time/rank' over 'mpi.world.size': 5 runs, 45 call paths")


def test_a_single_profile_gets_one_clear_message(tmp_path):
    code, out, err = _run(["models", str(MPI / "27_cores.cali"), *ARGS])
    assert code != 0 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1  # not a row per call path saying "needs at least 5"
    assert "error: 1 run (" in lines[0] and "27_cores.cali" in lines[0]
    assert "mpi.world.size = 27" in lines[0] and "no call path can be modelled" in lines[0]


def test_predicted_columns_are_each_in_one_format():
    """A prediction and its interval share one format: one unit step and one number of
    decimals down the column (``50.80``, not ``50.8`` above ``1.476``), the header naming
    the unit."""
    code, out, _ = _run(["models", str(MPI), *ARGS, "--target", "4096", "--top", "12"])
    assert code == 0
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("path"))
    assert "at mpi.world.size=4096 (s)" in lines[header] and "at 343 (s)" in lines[header]
    body = lines[header + 2 :]
    names = ["at mpi.world.size=4096 (s)", "90% low", "90% high", "at 343 (s)"]
    decimals = []
    for name in names:  # a column's cells end where its header ends (right-aligned)
        end = lines[header].index(name) + len(name)
        column = [line[:end].split()[-1] for line in body]
        numbers = [c for c in column if re.fullmatch(r"-?[\d,]+(\.\d+)?", c) and c != "0"]
        assert len(numbers) >= 3 and all("e" not in c for c in numbers), column
        found = {len(c.partition(".")[2]) for c in numbers}
        assert len(found) == 1, (name, column)
        decimals.append(found.pop())
    # the prediction and its interval: one format for the three columns
    assert len(set(decimals[:3])) == 1
