"""Run inside the exported notebook's kernel: the replies perfweave widgets give at first draw.

perfweave widgets fetch their data windows from Python (see ``widgets/_base.py``). A static
page has no kernel, so after the notebook ran, :func:`emit` asks every live perfweave widget
for what its front end requests first (``rows`` from row 0, the picker's ``cols``, the heatmap's ``matrix``) and
publishes the answers as one display output, which the exporter moves into the page.
"""

from __future__ import annotations

import base64
from typing import Any

MIME = "application/vnd.perfweave.replies+json"

#: action -> arguments recorded for it (the first window, as large as a widget sends)
FIRST_DRAW: dict[str, dict[str, Any]] = {
    "rows": {"start": 0, "count": 2000},  # explorer, picker table: the first row window
    "cols": {},  # picker table: the first page of class columns
    "matrix": {},  # heatmap: the aggregated matrix
}


def _widgets() -> list[Any]:
    from ipywidgets.widgets import widget

    instances = getattr(widget, "_instances", None)
    if instances is None:  # ipywidgets < 8.1
        instances = widget.Widget.widgets
    return list(instances.values())


def _first_draw(w: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """(action, method, arguments) of each request the widget's page sends first: from its
    declared protocol (``Action.first_draw``)."""
    protocol = getattr(w, "_protocol", None)
    if protocol is not None and any(a.first_draw is not None for a in protocol.actions.values()):
        return [
            (name, a.method, dict(a.first_draw))
            for name, a in protocol.actions.items()
            if a.first_draw is not None
        ]
    return [(a, w._actions[a], args) for a, args in FIRST_DRAW.items() if a in w._actions]


def record() -> dict[str, dict[str, dict[str, Any]]]:
    """``{model_id: {action: {"payload": ..., "buffers": [base64, ...]}}}`` of every widget."""
    from perfweave.widgets._base import WidgetBase

    out: dict[str, dict[str, dict[str, Any]]] = {}
    for w in _widgets():
        if not isinstance(w, WidgetBase) or w.model_id is None:
            continue
        for action, method, args in _first_draw(w):
            try:
                payload, buffers = getattr(w, method)(**args)
            except Exception:  # a widget that cannot answer shows its message in the page
                continue
            encoded = [base64.b64encode(bytes(memoryview(b))).decode("ascii") for b in buffers]
            out.setdefault(w.model_id, {})[action] = {"payload": payload, "buffers": encoded}
    return out


def emit() -> None:
    """Publish :func:`record` as a display output of type :data:`MIME`."""
    from IPython.display import publish_display_data

    publish_display_data({MIME: record()})
