"""Real-browser helpers for widget tests: Chromium, JupyterLab and Voila servers, page checks.

A plain module (the fixtures live in ``conftest.py``) so tests can import what they need. Every
timeout here is in seconds; Playwright's own are in milliseconds and converted at the call.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import ConsoleMessage, Dialog, Locator, Page, Route

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CHROME_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}

# Known-harmless requests to the network. They are aborted like every non-local request, and the
# console error each abort causes is not counted as a test failure. None today: Voila's stock
# page linked Font Awesome from a CDN; perfweave's Voila template (perfweave.apps.app) does not.
HARMLESS_REMOTE: tuple[str, ...] = ()

# Notebook metadata that opens without JupyterLab's "Select Kernel" dialog.
#: Kernel code for the browser tests' state hooks: ``after_message(write)`` is an observer
#: that calls ``write`` once the kernel has finished the message that changed the widget,
#: so the state file a test reads holds whole actions. Written from inside an action, it
#: could catch one half done (an explorer undo changes its search before its row count).
AFTER_MESSAGE = """
import asyncio

def after_message(write):
    pending = []

    def run():
        pending.clear()
        write()

    def observer(_=None):
        if not pending:
            pending.append(True)
            try:
                asyncio.get_running_loop().call_soon(run)
            except RuntimeError:  # no loop running: no message half handled
                run()

    return observer
"""
NOTEBOOK_METADATA = {
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"},
}

_KERNEL_IDLE_JS = """() => {
    const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const sc = w && w.sessionContext;
    const k = sc && sc.isReady && sc.session && sc.session.kernel;
    return !!k && k.connectionStatus === 'connected' && k.status === 'idle';
}"""

_CANVAS_BLANK_JS = """(canvas) => {
    const w = canvas.width, h = canvas.height;
    if (!w || !h) return true;
    const copy = document.createElement('canvas');
    copy.width = w;
    copy.height = h;
    const ctx = copy.getContext('2d');
    ctx.drawImage(canvas, 0, 0);
    const px = new Uint32Array(ctx.getImageData(0, 0, w, h).data.buffer);
    const bg = px[0];
    for (let i = 1; i < px.length; i++) if (px[i] !== bg) return false;
    return true;
}"""

_OUTPUT_ERRORS_JS = """(sel) => [...document.querySelectorAll(sel)]
    .map(e => e.textContent.trim()).filter(Boolean).join('\\n---\\n')"""


def in_ci() -> bool:
    """True on CI (env ``CI=true``), where a missing browser is a failure, not a skip."""
    return os.environ.get("CI", "").lower() == "true"


def skip_or_fail(reason: str, what: str = "browser test") -> None:
    """Skip the test (``"<what> skipped: <reason>"``), or fail it on CI."""
    if in_ci():
        pytest.fail(f"{what} cannot run on CI (CI=true): {reason}", pytrace=False)
    pytest.skip(f"{what} skipped: {reason}")


def chromium_or_skip() -> str:
    """The Chromium executable; skips the test (fails it on CI) without Chromium or Playwright."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        skip_or_fail("no playwright (pip install -e '.[test]')")
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(path, os.X_OK):
        skip_or_fail("no chromium (apt-get install chromium)")
    return path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def is_local(url: str) -> bool:
    """Whether a request stays on this machine (loopback, data:, blob:, about:)."""
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about", "chrome", "devtools"):
        return True
    return parts.hostname in LOCAL_HOSTS


def is_harmless_remote(url: str) -> bool:
    """Whether a non-local URL is one of the documented :data:`HARMLESS_REMOTE` requests."""
    return any(pattern in url for pattern in HARMLESS_REMOTE)


def write_notebook(path: Path, cells: list[str]) -> Path:
    """Write a notebook of code ``cells`` (python3 kernel) to ``path``; returns ``path``."""
    import nbformat

    nb = nbformat.v4.new_notebook(metadata=NOTEBOOK_METADATA)
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


# --- servers ---------------------------------------------------------------------------------


