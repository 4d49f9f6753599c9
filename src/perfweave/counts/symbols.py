"""Symbolization: a program's return addresses named from its ELF symbols and DWARF lines.

The collective profiler's backtraces name a frame of a program built without exported
symbols only by module and address (``./wrf.exe() [0x3314863]``). When the user has the
binary, :class:`Symbolizer` reads its symbol tables (``.symtab``, else ``.dynsym``: the
function symbols' start, size and name, kept as the file spells them, so C++ names stay
mangled as ``nm`` shows them) and its DWARF line table (``.debug_line``) with pyelftools
(``pip install perfweave[symbols]``) and maps an address to ``symbol+0xoffset`` and
``file:line``. The binary is only read, never run.

Which address a trace line gives (glibc's ``backtrace_symbols``, which the profiler uses):

- ``module(+0x13f4) [0x55a01fdf23f4]``: no symbol; the offset is the address minus the
  module's load bias, i.e. the address in the file's own layout. This is the form of a
  position-independent executable or a shared library: the offset is looked up.
- ``module() [0x3314863]``: no symbol and a load bias of 0, i.e. an executable built
  without ``-pie`` (its addresses are the file's): the address is looked up.
- ``module(symbol+0x7d) [0x...]``: the symbol's address in the file plus the offset is
  looked up (the symbol must be in the binary's tables).

Every address of a backtrace is a return address: the instruction after the call. Its
symbol and line are those of the call instruction (the address minus one), as debuggers
report a caller's line (at the end of a function or of a line the return address belongs
to the next one); the offset shown is the return address's, as in the trace.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import numpy as np

from perfweave.errors import FormatError, ParseError, PerfweaveError, require

if TYPE_CHECKING:  # pragma: no cover
    from perfweave.counts.backtraces import StackFrame

__all__ = ["Location", "Symbolizer"]

_ELF_MAGIC = b"\x7fELF"
#: st_info's type of a function: STT_FUNC, STT_GNU_IFUNC
_FUNCTION_TYPES = (2, 10)
#: of several symbols at one address, the name shown (st_info's binding): global (1)
#: before weak (2) before local (0)
_BINDING_RANK = {1: 0, 2: 1, 0: 2}
_DEBUG_SECTIONS = (".debug_info", ".debug_line", ".debug_abbrev", ".debug_str", ".debug_aranges")


@dataclass(frozen=True)
class Location:
    """What a binary says of one address: the function symbol containing it and the offset
    from its start (``""`` and 0 when no symbol does), the source file and line of the
    call (``""`` and 0 when the line table has none)."""

    address: int
    symbol: str
    offset: int
    file: str
    line: int

    @property
    def name(self) -> str:
        """``symbol+0xoffset`` (``main+0x1e``), or ``""`` when no symbol holds the address."""
        return f"{self.symbol}+{self.offset:#x}" if self.symbol else ""

    @property
    def source(self) -> str:
        """``file:line`` (``/src/prog.c:26``), or ``""`` when the line is unknown."""
        return f"{self.file}:{self.line}" if self.file and self.line else ""


class Symbolizer:
    """One ELF binary's function symbols and line table, to resolve its frames.

    ``Symbolizer(path)`` reads the file (never runs it) and raises a
    :class:`~perfweave.errors.FormatError` naming it when it is not an ELF file or has
    neither function symbols nor a line table (a stripped binary), a
    :class:`~perfweave.errors.ParseError` when it is truncated or malformed, and a
    :class:`~perfweave.errors.DependencyError` when pyelftools is not installed.
    """

    def __init__(self, binary: str | os.PathLike[str]) -> None:
        self.path = str(binary)
        #: the file name that frames of this binary carry as their module (``wrf.exe``)
        self.name = PurePosixPath(self.path).name
        require("elftools", "symbols", "Symbolizing a backtrace's frames")
        try:
            data = Path(binary).read_bytes()
        except OSError as exc:
            raise FormatError(f"{self.path}: cannot read the binary ({exc.strerror})") from None
        if data[:4] != _ELF_MAGIC:
            raise FormatError(
                f"{self.path}: expected an ELF binary (starting with 0x7f 'ELF'), "
                f"found {data[:4]!r}"
            )
        with self._guard("an ELF header"):
            from elftools.elf.elffile import ELFFile

            self._elf = ELFFile(io.BytesIO(data))
            self.kind = self._elf.header["e_type"]  # ET_EXEC, ET_DYN
        self._size = len(data)
        self._starts, self._ends, self._names = self._read_symbols()
        self._dwarf = self._read_dwarf()
        self._lines: dict[int | None, _LineTable] = {}
        self._by_name: dict[str, int] | None = None
        if not self._names and self._dwarf is None:
            raise FormatError(
                f"{self.path}: expected an ELF binary with function symbols (.symtab or "
                ".dynsym) or a DWARF line table (.debug_line); this one has neither "
                "(stripped?)"
            )

    def __repr__(self) -> str:
        lines = "with" if self._dwarf is not None else "without"
        return (
            f"Symbolizer({self.path!r}: {self.kind}, {len(self._names)} function symbols, "
            f"{lines} line table)"
        )

    @property
    def has_lines(self) -> bool:
        """Whether the binary has a DWARF line table (``file:line`` can be known)."""
        return self._dwarf is not None

    # ------------------------------------------------------------------ lookups
    def locate(self, address: int, *, return_address: bool = True) -> Location:
        """The symbol, offset, file and line of ``address`` (in the file's layout). A
        return address is looked up at the call instruction before it (see the module
        docstring); ``return_address=False`` looks up the address itself."""
        at = address - 1 if return_address and address > 0 else address
        symbol, start = self._symbol_at(at)
        file, line = self._line_at(at)
        return Location(address, symbol, address - start if symbol else 0, file, line)

    def frame_address(self, frame: StackFrame) -> int | None:
        """The address in the file's layout of a trace frame of this binary (its module's
        file name is the binary's), or None when the frame is of another module or its
        symbol is not in the binary (see the module docstring for the three forms)."""
        if frame.module_name != self.name:
            return None
        if frame.symbol:
            start = self._start_of(frame.symbol)
            if start is None:
                return None
            return start + (frame.offset or 0)
        if frame.offset is not None:
            return frame.offset
        return frame.address

    def locate_frame(self, frame: StackFrame) -> Location | None:
        """:meth:`locate` of :meth:`frame_address`; None when the frame is not this
        binary's (or names a symbol the binary does not have)."""
        address = self.frame_address(frame)
        return None if address is None or address < 0 else self.locate(address)

    def _symbol_at(self, address: int) -> tuple[str, int]:
        k = int(np.searchsorted(self._starts, address, side="right")) - 1
        if k >= 0 and address < self._ends[k]:
            return self._names[k], int(self._starts[k])
        return "", 0

    def _start_of(self, symbol: str) -> int | None:
        if self._by_name is None:
            self._by_name = {n: int(s) for n, s in zip(self._names, self._starts, strict=True)}
        return self._by_name.get(symbol)

    def _line_at(self, address: int) -> tuple[str, int]:
        if self._dwarf is None:
            return "", 0
        with self._guard("a DWARF line table (.debug_line)"):
            for table in self._tables_for(address):
                found = table.at(address)
                if found is not None:
                    return found
        return "", 0

    # ------------------------------------------------------------------ reading
    @contextmanager
    def _guard(self, what: str) -> Iterator[None]:
        """pyelftools raises whatever a malformed file makes it meet (its own errors,
        struct and construct errors, IndexError, UnicodeDecodeError ...): each is turned
        into a ParseError naming the binary and what was being read."""
        try:
            yield
        except PerfweaveError:
            raise
        except Exception as exc:  # noqa: BLE001 - the library's error surface is open-ended
            raise ParseError(
                self.path, f"{what} readable by pyelftools", found=f"{type(exc).__name__}: {exc}"
            ) from None

    def _section(self, name: str):
        """A section that lies wholly inside the file, or None when there is none."""
        with self._guard(f"the section header of {name}"):
            section = self._elf.get_section_by_name(name)
            if section is None:
                return None
            if section["sh_type"] != "SHT_NOBITS" and (
                section["sh_offset"] + section["sh_size"] > self._size
            ):
                raise ParseError(
                    self.path,
                    f"section {name} within the file's {self._size} bytes (truncated?)",
                    position=int(section["sh_offset"]),
                    found=f"{section['sh_size']} bytes at offset {section['sh_offset']}",
                )
            return section

    def _read_symbols(self) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """Function symbols by start address (one name per address): starts, ends, names.
        The table is read as a numpy record array (pyelftools' per-symbol objects took a
        second for 20,000 symbols); only the function symbols' names are decoded."""
        table = self._section(".symtab")
        if table is None:
            table = self._section(".dynsym")
        empty = np.zeros(0, np.uint64)
        if table is None:
            return empty, empty, []
        with self._guard(f"the symbol table {table.name}"):
            strings = self._elf.get_section(table["sh_link"])
            if strings["sh_type"] != "SHT_STRTAB" or (
                strings["sh_offset"] + strings["sh_size"] > self._size
            ):
                raise ParseError(
                    self.path,
                    f"the string table of {table.name} (section {table['sh_link']}) within "
                    "the file",
                    position=int(strings["sh_offset"]),
                )
            dtype = _symbol_dtype(self._elf.elfclass, self._elf.little_endian)
            if table["sh_entsize"] != dtype.itemsize:
                raise ParseError(
                    self.path,
                    f"{table.name} entries of {dtype.itemsize} bytes",
                    found=f"{table['sh_entsize']} bytes",
                )
            raw = table.data()
            names_blob = strings.data()
        rows = np.frombuffer(raw, dtype=dtype, count=len(raw) // dtype.itemsize)
        kind = rows["info"] & 0xF
        function = np.isin(kind, _FUNCTION_TYPES) & (rows["shndx"] != 0) & (rows["value"] != 0)
        rows = rows[function & (rows["name"] < len(names_blob))]
        found: dict[int, tuple[int, str, int]] = {}  # start -> (rank, name, size)
        for name_at, info, start, size in zip(
            rows["name"].tolist(),
            rows["info"].tolist(),
            rows["value"].tolist(),
            rows["size"].tolist(),
            strict=True,
        ):
            end = names_blob.find(b"\0", name_at)
            name = names_blob[name_at : end if end >= 0 else len(names_blob)]
            if not name:
                continue
            text = name.decode("utf-8", "replace")
            rank = _BINDING_RANK.get(info >> 4, 3)
            old = found.get(start)
            if old is None or (rank, text, -size) < (old[0], old[1], -old[2]):
                found[start] = (rank, text, size)
        starts = np.array(sorted(found), dtype=np.uint64)
        sizes = np.array([found[int(a)][2] for a in starts], dtype=np.uint64)
        # a symbol without a size covers one byte: not enough to claim an address
        ends = starts + np.maximum(sizes, 1)
        return starts, ends, [found[int(a)][1] for a in starts]

    def _read_dwarf(self):
        with self._guard("the DWARF sections"):
            if self._section(".debug_line") is None or self._section(".debug_info") is None:
                return None
            for name in _DEBUG_SECTIONS:
                self._section(name)  # each present one lies within the file
            return self._elf.get_dwarf_info(relocate_dwarf_sections=False)

    def _tables_for(self, address: int) -> Iterator[_LineTable]:
        """The line table of the compilation unit holding ``address`` (from .debug_aranges),
        else every unit's, decoded once and kept."""
        aranges = self._dwarf.get_aranges()
        offset = aranges.cu_offset_at_addr(address) if aranges is not None else None
        if offset is not None:
            if offset not in self._lines:
                self._lines[offset] = _LineTable.of(self._dwarf, self._dwarf.get_CU_at(offset))
            yield self._lines[offset]
            return
        if None not in self._lines:
            tables = [_LineTable.of(self._dwarf, cu) for cu in self._dwarf.iter_CUs()]
            self._lines[None] = _LineTable.merged(tables)
        yield self._lines[None]


class _LineTable:
    """A line program's rows as arrays sorted by address: a row covers the addresses up
    to the next row; an end-of-sequence row covers nothing."""

    def __init__(self, address: np.ndarray, file: np.ndarray, line: np.ndarray, files: list[str]):
        ends_first = np.lexsort((file >= 0, address))  # at one address an end row first
        self.address = address[ends_first]
        self.file = file[ends_first]
        self.line = line[ends_first]
        self.files = files

    @classmethod
    def of(cls, dwarf, cu) -> _LineTable:
        program = dwarf.line_program_for_CU(cu)
        if program is None:
            return cls(np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64), [])
        files = _file_names(program, cu)
        first_file = 0 if program.header["version"] >= 5 else 1
        address, file, line = [], [], []
        for entry in program.get_entries():
            state = entry.state
            if state is None:
                continue
            address.append(state.address)
            index = state.file - first_file
            ok = not state.end_sequence and 0 <= index < len(files)
            file.append(index if ok else -1)
            line.append(state.line)
        return cls(
            np.array(address, dtype=np.uint64),
            np.array(file, dtype=np.int64),
            np.array(line, dtype=np.int64),
            files,
        )

    @classmethod
    def merged(cls, tables: list[_LineTable]) -> _LineTable:
        files: list[str] = []
        parts = []
        for t in tables:
            parts.append(np.where(t.file >= 0, t.file + len(files), -1))
            files.extend(t.files)
        if not tables:
            return cls(np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64), [])
        return cls(
            np.concatenate([t.address for t in tables]),
            np.concatenate(parts),
            np.concatenate([t.line for t in tables]),
            files,
        )

    def at(self, address: int) -> tuple[str, int] | None:
        k = int(np.searchsorted(self.address, np.uint64(address), side="right")) - 1
        if k < 0 or self.file[k] < 0 or self.line[k] <= 0:
            return None
        return self.files[int(self.file[k])], int(self.line[k])


