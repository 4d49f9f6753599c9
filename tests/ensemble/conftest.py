"""Builders for synthetic GraphFrames and paths to Thicket's bundled profiles."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from perfweave.calltree._build import build_graphframe
from perfweave.ensemble import build

THICKET = Path(__file__).parent.parent / "data" / "thicket"


def make_gf(names, parent, time, meta=None, extra=None):
    """A GraphFrame of a small tree: exclusive ``time`` and inclusive ``time (inc)``."""
    frames = pd.DataFrame({"name": list(names)})
    data = {"node": np.arange(len(names)), "time": np.asarray(time, float)}
    data["time (inc)"] = np.asarray(time, float) * 10
    data.update(extra or {})
    return build_graphframe(
        frames,
        pd.DataFrame(data),
        parent=parent,
        exc_metrics=["time"],
        inc_metrics=["time (inc)"],
        metadata=meta or {},
    )


def random_gf(rng: np.random.Generator, n: int, vocabulary: int = 6, meta=None):
    """A random tree of ``n`` nodes whose names come from a small vocabulary (so graphs
    of different profiles overlap and siblings may repeat a name)."""
    parent = np.full(n, -1)
    if n > 1:
        parent[1:] = [rng.integers(0, i) for i in range(1, n)]
    names = ["main"] + [f"f{rng.integers(vocabulary)}" for _ in range(n - 1)]
    return make_gf(names, parent, rng.random(n).round(3), meta)


@pytest.fixture
def three_gfs():
    """Three profiles of one program: b lacks 'bar', c has 'qux' instead of 'foo'."""
    a = make_gf(["main", "foo", "bar", "baz"], [-1, 0, 1, 0], [1, 2, 3, 4], {"run": 1, "size": 8})
    b = make_gf(["main", "foo", "baz"], [-1, 0, 0], [5, 6, 7], {"run": 2, "size": 16})
    c = make_gf(["main", "qux", "baz"], [-1, 0, 0], [8, 9, 10], {"run": 3, "size": 32})
    return [a, b, c]


@pytest.fixture(scope="session")
def quartz_files():
    return sorted(str(p) for p in (THICKET / "rajaperf" / "quartz").rglob("*.cali"))


@pytest.fixture(scope="session")
def lassen_files():
    return sorted(str(p) for p in (THICKET / "rajaperf" / "lassen").rglob("*.cali"))


@pytest.fixture(scope="session")
def mpi_files():
    return sorted(str(p) for p in (THICKET / "mpi_scaling_cali").glob("*.cali"))


@pytest.fixture(scope="session")
def make():
    """The :func:`make_gf` builder."""
    return make_gf


@pytest.fixture(scope="session")
def rand():
    """The :func:`random_gf` builder."""
    return random_gf


@pytest.fixture(scope="session")
def rajaperf_files(quartz_files, lassen_files):
    return quartz_files + lassen_files


@pytest.fixture(scope="session")
def many_copies(tmp_path_factory, quartz_files):
    """Enough RAJAPerf files for the default (workers=None) to use processes (copies of
    the quartz files, each its own name)."""
    root = tmp_path_factory.mktemp("many")
    out = []
    for i in range(build.PARALLEL_MIN_FILES + 8):
        dst = root / f"run{i:04d}.cali"
        shutil.copy(quartz_files[i % len(quartz_files)], dst)
        out.append(str(dst))
    return out
