"""``perfweave export NOTEBOOK OUT.html``: a notebook run and saved as one offline HTML page.

The notebook is executed with nbclient (widget state stored in its metadata, as
``application/vnd.jupyter.widget-state+json``) and converted with nbconvert's JupyterLab
template, changed to need no network: ipywidgets' HTML manager (bundled from npm into
``static/embed.js``, see ``js/build-export.mjs``), the AMD front ends of the non-core widget
modules the state uses (anywidget, bqplot, bqscales: from the installed packages'
``nbextensions``) and the replies perfweave widgets give at first draw (``_replies.py``) are
inlined in the page. anywidget models carry their own front end (``_esm``, our
``widgets/static/*.js``) in the state. Math is left as TeX (MathJax would need the network).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from perfweave.errors import DependencyError, PerfweaveError

HERE = Path(__file__).parent
STATE_MIME = "application/vnd.jupyter.widget-state+json"
#: modules the bundled HTML manager provides itself
CORE_MODULES = {"@jupyter-widgets/base", "@jupyter-widgets/controls", "@jupyter-widgets/output"}
SNAPSHOT_CODE = "import perfweave.apps.export._replies as _pw_replies\n_pw_replies.emit()"


def _script_text(source: str) -> str:
    """``source`` safe inside a ``<script>`` element (it cannot close or comment it)."""
    return source.replace("</script", "<\\/script").replace("<!--", "<\\!--")


def _widget_modules(state: dict[str, Any]) -> list[str]:
    """The non-core widget modules the saved models use."""
    names = set()
    for model in state.get("state", {}).values():
        for key in ("model_module", "view_module"):
            name = model.get(key)
            if name and name not in CORE_MODULES:
                names.add(name)
    return sorted(names)


def _amd_source(name: str) -> str:
    """The AMD front end of widget module ``name`` from an installed ``nbextensions`` folder."""
    from jupyter_core.paths import jupyter_path

    for root in jupyter_path("nbextensions"):
        path = Path(root) / name / "index.js"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise PerfweaveError(
        f"widget module {name!r}: no front end (nbextensions/{name}/index.js) is installed, "
        "so its widgets cannot be drawn offline"
    )


def _kernel_config() -> Any:
    from traitlets.config import Config

    from perfweave.apps.serve import encrypts_kernels

    if encrypts_kernels():
        return Config({"KernelManager": {"transport_encryption": "auto"}})
    return Config()


def execute(notebook: str | Path, timeout: float = 600.0) -> tuple[Any, dict]:
    """Run ``notebook`` in its folder; returns (executed notebook, replies at first draw)."""
    try:
        import nbformat
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError
    except ImportError as exc:
        raise DependencyError(
            f"perfweave export needs nbclient and nbformat ({exc}): pip install -e '.[demo]'"
        ) from None
    from perfweave.apps.export._replies import MIME

    path = Path(notebook)
    if path.suffix != ".ipynb":
        raise PerfweaveError(f"{path}: expected a Jupyter notebook (.ipynb)")
    try:
        nb = nbformat.read(path, as_version=4)
    except FileNotFoundError:
        raise
    except Exception as exc:
        raise PerfweaveError(f"{path}: not a readable notebook ({exc})") from None
    nb.cells.append(nbformat.v4.new_code_cell(SNAPSHOT_CODE))
    client = NotebookClient(
        nb,
        timeout=timeout,
        store_widget_state=True,
        resources={"metadata": {"path": str(path.resolve().parent)}},
        # CurveZMQ keys for the kernel where supported: no "running over TCP without
        # encryption" warning on the terminal
        config=_kernel_config(),
    )
    try:
        client.execute()
    except CellExecutionError as exc:
        cell = next(
            (
                i
                for i, c in enumerate(nb.cells)
                if any(o.get("output_type") == "error" for o in c.get("outputs", []))
            ),
            None,
        )
        where = f"cell {cell + 1}" if cell is not None else "a cell"
        raise PerfweaveError(f"{path}: {where} failed: {exc.ename}: {exc.evalue}") from None
    snapshot = nb.cells.pop()
    replies: dict = {}
    for output in snapshot.get("outputs", []):
        if MIME in output.get("data", {}):
            data = output["data"][MIME]
            replies = json.loads(data) if isinstance(data, str) else dict(data)
    return nb, replies


def to_html(nb: Any, replies: dict | None = None, title: str | None = None) -> str:
    """The executed notebook ``nb`` as one HTML page that draws its widgets offline."""
    try:
        from nbconvert import HTMLExporter
    except ImportError as exc:
        raise DependencyError(
            f"perfweave export needs nbconvert ({exc}): pip install -e '.[demo]'"
        ) from None

    state = nb.metadata.get("widgets", {}).get(STATE_MIME, {})
    modules = [(name, _script_text(_amd_source(name))) for name in _widget_modules(state)]
    static = HERE / "static"
    resources = {
        "perfweave": {
            "js": _script_text((static / "embed.js").read_text(encoding="utf-8")),
            "css": (static / "embed.css")
            .read_text(encoding="utf-8")
            .replace("</style", "<\\/style"),
            "modules": modules,
            "replies": replies or {},
        },
        "metadata": {"name": title or "notebook"},
    }
    exporter = HTMLExporter(
        template_name="perfweave_offline", extra_template_basedirs=[str(HERE / "templates")]
    )
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    return body


def export_notebook(notebook: str | Path, out: str | Path, timeout: float = 600.0) -> Path:
    """Execute ``notebook`` and write it, outputs and widgets, as a standalone ``out`` page."""
    nb, replies = execute(notebook, timeout=timeout)
    out = Path(out)
    out.write_text(to_html(nb, replies, title=Path(notebook).stem), encoding="utf-8")
    return out
