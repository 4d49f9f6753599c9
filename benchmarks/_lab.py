"""JupyterLab for the browser benchmarks: a server, a notebook open in a headless Chromium
page, and cells run from the page with the page's own clock.

The benchmarks time what a person waits for in JupyterLab: from running a cell until the
widget it shows has drawn. The helpers here start a quiet, isolated JupyterLab on
127.0.0.1 (its own settings, runtime and IPython dirs; every cell rendered; no autosave,
news or update checks), open a notebook once its kernel is idle, and run one cell by index
through Lab's own command (``notebook:run-cell``, what Shift+Enter runs). Every kernel
message the page sends or receives is stamped with ``performance.now()`` as it passes Lab's
kernel connection, so a figure splits into the kernel's part (execute request -> the
widget's messages -> idle) and the page's (widget manager, ``render()``, requests, drawing).

Benchmarks do not import the test suite; this module keeps what they need of it.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

#: Chromium's flags: headless, no sandbox (root in a container), no GPU, no network chatter
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

# a notebook that opens without JupyterLab's "Select Kernel" dialog
NOTEBOOK_METADATA = {
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"},
}

_NOTEBOOK_JS = "() => window.jupyterapp.shell.currentWidget"

_KERNEL_IDLE_JS = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const sc = w && w.sessionContext;
  const k = sc && sc.isReady && sc.session && sc.session.kernel;
  return !!k && k.connectionStatus === 'connected' && k.status === 'idle';
}"""

# Stamp every kernel message the page sends or receives (page clock), once per kernel.
_WATCH_KERNEL_JS = """() => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  if (window.__pwLabLog && window.__pwLabKernel === kernel.id) return;
  window.__pwLabLog = [];
  window.__pwLabKernel = kernel.id;
  kernel.anyMessage.connect((_, args) => {
    const m = args.msg;
    const c = m.content || {};
    const data = c.data || {};
    window.__pwLabLog.push({
      t: performance.now(),
      dir: args.direction,
      type: m.header.msg_type,
      channel: m.channel,
      state: c.execution_state,
      comm: c.comm_id,
      method: data.method,
      what: data.content && data.content.type,
      action: data.content && data.content.action,
      target: c.target_name,
      bytes: (m.buffers || []).reduce((s, b) => s + (b.byteLength || 0), 0),
    });
  });
}"""

_RUN_CELL_JS = """(index) => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  nb.activeCellIndex = index;
  window.__pwLabLog = [];
  const t0 = performance.now();
  window.jupyterapp.commands.execute('notebook:run-cell');
  return t0;
}"""


def is_local(url: str) -> bool:
    """Whether a request stays on this machine (loopback, data:, blob:, about:)."""
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about", "chrome", "devtools"):
        return True
    return parts.hostname in LOCAL_HOSTS


def write_notebook(path: Path, cells: list[str]) -> Path:
    """Write a notebook of code ``cells`` (python3 kernel) to ``path``; returns ``path``."""
    import nbformat

    nb = nbformat.v4.new_notebook(metadata=NOTEBOOK_METADATA)
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LabServer:
    """A JupyterLab server on 127.0.0.1 serving ``root`` (stopped by :meth:`stop`)."""

    proc: subprocess.Popen
    base_url: str
    token: str
    root: Path
    log_path: Path

    def url(self, path: str = "") -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base_url}/{path.lstrip('/')}{sep}token={self.token}"

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self, timeout: float = 20.0) -> None:
        """Terminate the server (it shuts its kernels down); kill it after ``timeout``."""
        if self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=timeout)


