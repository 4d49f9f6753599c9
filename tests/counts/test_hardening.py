"""Out-of-range sizes and numbers in count files end in a ParseError naming file, line and
value (issue #16), checked before anything is allocated; lenient reads skip and name."""

from __future__ import annotations

import shutil
import warnings

import pytest

from perfweave.counts import parse_ranklist, read, read_compact, read_percall
from perfweave.counts._fields import MAX_RANKS
from perfweave.errors import IncompleteInputWarning, ParseError, SkippedInputWarning
from tests.counts._paths import WRF, expected

SEND = expected("alltoallv_c") / "send-counters.job0.rank0.txt"  # Number of ranks: 4


def _damaged(tmp_path, src, old, new, name=None):
    text = src.read_text()
    assert old in text, f"seed {src.name} no longer holds {old!r}"
    dst = tmp_path / (name or src.name)
    dst.write_text(text.replace(old, new, 1))
    return dst


@pytest.mark.parametrize("size", ["4000000000", str(10**24), "9" * 10_000])
def test_declared_number_of_ranks_out_of_range(tmp_path, size):
    path = _damaged(tmp_path, SEND, "Number of ranks: 4", f"Number of ranks: {size}")
    with pytest.raises(ParseError) as info:
        read_compact(path)
    err = info.value
    assert err.path == str(path) and err.line == 3
    assert f"{MAX_RANKS:,}" in err.expected
    assert err.found.startswith("Number of ranks: ")


def test_number_of_ranks_the_data_cannot_hold(tmp_path):
    # within the limit, but each row holds 4 counts: refused by the row check, no allocation
    path = _damaged(tmp_path, SEND, "Number of ranks: 4", "Number of ranks: 5000000")
    with pytest.raises(ParseError) as info:
        read_compact(path)
    assert info.value.line == 10 and "5000000" in info.value.expected


@pytest.mark.parametrize(
    ("label", "what"),
    [
        ("0-99999999999999999999", "rank list of integer ranks"),
        ("3-00", "low <= high"),
        ("0-2, 3-00", "low <= high"),
        ("9" * 10_000, "rank list of integer ranks"),
    ],
)
def test_rank_labels_out_of_range_or_reversed(tmp_path, label, what):
    path = _damaged(tmp_path, SEND, "Rank(s) 0-3:", f"Rank(s) {label}:")
    with pytest.raises(ParseError, match=what) as info:
        read_compact(path)
    assert info.value.line == 10


def test_rank_list_longer_than_declared_is_refused_before_expanding():
    with pytest.raises(ParseError, match="at most 16,777,216 ranks"):
        parse_ranklist("0-4000000000")
    with pytest.raises(ParseError, match="at most 4 ranks") as info:
        parse_ranklist("0-3, 10-4000000000", path="f.txt", line=7, limit=4)
    assert info.value.line == 7
    assert parse_ranklist("3-3, 0-2").tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Count: 1 calls - 0", "Count: 1 calls - " + "1" * 10_000),
        ("Count: 1 calls - 0", "Count: " + "1" * 10_000 + " calls - 0"),
        ("Count: 1 calls - 0", "Count: 5000000000 calls - 0-4999999999"),
        ("Alltoallv calls 0-0", "Alltoallv calls 0-" + "7" * 10_000),
        ("Datatype size: 4", "Datatype size: 99999999999"),
    ],
)
def test_header_numbers_out_of_range(tmp_path, old, new):
    path = _damaged(tmp_path, SEND, old, new)
    with pytest.raises(ParseError) as info:
        read_compact(path)
    assert info.value.path == str(path) and info.value.line in (4, 5, 6)


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ("Comm size: 160", "Comm size: 4000000000", 3),
        ("Comm size: 160", "Comm size: " + "1" * 10_000, 3),
        ("Send datatype size: 1", "Send datatype size: 1e400", 1),
    ],
)
def test_percall_header_out_of_range(tmp_path, old, new, line):
    path = _damaged(tmp_path, WRF / "counts.rank0_call0.md", old, new)
    with pytest.raises(ParseError) as info:
        read_percall(path)
    assert info.value.line == line and info.value.path == str(path)


def test_percall_comm_size_larger_than_the_rows(tmp_path):
    path = _damaged(tmp_path, WRF / "counts.rank0_call0.md", "Comm size: 160", "Comm size: 100000")
    with pytest.raises(ParseError, match="100000 rows of counts under 'Send counts'"):
        read_percall(path)


