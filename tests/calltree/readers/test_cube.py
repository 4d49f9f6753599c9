"""Cube 4 reader (Score-P ``.cubex``): values against pycubexr's own API, call paths merged
as Hatchet merges them, Hatchet's expected numbers for its cpi profile, ranks and threads,
units, metadata, detection, the CLI, ensembles of experiment directories, and bad input."""

from __future__ import annotations

import io
import os
import re
import tarfile
from pathlib import Path

import numpy as np
import pytest

import perfweave
from perfweave import Ensemble, GraphFrame
from perfweave.calltree.readers import detect, is_companion
from perfweave.errors import ParseError, SkippedInputWarning
from tests.calltree.readers._round_trip_checks import assert_round_trips

DATA = Path(__file__).resolve().parents[2] / "data" / "cube"
CPI = DATA / "scorep-cpi-cubex" / "profile.cubex"
KRIPKE = DATA / "kripke.p8.d2.g32.r1" / "profile.cubex"
FASTEST = DATA / "fastest.p16.size131072.r1" / "profile.cubex"
VALUES = DATA / "test_only_files" / "cube-values_example.cubex"
EXPERIMENTS = DATA / "experiments"
MEASURED = [CPI, KRIPKE, FASTEST, *sorted(EXPERIMENTS.glob("*/profile.cubex"))]


# --------------------------------------------------------------------- pycubexr's view
def _pycubexr_paths(path: Path) -> dict:
    """Straight from pycubexr's API, independent of the reader: per call path (tuple of
    region names) and metric, the values per location id, cnodes of one path combined
    (summed; min_time the least and max_time the largest over the cnodes that were
    visited there). ``time`` exclusive comes from pycubexr's ``convert_to_exclusive``."""
    from pycubexr import CubexParser
    from pycubexr.utils.exceptions import MissingMetricError

    out: dict = {}
    with CubexParser(path) as cube:
        n_loc = len(cube.get_locations())
        stored = {}
        for metric in cube.get_metrics():
            try:
                stored[metric.name] = (metric, cube.get_metric_values(metric))
            except MissingMetricError:
                continue
        visits = stored["visits"][1]
        stack = [(root, ()) for root in cube.get_root_cnodes()]
        while stack:
            cnode, above = stack.pop()
            path_ = (*above, cube.get_region(cnode).name)
            seen = np.asarray(visits.cnode_values(cnode)) > 0
            for name, (metric, values) in stored.items():
                column = f"{name} (inc)" if metric.metric_type == "INCLUSIVE" else name
                columns = {column: values.cnode_values(cnode)}
                if name == "time":
                    columns["time"] = values.cnode_values(cnode, convert_to_exclusive=True)
                for col, raw in columns.items():
                    if name in ("min_time", "max_time"):
                        v = np.where(seen, raw.astype(float), np.nan)
                    else:
                        v = np.asarray(raw, dtype=float)
                    assert len(v) == n_loc
                    old = out.get((path_, col))
                    if old is None:
                        out[(path_, col)] = v
                    elif name == "min_time":
                        out[(path_, col)] = np.fmin(old, v)
                    elif name == "max_time":
                        out[(path_, col)] = np.fmax(old, v)
                    else:
                        out[(path_, col)] = old + v
            stack.extend((child, path_) for child in cnode.get_children())
    return out


def _paths(gf: GraphFrame) -> dict[int, tuple[str, ...]]:
    """Call path (names from the root) of every node of a frame."""
    out: dict[int, tuple[str, ...]] = {}
    parent = gf.graph.parent
    names = gf.graph.frames["name"].tolist()
    for nid in range(len(gf.graph)):  # canonical preorder: parents come first
        up = int(parent[nid])
        out[nid] = (*(out[up] if up >= 0 else ()), names[nid])
    return out


def _per_location(gf: GraphFrame, column: str) -> np.ndarray:
    """(node x location) matrix of a column; locations in the frame's row order."""
    df = gf.dataframe
    return df[column].to_numpy(float).reshape(len(gf.graph), -1)


# --------------------------------------------------------------------- values
@pytest.mark.parametrize("path", MEASURED, ids=lambda p: p.parent.name)
def test_values_are_pycubexrs_per_call_path(path):
    gf = perfweave.read(path)
    expected = _pycubexr_paths(path)
    paths = _paths(gf)
    assert len(set(paths.values())) == len(gf.graph)  # one node per call path
    assert {p for p, _ in expected} == set(paths.values())
    columns = {c for _, c in expected}
    assert columns == set(gf.exc_metrics) | set(gf.inc_metrics)
    for column in columns:
        ours = _per_location(gf, column)
        for nid, p in paths.items():
            np.testing.assert_allclose(
                ours[nid], expected[(p, column)], rtol=1e-12, atol=1e-15, err_msg=f"{p} {column}"
            )