@dataclass
class Server:
    """A running Jupyter server (JupyterLab or Voila) on 127.0.0.1."""

    proc: subprocess.Popen
    base_url: str
    token: str
    root_dir: Path
    log_path: Path

    def url(self, path: str = "") -> str:
        """The URL of ``path`` (e.g. ``"lab/tree/x.ipynb"``) with the token."""
        sep = "&" if "?" in path else "?"
        return f"{self.base_url}/{path.lstrip('/')}{sep}token={self.token}"

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of the server log."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 20.0) -> None:
        """Terminate the server (it shuts its kernels down), killing it after ``timeout``."""
        stop_process(self.proc, timeout)

    def shutdown_kernels(self) -> None:
        """Delete every session (and so its kernel); JupyterLab only."""
        for session in self._api("GET", "api/sessions") or []:
            self._api("DELETE", f"api/sessions/{session['id']}")

    def _api(self, method: str, path: str) -> Any:
        request = urllib.request.Request(self.url(path), method=method)
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None


def stop_process(proc: subprocess.Popen, timeout: float = 20.0) -> None:
    """Terminate ``proc`` and wait; kill it if it is still running after ``timeout`` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)


def _jupyter_env(work_dir: Path, env: Mapping[str, str] | None) -> dict[str, str]:
    """The environment of a server: isolated config, runtime and IPython dirs, plus ``env``."""
    return {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(work_dir / "config"),
        "JUPYTER_RUNTIME_DIR": str(work_dir / "runtime"),
        "IPYTHONDIR": str(work_dir / "ipython"),
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }


def _spawn(cmd: list[str], cwd: Path, env: dict[str, str], log_path: Path) -> subprocess.Popen:
    with open(log_path, "w") as log:
        return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)


def _wait_until_up(server: Server, probe: str, timeout: float) -> Server:
    """Wait until the server answers (``probe="http"``: GET /api/status; ``"tcp"``: connect)."""
    deadline = time.monotonic() + timeout
    port = urlsplit(server.base_url).port
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"server exited early; log:\n{server.log_tail()}")
        try:
            if probe == "http":
                urllib.request.urlopen(server.url("api/status"), timeout=1).close()
            else:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"server did not start within {timeout:.0f} s; log:\n{server.log_tail()}")


def _lab_settings(settings_dir: Path) -> None:
    """User settings for a quiet, deterministic JupyterLab."""
    settings = {
        # Render every cell: the default 'contentVisibility' may leave off-screen outputs empty.
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
        # Never write what a test does back into its notebook.
        "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
        "@jupyterlab/apputils-extension/notification": {
            "fetchNews": "false",
            "checkForUpdates": False,
        },
    }
    for plugin, values in settings.items():
        path = settings_dir / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def start_lab(
    root_dir: Path, work_dir: Path, env: Mapping[str, str] | None = None, timeout: float = 90.0
) -> Server:
    """Start JupyterLab serving ``root_dir``; settings, runtime files and ``lab.log`` go to
    ``work_dir``. The app is exposed as ``window.jupyterapp`` for :func:`open_in_lab`."""
    work_dir.mkdir(parents=True, exist_ok=True)
    _lab_settings(work_dir / "settings")
    port, token = free_port(), secrets.token_hex(16)
    env = {
        **_jupyter_env(work_dir, env),
        "JUPYTERLAB_SETTINGS_DIR": str(work_dir / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(work_dir / "workspaces"),
    }
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root_dir}",
        "--LabApp.expose_app_in_browser=True",
        # the same server serves Notebook 7 (/notebooks/...): expose its app as well
        "--JupyterNotebookApp.expose_app_in_browser=True",
        "--LabApp.extension_manager=readonly",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
    ]
    log_path = work_dir / "lab.log"
    proc = _spawn(cmd, root_dir, env, log_path)
    server = Server(proc, f"http://127.0.0.1:{port}", token, root_dir, log_path)
    return _wait_until_up(server, "http", timeout)


def start_voila(
    notebook: Path, work_dir: Path, env: Mapping[str, str] | None = None, timeout: float = 60.0
) -> Server:
    """Start Voila on one ``notebook`` (run in its folder); ``voila.log`` goes to ``work_dir``.
    Single-notebook Voila has no ``/api/status`` (403), so the TCP port is probed instead."""
    from perfweave.apps.app import voila_options

    work_dir.mkdir(parents=True, exist_ok=True)
    port, token = free_port(), secrets.token_hex(16)
    # the page `perfweave app` serves: its template (no CDN) and extension list
    options, app_env = voila_options()
    cmd = [
        sys.executable,
        "-m",
        "voila",
        str(notebook),
        "--no-browser",
        "--Voila.ip=127.0.0.1",
        f"--port={port}",
        f"--token={token}",
        "--show_tracebacks=True",
        *options,
    ]
    log_path = work_dir / "voila.log"
    proc = _spawn(
        cmd, notebook.parent, _jupyter_env(work_dir, {**app_env, **(env or {})}), log_path
    )
    server = Server(proc, f"http://127.0.0.1:{port}", token, notebook.parent, log_path)
    return _wait_until_up(server, "tcp", timeout)


# --- pages -----------------------------------------------------------------------------------


def _wait_ready(page: Page, scope: str, ready_selector: str, timeout: float) -> Locator:
    """Wait for ``ready_selector`` inside ``scope``; on timeout, fail with the error outputs."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    ready = page.locator(f"{scope} {ready_selector}").first
    try:
        ready.wait_for(state="attached", timeout=timeout * 1000)
    except PlaywrightTimeout:
        errors = page.evaluate(
            _OUTPUT_ERRORS_JS,
            '[data-mime-type*="stderr"], [data-mime-type*="error"], .jp-OutputArea-error',
        )
        save_screenshot(page, "timeout-" + ready_selector.strip(".#").replace(" ", "_"))
        pytest.fail(
            f"{ready_selector!r} did not appear within {timeout:.0f} s; "
            f"error outputs:\n{errors or '(none)'}",
            pytrace=False,
        )
    return ready


