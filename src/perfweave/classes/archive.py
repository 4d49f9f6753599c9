"""OProfile session archives: a ``.tar.gz`` (``.tgz``, ``.tar``) of a session directory.

:func:`is_session_archive` says whether a path names one; :func:`session_archive` unpacks
it into a temporary folder for a ``with`` block, :class:`UnpackedSession` for as long as
that object lives.

An archive comes from anywhere, so unpacking trusts nothing in it:

- Only regular files and folders are unpacked. Symbolic links, hard links, devices, FIFOs
  and members of unknown type are dropped, and one
  :class:`~perfweave.errors.SkippedInputWarning` names them.
- A member whose path leaves the archive (absolute, or through ``..``) is refused.
- :class:`ArchiveLimits` caps the member count and the bytes of member data (defaults
  100,000 members and 1 GiB, far above any real session). All headers are read first and
  the archive is refused as soon as they declare more, before anything is written. The
  bytes actually written are counted too: a member that yields more than its header
  declared is refused. Headers themselves are bounded (16 MiB for one long name or pax
  record, 4 KiB per member in all), so no header makes the reader run without end.
- An archive cut short (inside its compressed stream, inside a member, or before its
  end-of-archive blocks) or corrupt is refused.

Every refusal is a :class:`~perfweave.errors.SpecError` naming the archive; a partly
unpacked folder is removed.
"""

from __future__ import annotations

import contextlib
import os
import tarfile
import tempfile
import warnings
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from os import PathLike
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from perfweave.errors import SkippedInputWarning, SpecError

#: file name endings of session archives
ARCHIVES = (".tar.gz", ".tgz", ".tar")

#: header bytes allowed per member besides its data (a 512-byte header, a long name or
#: pax record, padding): bounds how far the stream is read, whatever the headers say
_HEADER_ALLOWANCE = 4096
#: the largest single read of the stream (tarfile reads a long name or pax record whole)
_LARGEST_READ = 1 << 24
#: bytes copied per read while unpacking a member
_CHUNK = 1 << 20
#: how many dropped members the warning names before counting the rest
_NAMED = 10
#: how to read a larger session, said with each refusal at a limit
_RAISE_BYTES = "raise it with ArchiveLimits(max_bytes=...) or --archive-max-bytes"
_RAISE_MEMBERS = "raise it with ArchiveLimits(max_members=...) or --archive-max-members"


def is_session_archive(path: str | PathLike[str]) -> bool:
    """Whether ``path`` is an existing file named like a session archive."""
    return str(path).endswith(ARCHIVES) and os.path.isfile(path)


