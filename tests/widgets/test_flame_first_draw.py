"""A FlameGraph's first draw works out the names of the frames it sends only: every
node's name is worked out when something needs them all (a refinement, a search). The
names and codes a page gets are the same either way, on real profiles. The first frames go
with the widget's state, as the page's first request would get them."""

from __future__ import annotations

import glob
import re

import numpy as np
import pytest

import perfweave as pw
from perfweave.calltree.display import node_names
from perfweave.errors import NoRegionWarning
from perfweave.widgets._flame_page import FIRST_WIDTH
from perfweave.widgets._transport import unpack
from perfweave.widgets.flame import FRAMES_KEY, FlameGraph
from tests.conftest import DATA
from tests.widgets.test_flame import Page, _names


def _lulesh():
    return pw.read(f"{DATA}/hatchet/caliper-lulesh-json/lulesh-annotation-profile.json")


def _sampling():  # exclusive metrics only, several roots, a row per call stack
    with pytest.warns(NoRegionWarning):
        return pw.read(f"{DATA}/calltree-sampling/sampling-profile.cali")


def _rajaperf():
    files = sorted(
        glob.glob(f"{DATA}/thicket/rajaperf/quartz/gcc10.3.1_1048576/**/*.cali", recursive=True)
    )
    return pw.Ensemble.from_files(files)


PROFILES = {"lulesh": _lulesh, "sampling": _sampling, "rajaperf": _rajaperf}


@pytest.mark.parametrize("name", list(PROFILES))
def test_the_first_frames_name_only_themselves_and_name_them_right(name):
    data = PROFILES[name]()
    fg = FlameGraph(data)
    page = Page(fg)
    reply, cols = page.ask("frames", width=200)
    values = fg.layout.values
    assert not values.name_source.complete  # no node's name beyond the frames sent
    everyone = node_names(data.graph, data.dataframe)
    assert _names(cols) == [str(n) for n in everyone[cols["node"]]]
    deep = int(cols["node"][np.argmax(cols["depth"])])
    zoomed, _ = page.ask("zoom", node=deep, width=200)
    path = fg.layout.path(deep)
    assert [p["name"] for p in zoomed["meta"]["path"]] == [str(n) for n in everyone[path]]
    assert not values.name_source.complete
    # the layout's own frames name every node as node_names does
    assert fg.layout.frames()["name"].tolist() == everyone.tolist()


@pytest.mark.parametrize("name", list(PROFILES))
def test_a_name_keeps_its_code_once_every_name_is_known(name):
    data = PROFILES[name]()
    fg = FlameGraph(data)
    page = Page(fg)
    _, first = page.ask("frames", width=120)
    code_of = dict(zip(_names(first), first["name"].tolist(), strict=True))
    tau = float(page.sent[-1][0]["meta"]["held"]["tau"])
    _, finer = page.ask("frames", node=-1, width=120, detail=8, below=tau)
    assert fg.layout.values.name_source.complete  # a refinement works every name out
    assert len(finer["node"]) > 0
    for n, c in zip(_names(finer), finer["name"].tolist(), strict=True):
        assert code_of.setdefault(n, c) == c  # one code per name, in both replies
    assert len(set(code_of.values())) == len(code_of)
    # a search names the matches by the same codes: they mark exactly the matching frames
    pattern = re.escape(str(fg.layout.values.names[int(finer["node"][-1])]))
    _, found = page.ask("search", pattern=pattern)
    both = np.r_[first["name"], finer["name"]]
    nodes = np.r_[first["node"], finer["node"]]
    np.testing.assert_array_equal(np.isin(both, found["code"]), fg.layout.matches(pattern)[nodes])


def test_a_search_before_any_frames_codes_as_the_frames_after_it():
    fg = FlameGraph(_lulesh())
    page = Page(fg)
    _, found = page.ask("search", pattern="Calc")
    _, cols = page.ask("frames", width=300)
    hit = fg.layout.matches("Calc")[cols["node"]]
    np.testing.assert_array_equal(np.isin(cols["name"], found["code"]), hit)
    assert _names(cols) == [str(n) for n in fg.layout.values.names[cols["node"]]]


def _first(fg: FlameGraph):
    """The first frames sent with the state, as a page unpacks them."""
    first = fg.first_frames
    return first["reply"], unpack(first["reply"][FRAMES_KEY]["columns"], first["buffers"])


@pytest.mark.parametrize("name", list(PROFILES))
def test_the_first_frames_go_with_the_state_as_the_first_request_gets_them(name):
    data = PROFILES[name]()
    fg = FlameGraph(data)
    reply, cols = _first(fg)
    assert "sums" not in fg.layout.__dict__  # summed for the frames sent, not every node
    sums, nodes = fg.layout.sums, cols["node"]  # every node's, bit for bit at the frames
    for key in ("value_before", "child_value", "child_x1", "excl_start", "excl_subtree"):
        np.testing.assert_array_equal(cols[key], getattr(sums, key)[nodes], err_msg=key)
    np.testing.assert_array_equal(cols["size"], sums.size[nodes])
    forest = reply["meta"]["held"]["forest"]
    assert forest == {
        "value": sums.forest_value,
        "x1": sums.forest_x1,
        "exclusive": sums.forest_exclusive,
    }
    twin = FlameGraph(data)  # the same widget, asked by a page instead
    asked, asked_cols = Page(twin).ask("frames", width=FIRST_WIDTH)
    assert reply["meta"] == asked["meta"] and reply["ok"]
    assert reply["meta"]["version"] == fg.view_version
    assert set(cols) == set(asked_cols)
    for key, col in cols.items():
        if isinstance(col, np.ndarray):
            assert col.dtype == asked_cols[key].dtype, key
            np.testing.assert_array_equal(col, asked_cols[key], err_msg=key)
        else:
            assert list(col) == list(asked_cols[key]), key
    # every frame at least a pixel of a FIRST_WIDTH canvas wide is there, named right
    layout = fg.layout
    wide = np.flatnonzero(layout.widths >= 1 / FIRST_WIDTH)
    assert np.isin(wide, cols["node"]).all()
    everyone = node_names(data.graph, data.dataframe)
    assert _names(cols) == [str(n) for n in everyone[cols["node"]]]


def test_the_first_frames_are_dropped_when_the_view_changes_or_a_page_asks():
    fg = FlameGraph(_lulesh())
    assert fg.first_frames
    # dropped: no reply, the buffers emptied where they were (a notebook's saved widget
    # state keeps buffers by path: a saved page puts them back there)
    dropped = {"buffers": [b""] * len(fg.first_frames["buffers"])}
    node = int(_first(fg)[1]["node"][3])
    fg.zoom(node)  # from Python: the frames sent show an older view
    assert fg.first_frames == dropped
    for action, args in (
        ("zoom", {"node": 5, "width": 300}),
        ("search", {"pattern": "Calc"}),
        ("set", {"metric": fg.metric, "orientation": "flame"}),
        ("frames", {"width": 300}),
    ):
        fg = FlameGraph(_lulesh())
        reply, _ = Page(fg).ask(action, **args)
        assert reply["ok"], reply
        assert fg.first_frames == dropped, action  # a page's view may now differ from Python's
    fg = FlameGraph(_lulesh())
    Page(fg).ask("select", node=4)  # a selection is drawn over the same frames
    assert fg.first_frames
