"""perfweave: merge many partial performance profiles into one coherent view.

The public API is re-exported here. Names are loaded on first use, so ``import perfweave``
stays fast and the widget stack is never imported by the analysis core.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from perfweave import errors

__version__ = "0.1.0"

# public name -> module that defines it (imported lazily on first attribute access)
_LAZY: dict[str, str] = {
    # calltree core
    "Frame": "perfweave.calltree.frame",
    "Node": "perfweave.calltree.graph",
    "Graph": "perfweave.calltree.graph",
    "GraphFrame": "perfweave.calltree.graphframe",
    "read": "perfweave.calltree.readers",
    "PathQuery": "perfweave.calltree.path_query",
    "path_query": "perfweave.calltree.path_query",
    "CalltreeStudy": "perfweave.calltree",
    "Ensemble": "perfweave.ensemble",
    "read_timeseries": "perfweave.ensemble.timeseries",
    # flame graphs: measured (a statistic, or two sides compared) and predicted by models
    "MeasuredFlame": "perfweave.calltree.flame",
    "PredictedFlame": "perfweave.scaling.flame",
    # performance models (Extra-P's single- and multi-parameter PMNF)
    "fit_models": "perfweave.scaling",
    "fit_model": "perfweave.scaling",
    "ScalingStudy": "perfweave.scaling",
    # count matrices
    "CountsProfile": "perfweave.counts",
    "CallGroup": "perfweave.counts",
    "CountMatrix": "perfweave.counts",
    "read_counts": "perfweave.counts",
    "CallGroupStudy": "perfweave.counts",
    # profile classes (opreport)
    "SampleSpec": "perfweave.classes",
    "ProfileClasses": "perfweave.classes",
    "arrange": "perfweave.classes",
    "invert": "perfweave.classes",
    "opreport": "perfweave.classes",
    "ClassStudy": "perfweave.classes",
    # HEM merging (mergingTools)
    "process_raw_experiments": "perfweave.merge",
    "hrm_merge": "perfweave.merge",
    "much_merge": "perfweave.merge",
    "MuchMerger": "perfweave.merge",
    "pair_covering_design": "perfweave.merge",
    "MergeStudy": "perfweave.merge",
    # widgets (the widget stack is imported only when one is used)
    "CalltreeExplorer": "perfweave.widgets",
    "MergePanel": "perfweave.widgets",
    "ClassPicker": "perfweave.widgets",
    "CountMatrixHeatmap": "perfweave.widgets",
    "ScalingView": "perfweave.widgets",
    "FlameGraph": "perfweave.widgets",
    "link": "perfweave.widgets",
}

_SUBPACKAGES = (
    "calltree",
    "ensemble",
    "scaling",
    "counts",
    "classes",
    "merge",
    "widgets",
    "cli",
    "datasets",
)

if TYPE_CHECKING:  # pragma: no cover
    from perfweave.calltree.frame import Frame  # noqa: F401
    from perfweave.calltree.graph import Graph, Node  # noqa: F401
    from perfweave.calltree.graphframe import GraphFrame  # noqa: F401
    from perfweave.calltree.readers import read  # noqa: F401


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBPACKAGES:
        return importlib.import_module(f"perfweave.{name}")
    raise AttributeError(f"module 'perfweave' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public API only: what ``__all__`` names, and the subpackages (no helper imports
    of this module, each name once even after it was loaded)."""
    return sorted({*__all__, *_SUBPACKAGES})


__all__ = ["__version__", "errors", *_LAZY]
