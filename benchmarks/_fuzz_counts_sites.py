"""Fuzz targets for the call sites (issue 33): the backtrace reader, the call-site weave
over a directory holding a mutated backtrace, and the symbolizer fed mutated ELF binaries.

Seeds are the project's own test data: the profiler's backtraces (``tests/data/counts``),
the tiny program of ``tests/data/counts/symbols`` (see its README) with its backtraces,
and a crafted backtrace with every frame form (``tests/data/fuzz_seeds/counts_sites``). Each target's ``parse`` takes the path of one mutated input; only
``perfweave.errors`` exceptions may escape (named warnings are fine), and nothing hangs.
"""

from __future__ import annotations

import contextlib
import functools
import random
from pathlib import Path

from benchmarks._fuzz_core import Target, mutate
from perfweave.counts import Symbolizer, read, read_backtrace
from perfweave.errors import PerfweaveError

ROOT = Path(__file__).resolve().parents[1]
COUNTS = ROOT / "tests" / "data" / "counts"
SYMBOLS = COUNTS / "symbols"
_PROFILER = COUNTS / "collective_profiler_tests"
CRAFTED = (
    ROOT / "tests" / "data" / "fuzz_seeds" / "counts_sites" / "alltoallv_backtrace_rank3_trace1.md"
)
#: the backtraces of each test binary (module name -> directory)
_RESULTS = {"prog": SYMBOLS / "results", "prog-pie": SYMBOLS / "results-pie"}


def _read_backtrace(path: Path) -> None:
    read_backtrace(path)


def _weave(path: Path) -> None:
    """The lenient directory reader and the weave with the program's binary: a bad
    backtrace is recorded in profile.errors, the weave ends or raises a PerfweaveError."""
    profile = read(path.parent, workers=1)
    with contextlib.suppress(PerfweaveError):
        profile.call_sites(binary=SYMBOLS / "prog")
    profile.call_sites(wrappers="keep")


def _symbolize(path: Path) -> None:
    """Read a mutated binary and resolve every frame of its backtraces and a spread of
    addresses (in and out of its functions)."""
    sym = Symbolizer(path)
    traces = sorted(_RESULTS[path.name].glob("*_backtrace_*.md"))
    for trace in traces + ([CRAFTED] if path.name == "prog" else []):
        for frame in read_backtrace(trace).frames:
            sym.locate_frame(frame)
    for address in (*range(0, 0x2000, 0x3F), *range(0x400000, 0x402000, 0x3F)):
        sym.locate(address)
    sym.locate(2**64 - 1)


#: values an ELF field is set to: edges of sizes, offsets and counts
_ELF_VALUES = (0, 1, 0x7F, 0x80, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 2**63, 2**64 - 1)


@functools.lru_cache(maxsize=8)
def elf_regions(data: bytes) -> tuple[tuple[int, int], ...]:
    """(offset, size) of the parts of an ELF file a symbolizer reads: its header, the
    section header table, and the symbol, string and DWARF sections."""
    import io

    from elftools.elf.elffile import ELFFile

    elf = ELFFile(io.BytesIO(data))
    h = elf.header
    out = [(0, h["e_ehsize"]), (h["e_shoff"], h["e_shnum"] * h["e_shentsize"])]
    for section in elf.iter_sections():
        if section.name in (".symtab", ".strtab", ".dynsym", ".dynstr", ".shstrtab") or (
            section.name.startswith(".debug_")
        ):
            out.append((section["sh_offset"], section["sh_size"]))
    return tuple((o, n) for o, n in out if n > 0)


def mutate_elf(data: bytes, rng: random.Random) -> bytes:
    """:func:`mutate_elf_fields` four times in five (so the parse gets past the headers),
    else a generic :func:`mutate`."""
    return mutate(data, rng) if rng.random() < 0.2 else mutate_elf_fields(data, rng)


def mutate_elf_fields(data: bytes, rng: random.Random) -> bytes:
    """One to four fields of the header, section headers, symbols, strings or DWARF
    sections set to an edge value or random bytes; the layout (size, offsets) is kept."""
    out = bytearray(data)
    regions = elf_regions(data)
    for _ in range(rng.choice((1, 1, 2, 4))):
        offset, size = rng.choice(regions)
        width = min(rng.choice((1, 2, 4, 8)), size)
        at = offset + rng.randrange(size - width + 1)
        if rng.random() < 0.5:
            value = rng.choice(_ELF_VALUES) % (1 << (8 * width))
            piece = value.to_bytes(width, "little")
        else:
            piece = rng.randbytes(width)
        out[at : at + width] = piece
    return bytes(out)


TARGETS: list[Target] = [
    Target(
        "counts.backtrace",
        (
            COUNTS / "wrf_all_calls" / "alltoallv_backtrace_rank0_trace0.md",
            _PROFILER / "allgatherv_c" / "expectedOutput" / "allgatherv_backtrace_rank0_trace0.md",
            _PROFILER
            / "alltoall_multicomms_c"
            / "expectedOutput"
            / "alltoall_backtrace_rank1_trace0.md",
            _RESULTS["prog-pie"] / "alltoallv_backtrace_rank0_trace1.md",
            CRAFTED,
        ),
        _read_backtrace,
    ),
    Target(
        "counts.call_sites",
        (_RESULTS["prog"] / "alltoallv_backtrace_rank0_trace1.md", CRAFTED),
        _weave,
        companions=tuple(
            _RESULTS["prog"] / name
            for name in (
                "alltoallv_backtrace_rank0_trace0.md",
                "alltoallv_backtrace_rank0_trace2.md",
                "send-counters.job0.rank0.txt",
                "recv-counters.job0.rank0.txt",
            )
        ),
    ),
    Target(
        "counts.symbols", (SYMBOLS / "prog", SYMBOLS / "prog-pie"), _symbolize, mutator=mutate_elf
    ),
]
