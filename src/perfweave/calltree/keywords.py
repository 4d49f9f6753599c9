"""Hatchet's and Thicket's keyword names for arguments perfweave names otherwise.

A Hatchet user types ``filter(filter_obj=..., update_inc_cols=False)`` or
``groupby_aggregate(groupby_function=..., agg_function=...)``, a Thicket user
``filter_metadata(select_function=...)``; the GraphFrame and Ensemble methods take those
names beside perfweave's own and resolve them here, once: either name gives the value,
both with different values is an :class:`~perfweave.errors.ArgumentError`.
"""

from __future__ import annotations

from typing import Any

from perfweave.errors import ArgumentError, ArgumentTypeError

#: perfweave's and Hatchet's (and Thicket's) names of a squash's inclusive-column update
UPDATE_INC = {
    "name": "update_inclusive_columns",
    "hatchet_name": "update_inc_cols",
    "default": True,
}


def alias(call: str, name: str, value: Any, hatchet_name: str, hatchet_value: Any) -> Any:
    """The value of an argument given as ``name`` or as Hatchet's ``hatchet_name`` (None
    meaning not given)."""
    if hatchet_value is None:
        return value
    if value is not None and value is not hatchet_value:
        raise ArgumentError(
            f"{call}(): {name}= and Hatchet's {hatchet_name}= are the same argument; "
            "give one of them"
        )
    return hatchet_value


def required(call: str, name: str, value: Any, other_name: str, other_value: Any) -> Any:
    """:func:`alias` of an argument the call cannot do without."""
    value = alias(call, name, value, other_name, other_value)
    if value is None:
        raise ArgumentTypeError(f"{call}() needs {name}= (or {other_name}=)")
    return value


def flag(
    call: str,
    value: bool,
    hatchet_value: bool | None,
    *,
    name: str,
    hatchet_name: str,
    default: bool,
) -> bool:
    """A boolean given as perfweave's ``name`` (``value``, ``default`` when not given) or
    as Hatchet's ``hatchet_name`` (``hatchet_value``, None when not given)."""
    if hatchet_value is None:
        return bool(value)
    if bool(value) != default and bool(value) != bool(hatchet_value):
        raise ArgumentError(
            f"{call}(): {name}={value!r} and Hatchet's {hatchet_name}={hatchet_value!r} "
            "are the same argument; give one of them"
        )
    return bool(hatchet_value)
