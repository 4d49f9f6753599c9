"""The columnar report as a DataFrame: samples and percent per class column.

``by="application"``: one row per application, percent of the class total (opreport's
unindented rows). ``by="image"``: one row per (application, image), percent of the
application's samples (opreport's indented rows). ``by="symbol"``: one row per
(application, image, symbol) where the data has symbols (perf). ``by="address"``: one row
per (application, image, sample offset) read from OProfile sample files, percent of the
class total, as ``opreport -l`` counts per symbol (naming the offsets needs the binaries'
symbol tables, e.g. ``nm``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfweave.classes.arrange import ProfileClasses
from perfweave.classes.samplefile import read_samples
from perfweave.classes.summary import summarize
from perfweave.errors import ArgumentError, FormatError


def column_labels(classes: ProfileClasses) -> list[str]:
    """Class names made unique (two unit masks of one event share a name in opreport)."""
    names = classes.names
    repeats = Counter(names)
    return [n if repeats[n] == 1 else f"{n} [{i}]" for i, n in enumerate(names)]


@dataclass(frozen=True)
class ReportArrays:
    """The columnar report as arrays: ``index`` (the row names), ``labels`` (one per class),
    ``samples`` (rows x classes, int64) and ``percent`` (rows x classes, float64).

    :meth:`frame` is :func:`report`'s DataFrame; a view that shows the numbers (a widget
    table) uses the arrays as they are instead of taking them back out of the frame.
    """

    index: pd.Index
    labels: list[str]
    samples: np.ndarray
    percent: np.ndarray

    def frame(self) -> pd.DataFrame:
        """``(label, "samples")`` and ``(label, "percent")`` per class, interleaved (the
        columns are views of the two arrays: no per-column copy)."""
        n = len(self.labels)
        data = {}
        for k in range(n):
            data[2 * k] = self.samples[:, k]
            data[2 * k + 1] = self.percent[:, k]
        frame = pd.DataFrame(data, columns=range(2 * n), copy=False)
        frame.index = self.index
        frame.columns = pd.MultiIndex.from_arrays(
            [np.repeat(np.asarray(self.labels, dtype=object), 2), ["samples", "percent"] * n],
            names=["class", "value"],
        )
        return frame


def _arrays(
    counts: np.ndarray, totals: np.ndarray, labels: list[str], index: pd.Index
) -> ReportArrays:
    counts = np.asarray(counts, dtype=np.int64).reshape(-1, len(labels))
    with np.errstate(divide="ignore", invalid="ignore"):
        pct = np.where(totals > 0, counts * 100.0 / np.where(totals > 0, totals, 1), 0.0)
    return ReportArrays(index, labels, counts, pct)


def report(classes: ProfileClasses, by: str = "image") -> pd.DataFrame:
    """Samples and percent per class, by ``"application"``, ``"image"``, ``"symbol"`` or
    ``"address"`` (see the module docstring)."""
    return report_arrays(classes, by).frame()


def report_arrays(classes: ProfileClasses, by: str = "image") -> ReportArrays:
    """:func:`report` as :class:`ReportArrays` (the same numbers, before the DataFrame)."""
    labels = column_labels(classes)
    n = len(classes)
    if by == "symbol":
        return _symbol_report(classes, labels)
    if by == "address":
        return _address_report(classes, labels)
    if by not in ("application", "image"):
        raise ArgumentError(f"by must be 'application', 'image', 'symbol' or 'address', not {by!r}")
    summary = summarize(classes)
    if by == "application":
        counts = summary.apps[list(range(n))].to_numpy()
        return _arrays(counts, summary.totals[None, :], labels, summary.apps.index)
    images = summary.images
    counts = images[list(range(n))].to_numpy()
    apps = images.index.get_level_values(0)
    app_totals = summary.apps[list(range(n))].reindex(apps).to_numpy()
    return _arrays(counts, app_totals, labels, images.index)


def _address_report(classes: ProfileClasses, labels: list[str]) -> ReportArrays:
    table = classes.table
    nodes = [read_samples(path)[1] for path in table["filename"]]
    sizes = np.array([len(n) for n in nodes], dtype=np.int64)
    rows = np.repeat(np.arange(len(table)), sizes)
    keys = np.concatenate([n["key"] for n in nodes]) if nodes else np.array([], np.uint64)
    values = np.concatenate([n["value"] for n in nodes]) if nodes else np.array([], np.uint32)
    frame = pd.DataFrame(
        {
            "app": table["app"].to_numpy(dtype=object)[rows],
            "binary": table["binary"].to_numpy(dtype=object)[rows],
            "address": keys.astype(np.int64),
            "class": table["class"].to_numpy()[rows],
            "samples": values.astype(np.int64),
        }
    )
    sums = (
        frame.groupby(["app", "binary", "address", "class"])["samples"]
        .sum()
        .unstack("class", fill_value=0)
        .reindex(columns=range(len(labels)), fill_value=0)
    )
    order = np.lexsort((np.arange(len(sums)), -sums[0].to_numpy()))
    sums = sums.iloc[order]
    totals = frame.groupby("class")["samples"].sum().reindex(range(len(labels)), fill_value=0)
    index = sums.index.set_names(["application", "image", "address"])
    return _arrays(sums.to_numpy(), totals.to_numpy()[None, :], labels, index)


def _symbol_report(classes: ProfileClasses, labels: list[str]) -> ReportArrays:
    table = classes.table
    if "symbol" not in table:
        raise FormatError(
            "a symbol-level report needs symbol names per sample (perf data); OProfile "
            "sample files hold offsets that only the profiled binaries can name"
        )
    sums = (
        table.groupby(["app", "binary", "symbol", "class"])["samples"]
        .sum()
        .unstack("class", fill_value=0)
        .reindex(columns=range(len(labels)), fill_value=0)
    )
    order = np.lexsort((np.arange(len(sums)), -sums[0].to_numpy()))
    sums = sums.iloc[order]
    totals = table.groupby("class")["samples"].sum().reindex(range(len(labels)), fill_value=0)
    index = sums.index.set_names(["application", "image", "symbol"])
    return _arrays(sums.to_numpy(), totals.to_numpy()[None, :], labels, index)
