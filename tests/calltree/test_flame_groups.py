"""Two groups of one ensemble in one flame graph (``groups=``), and the frames narrower than
a pixel gathered per parent (FlameLayout.narrow), on the RAJAPerf ensembles."""

from __future__ import annotations

import glob

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree.flame import MeasuredFlame, flame_layout, split_groups
from perfweave.errors import ShapeError

RAJA = "tests/data/thicket/rajaperf"
QUARTZ = sorted(glob.glob(f"{RAJA}/quartz/gcc10.3.1_1048576/**/*.cali", recursive=True))
LASSEN = sorted(
    glob.glob(f"{RAJA}/lassen/clang10.0.1_nvcc10.2.89_1048576/**/*block_128.cali", recursive=True)
)


@pytest.fixture(scope="module")
def both():
    return pw.Ensemble.from_files(QUARTZ + LASSEN)


@pytest.fixture(scope="module")
def quartz():
    return pw.Ensemble.from_files(QUARTZ)


def _by_path(layout) -> pd.DataFrame:
    """The comparison per call path (node ids differ between graphs)."""
    f = layout.frames()
    paths = [" / ".join(layout.values.names[p] for p in layout.path(n)) for n in f["node"]]
    return f.assign(path=paths).set_index("path").sort_index()


def test_groups_by_a_metadata_column_compare_as_two_ensembles(both):
    grouped = MeasuredFlame(both, groups=("cluster", "quartz", "lassen"))
    assert grouped.labels == ("cluster = quartz", "cluster = lassen")
    a = _by_path(grouped.layout())
    b = _by_path(
        flame_layout(pw.Ensemble.from_files(QUARTZ), compare=pw.Ensemble.from_files(LASSEN))
    )
    assert list(a.index) == list(b.index)
    for column in ("value_a", "value_b", "p_value", "q_value", "significant"):
        np.testing.assert_allclose(a[column].astype(float), b[column].astype(float), rtol=1e-9)
    assert a["significant"].any()


def test_groups_as_two_lists_of_profiles(both):
    meta = both.metadata
    lists = (
        list(meta.index[meta["variant"] == "Base_Seq"]),
        list(meta.index[meta["variant"] == "Base_CUDA"]),
    )
    a, b, labels = split_groups(both, lists)
    assert labels == ("4 profiles", "10 profiles")
    assert list(a.profiles) == lists[0] and list(b.profiles) == lists[1]


def test_bad_groups_are_named(both, quartz):
    with pytest.raises(ShapeError, match="no profile has cluster = 'sierra'.*quartz"):
        split_groups(both, ("cluster", "quartz", "sierra"))
    with pytest.raises(ShapeError, match="no metadata column 'clustr'"):
        split_groups(both, ("clustr", "quartz", "lassen"))
    with pytest.raises(ShapeError, match="group b names no profile"):
        split_groups(both, ([both.profiles[0], both.profiles[1]], []))
    one, two = both.profiles[0], both.profiles[-1]
    with pytest.raises(ShapeError, match="each group holds one profile"):
        split_groups(both, ([one], [two]))
    with pytest.raises(ShapeError, match="groups= splits an Ensemble"):
        MeasuredFlame(pw.datasets.lulesh(), groups=("cluster", "a", "b"))
    with pytest.raises(ShapeError, match="not both"):
        MeasuredFlame(both, compare=quartz, groups=("cluster", "quartz", "lassen"))


@pytest.mark.parametrize("pixels", [300, 1000, 4000])
def test_narrow_frames_are_gathered_per_run_of_siblings(quartz, pixels):
    layout = flame_layout(quartz)
    w = 1.0 / pixels
    drawn = layout.frames(min_width=w)
    runs = layout.narrow(min_width=w)
    if pixels < 4000:  # at 4000 px the kernels left out are each under a pixel together
        assert len(runs) > 0
    graph = layout.graph
    kept = set(drawn["node"])
    # what each run holds, recomputed by walking the tree: the siblings between its edges
    for _, run in runs.iterrows():
        kids = [int(k) for k in np.flatnonzero(graph.parent == run["parent"])]
        inside = [
            k
            for k in kids
            if layout.x0[k] >= run["x0"] - 1e-12 and layout.x1[k] <= run["x1"] + 1e-12
        ]
        assert inside and not set(inside) & kept  # only frames not drawn
        assert run["value"] == pytest.approx(layout.values.inclusive[inside].sum())
        assert run["hidden"] == sum(int(graph._size[k]) for k in inside)
        assert run["x1"] - run["x0"] >= w
        # a gathered frame never covers a drawn one of its row
        row = drawn[drawn["depth"] == run["depth"]]
        assert not ((row["x0"] < run["x1"] - 1e-12) & (row["x1"] > run["x0"] + 1e-12)).any()
    # nothing is hidden twice, and only what min_width left out
    assert runs["hidden"].sum() <= len(graph) - len(drawn)


def test_nothing_is_gathered_without_a_minimum_width(quartz):
    assert flame_layout(quartz).narrow().empty
