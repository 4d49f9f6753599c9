"""Bundled example profiles (see ``data/README.md`` for origin and license)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def path(name: str) -> Path:
    """Path of a bundled example file, e.g. ``path("cpi-callpath-profile.json")``."""
    p = Path(str(resources.files("perfweave.examples") / "data" / name))
    if not p.exists():
        available = sorted(q.name for q in p.parent.iterdir() if q.name != "README.md")
        raise FileNotFoundError(
            2, f"no bundled example {name!r}; available: {', '.join(available)}", str(p)
        )
    return p
