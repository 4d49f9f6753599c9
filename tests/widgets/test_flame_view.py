"""The flame graph page draws a view from the frames it holds (js/src/flame/view.js, run in
node by tests/widgets/flame_view.mjs) that is the core layout's view: the same frames at
least a pixel wide at the same places, and the same runs of narrower frames gathered
(count, value, exclusive value and span), for the whole graph and for zooms, whether the
page holds the zoom's own frames, a zoom's frames merged into a coarser set it held, or the
whole graph's frames finer than its canvas (then a zoom into a wide enough frame is drawn
complete without asking Python)."""

from __future__ import annotations

import base64
import glob
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
from perfweave.calltree._build import build_graphframe
from perfweave.widgets.flame import FlameGraph
from tests.widgets.browser import skip_or_fail

HELPER = Path(__file__).with_name("flame_view.mjs")
DATA = Path(__file__).parents[1] / "data"
DETAIL = 8


def _random_tree(n: int, roots: float, seed: int) -> pw.GraphFrame:
    """A random calltree (a forest where ``roots`` > 0) with heavy-tailed times: many frames
    narrower than a pixel between wide siblings."""
    rng = np.random.default_rng(seed)
    parent = np.arange(n) - rng.integers(1, 21, n)
    parent[(rng.random(n) < roots) | (parent < 0)] = -1
    parent[0] = -1
    return build_graphframe(
        pd.DataFrame({"name": [f"f{i % 97}" for i in range(n)]}),
        pd.DataFrame({"node": np.arange(n), "time": rng.exponential(1.0, n) ** 3}),
        parent=parent,
        exc_metrics=["time"],
        inc_metrics=[],
        default_metric="time",
    )


def _widgets() -> dict[str, FlameGraph]:
    raja = DATA / "thicket/rajaperf"
    quartz = sorted(glob.glob(f"{raja}/quartz/gcc10.3.1_1048576/**/*.cali", recursive=True))
    lassen = sorted(
        glob.glob(
            f"{raja}/lassen/clang10.0.1_nvcc10.2.89_1048576/**/*block_128.cali", recursive=True
        )
    )
    a, b = pw.Ensemble.from_files(quartz), pw.Ensemble.from_files(lassen)
    return {
        "lulesh": FlameGraph(
            pw.read(str(DATA / "hatchet/caliper-lulesh-json/lulesh-annotation-profile.json"))
        ),
        "rajaperf": FlameGraph(a),
        "compare": FlameGraph(a, compare=b),
        "at_scale": FlameGraph.at_scale(pw.datasets.mpi_scaling(), "mpi.world.size", target=4096),
        "forest": FlameGraph(_random_tree(4000, 0.2, 1)),
        "tree": FlameGraph(_random_tree(20000, 0.0, 2)),
    }


class Page:
    """Requests as the page sends them; the replies as the helper reads them."""

    def __init__(self, fg: FlameGraph) -> None:
        self.fg, self.sent, self.id = fg, [], 0
        self.channel = f"page-{id(self)}"  # a view of its own: its requests numbered from 1
        fg.send = lambda content, buffers=None: self.sent.append((content, buffers or []))

    def ask(self, action: str, **args) -> dict:
        self.id += 1
        msg = {"type": "request", "id": self.id, "channel": self.channel, "seq": self.id}
        self.fg._on_msg(self.fg, {**msg, "action": action, "args": args}, [])
        payload, buffers = self.sent[-1]
        assert payload["ok"], payload.get("error")
        return {
            "payload": payload,
            "buffers": [base64.b64encode(bytes(b)).decode() for b in buffers],
        }


