"""FlameGraph without a browser: its protocol, the page's requests, Python's methods, the
contract's errors and the link with a CalltreeExplorer."""

from __future__ import annotations

import glob
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree.display import node_names
from perfweave.calltree.flame import flame_layout
from perfweave.calltree.numbers import column_format
from perfweave.errors import GraphError, QueryError, ShapeError
from perfweave.widgets._base import WidgetBase
from perfweave.widgets._transport import unpack
from perfweave.widgets.flame import COMPARE_COLUMNS, FRAME_COLUMNS, FlameGraph

JS = Path(__file__).parents[2] / "js" / "src" / "flame"
DATA = Path(__file__).parents[1] / "data"


def _const(name: str):
    text = (JS / "protocol.js").read_text()
    m = re.search(rf"export const {name} = (.*?);\n", text, re.S)
    assert m, f"protocol.js has no {name}"
    body = m.group(1)
    if body.lstrip().startswith("{"):
        body = re.sub(r"(\w+):", r'"\1":', body)
    return json.loads(re.sub(r",\s*([\]}])", r"\1", body))


@pytest.fixture(scope="module")
def lulesh():
    return pw.read(str(DATA / "hatchet/caliper-lulesh-json/lulesh-annotation-profile.json"))


@pytest.fixture(scope="module")
def rajaperf():
    quartz = sorted(
        glob.glob(f"{DATA}/thicket/rajaperf/quartz/gcc10.3.1_1048576/**/*.cali", recursive=True)
    )
    lassen = sorted(
        glob.glob(
            f"{DATA}/thicket/rajaperf/lassen/clang10.0.1_nvcc10.2.89_1048576/**/*block_128.cali",
            recursive=True,
        )
    )
    return pw.Ensemble.from_files(quartz), pw.Ensemble.from_files(lassen)


class Page:
    """Sends requests as a page does and keeps the replies."""

    def __init__(self, widget: FlameGraph) -> None:
        self.widget, self.sent, self.id = widget, [], 0
        widget.send = lambda content, buffers=None: self.sent.append((content, buffers or []))

    def ask(self, action: str, **args):
        self.id += 1
        msg = {
            "type": "request",
            "id": self.id,
            "channel": "c",
            "seq": self.id,
            "action": action,
            "args": args,
        }
        self.widget._on_msg(self.widget, msg, [])
        content, buffers = self.sent[-1]
        key = next((k for k in ("frames", "found") if k in content), None)
        cols = unpack(content[key]["columns"], buffers) if key else None
        return content, cols


def _names(cols) -> list[str]:
    """Each frame's name, from the reply's codes and its dictionary of names."""
    named = dict(zip(cols["name_ids"].tolist(), cols["names"]))
    return [named[c] for c in cols["name"].tolist()]


def test_the_protocol_is_the_same_on_both_sides():
    own = set(FlameGraph.class_trait_names(sync=True)) - set(
        WidgetBase.class_trait_names(sync=True)
    )
    assert set(_const("TRAITS")) | set(_const("READ_ONLY")) == own
    assert list(_const("ACTIONS")) == list(FlameGraph._actions)
    from perfweave.widgets.flame import COLOR_BY, ORIENTATIONS

    controls = _const("CONTROLS")
    assert [v for v, _ in controls["orientation"]] == list(ORIENTATIONS)
    assert [v for v, _ in controls["color_by"]] == list(COLOR_BY)


def test_the_page_gets_the_frames_one_pixel_wide_with_exact_values(lulesh):
    fg = FlameGraph(lulesh)
    page = Page(fg)
    reply, cols = page.ask("frames", width=300)
    # coloured by name, the hash key is the name: it is not sent twice; measured: no guesses
    assert reply["ok"] and list(cols) == [c for c in FRAME_COLUMNS if c not in ("key", "guess")]
    assert len(cols["found"]) == 0  # Python's view: no search, no names found
    layout = fg.layout
    # every frame a pixel wide, and none much narrower (the threshold is a hair below it)
    held = reply["meta"]["held"]
    assert held["root"] == -1 and held["below"] is None and 0.999 / 300 < held["tau"] <= 1 / 300
    wide = (layout.x1 - layout.x0) >= held["tau"]
    assert cols["node"].tolist() == np.flatnonzero(wide).tolist()
    assert set(np.flatnonzero((layout.x1 - layout.x0) >= 1 / 300)) <= set(cols["node"].tolist())
    np.testing.assert_array_equal(cols["value"], layout.values.inclusive[cols["node"]])
    np.testing.assert_array_equal(cols["x0"], layout.x0[cols["node"]])
    assert _names(cols) == [str(n) for n in layout.values.names[cols["node"]]]
    sums = layout.sums
    np.testing.assert_array_equal(cols["size"], sums.size[cols["node"]])
    np.testing.assert_array_equal(cols["excl_subtree"], sums.excl_subtree[cols["node"]])
    meta = reply["meta"]
    assert meta["total"] == layout.total and meta["zoom"] == -1
    assert (
        meta["format"]
        == column_format(layout.values.inclusive, lulesh.unit_of("time (inc)")).spec()
    )
    assert fg.title.startswith("time (inc)") and "mean over 8 ranks" in fg.title