def _size(n: int) -> str:
    """``n`` bytes in the largest binary unit that keeps one digit: ``1 GiB``, ``1.5 MiB``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.4g} {unit}"
    return f"{n} bytes"


@dataclass(frozen=True)
class ArchiveLimits:
    """How much a session archive may unpack to: ``max_bytes`` of member data (default
    1 GiB) in at most ``max_members`` members (default 100,000, counting folders and
    dropped members). Pass a larger one where a real session needs it, e.g.
    ``pw.opreport(path, archive_limits=ArchiveLimits(max_bytes=8 << 30))``."""

    max_bytes: int = 1 << 30
    max_members: int = 100_000

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_members"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise SpecError(f"ArchiveLimits: {name} must be a positive integer, not {value!r}")

    def cli_options(self) -> list[str]:
        """The ``perfweave opreport`` options that set these limits (none for defaults)."""
        default = ArchiveLimits()
        options = []
        if self.max_bytes != default.max_bytes:
            options.append(f"--archive-max-bytes={self.max_bytes}")
        if self.max_members != default.max_members:
            options.append(f"--archive-max-members={self.max_members}")
        return options


class _Unreadable(Exception):
    """The compressed stream under the tar reader failed (cut short or corrupt)."""


class _BoundedStream:
    """The archive's decompressed bytes, read at most up to ``limit`` (and at most
    :data:`_LARGEST_READ` per read), so no header can make tarfile read without end; a
    failure of the decompressor is raised as :class:`_Unreadable`."""

    def __init__(self, file: BinaryIO, raw: BinaryIO, limit: int, archive: str) -> None:
        self._file = file
        self._raw = raw
        self._limit = limit
        self._archive = archive

    def _guard(self, call, *args):
        try:
            return call(*args)
        except (EOFError, OSError, zlib.error) as exc:
            raise _Unreadable(str(exc) or type(exc).__name__) from None

    def _check(self, end: int) -> None:
        if end > self._limit:
            raise SpecError(
                f"{self._archive}: its headers and member data go past {_size(self._limit)} "
                "(the member data limit plus 4 KiB of headers per member allowed)"
            )

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0 or n > _LARGEST_READ:
            raise SpecError(
                f"{self._archive}: a header asks to read {n} bytes at once "
                f"(at most {_size(_LARGEST_READ)} expected)"
            )
        self._check(self.tell() + n)
        return self._guard(self._raw.read, n)

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if whence == os.SEEK_SET:
            self._check(offset)
        elif whence == os.SEEK_CUR:
            self._check(self.tell() + offset)
        else:  # the end of a compressed stream is only found by reading all of it
            raise SpecError(f"{self._archive}: unsupported seek from the end of the archive")
        return self._guard(self._raw.seek, offset, whence)

    def tell(self) -> int:
        return self._raw.tell()

    def close(self) -> None:
        self._raw.close()
        self._file.close()


def _decompressed(file: BinaryIO) -> BinaryIO:
    """The tar stream in an archive ``file``: gzip, bzip2 and xz are read through,
    anything else as is."""
    magic = file.read(6)
    file.seek(0)
    if magic.startswith(b"\x1f\x8b"):
        import gzip

        return gzip.GzipFile(fileobj=file, mode="rb")  # type: ignore[return-value]
    if magic.startswith(b"BZh"):
        import bz2

        return bz2.BZ2File(file)  # type: ignore[return-value]
    if magic.startswith(b"\xfd7zXZ\x00"):
        import lzma

        return lzma.LZMAFile(file)  # type: ignore[return-value]
    return file


def _kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return "symbolic link"
    if member.islnk():
        return "hard link"
    if member.ischr() or member.isblk():
        return "device"
    if member.isfifo():
        return "FIFO"
    return f"member of type {member.type!r}"


def _scan(tar: tarfile.TarFile, stream: _BoundedStream, path: str, limits: ArchiveLimits):
    """The members to unpack (regular files and folders) and the dropped ones, from the
    headers alone; refused as soon as the headers pass a limit or a path leaves."""
    kept: list[tarfile.TarInfo] = []
    dropped: list[tarfile.TarInfo] = []
    count = declared = 0
    while (member := tar.next()) is not None:
        count += 1
        if count > limits.max_members:
            raise SpecError(
                f"{path}: more than {limits.max_members:,} members (the limit: {_RAISE_MEMBERS})"
            )
        if member.isfile() or member.type not in tarfile.SUPPORTED_TYPES:
            declared += member.size  # tarfile reads past this member's data
            if declared > limits.max_bytes:
                raise SpecError(
                    f"{path}: its members declare more than {_size(limits.max_bytes)} of data "
                    f"(member {member.name!r} brings it to {_size(declared)}; the limit: "
                    f"{_RAISE_BYTES})"
                )
        if not (member.isfile() or member.isdir()):
            dropped.append(member)
            continue
        name = PurePosixPath(member.name)
        if name.is_absolute() or ".." in name.parts:
            raise SpecError(f"{path}: archive member {member.name!r} leaves the session")
        kept.append(member)
    # tarfile stops quietly at a cut or an unreadable header after the first member: a
    # complete archive has a block of zeros there
    stream.seek(tar.offset)
    end = stream.read(tarfile.BLOCKSIZE)
    if len(end) < tarfile.BLOCKSIZE:
        raise SpecError(f"{path}: cut short (no end-of-archive block after {count} members)")
    if end.count(0) != tarfile.BLOCKSIZE:
        raise SpecError(f"{path}: not a tar header at byte {tar.offset} of the archive")
    return kept, dropped


def _warn_dropped(path: str, dropped: list[tarfile.TarInfo]) -> None:
    if not dropped:
        return
    named = ", ".join(f"{m.name!r} ({_kind(m)})" for m in dropped[:_NAMED])
    more = f" and {len(dropped) - _NAMED} more" if len(dropped) > _NAMED else ""
    warnings.warn(
        f"{path}: dropped {len(dropped)} archive member(s) that are not regular files or "
        f"folders: {named}{more}",
        SkippedInputWarning,
        stacklevel=4,
    )


def _write(tar: tarfile.TarFile, members: list[tarfile.TarInfo], into: Path, path: str) -> None:
    """Unpack ``members`` under ``into``. The bytes written are counted: a member that
    yields more than its header declared is refused, so what the scan let through (at most
    the limit) is all that is ever written."""
    for member in members:
        target = into.joinpath(*PurePosixPath(member.name).parts)
        try:
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            with source, open(target, "wb") as out:
                written = 0
                while chunk := source.read(_CHUNK):
                    written += len(chunk)
                    if written > member.size:
                        raise SpecError(
                            f"{path}: member {member.name!r} holds more than the "
                            f"{member.size} bytes its header declares"
                        )
                    out.write(chunk)
        except OSError as exc:
            raise SpecError(f"{path}: cannot unpack member {member.name!r}: {exc}") from None


def _unpack(path: str, into: str, limits: ArchiveLimits) -> str:
    limit = limits.max_bytes + _HEADER_ALLOWANCE * limits.max_members
    try:
        file = open(path, "rb")  # noqa: SIM115 - closed with the stream that wraps it
    except OSError as exc:
        raise SpecError(f"{path}: cannot open the session archive ({exc})") from None
    try:
        stream = _BoundedStream(file, _decompressed(file), limit, path)
    except OSError as exc:
        file.close()
        raise SpecError(f"{path}: not a readable session archive ({exc})") from None
    try:
        with (
            contextlib.closing(stream),
            tarfile.open(fileobj=stream, mode="r:") as tar,  # type: ignore[call-overload]
        ):
            kept, dropped = _scan(tar, stream, path, limits)
            _warn_dropped(path, dropped)
            _write(tar, kept, Path(into), path)
    except _Unreadable as exc:
        raise SpecError(f"{path}: cut short or corrupt ({exc})") from None
    except tarfile.TarError as exc:
        what = "cut short" if "unexpected end of data" in str(exc) else "not a readable"
        raise SpecError(f"{path}: {what} session archive ({exc})") from None
    except RecursionError:  # a chain of thousands of long-name headers
        raise SpecError(f"{path}: a member has too many extended headers") from None
    inner = list(Path(into).iterdir())
    root = inner[0] if len(inner) == 1 and (inner[0] / "samples").is_dir() else Path(into)
    return str(root)


class UnpackedSession:
    """A session archive unpacked into a temporary folder, removed with this object
    (or by :meth:`cleanup`). ``path`` is the session directory inside; ``limits`` caps
    what the archive may unpack to (:class:`ArchiveLimits`, its defaults when ``None``)."""

    def __init__(self, archive: str | PathLike[str], limits: ArchiveLimits | None = None) -> None:
        self.limits = limits or ArchiveLimits()
        self._tmp = tempfile.TemporaryDirectory(prefix="perfweave-session-")
        try:
            self.path = _unpack(os.fspath(archive), self._tmp.name, self.limits)
        except BaseException:
            self._tmp.cleanup()
            raise

    def cleanup(self) -> None:
        self._tmp.cleanup()


@contextlib.contextmanager
def session_archive(
    path: str | PathLike[str], limits: ArchiveLimits | None = None
) -> Iterator[str]:
    """The session directory ``path`` itself, or (a session archive) the directory it
    unpacks to within ``limits``, for the duration of the ``with`` block."""
    if not is_session_archive(path):
        yield os.fspath(path)
        return
    unpacked = UnpackedSession(path, limits)
    try:
        yield unpacked.path
    finally:
        unpacked.cleanup()
