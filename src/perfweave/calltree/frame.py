"""Frame: the identity of a calltree node (name, type, file, line ...).

Frames compare, sort and hash by their sorted ``(attribute, value)`` pairs, as Hatchet's
do, so two nodes with equal frames at the same place in two graphs are the same node of
their union. A frame always has a ``type`` (``"None"`` when the reader gave none).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import total_ordering
from typing import Any

from perfweave.errors import ArgumentError


@total_ordering
class Frame(Mapping[str, Any]):
    """An immutable mapping of attribute names to values."""

    __slots__ = ("_attrs", "_tuple")

    def __init__(self, attrs: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        merged = dict(attrs or {})
        merged.update(kwargs)
        if not merged:
            raise ArgumentError("a Frame needs at least one attribute (e.g. name)")
        merged.setdefault("type", "None")
        self._attrs = merged
        self._tuple = tuple(sorted(merged.items()))

    @property
    def attrs(self) -> dict[str, Any]:
        """A copy of the attributes as a plain dict."""
        return dict(self._attrs)

    @property
    def tuple_repr(self) -> tuple[tuple[str, Any], ...]:
        """Sorted ``(attribute, value)`` pairs: what frames compare by."""
        return self._tuple

    def __getitem__(self, name: str) -> Any:
        return self._attrs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._attrs)

    def __len__(self) -> int:
        return len(self._attrs)

    def values(self, names: str | Iterable[str] | None = None):  # type: ignore[override]
        """Hatchet's ``values(names)``: one value, or a tuple for a list of names."""
        if names is None:
            return self._attrs.values()
        if isinstance(names, str):
            return self._attrs.get(names)
        return tuple(self._attrs.get(n) for n in names)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Frame):
            return NotImplemented
        return self._tuple == other._tuple

    def __lt__(self, other: Frame) -> bool:
        return _sortable(self._tuple) < _sortable(other._tuple)

    def __hash__(self) -> int:
        return hash(self._tuple)

    def __str__(self) -> str:
        return "{" + ", ".join(f"'{k}': '{v}'" for k, v in self._tuple) + "}"

    def __repr__(self) -> str:
        return f"Frame({self})"

    def copy(self) -> Frame:
        return Frame(self._attrs)


def _sortable(items: tuple[tuple[str, Any], ...]) -> tuple:
    """Frame tuples with values made mutually comparable (numbers before strings)."""
    return tuple(
        (k, (0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v))) for k, v in items
    )
