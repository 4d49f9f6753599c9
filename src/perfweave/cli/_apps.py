"""``perfweave lab | app | export``: argument parsing only; the work is in :mod:`perfweave.apps`."""

from __future__ import annotations

import argparse


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "notebook", nargs="?", help="the notebook to open (default: notebooks/00_tour.ipynb)"
    )
    parser.add_argument("--port", type=int, help="port to listen on (default: a free one)")
    parser.add_argument(
        "--ip", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)"
    )
    parser.add_argument(
        "--no-browser",
        action="store_true",
        help="do not open a browser (implied when no display is available)",
    )


def register(subparsers) -> None:
    lab = subparsers.add_parser(
        "lab",
        help="open the tour (or NOTEBOOK) in JupyterLab; prints the URL with its token",
        description="Start JupyterLab on a notebook (what `make demo` runs). The URL, token "
        "included, is printed first; no browser is opened without a display.",
    )
    _server_options(lab)
    lab.set_defaults(func=_lab)

    app = subparsers.add_parser(
        "app",
        help="serve the tour (or NOTEBOOK) as a Voila dashboard; prints the URL",
        description="Run a notebook in Voila: its outputs and widgets as a web app, no code. "
        "The URL, token included, is printed first.",
    )
    _server_options(app)
    app.set_defaults(func=_app)

    export = subparsers.add_parser(
        "export",
        help="run a notebook and write it as one HTML page whose widgets draw offline",
        description="Execute NOTEBOOK (in its folder) and write OUT.html: outputs, widget state "
        "and every script the widgets need inlined, so the page opens with no network and no "
        "kernel. Widgets show their first view; actions that need Python say so in the widget.",
    )
    export.add_argument("notebook", help="the notebook to run (.ipynb)")
    export.add_argument("out", help="the HTML file to write")
    export.add_argument(
        "--timeout", type=float, default=600.0, help="seconds a cell may run (default 600)"
    )
    export.set_defaults(func=_export)


def _lab(args: argparse.Namespace) -> int:
    from perfweave.apps.lab import lab_launch
    from perfweave.apps.serve import run

    browser = False if args.no_browser else None
    run(lab_launch(args.notebook, port=args.port, ip=args.ip, open_browser=browser), "JupyterLab")
    return 0


def _app(args: argparse.Namespace) -> int:
    from perfweave.apps.app import voila_launch
    from perfweave.apps.serve import run

    browser = False if args.no_browser else None
    launch = voila_launch(args.notebook, port=args.port, ip=args.ip, open_browser=browser)
    run(launch, "the Voila app")
    return 0


def _export(args: argparse.Namespace) -> int:
    from perfweave.apps.export import export_notebook

    out = export_notebook(args.notebook, args.out, timeout=args.timeout)
    size = out.stat().st_size / 1e6
    print(f"perfweave export: wrote {out} ({size:.1f} MB, opens offline)")
    return 0
