"""perfweave.datasets: every bundled dataset loads, is the copy of the test data it claims,
and is listed with its origin and license."""

from __future__ import annotations

import filecmp
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave import datasets
from perfweave.errors import PerfweaveError

DATA = Path(__file__).parent / "data"
BUNDLED = Path(datasets.__file__).parent / "examples" / "data"

# bundled file or folder -> the copy under tests/data it must equal byte for byte
COPIES = {
    "wrf_alltoallv": DATA / "counts" / "wrf_160ranks_niagara_job5471563",
    "wrf_call_sites": DATA / "counts" / "wrf_all_calls",
    "rajaperf": DATA / "thicket" / "rajaperf",
    "mpi_scaling": DATA / "thicket" / "mpi_scaling_cali",
    "matmul_scaling": DATA / "extrap" / "cubeset" / "single_parameter",
    "formats": DATA / "hatchet",
    "perf/perf-script.txt": DATA / "classes" / "perf_equivalents" / "script_flat.txt",
    **{
        f"opsession_{name}.tar.gz": DATA
        / "classes"
        / "synthetic_sessions"
        / f"opsession_{name}.tar.gz"
        for name in datasets.OPROFILE_SESSIONS
    },
}


def _load(name: str) -> object:
    return getattr(datasets, name)()


def test_list_names_every_loader_with_origin_and_license() -> None:
    table = datasets.list()
    assert table.index.is_unique
    for name, row in table.iterrows():
        assert callable(getattr(datasets, name)), name
        assert row["origin"].strip() and row["license"].strip() and row["description"].strip()
    loaders = {
        n
        for n in datasets.__all__
        if n.islower() and n not in {"list", "path", "rajaperf_files", "calltree_format_path"}
    }
    assert loaders == set(table.index)


@pytest.mark.parametrize("name", datasets.list().index.tolist())
def test_each_dataset_loads_as_listed(name: str) -> None:
    obj = _load(name)
    returns = datasets.list().loc[name, "returns"]
    assert isinstance(obj, Path) if returns == "Path" else type(obj).__name__ == returns
    assert datasets.path(name).exists()


def test_bundled_files_are_unchanged_copies_of_the_test_data() -> None:
    for bundled, original in COPIES.items():
        mine = BUNDLED / bundled
        if mine.is_file():
            assert filecmp.cmp(mine, original, shallow=False), bundled
            continue
        files = sorted(p for p in mine.rglob("*") if p.is_file())
        assert files, bundled
        for p in files:
            twin = original / p.relative_to(mine)
            assert filecmp.cmp(p, twin, shallow=False), p


def test_readme_names_every_bundled_file() -> None:
    """Each file shipped in examples/data is covered by a row of its README (brace lists and
    ``<run>``-style placeholders expanded), so none ships without origin and license."""
    readme = (BUNDLED / "README.md").read_text()
    patterns = []
    for cell in re.findall(r"^\| ([^|]+) \|", readme, flags=re.M):
        cell = cell.strip()
        if cell in {"file", "---"}:
            continue
        for part in re.split(r",\s+(?![^{]*\})", cell):
            rx = re.escape(part.strip().strip("`"))
            rx = re.sub(r"\\\{([^}]*)\\\}", lambda m: "(" + m.group(1).replace(",", "|") + ")", rx)
            rx = re.sub(r"<\w+>", "[^/]+", rx)
            patterns.append(re.compile(rf"(^|.*/)?{rx}$"))
    shipped = [p.relative_to(BUNDLED).as_posix() for p in BUNDLED.rglob("*") if p.is_file()]
    unlisted = [
        f for f in shipped if f != "README.md" and not any(rx.fullmatch(f) for rx in patterns)
    ]
    assert not unlisted, f"files without a README row: {unlisted}"


def test_cpi_is_the_hatchet_test_profile() -> None:
    gf = datasets.cpi()
    ref = pw.read(
        DATA / "hatchet" / "caliper-cpi-json" / "cpi-callpath-profile.json", node_ordering=False
    )
    assert gf.graph == ref.graph
    pd.testing.assert_frame_equal(gf.dataframe, ref.dataframe)
    assert gf.dataframe.index.get_level_values("rank").nunique() == 4


def test_calltree_formats_read_each_format_like_the_test_copies() -> None:
    frames = datasets.calltree_formats()
    assert set(frames) == set(datasets.CALLTREE_FORMATS)
    for name, gf in frames.items():
        bundled = datasets.calltree_format_path(name)
        assert bundled.is_relative_to(BUNDLED)
        assert len(gf.graph) > 0 and not gf.dataframe.empty, name
    # the HPCToolkit database and the TAU profiles keep their 4 MPI ranks
    for name in ("HPCToolkit database", "TAU profiles"):
        assert frames[name].dataframe.index.get_level_values("rank").nunique() == 4
    ref = pw.read(DATA / "hatchet" / "gprof2dot-cpi" / "callgrind.dot.64042.0.1")
    assert frames["gprof2dot DOT"].graph == ref.graph


def test_each_call_returns_a_fresh_object() -> None:
    first = datasets.cpi()
    first.drop_index_levels()
    assert "rank" in datasets.cpi().dataframe.index.names


