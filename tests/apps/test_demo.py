"""`make demo`: the command line it runs starts JupyterLab and serves the tour notebook."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from perfweave.apps.app import voila_launch
from perfweave.apps.lab import lab_launch
from perfweave.apps.serve import find_tour
from perfweave.cli import main
from perfweave.errors import PerfweaveError
from tests.widgets.browser import free_port, stop_process, write_notebook

ROOT = Path(__file__).resolve().parents[2]
URL_LINE = re.compile(
    r"perfweave: JupyterLab at (http://127\.0\.0\.1:(\d+)/lab/tree/(\S+)\?token=(\w+))"
)


#: what a person running `make demo` must not see: Python warnings, deprecations, the kernel's
#: unencrypted-TCP warning
NOISE = re.compile(r"Warning|deprecated|without encryption")

_MAKE_ENV = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "EXTRAS", "VENV", "PYTEST_ARGS"}


def _make_dry_run(*args: str) -> str:
    """What ``make -n`` prints for ``args``, as from a shell: the suite itself may run under
    make (``make test-pandas3`` passes EXTRAS=... down through MAKEFLAGS), which must not leak
    into the make under test."""
    env = {k: v for k, v in os.environ.items() if k not in _MAKE_ENV}
    cmd = ["make", "-s", "-n", "--no-print-directory", "-C", str(ROOT), *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout


def _demo_command(port: int, notebook: Path | None) -> list[str]:
    """The last command `make demo` runs, for this Python's environment (make -n prints it)."""
    args = ["demo", f"VENV={sys.prefix}", f"PORT={port}"]
    if notebook is not None:
        args.append(f"NOTEBOOK={notebook}")
    return _make_dry_run(*args).strip().splitlines()[-1].split()


def _start(cmd: list[str], tmp_path: Path) -> tuple[subprocess.Popen, Path]:
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
        "IPYTHONDIR": str(tmp_path / "ipython"),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    log = tmp_path / "demo.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    return proc, log


