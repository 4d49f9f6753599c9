"""A Thicket user's habits (issue 35): the calls of Thicket's tutorials, run with both
libraries on the same bundled RAJAPerf files, give the same numbers.

Nodes are matched by call path, profiles by file (the two libraries hash profile ids
differently).
"""

from __future__ import annotations

import math
import re
import warnings

import pytest

from perfweave.ensemble import Ensemble
from perfweave.errors import ShapeError
from tests.ensemble._thicket_match import by_path, our_paths, their_paths

pytestmark = pytest.mark.peer("thicket")

_LINE = re.compile(r"^(?P<indent>[\s│├└─]*?)(?P<value>-?\d+\.\d+|nan) (?P<name>\S.*)$")


def _thicket():
    warnings.simplefilter("ignore")
    import thicket

    return thicket


def tree_values(text: str) -> dict[tuple, float]:
    """Call path -> shown value, from either library's tree text (no colour)."""
    out: dict[tuple, float] = {}
    stack: list[str] = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        depth = len(m["indent"]) // 3
        stack[depth:] = [m["name"].strip()]
        out[tuple(stack)] = float(m["value"])
    return out


def assert_same_tree(ours: str, theirs: str, least: int = 50) -> None:
    a, b = tree_values(ours), tree_values(theirs)
    assert len(a) > least and a.keys() == b.keys()
    for path, v in b.items():
        assert (math.isnan(v) and math.isnan(a[path])) or a[path] == pytest.approx(v, abs=1e-3)


@pytest.fixture(scope="module")
def quartz(quartz_files):
    th = _thicket().Thicket.from_caliperreader(quartz_files, disable_tqdm=True)
    return Ensemble.from_files(quartz_files), th


def _ours_for(ens: Ensemble, th, their_profile) -> object:
    """perfweave's profile id of the file Thicket's ``their_profile`` was read from."""
    by_file = {f: p for p, f in ens.profile_mapping.items()}
    return by_file[th.profile_mapping[their_profile]]


def test_tree_of_a_metric_shows_one_profile_as_thicket(quartz):
    ens, th = quartz
    for theirs in th.metadata.index:
        ours = _ours_for(ens, th, theirs)
        text = ens.tree("Avg time/rank", indices=ours, color=False)
        assert text.splitlines()[0].startswith(
            f"# Avg time/rank: profile {ens.profile_label(ours)}"
        )
        assert_same_tree(text, th.tree("Avg time/rank", indices=theirs, render_header=False))
    # metric_column= by name, a statistic over the profiles with stat=
    assert ens.tree(metric_column="Avg time/rank", indices=ours, color=False) == text
    th_max = ens.tree("Avg time/rank", stat="max", color=False)
    assert "Avg time/rank_max" in ens.statsframe.columns
    root = th.dataframe.xs(th.graph.roots[0], level="node")["Avg time/rank"].max()
    assert tree_values(th_max)[("RAJAPerf",)] == pytest.approx(root, abs=1e-3)


def test_tree_of_a_metric_refuses_what_it_cannot_show(quartz):
    ens, _ = quartz
    with pytest.raises(ShapeError, match="no profile 'nope'"):
        ens.tree("Avg time/rank", indices="nope")
    with pytest.raises(ShapeError, match="no column 'Avg time'"):
        ens.tree("Avg time")
    with pytest.raises(ShapeError, match="stat= .* or indices="):
        ens.tree("Avg time/rank", stat="mean", indices=ens.profiles[0])


def test_statsframe_has_thickets_dataframe_and_tree(quartz_files):
    ens = Ensemble.from_files(quartz_files)
    th = _thicket().Thicket.from_caliperreader(quartz_files, disable_tqdm=True)
    _thicket().stats.mean(th, columns=["Avg time/rank"])
    ens.stats(["Avg time/rank"], stats=["mean"])
    # still a DataFrame, as the README uses it; and Thicket's two names
    assert ens.statsframe.sort_values("Avg time/rank_mean").index[-1] == 0
    table = ens.statsframe.dataframe
    assert list(table.columns) == ["name", "Avg time/rank_mean"]
    theirs = th.statsframe.dataframe
    ours_by_name = dict(zip(table["name"], table["Avg time/rank_mean"]))
    for name, v in zip(theirs["name"], theirs["Avg time/rank_mean"]):
        assert ours_by_name[name] == pytest.approx(v)
    assert_same_tree(
        ens.statsframe.tree("Avg time/rank_mean", color=False),
        th.statsframe.tree("Avg time/rank_mean", render_header=False),
    )
    # a column written through .dataframe is one of the ensemble's statistics
    ens.statsframe.dataframe["twice"] = 2 * table["Avg time/rank_mean"]
    assert "twice" in ens.statsframe.columns
    assert tree_values(ens.statsframe.tree("twice", color=False))[("RAJAPerf",)] == pytest.approx(
        2 * ours_by_name["RAJAPerf"], abs=1e-3
    )
    with pytest.raises(ShapeError, match="no column 'Avg time/rank_max' in the statsframe"):
        ens.statsframe.tree("Avg time/rank_max")
    # a table held from before a new statistic keeps working, as Thicket's object does
    held = ens.statsframe
    ens.stats(["Avg time/rank"], stats=["max"])
    assert held is not ens.statsframe
    assert held.tree("twice", color=False) == ens.statsframe.tree("twice", color=False)


