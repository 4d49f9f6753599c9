"""A Hatchet user's habits (issue 35): the calls of Hatchet's tutorial notebooks, run with
both libraries on the tutorial's bundled data, give the same numbers, or a perfweave error
that names what to do instead.

Nodes are matched by call path (``tests.calltree._peer``).
"""

from __future__ import annotations

import re
import sys
import warnings

import numpy as np
import pytest

from perfweave.calltree.graphframe import GraphFrame
from perfweave.errors import ArgumentError, OptionError, PerfweaveError
from tests.calltree._peer import assert_same

pytestmark = pytest.mark.peer("hatchet")

DATA = "tests/data/hatchet/"
LULESH_CALI = DATA + "caliper-lulesh-cali/lulesh-annotation-profile.cali"
# what cali-query writes for the tutorial's query on that run (Hatchet's test data)
LULESH_JSON = DATA + "caliper-lulesh-json/lulesh-annotation-profile.json"
TAU = DATA + "tau-cpi-mpi"  # cpi on several MPI ranks
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


# --- Hatchet's keyword arguments of the GraphFrame methods (issue 35) -------------------

ANSI = re.compile(r"\x1b\[[0-9;]*m")
HIGHLIGHT = "\x1b[48;5;246m\x1b[38;5;232m"  # Hatchet's highlight_name: dark text on grey


def _both(case: str):
    """The same tutorial profile read by both libraries (rank level kept)."""
    ht = _hatchet()
    if case == "lulesh":  # the tutorial's Caliper run (cali-query's json-split)
        return GraphFrame.from_caliper(LULESH_JSON), ht.GraphFrame.from_caliper(
            LULESH_JSON, None, node_ordering=False
        )
    return GraphFrame.from_tau(TAU), ht.GraphFrame.from_tau(TAU)


def _in_place(gf, method: str, *args, **kwargs):
    """A deep copy of ``gf`` after Hatchet's in-place ``method``."""
    out = gf.deepcopy()
    getattr(out, method)(*args, **kwargs)
    return out


@pytest.mark.parametrize("case", ["lulesh", "tau"])
def test_hatchets_keywords_give_hatchets_numbers(case):
    ours, theirs = _both(case)
    assert_same(ours, theirs)
    metric = theirs.exc_metrics[0]
    cut = float(np.nanmedian(ours.dataframe[metric].to_numpy(float)))
    keep = lambda row: row[metric] > cut  # noqa: E731
    for kw in (
        {"squash": True, "update_inc_cols": True, "num_procs": 2, "rec_limit": 2000},
        {"update_inc_cols": False},
    ):
        assert_same(ours.filter(filter_obj=keep, **kw), theirs.filter(filter_obj=keep, **kw))
    rows_only = {"squash": False}
    assert_same(
        ours.filter(keep, **rows_only).squash(update_inc_cols=False),
        theirs.filter(keep, **rows_only).squash(update_inc_cols=False),
    )
    assert_same(
        _in_place(ours, "drop_index_levels", function=np.max),
        _in_place(theirs, "drop_index_levels", function=np.max),
    )
    for method in ("subtree_sum", "subgraph_sum"):
        args = {"columns": [metric], "out_columns": ["below"], "function": np.sum}
        assert_same(_in_place(ours, method, **args), _in_place(theirs, method, **args), ["below"])
    assert_same(
        _in_place(ours, "update_inclusive_columns"), _in_place(theirs, "update_inclusive_columns")
    )
    assert ours.show_metric_columns() == theirs.show_metric_columns()
    assert_same(ours.copy(), theirs.copy())
    assert_same(ours.deepcopy(), theirs.deepcopy())


def _bands(text: str, palette: list[str]) -> list[int]:
    """The colour band of each line's value, as a position in ``palette``."""
    return [palette.index(m) for m in re.findall(r"^[│├└─ ]*(\x1b\[38;5;\d+m)", text, re.M)]


def test_tree_takes_hatchets_keywords(monkeypatch):
    from hatchet.util.colormaps import ColorMaps

    import perfweave.calltree.tree_text as tree_text

    ours, theirs = _both("lulesh")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # Hatchet colours a terminal
    kw = {
        "metric_column": "time (inc)",
        "annotation_column": "nid",
        "precision": 2,
        "name_column": "name",
        "expand_name": True,
        "context_column": "file",
        "rank": 0,
        "thread": 0,
        "depth": 3,
        "highlight_name": True,
        "colormap": "RdYlGn",
        "invert_colormap": True,
        "render_header": False,
        "min_value": 1000,
        "max_value": 1e7,
    }
    text, want = ours.tree(**kw), theirs.tree(**kw)
    # the same lines once the colours are taken out: values, [annotation], names
    note, *lines = ANSI.sub("", text).splitlines()
    assert note == "# time (inc) in µs: rank 0"  # perfweave names the reader's unit
    want_lines = ANSI.sub("", want).splitlines()
    tree_lines = [line for line in want_lines if line and not line.startswith(("Legend", "█"))]
    assert lines[: len(tree_lines) - 1] == tree_lines[:-1]  # Hatchet ends with a key line
    assert "5882425.00 [0] main" in lines and len(tree_lines) == 7
    # min_value/max_value fix the scale: the same legend and each value in the same band
    legend = [line for line in lines if line.startswith("█")]
    assert legend == [line for line in want_lines if line.startswith("█")]
    assert "Min: 1000.00 Max: 10000000.00" in text
    hatchet_palette = ColorMaps().get_colors("RdYlGn", True)
    assert _bands(text, list(tree_text._COLORS[::-1])) == _bands(want, hatchet_palette)
    assert len(set(_bands(text, list(tree_text._COLORS[::-1])))) > 1
    # highlight_name: every name on grey in both
    assert text.count(HIGHLIGHT + "LagrangeLeapFrog") == want.count(HIGHLIGHT + "LagrangeLeapFrog")
    # (Hatchet's key line under the legend shows a highlighted 'name' too)
    assert text.count(HIGHLIGHT) == want.count(HIGHLIGHT) - 1 == 6


def test_what_perfweave_does_not_honour_is_an_error_naming_the_way():
    ours, _ = _both("lulesh")
    with pytest.raises(OptionError, match=r"RdYlGn bands only; invert_colormap=True"):
        ours.tree("time", colormap="BrBG")
    with pytest.raises(OptionError, match=r"sums only .* gf.graph.subtree\(node\)"):
        ours.deepcopy().subtree_sum(["time"], function=np.max)
    with pytest.raises(ArgumentError, match="filter_obj= are the same argument"):
        ours.filter(lambda r: True, filter_obj=lambda r: False)
    with pytest.raises(ArgumentError, match="update_inc_cols=True are the same argument"):
        ours.squash(update_inclusive_columns=False, update_inc_cols=True)


def test_groupby_aggregate_takes_hatchets_keywords():
    ours, theirs = _both("lulesh")
    kw = {"groupby_function": ["name"], "agg_function": {"time": "sum", "time (inc)": "sum"}}
    with pytest.raises((ValueError, KeyError)):  # Hatchet 2026.2 fails with this pandas
        theirs.groupby_aggregate(**kw)
    by_keywords = ours.groupby_aggregate(**kw)
    by_position = ours.groupby_aggregate(["name"], {"time": "sum", "time (inc)": "sum"})
    assert by_keywords.graph == by_position.graph
    assert by_keywords.dataframe.equals(by_position.dataframe)
    assert len(by_keywords.graph) == len(set(ours.graph.frames["name"]))