def test_cpi_has_hatchets_expected_numbers():
    """The figures Hatchet's own test of this file asserts (hatchet/tests/scorep.py)."""
    gf = GraphFrame.from_scorep(str(CPI))
    assert sorted(gf.dataframe["name"].unique()) == sorted(
        [
            "cpi",
            "main",
            "MPI_Init",
            "MPI_Comm_size",
            "MPI_Comm_rank",
            "iteration",
            "MPI_Bcast",
            "MPI_Reduce",
            "iteration.cold.1",
            "MPI_Finalize",
        ]
    )
    rank0 = gf.dataframe.xs(0, level="rank").set_index("name")
    assert round(rank0.loc["cpi", "time (inc)"], 3) == 5.056
    assert round(rank0.loc["MPI_Init", "time (inc)"], 3) == 0.507
    assert round(rank0.loc["iteration", "time (inc)"], 3) == 4.539
    assert rank0.loc["iteration", "visits"] == 100082
    assert rank0.loc["cpi", "visits"] == 1
    assert rank0.loc["iteration", "file"] == "/p/lustre1/cankur1/test/scorep/cpi.c"
    assert rank0.loc["MPI_Init", "file"] == "MPI"
    for column in ("visits", "line", "end_line", "bytes_sent", "hits"):
        assert gf.dataframe[column].dtype == np.int64
    for column in ("time", "time (inc)", "min_time", "max_time"):
        assert gf.dataframe[column].dtype == np.float64


def test_two_call_sites_of_one_call_path_are_one_node():
    """cpi calls MPI_Bcast from two places in iteration: two cnodes, one node, summed."""
    from pycubexr import CubexParser

    with CubexParser(CPI) as cube:
        bcasts = [c for c in cube.all_cnodes() if cube.get_region(c).name == "MPI_Bcast"]
        visits = cube.get_metric_values(cube.get_metric_by_name("visits"))
        per_site = [np.asarray(visits.cnode_values(c)) for c in bcasts]
        n_cnodes = len(cube.all_cnodes())
    assert len(bcasts) == 2 and n_cnodes == 11
    gf = perfweave.read(CPI)
    assert len(gf.graph) == 10
    (bcast,) = np.flatnonzero(gf.graph.frames["name"] == "MPI_Bcast")
    np.testing.assert_array_equal(_per_location(gf, "visits")[bcast], per_site[0] + per_site[1])
    # the second call site ran on rank 1 only: its minimum counts there, nowhere else
    assert per_site[0].min() > 0 and (per_site[1] > 0).tolist() == [False, True, False, False]


@pytest.mark.parametrize("path", MEASURED, ids=lambda p: p.parent.name)
def test_inclusive_time_nests(path):
    """Per rank: exclusive + children's inclusive = inclusive, and no child above its
    parent; the same for the mean over ranks that tree() shows."""
    gf = perfweave.read(path)
    inc, exc = _per_location(gf, "time (inc)"), _per_location(gf, "time")
    parent = gf.graph.parent
    children = np.zeros_like(inc)
    kids = np.flatnonzero(parent >= 0)
    np.add.at(children, parent[kids], inc[kids])
    np.testing.assert_allclose(exc + children, inc, rtol=1e-12, atol=1e-12)
    assert (inc[kids] <= inc[parent[kids]] * (1 + 1e-12)).all()
    shown = gf.node_values(["time (inc)"])["time (inc)"].to_numpy()
    assert (shown[kids] <= shown[parent[kids]] * (1 + 1e-12)).all()


def test_time_stored_exclusive_gets_its_inclusive_column(tmp_path):
    """A file storing time exclusive (the same bytes declared EXCLUSIVE: pycubexr then
    maps them to cnodes in depth-first order): ``time`` as stored, ``time (inc)`` as
    pycubexr's ``convert_to_inclusive`` gives it."""
    from pycubexr import CubexParser

    anchor = _member(KRIPKE, "anchor.xml")
    old = b'<metric id="1" type="INCLUSIVE">\n      <disp_name>Time</disp_name>'
    assert old in anchor
    changed = anchor.replace(old, old.replace(b"INCLUSIVE", b"EXCLUSIVE"))
    path = _repack(KRIPKE, tmp_path / "exclusive-time.cubex", {"anchor.xml": changed})
    gf = perfweave.read(path)
    assert "time" in gf.exc_metrics and "time (inc)" in gf.inc_metrics
    paths = _paths(gf)
    with CubexParser(path) as cube:
        time = cube.get_metric_values(cube.get_metric_by_name("time"))
        stack = [(root, ()) for root in cube.get_root_cnodes()]
        while stack:
            cnode, above = stack.pop()
            here = (*above, cube.get_region(cnode).name)
            (nid,) = [n for n, p in paths.items() if p == here]
            np.testing.assert_allclose(_per_location(gf, "time")[nid], time.cnode_values(cnode))
            np.testing.assert_allclose(
                _per_location(gf, "time (inc)")[nid],
                time.cnode_values(cnode, convert_to_inclusive=True),
                rtol=1e-12,
            )
            stack.extend((child, here) for child in cnode.get_children())


