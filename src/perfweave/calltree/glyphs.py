"""What a calltree view draws beside each row: the spread of the node's values.

For an ensemble, each profile's value of the node (:func:`profile_matrix`), the profiles
coloured by a metadata column (:func:`profile_categories`); for a frame with ranks/threads,
each rank's (or thread's) value with the excess and imbalance columns
(:class:`RankView`, over :func:`perfweave.calltree.ranks.spread_of`). :func:`quartiles` gives
the box a row's glyph draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.column_names import excess_name, imbalance_name
from perfweave.calltree.numbers import column_format, format_quantity
from perfweave.calltree.ranks import (
    RankSpread,
    check_across,
    profile_means,
    rank_cells,
    spread_of,
)
from perfweave.calltree.view_columns import Column
from perfweave.errors import ShapeError


def profile_matrix(ens: Any, metric: str) -> np.ndarray:
    """(nodes, profiles) values of ``metric`` of an ensemble: each profile's mean over its
    ranks/threads (calltree.ranks.profile_means); NaN where a profile lacks the node."""
    return profile_means(ens.dataframe, len(ens.graph), list(ens.profiles), metric)


def profile_categories(ens: Any, color_by: str | None) -> tuple[np.ndarray, list[str]]:
    """Category code of each profile for a metadata column, and the category names
    (numbers in numeric order: 27 < 64 < 125, not "125" < "27" < "64")."""
    p = len(ens.profiles)
    if color_by is None:
        return np.zeros(p, np.int32), []
    if color_by not in ens.metadata.columns:
        raise ShapeError(
            f"no metadata column {color_by!r}; columns: {', '.join(map(str, ens.metadata.columns))}"
        )
    values = ens.metadata[color_by]
    numbers = pd.to_numeric(values, errors="coerce")
    if numbers.notna().all():
        codes, uniques = pd.factorize(numbers, sort=True)
        labels = [values[numbers == u].astype(str).iloc[0] for u in uniques]
        return codes.astype(np.int32), labels
    codes, names = pd.factorize(values.astype(str), sort=True)
    return codes.astype(np.int32), [str(x) for x in names]


def category_columns(ens: Any, most: int = 12) -> list[str]:
    """Metadata columns that split the profiles into 2..``most`` groups (colour choices)."""
    out = []
    for col in ens.metadata.columns:
        values = ens.metadata[col]
        if values.map(lambda v: isinstance(v, (list, dict, set))).any():
            continue
        if 2 <= values.astype(str).nunique() <= most:
            out.append(str(col))
    return out


def quartiles(matrix: np.ndarray) -> np.ndarray:
    """(rows, 5): min, q1, median, q3, max of each row over its non-NaN values."""
    out = np.full((len(matrix), 5), np.nan)
    if matrix.size:
        ok = ~np.all(np.isnan(matrix), axis=1)
        if ok.any():
            with np.errstate(all="ignore"):
                out[ok] = np.nanquantile(matrix[ok], [0, 0.25, 0.5, 0.75, 1], axis=1).T
    return out


@dataclass(frozen=True)
class RankView:
    """A frame's spread over ranks (threads summed) or threads: the glyph's matrix, the
    excess and imbalance columns (calltree.ranks.rank_spread, as load_imbalance)."""

    spread: RankSpread
    unit: str = ""  # the metric's unit (GraphFrame.unit_of)

    @classmethod
    def of(
        cls, gf: Any, metric: str, matrices: dict | None = None, across: str | None = None
    ) -> RankView | None:
        """None for a frame without rank/thread levels (``matrices``: node_table's cells,
        reused when they compare the same units)."""
        if not gf.index_levels:
            return None
        across = check_across(gf.index_levels, across)
        cells = (matrices or {}).get("")
        same = cells is not None and metric in cells.values
        if not (same and (cells.across == across or len(gf.index_levels) == 1)):
            cells = rank_cells(gf, [metric], across)
        return cls(spread_of(cells, metric), gf.unit_of(metric))

    @property
    def metric(self) -> str:
        return self.spread.metric

    @property
    def matrix(self) -> np.ndarray:
        return self.spread.matrix

    @property
    def labels(self) -> list[str]:
        return self.spread.cells.labels

    @property
    def imbalance(self) -> np.ndarray:
        return self.spread.imbalance

    @property
    def columns(self) -> list[Column]:
        """The excess (max - mean, in the metric's unit) and the imbalance (max / mean),
        headers saying what is compared."""
        what = self.spread.what
        return [
            Column(excess_name(self.metric), f"{self.metric} excess ({what})", "excess", self.unit),
            Column(imbalance_name(self.metric), f"{self.metric} imbalance ({what})", "ratio"),
        ]

    def table(self) -> dict[str, np.ndarray]:
        return {
            excess_name(self.metric): self.spread.excess,
            imbalance_name(self.metric): self.spread.imbalance,
        }

    def glyph_state(self) -> dict[str, Any]:
        """What the glyph's legend and tooltips say (the ensemble's keys, filled for ranks)."""
        return {
            "metric": self.metric,
            "unit": self.unit,
            "stat": "",
            "what": self.spread.cells.noun,
            "profiles": list(self.labels),
            "color_by": "",
            "categories": [],
            "codes": [0] * len(self.labels),
            "stats": [],
            "color_columns": [],
        }

    def top(self, node: int, name: str, most: int = 5) -> dict[str, Any]:
        """The details of a selected node: its ``most`` largest units, largest first."""
        spread = self.spread
        measured = spread.cells.measured[self.metric][node]
        row = self.matrix[node]
        ok = np.flatnonzero(measured & ~np.isnan(row))
        if not len(ok):
            return {}
        order = ok[np.argsort(-row[ok], kind="stable")][:most]
        mean = float(spread.mean[node])
        unit = self.unit
        fmt = column_format(row[order], unit)  # the lines are a column: one format
        lines = [f"{self.labels[i]}: {fmt.text(row[i])}{_times(row[i], mean)}" for i in order]
        cells = spread.cells
        units = len(self.labels)
        title = f"{name}: {self.metric} on its {units} {cells.noun}"
        if cells.noun == "ranks" and len(cells.levels) > 1:
            title += (
                ", threads summed" if cells.levels == ["rank", "thread"] else f" ({spread.what})"
            )
        if len(ok) < units:
            title += f" ({len(ok)} measured, the others 0)"
        title += ", largest first"
        if np.isfinite(spread.excess[node]) and np.isfinite(spread.imbalance[node]):
            title += (
                f" (excess {format_quantity(spread.excess[node], unit)}, imbalance "
                f"{spread.imbalance[node]:.2f}, efficiency {spread.efficiency[node]:.2f})"
            )
        return {"title": title, "lines": lines}


def _times(v: float, mean: float) -> str:
    return f" ({v / mean:.2f}× the mean)" if mean else ""
