"""The explorer's numbers without a browser: each column carries one format (and the page
only applies it), and the lines under the table that list a node's largest ranks read as
one column."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import perfweave as pw
from perfweave.calltree.numbers import ColumnFormat
from perfweave.widgets import CalltreeExplorer

DATA = Path(__file__).resolve().parents[1] / "data"
GAMESS = DATA / "hatchet-more/hpctoolkit-gamess"
SAMPLING = DATA / "calltree-sampling/sampling-profile.cali"


@pytest.fixture(scope="module")
def gamess():
    return pw.GraphFrame.from_hpctoolkit_latest(str(GAMESS), per_profile=True)


def test_a_nodes_largest_ranks_read_as_one_column(gamess):
    """GAMESS per profile, node 33: its ranks ran 45 ms down to 10 ms, written before as
    0.04501 s, 0.025 s, 0.02 s (a column of three decimal counts)."""
    ex = CalltreeExplorer(gamess)
    ex.select(33)
    lines = ex.details["lines"]
    values = [re.match(r"rank \d+: (\S+) (\S+) \(", line).groups() for line in lines]
    assert {unit for _, unit in values} == {"ms"}
    assert len({len(v.partition(".")[2]) for v, _ in values}) == 1, lines
    per_rank = gamess.dataframe["time (inc)"].groupby(level=["node", "rank"]).sum().loc[33]
    top = per_rank.sort_values(ascending=False, kind="stable").head(len(lines))
    np.testing.assert_allclose([float(v) * 1e-3 for v, _ in values], top, atol=0.5e-5)


def test_each_column_sends_its_one_format():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pw.errors.NoRegionWarning)
        gf = pw.read(SAMPLING)
    ex = CalltreeExplorer(gf)
    ex.expand(0, subtree=True)
    rows = ex.visible_rows()
    for spec in ex.columns:
        fmt = ColumnFormat(**spec["format"])
        texts = [fmt.text(v) for v in rows[spec["key"]]]
        numbers = [t.split(" ")[0] for t in texts if t != "0" and not t.startswith("0 ")]
        assert len({len(n.partition(".")[2]) for n in numbers}) == 1, texts
        assert all("e" not in t for t in texts)
    units = {spec["label"]: spec["format"]["unit"] for spec in ex.columns}
    assert units["time (inc)"] == "ms" and units["count (inc)"] == ""
