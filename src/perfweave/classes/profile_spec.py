"""opreport's profile specification: ``tag:value`` words that select sample files.

Tags: ``session``, ``session-exclude``, ``image``, ``image-exclude``, ``lib-image``,
``event``, ``count``, ``unit-mask``, ``tid``, ``tgid``, ``cpu``. Values are comma lists;
``all`` matches everything; image values are shell globs over full paths. A word that is not
a tag names an image or library (``/usr/bin/perl``, ``*libc*``). Sample files that were not
separated (``all``) never match an explicit ``tid``/``tgid``/``cpu`` value, as in opreport.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

import numpy as np
import pandas as pd

from perfweave.errors import SpecError

TAGS = (
    "session",
    "session-exclude",
    "image",
    "image-exclude",
    "lib-image",
    "event",
    "count",
    "unit-mask",
    "tid",
    "tgid",
    "cpu",
)
_NUMERIC = {"count": "count", "unit-mask": "unitmask", "tid": "tid", "tgid": "tgid", "cpu": "cpu"}
_TAG_WORD = re.compile(r"^[a-z][a-z-]*$")


def _split(value: str) -> tuple[str, ...]:
    return tuple(v for v in value.split(",") if v)


def _numbers(tag: str, values: tuple[str, ...]) -> tuple[int, ...] | None:
    """A numeric comma list (``None`` = all); :class:`SpecError` for a non-number."""
    if "all" in values:
        return None
    out = []
    for v in values:
        try:
            out.append(int(v, 16) if v.lower().startswith("0x") else int(v, 10))
        except ValueError:
            raise SpecError(f"{tag}:{','.join(values)}: {v!r} is not a number") from None
    return tuple(out)


@dataclass(frozen=True)
class ProfileSpec:
    """A parsed profile specification; :meth:`mask` selects rows of a spec table."""

    session: tuple[str, ...] = ("current",)
    session_exclude: tuple[str, ...] = ()
    image: tuple[str, ...] = ()
    image_exclude: tuple[str, ...] = ()
    lib_image: tuple[str, ...] = ()
    image_or_lib_image: tuple[str, ...] = ()
    event: tuple[str, ...] | None = None
    numeric: dict[str, tuple[int, ...] | None] = field(default_factory=dict)

    @classmethod
    def parse(cls, words: str | Iterable[str]) -> ProfileSpec:
        """Parse opreport's profile words.

        As in opreport, a tag given again with another value replaces the earlier value
        (``tid:1 tid:2`` selects tid 2); only the same ``tag:value`` word given twice is an
        error, with opreport's text. A single string is split at whitespace, as the command
        line splits it (``"event:X tid:2"``), never into characters.
        """
        if isinstance(words, str):
            words = words.split()
        words = list(words)
        bad = next((w for w in words if not isinstance(w, str)), None)
        if bad is not None:
            raise SpecError(f"profile words must be strings, not {type(bad).__name__}: {bad!r}")
        seen: set[str] = set()
        values: dict[str, tuple[str, ...]] = {}
        images: list[str] = []
        for word in words:
            tag, sep, value = word.partition(":")
            if sep and tag in TAGS:
                if word in seen:
                    raise SpecError(f"tag specified more than once: {word}")
                seen.add(word)
                values[tag] = _split(value)
            elif sep and _TAG_WORD.match(tag) and not value.startswith("/"):
                raise SpecError(
                    f'profile_spec::parse(): not a valid tag "{word}" '
                    f"(known tags: {', '.join(TAGS)})"
                )
            else:
                images.append(word)
        event = values.get("event")
        return cls(
            session=values.get("session") or ("current",),
            session_exclude=values.get("session-exclude", ()),
            image=values.get("image", ()),
            image_exclude=values.get("image-exclude", ()),
            lib_image=values.get("lib-image", ()),
            image_or_lib_image=tuple(images),
            event=None if event is None or "all" in event else event,
            numeric={
                col: _numbers(tag, values[tag]) for tag, col in _NUMERIC.items() if tag in values
            },
        )

    def sessions(self) -> list[str]:
        """Sessions to read, without the excluded ones (:class:`SpecError` if none is left)."""
        kept = [s for s in self.session if s not in self.session_exclude]
        if not kept:
            raise SpecError(
                "No session given\nincluded session was:\n"
                + "".join(s + "\n" for s in self.session)
                + "excluded session was:\n"
                + "".join(s + "\n" for s in self.session_exclude)
            )
        return kept

    def mask(
        self,
        table: pd.DataFrame,
        *,
        exclude_dependent: bool = False,
        exclude_callgraph: bool = True,
    ) -> np.ndarray:
        """Boolean mask of the spec-table rows this specification selects."""
        n = len(table)
        keep = np.ones(n, dtype=bool)
        if n == 0:
            return keep
        image = table["image"].astype(object)
        lib = table["lib_image"].astype(object)
        keep &= self._image_mask(image, lib)
        if self.event is not None:
            keep &= table["event"].isin(self.event).to_numpy()
        for col, wanted in self.numeric.items():
            if wanted is None:
                continue
            nums = pd.to_numeric(table[col], errors="coerce")
            keep &= nums.isin(wanted).to_numpy()
        if exclude_dependent:
            keep &= (image == lib).to_numpy()
        if exclude_callgraph and "cg_image" in table:
            keep &= (table["cg_image"].astype(object) == "").to_numpy()
        return keep

    def _image_mask(self, image: pd.Series, lib: pd.Series) -> np.ndarray:
        """opreport's image / lib-image / bare-name / image-exclude rules, per unique name."""

        def matcher(include: Sequence[str]):
            def match(name: str) -> bool:
                if include and not any(fnmatchcase(name, p) for p in include):
                    return False
                return not any(fnmatchcase(name, p) for p in self.image_exclude)

            return match

        def over(series: pd.Series, fn) -> np.ndarray:
            uniq = pd.unique(series.to_numpy())
            return series.map(dict(zip(uniq, map(fn, uniq)))).to_numpy(dtype=bool)

        n = len(image)
        by_name = np.zeros(n, dtype=bool)
        if self.image_or_lib_image:
            m = matcher(self.image_or_lib_image)
            by_name = over(image, m) | over(lib, m)
        rest = np.ones(n, dtype=bool)
        if self.image:
            rest &= over(image, matcher(self.image))
        elif self.image_or_lib_image:
            rest &= False
        if self.lib_image:
            rest &= over(lib, matcher(self.lib_image))
        elif not self.image and self.image_or_lib_image:
            rest &= False
        if self.image_exclude:
            excl = matcher(())
            rest &= over(image, excl) & over(lib, excl)
        return by_name | rest
