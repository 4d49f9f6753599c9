"""Symbolization: a program's frames resolved through its ELF symbols and DWARF lines,
checked against what binutils (nm, addr2line) said of the same binaries at build time."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

import perfweave.counts as pc
from perfweave.counts.backtraces import read_backtrace
from perfweave.counts.symbols import Symbolizer
from perfweave.errors import (
    DependencyError,
    FormatError,
    MetadataError,
    ParseError,
    UnmatchedCallsWarning,
)
from tests.counts._paths import COUNTS

SYMBOLS = COUNTS / "symbols"
PROG, PIE = SYMBOLS / "prog", SYMBOLS / "prog-pie"
RESULTS = {"prog": SYMBOLS / "results", "prog-pie": SYMBOLS / "results-pie"}


def addr2line() -> list[tuple[str, int, str, str]]:
    """(binary, frame address, function or "", file:line or "") per line of addr2line.txt
    (addr2line's ``??`` is unknown; its ``(discriminator n)`` is not part of the line)."""
    out = []
    for row in (SYMBOLS / "addr2line.txt").read_text().splitlines():
        binary, address, _call, function, source = row.split()[:5]
        out.append(
            (
                binary,
                int(address, 16),
                "" if function == "??" else function,
                "" if source.startswith("??") else source,
            )
        )
    return out


def nm() -> dict[tuple[str, str], int]:
    """(binary, function) -> start address, from nm.txt."""
    return {
        (binary, name): int(start, 16)
        for binary, start, _size, _kind, name in (
            row.split() for row in (SYMBOLS / "nm.txt").read_text().splitlines()
        )
    }


def weave(results, **options):
    with pytest.warns(UnmatchedCallsWarning, match="no timing files"):
        return pc.read(results).call_sites(**options)


@pytest.mark.parametrize("binary", ["prog", "prog-pie"])
def test_every_program_frame_resolves_as_addr2line_and_nm_say(binary):
    sym = Symbolizer(SYMBOLS / binary)
    starts = nm()
    rows = [r for r in addr2line() if r[0] == binary]
    assert len(rows) == 7 and sym.has_lines
    for _, address, function, source in rows:
        where = sym.locate(address)
        assert (where.symbol, where.source) == (function, source), hex(address)
        assert where.offset == address - starts[(binary, function)]
        assert where.name == f"{function}+{address - starts[(binary, function)]:#x}"
    # the line of a return address is its call's: the call of exchange_halo in solve
    assert sym.locate(rows[1][1]).source.endswith("prog.c:10")


@pytest.mark.parametrize("binary", ["prog", "prog-pie"])
def test_trace_frames_give_the_files_addresses(binary):
    """Non-PIE: the address of `prog() [0x...]`; PIE: the offset of `prog-pie(+0x...)`."""
    sym = Symbolizer(SYMBOLS / binary)
    trace = read_backtrace(RESULTS[binary] / "alltoallv_backtrace_rank0_trace0.md")
    mine = [f for f in trace.frames if f.module_name == binary]
    expected = {address for b, address, _, _ in addr2line() if b == binary}
    assert len(mine) == 4 and {sym.frame_address(f) for f in mine} <= expected
    others = [f for f in trace.frames if f.module_name != binary]
    assert [sym.locate_frame(f) for f in others] == [None, None, None]


@pytest.mark.parametrize("binary", ["prog", "prog-pie"])
def test_call_sites_with_the_binary_name_functions_and_lines(binary):
    gf = weave(RESULTS[binary], binary=SYMBOLS / binary)
    lines = {(a, f): s for b, a, f, s in addr2line() if b == binary}
    table = gf.metadata["call_sites"]
    callers = {f"{f} ({s})" for (_, f), s in lines.items() if f in ("exchange_halo", "transpose")}
    assert set(table["caller"]) == callers and len(table) == 3
    assert table["call_ids"].tolist() == ["0, 3, 6", "1, 4, 7", "2, 5, 8"]
    frames = gf.graph.frames
    paths = set()
    for node in gf.metadata["call_sites"]["node"]:
        path = []
        while node >= 0:
            path.append(
                (frames.loc[node, "name"], frames.loc[node, "module"], frames.loc[node, "source"])
            )
            node = int(gf.graph.parent[node])
        paths.add(tuple(reversed(path)))
    src = {f: s for (_, f), s in lines.items()}
    start = ("_start", binary, "")  # addr2line: no line for _start (crt1.o has none)
    libc = ("__libc_start_main", "libc.so.6", "")  # another module: as the trace names it
    main = ("main", binary, src["main"])
    solve = [s for (_, f), s in sorted(lines.items()) if f == "solve"]  # two calls in solve
    t1, t2 = sorted(s for (_, f), s in lines.items() if f == "transpose")
    halo = src["exchange_halo"]
    mpi = ("MPI_Alltoallv", "", "")
    assert paths == {
        (start, libc, main, ("solve", binary, solve[0]), ("exchange_halo", binary, halo), mpi),
        (start, libc, main, ("solve", binary, solve[1]), ("transpose", binary, t1), mpi),
        (start, libc, main, ("solve", binary, solve[1]), ("transpose", binary, t2), mpi),
    }
    assert gf.metadata["binaries"] == [str(SYMBOLS / binary)]


def test_without_the_binary_frames_keep_their_addresses():
    gf = weave(RESULTS["prog"])
    assert gf.metadata["call_sites"]["caller"].tolist() == [
        "prog [0x401149]",
        "prog [0x401169]",
        "prog [0x401179]",
    ]
    gf = weave(RESULTS["prog-pie"])
    assert gf.metadata["call_sites"]["caller"].tolist() == [
        "prog-pie+0x115c",
        "prog-pie+0x117c",
        "prog-pie+0x118c",
    ]


def test_a_symbolizer_object_and_several_binaries():
    sym = Symbolizer(PROG)
    gf = weave(RESULTS["prog"], binary=[sym])
    assert gf.metadata["call_sites"].loc[0, "caller"].startswith("exchange_halo (")
    profile = pc.read(RESULTS["prog"])
    with pytest.raises(MetadataError, match="no frame of the backtraces is of a module named"):
        profile.call_sites(binary=[PROG, PIE])  # prog-pie is not in these traces


def test_a_binary_that_is_not_elf_is_refused_by_name():
    with pytest.raises(FormatError, match=r"prog\.c: expected an ELF binary"):
        Symbolizer(SYMBOLS / "prog.c")
    with pytest.raises(FormatError, match="cannot read the binary"):
        Symbolizer(SYMBOLS / "missing")


def test_a_truncated_binary_is_a_parse_error(tmp_path):
    data = PROG.read_bytes()
    for size in (10, 64, 2000, len(data) // 2, len(data) - 100):
        cut = tmp_path / "prog"
        cut.write_bytes(data[:size])
        with pytest.raises(ParseError) as caught:
            Symbolizer(cut)
        assert str(cut) in str(caught.value)


def test_a_binary_without_symbols_or_lines_is_refused(tmp_path):
    """The same ELF file with its section headers gone (as if stripped of everything)."""
    data = bytearray(PROG.read_bytes())
    data[0x28:0x30] = bytes(8)  # e_shoff
    data[0x3C:0x40] = bytes(4)  # e_shnum, e_shstrndx
    bare = tmp_path / "prog"
    bare.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=r"function symbols .* or a DWARF line table"):
        Symbolizer(bare)


def test_the_binary_is_read_never_run(tmp_path, monkeypatch):
    copy = tmp_path / "prog"
    shutil.copyfile(PROG, copy)
    copy.chmod(0o444)  # not executable

    def refuse(*args, **kwargs):
        raise AssertionError("a program was started")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr("os.posix_spawn", refuse, raising=False)
    monkeypatch.setattr("os.execv", refuse)
    assert Symbolizer(copy).locate(0x401149).symbol == "exchange_halo"


def test_without_pyelftools_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "elftools", None)
    with pytest.raises(DependencyError, match=r"pip install 'perfweave\[symbols\]'"):
        Symbolizer(PROG)


def test_a_symbol_table_of_another_entry_size_is_a_parse_error(tmp_path):
    """.symtab's sh_entsize set to 23 (an Elf64_Sym is 24 bytes): refused by name, not
    misread."""
    from elftools.elf.elffile import ELFFile

    data = bytearray(PROG.read_bytes())
    with PROG.open("rb") as f:
        elf = ELFFile(f)
        index = next(k for k, s in enumerate(elf.iter_sections()) if s.name == ".symtab")
        header = elf.header["e_shoff"] + index * elf.header["e_shentsize"]
    data[header + 56 : header + 64] = (23).to_bytes(8, "little")  # Elf64_Shdr.sh_entsize
    bad = tmp_path / "prog"
    bad.write_bytes(bytes(data))
    with pytest.raises(ParseError, match=r"\.symtab") as caught:  # pyelftools checks it too
        Symbolizer(bad)
    assert str(caught.value).startswith(f"{bad}: expected ")
