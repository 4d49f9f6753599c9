"""`perfweave opreport --session-dir=ARCHIVE`: the bundled session read straight from its .tar.gz."""

from __future__ import annotations

import io
import tarfile

from perfweave.cli import main
from perfweave.examples import path

ARCHIVE = path("opsession_sep.tar.gz")


def test_archive_reports_as_the_unpacked_session(tmp_path, capsys):
    with tarfile.open(ARCHIVE) as tar:
        tar.extractall(tmp_path, filter="data")
    assert main(["opreport", f"--session-dir={ARCHIVE}", "--merge=cpu,tid,tgid"]) == 0
    from_archive = capsys.readouterr().out
    assert main(["opreport", f"--session-dir={tmp_path}", "--merge=cpu,tid,tgid"]) == 0
    assert capsys.readouterr().out == from_archive
    rows = [line.split() for line in from_archive.splitlines()]
    assert ["perl"] in [r[-1:] for r in rows if r and r[0].isdigit()]


def test_without_tgid_the_session_conflicts_as_opreport_says(capsys):
    assert main(["opreport", f"--session-dir={ARCHIVE}", "--merge=cpu,tid"]) == 1
    assert "which conflicts with parameter tgid" in capsys.readouterr().err


def test_archive_leaving_the_session_is_refused(tmp_path, capsys):
    bad = tmp_path / "bad.tar.gz"
    with tarfile.open(bad, "w:gz") as tar:
        data = b"x"
        info = tarfile.TarInfo("../escape.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    assert main(["opreport", f"--session-dir={bad}"]) == 1
    err = capsys.readouterr().err
    assert str(bad) in err and "'../escape.txt' leaves the session" in err
    (tmp_path / "junk.tar.gz").write_bytes(b"not an archive")
    assert main(["opreport", f"--session-dir={tmp_path / 'junk.tar.gz'}"]) == 1
    assert "not a readable session archive" in capsys.readouterr().err
