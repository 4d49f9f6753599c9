"""Building ensembles from GraphFrames and from files."""

from __future__ import annotations

import shutil
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import perfweave
from perfweave.ensemble import Ensemble, profile_hash
from perfweave.errors import (
    DuplicateProfileError,
    FormatError,
    MetadataError,
    ParseError,
    ShapeError,
    SkippedInputWarning,
)


def test_union_graph_and_dense_table(three_gfs):
    ens = Ensemble.from_graphframes(three_gfs)
    names = sorted(ens.graph.frames["name"])
    assert names == ["bar", "baz", "foo", "main", "qux"]
    # every (node, profile) pair has a row; each node's profiles sit together
    assert len(ens.dataframe) == 5 * 3
    assert ens.dataframe.index.names == ["node", "profile"]
    assert ens.dataframe.index.is_monotonic_increasing
    node = ens.dataframe.index.get_level_values("node")
    assert (np.diff(np.asarray(node)) >= 0).all()
    # a node a profile lacks is NaN there, its name missing too
    qux = int(np.flatnonzero(ens.graph.frames["name"] == "qux")[0])
    rows = ens.dataframe.xs(qux, level="node")
    assert rows["time"].notna().sum() == 1
    assert rows["name"].notna().sum() == 1
    assert rows["time"].max() == 9.0


def test_values_follow_their_profiles(three_gfs):
    ens = Ensemble.from_graphframes(three_gfs)
    meta = ens.metadata
    for gf in three_gfs:
        pid = meta.index[meta["run"] == gf.metadata["run"]][0]
        got = ens.dataframe.xs(pid, level="profile").dropna(subset=["name"])
        expected = gf.dataframe.set_index("name")["time"].sort_index()
        assert got.set_index("name")["time"].sort_index().to_dict() == expected.to_dict()


def test_metadata_table_one_row_per_profile(three_gfs):
    ens = Ensemble.from_graphframes(three_gfs)
    assert ens.metadata.index.name == "profile"
    assert sorted(ens.metadata["run"]) == [1, 2, 3]
    assert set(ens.metadata.index) == set(ens.dataframe.index.get_level_values("profile"))
    assert ens.statsframe.index.name == "node"
    assert list(ens.statsframe["name"]) == list(ens.graph.frames["name"])


def test_profile_ids_hash_key_or_given(three_gfs):
    ens = Ensemble.from_graphframes(three_gfs)
    assert sorted(ens.profiles) == sorted(profile_hash(gf.metadata) for gf in three_gfs)
    by_key = Ensemble.from_graphframes(three_gfs, profile_key="run")
    assert by_key.profiles == [1, 2, 3]
    given = Ensemble.from_graphframes(three_gfs, profiles=["c", "a", "b"])
    assert given.profiles == ["a", "b", "c"]
    assert given.metadata.loc["c", "run"] == 1


def test_profile_hash_is_stable_and_ignores_file():
    a = profile_hash({"x": 1, "y": "two", "file": "/a/b.cali"})
    b = profile_hash({"y": "two", "x": 1, "file": "/elsewhere.cali"})
    assert a == b
    assert a != profile_hash({"x": 2, "y": "two"})
    assert 0 <= a < 2**63


def test_duplicate_profile_names_both_sources(three_gfs):
    gfs = [three_gfs[0], three_gfs[1], three_gfs[0]]
    with pytest.raises(DuplicateProfileError, match=r"graphframe #2 and graphframe #0"):
        Ensemble.from_graphframes(gfs)
    with pytest.raises(DuplicateProfileError, match="a.cali"):
        Ensemble.from_graphframes(gfs, sources=["a.cali", "b.cali", "c.cali"])


def test_profile_key_missing_is_metadata_error(three_gfs):
    with pytest.raises(MetadataError, match="'nope'"):
        Ensemble.from_graphframes(three_gfs, profile_key="nope")


def test_no_metadata_uses_positions(make):
    gfs = [make(["main"], [-1], [1.0]), make(["main"], [-1], [2.0])]
    ens = Ensemble.from_graphframes(gfs)
    assert ens.profiles == [0, 1]


def test_different_metric_sets_union_with_nan(make):
    a = make(["main", "a"], [-1, 0], [1, 2], {"r": 1}, extra={"flops": [10.0, 20.0]})
    b = make(["main", "a"], [-1, 0], [3, 4], {"r": 2}, extra={"bytes": [7, 8]})
    ens = Ensemble.from_graphframes([a, b], profile_key="r")
    assert {"flops", "bytes", "time"} <= set(ens.dataframe.columns)
    flops = ens.dataframe["flops"].xs(2, level="profile")
    assert flops.isna().all()
    assert ens.dataframe["bytes"].xs(2, level="profile").tolist() == [7, 8]


def test_inputs_are_not_modified(three_gfs):
    before = [gf.dataframe.copy() for gf in three_gfs]
    graphs = [gf.graph for gf in three_gfs]
    ens = Ensemble.from_graphframes(three_gfs)
    ens.dataframe.iloc[0, 0] = -1.0
    for gf, df, g in zip(three_gfs, before, graphs):
        pd.testing.assert_frame_equal(gf.dataframe, df)
        assert gf.graph is g


