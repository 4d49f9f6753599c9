"""OProfile session archives: a ``.tar.gz`` (``.tgz``, ``.tar``) of a session directory.

:func:`is_session_archive` says whether a path names one; :func:`session_archive` unpacks
it into a temporary folder for a ``with`` block, :class:`UnpackedSession` for as long as
that object lives. Only regular files and folders are unpacked, and a member whose path
leaves the archive (absolute, or through ``..``) is refused with a
:class:`~perfweave.errors.SpecError` naming it.
"""

from __future__ import annotations

import contextlib
import os
import tarfile
import tempfile
from collections.abc import Iterator
from os import PathLike
from pathlib import Path

from perfweave.errors import SpecError

#: file name endings of session archives
ARCHIVES = (".tar.gz", ".tgz", ".tar")


def is_session_archive(path: str | PathLike[str]) -> bool:
    """Whether ``path`` is an existing file named like a session archive."""
    return str(path).endswith(ARCHIVES) and os.path.isfile(path)


def _unpack(path: str, into: str) -> str:
    try:
        with tarfile.open(path) as tar:
            members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]
            for m in members:
                if m.name.startswith("/") or ".." in Path(m.name).parts:
                    raise SpecError(f"{path}: archive member {m.name!r} leaves the session")
            # the "data" filter (Python >= 3.12, backported to 3.10.12 / 3.11.4) also refuses
            # links and device files; older patch releases have no filter argument
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(into, members=members, **safe)
    except tarfile.TarError as exc:
        raise SpecError(f"{path}: not a readable session archive ({exc})") from None
    inner = list(Path(into).iterdir())
    root = inner[0] if len(inner) == 1 and (inner[0] / "samples").is_dir() else Path(into)
    return str(root)


class UnpackedSession:
    """A session archive unpacked into a temporary folder, removed with this object
    (or by :meth:`cleanup`). ``path`` is the session directory inside."""

    def __init__(self, archive: str | PathLike[str]) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="perfweave-session-")
        try:
            self.path = _unpack(os.fspath(archive), self._tmp.name)
        except BaseException:
            self._tmp.cleanup()
            raise

    def cleanup(self) -> None:
        self._tmp.cleanup()


@contextlib.contextmanager
def session_archive(path: str | PathLike[str]) -> Iterator[str]:
    """The session directory ``path`` itself, or (a session archive) the directory it
    unpacks to, for the duration of the ``with`` block."""
    if not is_session_archive(path):
        yield os.fspath(path)
        return
    unpacked = UnpackedSession(path)
    try:
        yield unpacked.path
    finally:
        unpacked.cleanup()
