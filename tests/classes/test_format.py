"""opreport's number layout and the command line's error paths."""

from __future__ import annotations

import argparse

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfweave.classes import format_percent
from perfweave.classes.opreport_format import column_headers, format_count
from perfweave.cli import _classes


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "      0"),
        (100.0, "100.000"),
        (73.63636363, "73.6364"),
        (2.469135, " 2.4691"),
        (8.181818, " 8.1818"),
        (99.99999, "100.000"),
        (0.00001, " 0.0000"),
    ],
)
def test_format_percent(value, text):
    assert format_percent(value) == text


@given(st.floats(min_value=1e-6, max_value=100.0))
def test_percent_is_always_seven_characters(value):
    text = format_percent(value)
    assert len(text) == 7
    assert abs(float(text) - value) <= 0.0005 + 1e-9


def test_count_cell_and_headers():
    assert format_count(0, 0) == "        0       0 "
    assert format_count(41, 41) == "       41 100.000 "
    head = column_headers(["CPU_CLK_UNHALTED:100000", "tid:7"], indent=True)
    assert head[0] == "\tCPU_CLK_UNHALT...|            tid:7|"
    assert head[1] == "\t  samples|      %|  samples|      %|"
    assert head[2] == "\t" + "-" * 36


def _cli(args, capsys):
    parser = argparse.ArgumentParser(prog="perfweave")
    _classes.register(parser.add_subparsers(dest="command"))
    ns = parser.parse_args(["opreport", *args])
    status = ns.func(ns)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_cli_merge_errors_print_opreport_text(sessions, capsys):
    d = f"--session-dir={sessions['sep']}"
    assert _cli([d, "--merge=thread"], capsys) == (1, "", "unknown merge option: thread\n")
    status, _, err = _cli([d, "-x", "--merge=lib"], capsys)
    assert (status, err) == (1, "--merge=lib is meaningless with --exclude-dependent\n")


def test_cli_spec_errors(sessions, capsys):
    d = f"--session-dir={sessions['sep']}"
    status, out, err = _cli([d, "tid:2", "tid:2"], capsys)
    assert (status, out) == (1, "")
    assert err == "opreport error: tag specified more than once: tid:2\n"
    status, _, err = _cli([d, "tid:999"], capsys)
    assert err == "error: no sample files found: profile specification too strict ?\n"


def test_cli_empty_session_directory(tmp_path, capsys):
    status, _, err = _cli([f"--session-dir={tmp_path}"], capsys)
    assert status == 1
    assert err.startswith("opreport error: No sample file found: try running opcontrol --dump")


def test_cli_reports_a_broken_sample_file(sessions, tmp_path, capsys):
    import shutil

    copy = tmp_path / "s"
    shutil.copytree(sessions["many"], copy)
    victim = sorted(copy.rglob("CPU_CLK_UNHALTED.100000.0.303.303.1"))[0]
    victim.write_bytes(b"NOPE" + victim.read_bytes()[4:])
    status, out, err = _cli([f"--session-dir={copy}", "--merge=cpu"], capsys)
    assert (status, out) == (1, "")
    assert str(victim) in err and "magic" in err


def test_cli_session_tags(sessions, capsys):
    d = f"--session-dir={sessions['many']}"
    default = _cli([d, "--merge=cpu"], capsys)
    assert _cli([d, "--merge=cpu", "session:current"], capsys) == default
    status, _, err = _cli([d, "session:older"], capsys)
    assert status == 1 and "No sample file found" in err