def _views(cases: list[dict]) -> list[dict]:
    node = shutil.which("node")
    if node is None:
        skip_or_fail("no node (apt-get install nodejs)", "flame view test")
    done = subprocess.run(
        [node, str(HELPER)], input=json.dumps(cases), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _assert_same_view(fg: FlameGraph, zoom: int | None, width: int, got: dict, case: str) -> None:
    layout = fg.layout
    frames, runs = layout.drawn(zoom=zoom, min_width=1 / width)
    page = [f for f in got["frames"] if f[0] >= 0]
    gathered = [f for f in got["frames"] if f[0] < 0]
    # the frames: the same nodes, names, depths and spans to the last bit
    expected = sorted(
        zip(
            frames["node"].tolist(),
            [str(n) for n in frames["name"]],
            frames["depth"].tolist(),
            frames["x0"].tolist(),
            frames["x1"].tolist(),
        )
    )
    assert sorted(tuple(f[:5]) for f in page) == expected, case
    assert got["shown"] == len(frames), case
    assert [p["node"] for p in got["path"]] == ([] if zoom is None else layout.path(zoom)), case
    # the runs gathered: the same count of nodes, sums and spans
    want = runs.sort_values(["depth", "x0"])
    have = sorted(gathered, key=lambda f: (f[2], f[3]))
    assert len(have) == len(want), case
    if have:
        h = np.array([[f[2], f[3], f[4], f[5], f[6], f[7]] for f in have], dtype=float)
        np.testing.assert_array_equal(h[:, 0], want["depth"], err_msg=case)
        np.testing.assert_array_equal(h[:, 5], want["hidden"], err_msg=case)
        np.testing.assert_allclose(h[:, 1:3], want[["x0", "x1"]], rtol=0, atol=1e-12, err_msg=case)
        np.testing.assert_allclose(
            h[:, 3:5], want[["value", "exclusive"]], rtol=1e-9, atol=1e-9, err_msg=case
        )
        assert all(f[1] == f"… {f[7]:,} hidden" for f in have), case


@pytest.fixture(scope="module")
def widgets() -> dict[str, FlameGraph]:
    return _widgets()


@pytest.mark.parametrize("width", [300, 1170])
@pytest.mark.parametrize("name", ["lulesh", "rajaperf", "compare", "at_scale", "forest", "tree"])
def test_the_page_draws_the_core_layouts_view(widgets, name: str, width: int) -> None:
    fg = widgets[name]
    layout = fg.layout
    w = layout.x1 - layout.x0
    order = np.argsort(-w, kind="stable")
    zooms = [None, *(int(z) for z in order[1 : len(order) : max(1, len(order) // 6)][:6])]
    cases, labels = [], []
    page = Page(fg)
    for zoom in zooms:
        target = -1 if zoom is None else zoom
        fg.zoom(None)
        # the zoom's own set, as Python sends it to a page that holds nothing
        cases.append({"replies": [page.ask("zoom", node=zoom, width=width)], "zoom": target})
        labels.append((zoom, "own"))
        # the zoom's frames the whole graph's set lacks, merged into it
        fg.zoom(None)
        whole = page.ask("frames", width=width)
        tau = whole["payload"]["meta"]["held"]["tau"]
        band = page.ask("zoom", node=zoom, width=width, below=tau)
        cases.append({"replies": [whole, band], "zoom": target})
        labels.append((zoom, "merged"))
        # the whole graph DETAIL times finer: zooms into a frame 1/DETAIL wide need nothing
        fg.zoom(None)
        fine = page.ask("frames", width=width, node=-1, detail=DETAIL, below=tau)
        cases.append({"replies": [whole, fine], "zoom": target})
        labels.append((zoom, "fine"))
        finest = fine["payload"]["meta"]["held"]["tau"]
    for case in cases:
        case["width"] = width
    views = _views(cases)
    merged = 0
    for (zoom, how), got in zip(labels, views, strict=True):
        span = 1.0 if zoom is None else w[zoom]
        if how == "fine" and span < finest:  # narrower than the finest frames held
            assert got is None
            continue
        assert got is not None, f"{name} {zoom} {how}: no held set has the frame"
        if got["complete"]:
            _assert_same_view(fg, zoom, width, got, f"{name} zoom {zoom} ({how})")
        if how == "own":
            assert got["complete"]
        if how == "merged":
            assert got["complete"] and got["root"] == (-1 if zoom is None else zoom)
            merged += got["held"] > 0
        if how == "fine":
            assert got["root"] == -1 and got["complete"] == (span >= 1 / DETAIL)
    assert merged == len(zooms)
