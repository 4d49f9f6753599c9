"""Hostile session archives: cut short, bombs, too many members, links and devices.

Every archive is built here, in ``tmp_path``, from the bundled synthetic session or from
hand-made tar headers. Each one must end in a :class:`SpecError` naming the archive (or,
for links and devices, a named warning), before anything is written where a limit is
passed.
"""

from __future__ import annotations

import gzip
import io
import shlex
import tarfile
import tempfile
from pathlib import Path

import pytest

import perfweave as pw
from perfweave.classes import (
    ArchiveLimits,
    load_source,
    session_archive,
    session_classes,
)
from perfweave.cli import main
from perfweave.errors import SkippedInputWarning, SpecError

SESSION = Path(__file__).parent.parent / "data" / "classes" / "synthetic_sessions"
ARCHIVE = SESSION / "opsession_sep.tar.gz"
ZEROS = 64 << 20  # one gzip member of this many zero bytes is about 64 KB


def header(name: str, size: int = 0, kind: bytes = tarfile.REGTYPE, link: str = "") -> bytes:
    """One tar header block (GNU format) for a member that declares ``size`` bytes."""
    info = tarfile.TarInfo(name)
    info.size, info.type, info.linkname = size, kind, link
    return info.tobuf(tarfile.GNU_FORMAT)


END = b"\0" * 1024  # the two zero blocks that end a tar archive


