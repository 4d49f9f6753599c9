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

import errno
import mmap
import os
import stat
from pathlib import Path

import numpy as np

from perfweave.errors import ParseError

MAGIC = b"HPCTOOLKIT"
MAJOR_VERSION = 4
HEADER = 16
#: unsigned 64-bit sizes and offsets are clamped to this where they are combined: far past
#: any file, so every bounds check still fails, and sums of two stay inside int64
FAR = 1 << 62

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
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def clamped(values) -> np.ndarray:
    """Sizes or offsets (any integer dtype; u64 as the files store them) as int64, values
    above :data:`FAR` clamped to it: a u64 with its top bit set is a huge size, never a
    negative one."""
    a = np.asarray(values)
    if a.dtype.kind == "u":
        a = np.minimum(a, np.uint64(FAR))
    return a.astype(np.int64)


def open_regular(path: Path, expected: str = "a regular file") -> int:
    """A read-only descriptor of ``path``, refused unless it is a regular file.

    Opened without blocking (a FIFO would wait for a writer forever) and checked with
    ``fstat`` on the descriptor itself, before a byte is read: a link to ``/dev/zero``, a
    FIFO, a socket, a device or a directory raises a ParseError naming ``path``, as does a
    symlink loop. A missing file raises FileNotFoundError.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise ParseError(path, expected, found="a directory") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ParseError(path, expected, found="a symlink loop") from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        if os.path.islink(path):
            kind += f" ({os.path.realpath(path)})"
        raise ParseError(path, expected, found=kind)
    return fd


def _map(path: Path, kind: bytes):
    """The file's bytes, memory-mapped (only the pages a reader touches are read: the
    summary profile of a large profile.db, the header of a cct.db not needed); a small
    file is read, never more bytes than ``fstat`` reports."""
    fd = open_regular(path, f"an HPCToolkit {FILE_NAMES[kind]} (a regular file)")
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(fd).st_size
        if size < 4096:
            return f.read(size)
        try:
            return mmap.mmap(fd, size, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:  # a special file system refuses mapping
            raise ParseError(path, "a file that can be memory-mapped", found=str(exc)) from None


class DbFile:
    """One ``*.db`` file: its bytes, kind, version and sections ``name -> (offset, size)``."""

    def __init__(self, path: Path, kind: bytes) -> None:
        self.path = path
        try:
            self.data = _map(path, kind)
        except FileNotFoundError:
            raise ParseError(
                path.parent,
                f"an HPCToolkit database directory with {FILE_NAMES[kind]}",
                found=f"no {path.name}",
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
        raw = np.asarray(offsets)
        if not len(raw):
            return np.zeros(0, dt)
        pos = clamped(raw)
        bad = (pos < lo) | (pos + dt.itemsize > hi)
        if bad.any():
            k = int(raw[np.flatnonzero(bad)[0]])  # as stored: a u64 prints unsigned
            raise self.error(
                section,
                k,
                f"a record of {dt.itemsize} bytes within bytes {lo}..{hi}",
                found=f"one at offset {k}",
            )
        return self._gather(pos, dt)

    def offsets(self, raw, section: str, within: tuple[int, int]) -> np.ndarray:
        """Offsets ``raw`` (u64 as stored) as int64, once each is known to lie inside
        ``within``: a ParseError names the first that does not, by its stored value."""
        pos = clamped(raw)
        lo, hi = within
        bad = (pos < lo) | (pos >= hi)
        if bad.any():
            k = int(np.asarray(raw)[np.flatnonzero(bad)[0]])
            raise self.error(section, k, f"an offset within bytes {lo}..{hi}", found=f"offset {k}")
        return pos

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
        raw_starts, raw_counts = np.asarray(starts), np.asarray(counts)
        starts, counts = clamped(raw_starts), clamped(raw_counts)
        over = (counts < 0) | (counts > len(self.data))  # more records than bytes
        counts = np.where(over, 0, counts)
        ends = starts + counts * dt.itemsize
        bad = over | (starts < 0) | (ends > len(self.data))
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            start, n = int(raw_starts[k]), int(raw_counts[k])  # as stored: u64 unsigned
            raise self.error(
                section,
                start,
                f"{n} record(s) of {dt.itemsize} bytes within the file ({len(self.data)} bytes)",
                found=f"they would end at {start + n * dt.itemsize}",
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
        raw = np.asarray(offsets)
        if not len(raw):
            return np.zeros(0, object)
        uniq, inverse = np.unique(raw, return_inverse=True)
        bad = (uniq < lo) | (uniq >= hi)
        if bad.any():
            k = int(uniq[bad][0])  # as stored: a u64 prints unsigned
            raise self.error(
                section,
                k,
                f"a string pointer into section {section} (bytes {lo}..{hi})",
                found=f"pointer {k}",
            )
        uniq = uniq.astype(np.int64)
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