def test_min_and_max_time_where_not_visited_are_missing():
    gf = perfweave.read(FASTEST)
    visits = _per_location(gf, "visits")
    for column in ("min_time", "max_time"):
        values = _per_location(gf, column)
        assert (visits == 0).sum() > 600  # FASTEST's setup runs on rank 0 only
        assert np.isnan(values[visits == 0]).all() and not np.isnan(values[visits > 0]).any()
    assert (_per_location(gf, "min_time") <= _per_location(gf, "max_time"))[visits > 0].all()


def test_kinds_units_and_default():
    gf = perfweave.read(KRIPKE)
    assert gf.exc_metrics == [
        "visits",
        "time",
        "min_time",
        "max_time",
        "bytes_sent",
        "bytes_received",
    ]
    assert gf.inc_metrics == [
        "time (inc)",
        "PAPI_TOT_INS (inc)",
        "PAPI_FP_INS (inc)",
        "PAPI_FP_OPS (inc)",
        "PEVT_L2_FETCH_LINE (inc)",
        "PEVT_L2_STORE_LINE (inc)",
    ]
    assert gf.default_metric == "time (inc)"
    assert {m: gf.unit_of(m) for m in ("time", "time (inc)", "min_time", "bytes_sent")} == {
        "time": "s",
        "time (inc)": "s",
        "min_time": "s",
        "bytes_sent": "B",
    }
    assert gf.unit_of("visits") == "" and gf.unit_of("PAPI_TOT_INS (inc)") == ""
    assert gf.metadata["metric_descriptions"]["PEVT_L2_FETCH_LINE (inc)"] == (
        "Load 128 byte line from main memory."
    )
    assert gf.metadata["metrics_without_data"] == [
        "task_migration_loss",
        "task_migration_win",
        "bytes_put",
        "bytes_get",
    ]


# --------------------------------------------------------------------- locations
def test_ranks_and_threads_come_from_the_system_tree():
    """Process 0 runs threads 0 and 2, process 1 threads 1 and 3 (location ids 0, 2 and 1,
    3): rows are (node, rank, thread) with Cube's numbers (Hatchet's ``id // threads``
    would put all four on rank 0)."""
    from pycubexr import CubexParser

    with pytest.warns(SkippedInputWarning, match=r"7 metric.*HISTOGRAM5 \(HISTOGRAM\(5\)\)"):
        gf = perfweave.read(VALUES)
    assert gf.index_levels == ["rank", "thread"]
    main = gf.dataframe.xs(0, level="node")
    assert main.index.tolist() == [(0, 0), (0, 2), (1, 1), (1, 3)]
    with CubexParser(VALUES) as cube:
        metric = cube.get_metric_by_name("DOUBLE")
        values = cube.get_metric_values(metric)
        root = cube.get_root_cnodes()[0]
        by_location = {loc.id: values.location_value(root, loc.id) for loc in cube.get_locations()}
    locations = gf.metadata["locations"]
    for loc, rank, thread in zip(locations["location"], locations["rank"], locations["thread"]):
        assert main.loc[(rank, thread), "DOUBLE (inc)"] == by_location[loc]
    assert "RATE (inc)" not in gf.dataframe.columns and "MINDOUBLE" in gf.exc_metrics


def test_system_tree_is_metadata():
    gf = perfweave.read(CPI)
    meta = gf.metadata
    assert meta["Creator"] == "Score-P 7.1"
    assert meta["machine"] == "machine Linux"
    assert (meta["num_nodes"], meta["num_processes"], meta["num_locations"]) == (1, 4, 4)
    assert meta["system_tree"]["name"] == ["machine Linux", "node quartz1"]
    assert meta["system_tree"]["platform"] == ["Linux", None]
    assert meta["locations"]["rank"] == [0, 1, 2, 3]
    assert set(meta["locations"]["node"]) == {"node quartz1"}
    assert gf.index_levels == ["rank"]
    kripke = perfweave.read(KRIPKE).metadata
    assert kripke["system_tree"]["name"][-1] == "nodecard 30"
    assert set(kripke["locations"]["node"]) == {"nodecard 30"}
    assert perfweave.read(EXPERIMENTS / "mm.x1y1z1.r1").index_levels == []  # one location


