"""Read OProfile sample files (libodb format) for their header and sample counts.

Layout (little-endian, as operf writes it on x86-64): a 72-byte header (magic ``DAE\\n``,
version, cpu type, event code, unit mask, count, is_kernel, cpu speed, mtime, ...), a
32-byte table descriptor (node capacity, nodes used + 1), then ``capacity`` 16-byte nodes
(u64 key = sample offset, u32 value = samples, u32 next) and the hash table. Node 0 is
unused, so a file's sample count is the sum of the values of nodes ``1 .. used - 1``.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

import numpy as np

from perfweave.errors import ParseError

MAGIC = b"DAE\n"
VERSION = 0x13
HEADER_SIZE = 72
DESCR_SIZE = 32
NODE_DTYPE = np.dtype([("key", "<u8"), ("value", "<u4"), ("next", "<u4")])

#: OProfile cpu type codes seen in sample headers -> the name opreport prints.
CPU_NAMES = {69: "AMD64 generic"}


@dataclass(frozen=True, slots=True)
class SampleFileHeader:
    """The header fields of one sample file."""

    version: int
    cpu_type: int
    event_code: int
    unit_mask: int
    count: int
    is_kernel: bool
    cpu_speed: float
    mtime: int

    @property
    def cpu_name(self) -> str:
        return CPU_NAMES.get(self.cpu_type, f"CPU type {self.cpu_type}")

    def describe_cpu(self) -> str:
        """The ``CPU:`` line opreport prints for this header."""
        return f"CPU: {self.cpu_name}, speed {self.cpu_speed:g} MHz (estimated)"


def _parse_header(data: bytes, path: str) -> SampleFileHeader:
    if len(data) < HEADER_SIZE + DESCR_SIZE:
        raise ParseError(
            path,
            f"an OProfile sample file of at least {HEADER_SIZE + DESCR_SIZE} bytes",
            found=f"{len(data)} bytes",
        )
    if data[:4] != MAGIC:
        raise ParseError(path, "the sample file magic 'DAE\\n'", position=0, found=repr(data[:4]))
    version, cpu, event, um, count, kernel = struct.unpack_from("<6I", data, 4)
    if version != VERSION:
        raise ParseError(
            path, f"sample file version {VERSION:#x}", position=4, found=f"{version:#x}"
        )
    (speed,) = struct.unpack_from("<d", data, 32)
    (mtime,) = struct.unpack_from("<Q", data, 40)
    return SampleFileHeader(version, cpu, event, um, count, bool(kernel), speed, mtime)


def _read(path: str | PathLike[str]) -> tuple[bytes, str]:
    name = str(path)
    try:
        return Path(path).read_bytes(), name
    except OSError as exc:
        raise ParseError(name, "a readable sample file", found=exc.strerror or str(exc)) from exc


def read_header(path: str | PathLike[str]) -> SampleFileHeader:
    """The header of one sample file (:class:`ParseError` naming the file when it is bad)."""
    data, name = _read(path)
    return _parse_header(data, name)


def _nodes(data: bytes, name: str) -> np.ndarray:
    capacity, used = struct.unpack_from("<II", data, HEADER_SIZE)
    start = HEADER_SIZE + DESCR_SIZE
    if used < 1 or used > capacity or start + used * NODE_DTYPE.itemsize > len(data):
        raise ParseError(
            name,
            "a node table that fits the file (1 <= used <= capacity)",
            position=HEADER_SIZE,
            found=f"capacity {capacity}, used {used}, file {len(data)} bytes",
        )
    return np.frombuffer(data, dtype=NODE_DTYPE, count=used, offset=start)[1:]


def read_samples(path: str | PathLike[str]) -> tuple[SampleFileHeader, np.ndarray]:
    """Header and sample nodes (structured array with ``key`` and ``value``) of one file."""
    data, name = _read(path)
    header = _parse_header(data, name)
    return header, _nodes(data, name).copy()


def sample_count(path: str | PathLike[str]) -> int:
    """Total samples in one sample file."""
    data, name = _read(path)
    _parse_header(data, name)
    return int(_nodes(data, name)["value"].sum(dtype=np.int64))


def sample_counts(paths: Iterable[str | PathLike[str]]) -> np.ndarray:
    """Total samples of each file, as an int64 array (raises on the first bad file)."""
    return np.array([sample_count(p) for p in paths], dtype=np.int64)
