"""Caliper timeseries .cali files as per-iteration ensembles, against the records
themselves and against Hatchet's ``GraphFrame.from_timeseries``."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import perfweave
from perfweave.calltree.readers.cali import load_contents as _load
from perfweave.ensemble import Ensemble
from perfweave.errors import ParseError

DATA = Path(__file__).parent.parent / "data" / "hatchet" / "caliper-timeseries-cali"
FILES = sorted(DATA.glob("*.cali"))
LOOP_FILE = DATA / "230711-163829_2055495_OV0UMVFsW6yp.cali"
LULESH = DATA / "timeseries.cali"


def _paths(ens: Ensemble) -> dict[int, tuple[str, ...]]:
    names = ens.graph.frames["name"].tolist()
    parent = ens.graph.parent
    out = {}
    for nid in range(len(names)):
        path, x = [], nid
        while x >= 0:
            path.append(names[x])
            x = int(parent[x])
        out[nid] = tuple(reversed(path))
    return out


def _block_starts(path: Path) -> list[int]:
    """The distinct loop.start_iteration values in file order, read from the records."""
    contents, _ = _load(path)
    out: list[int] = [0]
    for rec in contents.records:
        if "loop.start_iteration" in rec and int(rec["loop.start_iteration"]) != out[-1]:
            out.append(int(rec["loop.start_iteration"]))
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_one_profile_per_iteration_block(path):
    ens = Ensemble.from_timeseries(path)
    starts = _block_starts(path)
    assert ens.profiles == starts
    assert ens.metadata["iteration"].tolist() == starts
    assert ens.metadata["cali.caliper.version"].eq("2.10.0-dev").all()
    assert perfweave.read_timeseries(path).profiles == starts
    plain = perfweave.read(path)  # the whole file as one profile: the same call tree
    assert sorted(_paths(ens).values()) == sorted(
        _paths(Ensemble.from_graphframes([plain])).values()
    )


def test_block_values_are_record_means():
    # the loop file: block 20 holds two records of main/mainloop at snapshot 2, one of
    # which has the sum of the time; averaged as Hatchet does
    ens = Ensemble.from_timeseries(LOOP_FILE)
    contents, _ = _load(LOOP_FILE)
    mainloop = [
        r
        for r in contents.records
        if r.get("path") == ["main", "mainloop"] and r.get("loop.start_iteration") == "20"
    ]
    node = {v: k for k, v in _paths(ens).items()}[("main", "mainloop")]
    row = ens.dataframe.loc[(node, 20)]
    for column in ("loop.iterations", "timeseries.snapshot", "sum#time.duration.ns"):
        values = [float(r[column]) for r in mainloop if column in r]
        assert math.isclose(row[column], sum(values) / len(values))


def test_set_up_nodes_stay_with_loop_attributes_only():
    ens = Ensemble.from_timeseries(LOOP_FILE)
    node = {v: k for k, v in _paths(ens).items()}
    for start in ens.profiles[1:]:
        init = ens.dataframe.loc[(node[("main", "init")], start)]
        assert init["timeseries.snapshot"] == 0.0 and init["loop.iterations"] == 0.0
        assert np.isnan(init["sum#time.duration.ns"])


def test_ensemble_operations_work_on_iterations():
    ens = Ensemble.from_timeseries(LULESH)
    metric = "sum#time.duration.ns"
    (column,) = ens.stats([metric], stats=["mean"])
    node = {v: k for k, v in _paths(ens).items()}[("main", "lulesh.cycle", "LagrangeLeapFrog")]
    per_iteration = ens.dataframe.xs(node, level="node")[metric]
    assert per_iteration.notna().sum() > 40
    assert math.isclose(ens.statsframe.loc[node, column], per_iteration.mean())
    late = ens.filter_metadata(lambda row: row["iteration"] >= 90)
    assert late.profiles == [p for p in ens.profiles if p >= 90]


def test_a_file_without_the_level_is_refused():
    plain = Path(__file__).parent.parent / "data" / "hatchet" / "caliper-lulesh-cali"
    path = sorted(plain.glob("*.cali"))[0]
    with pytest.raises(ParseError, match="timeseries file .*loop.start_iteration"):
        Ensemble.from_timeseries(path)
    with pytest.raises(ParseError, match="records with 'no.such'"):
        Ensemble.from_timeseries(LOOP_FILE, level="no.such")


@pytest.mark.parametrize("value", ["1e400", "inf", "nan", "1e30"])
def test_a_level_value_that_is_no_int64_is_refused(tmp_path, value):
    """A ParseError naming the value, not an OverflowError from int(float('1e400'))."""
    lines = LOOP_FILE.read_text().split("\n")
    k = next(i for i, t in enumerate(lines) if t.startswith("__rec=ctx") and "=29=" in t)
    head, data = lines[k].split(",data=")
    values = data.split("=")
    values[head.split("attr=")[1].split("=").index("29")] = value  # loop.start_iteration
    lines[k] = f"{head},data={'='.join(values)}"
    path = tmp_path / "mutant.cali"
    path.write_text("\n".join(lines))
    with pytest.raises(ParseError, match="whole number as the value of 'loop.start_iteration'"):
        Ensemble.from_timeseries(path)


@pytest.mark.peer
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_same_as_hatchet_from_timeseries(path):
    import hatchet as ht

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ht.GraphFrame.from_timeseries(str(path))
    ours = Ensemble.from_timeseries(path)
    assert len(theirs) == len(ours.profiles)
    node_of = {p: n for n, p in _paths(ours).items()}
    compared = 0
    for start, gf in zip(ours.profiles, theirs):
        table = ours.dataframe.xs(start, level="profile")
        measured = table[table["nid"].notna()]
        assert len(measured) == len(gf.dataframe)
        for hnode, row in gf.dataframe.iterrows():
            mine = table.loc[node_of[tuple(n.frame["name"] for n in hnode.path())]]
            assert mine["name"] == row["name"]
            for column, value in row.items():
                if column in ("nid", "name"):
                    continue
                if pd.isna(value):
                    assert pd.isna(mine[column]), (start, hnode, column)
                else:
                    assert math.isclose(mine[column], float(value), rel_tol=1e-12), column
                    compared += 1
    assert compared > 0
