"""from_hatchet / to_hatchet round trips on real data."""

from pathlib import Path

import pytest

import perfweave as pw
from tests.calltree._peer import assert_same

LIT = "tests/data/hatchet/json/hatchet-graph-literal.json"


@pytest.mark.peer
def test_round_trip_through_hatchet():
    import hatchet as ht

    theirs = ht.GraphFrame.from_json(Path(LIT).read_text())
    ours = pw.GraphFrame.from_hatchet(theirs)
    assert_same(ours, theirs)
    back = ours.to_hatchet()
    assert isinstance(back, ht.GraphFrame)
    assert_same(ours, back)
    # the converted frame works with Hatchet's own operations
    assert len(back.filter(lambda r: r["time"] > 4, num_procs=1).graph) == len(
        ours.filter("time > 4").graph
    )


@pytest.mark.peer
def test_round_trip_with_ranks():
    import hatchet as ht

    path = "tests/data/hatchet/caliper-cpi-json/cpi-callpath-profile.json"
    theirs = ht.GraphFrame.from_caliper(path, node_ordering=False)
    ours = pw.GraphFrame.from_hatchet(theirs)
    assert ours.dataframe.index.names == ["node", "rank"]
    assert_same(ours, theirs)
    assert_same(ours, ours.to_hatchet())
