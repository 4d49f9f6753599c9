"""Readable profile labels: the ids stay the index, people read labels."""

from __future__ import annotations

import glob
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.cli import main
from perfweave.ensemble.labels import profile_labels, summary
from perfweave.errors import MetadataError, ShapeError
from perfweave.examples import path

RAJA = sorted(glob.glob("tests/data/thicket/rajaperf/lassen/**/*.cali", recursive=True))


@pytest.fixture(scope="module")
def scaling() -> pw.Ensemble:
    return pw.Ensemble.from_files(sorted(path("mpi_scaling").glob("*.cali")))


def test_scaling_profiles_are_labelled_by_the_column_that_differs(scaling):
    labels = scaling.labels
    assert labels.index.equals(scaling.metadata.index)  # same ids, same order
    sizes = scaling.metadata["mpi.world.size"]
    assert labels.tolist() == [f"mpi.world.size={int(v)}" for v in sizes]
    assert all(isinstance(p, int | np.integer) for p in scaling.profiles)  # ids unchanged
    first = scaling.profiles[0]
    assert scaling.profile_label(first) == f"mpi.world.size={int(sizes[first])}"
    with pytest.raises(MetadataError, match="no profile 'nope'"):
        scaling.profile_label("nope")


def test_repr_and_cli_show_labels_not_ids(scaling, capsys):
    text = repr(scaling)
    sizes = [str(int(v)) for v in scaling.metadata["mpi.world.size"]]
    assert f"(mpi.world.size = {', '.join(sizes[:4])}, ... (5 in all))" in text
    assert not any(str(p) in text for p in scaling.profiles)
    assert main(["ensemble", str(path("mpi_scaling"))]) == 0
    out = capsys.readouterr().out
    assert f"labels:   mpi.world.size = {', '.join(sizes)}\n" in out


def test_by_profile_is_headed_by_labels(scaling):
    wide = scaling.by_profile("Avg time/rank")
    assert wide.columns.tolist() == ["name", *scaling.labels.tolist()]
    ids = scaling.dataframe["Avg time/rank"].unstack("profile")
    for pid, label in scaling.labels.items():
        np.testing.assert_array_equal(wide[label].to_numpy(), ids[pid].to_numpy())
    assert (wide["name"] == scaling.statsframe.loc[wide.index, "name"]).all()
    with pytest.raises(ShapeError, match="no column 'nope'"):
        scaling.by_profile("nope")


def test_rajaperf_repetitions_fall_back_to_their_file_paths():
    ens = pw.Ensemble.from_files(RAJA)
    labels = ens.labels
    assert labels.is_unique
    common = Path("tests/data/thicket/rajaperf/lassen").resolve()
    for pid, label in labels.items():
        file = Path(ens.profile_mapping[pid]).resolve()
        assert label == file.relative_to(common).with_suffix("").as_posix()


def test_rules_on_synthetic_metadata():
    ids = pd.Index([11, 22, 33, 44], name="profile")
    meta = pd.DataFrame(
        {
            "launchdate": [1, 2, 3, 4],  # dates never label
            "elapsed": [1.5, 2.25, 3.0, 4.0],  # a measurement (fractions)
            "nodes": [1, 1, 2, 2],
            "variant": ["omp", "cuda", "omp", "cuda"],
            "same": ["x"] * 4,
        },
        index=ids,
    )
    assert profile_labels(meta).tolist() == [
        "nodes=1, variant=omp",
        "nodes=1, variant=cuda",
        "nodes=2, variant=omp",
        "nodes=2, variant=cuda",
    ]
    # nothing descriptive and no files: the ids; shared labels get #2
    assert profile_labels(meta[["launchdate", "same"]]).tolist() == ["11", "22", "33", "44"]
    twice = profile_labels(meta[["nodes"]])
    assert twice.tolist() == ["nodes=1", "nodes=1 #2", "nodes=2", "nodes=2 #2"]
    files = {11: "/a/run1.cali", 22: "/a/run2.cali", 33: "/a/b/run1.cali", 44: "/a/b/run2.cali"}
    assert profile_labels(meta[["nodes"]], files).tolist() == ["run1", "run2", "b/run1", "b/run2"]
    # parts every path starts or ends with are left out
    files = {p: f"/x/{p}/O3/{p % 3}/kernel-default.cali" for p in ids}
    assert profile_labels(meta[["nodes"]], files).tolist() == [
        "11/O3/2",
        "22/O3/1",
        "33/O3/0",
        "44/O3/2",
    ]


def test_summary_text():
    assert summary(["n=1", "n=2"]) == "n = 1, 2"
    assert summary(["a", "b", "c"], limit=2) == "a, b, ... (3 in all)"
    assert summary(["n=1, v=x", "n=2, v=y", "n=3, v=z"], limit=2) == (
        "n=1, v=x; n=2, v=y; ... (3 in all)"
    )
