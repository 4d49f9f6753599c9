"""Image-level sample totals per application and per dependent image, in opreport's order.

Applications are sorted by their samples in the first class, descending; ties keep the
order of their image paths. Within an application the rows are its own image first, then
dependent images in the order they were first seen (by class, then file order), stably
sorted by first-class samples, descending. All sums are one groupby over the spec table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from perfweave.classes.arrange import ProfileClasses
from perfweave.classes.samplefile import sample_counts
from perfweave.errors import ShapeError


def load_samples(classes: ProfileClasses) -> ProfileClasses:
    """Classes whose table has a ``samples`` column read from the sample files themselves."""
    if "samples" in classes.table:
        return classes
    table = classes.table.copy()
    table["samples"] = sample_counts(table["filename"])
    return replace(classes, table=table)


@dataclass(frozen=True)
class ImageSummary:
    """Sample totals: ``apps`` (application x class) and ``images`` ((application, image) x class).

    Both frames are in print order; ``images`` has a row for every application's own image
    (possibly all zero) and ``is_app`` marks it; ``totals`` are the class totals.
    """

    apps: pd.DataFrame
    images: pd.DataFrame
    totals: np.ndarray
    n_classes: int

    def image_blocks(self) -> dict[str, pd.DataFrame]:
        """Per application (in print order) its image rows, own image included."""
        apps = self.images.index.get_level_values(0)
        starts = np.flatnonzero(np.r_[True, apps[1:] != apps[:-1]])
        bounds = np.r_[starts, len(apps)]
        return {apps[a]: self.images.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:])}


def summarize(classes: ProfileClasses) -> ImageSummary:
    """Sum the samples of ``classes`` per application and per (application, image)."""
    table = classes.table
    if "samples" not in table:
        raise ShapeError("the classes have no sample counts: call load_samples(classes) first")
    n = len(classes)
    cols = list(range(n))
    pos = np.arange(len(table), dtype=np.int64)
    frame = pd.DataFrame(
        {
            "app": table["app"].to_numpy(dtype=object),
            "binary": table["binary"].to_numpy(dtype=object),
            "class": table["class"].to_numpy(),
            "samples": table["samples"].to_numpy(dtype=np.int64),
            "seen": table["class"].to_numpy(dtype=np.int64) * max(len(table), 1) + pos,
        }
    )
    counts = (
        frame.groupby(["app", "binary", "class"])["samples"].sum().unstack("class", fill_value=0)
    )
    counts = counts.reindex(columns=cols, fill_value=0)
    seen = frame.groupby(["app", "binary"])["seen"].min()
    apps_index = pd.Index(pd.unique(frame["app"]), dtype=object)
    own = pd.MultiIndex.from_arrays([apps_index, apps_index], names=["app", "binary"])
    counts = counts.reindex(counts.index.union(own), fill_value=0)
    seen = seen.reindex(counts.index)
    is_app = counts.index.get_level_values(0) == counts.index.get_level_values(1)
    seen = seen.where(~is_app, -1).fillna(-1).astype(np.int64)

    app_counts = counts.groupby(level="app").sum()
    app_order = _order(app_counts[0].to_numpy(), np.arange(len(app_counts)))
    app_counts = app_counts.iloc[app_order]
    app_rank = pd.Series(np.arange(len(app_counts)), index=app_counts.index)

    rank = app_rank.reindex(counts.index.get_level_values(0)).to_numpy()
    first = counts[0].to_numpy()
    row_order = np.lexsort((seen.to_numpy(), -first, rank))
    images = counts.iloc[row_order]
    images.index = images.index.set_names(["application", "image"])
    images = images.assign(is_app=is_app[row_order])
    app_counts.index = app_counts.index.set_names("application")
    return ImageSummary(app_counts, images, app_counts[cols].sum().to_numpy(), n)


def _order(first_class: np.ndarray, tiebreak: np.ndarray) -> np.ndarray:
    """Descending by first-class samples, ties by ``tiebreak`` (a stable sort)."""
    return np.lexsort((tiebreak, -first_class))
