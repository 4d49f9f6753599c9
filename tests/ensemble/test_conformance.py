"""Conformance with llnl-thicket: the same .cali files through both libraries.

Nodes are matched by their call path (names from the root), profiles by their file.
Deliberate differences, asserted below:
- profile ids: Thicket hashes the file path; perfweave hashes the metadata (so one run read
  from two places is the same profile and a duplicate is caught), and adds a ``file``
  metadata column;
- the performance table is filled for every (node, profile) pair, as Thicket's
  ``fill_perfdata=True`` default does; ``name`` is missing on rows of nodes a profile lacks.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from perfweave.ensemble import Ensemble
from tests.ensemble._thicket_match import by_path, our_paths, ours_table, their_paths, theirs_table

pytestmark = pytest.mark.peer("thicket")


def _thicket():
    warnings.simplefilter("ignore")
    import thicket

    return thicket


@pytest.fixture(scope="module", params=["quartz", "mpi_scaling"])
def pair(request, quartz_files, mpi_files):
    files = quartz_files if request.param == "quartz" else mpi_files
    th = _thicket().Thicket.from_caliperreader(files, disable_tqdm=True)
    return Ensemble.from_files(files), th


def test_union_node_count_and_frames(pair):
    ens, th = pair
    assert len(ens.graph) == len(th.graph)
    assert sorted(our_paths(ens.graph)) == sorted(their_paths(th).values())
    theirs = sorted((n.frame["name"], n.frame.get("type")) for n in th.graph.traverse())
    ours = sorted(zip(ens.graph.frames["name"], ens.graph.frames["type"]))
    assert ours == theirs


def test_performance_table_values(pair):
    ens, th = pair
    ours, theirs = ours_table(ens), theirs_table(th)
    assert len(ours) == len(theirs) == len(ens.graph) * len(ens)
    assert ours.index.equals(theirs.index)
    metrics = [c for c in th.exc_metrics + th.inc_metrics]
    assert metrics and set(metrics) <= set(ours.columns)
    for col in metrics:
        pd.testing.assert_series_equal(ours[col], theirs[col], check_dtype=False, check_names=False)
    # names: perfweave keeps them as a categorical; missing where the profile lacks the node
    assert (ours["name"].isna() == theirs["name"].isna()).all()
    have = ours["name"].notna()
    assert (ours["name"][have].astype(str) == theirs["name"][have].astype(str)).all()
    # the same metrics; Caliper aliases of inclusive attributes (`Avg time/rank` names
    # avg#inclusive#sum#time.duration) are inclusive here, exclusive in Thicket
    assert sorted(ens.exc_metrics + ens.inc_metrics) == sorted(th.exc_metrics + th.inc_metrics)
    assert all("time" in m for m in ens.inc_metrics) and not set(ens.inc_metrics) & set(
        ens.exc_metrics
    )


def test_metadata_table(pair):
    ens, th = pair
    ours = ens.metadata.set_index("file").sort_index()
    theirs = th.metadata.copy()
    theirs.index = theirs.index.map(th.profile_mapping)
    theirs = theirs.sort_index()
    assert ours.index.equals(theirs.index)
    assert set(ours.columns) == set(theirs.columns)
    pd.testing.assert_frame_equal(ours[theirs.columns], theirs, check_names=False)


def test_statistics(pair):
    ens, th = pair
    stats = _thicket().stats
    cols = list(th.exc_metrics)
    for fn in ("mean", "median", "std", "variance", "minimum", "maximum"):
        getattr(stats, fn)(th, columns=cols)
    stats.percentiles(th, columns=cols, percentiles=[0.25, 0.75])
    ens.stats(cols, percentiles=[0.25, 0.75])
    paths = their_paths(th)
    theirs = th.statsframe.dataframe.copy()
    theirs.index = [paths[n] for n in theirs.index]
    ours = ens.statsframe.copy()
    ours.index = our_paths(ens.graph)
    ours, theirs = ours.sort_index(), theirs.sort_index()
    rename = {
        "mean": "mean",
        "median": "median",
        "std": "std",
        "var": "var",
        "min": "min",
        "max": "max",
    }
    for col in cols:
        for ours_s, their_s in rename.items():
            np.testing.assert_allclose(
                ours[f"{col}_{ours_s}"], theirs[f"{col}_{their_s}"], rtol=1e-12, equal_nan=True
            )
        for q in (25, 75):
            np.testing.assert_allclose(
                ours[f"{col}_percentiles_{q}"], theirs[f"{col}_percentiles_{q}"], rtol=1e-12
            )


def test_correlation_nodewise(pair):
    ens, th = pair
    a, b = "Min time/rank", "Max time/rank"
    _thicket().stats.correlation_nodewise(th, column1=a, column2=b, correlation="pearson")
    name = ens.correlate(a, b)
    assert name == f"{a}_vs_{b} pearson"
    paths = their_paths(th)
    theirs = th.statsframe.dataframe[name].copy()
    theirs.index = [paths[n] for n in theirs.index]
    ours = ens.statsframe[name].copy()
    ours.index = our_paths(ens.graph)
    np.testing.assert_allclose(ours.sort_index(), theirs.sort_index(), atol=1e-9, equal_nan=True)


def test_intersection(quartz_files, lassen_files):
    files = quartz_files[:2] + lassen_files[:2]
    th = _thicket().Thicket.from_caliperreader(files, disable_tqdm=True).intersection()
    ens = Ensemble.from_files(files).intersection()
    assert len(ens.graph) == len(th.graph)
    assert sorted(our_paths(ens.graph)) == sorted(their_paths(th).values())


def test_columns_concat_quartz_vs_lassen(quartz_files, lassen_files):
    q = [f for f in quartz_files if "/O3/1/" in f]
    lc = [f for f in lassen_files if "/1/" in f and "block_128" in f]
    assert len(q) == len(lc) == 2
    thk = _thicket().Thicket
    theirs = thk.concat_thickets(
        [
            thk.from_caliperreader(lc, disable_tqdm=True),
            thk.from_caliperreader(q, disable_tqdm=True),
        ],
        axis="columns",
        headers=["Cuda", "Seq"],
        metadata_key="ProblemSizeRunParam",
        disable_tqdm=True,
    )
    ours = Ensemble.concat(
        [Ensemble.from_files(lc), Ensemble.from_files(q)],
        axis="columns",
        headers=["Cuda", "Seq"],
        metadata_key="ProblemSizeRunParam",
    )
    assert len(ours.graph) == len(theirs.graph)
    assert ours.dataframe.index.names == theirs.dataframe.index.names
    assert set(ours.dataframe.columns) == set(theirs.dataframe.columns)
    t = by_path(theirs.dataframe, their_paths(theirs), "ProblemSizeRunParam")
    o = by_path(ours.dataframe, our_paths(ours.graph), "ProblemSizeRunParam")
    assert o.index.equals(t.index)
    for col in [c for c in theirs.exc_metrics]:
        np.testing.assert_allclose(o[col], t[col], equal_nan=True)
    meta_t = theirs.metadata.sort_index()
    meta_o = ours.metadata.sort_index()
    assert meta_o.index.tolist() == meta_t.index.tolist()
    common = [c for c in meta_t.columns if c in meta_o.columns]
    assert len(common) == len(meta_t.columns)
    pd.testing.assert_frame_equal(meta_o[common], meta_t[common])
