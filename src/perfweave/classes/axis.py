"""Which single axis the profile classes differ along, and what to call each class.

Axes, in opreport's order: ``event`` (event name, count or, unless merged, unit mask),
``tgid``, ``tid``, ``cpu``. One class means the event axis. Classes may differ along two
axes only when those are tgid and tid and every class has tgid == tid (then tid wins);
anything else is an :class:`~perfweave.errors.AxisConflict` worded as opreport words it.
"""

from __future__ import annotations

import pandas as pd

from perfweave.classes.opreport_merge import MergeOptions
from perfweave.errors import AxisConflict

AXES = ("event", "tgid", "tid", "cpu")
SUGGESTIONS = {
    "event": "specify event:, count: or unitmask: (see also --merge=unitmask)",
    "tgid": "specify tgid: or --merge tgid",
    "tid": "specify tid: or --merge tid",
    "cpu": "specify cpu: or --merge cpu",
}


def changed_axes(templates: pd.DataFrame, merge: MergeOptions) -> list[str]:
    """Axes along which some class template differs from the first one, in axis order."""
    if len(templates) <= 1:
        return ["event"]
    first = templates.iloc[0]
    rest = templates.iloc[1:]

    def differs(col: str) -> bool:
        return bool((rest[col] != first[col]).any())

    changed = {
        "event": differs("event")
        or differs("count")
        or (not merge.unitmask and differs("unitmask")),
        "tgid": not merge.tgid and differs("tgid"),
        "tid": not merge.tid and differs("tid"),
        "cpu": not merge.cpu and differs("cpu"),
    }
    return [a for a in AXES if changed[a]]


def class_names(templates: pd.DataFrame, axis: str) -> list[str]:
    """Short class names: ``EVENT:COUNT`` on the event axis, else ``axis:value``."""
    if axis == "event":
        return (templates["event"] + ":" + templates["count"]).tolist()
    return (axis + ":" + templates[axis]).tolist()


def class_longnames(templates: pd.DataFrame, axis: str) -> list[str] | None:
    """Long names for the tgid / tid / cpu axes (the event axis needs sample headers)."""
    prefix = {
        "tgid": "Processes with a thread group ID of ",
        "tid": "Processes with a thread ID of ",
        "cpu": "Samples on CPU ",
    }.get(axis)
    return None if prefix is None else (prefix + templates[axis]).tolist()


def conflict_message(names: list[str], axis: str, new_axis: str) -> str:
    """opreport's text for classes split along ``axis`` that also differ along ``new_axis``.

    The values list the first five distinct class names, then ``, and N more,`` where N
    counts all classes beyond five (distinct or not), exactly as opreport counts.
    """
    shown: list[str] = []
    for name in names:
        if len(shown) == 5:
            break
        if name not in shown:
            shown.append(name)
    text = f"Already displaying results for parameter {axis} with values:\n"
    text += "".join(n + "," for n in shown)
    if len(shown) == 5:
        text += f" and {len(names) - 5} more,"
    text += f"\nwhich conflicts with parameter {new_axis}.\nSuggestion: {SUGGESTIONS[axis]}"
    return text


def identify_axis(templates: pd.DataFrame, merge: MergeOptions) -> tuple[str, list[str]]:
    """The axis of the sorted class ``templates`` and the class names (or AxisConflict)."""
    axis: str | None = None
    names: list[str] = []
    for new_axis in changed_axes(templates, merge):
        if axis is not None:
            pair_ok = {axis, new_axis} <= {"tgid", "tid"} and bool(
                (templates["tgid"] == templates["tid"]).all()
            )
            if not pair_ok:
                raise AxisConflict(conflict_message(names, axis, new_axis))
        axis = new_axis
        names = class_names(templates, axis)
    assert axis is not None  # changed_axes never returns an empty list for >= 1 class
    return axis, names