def _cut_after_first_block(path):
    text = path.read_text()
    path.write_text(text[: text.index("END DATA") + len("END DATA\n")])


def test_send_and_recv_both_cut_after_the_first_call_are_named(copy_dir):
    d = copy_dir(expected("allgatherv_c"))
    for kind in ("send", "recv"):
        _cut_after_first_block(d / f"{kind}-counters.job0.rank0.txt")
    with pytest.warns(IncompleteInputWarning) as caught:
        prof = read(d)
    names = sorted(str(w.message).split(":")[0] for w in caught)
    assert names == [
        str(d / "recv-counters.job0.rank0.txt"),
        str(d / "send-counters.job0.rank0.txt"),
    ]
    assert "lists 2 calls but the file holds 1" in str(caught[0].message)
    # the call present is kept
    assert [g.calls.tolist() for g in prof.call_groups(0)] == [[0]]


@pytest.mark.parametrize("kind", ["send", "recv"])
def test_a_file_cut_after_the_first_of_two_blocks_with_sparse_call_ids(copy_dir, kind):
    """Rank 0 of the multi-communicator run: header 'calls 0-2', a first block of calls
    0 and 2 (its last id is the header's last) and a second of call 1. Cut after the first
    block the file used to read as if whole, even with strict=True."""
    d = copy_dir(expected("alltoallv_multicomms_c"))
    cut = d / f"{kind}-counters.job0.rank0.txt"
    _cut_after_first_block(cut)
    last_line = len(cut.read_text().splitlines())
    with pytest.raises(ParseError) as info:
        read_compact(cut, strict=True)
    err = info.value
    assert err.path == str(cut) and err.line == last_line
    assert "the 3 calls the header 'Alltoallv calls 0-2' lists" in str(err)
    assert "2 (1 block, calls 0, 2) before the end of the file" in str(err)
    with pytest.raises(ParseError, match=f"{kind}-counters.job0.rank0.txt, line {last_line}"):
        read(d, strict=True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prof = read(d)
    incomplete, skipped = caught
    assert incomplete.category is IncompleteInputWarning
    text = str(incomplete.message)
    assert text.startswith(f"{cut}: the header 'Alltoallv calls 0-2' lists 3 calls")
    assert f"at line {last_line}" in text
    # the lenient read keeps everything else: rank 0's pair no longer matches, so it is
    # skipped (named), and rank 2's calls are read as from the intact directory
    assert skipped.category is SkippedInputWarning
    assert "call 1 has counts here but not in" in str(skipped.message)
    whole = read(expected("alltoallv_multicomms_c"))
    assert prof.ranks == [2] and len(prof.errors) == 1
    assert [g.calls.tolist() for g in prof.call_groups(2)] == [
        g.calls.tolist() for g in whole.call_groups(2)
    ]


def test_complete_files_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", IncompleteInputWarning)
        for name in ("allgatherv_c", "alltoallv_multicomms_c", "alltoallv_dt_c"):
            for p in sorted(expected(name).glob("*-counters.*.txt")):
                read_compact(p)


def test_out_of_range_size_in_one_file_skips_only_that_file(copy_dir):
    d = copy_dir(expected("alltoallv_multicomms_c"))
    bad = d / "send-counters.job0.rank2.txt"
    bad.write_text(bad.read_text().replace("Number of ranks: 2", "Number of ranks: 4000000000"))
    with pytest.warns(SkippedInputWarning, match="send-counters.job0.rank2.txt"):
        prof = read(d)
    assert prof.ranks == [0] and len(prof.call_groups(0)) == 2
    (err,) = prof.errors
    assert isinstance(err, ParseError) and err.path == str(bad)
    with pytest.raises(ParseError):
        read(d, strict=True)


def test_percall_out_of_range_file_skipped_in_a_directory(tmp_path):
    d = tmp_path / "wrf"
    d.mkdir()
    for name in ("counts.rank0_call0.md", "counts.rank0_call1.md"):
        shutil.copyfile(WRF / name, d / name)
    bad = d / "counts.rank0_call1.md"
    bad.write_text(bad.read_text().replace("Comm size: 160", "Comm size: " + "9" * 30))
    with pytest.warns(SkippedInputWarning, match="counts.rank0_call1.md"):
        prof = read(d)
    assert [g.calls.tolist() for g in prof.call_groups(0)] == [[0]]