def _settings(folder: Path) -> None:
    """A quiet JupyterLab: every cell rendered (the default 'contentVisibility' windowing may
    leave an off-screen output empty), no autosave, no news or update checks."""
    settings = {
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
        "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
        "@jupyterlab/apputils-extension/notification": {
            "fetchNews": "false",
            "checkForUpdates": False,
        },
    }
    for plugin, values in settings.items():
        path = folder / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def start_lab(root: Path, work: Path, timeout: float = 120.0) -> LabServer:
    """Start JupyterLab serving ``root``; its settings, runtime files and ``lab.log`` go to
    ``work``. The app is exposed to the page as ``window.jupyterapp``."""
    work.mkdir(parents=True, exist_ok=True)
    _settings(work / "settings")
    port, token = _free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(work / "config"),
        "JUPYTER_RUNTIME_DIR": str(work / "runtime"),
        "IPYTHONDIR": str(work / "ipython"),
        "JUPYTERLAB_SETTINGS_DIR": str(work / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(work / "workspaces"),
        "PYTHONUNBUFFERED": "1",
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
        f"--ServerApp.root_dir={root}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.extension_manager=readonly",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
    ]
    log_path = work / "lab.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = LabServer(proc, f"http://127.0.0.1:{port}", token, root, log_path)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"JupyterLab exited early; log:\n{server.log_tail()}")
        try:
            urllib.request.urlopen(server.url("api/status"), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"JupyterLab did not start in {timeout:.0f} s; log:\n{server.log_tail()}")


class LabNotebook:
    """One notebook open in JupyterLab in ``page``, its kernel idle and watched."""

    def __init__(self, page: Any, server: LabServer, name: str, cap: float) -> None:
        self.page, self.cap = page, cap
        page.goto(server.url(f"lab/tree/{name}?reset"), timeout=cap * 1000)
        page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell", timeout=cap * 1000
        )
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=cap * 1000)
        self.wait_idle()
        page.evaluate(_WATCH_KERNEL_JS)

    def wait_idle(self) -> None:
        """Wait until the kernel is connected and idle."""
        self.page.wait_for_function(_KERNEL_IDLE_JS, timeout=self.cap * 1000, polling=50)

    def run(self, index: int) -> float:
        """Run cell ``index`` as Shift+Enter would (Lab's ``notebook:run-cell``); the page's
        clock just before. The kernel-message log starts afresh with it."""
        return float(self.page.evaluate(_RUN_CELL_JS, index))

    def run_and_wait(self, index: int) -> None:
        """Run cell ``index`` and wait until the kernel has finished it (idle again)."""
        self.run(index)
        self.page.wait_for_function(
            "() => (window.__pwLabLog || []).some((m) => m.type === 'execute_reply')",
            timeout=self.cap * 1000,
            polling=50,
        )
        self.wait_idle()

    def clear_outputs(self) -> None:
        """Clear every cell's output (the widgets shown go from the page)."""
        self.page.evaluate(
            "() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')"
        )

    def messages(self) -> list[dict[str, Any]]:
        """The kernel messages since the last :meth:`run`, each with its page time ``t``."""
        return list(self.page.evaluate("() => window.__pwLabLog || []"))


def first_time(log: list[dict[str, Any]], **match: Any) -> float | None:
    """Page time of the first message of ``log`` whose fields equal ``match``."""
    for m in log:
        if all(m.get(k) == v for k, v in match.items()):
            return float(m["t"])
    return None


def load_average() -> str:
    """The machine's load average now (1 and 5 minutes), printed beside each figure."""
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (1 min), {five:.2f} (5 min)"


def spread(values: list[float]) -> str:
    """A range of milliseconds, as the figures print it."""
    return f"{min(values):,.0f}-{max(values):,.0f}"


def print_runs(label: str, runs: list[dict[str, float]]) -> None:
    """Every run's parts, one JSON line each (``label run: {...}``), for a later look."""
    for r in runs:
        print(f"{label} run:", json.dumps({k: round(v, 1) for k, v in r.items()}), flush=True)


def add_parts(
    fig: Any, runs: list[dict[str, float]], parts: list[tuple[str, str]], tag: str, indent: str
) -> None:
    """Where a figure's time went: one row per part ``(key, label)`` that the runs measured,
    its median and range (``fig`` is a :class:`benchmarks.widgets.Figures`)."""
    for key, label in parts:
        values = [r[key] for r in runs if key in r]
        if values:
            fig.add(
                f"{indent}{label} {tag}",
                statistics.median(values),
                "ms",
                detail=f"median of {len(values)}; {spread(values)} ms",
            )


