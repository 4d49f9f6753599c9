"""The tutorial notebooks under test, and what each is built to show."""

from __future__ import annotations

from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

#: notebook -> widgets its cells display: perfweave widgets by class name, plus "bqplot" for the
#: figures the notebook draws itself (widgets' own bqplot charts are not counted)
SHOWN: dict[str, dict[str, int]] = {
    "00_tour": {
        "CalltreeExplorer": 2,
        "ScalingView": 1,
        "CountMatrixHeatmap": 1,
        "ClassPicker": 1,
        "MergePanel": 1,
        "FlameGraph": 1,
    },
    "01_calltrees": {"CalltreeExplorer": 1, "FlameGraph": 1, "bqplot": 1},
    "02_ensembles": {"CalltreeExplorer": 1, "ScalingView": 1, "FlameGraph": 2, "bqplot": 2},
    "03_alltoallv_counts": {"CountMatrixHeatmap": 2, "CalltreeExplorer": 1, "bqplot": 2},
    "04_opreport_classes": {"ClassPicker": 2, "bqplot": 1},
    "05_hem_merging": {"MergePanel": 1, "bqplot": 1},
}


def notebook_path(name: str) -> Path:
    """The committed notebook ``name`` (without ``.ipynb``)."""
    return NOTEBOOKS / f"{name}.ipynb"
