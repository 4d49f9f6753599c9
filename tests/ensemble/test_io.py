"""JSON round trip, Thicket's JSON dump, and Thicket objects both ways."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from perfweave.ensemble import Ensemble
from perfweave.errors import ParseError, ShapeError

from .conftest import THICKET

USER_JSON = THICKET / "example-json" / "user_ensemble.json"


def _same(a: Ensemble, b: Ensemble) -> None:
    assert a.graph == b.graph
    pd.testing.assert_frame_equal(a.dataframe, b.dataframe)
    pd.testing.assert_frame_equal(a.metadata, b.metadata)
    pd.testing.assert_frame_equal(a.statsframe, b.statsframe)
    assert a.profile_mapping == b.profile_mapping
    assert a.exc_metrics == b.exc_metrics and a.inc_metrics == b.inc_metrics


def test_round_trip_from_files(quartz_files):
    ens = Ensemble.from_files(quartz_files)
    ens.stats(["Avg time/rank"], stats=["mean", "max"])
    back = Ensemble.from_json(ens.to_json())
    _same(ens, back)
    assert back.default_metric == ens.default_metric


def test_round_trip_keeps_missing_rows(three_gfs):
    ens = Ensemble.from_graphframes(three_gfs, profile_key="run")
    text = ens.to_json()
    assert "NaN" not in text  # JSON null, not a bare NaN
    _same(ens, Ensemble.from_json(text))


def test_reads_thickets_json_dump():
    ens = Ensemble.from_json(str(USER_JSON))
    doc = json.loads(USER_JSON.read_text())
    assert len(ens) == len(doc["metadata"]) == 172
    assert len(ens.graph) == len(doc["graph"][0]) == 29
    # the dump leaves out absent (node, profile) rows; perfweave fills them with NaN
    assert len(ens.dataframe) == 29 * 172 > len(doc["dataframe"])
    present = ens.dataframe.dropna(subset=["name"])
    assert len(present) == len(doc["dataframe"])
    rec = doc["dataframe"][0]
    node = [i for i, name in enumerate(ens.graph.frames["name"]) if name == rec["name"]][0]
    row = ens.dataframe.loc[(node, rec["profile"])]
    col = "sum#inclusive#sum#time.duration"
    assert row[col] == rec[col]
    assert ens.metadata.loc[rec["profile"], "cluster"] == next(
        m["cluster"] for m in doc["metadata"] if m["profile"] == rec["profile"]
    )
    assert sorted(ens.inc_metrics) == sorted(doc["inclusive_metrics"])


def test_bad_json_is_a_parse_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"graph": [')
    with pytest.raises(ParseError, match="bad.json"):
        Ensemble.from_json(str(bad))
    with pytest.raises(ParseError, match="dataframe"):
        Ensemble.from_json('{"graph": [{"0": {"data": {"name": "a"}, "children": []}}]}')
    orphan = {
        "graph": [{"0": {"data": {"name": "a"}, "children": []}}],
        "dataframe_indices": ["node", "profile"],
        "dataframe": [{"node": 5, "profile": 1, "name": "x"}],
    }
    with pytest.raises(ParseError, match="node 5"):
        Ensemble.from_json(json.dumps(orphan))


def test_columns_concat_is_not_written(three_gfs):
    a = Ensemble.from_graphframes(three_gfs[:2])
    both = Ensemble.concat([a, a.copy()], axis="columns", headers=["x", "y"])
    with pytest.raises(ShapeError, match="columns-concat"):
        both.to_json()


@pytest.mark.peer("thicket")
def test_thicket_round_trip(quartz_files):
    warnings.simplefilter("ignore")
    import thicket

    ens = Ensemble.from_files(quartz_files)
    th = ens.to_thicket()
    assert isinstance(th, thicket.Thicket)
    assert len(th.graph) == len(ens.graph)
    assert th.dataframe.shape == ens.dataframe.shape
    # thicket's own operations work on the converted object
    thicket.stats.mean(th, columns=["Avg time/rank"])
    ens.stats(["Avg time/rank"], stats=["mean"])
    np.testing.assert_allclose(
        sorted(th.statsframe.dataframe["Avg time/rank_mean"]),
        sorted(ens.statsframe["Avg time/rank_mean"]),
    )
    back = Ensemble.from_thicket(th)
    assert back.graph == ens.graph
    pd.testing.assert_frame_equal(back.dataframe, ens.dataframe)
    pd.testing.assert_frame_equal(back.metadata, ens.metadata)
    np.testing.assert_allclose(
        back.statsframe["Avg time/rank_mean"], ens.statsframe["Avg time/rank_mean"]
    )


@pytest.mark.peer("thicket")
def test_from_thicket_read_by_thicket(mpi_files):
    warnings.simplefilter("ignore")
    import thicket

    th = thicket.Thicket.from_caliperreader(mpi_files, disable_tqdm=True)
    ens = Ensemble.from_thicket(th)
    assert len(ens.graph) == len(th.graph)
    assert len(ens) == len(th.profile)
    assert ens.profile_mapping == dict(th.profile_mapping)
    total = th.dataframe["Total time"].sum()
    assert ens.dataframe["Total time"].sum() == pytest.approx(total)