class LabSession:
    """A scenario's notebook open in JupyterLab (its first cell, the data, run), the kernel's
    state file it writes (``cells(state_path)`` makes the notebook's cells), and every
    request leaving the machine aborted and counted."""

    def __init__(
        self,
        browser: Any,
        work: Path,
        name: str,
        cells: Callable[[Path], list[str]],
        probe_js: str,
        viewport: dict,
        cap: float,
    ) -> None:
        root = work / f"{name}-root"
        self.state_path = root / f"{name}.state.json"
        write_notebook(root / f"{name}.ipynb", cells(self.state_path))
        self.server = start_lab(root, work / f"{name}-server")
        try:
            self.context = browser.new_context(viewport=viewport)
            self.blocked: list[str] = []
            self.context.route(lambda url: not is_local(url), self._abort)
            self.page = self.context.new_page()
            self.errors: list[str] = []
            self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
            self.nb = LabNotebook(self.page, self.server, f"{name}.ipynb", cap)
            self.nb.run_and_wait(0)  # the data
            self.page.evaluate(probe_js)
        except BaseException:
            self.close()
            raise
        self.cap = cap

    def _abort(self, route: Any) -> None:
        self.blocked.append(route.request.url)
        route.abort("internetdisconnected")

    def run_first(
        self, cell: int, close_cell: int, root: str, mark_js: str, arg: Any = None
    ) -> tuple[float, dict[str, Any], list[dict[str, Any]]]:
        """Run a widget's ``cell`` afresh (outputs cleared, ``close_cell`` run, the ``root``
        element gone from the page): the page time just before the run, the first mark
        ``mark_js`` finds after it (called with ``arg``, default that time) and the kernel
        messages of the run."""
        self.nb.clear_outputs()
        self.nb.run_and_wait(close_cell)
        self.page.wait_for_selector(root, state="detached", timeout=self.cap * 1000)
        self.state_path.unlink(missing_ok=True)
        t0 = self.nb.run(cell)
        mark = self.page.wait_for_function(
            mark_js, arg=t0 if arg is None else arg(t0), timeout=self.cap * 1000, polling=20
        ).json_value()
        self.nb.wait_idle()
        return t0, mark, self.nb.messages()

    def with_kernel_times(self, got: dict[str, float], action: str) -> dict[str, float]:
        """``got`` (a first draw's parts) with the kernel's own times: the widget's cell
        (``kernel_cell``) and, where the page asked for it, the first ``action`` handler
        (``kernel_<action>``)."""
        st = self.state()
        if "cell_ms" in st:
            got["kernel_cell"] = st["cell_ms"]
        first = st.get("py_ms", {}).get(action)
        if first and "round_trip" in got:
            got[f"kernel_{action}"] = first[0]
        return got

    def problems(self, name: str) -> list[str]:
        """The page's errors and the requests off the machine it made, for the figures'
        notes (``name``: the scenario)."""
        return [f"{name}: {p}" for p in self.errors] + [
            f"{name}: blocked {u}" for u in self.blocked
        ]

    def state(self) -> dict[str, Any]:
        """What the kernel last wrote of the widget's state ({} before it wrote any)."""
        try:
            return json.loads(self.state_path.read_text())
        except (OSError, ValueError):
            return {}

    def close(self) -> None:
        try:
            if getattr(self, "context", None) is not None:
                self.context.close()
        finally:
            self.server.stop()


