"""Bounds-checked access to one HPCToolkit v4 ``*.db`` file (meta.db, profile.db, cct.db).

Every such file opens with a 16-byte header (``HPCTOOLKIT``, a 4-byte kind, major and
minor version) and a table of (size, offset) pairs, one per section. :class:`DbFile`
checks the header and the sections against the file's length once; after that the
readers fetch structures with :meth:`DbFile.records`, which gathers fixed-size records at
many offsets in one numpy step (a structured dtype over a byte gather, so unaligned
offsets, as the format allows for values, cost nothing extra) and raises a
:class:`~perfweave.errors.ParseError` naming the file, the section and the offset when a
record would reach past its section or the file.
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path

import numpy as np

from perfweave.errors import ParseError

MAGIC = b"HPCTOOLKIT"
MAJOR_VERSION = 4
HEADER = 16

#: section names of each file kind, in the order of the header's (size, offset) table
SECTIONS = {
    b"meta": (
        "General",
        "IdNames",
        "Metrics",
        "Context",
        "Strings",
        "Modules",
        "Files",
        "Functions",
    ),
    b"prof": ("ProfileInfos", "IdTuples"),
    b"ctxt": ("CtxInfos",),
}
FILE_NAMES = {b"meta": "meta.db", b"prof": "profile.db", b"ctxt": "cct.db"}
#: the 8 bytes every file of a kind ends with (a file cut short lacks them)
FOOTERS = {b"meta": b"_meta.db", b"prof": b"_prof.db", b"ctxt": b"__ctx.db"}


def _map(path: Path):
    """The file's bytes, memory-mapped (only the pages a reader touches are read: the
    summary profile of a large profile.db, the header of a cct.db not needed)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < 4096:
            return f.read()
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


