"""A Hatchet user's habits (issue 35): the calls of Hatchet's tutorial notebooks, run with
both libraries on the tutorial's bundled data, give the same numbers, or a perfweave error
that names what to do instead.

Nodes are matched by call path (``tests.calltree._peer``).
"""

from __future__ import annotations

import warnings

import pytest

from perfweave.calltree.graphframe import GraphFrame
from perfweave.errors import OptionError, PerfweaveError
from tests.calltree._peer import assert_same

pytestmark = pytest.mark.peer("hatchet")

DATA = "tests/data/hatchet/"
LULESH_CALI = DATA + "caliper-lulesh-cali/lulesh-annotation-profile.cali"
# what cali-query writes for the tutorial's query on that run (Hatchet's test data)
LULESH_JSON = DATA + "caliper-lulesh-json/lulesh-annotation-profile.json"
# the tutorial's CalQL query (hatchet-tutorial, reading a .cali file with from_caliper)
QUERY = (
    "select function,sum(sum#time.duration),inclusive_sum(sum#time.duration) "
    "group by function format json-split"
)


def _hatchet():
    warnings.simplefilter("ignore")
    import hatchet

    return hatchet


@pytest.mark.parametrize("how", ["positional", "keyword"])
def test_calql_query_says_it_needs_cali_query_and_what_to_do(how):
    with pytest.raises(OptionError) as info:
        if how == "positional":
            GraphFrame.from_caliper(LULESH_CALI, QUERY)
        else:
            GraphFrame.from_caliper(LULESH_CALI, query=QUERY)
    assert isinstance(info.value, PerfweaveError)
    text = str(info.value)
    assert f"from_caliper({LULESH_CALI!r}, query={QUERY!r})" in text
    assert "needs Caliper's cali-query program, which perfweave does not run" in text
    assert f"GraphFrame.from_caliper({LULESH_CALI!r})" in text
    assert "format json-split" in text and "GraphFrame.from_caliper('run.json')" in text
    # the query on a json-split file (which Hatchet ignores) is refused the same way
    with pytest.raises(OptionError, match="cali-query"):
        GraphFrame.from_caliper(LULESH_JSON, QUERY)


def test_what_the_calql_error_suggests_gives_hatchets_numbers():
    ht = _hatchet()
    # the .cali file read natively, as Hatchet's from_caliperreader reads it
    assert_same(GraphFrame.from_caliper(LULESH_CALI), ht.GraphFrame.from_caliperreader(LULESH_CALI))
    # cali-query's json-split output of the tutorial's query, as Hatchet reads it (Hatchet
    # 2026.2 needs node_ordering=False here: the file has no "Node order" column)
    ours = GraphFrame.from_caliper(LULESH_JSON, None)
    assert_same(ours, ht.GraphFrame.from_caliper(LULESH_JSON, None, node_ordering=False))
    assert {"time", "time (inc)"} <= set(ours.dataframe.columns)
