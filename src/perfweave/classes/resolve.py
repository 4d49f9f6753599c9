"""Ways out of an axis conflict: the merges (and event choices) that make classes valid.

opreport refuses classes that differ along two axes (an
:class:`~perfweave.errors.AxisConflict`) and suggests one fix in words. :func:`resolutions`
lists every way to show the same selection along one axis: for each axis, the other
thread/cpu axes merged (the way opreport's ``--merge`` does), keeping the unit-mask and
library choices; when several events make every non-event axis conflict, the same with the
selection cut to its first event. Each :class:`Resolution` is checked by arranging it, so
every one listed works; the first is the one with the fewest changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from perfweave.classes.arrange import arrange
from perfweave.classes.axis import AXES
from perfweave.classes.opreport_merge import MergeOptions
from perfweave.classes.spec_codes import SpecCodes
from perfweave.errors import AxisConflict, SpecError

#: the merge words that show the classes along each axis (the other thread/cpu axes)
AXIS_MERGES = {
    "event": ("cpu", "tgid"),
    "tgid": ("cpu", "tid"),
    "tid": ("cpu",),
    "cpu": ("tgid",),
}


@dataclass(frozen=True)
class Resolution:
    """One valid view of a selection: ``merge`` words, optionally ``event`` (a profile
    word like ``event:CPU_CLK_UNHALTED`` to add to the spec), and what it shows."""

    axis: str
    merge: MergeOptions
    event: str = ""
    n_classes: int = 0

    @property
    def words(self) -> list[str]:
        """Profile words to add to the spec (the event cut, if any)."""
        return [self.event] if self.event else []

    def describe(self) -> str:
        """``"2 classes along event (--merge=cpu,tgid)"``, naming the event cut if any."""
        many = "class" if self.n_classes == 1 else "classes"
        how = [f"--merge={self.merge}" if str(self.merge) else "no merge"]
        if self.event:
            how.insert(0, self.event)
        return f"{self.n_classes} {many} along {self.axis} ({', '.join(how)})"


def axis_merge(axis: str, merge: MergeOptions | str | Iterable[str] = ()) -> MergeOptions:
    """The merge that shows classes along ``axis``: the other thread/cpu axes merged,
    keeping ``merge``'s library and unit-mask words."""
    if axis not in AXIS_MERGES:
        raise SpecError(f"unknown axis {axis!r}; choose from {AXES}")
    merge = MergeOptions.parse(merge)
    keep = [w for w in ("lib", "unitmask") if getattr(merge, w)]
    return MergeOptions.parse([*AXIS_MERGES[axis], *keep])


def _changes(merge: MergeOptions, base: MergeOptions) -> int:
    flags = ("cpu", "tid", "tgid", "lib", "unitmask")
    return sum(getattr(merge, f) != getattr(base, f) for f in flags)


def resolutions(
    specs: SpecCodes,
    merge: MergeOptions | str | Iterable[str] = (),
    *,
    exclude_dependent: bool = False,
) -> list[Resolution]:
    """Every axis the selection ``specs`` can be shown along, fewest changes to ``merge``
    first (ties in opreport's axis order). Empty when nothing works (e.g. no files)."""
    base = MergeOptions.parse(merge)
    found: list[tuple[int, int, Resolution]] = []
    events = _first_event(specs)
    for order, axis in enumerate(AXES):
        m = axis_merge(axis, base)
        res = _try(specs, m, axis, exclude_dependent)
        cost = _changes(m, base)
        if res is None and axis != "event" and events is not None:
            word, rows = events
            res = _try(specs.take(rows), m, axis, exclude_dependent, word)
            cost += 2  # cutting the selection is a bigger change than a merge word
        if res is not None:
            found.append((cost, order, res))
    found.sort(key=lambda t: (t[0], t[1]))
    return [r for _, _, r in found]


def _try(
    specs: SpecCodes, merge: MergeOptions, axis: str, xdep: bool, event: str = ""
) -> Resolution | None:
    try:
        classes = arrange(specs, merge, exclude_dependent=xdep)
    except (AxisConflict, SpecError):
        return None
    if classes.axis != axis:
        return None
    return Resolution(axis, merge, event, len(classes))


def _first_event(specs: SpecCodes) -> tuple[str, np.ndarray] | None:
    """``event:NAME`` of the first file's event and the rows that have it, when the
    selection holds more than one event (else None)."""
    table = specs.table
    if len(table) == 0:
        return None
    events = table["event"].to_numpy(dtype=object)
    if (events == events[0]).all():
        return None
    return f"event:{events[0]}", np.flatnonzero(events == events[0])