def _two_builds(quartz_files, lassen_files, runs):
    """Runs ``runs`` (directory names) of both sizes, from the quartz and lassen builds."""
    q = [f for f in quartz_files if any(f"/O3/{r}/" in f for r in runs)]
    lc = [f for f in lassen_files if "block_128" in f and any(f"/{r}/" in f for r in runs)]
    return q, lc


def test_profiles_are_in_thickets_order(quartz_files, lassen_files):
    tk = _thicket().Thicket
    for files in (quartz_files, lassen_files, list(reversed(quartz_files))):
        th = tk.from_caliperreader(files, disable_tqdm=True)
        ens = Ensemble.from_files(files)
        theirs = [th.profile_mapping[p] for p in th.metadata.index]
        assert [ens.profile_mapping[p] for p in ens.profiles] == theirs
        assert ens.metadata["file"].tolist() == theirs
        # ens.tree(metric) shows the profile th.tree(metric) shows
        assert_same_tree(ens.tree("Avg time/rank", color=False), th.tree("Avg time/rank"))
    both = Ensemble.concat([Ensemble.from_files(lassen_files), Ensemble.from_files(quartz_files)])
    th = tk.concat_thickets(
        [tk.from_caliperreader(f, disable_tqdm=True) for f in (lassen_files, quartz_files)]
    )
    assert [both.profile_mapping[p] for p in both.profiles] == [
        th.profile_mapping[p] for p in th.metadata.index
    ]


@pytest.mark.parametrize("runs", [("1",), ("1", "2", "3", "4")])
def test_columns_concat_without_key_pairs_runs_as_thicket(quartz_files, lassen_files, runs):
    q, lc = _two_builds(quartz_files, lassen_files, runs)
    n = len(q)
    assert len(lc) == n == len(runs) + 1
    tk = _thicket().Thicket
    theirs = tk.concat_thickets(
        [tk.from_caliperreader(f, disable_tqdm=True) for f in (q, lc)],
        axis="columns",
        headers=["Quartz", "Lassen"],
    )
    ours = Ensemble.concat(
        [Ensemble.from_files(q), Ensemble.from_files(lc)],
        axis="columns",
        headers=["Quartz", "Lassen"],
    )
    assert ours.profiles == list(range(n))
    for i in range(n):
        assert ours.profile_mapping[i] == {
            h: theirs.profile_mapping[(i, h)] for h in ("Quartz", "Lassen")
        }
    size = ("Quartz", "ProblemSizeRunParam"), ("Lassen", "ProblemSizeRunParam")
    assert (ours.metadata[list(size)].to_numpy() == theirs.metadata[list(size)].to_numpy()).all()
    # a statistic over both headers: under ('Union statistics', ...), Thicket's values
    a, b = ("Quartz", "Avg time/rank"), ("Lassen", "Avg time/rank")
    name = ours.correlate(a, b)
    _thicket().stats.correlation_nodewise(theirs, column1=a, column2=b, correlation="pearson")
    assert name == ("Union statistics", "Avg time/rank_vs_Avg time/rank pearson")
    paths = their_paths(theirs)
    want = {paths[n]: v for n, v in theirs.statsframe.dataframe[name].items()}
    got = dict(zip(our_paths(ours.graph), ours.statsframe[name]))
    assert got.keys() == want.keys()
    for path, v in want.items():
        assert (math.isnan(v) and math.isnan(got[path])) or got[path] == pytest.approx(v)