def open_in_lab(
    page: Page,
    server: Server,
    notebook_name: str,
    ready_selector: str,
    timeout: float = 120.0,
    route: str = "lab/tree",
) -> Locator:
    """Open ``notebook_name`` (relative to the server's root) in JupyterLab, wait for its kernel
    to be ready and idle, run all cells, and wait until ``ready_selector`` is in an output.

    Returns the first matching locator. Running the cells before the kernel is idle silently
    does nothing, and awaiting the run-all command hangs, so it is fired and forgotten."""
    start = time.monotonic()
    page.goto(server.url(f"{route}/{notebook_name}" + ("?reset" if route == "lab/tree" else "")))
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell", timeout=timeout * 1000
    )
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=timeout * 1000)
    left = max(timeout - (time.monotonic() - start), 1.0)
    page.wait_for_function(_KERNEL_IDLE_JS, timeout=left * 1000, polling=100)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    left = max(timeout - (time.monotonic() - start), 1.0)
    return _wait_ready(page, ".jp-OutputArea-output", ready_selector, left)


def open_in_notebook7(
    page: Page, server: Server, notebook_name: str, ready_selector: str, timeout: float = 120.0
) -> Locator:
    """As :func:`open_in_lab`, in Notebook 7's notebook page of the same server."""
    return open_in_lab(page, server, notebook_name, ready_selector, timeout, route="notebooks")


def open_in_voila(page: Page, url: str, ready_selector: str, timeout: float = 90.0) -> Locator:
    """Open a Voila ``url`` (it runs the notebook itself) and wait for ``ready_selector``.
    Returns the first matching locator."""
    page.goto(url)
    return _wait_ready(page, "", ready_selector, timeout)


