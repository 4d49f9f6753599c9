"""Filtering a filtered frame again (as the explorer's filter history does) gives the
frame a single filter by both conditions gives, on HPCToolkit's GAMESS database.

The first squash merges equal-frame siblings; the second must still recognise equal
frames that its squash makes siblings (it once compared the first squash's row numbers,
and left 228 duplicate siblings here).
"""

from collections import Counter

import numpy as np
import pytest

import perfweave as pw
from tests.calltree._peer import assert_same

GAMESS = "tests/data/hatchet-more/hpctoolkit-gamess"


@pytest.fixture(scope="module")
def gamess():
    return pw.GraphFrame.from_hpctoolkit_latest(GAMESS)


def named_a(gf):
    has_a = gf.graph.frames["name"].astype(str).str.contains("a", regex=False).to_numpy()
    return has_a[gf.node_ids()]


def test_filter_then_filter_equals_one_filter_by_both(gamess):
    time = gamess.dataframe["time"].to_numpy(dtype=float)
    slow = time > np.nanmedian(time)
    once = gamess.filter(slow & named_a(gamess))
    part = gamess.filter(slow)
    twice = part.filter(named_a(part))
    siblings = Counter(
        (node.parents[0].nid if node.parents else -1, tuple(sorted(dict(node.frame).items())))
        for node in twice.graph.traverse()
    )
    assert max(siblings.values()) == 1  # no two siblings share a frame
    assert len(twice.graph) == len(once.graph) < len(part.graph)
    assert twice.graph == once.graph
    assert_same(twice, once, ["time", "time (inc)"])


def test_query_strings_filter_twice_as_once(gamess):
    both = gamess.filter("time > 0.01 and name =~ '.*a.*'")
    twice = gamess.filter("time > 0.01").filter("name =~ '.*a.*'")
    assert len(twice.graph) == len(both.graph)
    assert twice.graph == both.graph
    total = twice.dataframe["time"].sum()
    assert np.isclose(total, both.dataframe["time"].sum())
