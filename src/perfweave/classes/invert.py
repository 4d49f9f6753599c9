"""Invert profile classes: one entry per binary to open, for all classes and applications.

A report that needs the binaries (symbols, source) opens each image once: ``libc.so.6`` is
read once for every program that used it. :func:`invert` turns classes of applications into
binaries, each with, per class, the ``(application image, files)`` sets that fell in it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
