"""Image-level sample totals per application and per dependent image, in opreport's order.

Applications are sorted by their samples in the first class, descending; ties keep the
order of their image paths. Within an application the rows are its own image first, then
dependent images in the order they were first seen (by class, then file order), stably
sorted by first-class samples, descending. All sums are one weighted ``bincount`` over
integer codes of (application, image, class); names are looked up for the result rows only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from perfweave.classes._groups import int_bincount, min_per_id, sorted_codes
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
    """Sum the samples of ``classes`` per application and per (application, image).

    One weighted ``bincount`` over integer codes of (application, image, class); names are
    only looked up for the rows of the result.
    """
    table = classes.table
    if "samples" not in table:
        raise ShapeError("the classes have no sample counts: call load_samples(classes) first")
    n = len(classes)
    cols = list(range(n))
    codes = classes.row_codes()
    width = max(len(codes.names), 1)
    cls = table["class"].to_numpy(dtype=np.int64)
    samples = table["samples"].to_numpy(dtype=np.int64)
    # every (application, image) pair with samples, plus each application's own image
    apps = np.sort(pd.unique(codes.app))
    pair_of_row = codes.app * width + codes.binary
    inverse, pairs = sorted_codes(np.concatenate([pair_of_row, apps * width + apps]))
    inverse = inverse[: len(table)]
    counts = int_bincount(inverse * n + cls, samples, len(pairs) * n).reshape(len(pairs), n)
    # first seen: the smallest (class, file position) of the pair; own images come first
    seen = min_per_id(inverse, cls * max(len(table), 1) + np.arange(len(table)), len(pairs))
    pair_app, pair_binary = pairs // width, pairs % width
    is_app = pair_app == pair_binary
    seen[is_app] = -1

    # applications: descending by first-class samples, ties by name (codes are sorted)
    app_at = np.searchsorted(apps, pair_app)
    app_sums = np.zeros((len(apps), n), dtype=np.int64)
    np.add.at(app_sums, app_at, counts)
    app_order = _order(app_sums[:, 0] if n else np.zeros(len(apps)), np.arange(len(apps)))
    rank = np.empty(len(apps), dtype=np.int64)
    rank[app_order] = np.arange(len(apps))
    first = counts[:, 0] if n else np.zeros(len(pairs), dtype=np.int64)
    row_order = np.lexsort((seen, -first, rank[app_at]))

    names = codes.names
    app_index = pd.Index(names[apps[app_order]], dtype=object, name="application")
    app_counts = pd.DataFrame(app_sums[app_order], index=app_index, columns=cols)
    index = pd.MultiIndex.from_arrays(
        [
            pd.Index(names[pair_app[row_order]], dtype=object),
            pd.Index(names[pair_binary[row_order]], dtype=object),
        ],
        names=["application", "image"],
    )
    images = pd.DataFrame(counts[row_order], index=index, columns=cols)
    images["is_app"] = is_app[row_order]
    return ImageSummary(app_counts, images, app_sums.sum(axis=0), n)


def _order(first_class: np.ndarray, tiebreak: np.ndarray) -> np.ndarray:
    """Descending by first-class samples, ties by ``tiebreak`` (a stable sort)."""
    return np.lexsort((tiebreak, -first_class))