def test_click_zoom_and_breadcrumb_from_the_page_and_from_python(lulesh):
    fg = FlameGraph(lulesh)
    page = Page(fg)
    target = fg.layout.node_id("LagrangeElements")
    reply, cols = page.ask("zoom", node=target, width=800)
    assert fg.zoomed_node == target
    path = fg.layout.path(target)
    assert [p["node"] for p in reply["meta"]["path"]] == path
    # the zoom's held set: its ancestors, then its subtree's frames a pixel of the zoom wide
    frames = fg.frames  # the ancestors first, spanning the width, then the subtree
    wide = frames["node"][(frames["x1"] - frames["x0"]) >= 1 / 800].tolist()
    assert cols["node"].tolist() == wide and wide[: len(path)] == path
    assert reply["meta"]["held"]["root"] == target
    # the breadcrumb's first entry zooms back out
    reply, _ = page.ask("zoom", node=None, width=800)
    assert fg.zoomed_node is None and reply["meta"]["path"] == []
    version = fg.view_version
    fg.zoom("CalcEnergyForElems")  # from Python: the page is told to ask again
    assert fg.view_version == version + 1
    assert fg.frames.set_index("node").loc[fg.zoomed_node, "x1"] == 1.0


def test_search_highlights_and_says_the_share(lulesh):
    fg = FlameGraph(lulesh)
    page = Page(fg)
    reply, cols = page.ask("search", pattern="Calc")
    hit = fg.layout.matches("Calc")
    # the reply names the matching names by code: the page marks every frame it holds
    codes, uniques = fg.layout.name_codes
    assert [str(uniques[c]) for c in cols["code"]] == sorted(
        {str(n) for n in fg.layout.values.names[hit]}, key=list(uniques).index
    )
    np.testing.assert_array_equal(np.isin(codes, cols["code"]), hit)
    # a page that learns Python's view (after a search from Python) gets the matches with it
    fg.search("^Lagrange")
    _, view = page.ask("frames", width=800)
    np.testing.assert_array_equal(np.isin(codes, view["found"]), fg.layout.matches("^Lagrange"))
    _, refined = page.ask("frames", width=800, node=-1, detail=8, below=0.5)
    assert "found" not in refined  # a refinement is frames only
    page.ask("search", pattern="Calc")
    found = fg.search_result
    share = f"{100 * found.share:.0f}%"
    fmt = column_format(fg.layout.values.inclusive, lulesh.unit_of("time (inc)"))
    assert reply["meta"]["search"]["text"] == (
        f"{len(found.nodes)} matches: {fmt.text(found.value)}, {share} of the total"
    )
    assert fg.frames["match"].sum() == hit.sum()
    assert fg.search(None) is None and not fg.frames["match"].any()


def test_a_bad_metric_shows_in_the_banner_and_keeps_the_view(lulesh):
    fg = FlameGraph(lulesh)
    page = Page(fg)
    fg.search("Calc")
    fg.zoom("LagrangeElements")
    before = fg.frames
    reply, cols = page.ask("set", metric="nope", width=800)
    assert reply["ok"] is False and "no metric 'nope'" in reply["error"]
    assert fg.error == reply["error"] and isinstance(fg.last_exception, ShapeError)
    assert fg.metric == "time (inc)" and fg.frames.equals(before)
    # no frames: the page keeps the view it has, which is Python's
    assert cols is None and reply["meta"]["zoom"] == fg.zoomed_node
    with pytest.raises(ShapeError, match="no metric 'nope'"):
        fg.set_metric("nope")
    assert fg.frames.equals(before)
    fg.set_metric("time")  # an exclusive metric draws its inclusive partner
    assert fg.error == "" and fg.metric == "time (inc)"


