"""Every image-level case among the real opreport outputs, rebuilt by `perfweave opreport`.

Each output file starts with ``$ opreport <args>``, then stdout+stderr, then ``[exit status
N]``. Cases with ``-l``, ``--xml`` or ``--verbose`` are symbol-level or XML and not part of
this command. The ``CPU:`` and ``Counted ...`` lines need OProfile's event tables and are
compared separately (their count and the CPU line's text).
"""

from __future__ import annotations

import argparse
import shlex

import pytest

from perfweave.cli import _classes

from .conftest import DATA, SESSIONS

FOLDER_TO_SESSION = {folder: name for name, folder in SESSIONS.items()}
NOT_IMAGE_LEVEL = ("-l", "--xml")


def _cases():
    cases = []
    for path in sorted((DATA / "opreport_outputs").glob("*/*.txt")):
        lines = path.read_text().splitlines()
        args = shlex.split(lines[0].removeprefix("$ opreport"))
        if any(a in NOT_IMAGE_LEVEL for a in args):
            continue
        status = int(lines[-1].removeprefix("[exit status ").rstrip("]"))
        expected = "\n".join(lines[1:-1]) + "\n"
        session = FOLDER_TO_SESSION[path.parent.name]
        cases.append(
            pytest.param(session, args, status, expected, id=f"{path.parent.name}/{path.stem}")
        )
    return cases


CASES = _cases()


def test_every_image_level_case_is_covered():
    # 28 outputs in all; 6 of them are -l / --xml reports
    assert len(CASES) == 22


def _run(session_dir, args, capsys):
    """Through the registered sub-command, as `perfweave opreport ...` runs it."""
    parser = argparse.ArgumentParser(prog="perfweave")
    _classes.register(parser.add_subparsers(dest="command"))
    ns = parser.parse_args(["opreport", f"--session-dir={session_dir}", *args])
    status = ns.func(ns)
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def _split_header(text: str) -> tuple[list[str], list[str]]:
    """(event description lines, all other lines); a --verbose dump's ``longname: Counted``
    and ``cpuinfo: CPU:`` lines count as description lines."""
    lines = [ln.removeprefix("longname: ").removeprefix("cpuinfo: ") for ln in text.splitlines()]
    described = [ln for ln in lines if ln.startswith(("CPU:", "Counted "))]
    rest = [ln for ln in lines if not ln.startswith(("CPU:", "Counted "))]
    return described, rest


@pytest.mark.parametrize(("session", "args", "status", "expected"), CASES)
def test_opreport_output_matches(sessions, capsys, session, args, status, expected):
    got_status, got = _run(sessions[session], args, capsys)
    # the --verbose dump names files under the directory the outputs were made in
    got = got.replace(str(sessions[session]), f"/srv/oprofile-data/opsession_{session}")
    assert got_status == status
    want_desc, want_rest = _split_header(expected)
    got_desc, got_rest = _split_header(got)
    assert got_rest == want_rest
    # same number of description lines; the CPU line is identical, event lines name the
    # same event, unit mask and count (without OProfile's description texts)
    assert len(got_desc) == len(want_desc)
    for g, w in zip(got_desc, want_desc):
        if w.startswith("CPU:"):
            assert g == w
        else:
            event, mask, count = w.split()[1], w.split("unit mask of ")[1][:4], w.split()[-1]
            assert g.split()[1] == event and f"unit mask of {mask}" in g and g.endswith(count)