class DbFile:
    """One ``*.db`` file: its bytes, kind, version and sections ``name -> (offset, size)``."""

    def __init__(self, path: Path, kind: bytes) -> None:
        self.path = path
        try:
            self.data = _map(path)
        except FileNotFoundError:
            raise ParseError(
                path.parent,
                f"an HPCToolkit database directory with {FILE_NAMES[kind]}",
                found=f"no {path.name}",
            ) from None
        except IsADirectoryError:
            raise ParseError(
                path, f"an HPCToolkit {FILE_NAMES[kind]} file", found="a directory"
            ) from None
        self.buf = np.frombuffer(self.data, dtype=np.uint8)
        self.words = np.frombuffer(self.data, dtype="<u8", count=len(self.data) // 8)
        head = self.data[:HEADER]
        if len(head) < HEADER or not head.startswith(MAGIC):
            raise ParseError(
                path,
                "an HPCToolkit database file starting with 'HPCTOOLKIT'",
                position="header",
                found=repr(head[:16]),
            )
        if head[10:14] != kind:
            raise ParseError(
                path,
                f"file kind {kind.decode()!r} ({FILE_NAMES[kind]})",
                position="header, offset 10",
                found=repr(head[10:14]),
            )
        self.major, self.minor = head[14], head[15]
        if self.major != MAJOR_VERSION:
            raise ParseError(
                path,
                f"database format major version {MAJOR_VERSION}",
                position="header, offset 14",
                found=f"version {self.major}.{self.minor}",
            )
        size = len(self.data)
        if self.data[size - 8 : size] != FOOTERS[kind] or size < HEADER + 8:
            raise ParseError(
                path,
                f"the footer {FOOTERS[kind].decode()!r} in its last 8 bytes (a file cut short?)",
                position=f"offset {max(size - 8, 0)}",
                found=repr(bytes(self.data[max(size - 8, 0) : size])),
            )
        names = SECTIONS[kind]
        table = self.records(HEADER, "<u8", 2 * len(names), "header").reshape(-1, 2)
        self.sections: dict[str, tuple[int, int]] = {}
        for k, (name, (size, offset)) in enumerate(zip(names, table.tolist())):
            if offset + size > len(self.data):
                raise ParseError(
                    path,
                    f"section {name} within the file ({len(self.data)} bytes)",
                    position=f"header, offset {HEADER + 16 * k}",
                    found=f"{size} bytes at offset {offset}",
                )
            self.sections[name] = (offset, size)

    # ------------------------------------------------------------------ access
    def error(self, section: str, offset: int, expected: str, found: object = None) -> ParseError:
        """A ParseError naming this file, ``section`` and ``offset``."""
        return ParseError(
            self.path, expected, position=f"section {section}, offset {int(offset)}", found=found
        )

    def section_start(self, name: str) -> int:
        return self.sections[name][0]

    def records(
        self,
        offsets,
        dtype,
        count: int | None = None,
        section: str = "",
        *,
        within: tuple[int, int] | None = None,
    ) -> np.ndarray:
        """Records of ``dtype`` at ``offsets`` (an int or an array), or ``count`` records from
        one offset. ``within`` (start, end) bounds them (default: the file)."""
        dt = np.dtype(dtype)
        lo, hi = within if within is not None else (0, len(self.data))
        if np.ndim(offsets) == 0:
            start = int(offsets)
            n = 1 if count is None else int(count)
            end = start + n * dt.itemsize
            if start < lo or end > hi or n < 0:
                raise self.error(
                    section,
                    start,
                    f"{n} record(s) of {dt.itemsize} bytes within bytes {lo}..{hi}",
                    found=f"they would end at {end}",
                )
            out = np.frombuffer(self.data, dtype=dt, count=n, offset=start)
            return out if count is not None else out[0]
        pos = np.asarray(offsets, dtype=np.int64)
        if not len(pos):
            return np.zeros(0, dt)
        bad = (pos < lo) | (pos + dt.itemsize > hi)
        if bad.any():
            k = int(pos[bad][0])
            raise self.error(
                section,
                k,
                f"a record of {dt.itemsize} bytes within bytes {lo}..{hi}",
                found=f"one at offset {k}",
            )
        return self._gather(pos, dt)

    def _gather(self, pos: np.ndarray, dt: np.dtype) -> np.ndarray:
        """Records at checked offsets: whole 8-byte words when all offsets are aligned
        (an eighth of the index work), else bytes."""
        words = -(-dt.itemsize // 8)
        if (
            len(pos) > 64
            and not np.any(pos & 7)
            and int(pos.max()) + 8 * words <= len(self.words) * 8
        ):
            grab = (pos >> 3)[:, None] + np.arange(words, dtype=np.int64)
            raw = self.words[grab].view(np.uint8)[:, : dt.itemsize]
        else:
            raw = self.buf[pos[:, None] + np.arange(dt.itemsize, dtype=np.int64)]
        return np.ascontiguousarray(raw).view(dt).reshape(len(pos))

    def table(
        self, base: int, stride: int, n: int, dtype, section: str, within: tuple[int, int]
    ) -> np.ndarray:
        """An array of ``n`` records of ``dtype`` from ``base``, ``stride`` bytes apart (the
        format's "expandable" structures), all inside ``within``."""
        dt = np.dtype(dtype)
        self.check_array(base, stride, n, dt.itemsize, section, within)
        base, stride = int(base), int(stride)
        return self.records(
            base + stride * np.arange(int(n), dtype=np.int64), dt, None, section, within=within
        )

    def check_array(self, base, stride, n, itemsize: int, section: str, within) -> None:
        """ParseError unless ``n`` records of ``itemsize`` bytes, ``stride`` apart from
        ``base``, lie inside ``within`` (checked before anything is allocated)."""
        lo, hi = within
        base, stride, n = int(base), int(stride), int(n)
        if n and (stride < itemsize or base < lo or base + (n - 1) * stride + itemsize > hi):
            raise self.error(
                section,
                base,
                f"{n} records of {stride} bytes (at least {itemsize}) within bytes {lo}..{hi}",
                found=f"an array at offset {base}",
            )

    def ragged(
        self,
        starts: np.ndarray,
        counts: np.ndarray,
        dtype,
        section: str,
    ) -> np.ndarray:
        """The concatenation of ``counts[i]`` records of ``dtype`` from each ``starts[i]``."""
        dt = np.dtype(dtype)
        counts = np.asarray(counts, dtype=np.int64)
        starts = np.asarray(starts, dtype=np.int64)
        counts = np.where((counts < 0) | (counts > len(self.data)), -1, counts)
        ends = starts + counts * dt.itemsize
        bad = (starts < 0) | (ends > len(self.data)) | (counts < 0)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise self.error(
                section,
                int(starts[k]),
                f"{int(counts[k])} record(s) of {dt.itemsize} bytes within the file "
                f"({len(self.data)} bytes)",
                found=f"they would end at {int(ends[k])}",
            )
        total = int(counts.sum())
        if total * dt.itemsize > len(self.data):  # blocks overlap: more values than bytes
            raise self.error(
                section,
                int(starts[0]),
                f"value blocks that fit in the file together ({len(self.data)} bytes)",
                found=f"{total} records of {dt.itemsize} bytes",
            )
        if total == 0:
            return np.zeros(0, dt)
        first = np.repeat(
            starts - np.concatenate(([0], np.cumsum(counts)[:-1])) * dt.itemsize, counts
        )
        pos = first + np.arange(total, dtype=np.int64) * dt.itemsize
        if np.all(np.diff(pos) == dt.itemsize):  # one contiguous run: no gather needed
            return np.frombuffer(self.data, dtype=dt, count=total, offset=int(pos[0]))
        return self._gather(pos, dt)

    def strings(self, offsets, section: str) -> np.ndarray:
        """NUL-terminated UTF-8 strings at ``offsets`` (absolute), within ``section``.

        The section is split at its NUL bytes once (C speed); each distinct offset is
        looked up among the pieces. Returns an object array of ``str``.
        """
        lo, size = self.sections[section]
        hi = lo + size
        pos = np.asarray(offsets, dtype=np.int64)
        if not len(pos):
            return np.zeros(0, object)
        uniq, inverse = np.unique(pos, return_inverse=True)
        bad = (uniq < lo) | (uniq >= hi)
        if bad.any():
            k = int(uniq[bad][0])
            raise self.error(
                section,
                k,
                f"a string pointer into section {section} (bytes {lo}..{hi})",
                found=f"pointer {k}",
            )
        blob = self.data[lo:hi]
        pieces = blob.split(b"\0")
        lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
        starts = lo + np.concatenate(([0], np.cumsum(lengths + 1)[:-1]))
        k = np.searchsorted(starts, uniq, side="right") - 1
        if not blob.endswith(b"\0"):
            last = len(pieces) - 1
            if np.any(k == last):
                raise self.error(
                    section, int(starts[last]), "a NUL-terminated string", found="no NUL"
                )
        exact = starts[k] == uniq
        texts = np.empty(len(uniq), object)
        hit = np.flatnonzero(exact)
        texts[hit] = [pieces[i].decode("utf-8", "replace") for i in k[hit].tolist()]
        for j in np.flatnonzero(~exact).tolist():  # a pointer into the middle of a string
            i = int(k[j])
            texts[j] = pieces[i][int(uniq[j] - starts[i]) :].decode("utf-8", "replace")
        return texts[inverse.reshape(-1)]

    def string(self, offset: int, section: str) -> str:
        return str(self.strings(np.array([offset]), section)[0])
