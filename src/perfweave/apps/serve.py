"""What the two servers (``perfweave lab``, ``perfweave app``) share: the notebook to serve,
a free port, whether a browser can be shown, and handing this process over to the server.

Both serve a notebook -- the tour ``notebooks/00_tour.ipynb`` unless another is given -- on
a local port with a fresh token, print the URL to open (token included) before the server
starts, and open a browser only where one can be shown (``--no-browser`` is implied when no
display is available). The server then replaces this process (``exec``), so stopping the
printed process id stops the server.

The token never appears on a command line: any local user reads those (``ps``,
``/proc/PID/cmdline``) and, with the token, runs code as you. It travels in the server's
environment (:data:`TOKEN_ENV`; ``/proc/PID/environ`` is readable only by you and root), and
:mod:`perfweave.apps._quiet` takes it out of the environment again before the server starts
any kernel or terminal.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path

from perfweave.errors import DependencyError, PerfweaveError

TOUR = Path("notebooks") / "00_tour.ipynb"

#: the environment variable that hands a server its token (jupyter_server's own name)
TOKEN_ENV = "JUPYTER_TOKEN"


def find_tour(start: Path | None = None) -> Path:
    """The tour notebook: ``notebooks/00_tour.ipynb`` under the current directory or the
    source checkout perfweave runs from. Raises :class:`PerfweaveError` naming both places."""
    places = [Path(start or Path.cwd()), Path(__file__).resolve().parents[3]]
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
    """A server command line and the URL it will serve the notebook at (token included)."""

    argv: list[str]
    url: str
    cwd: Path
    #: variables added to the server's environment (the token among them, never in ``argv``)
    env: dict[str, str] = field(default_factory=dict)


def token_env(token: str | None) -> tuple[str, dict[str, str]]:
    """A server's token (``token``, else a fresh random one) and the environment carrying it."""
    token = token or secrets.token_hex(24)
    return token, {TOKEN_ENV: token}


def url_host(ip: str) -> str:
    return "127.0.0.1" if ip in ("0.0.0.0", "") else ip


def notebook_path(notebook: str | Path | None) -> Path:
    path = Path(notebook) if notebook else find_tour()
    if not path.is_file():
        raise PerfweaveError(f"{path}: no such notebook")
    if path.suffix != ".ipynb":
        raise PerfweaveError(f"{path}: expected a Jupyter notebook (.ipynb)")
    return path.resolve()


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def require(module: str, extra: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise DependencyError(
            f"{module} is not installed: pip install -e '.[{extra}]' (or `make demo`)"
        )


def server_argv(module: str) -> list[str]:
    """The start of a server's command line: ``python -m <module>`` through
    :mod:`perfweave.apps._quiet`, with kernels that encrypt their connection where the kernel
    and jupyter_client can (no "running over TCP without encryption" warning)."""
    argv = [sys.executable, "-m", "perfweave.apps._quiet", module]
    return argv + kernel_options()


def encrypts_kernels() -> bool:
    """Whether this jupyter_client can give kernels CurveZMQ keys (``transport_encryption``)."""
    from jupyter_client.manager import KernelManager

    return "transport_encryption" in KernelManager.class_trait_names()


def kernel_options() -> list[str]:
    """Options for the kernels a server starts: CurveZMQ keys where supported."""
    return ["--KernelManager.transport_encryption=auto"] if encrypts_kernels() else []


def run(launch: Launch, what: str, out=None) -> None:
    """Print where ``what`` will be served and replace this process with the server."""
    out = out or sys.stdout
    print(f"perfweave: {what} at {launch.url}", file=out)
    print("perfweave: open that URL in a browser; Ctrl-C stops the server", file=out)
    out.flush()
    os.chdir(launch.cwd)
    os.execve(launch.argv[0], launch.argv, {**os.environ, **launch.env})