def bomb(path: Path, sizes: list[int]) -> Path:
    """A real, complete .tar.gz whose members hold ``sizes`` zero bytes (each a multiple
    of :data:`ZEROS`): gzip members concatenated, so 1 GiB takes about 1 MB on disk."""
    chunk = gzip.compress(b"\0" * ZEROS)
    parts = []
    for i, size in enumerate(sizes):
        parts += [gzip.compress(header(f"samples/current/big{i}", size)), chunk * (size // ZEROS)]
    path.write_bytes(b"".join(parts) + gzip.compress(END))
    return path


@pytest.fixture
def written(tmp_path, monkeypatch) -> list[list[Path]]:
    """What each temporary folder held when it was removed (the unpacked session's)."""
    seen: list[list[Path]] = []
    cleanup = tempfile.TemporaryDirectory.cleanup

    def spy(self):
        seen.append(sorted(Path(self.name).rglob("*")))
        cleanup(self)

    monkeypatch.setattr(tempfile.TemporaryDirectory, "cleanup", spy)
    return seen


def plain_tar() -> bytes:
    return gzip.decompress(ARCHIVE.read_bytes())


def member_offsets() -> list[int]:
    """Where each member's header starts in the tar, and where the end blocks start."""
    with tarfile.open(ARCHIVE) as tar:
        members = tar.getmembers()
    last = members[-1]
    return [m.offset for m in members] + [last.offset_data + -(-last.size // 512) * 512]


def cut_archives(tmp_path: Path) -> dict[str, Path]:
    """The bundled archive cut short in the ways a copy or download dies."""
    data, plain = ARCHIVE.read_bytes(), plain_tar()
    offsets = member_offsets()
    garbled = bytearray(plain)
    garbled[offsets[20] : offsets[20] + 512] = b"x" * 512
    cuts = {
        "gz_quarter.tar.gz": data[: len(data) // 4],
        "gz_half.tar.gz": data[: len(data) // 2],
        "gz_three_quarters.tar.gz": data[: len(data) * 3 // 4],
        "tar_half.tar": plain[: len(plain) // 2],
        "tar_at_a_member.tar": plain[: offsets[20]],
        "tar_without_end.tar": plain[: offsets[-1]],  # every member, no end blocks
        "tar_garbled_header.tar": bytes(garbled),
    }
    for name, body in cuts.items():
        (tmp_path / name).write_bytes(body)
    return {name: tmp_path / name for name in cuts}


def test_an_archive_cut_short_is_a_spec_error_naming_it(tmp_path):
    for path in cut_archives(tmp_path).values():
        with pytest.raises(SpecError, match="cut short|not a tar header") as caught:
            pw.opreport(path)
        assert str(path) in str(caught.value)
    # the uncut plain tar reads as the .tar.gz does
    (tmp_path / "whole.tar").write_bytes(plain_tar())
    assert pw.opreport(tmp_path / "whole.tar", [], "cpu,tgid") == pw.opreport(
        ARCHIVE, [], "cpu,tgid"
    )


def test_the_cli_says_an_archive_is_cut_short(tmp_path, capsys):
    path = cut_archives(tmp_path)["gz_half.tar.gz"]
    assert main(["opreport", f"--session-dir={path}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("opreport error:") and f"{path}: cut short" in err


@pytest.mark.parametrize("entry", ["opreport", "session_classes", "load_source", "cli"])
def test_an_archive_declaring_over_1_gib_is_refused_before_writing(
    entry, tmp_path, written, capsys
):
    path = bomb(tmp_path / "bomb.tar.gz", [18 * ZEROS])  # 1.125 GiB of zeros, complete
    assert path.stat().st_size < 2_000_000
    calls = {
        "opreport": lambda: pw.opreport(path),
        "session_classes": lambda: session_classes(path),
        "load_source": lambda: load_source(path),
    }
    if entry == "cli":
        assert main(["opreport", f"--session-dir={path}"]) == 1
        message = capsys.readouterr().err
    else:
        with pytest.raises(SpecError) as caught:
            calls[entry]()
        message = str(caught.value)
    assert f"{path}: its members declare more than 1 GiB of data" in message
    assert "'samples/current/big0' brings it to 1.125 GiB" in message
    assert written == [[]]  # the temporary folder was made, and held nothing


def test_the_limit_is_checked_against_the_headers_before_the_data_is_read(tmp_path, written):
    # declares 1.5 GiB and holds 2 MB: reading the data first would find the archive cut
    # short; the refusal at the limit shows the header alone decided
    path = tmp_path / "liar.tar.gz"
    path.write_bytes(gzip.compress(header("samples/big", 3 << 29) + b"\0" * (2 << 20)))
    with pytest.raises(SpecError, match="declare more than 1 GiB"):
        pw.opreport(path)
    assert written == [[]]


def test_many_members_are_refused_past_the_limit(tmp_path, written, capsys):
    path = tmp_path / "many.tar.gz"
    path.write_bytes(gzip.compress(header("samples/current/x") * 1001 + END))
    limits = ArchiveLimits(max_members=1000)
    with pytest.raises(SpecError, match=f"{path}: more than 1,000 members"):
        pw.opreport(path, archive_limits=limits)
    assert main(["opreport", f"--session-dir={path}", "--archive-max-members=1000"]) == 1
    assert "more than 1,000 members (the limit" in capsys.readouterr().err
    assert written == [[], []]
    with session_archive(path, ArchiveLimits(max_members=1001)) as folder:
        assert [p.name for p in Path(folder).rglob("*") if p.is_file()] == ["x"]


def test_the_limits_can_be_raised_from_every_entry_point(tmp_path, capsys):
    with tarfile.open(ARCHIVE) as tar:
        total = sum(m.size for m in tar.getmembers() if m.isfile())
        count = len(tar.getmembers())
    tight, enough = ArchiveLimits(max_bytes=total - 1), ArchiveLimits(max_bytes=total)
    want = pw.opreport(ARCHIVE, [], "cpu,tgid")
    with pytest.raises(SpecError, match="declare more than"):
        pw.opreport(ARCHIVE, [], "cpu,tgid", archive_limits=tight)
    assert pw.opreport(ARCHIVE, [], "cpu,tgid", archive_limits=enough) == want
    with pytest.raises(SpecError, match=f"more than {count - 1} members"):
        session_classes(
            ARCHIVE, [], "cpu,tgid", archive_limits=ArchiveLimits(max_members=count - 1)
        )
    assert session_classes(
        ARCHIVE, [], "cpu,tgid", archive_limits=ArchiveLimits(max_members=count)
    ).names
    with pytest.raises(SpecError, match="declare more than"):
        load_source(ARCHIVE, archive_limits=tight)
    assert len(load_source(ARCHIVE, archive_limits=enough).table(["current"])) > 0
    argv = ["opreport", f"--session-dir={ARCHIVE}", "--merge=cpu,tgid"]
    assert main([*argv, f"--archive-max-bytes={total - 1}"]) == 1
    assert "--archive-max-bytes" in capsys.readouterr().err
    assert main([*argv, "--archive-max-bytes=1M"]) == 0
    assert capsys.readouterr().out == want

    from perfweave.widgets import ClassPicker

    with pytest.raises(SpecError, match="declare more than"):
        ClassPicker(ARCHIVE, merge="cpu,tgid", archive_limits=tight)
    picker = ClassPicker(ARCHIVE, merge="cpu,tgid", archive_limits=enough)
    # the command the picker shows carries the raised limit, and prints the same report
    shown = shlex.split(picker.command_line)
    assert f"--archive-max-bytes={total}" in shown
    assert main(shown[1:]) == 0
    assert capsys.readouterr().out == want
    with pytest.raises(SystemExit):
        main([*argv, "--archive-max-bytes=lots"])
    assert "expected a positive byte count" in capsys.readouterr().err


def test_a_member_yielding_more_than_its_header_declares_is_refused(tmp_path, monkeypatch):
    # tarfile reads exactly the declared bytes; a member stream that yields more (a reader
    # that trusts a lying header) must still never be written past its declaration
    def longer(self, member):
        return io.BytesIO(b"\1" * (member.size + 1))

    monkeypatch.setattr(tarfile.TarFile, "extractfile", longer)
    with pytest.raises(SpecError, match=r"holds more than the 2664 bytes its header declares"):
        pw.opreport(ARCHIVE)


def test_links_devices_and_fifos_are_dropped_with_one_warning_naming_them(tmp_path):
    path = tmp_path / "links.tar.gz"
    odd = {
        "samples/current/link": tarfile.SYMTYPE,
        "samples/current/hard": tarfile.LNKTYPE,
        "samples/current/tty": tarfile.CHRTYPE,
        "samples/current/disk": tarfile.BLKTYPE,
        "samples/current/pipe": tarfile.FIFOTYPE,
    }
    with tarfile.open(ARCHIVE) as source, tarfile.open(path, "w:gz") as tar:
        for member in source.getmembers():
            tar.addfile(member, source.extractfile(member) if member.isfile() else None)
        for name, kind in odd.items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, "/etc/passwd"
            tar.addfile(info)
    with pytest.warns(SkippedInputWarning) as caught:
        report = pw.opreport(path, [], "cpu,tgid")
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith(f"{path}: dropped 5 archive member(s)")
    for name, what in zip(odd, ["symbolic link", "hard link", "device", "device", "FIFO"]):
        assert f"{name!r} ({what})" in message
    assert report == pw.opreport(ARCHIVE, [], "cpu,tgid")
    with pytest.warns(SkippedInputWarning), session_archive(path) as folder:
        names = {p.name for p in Path(folder).rglob("*")}
    assert not names & {"link", "hard", "tty", "disk", "pipe"}


def test_oversized_and_endless_headers_are_refused(tmp_path):
    # a 64 MiB long name (tarfile reads it whole), and 5000 long-name headers in a chain
    huge = tmp_path / "longname.tar.gz"
    huge.write_bytes(
        gzip.compress(
            header("././@LongLink", 64 << 20, tarfile.GNUTYPE_LONGNAME)
            + b"a" * (64 << 20)
            + header("x")
            + END
        )
    )
    with pytest.raises(SpecError, match="asks to read 67108864 bytes at once"):
        pw.opreport(huge)
    link = header("././@LongLink", 10, tarfile.GNUTYPE_LONGNAME) + b"abcdefghi".ljust(512, b"\0")
    chain = tmp_path / "chain.tar.gz"
    chain.write_bytes(gzip.compress(link * 5000 + header("x") + END))
    with pytest.raises(SpecError, match="too many extended headers"):
        pw.opreport(chain)


@pytest.mark.parametrize("field", ["max_bytes", "max_members"])
@pytest.mark.parametrize("value", [0, -1, 1.5, True, "1G"])
def test_limits_must_be_positive_integers(field, value):
    with pytest.raises(SpecError, match=f"{field} must be a positive integer"):
        ArchiveLimits(**{field: value})
