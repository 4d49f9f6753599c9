"""Jupyter widgets over the perfweave core (imported on first use, never by the core).

``CalltreeExplorer`` shows a GraphFrame or Ensemble as a collapsible, searchable,
filterable calltree table. ``replay(frame, steps)`` re-applies an explorer's history.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_LAZY = {
    "CalltreeExplorer": "perfweave.widgets.explorer",
    "MergePanel": "perfweave.widgets.merge_panel",
    "ClassPicker": "perfweave.widgets.picker",
    "CountMatrixHeatmap": "perfweave.widgets.heatmap",
    "ScalingView": "perfweave.widgets.scaling_view",
    "Step": "perfweave.widgets._history",
    "replay": "perfweave.widgets._history",
}

if TYPE_CHECKING:  # pragma: no cover
    from perfweave.widgets._history import Step, replay  # noqa: F401
    from perfweave.widgets.explorer import CalltreeExplorer  # noqa: F401


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'perfweave.widgets' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = list(_LAZY)