def test_rank_level_is_kept_and_sorted(make):
    frames = pd.DataFrame({"name": ["main", "a"]})
    from perfweave.calltree._build import build_graphframe

    def ranked(t, run):
        data = pd.DataFrame(
            {"node": [0, 0, 1, 1], "rank": [0, 1, 0, 1], "time": np.asarray(t, float)}
        )
        return build_graphframe(
            frames, data, parent=[-1, 0], exc_metrics=["time"], metadata={"run": run}
        )

    ens = Ensemble.from_graphframes(
        [ranked([1, 2, 3, 4], 1), ranked([5, 6, 7, 8], 2)], profile_key="run"
    )
    assert ens.dataframe.index.names == ["node", "profile", "rank"]
    assert ens.dataframe.index.is_monotonic_increasing
    assert ens.dataframe.loc[(1, 2, 1), "time"] == 8.0
    mixed = [ranked([1, 2, 3, 4], 1), make(["main"], [-1], [1.0], {"run": 2})]
    with pytest.raises(ShapeError, match="indexed by"):
        Ensemble.from_graphframes(mixed, profile_key="run")


def test_not_a_graphframe_is_rejected():
    with pytest.raises(TypeError, match="not a perfweave GraphFrame"):
        Ensemble.from_graphframes([object()])
    with pytest.raises(ShapeError):
        Ensemble.from_graphframes([])


# ---------------------------------------------------------------- files
def test_from_files_quartz(quartz_files):
    ens = Ensemble.from_files(quartz_files)
    assert len(ens) == 5
    assert len(ens.graph) == 74
    assert len(ens.dataframe) == 74 * 5
    assert set(ens.metadata["file"]) == set(quartz_files)
    assert set(ens.profile_mapping.values()) == set(quartz_files)
    assert set(ens.metadata["ProblemSizeRunParam"].astype(int)) == {1048576, 2097152}
    root = ens.dataframe.xs(0, level="node")
    assert root["name"].eq("RAJAPerf").all()
    assert perfweave.Ensemble is Ensemble


def test_from_files_glob_and_directory(quartz_files, tmp_path):
    root = quartz_files[0].split("/rajaperf/")[0] + "/rajaperf/quartz"
    by_glob = Ensemble.from_files(root + "/**/*.cali")
    by_dir = Ensemble.from_files(root)
    assert by_glob.profiles == by_dir.profiles
    pd.testing.assert_frame_equal(by_glob.dataframe, by_dir.dataframe)
    with pytest.raises(FileNotFoundError):
        Ensemble.from_files(str(tmp_path / "*.cali"))


@pytest.mark.parametrize("pool", [ThreadPoolExecutor, ProcessPoolExecutor])
def test_executor_gives_the_same_ensemble(quartz_files, pool):
    serial = Ensemble.from_files(quartz_files)
    with pool(max_workers=2) as ex:
        parallel = Ensemble.from_files(quartz_files, executor=ex)
    assert serial.graph == parallel.graph
    pd.testing.assert_frame_equal(serial.dataframe, parallel.dataframe)
    pd.testing.assert_frame_equal(serial.metadata, parallel.metadata)


def test_same_run_twice_names_both_files(quartz_files, tmp_path):
    copy = tmp_path / "copy.cali"
    shutil.copy(quartz_files[0], copy)
    with pytest.raises(DuplicateProfileError) as info:
        Ensemble.from_files([quartz_files[0], quartz_files[1], str(copy)])
    assert str(copy) in str(info.value) and quartz_files[0] in str(info.value)


def _broken(tmp_path, quartz_files):
    bad = tmp_path / "broken.cali"
    bad.write_bytes(Path(quartz_files[0]).read_bytes()[:300])
    return str(bad)


def test_unreadable_file_is_named(quartz_files, tmp_path):
    bad = _broken(tmp_path, quartz_files)
    with pytest.raises(ParseError, match="broken.cali"):
        Ensemble.from_files([*quartz_files[:2], bad, *quartz_files[2:]])


def test_skip_collects_errors(quartz_files, tmp_path):
    bad = _broken(tmp_path, quartz_files)
    with pytest.warns(SkippedInputWarning, match="broken.cali"):  # named, never silent
        ens = Ensemble.from_files([*quartz_files[:2], bad, *quartz_files[2:]], on_error="skip")
    assert len(ens) == 5
    assert [p for p, _ in ens.errors] == [bad]
    with (
        pytest.raises(ParseError, match="no.*readable|none was"),
        pytest.warns(SkippedInputWarning),
    ):
        Ensemble.from_files([bad], on_error="skip")


def test_mixed_formats_are_an_error(quartz_files, data_dir):
    literal = next((data_dir / "hatchet").rglob("*.json"), None)
    assert literal is not None
    with pytest.raises(FormatError, match="mixed formats"):
        Ensemble.from_files([quartz_files[0], str(literal)])


def test_intersection_on_read(quartz_files, lassen_files):
    ens = Ensemble.from_files(quartz_files + lassen_files[:2], intersection=True)
    assert ens.dataframe["name"].notna().all()
    assert len(ens.dataframe) == len(ens.graph) * len(ens)