def test_bad_requests_keep_the_previous_state(lulesh):
    fg = FlameGraph(lulesh)
    page = Page(fg)
    page.ask("search", pattern="Calc")
    reply, _ = page.ask("search", pattern="Calc(")
    assert not reply["ok"] and "bad regular expression" in fg.error
    assert fg.search_result.pattern == "Calc"
    reply, _ = page.ask("zoom", node=10**6, width=800)
    assert not reply["ok"] and fg.zoomed_node is None and "no node 1000000" in fg.error
    reply, _ = page.ask("set", color_by="module", width=800)
    assert not reply["ok"] and "names no module" in fg.error and fg.color_by == "name"
    reply, _ = page.ask("set", orientation="flame", width=800)
    assert reply["ok"] and fg.orientation == "flame" and fg.error == ""
    with pytest.raises(QueryError):
        fg.search("(")
    with pytest.raises(GraphError):
        fg.zoom("nope")
    with pytest.raises(ShapeError, match="orientation='sideways'"):
        FlameGraph(lulesh, orientation="sideways")
    with pytest.raises(ShapeError, match="no metric 'nope'"):
        FlameGraph(lulesh, metric="nope")


def test_colour_by_exclusive_share_and_by_module():
    cpi = pw.read(str(DATA / "hatchet/hpctoolkit-cpi-database"))
    fg = FlameGraph(cpi, color_by="module")
    page = Page(fg)
    _, cols = page.ask("frames", width=800)
    first = cpi.dataframe.groupby(level="node")["module"].first()
    for node, name, key in zip(cols["node"], _names(cols), cols["key"]):
        assert key == (name if pd.isna(first[node]) else first[node])
    assert len(set(cols["key"])) < len(set(_names(cols)))
    page.ask("set", color_by="exclusive", width=800)
    assert fg.color_by == "exclusive" and fg.error == ""


def test_link_selects_and_reveals_in_the_other_view(lulesh):
    ex = pw.CalltreeExplorer(lulesh)
    fg = pw.FlameGraph(lulesh)
    pw.link(ex, fg)
    page = Page(fg)
    energy = fg.layout.node_id("CalcEnergyForElems")
    page.ask("select", node=energy)  # a click in the flame graph
    assert ex.selected_nodes == [energy]
    courant = fg.layout.node_id("CalcCourantConstraintForElems")
    fg.zoom("LagrangeElements")
    ex.select(courant)  # a click in the explorer: outside the zoom, so the flame zooms out
    assert fg.selected_node == courant and fg.zoomed_node is None
    # a filtered explorer numbers its nodes anew: the link follows the call path
    ex.filter("`time (inc)` > 5%")
    fg.select(energy)
    shown = ex.graphframe
    assert len(shown.graph) < len(lulesh.graph)  # renumbered
    names = node_names(shown.graph, shown.dataframe)
    assert len(ex.selected_nodes) == 1 and names[ex.selected_nodes[0]] == "CalcEnergyForElems"
    with pytest.raises(ShapeError, match="CalltreeExplorer and a FlameGraph"):
        pw.link(fg, fg)


def test_compare_two_ensembles_colours_by_a_tested_difference(rajaperf):
    a, b = rajaperf
    fg = FlameGraph(a, compare=b)
    page = Page(fg)
    reply, cols = page.ask("frames", width=1000)
    frame = [c for c in FRAME_COLUMNS if c not in ("key", "guess", "found")]
    assert list(cols) == [*frame, *COMPARE_COLUMNS, "found"]
    assert set(cols) <= set(_const("ACTIONS")["frames"]["columns"])
    meta = reply["meta"]
    assert meta["compare"] and meta["tested"]
    assert "Welch" in meta["test"] and "q < 0.05" in meta["test"]
    frames = fg.frames
    expected = flame_layout(a, compare=b).frames()
    np.testing.assert_array_equal(frames["significant"], expected["significant"])
    assert frames["significant"].any() and not frames["significant"].all()
    with pytest.raises(ShapeError, match="two GraphFrames or two Ensembles"):
        FlameGraph(a, compare=pw.read(str(DATA / "hatchet/hpctoolkit-cpi-database")))


def test_a_request_with_an_argument_the_protocol_does_not_declare_is_refused(lulesh):
    fg = FlameGraph(lulesh)
    page = Page(fg)
    page.ask("frames", width=300)
    reply, cols = page.ask("zoom", node=1, shell="rm -rf /")
    assert not reply["ok"] and "takes node, width, detail, below; not shell" in reply["error"]
    assert fg.error == reply["error"] and fg.zoom_node == -1  # nothing changed
    assert cols is None and reply["meta"]["zoom"] == -1  # the page keeps the view it has