def test_locations_sharing_a_thread_number_are_told_apart(tmp_path):
    """Two locations of one process with the same rank (a GPU stream beside a thread):
    then every process's locations are numbered 0.. in id order."""
    anchor = _member(VALUES, "anchor.xml").decode()
    anchor = anchor.replace(
        "<name>Thread 2</name>\n            <rank>2</rank>",
        "<name>Thread 2</name>\n            <rank>0</rank>",
    )
    assert anchor.count("<rank>0</rank>") == 3
    bad = _repack(VALUES, tmp_path / "shared.cubex", {"anchor.xml": anchor.encode()})
    with pytest.warns(SkippedInputWarning):
        gf = perfweave.read(bad)
    assert gf.dataframe.xs(0, level="node").index.tolist() == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert gf.metadata["locations"]["thread"] == [0, 1, 0, 3]  # Cube's own numbers


# --------------------------------------------------------------------- entry points
def test_detection_from_scorep_and_directories():
    assert detect(CPI) == "cube" and detect(CPI.parent) == "cube"
    assert detect(VALUES) == "cube"
    via_dir = perfweave.read(EXPERIMENTS / "mm.x10y1z1.r1")
    via_file = GraphFrame.from_scorep(EXPERIMENTS / "mm.x10y1z1.r1" / "profile.cubex")
    assert via_dir.graph == via_file.graph
    assert via_dir.dataframe.equals(via_file.dataframe)


def test_round_trips():
    assert_round_trips(perfweave.read(KRIPKE))