def test_groupby_agg_and_aggregate_thicket_as_thicket(quartz_files, lassen_files):
    import numpy as np

    files = [f for f in quartz_files + lassen_files if "1048576" in f and "block_256" not in f]
    tk = _thicket().Thicket
    th = tk.from_caliperreader(files, disable_tqdm=True)
    ens = Ensemble.from_files(files)
    by = "cluster"
    theirs = th.groupby(by).agg(np.mean, disable_tqdm=True)
    ours = ens.groupby(by).agg(np.mean, disable_tqdm=True)
    assert ours.profiles == theirs.metadata.index.tolist() == ["lassen", "quartz"]
    cols = ["Avg time/rank_mean", "Total time_mean", "Reps_mean"]
    want = by_path(theirs.dataframe[cols], their_paths(theirs), by).dropna()
    mine = by_path(ours.dataframe[cols], our_paths(ours.graph), by).dropna()
    assert mine.index.equals(want.index) and len(want) > 100
    np.testing.assert_allclose(mine.to_numpy(), want.to_numpy(), rtol=1e-12)
    # one group folded, by Thicket's name
    g_ours, g_theirs = ens.groupby(by), th.groupby(by)
    one = g_ours.aggregate_thicket(g_ours["quartz"], np.mean)
    two = g_theirs.aggregate_thicket(g_theirs["quartz"], np.mean)
    assert one.profiles == ["quartz"]
    root_ours = one.dataframe.xs(0, level="node")["Avg time/rank_mean"].iloc[0]
    root_theirs = two.dataframe.xs(two.graph.roots[0], level="node")["Avg time/rank_mean"].iloc[0]
    assert root_ours == pytest.approx(root_theirs)
    with pytest.raises(TypeError, match="takes an Ensemble"):
        g_ours.aggregate_thicket(two, np.mean)


def test_thickets_names_for_reading_and_statistics(quartz_files):
    import numpy as np

    import perfweave.ensemble.stats as pws

    tt = _thicket()
    th = tt.Thicket.from_caliperreader(quartz_files, disable_tqdm=True)
    ens = Ensemble.from_caliperreader(quartz_files, disable_tqdm=True)
    assert [ens.profile_mapping[p] for p in ens.profiles] == [
        th.profile_mapping[p] for p in th.metadata.index
    ]
    cols = ["Avg time/rank"]
    for fn in ("mean", "median", "std", "variance", "minimum", "maximum", "percentiles"):
        assert getattr(pws, fn)(ens, columns=cols) == getattr(tt.stats, fn)(th, columns=cols)
    names = pws.correlation_nodewise(ens, "Min time/rank", "Max time/rank", "spearman")
    assert names == tt.stats.correlation_nodewise(
        th, column1="Min time/rank", column2="Max time/rank", correlation="spearman"
    )
    paths = their_paths(th)
    theirs = th.statsframe.dataframe.drop(columns="name")
    theirs.index = [paths[n] for n in theirs.index]
    theirs = theirs.sort_index()
    ours = ens.statsframe.drop(columns="name")
    ours.index = our_paths(ens.graph)
    ours = ours.sort_index()[theirs.columns]
    np.testing.assert_allclose(ours.to_numpy(float), theirs.to_numpy(float), rtol=1e-12)


@pytest.mark.parametrize("key", [None, "cluster"])
def test_from_statsframes_as_thicket(quartz_files, lassen_files, key):
    import numpy as np

    import perfweave.ensemble.stats as pws

    tt = _thicket()
    cols = ["Avg time/rank"]
    th = [tt.Thicket.from_caliperreader(f, disable_tqdm=True) for f in (quartz_files, lassen_files)]
    ens = [Ensemble.from_caliperreader(f, disable_tqdm=True) for f in (quartz_files, lassen_files)]
    for t, e, extra in zip(th, ens, ("std", "maximum")):
        for fn in ("mean", extra):
            getattr(tt.stats, fn)(t, columns=cols)
            getattr(pws, fn)(e, columns=cols)
    theirs = tt.Thicket.from_statsframes(th, metadata_key=key, disable_tqdm=True)
    ours = Ensemble.from_statsframes(ens, metadata_key=key, disable_tqdm=True)
    level = key or "profile"
    assert ours.profiles == theirs.metadata.index.tolist()
    assert ours.profile_level == level == theirs.dataframe.index.names[1]
    assert {p: sorted(f) for p, f in ours.profile_mapping.items()} == {
        p: sorted(f) for p, f in theirs.profile_mapping.items()
    }
    stats = [c for c in theirs.dataframe.columns if c != "name"]
    assert sorted(ours.performance_cols) == sorted(stats)
    want = by_path(theirs.dataframe[stats], their_paths(theirs), level)
    mine = by_path(ours.dataframe[stats], our_paths(ours.graph), level)
    assert mine.index.equals(want.index) and len(want) == 2 * 74
    np.testing.assert_allclose(mine.to_numpy(float), want.to_numpy(float), rtol=1e-12)
    for col in ("user", "cluster", "ProblemSizeRunParam", "variant"):
        if col in theirs.metadata:
            assert ours.metadata[col].tolist() == theirs.metadata[col].tolist()
    assert_same_tree(
        ours.tree("Avg time/rank_mean", color=False), theirs.tree("Avg time/rank_mean")
    )


