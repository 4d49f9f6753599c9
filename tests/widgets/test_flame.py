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
        cols = unpack(content["frames"]["columns"], buffers) if "frames" in content else None
        return content, cols


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
    # coloured by name, the hash key is the name: it is not sent twice
    assert reply["ok"] and list(cols) == [c for c in FRAME_COLUMNS if c != "key"]
    assert ((cols["x1"] - cols["x0"]) >= 1 / 300).all()
    layout = fg.layout
    wide = (layout.x1 - layout.x0) >= 1 / 300
    assert cols["node"].tolist() == np.flatnonzero(wide).tolist()
    np.testing.assert_array_equal(cols["value"], layout.values.inclusive[cols["node"]])
    assert cols["name"] == [str(n) for n in layout.values.names[cols["node"]]]
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
    assert [p["node"] for p in reply["meta"]["path"]] == fg.layout.path(target)
    i = cols["node"].tolist().index(target)
    assert (cols["x0"][i], cols["x1"][i]) == (0.0, 1.0)
    frames = fg.frames
    assert set(frames["node"]) == set(cols["node"]) | set(
        frames["node"][(frames["x1"] - frames["x0"]) < 1 / 800]
    )
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
    reply, cols = page.ask("search", pattern="Calc", width=800)
    hit = fg.layout.matches("Calc")
    np.testing.assert_array_equal(cols["match"].astype(bool), hit[cols["node"]])
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
    assert cols is not None and fg.zoomed_node in cols["node"]  # the reply redraws the old view
    with pytest.raises(ShapeError, match="no metric 'nope'"):
        fg.set_metric("nope")
    assert fg.frames.equals(before)
    fg.set_metric("time")  # an exclusive metric draws its inclusive partner
    assert fg.error == "" and fg.metric == "time (inc)"


def test_bad_requests_keep_the_previous_state(lulesh):
    fg = FlameGraph(lulesh)
    page = Page(fg)
    page.ask("search", pattern="Calc", width=800)
    reply, _ = page.ask("search", pattern="Calc(", width=800)
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
    for node, name, key in zip(cols["node"], cols["name"], cols["key"]):
        assert key == (name if pd.isna(first[node]) else first[node])
    assert len(set(cols["key"])) < len(set(cols["name"]))
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
    assert list(cols) == [*(c for c in FRAME_COLUMNS if c != "key"), *COMPARE_COLUMNS]
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
    assert not reply["ok"] and "takes node, width; not shell" in reply["error"]
    assert fg.error == reply["error"] and fg.zoom_node == -1  # nothing changed
    assert cols is not None and len(cols["node"]) > 0  # the unchanged view is answered


def test_at_scale_draws_the_prediction_and_marks_the_guesses():
    ens = pw.datasets.mpi_scaling()
    fg = FlameGraph.at_scale(ens, "mpi.world.size", target=4096)
    assert fg.title.startswith("Avg time/rank — predicted at mpi.world.size = 4,096 (not run;")
    page = Page(fg)
    reply, cols = page.ask("frames", width=800)
    quality = fg.layout.values.quality[cols["node"][cols["node"] >= 0]]
    guess = cols["guess"][cols["node"] >= 0]
    np.testing.assert_array_equal(guess, np.isin(quality, ("poor", "")))
    assert guess.any() and not guess.all() and reply["meta"]["predicted"]
    # another metric refits; a bad one is refused and the view stays
    reply, _ = page.ask("set", metric="Max time/rank")
    assert reply["ok"] and fg.metric == "Max time/rank"
    reply, _ = page.ask("set", metric="nope")
    assert not reply["ok"] and "no metric 'nope'" in fg.error and fg.metric == "Max time/rank"
    with pytest.raises(ShapeError, match="needs target="):
        FlameGraph.at_scale(ens, "mpi.world.size")


def test_frames_narrower_than_a_pixel_are_sent_gathered(rajaperf):
    quartz, _ = rajaperf
    fg = FlameGraph(quartz)
    reply, cols = Page(fg).ask("frames", width=1000)
    gathered = cols["node"] < 0
    runs = fg.layout.narrow(min_width=1 / 1000)
    assert gathered.sum() == len(runs) > 0
    np.testing.assert_array_equal(cols["hidden"][gathered], runs["hidden"])
    np.testing.assert_allclose(cols["value"][gathered], runs["value"])
    assert all(
        n.startswith("… ") and n.endswith(" hidden") for n in np.asarray(cols["name"])[gathered]
    )
    assert reply["meta"]["shown"] == (~gathered).sum()


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
