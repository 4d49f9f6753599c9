"""Inputs of profile classes: kind detection, session archives, one parsed source."""

from __future__ import annotations

import gc
import io
import os
import tarfile
from pathlib import Path

import pandas as pd
import pytest

import perfweave as pw
from perfweave.classes import (
    ClassSource,
    detect_kind,
    is_session_archive,
    load_source,
    session_archive,
    session_classes,
)
from perfweave.errors import FormatError, SpecError

DATA = Path(__file__).parent.parent / "data" / "classes"
ARCHIVES = DATA / "synthetic_sessions"
PERF = DATA / "perf_equivalents"


@pytest.mark.parametrize(
    "path,kind",
    [
        (ARCHIVES / "opsession_sep.tar.gz", "session-archive"),
        (ARCHIVES / "sample_files_sep.txt", "listing"),
        (PERF / "perf_data_convert.json", "perf-json"),
        (PERF / "report_comm_dso.txt", "perf-report"),
        (PERF / "report_header_only.txt", "perf-report"),
        (PERF / "script_flat.txt", "perf-script"),
    ],
)
def test_detect_kind_of_the_shared_files(path, kind):
    assert detect_kind(path) == kind


def test_detect_kind_of_a_directory_and_a_missing_path(tmp_path):
    assert detect_kind(tmp_path) == "session"
    with pytest.raises(FormatError, match="no such file"):
        detect_kind(tmp_path / "gone")


def test_opreport_reads_an_archive_as_its_session(sessions):
    archive = ARCHIVES / "opsession_sep.tar.gz"
    assert is_session_archive(archive) and not is_session_archive(sessions["sep"])
    # pw.opreport is the same function: it used to refuse the archive the CLI takes
    assert pw.opreport(archive, [], "cpu,tgid") == pw.opreport(sessions["sep"], [], "cpu,tgid")
    words = ["event:CPU_CLK_UNHALTED", "tid:100,200"]
    got = session_classes(archive, words, "cpu")
    want = session_classes(sessions["sep"], words, "cpu")
    assert got.names == want.names
    assert got.table["samples"].tolist() == want.table["samples"].tolist()


def test_session_archive_unpacks_for_the_block_only():
    with session_archive(ARCHIVES / "opsession_many.tar.gz") as folder:
        assert (Path(folder) / "samples" / "current").is_dir()
    assert not Path(folder).exists()


def test_a_bad_archive_is_a_spec_error(tmp_path):
    bad = tmp_path / "bad.tar.gz"
    with tarfile.open(bad, "w:gz") as tar:
        info = tarfile.TarInfo("../escape.txt")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(SpecError, match="leaves the session"):
        load_source(bad)
    junk = tmp_path / "junk.tgz"
    junk.write_bytes(b"not an archive")
    with pytest.raises(SpecError, match="not a readable session archive"):
        pw.opreport(junk)


def test_load_source_keeps_an_unpacked_archive_while_it_lives(sessions):
    source = load_source(ARCHIVES / "opsession_sep.tar.gz")
    assert isinstance(source, ClassSource) and source.kind == "session"
    folder = source.session_dir
    assert folder is not None and Path(folder).is_dir()
    unpacked = load_source(sessions["sep"]).table(["current"])
    table = source.table(["current"])
    assert len(table) == len(unpacked)
    assert table["samples"].tolist() == unpacked["samples"].tolist()
    del source, table
    gc.collect()
    assert not os.path.exists(folder)


def test_perf_report_without_counts_says_how_to_get_them():
    source = load_source(PERF / "report_cpu_comm.txt")
    assert source.kind == "perf" and not source.has_samples
    assert "perf report --stdio -n" in source.missing_counts
    with_counts = load_source(PERF / "report_fields_sample_period.txt")
    assert with_counts.has_samples and with_counts.missing_counts == ""


def test_sources_from_frames_and_bad_input():
    samples = pw.classes.read_perf_script(PERF / "script_flat.txt")
    assert load_source(samples).kind == "perf"
    assert load_source(pd.DataFrame(samples)).kind == "perf"
    with pytest.raises(FormatError, match="not int"):
        load_source(3)
    with pytest.raises(FormatError, match="kind must be"):
        load_source(PERF / "script_flat.txt", kind="nope")
