from __future__ import annotations

import dataclasses
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

import perfweave
from perfweave.counts import (
    CallGroup,
    CountsProfile,
    groups_from_percall,
    read,
    read_compact,
    read_percall,
    read_percall_files,
    to_compact,
)
from perfweave.errors import FormatError, MetadataError, ParseError
from tests.counts._paths import SET1, WRF, expected


def test_multicomm_directory():
    prof = read(expected("alltoallv_multicomms_c"))
    assert isinstance(prof, CountsProfile) and prof.errors == []
    assert prof.ranks == [0, 2]
    g0, g1 = prof.call_groups(0)
    assert g0.calls.tolist() == [0, 2] and g1.calls.tolist() == [1]
    assert (g0.comm_size, g1.comm_size) == (2, 4)
    assert g0.send.dense().tolist() == [[0, 1], [0, 1]]
    assert g0.recv.dense().tolist() == [[0, 0], [1, 1]]
    assert g1.send.dense().dtype == np.int64
    (r2,) = prof.call_groups(2)
    assert r2.send == g0.send and r2.recv == g0.recv
    assert prof.group_of(1, rank=0) is g1
    assert prof.calls(0).to_dict("list") == {"call": [0, 1, 2], "group": [0, 1, 0]}
    assert [g.label for g in g1.send_groups] == ["0-3"]
    assert [g.label for g in g1.recv_groups] == ["0", "1", "2", "3"]


def test_datatype_sizes_split_groups():
    prof = read(expected("alltoallv_dt_c"))
    groups = prof.call_groups()
    assert [(g.calls.tolist(), g.send_datatype_size) for g in groups] == [([0], 4), ([1], 8)]
    assert groups[0].send is not groups[1].send  # read from two blocks
    assert groups[0].send == groups[1].send


def test_send_and_recv_blocks_pair_by_call(tmp_path):
    """Send blocks group calls 0 / 1-2 and recv blocks 0,2 / 1: three call groups."""
    prof = read(SET1 / "expectedOutput")
    assert [g.calls.tolist() for g in prof.call_groups(0)] == [[0], [1], [2]]
    assert prof.call_groups(0)[1].send is prof.call_groups(0)[2].send  # one matrix, shared


def test_allgatherv_and_alltoall_collectives():
    assert {g.collective for g in read(expected("allgatherv_c")).groups} == {"Allgatherv"}
    prof = read(expected("alltoall_multicomms_c"))
    assert prof.ranks == [0, 1]
    assert prof.call_groups(1)[0].comm_size == 3
    assert not prof.timings.empty and set(prof.locations["lead_rank"]) == {0, 1}


def test_bigcounts_memory_does_not_grow_with_calls():
    prof = read(expected("alltoallv_bigcounts_c"))
    (g,) = prof.groups
    assert g.n_calls == 1_000_000
    assert g.send.rows.nbytes + g.recv.rows.nbytes < 1000


def test_wrf_per_call_directory():
    prof = read(WRF)
    assert prof.ranks == [0]
    assert [g.calls.tolist() for g in prof.groups] == [[0], [1], [3], [4]]
    assert {g.job for g in prof.groups} == {5471563}
    assert set(prof.timings["measure"]) == {"execution", "late_arrival"}
    assert prof.comm_data["comm"].tolist() == [0, 1]


def test_identical_per_call_counts_share_one_matrix():
    first = read_percall(WRF / "counts.rank0_call0.md")
    again = dataclasses.replace(read_percall(WRF / "counts.rank0_call0.md"), call=2)
    assert again.send is not first.send and again.send == first.send
    other = read_percall(WRF / "counts.rank0_call1.md")
    groups = groups_from_percall([first, other, again])
    assert [g.calls.tolist() for g in groups] == [[0, 2], [1]]
    assert groups[0].send is first.send  # one matrix object for both calls


def test_one_bad_file_among_many_is_reported_and_the_rest_read(copy_dir):
    d = copy_dir(expected("alltoallv_multicomms_c"))
    bad = d / "send-counters.job0.rank2.txt"
    bad.write_text(bad.read_text().replace("0 1 ", "0 one "))
    with pytest.warns(UserWarning, match="send-counters.job0.rank2.txt"):
        prof = read(d)
    assert prof.ranks == [0]
    assert len(prof.call_groups(0)) == 2
    (err,) = prof.errors
    assert isinstance(err, ParseError) and err.path == str(bad) and err.line == 10
    with pytest.raises(ParseError):
        read(d, strict=True)


