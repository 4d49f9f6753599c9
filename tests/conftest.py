"""Shared fixtures: the path to bundled test data, and the peer-library guard."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import settings

DATA = Path(__file__).parent / "data"

# Property tests never depend on the machine: no per-example deadline (a busy machine made
# the default 200 ms one fail), and the same examples on every run and every machine.
settings.register_profile("perfweave", deadline=None, derandomize=True, database=None)
settings.load_profile("perfweave")


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


def pytest_collection_modifyitems(config, items):
    """Peer tests need llnl-hatchet / llnl-thicket (or scipy, which the `bench` extra brings);
    say plainly why they skip without them."""
    packages = {"hatchet": "llnl-hatchet", "thicket": "llnl-thicket", "scipy": "scipy"}
    have = {name: importlib.util.find_spec(name) is not None for name in packages}
    for item in items:
        mark = item.get_closest_marker("peer")
        if mark is None:
            continue
        needed = mark.args[0] if mark.args else "hatchet"
        if not have.get(needed, False):
            item.add_marker(
                pytest.mark.skip(
                    reason=f"{packages[needed]} not installed (pip install -e '.[bench]')"
                )
            )
