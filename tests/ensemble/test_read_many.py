"""Reading many files (issue 34): every bundled .cali profile gives the same ensemble,
warnings included, in one process and in reader processes; the work done once per read
and not once per file (the format's reader modules looked up, the reader and its options
checked) stays so; Python's cycle collector is paused while files are read and put back."""

from __future__ import annotations

import gc
import importlib.util
import shutil
import warnings
from pathlib import Path

import pytest

from perfweave.calltree import readers
from perfweave.calltree.readers import cali
from perfweave.ensemble import Ensemble
from perfweave.errors import ParseError
from tests.ensemble.test_parallel_read import assert_same_ensemble

DATA = Path(__file__).resolve().parents[1] / "data"
# every real .cali profile (the fuzz regression inputs are broken on purpose)
ALL_CALI = sorted(
    str(p.relative_to(DATA)) for p in DATA.rglob("*.cali") if "fuzz_regressions" not in p.parts
)


def _read(files: list[str], workers: int) -> tuple[Ensemble, list[tuple[str, str]]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ens = Ensemble.from_files(files, profile_key="file", workers=workers, progress=False)
    return ens, [(type(w.message).__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("rel", ALL_CALI)
def test_every_bundled_cali_file_reads_the_same_in_reader_processes(rel, tmp_path):
    files = []
    for i in range(3):  # three runs of it, each its own file
        dst = tmp_path / f"copy{i}.cali"
        shutil.copy(DATA / rel, dst)
        files.append(str(dst))
    serial, said_serial = _read(files, workers=1)
    parallel, said_parallel = _read(files, workers=2)
    assert len(serial) == 3
    assert_same_ensemble(serial, parallel)
    assert said_parallel == said_serial


def test_every_kind_of_bundled_cali_file_is_read():
    assert len(ALL_CALI) >= 30
    kinds = {Path(p).parts[1] for p in ALL_CALI if p.startswith("hatchet/")}
    # sampling, CUDA activity, MPI ranks, timeseries and ordered profiles among them
    assert {"caliper-sw4-cuda-activity-cali", "caliper-ordered-cali-mpi"} <= kinds
    assert any("sampling" in p for p in ALL_CALI)


def _seen_collector(path: str, **options):
    """A reader that notes whether Python's cycle collector runs while it reads."""
    _seen_collector.states.append(gc.isenabled())
    return cali.read(path, **options)


_seen_collector.states = []


def test_the_cycle_collector_is_paused_while_files_are_read(quartz_files):
    _seen_collector.states.clear()
    assert gc.isenabled()
    ens = Ensemble.from_files(quartz_files, reader=_seen_collector, workers=1)
    assert len(ens) == len(quartz_files)
    assert _seen_collector.states == [False] * len(quartz_files)
    assert gc.isenabled()


def test_the_cycle_collector_is_put_back_after_a_failed_read(quartz_files, tmp_path):
    broken = tmp_path / "cut.cali"
    broken.write_text(Path(quartz_files[0]).read_text()[:-20])
    with pytest.raises(ParseError, match="truncated"):
        Ensemble.from_files([*quartz_files, str(broken)], workers=1)
    assert gc.isenabled()
    gc.disable()  # a caller that paused it itself keeps it paused
    try:
        Ensemble.from_files(quartz_files, workers=1)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_formats_of_many_files_look_for_the_reader_modules_once(quartz_files, monkeypatch):
    readers.detect(quartz_files[0])  # this process has looked for them now
    looked = []
    find_spec = importlib.util.find_spec

    def counting(name, *args):
        if name.startswith("perfweave.calltree.readers."):
            looked.append(name)
        return find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", counting)
    files = quartz_files * 4
    assert [readers.detect(f) for f in files] == ["cali"] * len(files)
    Ensemble.from_files(files[:5], workers=1)
    assert looked == []  # not once per file and format


def test_the_reader_and_its_options_are_checked_once_per_list(quartz_files, monkeypatch):
    checked = []
    options = readers.reader_options

    def counting(fmt):
        checked.append(fmt)
        return options(fmt)

    monkeypatch.setattr(readers, "reader_options", counting)
    ens = Ensemble.from_files(quartz_files, workers=1, node_ordering=False)
    assert len(ens) == len(quartz_files)
    assert checked == ["cali"]


def test_an_option_the_reader_does_not_take_still_names_the_file(quartz_files):
    with pytest.raises(ParseError, match="no option 'colour'") as info:
        Ensemble.from_files(quartz_files, workers=1, colour="red")
    assert quartz_files[0] in str(info.value)


def test_a_reader_process_sends_identical_trees_as_one_graph(quartz_files, lassen_files):
    from perfweave.ensemble import build

    files = [quartz_files[0], quartz_files[0], lassen_files[0], quartz_files[0]]
    results, _ = build._read_chunk(files, "cali", None, {}, capture=True)
    graphs = [gf.graph for _, gf, _ in results]
    assert graphs[0] is graphs[1] is graphs[3]
    assert graphs[2] is not graphs[0] and graphs[2] != graphs[0]
    # what is sent back holds the tree once, whatever the number of its profiles
    import pickle

    back = [gf.graph for _, gf, _ in pickle.loads(pickle.dumps(results))]
    assert back[0] is back[1] is back[3] and back[2] is not back[0]
    assert back[0] == graphs[0]