def _fetch_json(url: str, proc: subprocess.Popen, log: Path, timeout: float = 90.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            pytest.fail(f"JupyterLab exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return json.loads(response.read())
        except OSError:
            if time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not answer {url}:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)


def _serve_and_fetch(tmp_path: Path, notebook: Path | None, expected: Path) -> None:
    port = free_port()
    cmd = _demo_command(port, notebook)
    assert cmd[0].endswith("/perfweave") and cmd[1] == "lab", cmd
    proc, log = _start(cmd, tmp_path)
    try:
        deadline = time.monotonic() + 30
        while not (match := URL_LINE.search(log.read_text())) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert match, f"no URL printed:\n{log.read_text()}"
        url, printed_port, rel, token = match.groups()
        assert int(printed_port) == port
        model = _fetch_json(
            f"http://127.0.0.1:{port}/api/contents/{rel}?token={token}&content=1", proc, log
        )
        assert model["type"] == "notebook" and model["name"] == expected.name
        sources = ["".join(c["source"]) for c in model["content"]["cells"]]
        want = json.loads(expected.read_text())["cells"]
        assert sources == ["".join(c["source"]) for c in want]
        # the page a person opens is JupyterLab itself, and the token is required
        with urllib.request.urlopen(url, timeout=10) as response:
            assert b"JupyterLab" in response.read()
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/{rel}", timeout=5)
        # a kernel as the notebook starts one: its start-up prints nothing either
        _start_kernel(f"http://127.0.0.1:{port}", token, tmp_path / "runtime")
    finally:
        stop_process(proc)
    assert proc.returncode is not None
    noise = [line for line in log.read_text().splitlines() if NOISE.search(line)]
    assert not noise, "make demo printed:\n" + "\n".join(noise)


def _start_kernel(base: str, token: str, runtime: Path) -> None:
    """Start a python3 kernel through the server's REST API and talk to it once (so its
    start-up, and anything it prints then, is over)."""
    from jupyter_client import BlockingKernelClient

    request = urllib.request.Request(
        f"{base}/api/kernels?token={token}", data=b'{"name": "python3"}', method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        kernel = json.loads(response.read())
    client = BlockingKernelClient(connection_file=str(runtime / f"kernel-{kernel['id']}.json"))
    client.load_connection_file()
    client.start_channels()
    try:
        # the kernel_info handshake also waits until iopub delivers: a request sent before
        # that could lose its output to ZeroMQ's slow-joiner window (seen once in ten runs)
        client.wait_for_ready(timeout=120)
        reply = client.execute_interactive("6 * 7", timeout=60)
    finally:
        client.stop_channels()
    assert reply["content"]["status"] == "ok"


def test_make_demo_serves_a_given_notebook(tmp_path):
    nb = write_notebook(tmp_path / "proj" / "notebooks" / "mine.ipynb", ["print('hi')", "1 + 1"])
    _serve_and_fetch(tmp_path, nb, nb)


def test_make_demo_serves_the_tour(tmp_path):
    tour = ROOT / "notebooks" / "00_tour.ipynb"
    if not tour.is_file():
        pytest.skip(f"skipped: the tour notebook {tour} is not in this checkout yet")
    _serve_and_fetch(tmp_path, None, tour)


def test_lab_launch_is_headless_without_a_display(tmp_path, monkeypatch):
    nb = write_notebook(tmp_path / "notebooks" / "a.ipynb", ["1"])
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    launch = lab_launch(nb, port=8123, token="abc")
    assert "--no-browser" in launch.argv and launch.cwd == tmp_path
    assert launch.url == "http://127.0.0.1:8123/lab/tree/notebooks/a.ipynb?token=abc"
    monkeypatch.setenv("DISPLAY", ":0")
    assert "--no-browser" not in lab_launch(nb, port=8123).argv
    assert "--no-browser" in lab_launch(nb, port=8123, open_browser=False).argv
    assert voila_launch(nb, port=8124, token="t").url == "http://127.0.0.1:8124/?token=t"


def test_bad_notebooks_are_named(tmp_path, capsys, monkeypatch):
    with pytest.raises(PerfweaveError, match="no such notebook"):
        lab_launch(tmp_path / "missing.ipynb")
    text = tmp_path / "x.txt"
    text.write_text("{}")
    assert main(["app", str(text)]) == 1
    assert "x.txt: expected a Jupyter notebook" in capsys.readouterr().err
    import perfweave.apps.serve as serve

    # find_tour also looks in the source checkout: point it elsewhere to see the message
    monkeypatch.setattr(
        serve, "__file__", str(tmp_path / "src" / "perfweave" / "apps" / "serve.py")
    )
    with pytest.raises(PerfweaveError, match="no tour notebook at .*00_tour.ipynb"):
        find_tour(tmp_path)


def test_version(capsys):
    import perfweave

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"perfweave {perfweave.__version__}"


def test_make_demo_installs_only_the_demo_extra(tmp_path):
    """On a fresh machine (no venv yet) `make demo` installs `.[demo]`, never the test or
    peer extras; `make test` still installs those."""
    venv = tmp_path / "venv"
    demo = _make_dry_run("demo", f"VENV={venv}")
    installs = [line for line in demo.splitlines() if " pip install " in line]
    assert installs[-1].endswith('-e ".[demo]"'), installs
    assert '-e ".[test,dev,bench,docs]"' in _make_dry_run("test", f"VENV={venv}")
    line = re.search(r"^demo = \[(.*)\]$", (ROOT / "pyproject.toml").read_text(), re.M)
    names = {re.split(r"[<>=\[ ]", req.strip().strip('"'))[0] for req in line.group(1).split(",")}
    assert {"jupyterlab", "ipykernel", "voila"} <= names
    assert not names & {
        "pytest",
        "hypothesis",
        "playwright",
        "nbmake",
        "llnl-hatchet",
        "llnl-thicket",
    }
