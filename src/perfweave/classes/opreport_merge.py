"""opreport's ``--merge`` options (:class:`MergeOptions`): which differences between sample
files to ignore. Named for the command whose option it is; the `merge/` package is
another thing (merging hardware-event subexperiments)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from perfweave.errors import SpecError

MERGE_WORDS = ("cpu", "tid", "tgid", "lib", "library", "unitmask", "all")


@dataclass(frozen=True)
class MergeOptions:
    """Merge sample files that differ only in cpu / tid / tgid / library / unit mask.

    ``tgid`` implies ``tid`` (opreport's PP:5.21); ``all`` merges everything.
    """

    cpu: bool = False
    tid: bool = False
    tgid: bool = False
    lib: bool = False
    unitmask: bool = False
    is_all: bool = False

    @classmethod
    def parse(
        cls, words: str | Iterable[str] = (), *, exclude_dependent: bool = False
    ) -> MergeOptions:
        """From ``"cpu,tid"`` or ``["cpu", "tid"]``; opreport's errors for bad combinations."""
        if isinstance(words, MergeOptions):
            return words
        if isinstance(words, str):
            words = words.split(",")
        flags = dict.fromkeys(("cpu", "tid", "tgid", "lib", "unitmask", "is_all"), False)
        for word in (w.strip() for w in words):
            if not word:
                continue
            if word == "all":
                flags.update(dict.fromkeys(flags, True))
            elif word == "tgid":
                flags.update(tgid=True, tid=True)
            elif word in ("lib", "library"):
                flags["lib"] = True
            elif word in ("cpu", "tid", "unitmask"):
                flags[word] = True
            else:
                raise SpecError(f"unknown merge option: {word}")
        if exclude_dependent and flags["lib"] and not flags["is_all"]:
            raise SpecError("--merge=lib is meaningless with --exclude-dependent")
        return cls(**flags)

    def __str__(self) -> str:
        if self.is_all:
            return "all"
        names = [n for n in ("cpu", "tid", "tgid", "lib", "unitmask") if getattr(self, n)]
        if self.tgid:
            names.remove("tid")
        return ",".join(names)