def _symbol_dtype(elfclass: int, little_endian: bool) -> np.dtype:
    """An ELF symbol table entry (Elf32_Sym or Elf64_Sym) as a numpy record."""
    e = "<" if little_endian else ">"
    if elfclass == 64:
        fields = [("name", "u4"), ("info", "u1"), ("other", "u1"), ("shndx", "u2")]
        fields += [("value", "u8"), ("size", "u8")]
    else:
        fields = [("name", "u4"), ("value", "u4"), ("size", "u4")]
        fields += [("info", "u1"), ("other", "u1"), ("shndx", "u2")]
    return np.dtype([(n, e + t if t != "u1" else t) for n, t in fields])


def _file_names(program, cu) -> list[str]:
    """The line program's file names joined with their directories, as addr2line shows
    them (DWARF 5 numbers both from 0, with the compilation directory first; earlier
    versions from 1, directory 0 being the unit's compilation directory)."""
    version = program.header["version"]
    dirs = [_text(d) for d in program["include_directory"]]
    if version < 5:
        comp_dir = ""
        top = cu.get_top_DIE()
        if "DW_AT_comp_dir" in top.attributes:
            comp_dir = _text(top.attributes["DW_AT_comp_dir"].value)
        dirs = [comp_dir, *dirs]
    out = []
    for entry in program["file_entry"]:
        name = _text(entry.name)
        index = entry.dir_index
        folder = dirs[index] if 0 <= index < len(dirs) else ""
        out.append(name if name.startswith("/") or not folder else f"{folder}/{name}")
    return out


def _text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
