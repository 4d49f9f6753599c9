"""The calltree commands: tree, convert, info, and one-line errors."""

import json

from perfweave.cli import main

LIT = "tests/data/hatchet/json/hatchet-graph-literal.json"


def test_tree_and_info(capsys):
    assert main(["tree", LIT, "--depth", "2", "--color", "never"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "135.000 foo" and out[1] == "├─ 20.000 bar" and len(out) == 6
    assert main(["info", LIT]) == 0
    info = capsys.readouterr().out
    assert "format:   hatchet-json" in info and "24 nodes, 2 roots" in info


def test_convert_formats(tmp_path, capsys):
    out = tmp_path / "x.json"
    assert main(["convert", LIT, "--to", "json", "-o", str(out)]) == 0
    assert len(json.loads(out.read_text())["dataframe"]) == 24
    assert main(["convert", LIT, "--to", "folded"]) == 0
    assert "foo;qux;quux;corge;garply 15" in capsys.readouterr().out
    assert main(["convert", LIT, "--to", "literal"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["name"] == "foo"


def test_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"graph": [], "dataframe": [')
    assert main(["tree", str(bad), "--format", "hatchet-json"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err and "line 1" in err
    assert main(["info", str(tmp_path / "missing.json")]) == 1
    assert "no such file" in capsys.readouterr().err
