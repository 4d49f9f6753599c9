"""`perfweave export` without a browser: the page's pieces and its errors."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from perfweave.apps.export import _amd_source, _script_text, _widget_modules, to_html
from perfweave.cli import main
from perfweave.errors import PerfweaveError
from tests.widgets.browser import write_notebook

SRC = Path(__file__).resolve().parents[2] / "src"


def test_inlined_scripts_cannot_close_their_element():
    text = _script_text('a = "</script><script>alert(1)</script>"; b = "<!--";')
    assert "</script" not in text and "<!--" not in text
    assert text.count("<\\/script") == 2


def test_widget_modules_are_the_non_core_ones_the_state_uses():
    state = {
        "state": {
            "a": {"model_module": "anywidget", "view_module": "anywidget"},
            "b": {"model_module": "@jupyter-widgets/controls", "view_module": "bqplot"},
            "c": {"model_module": "bqscales", "view_module": "@jupyter-widgets/base"},
        }
    }
    assert _widget_modules(state) == ["anywidget", "bqplot", "bqscales"]


def test_a_widget_module_without_a_front_end_is_named():
    with pytest.raises(PerfweaveError, match="'no-such-widgets'.*nbextensions/no-such-widgets"):
        _amd_source("no-such-widgets")


def test_page_without_widgets_loads_nothing_remote():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title <b>x</b>"),
        nbformat.v4.new_code_cell(
            "1 + 1",
            outputs=[
                nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=1)
            ],
        ),
    ]
    html = to_html(nb, title="plain")
    assert "<title>plain</title>" in html and ">2<" in html
    assert not re.search(r"<script[^>]+src=", html)
    assert not re.search(r"<link[^>]+href=\"https?:", html)
    assert "perfweaveEmbed" not in html  # the widget renderer only where there are widgets


def test_missing_and_wrong_inputs(tmp_path, capsys):
    assert main(["export", str(tmp_path / "nope.ipynb"), str(tmp_path / "x.html")]) == 1
    assert "nope.ipynb: no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{")
    assert main(["export", str(bad), str(tmp_path / "x.html")]) == 1
    assert "bad.ipynb: not a readable notebook" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_export_prints_only_what_it_wrote(tmp_path):
    """`perfweave export` as a person runs it: one line on stdout, nothing on stderr (the
    kernel's "running over TCP without encryption" warning was printed before)."""
    nb = write_notebook(tmp_path / "quiet.ipynb", ["print('hello')", "6 * 7"])
    out = tmp_path / "quiet.html"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    env["IPYTHONDIR"] = str(tmp_path / "ipython")
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "perfweave", "export", str(nb), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.startswith(f"perfweave export: wrote {out} (")
    assert "hello" in out.read_text()