@dataclass
class PageWatch:
    """Console errors, page errors and dialogs of one page.

    Dialogs (``alert``/``confirm``/``prompt``/``beforeunload``) are recorded and dismissed, so
    an XSS test can assert that none fired. Console errors caused by the documented
    :data:`HARMLESS_REMOTE` requests are kept apart in ``ignored``.
    """

    errors: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    #: (message, script): a host application's own page error with that message, all of
    #: whose stack frames lie in that script, is kept in ``ignored`` (see :meth:`tolerate`)
    tolerated: list[tuple[str, str]] = field(default_factory=list)

    def attach(self, page: Page) -> PageWatch:
        page.on("console", self._on_console)
        page.on("pageerror", self._on_page_error)
        page.on("dialog", self._on_dialog)
        return self

    def tolerate(self, message: str, script: str) -> None:
        """Keep a known page error of the host application (never of a widget) apart."""
        self.tolerated.append((message, script))

    def _on_page_error(self, error: Any) -> None:
        message = str(getattr(error, "message", error))
        frames = [f.strip() for f in (getattr(error, "stack", "") or "").splitlines()]
        frames = [f for f in frames if f.startswith("at ") and "(<anonymous>)" not in f]
        frames = [f for f in frames if "Promise.all" not in f]
        known = any(
            message == m and frames and all(script in f for f in frames)
            for m, script in self.tolerated
        )
        (self.ignored if known else self.errors).append(f"pageerror: {error}")

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        url = message.location.get("url", "") if message.location else ""
        text = f"console.error: {message.text} ({url})" if url else f"console.error: {message.text}"
        if message.text.startswith("Failed to load resource") and is_harmless_remote(url):
            self.ignored.append(text)
        else:
            self.errors.append(text)

    def _on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def assert_clean(self) -> None:
        """Fail if the page logged an error or opened a dialog."""
        problems = self.errors + [f"dialog {d}" for d in self.dialogs]
        assert not problems, "browser reported:\n" + "\n".join(problems)


@dataclass
class OfflineRouter:
    """Aborts every request that leaves this machine and records its URL."""

    blocked: list[str] = field(default_factory=list)

    def __call__(self, route: Route) -> None:
        self.blocked.append(route.request.url)
        route.abort("internetdisconnected")

    def unexpected(self, since: int = 0) -> list[str]:
        """Blocked URLs (from index ``since``) other than the documented harmless ones."""
        return [url for url in self.blocked[since:] if not is_harmless_remote(url)]


def eventually(
    check: Callable[[], Any], failure: str | Callable[[], str], timeout: float = 10.0
) -> Any:
    """``check()``'s first true value, polled every 50 ms; after ``timeout`` seconds the test
    fails with ``failure`` (a message, or a function giving it from the page's last state)."""
    end = time.monotonic() + timeout
    while not (result := check()):
        if time.monotonic() > end:
            pytest.fail(failure() if callable(failure) else failure)
        time.sleep(0.05)
    return result


def wait_state(
    notebook: Path, check: Callable[[dict], bool], timeout: float = 20.0, hide: tuple = ()
) -> dict:
    """The widget's Python state once ``check`` holds.

    Browser-test notebooks make the kernel write the widget's state as JSON beside the
    notebook (``<name>.state.json``) whenever it changes, so a test can compare what the
    page shows with what Python holds. ``hide`` leaves bulky keys out of a failure message.
    """
    end = time.monotonic() + timeout
    state = None
    while True:
        try:
            state = json.loads(notebook.with_suffix(".state.json").read_text())
            if check(state):
                return state
        except (OSError, ValueError):
            pass
        if time.monotonic() > end:
            shown = state and {k: v for k, v in state.items() if k not in hide}
            pytest.fail(f"Python state never satisfied the check; last: {shown}")
        time.sleep(0.05)


def save_screenshot(target: Page | Locator, name: str) -> Path:
    """Save a screenshot of a page (full page) or a locator to ``tests/artifacts/<name>.png``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    from playwright.sync_api import Page

    if isinstance(target, Page):
        target.screenshot(path=str(path), full_page=True)
        return path
    # Chromium paints only what is inside the viewport of a scrolled container (Lab's notebook
    # panel, Voila's body): a locator taller than the window came out blank below the fold.
    # Grow the window to the element for the capture, then put it back.
    page, size = target.page, target.page.viewport_size
    box = target.bounding_box()
    if size and box and box["height"] + 120 > size["height"]:
        page.set_viewport_size({"width": size["width"], "height": int(box["height"]) + 200})
        page.wait_for_timeout(200)  # re-layout (bqplot figures redraw on resize)
        try:
            target.screenshot(path=str(path))
        finally:
            page.set_viewport_size(size)
    else:
        target.screenshot(path=str(path))
    return path


def canvas_is_blank(canvas: Locator) -> bool:
    """Whether every pixel of a ``<canvas>`` has the color of its top-left pixel (2d or WebGL;
    the canvas is copied onto a 2d canvas and read with ``getImageData``)."""
    return bool(canvas.evaluate(_CANVAS_BLANK_JS))