def test_at_scale_draws_the_prediction_and_marks_the_guesses():
    ens = pw.datasets.mpi_scaling()
    fg = FlameGraph.at_scale(ens, "mpi.world.size", target=4096)
    assert fg.title.startswith("Avg time/rank — predicted at mpi.world.size = 4,096 (not run;")
    page = Page(fg)
    reply, cols = page.ask("frames", width=800)
    quality = fg.layout.values.quality[cols["node"]]
    guess = cols["guess"]
    np.testing.assert_array_equal(guess, np.isin(quality, ("poor", "")))
    assert guess.any() and not guess.all() and reply["meta"]["predicted"]
    # another metric refits; a bad one is refused and the view stays
    reply, _ = page.ask("set", metric="Max time/rank")
    assert reply["ok"] and fg.metric == "Max time/rank"
    reply, _ = page.ask("set", metric="nope")
    assert not reply["ok"] and "no metric 'nope'" in fg.error and fg.metric == "Max time/rank"
    with pytest.raises(ShapeError, match="needs target="):
        FlameGraph.at_scale(ens, "mpi.world.size")


def test_a_reply_below_a_threshold_carries_only_the_frames_the_page_lacks(rajaperf):
    """A zoom sent with the threshold of the set the page drew it from is answered with the
    zoom's frames narrower than that (and not the ones the page holds); together they are the
    zoom's own held set. A refinement (frames with a node) changes no state."""
    quartz, _ = rajaperf
    fg = FlameGraph(quartz)
    page = Page(fg)
    whole, held = page.ask("frames", width=1000)
    tau = whole["meta"]["held"]["tau"]
    layout = fg.layout
    inner = np.flatnonzero((layout.x1 - layout.x0) < 0.5)
    target = int(inner[np.argmax((layout.x1 - layout.x0)[inner])])  # a wide inner frame
    span = layout.x1[target] - layout.x0[target]
    reply, band = page.ask("zoom", node=target, width=1000, detail=1, below=tau)
    assert reply["ok"] and fg.zoomed_node == target and reply["meta"]["held"]["below"] == tau
    w = layout.x1 - layout.x0
    assert len(band["node"]) > 0 and (w[band["node"]] < tau).all()
    assert not set(band["node"].tolist()) & set(held["node"].tolist())
    own, cols = page.ask("frames", width=1000)  # Python's view now: the zoom's own set
    inside = [n for n in held["node"].tolist() if target <= n < target + layout.sums.size[target]]
    ancestors = layout.path(target)[:-1]
    assert sorted(ancestors + inside + band["node"].tolist()) == cols["node"].tolist()
    assert own["meta"]["held"]["tau"] == pytest.approx(span / 1000, rel=1e-8)
    # finer frames of the zoom, DETAIL times: a refinement, the zoom stays
    version = fg.view_version
    fine, finer = page.ask("frames", width=1000, detail=8, node=target, below=span / 1000)
    assert fine["ok"] and fg.zoomed_node == target and fg.view_version == version
    assert ((w[finer["node"]] >= span / 8000 * (1 - 1e-8)) & (w[finer["node"]] < span / 1000)).all()
    reply, _ = page.ask("frames", width=1000, below=0)
    assert not reply["ok"] and "below must be a fraction of the width above 0" in fg.error


def test_groups_of_one_ensemble(rajaperf):
    quartz, lassen = rajaperf
    both = pw.Ensemble.from_files(list(quartz.metadata["file"]) + list(lassen.metadata["file"]))
    fg = FlameGraph(both, groups=("cluster", "quartz", "lassen"))
    assert fg.title.startswith("Avg time/rank: cluster = quartz against cluster = lassen — ")
    assert "cluster = lassen: mean over 10 profiles" in fg.title
    assert fg.frames["significant"].any()
    with pytest.raises(ShapeError, match="no profile has cluster = 'sierra'"):
        FlameGraph(both, groups=("cluster", "quartz", "sierra"))


@pytest.mark.parametrize("make", ["lulesh", "matmul_scaling", "at_scale"])
def test_every_metric_offered_draws_and_is_the_one_shown(make):
    """The page's metric control shows the drawn metric among its choices (an exclusive-only
    profile offers the inclusive names it is drawn by), and each choice draws."""
    if make == "at_scale":
        fg = FlameGraph.at_scale(pw.datasets.mpi_scaling(), "mpi.world.size", target=1000)
    else:
        fg = FlameGraph(getattr(pw.datasets, make)())
    assert fg.metric in fg.metrics
    for metric in fg.metrics:
        fg.set_metric(metric)
        assert fg.metric == metric and fg.error == ""
