"""``perfweave lab`` (what ``make demo`` runs): JupyterLab on a notebook, the tour by default."""

from __future__ import annotations

from pathlib import Path

from perfweave.apps.serve import (
    Launch,
    free_port,
    has_display,
    is_root,
    notebook_path,
    require,
    server_argv,
    token_env,
    url_host,
)
from perfweave.errors import PerfweaveError


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
    require("jupyterlab", "demo")
    path = notebook_path(notebook)
    if root_dir is None:
        root = path.parent.parent if path.parent.name == "notebooks" else path.parent
    else:
        root = Path(root_dir).resolve()
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        raise PerfweaveError(f"{path}: not inside the served folder {root}") from None
    port = port or free_port(ip)
    token, env = token_env(token)  # in the environment: a command line is public
    browser = has_display() if open_browser is None else open_browser
    argv = [
        *server_argv("jupyterlab"),
        f"--ServerApp.ip={ip}",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.default_url=/lab/tree/{rel}",
        *(["--allow-root"] if is_root() else []),  # containers often run as root
        *([] if browser else ["--no-browser"]),
    ]
    url = f"http://{url_host(ip)}:{port}/lab/tree/{rel}?token={token}"
    return Launch(argv, url, root, env)
