"""Jupyter widgets over the perfweave core (imported on first use, never by the core).

One widget per part of the core, each a view over a core object passed to its constructor:

- ``CalltreeExplorer``: a GraphFrame, Ensemble or comparison as a collapsible, searchable,
  filterable calltree table; ``replay(frame, steps)`` re-applies its history (``Step``).
- ``CountMatrixHeatmap``: MPI count matrices (alltoallv counts) as a zoomable heatmap of
  rank ranges, with call groups, patterns and per-rank statistics.
- ``ClassPicker``: opreport profile classes: arrange sample files along an axis, pick the
  classes, read the report table and its chart.
- ``MergePanel``: hardware-event subexperiments merged with HRM or MUCH, with the merge's
  matrices, scores and merged table.
- ``ScalingView``: performance models (Extra-P's PMNF) fitted over runs at several scales,
  one curve per function.
- ``FlameGraph``: a calltree (or two, compared) as an icicle or flame graph;
  ``link(explorer, flame)`` makes a click in one reveal the node in the other.

All keep one contract (``_base.py``, docs/widgets.md "Contract"): ``error`` is the message of
the last failed action, a failed action keeps the previous view, and the same call from
Python raises the ``perfweave.errors`` exception.
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
    "FlameGraph": "perfweave.widgets.flame",
    "link": "perfweave.widgets._link",
    "live_widgets": "perfweave.widgets._base",
    "Step": "perfweave.calltree.steps",
    "replay": "perfweave.calltree.steps",
}

if TYPE_CHECKING:  # pragma: no cover
    from perfweave.calltree.steps import Step, replay  # noqa: F401
    from perfweave.widgets.explorer import CalltreeExplorer  # noqa: F401


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'perfweave.widgets' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public widget names, each once (loaded or not)."""
    return sorted(_LAZY)


__all__ = list(_LAZY)
