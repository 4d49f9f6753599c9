"""Building an ensemble unions only the distinct call trees: the same union and maps as
``Graph.union_all`` over every profile."""

from __future__ import annotations

import numpy as np
import pytest

import perfweave
from perfweave.calltree.graph import Graph
from perfweave.ensemble.build import union_distinct

from .conftest import random_gf


def assert_same_union(graphs):
    union, maps = Graph.union_all(graphs)
    got, got_maps = union_distinct(graphs)
    assert got == union
    assert got.frames.equals(union.frames)
    np.testing.assert_array_equal(got.parent, union.parent)
    assert len(got_maps) == len(maps)
    for a, b in zip(got_maps, maps):
        np.testing.assert_array_equal(a, b)


def test_rajaperf_runs_read_twice(quartz_files, lassen_files):
    files = quartz_files + lassen_files
    first = [perfweave.read(f).graph for f in files]
    again = [perfweave.read(f).graph for f in files]  # equal content, other objects
    assert_same_union(first + again[::-1])
    assert_same_union([first[0], again[0], first[0]])  # one shape only


@pytest.mark.parametrize("seed", range(20))
def test_random_trees_with_repeated_shapes(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, 4)
    shapes = [random_gf(np.random.default_rng([seed, k]), int(n)) for k, n in enumerate(sizes)]
    # rebuilt from the same seeds: equal trees that are not the same objects
    copies = [random_gf(np.random.default_rng([seed, k]), int(n)) for k, n in enumerate(sizes)]
    pick = rng.integers(0, 4, 12)
    graphs = [(shapes if i % 2 else copies)[int(k)].graph for i, k in enumerate(pick)]
    assert_same_union(graphs)
