"""`perfweave lab` and `perfweave app` keep the access token off every command line.

Any local user of a shared login node reads every process's command line (``ps``,
``/proc/PID/cmdline``); with the token they could run code as the person who started the
server. Each test starts the real server as a person would, reads the command line of the
server and of every process below it (a kernel included), and checks the server still
takes the printed token and refuses requests without it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.widgets.browser import free_port, stop_process, write_notebook

ROOT = Path(__file__).resolve().parents[2]
LAB_URL = re.compile(r"perfweave: JupyterLab at (http://127\.0\.0\.1:\d+/\S+\?token=(\w+))")
APP_URL = re.compile(r"perfweave: the Voila app at (http://127\.0\.0\.1:\d+/\?token=(\w+))")
MARK = "pw-token-test-output"


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from ``/proc/*/stat``)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended meanwhile
            continue
        fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _tree(pid: int) -> dict[int, bytes]:
    """``pid`` and all its descendants, each with its command line (NUL-separated)."""
    out: dict[int, bytes] = {}
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            out[p] = Path(f"/proc/{p}/cmdline").read_bytes()
        except OSError:
            continue
        todo += _children(p)
    return out


def _start(cmd: list[str], tmp_path: Path, pattern: re.Pattern) -> tuple:
    """Start ``cmd`` as a person would (no display); the process, its log, URL and token."""
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
        "IPYTHONDIR": str(tmp_path / "ipython"),
        "PYTHONUNBUFFERED": "1",
    }
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "JUPYTER_TOKEN"):
        env.pop(name, None)
    log = tmp_path / "server.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    deadline = time.monotonic() + 60
    while not (match := pattern.search(log.read_text())):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_process(proc)
            pytest.fail(f"no URL printed:\n{log.read_text()[-3000:]}")
        time.sleep(0.1)
    return proc, log, match.group(1), match.group(2)


def _get(url: str, proc: subprocess.Popen, log: Path, method: str = "GET") -> tuple[int, str]:
    """Status and body of ``url`` (redirects not followed), once the server answers."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, method=method, data=b"{}" if method == "POST" else None)
    deadline = time.monotonic() + 120
    while True:
        try:
            with opener.open(request, timeout=60) as response:
                return response.status, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            return exc.code, ""
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the server did not answer {url}:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)


def _kernel_in(proc: subprocess.Popen, log: Path) -> dict[int, bytes]:
    """The server's process tree once it holds a kernel."""
    deadline = time.monotonic() + 120
    while True:
        tree = _tree(proc.pid)
        if any(b"ipykernel" in cmdline for cmdline in tree.values()):
            return tree
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"no kernel below the server {tree}:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)


def _assert_token_hidden(tree: dict[int, bytes], server: int, token: str, *, env: bool) -> None:
    """No command line in ``tree`` shows ``token``; the processes below the server do not
    inherit the variable that handed it over (``env``: nor hold the token anywhere in their
    environment)."""
    assert server in tree and len(tree) >= 2  # the server and its kernel
    for pid, cmdline in tree.items():
        shown = cmdline.replace(b"\0", b" ").decode("utf-8", "replace")
        assert token not in shown, f"process {pid} shows the token: {shown}"
        if pid == server:
            continue
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:  # ended since the tree was listed (a short-lived helper process)
            continue
        assert not [v for v in environ if v.startswith(b"JUPYTER_TOKEN=")], pid
        if env:
            assert not [v for v in environ if token.encode() in v], pid


def test_perfweave_lab_keeps_the_token_off_every_command_line(tmp_path):
    nb = write_notebook(tmp_path / "proj" / "notebooks" / "t.ipynb", [f"print({MARK!r})"])
    port = free_port()
    cmd = [sys.executable, "-m", "perfweave", "lab", str(nb), "--port", str(port)]
    proc, log, url, token = _start(cmd, tmp_path, LAB_URL)
    try:
        base = f"http://127.0.0.1:{port}"
        api = f"{base}/api/contents/notebooks/t.ipynb"
        # the printed URL opens JupyterLab; the API takes the token and refuses without it
        status, page = _get(url, proc, log)
        assert status == 200 and "JupyterLab" in page
        assert _get(f"{api}?token={token}", proc, log)[0] == 200
        assert _get(api, proc, log)[0] == 403
        assert _get(f"{api}?token={token[:-1]}x", proc, log)[0] == 403
        # a kernel, as the notebook starts one
        assert _get(f"{base}/api/kernels?token={token}", proc, log, "POST")[0] == 201
        _assert_token_hidden(_kernel_in(proc, log), proc.pid, token, env=True)
    finally:
        stop_process(proc)


def test_perfweave_app_keeps_the_token_off_every_command_line(tmp_path):
    nb = write_notebook(tmp_path / "dash.ipynb", [f"print({MARK!r})"])
    port = free_port()
    cmd = [sys.executable, "-m", "perfweave", "app", str(nb), "--port", str(port)]
    proc, log, url, token = _start(cmd, tmp_path, APP_URL)
    try:
        # without the token (or with a wrong one) Voila runs nothing and shows no output
        status, page = _get(f"http://127.0.0.1:{port}/", proc, log)
        assert status in (302, 403) and MARK not in page
        status, page = _get(f"http://127.0.0.1:{port}/?token={token[:-1]}x", proc, log)
        assert status in (302, 403) and MARK not in page
        assert not [c for c in _tree(proc.pid).values() if b"ipykernel" in c]
        # the printed URL runs the notebook (in a kernel below the server) and shows it
        status, page = _get(url, proc, log)
        assert status == 200 and MARK in page
        # Voila hands the page's request URL (token included) to the notebook's kernel in
        # its environment (QUERY_STRING, VOILA_REQUEST_URL), which only you and root can read
        _assert_token_hidden(_kernel_in(proc, log), proc.pid, token, env=False)
    finally:
        stop_process(proc)
