"""Reading libodb sample files: headers, counts, and clear errors for bad files."""

from __future__ import annotations

import shutil

import pytest

from perfweave.classes import read_header, read_samples, sample_count
from perfweave.errors import ParseError

BASH = "samples/current/{root}/usr/bin/bash/{dep}/{root}/usr/bin/bash"
PERL_LIBC = "samples/current/{root}/usr/bin/perl/{dep}/{root}/usr/lib/x86_64-linux-gnu/libc.so.6"


def test_header_fields(sessions):
    header = read_header(sessions["nosep"] / BASH / "CPU_CLK_UNHALTED.50000.0.all.all.all")
    assert header.version == 0x13
    assert header.count == 50000
    assert header.unit_mask == 0
    assert header.cpu_speed == 2400.0
    assert header.describe_cpu() == "CPU: AMD64 generic, speed 2400 MHz (estimated)"
    um = read_header(sessions["um_cpu"] / BASH / "DATA_CACHE_MISSES.500.2.all.all.all")
    assert (um.count, um.unit_mask) == (500, 2)
    kern = read_header(
        sessions["sep"]
        / "samples/current/{root}/usr/bin/perl/{dep}/{kern}/ext4"
        / "CPU_CLK_UNHALTED.100000.0.100.100.0"
    )
    assert kern.is_kernel


def test_counts_add_up_to_opreport_figures(sessions):
    # nosep/01_default.txt: bash has 41 samples in the count-50000 class, all in bash itself
    assert sample_count(sessions["nosep"] / BASH / "CPU_CLK_UNHALTED.50000.0.all.all.all") == 41
    # nosep/01_default.txt: perl's libc.so.6 row has 19 samples, over two offsets
    header, nodes = read_samples(
        sessions["nosep"] / PERL_LIBC / "CPU_CLK_UNHALTED.100000.0.all.all.all"
    )
    assert len(nodes) == 2 and int(nodes["value"].sum()) == 19
    assert (
        header.event_code
        == read_header(sessions["nosep"] / BASH / "CPU_CLK_UNHALTED.50000.0.all.all.all").event_code
    )


@pytest.fixture
def sample_copy(sessions, tmp_path):
    src = sessions["nosep"] / BASH / "CPU_CLK_UNHALTED.50000.0.all.all.all"
    dst = tmp_path / "CPU_CLK_UNHALTED.50000.0.all.all.all"
    shutil.copy(src, dst)
    return dst


def _patch(path, offset, data):
    raw = bytearray(path.read_bytes())
    raw[offset : offset + len(data)] = data
    path.write_bytes(bytes(raw))


def test_bad_magic_names_the_file(sample_copy):
    _patch(sample_copy, 0, b"XXXX")
    with pytest.raises(ParseError, match="magic") as info:
        sample_count(sample_copy)
    assert info.value.path == str(sample_copy)
    assert info.value.position == 0


def test_bad_version(sample_copy):
    _patch(sample_copy, 4, (7).to_bytes(4, "little"))
    with pytest.raises(ParseError, match="version 0x13"):
        read_header(sample_copy)


def test_truncated_file(sample_copy):
    sample_copy.write_bytes(sample_copy.read_bytes()[:50])
    with pytest.raises(ParseError, match="at least 104 bytes"):
        read_header(sample_copy)


def test_node_table_larger_than_file(sample_copy):
    _patch(sample_copy, 72, (128).to_bytes(4, "little") + (100000).to_bytes(4, "little"))
    with pytest.raises(ParseError, match="node table"):
        sample_count(sample_copy)


def test_missing_file_says_so(tmp_path):
    with pytest.raises(ParseError, match="readable sample file"):
        sample_count(tmp_path / "nope")