def test_from_statsframes_refuses_what_thicket_guesses(quartz_files, lassen_files):
    from perfweave.errors import MetadataError

    ens = [Ensemble.from_files(f) for f in (quartz_files, lassen_files)]
    # Thicket warns and names the profile after the first value; one name per input here
    with pytest.raises(MetadataError, match=r"ensemble #0 has 2 values of 'ProblemSizeRunParam'"):
        Ensemble.from_statsframes(ens, metadata_key="ProblemSizeRunParam")
    with pytest.raises(MetadataError, match=r"ensembles #0 and #1 both have user='mckinsey'"):
        Ensemble.from_statsframes(ens, metadata_key="user")
    with pytest.raises(MetadataError, match="ensemble #0 has no metadata 'nope'"):
        Ensemble.from_statsframes(ens, "nope")


@pytest.mark.parametrize("by", [["cluster", "tuning"], ["tuning", "cluster", "variant"]])
def test_multi_key_agg_has_one_level_per_key_as_thicket(quartz_files, lassen_files, by):
    import numpy as np

    # every group of two runs or more: Thicket 2026.1.1 fails on a group of one profile
    files = [f for f in quartz_files if "1048576" in f]
    files += [f for f in lassen_files if "block_128" in f]
    tk = _thicket().Thicket
    theirs = tk.from_caliperreader(files, disable_tqdm=True).groupby(by).agg(np.mean)
    ours = Ensemble.from_files(files).groupby(by).agg(np.mean, disable_tqdm=True)
    assert list(ours.dataframe.index.names) == list(theirs.dataframe.index.names)
    assert ours.dataframe.index.names == ["node", *by] and ours.profile_levels == by
    assert ours.index_levels == []
    assert ours.profiles == theirs.metadata.index.tolist() == sorted(theirs.profile)
    assert ours.metadata.index.tolist() == theirs.metadata.index.tolist()
    assert {p: sorted(f) for p, f in ours.profile_mapping.items()} == {
        p: sorted(f) for p, f in theirs.profile_mapping.items()
    }
    for col in ("cluster", "tuning", "ProblemSizeRunParam", "compiler"):
        assert ours.metadata[col].tolist() == theirs.metadata[col].tolist()
    # values per (call path, k1, k2, ...) (nid is each library's own node numbering);
    # Thicket also writes a NaN row for every combination of the keys' values that is no
    # group, perfweave only the groups
    cols = [c for c in theirs.dataframe.columns if c.endswith("_mean") and c != "nid_mean"]
    want = by_path(theirs.dataframe[cols], their_paths(theirs), by)
    want = want[[k[1:] in set(ours.profiles) for k in want.index]]
    mine = by_path(ours.dataframe[cols], our_paths(ours.graph), by)
    assert len(want) == 74 * len(ours.profiles) and mine.index.equals(want.index)
    np.testing.assert_allclose(mine.to_numpy(float), want.to_numpy(float), rtol=1e-12)
    # one group's tree, picked by its tuple of keys
    for group in ours.profiles:
        assert_same_tree(
            ours.tree("Avg time/rank_mean", indices=group, color=False),
            theirs.tree("Avg time/rank_mean", indices=group, render_header=False),
        )
    # the other calls on profiles work on the levels, by the tuple ids
    last = ours.profiles[-1]
    assert ours[last].dataframe.index.names == ["node"]
    assert ours.filter_metadata(lambda m: m["cluster"] == "quartz").profiles == [
        p for p in ours.profiles if "quartz" in p
    ]
    ours.stats(["Avg time/rank_mean"], stats=["max"])
    root = ours.dataframe.xs(0, level="node")["Avg time/rank_mean"].max()
    assert ours.statsframe.loc[0, "Avg time/rank_mean_max"] == root
    one = ours.replace_profile_index("cluster")
    assert one.profiles == ["lassen", "quartz"] and one.dataframe.index.names == ["node", "cluster"]
    with pytest.raises(ShapeError, match=r"keyed by \['cluster', 'tuning'|replace_profile_index"):
        Ensemble.concat([ours, ours])