def test_cli_info_tree_convert(tmp_path, capsys):
    from perfweave.cli import main

    assert main(["info", str(KRIPKE)]) == 0
    out = capsys.readouterr().out
    assert "format:   cube" in out and "14 nodes" in out and "ranks:    8 (0..7)" in out
    assert "PAPI_TOT_INS (inc)" in out
    assert main(["tree", str(KRIPKE.parent), "--color", "never"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("# mean over 8 ranks")
    assert lines[1] == "# time (inc) in s"  # the reader's unit
    assert re.match(r"\d+\.\d+ PARALLEL", lines[2])
    dst = tmp_path / "kripke.json"
    assert main(["convert", str(KRIPKE), "--to", "json", "-o", str(dst)]) == 0
    assert len(GraphFrame.from_json(dst).graph) == 14


def test_directory_of_experiments_is_an_ensemble():
    """scorep.cfg and the Cube GUI's profile.ini beside the profiles are left out."""
    companions = [p for p in EXPERIMENTS.rglob("*") if p.is_file() and is_companion(p)]
    assert sorted(p.name for p in companions) == [
        "profile.ini",
        "scorep.cfg",
        "scorep.cfg",
        "scorep.cfg",
    ]
    ens = Ensemble.from_files(EXPERIMENTS, progress=False)
    assert len(ens) == 3
    assert sorted(Path(f).parent.name for f in ens.metadata["file"]) == [
        "mm.x10y1z1.r1",
        "mm.x1y1z1.r1",
        "mm.x25y1z1.r1",
    ]
    assert set(ens.metadata["Creator"]) == {"Score-P 1.3"}
    assert "time (inc)" in ens.inc_metrics and ens.units["time (inc)"] == "s"
    for profile, file in ens.metadata["file"].items():
        alone = perfweave.read(file)
        ours = ens.dataframe.xs(profile, level="profile")["time (inc)"]
        np.testing.assert_array_equal(
            np.sort(ours.to_numpy()), np.sort(alone.dataframe["time (inc)"])
        )


# --------------------------------------------------------------------- bad input
def _member(path: Path, name: str) -> bytes:
    with tarfile.open(path) as tar:
        return tar.extractfile(name).read()


def _repack(src: Path, dst: Path, replace: dict[str, bytes | None]) -> Path:
    """A copy of the archive ``src`` with members replaced (None: left out)."""
    with tarfile.open(src) as tin, tarfile.open(dst, "w", format=tarfile.USTAR_FORMAT) as tout:
        for member in tin.getmembers():
            data = replace.get(member.name, tin.extractfile(member).read())
            if data is None:
                continue
            info = tarfile.TarInfo(member.name)
            info.size = len(data)
            tout.addfile(info, io.BytesIO(data))
    return dst


def _metric_id(path: Path, name: str) -> int:
    anchor = _member(path, "anchor.xml").decode()
    return int(
        re.search(
            rf'<metric id="(\d+)"[^>]*>\s*<disp_name>[^<]*</disp_name>\s*<uniq_name>{name}<', anchor
        ).group(1)
    )


def _refused(path: Path, expected: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        perfweave.read(path, format="cube")
    message = str(info.value)
    assert str(path) in message and re.search(expected, message), message
    return info.value


@pytest.mark.parametrize("keep", [0, 100, 512, 5000, 0.5, -2000])
def test_truncated_files(tmp_path, keep):
    """Cut anywhere before the end-of-archive blocks (1,024 zero bytes after anchor.xml)."""
    data = CPI.read_bytes()
    n = int(len(data) * keep) if isinstance(keep, float) else keep
    cut = tmp_path / "cut.cubex"
    cut.write_bytes(data[:n])
    _refused(cut, r"expected (a Cube 4 archive|anchor\.xml)")


def test_not_a_tar(tmp_path):
    junk = tmp_path / "profile.cubex"
    junk.write_text("<?xml version='1.0'?><cube/>\n" * 40)
    _refused(junk, "expected a Cube 4 archive")


def test_a_tar_without_anchor(tmp_path):
    bad = _repack(CPI, tmp_path / "no-anchor.cubex", {"anchor.xml": None})
    error = _refused(bad, r"expected anchor\.xml in the Cube archive.*cut short")
    assert "member(s): remapping.spec, 1.data" in str(error)


def test_broken_anchor_xml(tmp_path):
    anchor = _member(CPI, "anchor.xml")
    bad = _repack(
        CPI, tmp_path / "xml.cubex", {"anchor.xml": anchor.replace(b"</metrics>", b"</metric>", 1)}
    )
    error = _refused(bad, r"anchor\.xml line \d+, column \d+: expected well-formed XML")
    assert error.position.startswith("anchor.xml line")


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        ((rb"<program>.*</program>", b""), "expected a Cube 4 anchor.xml"),
        ((rb'calleeId="\d+"', b'calleeId="999"'), "expected a Cube 4 anchor.xml"),
        (
            (rb'<location Id="3">', b'<location Id="7">'),
            r"location ids 0\.\.3 .*found 'location id 7'",
        ),
        ((rb'<cnode id="2" ', b'<cnode id="1" '), "unique cnode ids.*cnode id 1 twice"),
        ((rb"<rank>2</rank>", b"<rank>two</rank>"), "numeric <rank> of location group 2"),
        # a CubePL derived metric: pycubexr knows only stored ones (documented limit)
        (
            (rb'type="EXCLUSIVE"', b'type="POSTDERIVED"'),
            r"INCLUSIVE or EXCLUSIVE metrics.*assert hasattr\(MetricType",
        ),
    ],
    ids=["no-program", "unknown-region", "location-ids", "duplicate-cnode", "rank-text", "derived"],
)
def test_anchor_contents(tmp_path, edit, expected):
    anchor = _member(CPI, "anchor.xml")
    changed = re.sub(edit[0], edit[1], anchor, count=1, flags=re.S)
    assert changed != anchor
    _refused(_repack(CPI, tmp_path / "anchor.cubex", {"anchor.xml": changed}), expected)


def test_metric_index_and_data(tmp_path):
    time = _metric_id(CPI, "time")
    index, data = _member(CPI, f"{time}.index"), _member(CPI, f"{time}.data")
    cases = {
        "header": {f"{time}.index": b"CUBEX.INDXX" + index[11:]},
        "index-cut": {f"{time}.index": index[:-3]},
        "data-cut": {f"{time}.data": data[:-8]},
        "data-short": {f"{time}.data": data[: len(data) - 32]},
        "no-data": {f"{time}.data": None},
    }
    for name, replace in cases.items():
        bad = _repack(CPI, tmp_path / f"{name}.cubex", replace)
        error = _refused(
            bad, rf"expected the values of metric 'time' in {time}\.index and {time}\.data"
        )
        assert "4 DOUBLE value(s) per stored cnode" in str(error), name


def test_directories_and_special_files(tmp_path):
    empty = tmp_path / "experiment"
    empty.mkdir()
    with pytest.raises(ParseError, match="experiment directory holding profile.cubex"):
        perfweave.read(empty, format="cube")
    fifo = tmp_path / "fifo.cubex"
    os.mkfifo(fifo)
    _refused(fifo, "in a regular file.*special file")
    with pytest.raises(FileNotFoundError):
        perfweave.read(tmp_path / "missing.cubex", format="cube")