_TINY_GRAPHS: dict = {}


def _tiny_reader(path, **_):
    """A reader for one-line test profiles: ``<run> <time of main> <time of child>``
    (three calltree shapes, built once and shared, as graphs are immutable)."""
    from perfweave.calltree.graphframe import GraphFrame

    fields = Path(path).read_text().split()
    if len(fields) != 3:
        raise ParseError(path, "three fields: run, main time, child time", line=1)
    run, t_main, t_child = int(fields[0]), float(fields[1]), float(fields[2])
    shape = run % 3
    if shape not in _TINY_GRAPHS:
        _TINY_GRAPHS[shape] = GraphFrame.from_lists(("main", f"child{shape}")).graph
    graph = _TINY_GRAPHS[shape]
    data = pd.DataFrame(
        {"time": [t_main, t_child], "name": ["main", f"child{shape}"]},
        index=pd.Index([0, 1], name="node"),
    )
    return GraphFrame(graph, data, ["time"], [], "time", {"run": run})


def test_one_bad_file_among_a_thousand(tmp_path):
    paths = []
    for i in range(1000):
        p = tmp_path / f"p{i:04d}.txt"
        p.write_text(f"{i} {i}.0 1.5" if i != 617 else "617 oops")
        paths.append(str(p))
    with pytest.raises(ParseError, match="p0617.txt"):
        Ensemble.from_files(paths, reader=_tiny_reader)
    with (
        ThreadPoolExecutor(max_workers=2) as ex,
        pytest.warns(SkippedInputWarning, match="p0617.txt"),
    ):
        ens = Ensemble.from_files(paths, reader=_tiny_reader, executor=ex, on_error="skip")
    assert len(ens) == 999
    assert [p for p, _ in ens.errors] == [paths[617]]
    assert "three fields" in ens.errors[0][1]
    assert sorted(ens.graph.frames["name"]) == ["child0", "child1", "child2", "main"]
    assert ens.dataframe.xs(0, level="node")["time"].sum() == sum(range(1000)) - 617


def test_unfilled_ensemble_keeps_only_measured_rows(rand):
    rng = np.random.default_rng(11)
    gfs = [rand(rng, 20, vocabulary=8, meta={"i": i}) for i in range(6)]
    dense = Ensemble.from_graphframes(gfs, profile_key="i")
    sparse = Ensemble.from_graphframes(gfs, profile_key="i", fill_perfdata=False)
    assert len(sparse.dataframe) == sum(len(gf.dataframe) for gf in gfs)
    assert sparse.dataframe["name"].notna().all()
    assert sparse.dataframe.index.is_monotonic_increasing
    pd.testing.assert_frame_equal(sparse.dataframe, dense.dataframe.dropna(subset=["name"]))
    # statistics, intersection and profiles agree with the filled ensemble
    dense.stats(["time"], percentiles=[0.5])
    sparse.stats(["time"], percentiles=[0.5])
    pd.testing.assert_frame_equal(sparse.statsframe, dense.statsframe, check_dtype=False)
    assert sparse.intersection().graph == dense.intersection().graph
    for i in range(6):
        assert sparse[i].graph == gfs[i].graph
    joined = Ensemble.concat(
        [
            Ensemble.from_graphframes(gfs[:3], profile_key="i", fill_perfdata=False),
            Ensemble.from_graphframes(gfs[3:], profile_key="i", fill_perfdata=False),
        ],
        fill_perfdata=False,
    )
    pd.testing.assert_frame_equal(joined.dataframe, sparse.dataframe)


def test_units_of_the_profiles_follow_the_ensemble(data_dir):
    """An ensemble of HPCToolkit v4 databases knows its time is seconds (meta.db says so,
    the column says ``time``), through copies, groups, concatenation and back to one
    profile; the ScalingView's prediction and the explorer's cells are written in it."""
    from perfweave.widgets import CalltreeExplorer

    gf = perfweave.read(str(data_dir / "hatchet-more/hatchet_cpi_v4_database"))
    ens = Ensemble.from_graphframes([gf, gf.copy()], [{"run": "a"}, {"run": "b"}])
    assert ens.unit_of("time (inc)") == ens.unit_of("time") == "s"
    assert ens.copy().units == ens.units == {"time (inc)": "s", "time": "s"}
    assert ens.to_graphframe(ens.profiles[0]).unit_of("time") == "s"
    other = Ensemble.from_graphframes([gf.copy()], [{"run": "c"}])
    assert Ensemble.concat([ens, other]).unit_of("time") == "s"
    assert all(e.unit_of("time") == "s" for e in ens.groupby("run").values())
    units = {c["key"]: c["unit"] for c in CalltreeExplorer(ens).columns}
    assert units["time (inc)_mean"] == units["time_mean"] == "s"
    # Caliper's reader says its aliases of time.duration are seconds (attribute.unit)
    mpi = perfweave.datasets.mpi_scaling()
    assert mpi.units["Avg time/rank"] == "s" and mpi.unit_of("Avg time/rank") == "s"
