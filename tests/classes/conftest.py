"""Fixtures for the classes tests: the extracted synthetic OProfile sessions."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

HERE = Path(__file__).parent
DATA = HERE.parent / "data" / "classes"
SESSIONS = {"sep": "sep", "nosep": "nosep", "um_cpu": "unitmask_cpu", "many": "many_tgids"}


@pytest.fixture(scope="session")
def sessions(tmp_path_factory) -> dict[str, Path]:
    """Each synthetic session extracted once: name -> session directory."""
    root = tmp_path_factory.mktemp("opsessions")
    out = {}
    for name in SESSIONS:
        target = root / f"opsession_{name}"
        target.mkdir()
        with tarfile.open(DATA / "synthetic_sessions" / f"opsession_{name}.tar.gz") as tar:
            if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4 / 3.10.12
                tar.extractall(target, filter="data")
            else:  # pragma: no cover - our own archives, regular files only
                tar.extractall(target)
        out[name] = target
    return out


@pytest.fixture(scope="session")
def listings() -> dict[str, list[str]]:
    """The sample file names of each session, as listed in the shared data."""
    return {
        name: (DATA / "synthetic_sessions" / f"sample_files_{name}.txt").read_text().split()
        for name in SESSIONS
    }
