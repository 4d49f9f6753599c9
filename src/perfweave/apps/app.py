"""``perfweave app``: a notebook (the tour by default) as a Voila dashboard, outputs only.

The page uses perfweave's Voila template (``voila_data/voila/templates/perfweave``, found
through ``JUPYTER_PATH``): Voila's ``lab`` template without its two links to Font Awesome on a
CDN (Voila's own bundle already carries Font Awesome), so the app asks nothing of the network.
``voila_data/config/voila.json`` (through ``JUPYTER_CONFIG_PATH``) keeps Voila's log to what
a person running the app needs (see :mod:`perfweave.apps._quiet`).
"""

from __future__ import annotations

import os
from pathlib import Path

from perfweave.apps.serve import (
    Launch,
    free_port,
    has_display,
    notebook_path,
    require,
    server_argv,
    token_env,
    url_host,
)

#: the Jupyter data folder holding perfweave's Voila template
DATA = Path(__file__).parent / "voila_data"
TEMPLATE = "perfweave"


def voila_options() -> tuple[list[str], dict[str, str]]:
    """Voila's command-line options and environment for perfweave's page (also used by the
    browser tests that start Voila themselves)."""
    paths = [str(DATA), *_split(os.environ.get("JUPYTER_PATH", ""))]
    argv = [
        f"--template={TEMPLATE}",
        # Notebook 7's Lab-switcher extension throws in Voila 0.5 pages, which do not use it.
        "--VoilaConfiguration.extension_denylist=@jupyter-notebook/lab-extension",
    ]
    config = [str(DATA / "config"), *_split(os.environ.get("JUPYTER_CONFIG_PATH", ""))]
    env = {"JUPYTER_PATH": _join(paths), "JUPYTER_CONFIG_PATH": _join(config)}
    return argv, env


def _split(text: str) -> list[str]:
    return [p for p in text.split(os.pathsep) if p]


def _join(paths: list[str]) -> str:
    return os.pathsep.join(paths)


def voila_launch(
    notebook: str | Path | None = None,
    *,
    port: int | None = None,
    ip: str = "127.0.0.1",
    token: str | None = None,
    open_browser: bool | None = None,
) -> Launch:
    """Voila serving ``notebook`` (the tour by default) as a dashboard: outputs only."""
    require("voila", "demo")
    path = notebook_path(notebook)
    port = port or free_port(ip)
    token, secret = token_env(token)  # in the environment: a command line is public
    browser = has_display() if open_browser is None else open_browser
    options, env = voila_options()
    argv = [
        *server_argv("voila"),
        str(path),
        f"--Voila.ip={ip}",
        f"--port={port}",
        # Voila given no token serves everyone; with this it makes one up instead
        "--Voila.auto_token=True",
        *options,
        *([] if browser else ["--no-browser"]),
    ]
    url = f"http://{url_host(ip)}:{port}/?token={token}"
    return Launch(argv, url, path.parent, {**env, **secret})
