"""Invert profile classes: one entry per binary to open, for all classes and applications.

A report that needs the binaries (symbols, source) opens each image once: ``libc.so.6`` is
read once for every program that used it. :func:`invert` turns classes of applications into
binaries, each with, per class, the ``(application image, files)`` sets that fell in it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfweave.classes._groups import int_bincount, min_per_id, sorted_codes
from perfweave.classes.arrange import ProfileClasses, groups_in_order


@dataclass(frozen=True)
class ImageSet:
    """The files of one application whose samples fell in the binary."""

    app_image: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class InvertedProfile:
    """One binary and, per class (report column), the application sets that used it."""

    image: str
    groups: tuple[tuple[ImageSet, ...], ...]

    @property
    def applications(self) -> list[str]:
        """Applications with samples in this binary, in first-seen order."""
        seen: dict[str, None] = {}
        for group in self.groups:
            for s in group:
                seen.setdefault(s.app_image, None)
        return list(seen)


def invert(classes: ProfileClasses) -> list[InvertedProfile]:
    """One :class:`InvertedProfile` per binary, sorted by binary path (as opreport does)."""
    table = classes.table
    if table.empty:
        return []
    n_classes = len(classes)
    # applications keep their profile-set order within each class (first appearance)
    app_rank = table.groupby(["class", "app"], sort=False).ngroup().to_numpy()
    order = np.lexsort((app_rank, table["class"].to_numpy()))
    ordered = table.iloc[order]
    files = ordered["filename"].to_numpy(dtype=object)
    groups = groups_in_order(ordered, ["binary", "class", "app"])
    by_binary: dict[str, list[list[ImageSet]]] = {}
    for (binary, cls, app), rows in groups:
        slots = by_binary.setdefault(binary, [[] for _ in range(n_classes)])
        slots[cls].append(ImageSet(app, tuple(files[rows])))
    return [
        InvertedProfile(binary, tuple(tuple(g) for g in by_binary[binary]))
        for binary in sorted(by_binary)
    ]


def invert_table(classes: ProfileClasses) -> pd.DataFrame:
    """The inverted view as one table: a row per (binary, application that used it).

    Rows follow :func:`invert`: binaries sorted by path, each binary's applications in
    :attr:`InvertedProfile.applications` order. Columns ``(class, "files")`` and, when the
    classes carry sample counts, ``(class, "samples")``; ``(class, "percent")`` is the
    application's share of the binary's samples (of its files without counts) in the class.
    Integer sums over codes: no per-file Python loop.
    """
    from perfweave.classes.report import column_labels

    table = classes.table
    labels = column_labels(classes)
    n = len(classes)
    codes = classes.row_codes()
    width = max(len(codes.names), 1)
    cls = table["class"].to_numpy(dtype=np.int64)
    # applications in their order of first appearance in each class (as invert orders them)
    app_rank = table.groupby(["class", "app"], sort=False).ngroup().to_numpy(dtype=np.int64)
    seen_key = cls * max(len(table), 1) + app_rank
    inverse, pairs = sorted_codes(codes.binary * width + codes.app)
    seen = min_per_id(inverse, seen_key, len(pairs))
    binary, app = pairs // width, pairs % width
    order = np.lexsort((seen, binary))  # names are sorted codes: binary order is path order
    slot = inverse * n + cls
    files = np.bincount(slot, minlength=len(pairs) * n).reshape(len(pairs), n)[order]
    binary, app = binary[order], app[order]
    values = {"files": files}
    if "samples" in table:
        samples = table["samples"].to_numpy(dtype=np.int64)
        values["samples"] = int_bincount(slot, samples, len(pairs) * n).reshape(-1, n)[order]
    base = values.get("samples", files)
    starts = np.flatnonzero(np.r_[True, binary[1:] != binary[:-1]]) if len(binary) else []
    per_binary = np.add.reduceat(base, starts, axis=0) if len(binary) else base
    totals = np.repeat(per_binary, np.diff(np.r_[starts, len(binary)]), axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        values["percent"] = np.where(totals > 0, base * 100.0 / np.maximum(totals, 1), 0.0)
    data = {
        (label, kind): arr[:, k] for k, label in enumerate(labels) for kind, arr in values.items()
    }
    out = pd.DataFrame(
        data,
        index=pd.MultiIndex.from_arrays(
            [pd.Index(codes.names[binary], dtype=object), pd.Index(codes.names[app], dtype=object)],
            names=["binary", "application"],
        ),
    )
    out.columns = pd.MultiIndex.from_tuples(list(data), names=["class", "value"])
    return out
