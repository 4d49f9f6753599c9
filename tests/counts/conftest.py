"""Fixtures of the counts tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def copy_dir(tmp_path):
    """Copy a results directory into tmp_path (so a test can damage one file)."""
    import shutil

    def _copy(src: Path) -> Path:
        dst = tmp_path / src.name
        shutil.copytree(src, dst)
        for p in dst.rglob("*"):
            p.chmod(0o644 if p.is_file() else 0o755)
        return dst

    return _copy
