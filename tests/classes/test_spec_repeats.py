"""opreport's handling of a tag given twice, and its bare ``error:`` lines.

opreport (``libpp/profile_spec.cpp``) remembers the *words* it has seen: the same
``tag:value`` twice is an error, the same tag with another value replaces the earlier value.
The "no sample files found" message is printed by opreport itself as ``error: ...``.
"""

from __future__ import annotations

import io
import shlex

import pytest

from perfweave.classes.profile_spec import ProfileSpec
from perfweave.cli import _classes
from perfweave.errors import SpecError

from .conftest import DATA

OUTPUTS = DATA / "opreport_outputs" / "sep"


def _real_case(name: str) -> tuple[list[str], str]:
    """(opreport arguments, expected stdout) of a real opreport output file."""
    lines = (OUTPUTS / name).read_text().splitlines()
    assert lines[-1] == "[exit status 0]"
    return shlex.split(lines[0].removeprefix("$ opreport")), "\n".join(lines[1:-1]) + "\n"


def _run(session_dir, args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = _classes.run([f"--session-dir={session_dir}", *args], out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def _body(text: str) -> list[str]:
    """The report without the CPU/event description lines (compared elsewhere)."""
    return [ln for ln in text.splitlines() if not ln.startswith(("CPU:", "Counted "))]


def test_same_word_twice_is_refused_with_opreport_text():
    with pytest.raises(SpecError, match="^tag specified more than once: tid:2$"):
        ProfileSpec.parse(["tid:2", "event:X", "tid:2"])


def test_same_tag_with_another_value_keeps_the_later_value(listings):
    from perfweave.classes.spec import parse_sample_paths

    table = parse_sample_paths(listings["sep"]).table
    twice = ProfileSpec.parse(["tid:2301", "tgid:1", "tid:100", "tgid:100"])
    later = ProfileSpec.parse(["tid:100", "tgid:100"])
    assert twice == later
    assert twice.mask(table).any()
    assert (twice.mask(table) == later.mask(table)).all()


@pytest.mark.parametrize("earlier", ["tgid:999", "tgid:200", "tgid:100,200"])
def test_cli_uses_the_later_value_as_opreport_does(sessions, earlier):
    args, expected = _real_case("12_event_A_merge_cpu_tgid100.txt")
    assert args[-1] == "tgid:100"
    status, out, err = _run(sessions["sep"], [*args[:-1], earlier, args[-1]])
    assert (status, err) == (0, "")
    assert _body(out) == _body(expected)


def test_cli_refuses_the_same_word_twice(sessions):
    status, out, err = _run(sessions["sep"], ["tid:100", "tid:100"])
    assert (status, out) == (1, "")
    assert err == "opreport error: tag specified more than once: tid:100\n"


def test_cli_prints_no_sample_files_with_a_bare_error_prefix(sessions):
    # opreport_options.cpp prints this one itself: "error: no sample files found: ..."
    status, out, err = _run(sessions["sep"], ["tid:999"])
    assert (status, out) == (1, "")
    assert err == "error: no sample files found: profile specification too strict ?\n"
    # other errors keep opreport's "opreport error:" prefix (run_pp_tool's handler)
    status, _, err = _run(sessions["sep"], ["colour:red"])
    assert status == 1 and err.startswith("opreport error: profile_spec::parse(): not a valid tag")
