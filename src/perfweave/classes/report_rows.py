"""A report table as arrays, and the row orders a filter and a sort give it.

:class:`ReportRows` holds a report-shaped table (the columnar report, or the inverted view)
as key columns (names per row) and two numbers per class (samples and a percentage). It
is built once per report; a name filter or a sort only computes an order of row positions
(:meth:`ReportRows.order`), so a view of 100,000 rows re-filters without copying a row.
:meth:`ReportRows.frame` gives the rows as the flat DataFrame a table shows, and
:func:`top_images` the images with most samples in one class (a chart's bars).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from perfweave.classes.report import ReportArrays
from perfweave.classes.source import text


class ReportRows:
    """Key columns (label -> names per row), class names, and per row x class two numbers:
    ``samples`` (int64) and ``pct`` (float64), called ``values`` (``("samples", "%")``)."""

    def __init__(
        self,
        keys: dict[str, np.ndarray],
        classes: list[str],
        samples: np.ndarray,
        pct: np.ndarray,
        values: tuple[str, str] = ("samples", "%"),
    ) -> None:
        self.keys = keys
        self.classes = classes
        self.samples = samples
        self.pct = pct
        self.values = values

    @classmethod
    def of(
        cls, frame: pd.DataFrame, values: tuple[str, str] = ("samples", "percent")
    ) -> ReportRows:
        """From a frame with a (class, value) column MultiIndex and names in its index
        (:func:`~perfweave.classes.invert_table`); ``values`` name the two numbers there."""
        classes = [str(c) for c in dict.fromkeys(frame.columns.get_level_values(0))]
        samples = frame.xs(values[0], axis=1, level=1).to_numpy(dtype=np.int64)
        pct = frame.xs(values[1], axis=1, level=1).to_numpy(dtype=np.float64)
        return cls(_index_keys(frame.index), classes, samples, pct, (values[0], "%"))

    @classmethod
    def of_arrays(cls, rep: ReportArrays) -> ReportRows:
        """From the report's arrays (names from the index levels, numbers used as they are)."""
        return cls(_index_keys(rep.index), [str(c) for c in rep.labels], rep.samples, rep.percent)

    def __len__(self) -> int:
        return len(self.samples)

    def columns(self) -> list[str]:
        """Column names as the flat table has them: keys, then ``"<class> <value>"``."""
        a, b = self.values
        out = list(self.keys)
        for c in self.classes:
            out += [f"{c} {a}", f"{c} {b}"]
        return out

    def order(self, needle: str = "", sort: tuple[str, bool] | None = None) -> np.ndarray:
        """Row positions kept by the filter ``needle`` (case-insensitive, in any key), sorted
        by ``(column, descending)`` (stable: ties keep the report's order)."""
        rows = np.arange(len(self), dtype=np.int64)
        if needle:
            low = needle.lower()
            hit = np.zeros(len(self), dtype=bool)
            for values in self.keys.values():
                codes, uniques = pd.factorize(values)
                found = np.array([low in text(u).lower() for u in uniques] + [False])
                hit |= found[codes]
            rows = rows[hit]
        if sort is not None:
            col, desc = sort
            key = self._sort_key(col)
            if key is not None:
                k = key[rows]
                rows = rows[np.argsort(-k if desc else k, kind="stable")]
        return rows

    def _sort_key(self, column: str) -> np.ndarray | None:
        if column in self.keys:
            return pd.factorize(self.keys[column], sort=True)[0].astype(np.float64)
        a, b = self.values
        for j, c in enumerate(self.classes):
            if column == f"{c} {a}":
                return self.samples[:, j].astype(np.float64)
            if column == f"{c} {b}":
                return self.pct[:, j]
        return None

    def frame(self, rows: np.ndarray | None = None) -> pd.DataFrame:
        """The rows (all, or ``rows``) as a flat DataFrame with :meth:`columns`."""
        rows = np.arange(len(self)) if rows is None else rows
        data: dict[str, Any] = {k: v[rows] for k, v in self.keys.items()}
        a, b = self.values
        for j, c in enumerate(self.classes):
            data[f"{c} {a}"] = self.samples[rows, j]
            data[f"{c} {b}"] = self.pct[rows, j]
        return pd.DataFrame(data, columns=self.columns())


def _index_keys(index: pd.Index) -> dict[str, np.ndarray]:
    return {
        str(name): index.get_level_values(i).to_numpy(dtype=object)
        for i, name in enumerate(index.names)
    }


def top_images(
    rows: ReportRows, n: int, k: int, kept: np.ndarray | None = None
) -> tuple[list[str], np.ndarray]:
    """The ``n`` images with most samples in class ``k`` (report column order) among the
    row positions ``kept`` (all by default) and those samples, largest first (images
    without samples in that class left out; ties in the order the report first lists them)."""
    level = "image" if "image" in rows.keys else next(iter(rows.keys))
    keys = rows.keys[level] if kept is None else rows.keys[level][kept]
    samples = rows.samples[:, k] if kept is None else rows.samples[kept, k]
    codes, names = pd.factorize(keys)
    per_image = np.bincount(codes, weights=samples, minlength=len(names)).astype(np.int64)
    nonzero = np.flatnonzero(per_image > 0)
    top = nonzero[np.argsort(-per_image[nonzero], kind="stable")[:n]]
    return [str(names[i]) for i in top], per_image[top]
