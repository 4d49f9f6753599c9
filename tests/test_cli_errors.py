"""The command line turns every exception into one line on stderr; ``--debug`` shows more."""

import pytest

import perfweave.calltree.readers as readers
from perfweave.cli import main

LIT = "tests/data/hatchet/json/hatchet-graph-literal.json"


def _reader_bug(path, format=None, **options):
    raise KeyError("node\x1b[31m 7\nparent")  # a bug in a reader, quoting file text


def test_unexpected_exception_is_one_line_naming_the_file(monkeypatch, capsys):
    monkeypatch.setattr(readers, "read", _reader_bug)
    assert main(["tree", LIT]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err
    assert LIT in err and "KeyError" in err and "--debug" in err
    assert "Traceback" not in err


def test_debug_prints_the_traceback(monkeypatch, capsys):
    monkeypatch.setattr(readers, "read", _reader_bug)
    assert main(["--debug", "info", LIT]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "_reader_bug" in err
    assert err.rstrip().splitlines()[-1].startswith("perfweave info: error:")


def test_directory_given_as_a_file_is_one_line(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    assert main(["convert", LIT, "--to", "folded", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(out) in err and "Traceback" not in err


@pytest.mark.parametrize("fmt", ["cprofile", "gprof-dot", "literal", "pyinstrument"])
def test_reader_given_a_directory_says_so(tmp_path, capsys, fmt):
    assert main(["tree", str(tmp_path), "--format", fmt]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path) in err and "unexpected" not in err


def test_skipped_input_is_one_warning_line(tmp_path, capsys):
    from pathlib import Path

    tau = Path("tests/data/hatchet/tau-cpi-mpi")
    for f in sorted(tau.glob("profile.*"))[:3]:
        (tmp_path / f.name).write_bytes(f.read_bytes())
    (tmp_path / "profile.3.0.0").mkdir()
    assert main(["info", str(tmp_path)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("perfweave info: warning: ")
    assert "profile.3.0.0" in err[0] and "skipped" in err[0]