def test_matmul_scaling_has_nine_scales_and_refits_without_one() -> None:
    """The bundled study with more than 5 runs: every model still has 8 points when one
    run is left out, and leaving out the slow first run (x = 1) changes main's model."""
    from perfweave.scaling import ScalingStudy

    ens = datasets.matmul_scaling()
    assert sorted(ens.metadata["x"]) == [1, 10, 25, 50, 100, 250, 500, 1000, 2000]
    assert ens.graph.frames["name"].tolist() == ["main", "init_mat", "mat_mul", "zero_mat"]
    study = ScalingStudy(ens, "x", "time")
    every = study.models()
    assert (every["n"] == 9).all() and (every["reason"] == "").all()
    without = study.models(ens.metadata["x"].to_numpy() != 1)
    assert (without["n"] == 8).all() and (without["reason"] == "").all()
    assert without.loc[0, "model"] != every.loc[0, "model"]


def test_mpi_scaling_covers_27_to_343_ranks() -> None:
    ens = datasets.mpi_scaling()
    assert sorted(ens.metadata["mpi.world.size"]) == [27, 64, 125, 216, 343]
    # profiles are named by their size, so a person reads 343, not an 18-digit hash
    assert sorted(ens.profiles) == sorted(ens.metadata["mpi.world.size"])
    assert ens[343].dataframe.equals(ens.to_graphframe(343).dataframe)


def test_rajaperf_machines_and_columns_concat() -> None:
    quartz, lassen = datasets.rajaperf("quartz"), datasets.rajaperf("lassen")
    assert set(quartz.metadata["variant"]) == {"Base_Seq"}
    assert set(lassen.metadata["variant"]) == {"Base_CUDA"}
    assert set(lassen.metadata["tuning"]) == {"block_128", "block_256"}
    assert len(quartz.profiles) == len(datasets.rajaperf_files("quartz")) == 5
    # the same problem sizes on both machines: CPU and GPU side by side (Thicket's example)
    cuda = lassen.filter_metadata(lambda row: row["tuning"] == "block_128")
    seq = quartz.filter_metadata(lambda row: "/O3/1/" in row["file"])
    both = pw.Ensemble.concat(
        [cuda, seq], axis="columns", headers=["Cuda", "Seq"], metadata_key="ProblemSizeRunParam"
    )
    sizes = both.dataframe.index.get_level_values("ProblemSizeRunParam")
    assert set(sizes) == {1048576.0, 2097152.0}
    assert {("Cuda", "Avg time/rank"), ("Seq", "Avg time/rank")} <= set(both.dataframe.columns)


def test_wrf_counts_equal_the_test_copy() -> None:
    wrf = datasets.wrf_alltoallv()
    ref = pw.read_counts(DATA / "counts" / "wrf_160ranks_niagara_job5471563", strict=True)
    assert [g.comm_size for g in wrf.groups] == [160] * 4
    assert [int(c) for g in wrf.groups for c in g.calls] == [0, 1, 3, 4]
    for mine, theirs in zip(wrf.groups, ref.groups, strict=True):
        np.testing.assert_array_equal(mine.send.dense(), theirs.send.dense())
        np.testing.assert_array_equal(mine.recv.dense(), theirs.recv.dense())
    assert not wrf.errors


def test_oprofile_session_extracts_the_listed_sample_files(tmp_path: Path) -> None:
    for name in datasets.OPROFILE_SESSIONS:
        session = datasets.oprofile_session(name, directory=tmp_path)
        assert session == tmp_path / f"opsession_{name}"
        listing = DATA / "classes" / "synthetic_sessions" / f"sample_files_{name}.txt"
        found = {p.relative_to(session).as_posix() for p in session.rglob("*") if p.is_file()}
        assert found == set(listing.read_text().split())
    # the default location is extracted once per process, and opreport reads it
    assert datasets.oprofile_session("sep") == datasets.oprofile_session("sep")
    text = pw.opreport(datasets.oprofile_session("sep"), merge="cpu,tid,tgid")
    assert "CPU_CLK_UNHALTED" in text


def test_perf_script_and_hem_vignettes() -> None:
    samples = datasets.perf_script()
    assert {"comm", "pid", "tid", "cpu", "period", "event", "symbol", "dso"} <= set(samples)
    assert {"perl", "bash"} <= set(samples["comm"])
    much, hrm = datasets.hem_vignette("much"), datasets.hem_vignette("hrm")
    assert (len(much), len(hrm)) == (24, 3)
    assert all("PROCESSOR_CYCLES" in frame.columns for frame in hrm)
    raw = datasets.hem_vignette("hrm", raw=True)
    assert raw.shape == (1000, 18)


@pytest.mark.parametrize(
    ("call", "value"),
    [
        (lambda: datasets.rajaperf("frontier"), "'frontier'"),
        (lambda: datasets.oprofile_session("bogus"), "'bogus'"),
        (lambda: datasets.hem_vignette("abc"), "'abc'"),
        (lambda: datasets.path("nope"), "'nope'"),
    ],
)
def test_unknown_names_say_what_exists(call, value: str) -> None:
    with pytest.raises(PerfweaveError, match=rf"unknown .*{value}: expected one of '"):
        call()


def test_wrf_call_sites_weave_every_call_with_communicator_0s_times() -> None:
    prof = datasets.wrf_call_sites()
    ref = pw.read_counts(DATA / "counts" / "wrf_all_calls", strict=True)
    assert sum(g.n_calls for g in prof.groups) == sum(g.n_calls for g in ref.groups) == 964
    assert len(prof.backtraces) == 10 and not prof.errors
    times = pw.read_counts(DATA / "counts" / "wrf_160ranks_niagara_job5471563").timings
    assert prof.timings.equals(times)  # the timing files of wrf_alltoallv
