"""Run inside the exported notebook's kernel: the replies perfweave widgets give at first draw.

perfweave widgets fetch their data windows from Python (see ``widgets/_base.py``). A static
page has no kernel, so after the notebook ran, :func:`emit` asks every live perfweave widget
for what its front end requests first (each widget's protocol declares it: the explorer's
first ``rows``, the picker's ``cols``, the heatmap's ``matrix``, the flame graph's ``frames``)
and publishes the answers as one display output, which the exporter moves into the page.
"""

from __future__ import annotations

import base64
from typing import Any

MIME = "application/vnd.perfweave.replies+json"


def record() -> dict[str, dict[str, dict[str, Any]]]:
    """``{model_id: {action: {"payload": ..., "buffers": [base64, ...]}}}`` of every live
    perfweave widget (``WidgetBase.first_draw_replies``: what its declared protocol says a
    page asks first)."""
    from perfweave.widgets import live_widgets

    out: dict[str, dict[str, dict[str, Any]]] = {}
    for w in live_widgets():
        if w.model_id is None:
            continue
        for action, (payload, buffers) in w.first_draw_replies().items():
            encoded = [base64.b64encode(bytes(memoryview(b))).decode("ascii") for b in buffers]
            out.setdefault(w.model_id, {})[action] = {"payload": payload, "buffers": encoded}
    return out


def emit() -> None:
    """Publish :func:`record` as a display output of type :data:`MIME`."""
    from IPython.display import publish_display_data

    publish_display_data({MIME: record()})
