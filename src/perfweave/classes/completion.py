"""Completing profile specification words from the values present in the data.

:func:`complete` offers whole-line completions of the last word typed (a tag, or values of
the tag typed: ``tgid:1`` -> ``tgid:100``); :func:`hint` says in one line what may follow
(the tags, or the values of the tag typed). Both read a spec table
(:meth:`ClassSource.values <perfweave.classes.ClassSource.values>`), so what they offer is
what the data holds, numbers in numeric order.
"""

from __future__ import annotations

import pandas as pd

from perfweave.classes.profile_spec import TAGS
from perfweave.classes.source import text

#: the spec-table column each tag selects on
TAG_COLUMNS = {
    "event": "event",
    "count": "count",
    "unit-mask": "unitmask",
    "tgid": "tgid",
    "tid": "tid",
    "cpu": "cpu",
    "image": "image",
    "image-exclude": "image",
    "lib-image": "lib_image",
}

#: values listed in a hint before "... (N values)"
HINT_VALUES = 12

_NUMERIC = ("tgid", "tid", "cpu", "count", "unitmask")


def tag_values(tag: str, table: pd.DataFrame) -> list[str]:
    """The values of ``tag`` in ``table``, as text: numbers in numeric order, names sorted
    (``session`` offers ``current``; a tag without a column offers nothing)."""
    if tag == "session":
        return ["current"]
    col = TAG_COLUMNS.get(tag)
    if col is None or col not in table:
        return []
    vals = [text(v) for v in pd.unique(table[col].astype(object)) if v != ""]
    if col in _NUMERIC:
        return sorted(vals, key=lambda v: (not v.isdigit(), int(v) if v.isdigit() else 0, v))
    return sorted(vals)


def complete(typed: str, table: pd.DataFrame) -> list[str]:
    """Whole-line completions of the last word of ``typed``: tags, then values of the tag
    typed (after a comma, further values of the same tag)."""
    head, _, last = typed.rpartition(" ")
    prefix = head + " " if head else ""
    tag, sep, value = last.partition(":")
    if not sep:
        return [prefix + t + ":" for t in TAGS if t.startswith(tag)]
    done, _, partial = value.rpartition(",")
    start = f"{tag}:{done}," if done else f"{tag}:"
    return [prefix + start + v for v in tag_values(tag, table) if v.startswith(partial)]


def hint(typed: str, table: pd.DataFrame) -> str:
    """One line on what may follow ``typed``: the values of the tag being typed (the first
    :data:`HINT_VALUES`, and how many there are), else every tag."""
    last = typed.rpartition(" ")[2]
    tag, sep, _ = last.partition(":")
    if sep and tag in TAGS:
        vals = tag_values(tag, table)
        if not vals:
            return f"{tag}: (no values listed)"
        more = f" ... ({len(vals)} values)" if len(vals) > HINT_VALUES else ""
        return f"{tag}: " + ", ".join(vals[:HINT_VALUES]) + more
    return "tags: " + " ".join(TAGS) + "  (other words name images or libraries)"