def test_missing_half_and_mismatched_calls(copy_dir):
    d = copy_dir(expected("alltoallv_multicomms_c"))
    (d / "recv-counters.job0.rank2.txt").unlink()
    recv0 = d / "recv-counters.job0.rank0.txt"
    recv0.write_text(recv0.read_text().replace("Count: 2 calls - 0, 2", "Count: 2 calls - 0, 3"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prof = read(d)
    assert prof.groups == []
    messages = sorted(str(e) for e in prof.errors)
    assert any("recv-counters.job0.rank2.txt is missing" in m for m in messages)
    assert any("call 2 has counts here but not in" in m for m in messages)
    with pytest.raises(MetadataError, match="no count data"):
        prof.call_groups()
    assert all(isinstance(e, FormatError) for e in prof.errors)


def test_unknown_rank_and_call():
    prof = read(expected("alltoallv_c"))
    with pytest.raises(MetadataError, match="lead rank 5"):
        prof.call_groups(5)
    with pytest.raises(MetadataError, match="no call 3"):
        prof.group_of(3)


def test_not_a_directory(tmp_path):
    with pytest.raises(FormatError, match="not a directory"):
        read(tmp_path / "nope")


def test_to_compact_matches_upstream_conversion(tmp_path):
    """The conformance case: 3 per-call files -> compact files of the Go tool, byte for byte."""
    calls = [read_percall(p) for p in sorted((SET1 / "input").glob("counts.rank0_call*.md"))]
    send, recv = to_compact(calls, tmp_path)
    for p in (send, recv):
        assert p.read_bytes() == (SET1 / "expectedOutput" / p.name).read_bytes()


@pytest.mark.parametrize(
    "test", ["alltoallv_c", "alltoallv_dt_c", "alltoallv_f", "alltoallv_bigcounts_c"]
)
def test_to_compact_from_groups_matches_profiler_files(test, tmp_path):
    prof = read(expected(test))
    send, recv = to_compact(prof.call_groups(0), tmp_path, style="profiler")
    for p in (send, recv):
        assert p.read_bytes() == (expected(test) / p.name).read_bytes()


def test_to_compact_needs_calls(tmp_path):
    with pytest.raises(FormatError):
        to_compact([], tmp_path)


def test_lazy_top_level_names():
    assert perfweave.CountsProfile is CountsProfile
    assert perfweave.CallGroup is CallGroup
    assert perfweave.read_counts is read
    assert read_compact is perfweave.counts.read_compact


def test_identical_per_call_files_are_parsed_once(tmp_path, monkeypatch):
    """Calls with the same counts write byte-identical files: read() parses each content once."""

    import perfweave.counts.profile as profile_module

    for name in ("counts.rank0_call0.md", "counts.rank0_call1.md"):
        shutil.copy(WRF / name, tmp_path / name)
    shutil.copy(WRF / "counts.rank0_call0.md", tmp_path / "counts.rank0_call7.md")
    parsed = []
    real = profile_module.read_percall
    monkeypatch.setattr(profile_module, "read_percall", lambda p: parsed.append(p.name) or real(p))
    prof = read(tmp_path)
    assert sorted(parsed) == ["counts.rank0_call0.md", "counts.rank0_call1.md"]
    assert [g.calls.tolist() for g in prof.groups] == [[0, 7], [1]]
    alone = read_percall(WRF / "counts.rank0_call0.md")
    assert prof.groups[0].send == alone.send and prof.groups[0].recv == alone.recv


def _group_summary(prof: CountsProfile) -> list[tuple]:
    return [
        (g.lead_rank, g.calls.tolist(), g.send.fingerprint, g.recv.fingerprint, g.comm_size)
        for g in prof.groups
    ]


def test_threads_read_the_same_profile_as_one_thread(copy_dir):
    d = copy_dir(WRF)
    # calls 5 and 6 repeat the counts of calls 0 and 3 (byte-identical files, as the
    # profiler writes for calls with identical counts)
    (d / "counts.rank0_call5.md").write_bytes((d / "counts.rank0_call0.md").read_bytes())
    (d / "counts.rank0_call6.md").write_bytes((d / "counts.rank0_call3.md").read_bytes())
    one, two = read(d, workers=1), read(d, workers=2)
    assert _group_summary(one) == _group_summary(two)
    assert [g.calls.tolist() for g in two.groups] == [[0, 5], [1], [3, 6], [4]]
    assert two.timings.equals(one.timings) and two.errors == []
    g05 = two.group_of(5)
    assert (
        g05.send.dense().tolist() == read_percall(d / "counts.rank0_call0.md").send.dense().tolist()
    )


def test_copies_of_a_bad_per_call_file_are_each_reported_by_name(copy_dir):
    d = copy_dir(WRF)
    bad = d / "counts.rank0_call1.md"
    bad.write_text(bad.read_text().replace("Comm size: 160", "Comm size: 16O"))
    copy = d / "counts.rank0_call7.md"
    copy.write_bytes(bad.read_bytes())
    with pytest.warns(UserWarning) as caught:
        prof = read(d, workers=2)
    assert [Path(str(w.message).split(",")[0][len("skipped: ") :]) for w in caught] == [bad, copy]
    assert [e.path for e in prof.errors] == [str(bad), str(copy)]
    assert all(isinstance(e, ParseError) and e.line == 3 for e in prof.errors)
    assert [g.calls.tolist() for g in prof.groups] == [[0], [3], [4]]
    with pytest.raises(ParseError) as info:
        read(d, strict=True, workers=2)
    assert info.value.path == str(bad)  # the first bad file by name, whatever thread ends first


def test_read_percall_files_in_order_and_first_error(copy_dir):
    paths = sorted(WRF.glob("counts.*.md"))
    many = read_percall_files(paths, workers=2)
    assert [c.call for c in many] == [0, 1, 3, 4]
    for c, p in zip(many, paths):
        alone = read_percall(p)
        assert (c.send, c.recv, c.path) == (alone.send, alone.recv, str(p))
    d = copy_dir(WRF)
    for name in ("counts.rank0_call3.md", "counts.rank0_call4.md"):
        (d / name).write_text("Send counts\n")
    with pytest.raises(ParseError) as info:
        read_percall_files(sorted(d.glob("counts.*.md")), workers=2)
    assert info.value.path.endswith("counts.rank0_call3.md")
    with pytest.raises(ValueError, match="workers must be >= 1"):
        read_percall_files(paths, workers=0)


def test_per_call_files_of_equal_size_but_other_counts_are_not_merged(copy_dir):
    d = copy_dir(WRF)
    text = (d / "counts.rank0_call0.md").read_text()
    (d / "counts.rank0_call5.md").write_text(text)
    m = re.search(r" [1-9][0-9]*[0-8] ", text)  # a count in the first (send) section
    assert m is not None and m.start() < text.index("Recv counts")
    count = m.group().strip()
    changed = text[: m.start()] + f" {int(count) + 1} " + text[m.end() :]
    assert changed != text and len(changed) == len(text)
    (d / "counts.rank0_call6.md").write_text(changed)
    prof = read(d, workers=2)
    assert [g.calls.tolist() for g in prof.groups] == [[0, 5], [1], [3], [4], [6]]
    six = prof.group_of(6).send.dense()
    zero = prof.group_of(0).send.dense()
    assert int((six - zero).sum()) == 1


def test_count_files_only_in_subfolders_are_named(tmp_path):
    """A results tree (one folder per run) is not read as an empty profile: the message
    names the subfolders that hold count files."""

    for run in ("run-a", "nested/run-b"):
        shutil.copytree(expected("alltoallv_c"), tmp_path / run)
    (tmp_path / "notes").mkdir()
    with pytest.raises(FormatError) as info:
        read(tmp_path)
    message = str(info.value)
    assert f"no count files in {tmp_path}" in message
    assert "nested/run-b" in message and "run-a" in message and "notes" not in message
    # the subfolder named reads
    assert read(tmp_path / "run-a").ranks


def test_an_empty_directory_is_an_error_not_an_empty_profile(tmp_path):

    with pytest.raises(FormatError, match="no count files in .*expected send-/recv-counters"):
        read(tmp_path)