def kernel_hooks(widget: str, state: Path, traits: str = "") -> str:
    """Notebook lines that time each cell in the kernel and, after the cell that made a new
    ``widget`` (a class name in the notebook's namespace), instrument it
    (:func:`benchmarks.widgets.instrument`, ``traits`` its trait argument) with the cell's
    time; no ``Out[n]`` is kept, so a closed widget is freed."""
    extra = f", {traits}" if traits else ""
    return (
        "from perfweave.widgets._base import live_widgets\n"
        "from benchmarks.widgets import instrument\n"
        "_cell = {}\n"
        "def _pre_cell(info):\n"
        "    _cell['t0'] = time.perf_counter()\n"
        "def _post_cell(result):\n"
        "    ms = (time.perf_counter() - _cell.pop('t0', time.perf_counter())) * 1e3\n"
        "    w = live_widgets()[-1] if live_widgets() else None\n"
        f"    if isinstance(w, {widget}) and not hasattr(w, '_bench_cell_ms'):\n"
        "        w._bench_cell_ms = ms\n"
        f"        instrument(w, {str(state)!r}{extra}, cell_ms=ms)\n"
        "get_ipython().displayhook.cache_size = 0\n"
        "get_ipython().events.register('pre_run_cell', _pre_cell)\n"
        "get_ipython().events.register('post_run_cell', _post_cell)"
    )


#: the notebook cell that closes every widget shown (and frees them)
CLOSE_WIDGETS = "for _w in live_widgets():\n    _w.close()\n_w = None\ngc.collect()"


def ready_probe(var: str, root_class: str, fields: str) -> str:
    """Page script: push ``{at, paint, ...fields}`` to ``window[var]`` (page clock) whenever
    an element of class ``root_class`` is added with, or gets, ``data-ready="1"``; ``paint``
    is set once the frame after it was painted. ``fields`` is a JS object literal over the
    element ``el``."""
    return f"""() => {{
  if (window.{var}) return;
  window.{var} = [];
  const mark = (el) => {{
    const m = {{ at: performance.now(), ...({fields}) }};
    window.{var}.push(m);
    requestAnimationFrame(() => setTimeout(() => {{ m.paint = performance.now(); }}, 0));
  }};
  new MutationObserver((records) => {{
    for (const r of records) {{
      if (r.type === 'attributes') {{
        const el = r.target;
        if (el.classList.contains('{root_class}') && el.dataset.ready === '1') mark(el);
      }} else {{
        for (const node of r.addedNodes) {{
          if (!(node instanceof Element)) continue;
          const el = node.matches('.{root_class}') ? node : node.querySelector('.{root_class}');
          if (el && el.dataset.ready === '1') mark(el);
        }}
      }}
    }}
  }}).observe(document.body, {{
    subtree: true, childList: true, attributes: true, attributeFilter: ['data-ready'],
  }});
}}"""


def ready_mark(var: str) -> str:
    """Page script: the first mark of :func:`ready_probe` after a time (its argument) whose
    frame was painted, or null."""
    return f"""(since) => (window.{var} || []).find(
  (m) => m.at > since && m.paint !== undefined) || null"""


def first_draw_parts(
    log: list[dict[str, Any]], t0: float, mark: dict[str, Any], request: str | None
) -> dict[str, float]:
    """Where the time from running a cell (page time ``t0``) to a widget's first draw
    (``mark``: ``at``, ``paint`` and ``first``, render() -> drawn) went, from the kernel
    messages ``log``: the execute request reaching the kernel, the kernel up to the
    widget's comm open (it opens last) and display, the widget manager until render(), and
    the first ``request`` action's round trip when the page asked for its first data (else
    render() -> drawn whole, the data having come with the widget's state)."""
    render = mark["at"] - mark["first"]
    got = {"drawn": mark["at"] - t0, "painted": mark["paint"] - t0}
    started = first_time(log, type="execute_input")
    opens = [m for m in log if m["type"] == "comm_open" and m["t"] < render]
    opened = opens[-1]["t"] if opens else None
    shown = first_time(log, type="execute_result")
    if None not in (started, opened, shown):
        got.update(
            to_kernel=started - t0,
            kernel_to_open=opened - started,
            open_to_display=shown - opened,
            display_to_render=render - shown,
            drawn_to_painted=mark["paint"] - mark["at"],
        )
    asked = first_time(log, dir="send", what="request", action=request) if request else None
    answered = first_time(log, dir="recv", what="response")
    if asked is not None and answered is not None and render <= asked < mark["at"]:
        got.update(
            render_to_request=asked - render,
            round_trip=answered - asked,
            reply_to_drawn=mark["at"] - answered,
        )
    else:
        got["render_to_drawn"] = mark["first"]
    return got