def test_tree_of_a_metric_takes_hatchets_keywords(quartz):
    ens, th = quartz
    kw = {"annotation_column": "Reps", "depth": 3, "precision": 2, "expand_name": True}
    for theirs in th.metadata.index[:2]:
        ours = _ours_for(ens, th, theirs)
        text = ens.tree("Avg time/rank", indices=ours, color=False, **kw)
        want = th.tree("Avg time/rank", indices=theirs, render_header=False, **kw)
        assert "[2500.0] RAJAPerf" in text  # the annotation: each node's Reps
        assert_same_tree(text, want)


def test_thickets_keywords_give_thickets_results(quartz_files):
    tt = _thicket()
    th = tt.Thicket.from_caliperreader(quartz_files, disable_tqdm=True)
    ens = Ensemble.from_files(quartz_files)

    def files(e, profiles):
        return sorted(e.profile_mapping[p] for p in profiles)

    big = lambda m: m["ProblemSizeRunParam"] == 2097152  # noqa: E731
    ours = ens.filter_metadata(select_function=big)
    theirs = th.filter_metadata(select_function=big)
    assert files(ours, ours.profiles) == files(theirs, theirs.profile) and len(ours) == 1
    keep = th.profile[:2]
    ours = ens.filter_profile(profile_list=[_ours_for(ens, th, p) for p in keep])
    theirs = th.filter_profile(profile_list=keep)
    assert files(ours, ours.profiles) == files(theirs, theirs.profile)
    # one kernel group with its kernels, inclusive values kept or updated
    group = [{"name": "Apps"}, "*"]
    for update in (False, True):
        ours = ens.query(query_obj=group, update_inc_cols=update, multi_index_mode="any")
        theirs = th.query(query_obj=group, update_inc_cols=update, multi_index_mode="any")
        text, want = ours.tree("Avg time/rank", color=False), theirs.tree("Avg time/rank")
        assert_same_tree(text, want, least=5)
        assert sorted(our_paths(ours.graph)) == sorted(their_paths(theirs).values())
    tt.stats.mean(th, columns=["Avg time/rank"])
    import perfweave.ensemble.stats as pws

    pws.mean(ens, columns=["Avg time/rank"])
    slow = lambda row: row["Avg time/rank_mean"] > 1.0  # noqa: E731
    ours, theirs = ens.filter_stats(filter_function=slow), th.filter_stats(filter_function=slow)
    assert sorted(our_paths(ours.graph)) == sorted(their_paths(theirs).values())
    assert len(ours.graph) > 5
    ours = ens.query_stats(query_obj=group, update_inc_cols=False)
    theirs = th.query_stats(query_obj=group, update_inc_cols=False)
    assert sorted(our_paths(ours.graph)) == sorted(their_paths(theirs).values())
    ours = ens.squash(update_inc_cols=False, new_statsframe=True)
    theirs = th.squash(update_inc_cols=False, new_statsframe=True)
    assert_same_tree(ours.tree("Avg time/rank", color=False), theirs.tree("Avg time/rank"))
    key = "ProblemSizeRunParam"
    two = ens.filter_profile(ens.metadata.drop_duplicates(key).index)
    theirs = th.filter_profile(th.metadata.drop_duplicates(key).index.tolist())
    ours = two.replace_profile_index(metadata_key=key, inplace=False)
    theirs.replace_profile_index(metadata_key=key)  # in place
    # (which run of each size drop_duplicates keeps, and so the order of the two, follows
    # each library's profile ids: Thicket's hash the files' absolute paths)
    assert sorted(ours.profiles) == sorted(theirs.metadata.index.tolist()) == [1048576, 2097152]
    assert ours.profile_level == theirs.dataframe.index.names[1] == key


def test_what_an_ensemble_does_not_do_in_thickets_way_is_an_error_naming_the_way(quartz_files):
    from perfweave.errors import OptionError

    ens = Ensemble.from_files(quartz_files)
    with pytest.raises(OptionError, match=r"ens = ens.replace_profile_index\('launchdate'\)"):
        ens.replace_profile_index(metadata_key="launchdate", inplace=True)
    with pytest.raises(OptionError, match="filter_stats"):
        ens.squash(new_statsframe=False)
    with pytest.raises(OptionError, match=r"replace_profile_index\('launchdate'\)"):
        ens.metadata_columns_to_perfdata(["cluster"], join_key="launchdate")


def test_tree_histogram_is_an_error_naming_the_tables(quartz_files):
    from perfweave.errors import OptionError

    ens = Ensemble.from_files(quartz_files)
    with pytest.raises(OptionError, match=r"ens.by_profile\(column\)"):
        ens.tree("Avg time/rank", histogram=True)
    # histogram=False, Thicket's default, changes nothing
    assert ens.tree("Avg time/rank", histogram=False, color=False) == ens.tree(
        "Avg time/rank", color=False
    )
