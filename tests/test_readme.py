"""The README's examples run as written on the bundled data.

Every ```python block runs, in order, in one namespace (as a notebook would); every
``perfweave ...`` line (```sh blocks and indented command lines) runs through the CLI from a
folder that sees the repository's ``src``, ``notebooks`` and ``tests``, and must exit 0. The
server commands (``lab``, ``app``) are only parsed here: serving is tested in
``tests/apps/test_demo.py`` and ``tests/widgets/test_app_browser.py``.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from perfweave.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
SERVERS = {"lab", "app"}


def _blocks(lang: str) -> list[tuple[int, str]]:
    """(line number, code) of every fenced block in ``lang``."""
    return [
        (README[: m.start()].count("\n") + 2, m.group(2))
        for m in FENCE.finditer(README)
        if m.group(1) == lang
    ]


def _command_lines() -> list[str]:
    lines = [line for _, code in _blocks("sh") for line in code.splitlines()]
    lines += [line.strip() for line in README.splitlines() if line.startswith("    perfweave ")]
    out = []
    for line in lines:
        line = line.strip()
        if line.startswith("perfweave "):
            out.append(re.sub(r"\s+#.*$", "", line))
    return out


COMMANDS = _command_lines()


def test_python_blocks_run_in_order(capsys) -> None:
    blocks = _blocks("python")
    assert len(blocks) >= 5  # one per part
    namespace: dict = {"__name__": "__readme__"}
    for line, code in blocks:
        exec(compile(code, f"README.md:{line}", "exec"), namespace)  # the README's own code
    out = capsys.readouterr().out
    assert "mpi.world.size = 27, 64, 125" in out  # the ensemble shows labels, not hash ids
    assert "CPU_CLK_UNHALTED" in out


@pytest.mark.parametrize("line", COMMANDS, ids=[c[:60] for c in COMMANDS])
def test_command_line_runs(line: str, tmp_path: Path, monkeypatch, capsys) -> None:
    argv = shlex.split(line)[1:]
    if argv[0] in SERVERS:
        args = build_parser().parse_args(argv)  # a server: parsed here, served elsewhere
        assert args.func.__name__ == f"_{argv[0]}"
        return
    for name in ("src", "notebooks", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 0, f"{line}\n{captured.err}"
    written = [argv[i + 1] for i, a in enumerate(argv) if a in ("-o", "--out")]
    if argv[0] == "export":
        written.append(argv[2])
    for name in written:
        assert (tmp_path / name).exists(), f"{line}: wrote no {name}"
    if not written:
        assert captured.out.strip(), f"{line}: printed nothing"


def test_every_sub_command_is_documented() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    used = {shlex.split(c)[1] for c in COMMANDS}
    assert set(commands) <= used, f"not in the README: {set(commands) - used}"


def test_links_images_and_binder() -> None:
    for target in re.findall(r"\]\(((?:docs|notebooks|src)/[^)#]+)", README):
        assert (ROOT / target).exists(), target
    images = re.findall(r"!\[[^\]]+\]\((docs/img/[^)]+\.png)\)", README)
    assert len(images) >= 5
    for image in images:
        size = (ROOT / image).stat().st_size
        assert size < 100_000, f"{image}: {size} bytes; keep README images small"
    binder = re.findall(r"https://mybinder\.org/v2/gh/[^)\s]+", README)
    routes = {re.search(r"urlpath=(\w+)/", url).group(1) for url in binder}
    assert routes == {"lab", "voila"}
    assert all(url.endswith("/notebooks/00_tour.ipynb") for url in binder)
    assert os.path.isfile(ROOT / "notebooks" / "00_tour.ipynb")
