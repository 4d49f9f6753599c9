"""Profile identity: an id per profile from its metadata, and the duplicate check."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from perfweave.errors import DuplicateProfileError, MetadataError

# metadata keys that say where a profile was read from, not what it is
SOURCE_KEYS = ("file",)


def profile_hash(metadata: Mapping[str, Any]) -> int:
    """A stable 60-bit id of a metadata dict: md5 of its canonical JSON (keys sorted).

    The same run read from two places gets the same id, so a duplicate is detected; the
    file name is left out for that reason.
    """
    items = {str(k): v for k, v in metadata.items() if k not in SOURCE_KEYS}
    text = json.dumps(items, sort_keys=True, default=_plain, separators=(",", ":"))
    return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:15], 16)


def source_order(sources: Sequence[str]) -> list[int]:
    """Positions of profiles read from ``sources`` in Thicket's order of them.

    Thicket orders profiles by its id of each, the first 11 hex digits of the md5 of the
    path as it was given (``Thicket.profile_hasher``); perfweave orders files so too, so
    that ``profiles[0]`` is the same run and pairing by position pairs the same runs.
    """
    keys = [int(hashlib.md5(str(s).encode("utf-8")).hexdigest()[:11], 16) for s in sources]
    return sorted(range(len(keys)), key=lambda i: (keys[i], str(sources[i])))


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)


def profile_ids(
    metadata: Sequence[Mapping[str, Any]],
    sources: Sequence[str],
    profiles: Sequence[Any] | None = None,
    profile_key: str | None = None,
) -> list[Any]:
    """One id per profile: ``profiles`` if given, else the metadata value ``profile_key``,
    else a hash of the metadata (the position for a profile with no metadata at all).

    Raises :class:`DuplicateProfileError` naming both sources of a repeated id.
    """
    if profiles is not None:
        ids = list(profiles)
        if len(ids) != len(metadata):
            raise DuplicateProfileError(
                f"{len(ids)} profile ids given for {len(metadata)} profiles"
            )
    elif profile_key is not None:
        ids = []
        for meta, src in zip(metadata, sources):
            if profile_key not in meta:
                raise MetadataError(
                    f"{src}: no metadata {profile_key!r} to use as the profile id "
                    f"(metadata keys: {sorted(map(str, meta))[:12]})"
                )
            ids.append(_scalar(meta[profile_key]))
    else:
        ids = [profile_hash(m) if _has_identity(m) else i for i, m in enumerate(metadata)]
    check_unique(ids, sources)
    return ids


def _has_identity(meta: Mapping[str, Any]) -> bool:
    return any(k not in SOURCE_KEYS for k in meta)


def _scalar(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def check_unique(ids: Sequence[Any], sources: Sequence[str]) -> None:
    """Raise :class:`DuplicateProfileError` naming the two sources of the first repeated id."""
    first: dict[Any, int] = {}
    for i, pid in enumerate(ids):
        j = first.setdefault(pid, i)
        if j != i:
            raise DuplicateProfileError(
                f"{sources[i]} and {sources[j]} are the same profile (id {pid!r}); "
                "an ensemble holds each profile once"
            )
