"""Folded stacks: names with ';', '\\' or line breaks are escaped and read back exactly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave as pw
from perfweave.calltree._build import build_graphframe
from perfweave.calltree.folded import escape, parse_folded, unescape
from perfweave.errors import ParseError
from tests.conftest import DATA

# names built from the characters that matter (and some that must pass through untouched)
NAME = st.text(
    alphabet=st.sampled_from(list(";\\\n\r\t\x1b\x7f\x9b x3b:n é名")) | st.characters(),
    min_size=1,
    max_size=12,
)


def _tree(names, parents):
    n = len(names)
    return build_graphframe(
        pd.DataFrame({"name": names}),
        pd.DataFrame({"node": np.arange(n), "time": np.arange(1, n + 1, dtype=float)}),
        parent=np.asarray(parents),
        exc_metrics=["time"],
    )


def _paths(names, parents):
    out = []
    for i in range(len(names)):
        path, j = [], i
        while j >= 0:
            path.append(names[j])
            j = parents[j]
        out.append((tuple(reversed(path)), float(i + 1)))
    return sorted(out, key=lambda x: x[1])


@settings(max_examples=60, deadline=None)
@given(st.lists(NAME, min_size=1, max_size=8), st.data())
def test_names_round_trip_through_folded_stacks(names, data):
    parents = [-1] + [data.draw(st.integers(0, i - 1)) for i in range(1, len(names))]
    text = _tree(names, parents).to_flamegraph()
    lines = text.splitlines()
    assert len(lines) == len(names)  # no name breaks its line
    expected = _paths(names, parents)
    # the only ';' left separate frames: as many per line as the node has ancestors
    got = sorted(parse_folded(text), key=lambda x: x[1])
    assert [len(p) for p, _ in got] == [len(p) for p, _ in expected]
    assert got == expected


@given(st.text())
def test_unescape_inverts_escape(name):
    written = escape(name)
    assert ";" not in written and "\n" not in written and "\r" not in written
    assert unescape(written) == name


def test_escapes_as_documented():
    assert escape("a;b") == "a\\x3bb"
    assert escape("C:\\dir\\n") == "C:\\\\dir\\\\n"  # a backslash, then an n: not a newline
    assert escape("x\ny\x1b[0m\tz") == "x\\ny\\x1b[0m\\tz"
    assert escape("operator() <int, 2> é") == "operator() <int, 2> é"


def test_cli_folded_output_round_trips(tmp_path, capsys):
    from perfweave.cli import main

    src = DATA / "hatchet" / "json" / "hatchet-graph-literal.json"
    text = src.read_text()
    odd = "ba\\nr;x\\\\y"  # JSON for: ba<newline>r;x\y
    bad = tmp_path / "names.json"
    bad.write_text(text.replace('"name":"bar"', f'"name":"{odd}"'))
    assert bad.read_text() != text
    assert main(["convert", str(bad), "--to", "folded", "--metric", "time"]) == 0
    out = capsys.readouterr().out
    stacks = [path for path, _ in parse_folded(out)]
    assert any(path[-1] == "ba\nr;x\\y" for path in stacks)
    plain = pw.read(src).to_flamegraph(metric="time").splitlines()
    assert len(out.splitlines()) == len(plain)


def test_cli_help_documents_the_escaping(capsys):
    from perfweave.cli import main

    with pytest.raises(SystemExit):
        main(["convert", "--help"])
    helptext = " ".join(capsys.readouterr().out.split())
    assert "';' is written \\x3b" in helptext and "a newline as \\n" in helptext


def test_a_line_without_a_value_is_named():
    with pytest.raises(ParseError, match="line 2"):
        parse_folded("a;b 1\na;c\n", path="x.folded")
