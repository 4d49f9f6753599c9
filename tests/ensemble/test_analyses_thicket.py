"""The ensemble analyses against llnl-thicket on Thicket's own profiles (MPI scaling and
RAJAPerf): statistics filters, the ``stats`` tests, groupby/agg, the conveniences.

Nodes are matched by call path, profiles by file (the two libraries hash different things
into profile ids). Deliberate differences asserted here: ``check_normality`` holds
booleans where Thicket writes ``"True"``/``"False"``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from perfweave.ensemble import Ensemble
from tests.ensemble._thicket_match import by_path, our_paths, ours_table, their_paths, theirs_table

pytestmark = pytest.mark.peer("thicket")

A, B = "Avg time/rank", "Max time/rank"


def _tk():
    warnings.simplefilter("ignore")
    import thicket

    return thicket


def _ours_stats(ens, column) -> pd.Series:
    s = ens.statsframe[column].copy()
    s.index = pd.Index(our_paths(ens.graph))
    return s.sort_index()


def _their_stats(th, column) -> pd.Series:
    paths = their_paths(th)
    s = th.statsframe.dataframe[column].copy()
    s.index = pd.Index([paths[n] for n in s.index])
    return s.sort_index()


@pytest.fixture(scope="module", params=["mpi_scaling", "quartz"])
def pair(request, mpi_files, quartz_files):
    files = mpi_files if request.param == "mpi_scaling" else quartz_files
    return files, _tk().Thicket.from_caliperreader(files, disable_tqdm=True)


def _fresh(pair):
    files, th = pair
    return Ensemble.from_files(files), th.deepcopy()


def test_filter_stats_matches_thicket(pair):
    ens, th = _fresh(pair)
    stats = _tk().stats
    stats.mean(th, columns=[A])
    stats.std(th, columns=[A])
    ens.stats([A], stats=["mean", "std"])
    spread = np.unique(ens.statsframe[f"{A}_std"].dropna())
    mid = len(spread) // 2  # between two values: no node sits on the cut
    cut = float((spread[mid - 1] + spread[mid]) / 2)
    theirs = th.filter_stats(lambda r: r[f"{A}_std"] > cut)
    ours = ens.filter_stats(lambda r: r[f"{A}_std"] > cut)
    assert 1 < len(ours.graph) < len(ens.graph)
    assert sorted(our_paths(ours.graph)) == sorted(their_paths(theirs).values())
    o, t = ours_table(ours), theirs_table(theirs)
    assert o.index.equals(t.index)
    # Thicket takes Caliper's `Avg time/rank` (an alias of avg#inclusive#sum#time.duration)
    # for an exclusive metric and adds a summed-up `Avg time/rank (inc)` after the squash;
    # perfweave knows it is inclusive already and keeps the measured values (calltree-readers)
    derived = {f"{m} (inc)" for m in ours.inc_metrics}
    for col in [c for c in [*theirs.exc_metrics, *theirs.inc_metrics] if c not in derived]:
        np.testing.assert_allclose(o[col], t[col], rtol=1e-12, equal_nan=True, err_msg=col)
    assert not derived & set(ours.dataframe.columns)
    for col in (f"{A}_mean", f"{A}_std"):
        np.testing.assert_allclose(_ours_stats(ours, col), _their_stats(theirs, col), rtol=1e-12)
    # the three parts share one numbering: every table row names a node of the graph
    assert ours.statsframe.index.tolist() == list(range(len(ours.graph)))
    assert set(ours.dataframe.index.get_level_values("node")) == set(range(len(ours.graph)))
    assert (ours.statsframe["name"].to_numpy() == ours.graph.frames["name"].to_numpy()).all()
    # the query string says the same as the callable, parsed rather than evaluated
    by_text = ens.filter_stats(f"`{A}_std` > {cut!r}")
    assert our_paths(by_text.graph) == our_paths(ours.graph)
    pd.testing.assert_frame_equal(by_text.dataframe, ours.dataframe)


@pytest.mark.parametrize(
    "query",
    [
        ["*", {"name": "MPI_W.*|Basic_.*"}],
        [{f"{A}_mean": "> 1"}, "*"],
        f'MATCH ("*", p) WHERE p."{A}_mean" > 1',
    ],
)
def test_query_stats_path_query_matches_thicket(pair, query):
    ens, th = _fresh(pair)
    _tk().stats.mean(th, columns=[A])
    ens.stats([A], stats=["mean"])
    theirs = th.query_stats(query)
    ours = ens.query_stats(query)
    assert 1 < len(ours.graph) <= len(ens.graph)
    assert sorted(our_paths(ours.graph)) == sorted(their_paths(theirs).values())
    assert len(ours.statsframe) == len(ours.graph)


def test_preference_and_ttest(pair):
    ens, th = _fresh(pair)
    names = _tk().stats.preference(th, [A, B], lambda x, y: x < y)
    ours = ens.preference([A, B], lambda x, y: x < y)
    assert ours == names
    base = f"{A} vs {B}"
    for col in (f"{base}_tvalue", f"{base}_tstatistic"):
        np.testing.assert_allclose(_ours_stats(ens, col), _their_stats(th, col), equal_nan=True)
    for col in names:
        mine, theirs = _ours_stats(ens, col), _their_stats(th, col)
        assert mine.astype(str).tolist() == theirs.astype(str).tolist()
    assert (ens.statsframe[names[1]] != "No preference").any() or (
        ens.statsframe[f"{base}_tstatistic"].abs() <= ens.statsframe[f"{base}_tvalue"]
    ).all()


def test_confidence_interval(pair):
    ens, th = _fresh(pair)
    theirs = _tk().stats.confidence_interval(th, columns=[A], confidence_level=0.9)
    ours = ens.confidence_interval([A], confidence_level=0.9)
    assert ours == theirs == [f"confidence_interval_0.9_{A}"]
    mine, their = _ours_stats(ens, ours[0]), _their_stats(th, ours[0])
    np.testing.assert_allclose(np.array(mine.tolist()), np.array(their.tolist()), rtol=1e-12)


def test_check_normality(pair):
    ens, th = _fresh(pair)
    _tk().stats.check_normality(th, columns=[A])
    (name,) = ens.check_normality([A])
    mine, theirs = _ours_stats(ens, name), _their_stats(th, name)
    assert mine.dtype == "boolean"
    assert mine.astype(str).tolist() == theirs.astype(str).tolist()
    assert mine.any() and mine.notna().all()


def test_boxplot_statistics(pair):
    ens, th = _fresh(pair)
    theirs = _tk().stats.calc_boxplot_statistics(th, columns=[A, B], quartiles=[0.1, 0.5, 0.9])
    ours = ens.calc_boxplot_statistics([A, B], quartiles=[0.1, 0.5, 0.9])
    assert ours == theirs
    for col in ours:
        mine, their = _ours_stats(ens, col), _their_stats(th, col)
        if "outliers" in col:  # profiles named by their files
            to_file = (
                [sorted(ens.profile_mapping[p] for p in ps) for ps in mine.tolist()],
                [sorted(th.profile_mapping[p] for p in ps) for ps in their.tolist()],
            )
            assert to_file[0] == to_file[1]
        else:
            np.testing.assert_allclose(mine, their, rtol=1e-12, err_msg=col)


def test_distances_and_kendall(pair):
    ens, th = _fresh(pair)
    stats = _tk().stats
    for fn in ("bhattacharyya_distance", "hellinger_distance"):
        (col,) = getattr(stats, fn)(th, columns=[A, B])
        assert getattr(ens, fn)([A, B]) == [col]
        np.testing.assert_allclose(
            _ours_stats(ens, col), _their_stats(th, col), rtol=1e-9, atol=1e-15, equal_nan=True
        )
    (col,) = stats.correlation_nodewise(th, column1=A, column2=B, correlation="kendall")
    assert ens.correlate(A, B, "kendall") == col
    np.testing.assert_allclose(
        _ours_stats(ens, col), _their_stats(th, col), atol=1e-12, equal_nan=True
    )


@pytest.fixture(scope="module")
def columnar(quartz_files, lassen_files):
    """RAJAPerf on lassen (Cuda) and quartz (Seq), side by side by problem size."""
    q = [f for f in quartz_files if "/O3/1/" in f]
    lc = [f for f in lassen_files if "/1/" in f and "block_128" in f]
    thk = _tk().Thicket
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
    return ours, theirs


def test_delta_scores_on_columnar_ensemble(columnar):
    ours, theirs = columnar
    ours, theirs = ours.deepcopy(), theirs.deepcopy()
    cols = [("Cuda", A), ("Seq", A)]
    stats = _tk().stats
    # (Thicket's signed scores sort the statsframe's columns, which fails on a one-level
    # statsframe that mixes names and ("Scoring", ...) tuples: compared here only)
    for fn in (
        "score_delta_mean_delta_stdnorm",
        "score_delta_mean_delta_coefficient_of_variation",
        "bhattacharyya_distance",
        "hellinger_distance",
        "score_bhattacharyya",
        "score_hellinger",
    ):
        (col,) = getattr(stats, fn)(theirs, columns=cols)
        assert getattr(ours, fn)(cols) == [col]
        np.testing.assert_allclose(
            _ours_stats(ours, col), _their_stats(theirs, col), rtol=1e-9, atol=1e-15, equal_nan=True
        )
    names = stats.preference(theirs, cols, lambda x, y: "Cuda" if x < y else "Seq")
    assert ours.preference(cols, lambda x, y: "Cuda" if x < y else "Seq") == names
    for col in names:
        assert _ours_stats(ours, col).tolist() == _their_stats(theirs, col).tolist()


def test_filter_stats_on_columnar_ensemble(columnar):
    ours, theirs = columnar
    ours, theirs = ours.deepcopy(), theirs.deepcopy()
    col = ("Cuda", A)
    _tk().stats.mean(theirs, columns=[col])
    ours.stats([col], stats=["mean"])
    name = ("Cuda", f"{A}_mean")
    t = theirs.filter_stats(lambda r: r[name] > 0.01)
    o = ours.filter_stats(lambda r: r[name] > 0.01)
    assert 1 < len(o.graph) < len(ours.graph)
    assert sorted(our_paths(o.graph)) == sorted(their_paths(t).values())
    np.testing.assert_allclose(_ours_stats(o, name), _their_stats(t, name), rtol=1e-12)
    # `Avg time/rank` is inclusive already (a Caliper alias of an inclusive attribute): kept
    # as measured, no summed-up `(inc)` twin as Thicket adds; BlockSize & co. are exclusive
    assert col in o.inc_metrics and ("Cuda", f"{A} (inc)") not in o.inc_metrics
    assert ("Cuda", "BlockSize (inc)") in o.inc_metrics


def test_groupby_agg_matches_thicket(quartz_files):
    th = _tk().Thicket.from_caliperreader(quartz_files, disable_tqdm=True)
    ens = Ensemble.from_files(quartz_files)
    groups = ens.groupby("ProblemSizeRunParam")
    assert sorted(groups) == sorted(th.groupby("ProblemSizeRunParam"))
    theirs = th.groupby("ProblemSizeRunParam").agg([np.mean, np.std])
    ours = groups.agg([np.mean, np.std])
    assert ours.dataframe.index.names == theirs.dataframe.index.names
    assert ours.profiles == sorted(theirs.profile)
    t = by_path(theirs.dataframe, their_paths(theirs), "ProblemSizeRunParam")
    o = by_path(ours.dataframe, our_paths(ours.graph), "ProblemSizeRunParam")
    assert o.index.equals(t.index)
    # (``nid`` is each reader's own node number: Thicket's starts at 1)
    numeric = [c for c in t.columns if c.endswith(("_mean", "_std")) and not c.startswith("nid")]
    assert set(numeric) <= set(o.columns)
    for col in numeric:
        np.testing.assert_allclose(o[col], t[col], rtol=1e-12, equal_nan=True, err_msg=col)
    assert ours.metadata["launchdate"].tolist() == theirs.metadata["launchdate"].tolist()
    assert {k: sorted(v) for k, v in ours.profile_mapping.items()} == {
        k: sorted(v) for k, v in theirs.profile_mapping.items()
    }


def test_concat_intersection(quartz_files, lassen_files):
    thk = _tk().Thicket
    parts = [quartz_files[:2], lassen_files[:2]]
    theirs = thk.concat_thickets(
        [thk.from_caliperreader(p, disable_tqdm=True) for p in parts],
        calltree="intersection",
        disable_tqdm=True,
    )
    ours = Ensemble.concat([Ensemble.from_files(p) for p in parts], calltree="intersection")
    union = Ensemble.concat([Ensemble.from_files(p) for p in parts])
    assert len(ours.graph) < len(union.graph)
    assert sorted(our_paths(ours.graph)) == sorted(their_paths(theirs).values())


def test_replace_profile_index_and_metadata_to_perfdata(mpi_files):
    th = _tk().Thicket.from_caliperreader(mpi_files, disable_tqdm=True)
    ens = Ensemble.from_files(mpi_files)
    theirs = th.replace_profile_index("mpi.world.size", inplace=False)
    ours = ens.replace_profile_index("mpi.world.size")
    assert ours.dataframe.index.names == theirs.dataframe.index.names
    assert sorted(ours.profiles) == sorted(theirs.metadata.index)
    assert ours.profile_mapping == dict(theirs.profile_mapping)
    t = by_path(theirs.dataframe, their_paths(theirs), "mpi.world.size")
    o = by_path(ours.dataframe, our_paths(ours.graph), "mpi.world.size")
    assert o.index.equals(t.index)
    np.testing.assert_allclose(o[A], t[A])
    # the old ensemble is untouched
    assert ens.profile_level == "profile"

    th2 = th.deepcopy()
    th2.metadata_columns_to_perfdata(["mpi.world.size", "cluster"])
    ours2 = ens.metadata_columns_to_perfdata(["mpi.world.size", "cluster"])
    o, t = ours_table(ours2), theirs_table(th2)
    assert o["mpi.world.size"].tolist() == t["mpi.world.size"].tolist()
    assert o["cluster"].tolist() == t["cluster"].tolist()


def test_get_node(mpi_files):
    """The same nodes by name; "first"/"last" follow each library's own sibling order
    (perfweave's canonical preorder), so they are checked against ``"all"``."""
    th = _tk().Thicket.from_caliperreader(mpi_files, disable_tqdm=True)
    ens = Ensemble.from_files(mpi_files)
    paths = our_paths(ens.graph)
    theirs = [tuple(n.frame["name"] for n in x.path()) for x in th.get_node("MPI_Wait", "all")]
    ours = ens.get_node("MPI_Wait", "all")
    assert sorted(paths[n.nid] for n in ours) == sorted(theirs)
    assert len(ours) == 4
    assert ens.get_node("MPI_Wait").nid == ours[0].nid
    assert ens.get_node("MPI_Wait", "last").nid == ours[-1].nid
    assert [n.nid for n in ours] == sorted(n.nid for n in ours)  # preorder
