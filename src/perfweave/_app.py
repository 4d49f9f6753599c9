"""Launchers behind ``make demo`` (``perfweave lab``) and ``perfweave app`` (Voila).

Both serve a notebook -- the tour ``notebooks/00_tour.ipynb`` unless another is given -- on
a local port with a fresh token, print the URL to open (token included) before the server
starts, and open a browser only where one can be shown (``--no-browser`` is implied when no
display is available). The server then replaces this process (``exec``), so stopping the
printed process id stops the server.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from perfweave.errors import DependencyError, PerfweaveError

TOUR = Path("notebooks") / "00_tour.ipynb"


def find_tour(start: Path | None = None) -> Path:
    """The tour notebook: ``notebooks/00_tour.ipynb`` under the current directory or the
    source checkout perfweave runs from. Raises :class:`PerfweaveError` naming both places."""
    places = [Path(start or Path.cwd()), Path(__file__).resolve().parents[2]]
    for root in places:
        if (root / TOUR).is_file():
            return (root / TOUR).resolve()
    looked = " and ".join(str(root / TOUR) for root in places)
    raise PerfweaveError(f"no tour notebook at {looked}; give a notebook path")


def has_display() -> bool:
    """Whether a browser window can be shown here (a desktop session, or macOS / Windows)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def free_port(ip: str = "127.0.0.1") -> int:
    """A TCP port on ``ip`` that was free a moment ago."""
    with socket.socket() as s:
        s.bind((ip, 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Launch:
    """A server command line and the URL it will serve the notebook at."""

    argv: list[str]
    url: str
    cwd: Path


def _url_host(ip: str) -> str:
    return "127.0.0.1" if ip in ("0.0.0.0", "") else ip


def _notebook(notebook: str | Path | None) -> Path:
    path = Path(notebook) if notebook else find_tour()
    if not path.is_file():
        raise PerfweaveError(f"{path}: no such notebook")
    if path.suffix != ".ipynb":
        raise PerfweaveError(f"{path}: expected a Jupyter notebook (.ipynb)")
    return path.resolve()


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _require(module: str, extra: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise DependencyError(
            f"{module} is not installed: pip install -e '.[{extra}]' (or `make demo`)"
        )


def lab_launch(
    notebook: str | Path | None = None,
    *,
    port: int | None = None,
    ip: str = "127.0.0.1",
    token: str | None = None,
    open_browser: bool | None = None,
    root_dir: str | Path | None = None,
) -> Launch:
    """JupyterLab on ``notebook`` (the tour by default), served from ``root_dir`` (the
    notebook's project: the parent of its ``notebooks/`` folder, else its folder)."""
    _require("jupyterlab", "demo")
    path = _notebook(notebook)
    if root_dir is None:
        root = path.parent.parent if path.parent.name == "notebooks" else path.parent
    else:
        root = Path(root_dir).resolve()
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        raise PerfweaveError(f"{path}: not inside the served folder {root}") from None
    port = port or free_port(ip)
    token = token or secrets.token_hex(24)
    browser = has_display() if open_browser is None else open_browser
    argv = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.ip={ip}",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.default_url=/lab/tree/{rel}",
        *(["--allow-root"] if _is_root() else []),  # containers often run as root
        *([] if browser else ["--no-browser"]),
    ]
    url = f"http://{_url_host(ip)}:{port}/lab/tree/{rel}?token={token}"
    return Launch(argv, url, root)


def voila_launch(
    notebook: str | Path | None = None,
    *,
    port: int | None = None,
    ip: str = "127.0.0.1",
    token: str | None = None,
    open_browser: bool | None = None,
) -> Launch:
    """Voila serving ``notebook`` (the tour by default) as a dashboard: outputs only."""
    _require("voila", "demo")
    path = _notebook(notebook)
    port = port or free_port(ip)
    token = token or secrets.token_hex(24)
    browser = has_display() if open_browser is None else open_browser
    argv = [
        sys.executable,
        "-m",
        "voila",
        str(path),
        f"--Voila.ip={ip}",
        f"--port={port}",
        f"--token={token}",
        # Notebook 7's Lab-switcher extension throws in Voila 0.5 pages, which do not use it.
        "--VoilaConfiguration.extension_denylist=['@jupyter-notebook/lab-extension']",
        *([] if browser else ["--no-browser"]),
    ]
    url = f"http://{_url_host(ip)}:{port}/?token={token}"
    return Launch(argv, url, path.parent)


def run(launch: Launch, what: str, out=None) -> None:
    """Print where ``what`` will be served and replace this process with the server."""
    out = out or sys.stdout
    print(f"perfweave: {what} at {launch.url}", file=out)
    print("perfweave: open that URL in a browser; Ctrl-C stops the server", file=out)
    out.flush()
    os.chdir(launch.cwd)
    os.execv(launch.argv[0], launch.argv)
