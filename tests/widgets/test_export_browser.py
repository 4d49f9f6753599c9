"""`perfweave export`: the exported page draws every widget in Chromium with the network cut off.

The page is served from a local folder (file:// is not "local" for the offline router, which
counts every other request); every request that leaves the machine is aborted and counted,
and the ``page`` fixture fails the test on any (and on any console error).
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import perfweave as pw
from perfweave.cli import main
from perfweave.examples import path as example
from tests.widgets.browser import (
    OfflineRouter,
    PageWatch,
    canvas_is_blank,
    save_screenshot,
    write_notebook,
)

ROOT = Path(__file__).resolve().parents[2]
SESSION = ROOT / "tests" / "data" / "classes" / "synthetic_sessions" / "opsession_sep.tar.gz"


@pytest.fixture
def static_server(tmp_path: Path) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 serving ``tmp_path``; yields its base URL."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _four_widgets_notebook(tmp_path: Path) -> Path:
    with tarfile.open(SESSION) as tar:
        tar.extractall(tmp_path / "session", filter="data")
    return write_notebook(
        tmp_path / "four.ipynb",
        [
            "import ipywidgets as w\nimport perfweave as pw\nimport perfweave.merge as pm\n"
            "from perfweave.examples import path",
            "pw.CalltreeExplorer(pw.read(path('hatchet-graph-literal.json')))",
            "pw.CountMatrixHeatmap(path('alltoallv'))",
            f"pw.ClassPicker({str(tmp_path / 'session')!r}, merge='cpu,tgid')",
            "pw.MergePanel(pm.process_raw_experiments(pm.load_vignette('much'), 6), seed=1)",
            "w.IntSlider(value=7, description='ranks')",
        ],
    )


def _open(page, url: str, views: int) -> None:
    page.goto(url)
    page.wait_for_function(
        "() => document.body.dataset.widgetsRendered !== undefined", timeout=60_000
    )
    rendered = page.evaluate("() => document.body.dataset.widgetsRendered")
    assert rendered == str(views), f"{rendered} of {views} widget views drawn"


def test_export_draws_every_widget_offline(
    tmp_path: Path,
    static_server: str,
    page,
    page_watch: PageWatch,
    offline_router: OfflineRouter,
    capsys,
) -> None:
    nb = _four_widgets_notebook(tmp_path)
    assert main(["export", str(nb), str(tmp_path / "four.html")]) == 0
    assert "opens offline" in capsys.readouterr().out
    html = (tmp_path / "four.html").read_text()
    assert "<script src=" not in html and "<link " not in html  # everything inlined

    blocked_before = len(offline_router.blocked)
    _open(page, f"{static_server}/four.html", views=5)

    # CalltreeExplorer: rows drawn from the replies recorded at export, values as in Python
    explorer = page.locator(".pw-explorer[data-ready='1']").first
    explorer.wait_for()
    gf = pw.read(example("hatchet-graph-literal.json"))
    roots = gf.dataframe.loc[gf.graph.root_ids]
    first_row = explorer.locator("[role=row]", has_text="foo").first
    assert f"{roots['time (inc)'].max():g}" in first_row.inner_text()
    assert int(explorer.get_attribute("data-rows")) > 5

    # CountMatrixHeatmap: the matrix canvas holds a drawing
    heatmap = page.locator(".pw-heatmap[data-ready='1']").first
    heatmap.wait_for()
    assert not canvas_is_blank(heatmap.locator("canvas").first)
    # the canvas writes counts whole: color-bar ticks are whole numbers up to the largest
    # block (never "0.250" of a message) and the sums read as Python's ("4", not "4.000")
    blocks = pw.CountMatrixHeatmap(example("alltoallv")).blocks()
    ticks = json.loads(heatmap.get_attribute("data-color-ticks"))
    assert all(re.fullmatch(r"[1-9]\d*", t) for t in ticks), ticks
    assert ticks[-1] == str(blocks.values.max())
    sums = [f"max {blocks.row_sum.max()}", f"column sum (max {blocks.col_sum.max()})"]
    assert json.loads(heatmap.get_attribute("data-sums")) == sums

    # ClassPicker: report rows of the session's applications
    picker = page.locator(".pw-picker").first
    picker.locator(".pw-pt-row", has_text="perl").first.wait_for()

    # MergePanel (ipywidgets + bqplot): status line and the scatter's dots
    panel = page.locator(".pw-merge-panel").first
    assert "MUCH" in panel.locator(".pw-merge-status").inner_text()
    assert panel.locator(".pw-merge-scatter .dot").count() > 100

    # a core control from ipywidgets' own front end
    assert page.locator(".widget-readout", has_text="7").count() == 1

    page.wait_for_timeout(300)  # any late request or console error is caught at teardown
    # The only banner-free page: no widget asked for something the page cannot answer.
    assert page.locator(".pw-error:visible").count() == 0
    assert offline_router.blocked[blocked_before:] == [], "the page tried to reach the network"
    path = save_screenshot(page, "export_four_widgets")
    assert path.stat().st_size > 10_000

    # the picker's spec box offers what the saved page holds (the tags, under the spec),
    # and says that applying a spec needs Python, leaving the saved report as it was
    spec = picker.locator(".pw-picker-spec")
    hint = spec.locator(".pw-picker-hint")
    assert hint.inner_text().startswith("tags: ") and " event " in hint.inner_text()
    rows_before = picker.locator(".pw-pt-row:not([hidden])").all_inner_texts()
    spec.locator("input").fill("event:CPU_CLK_UNHALTED")
    spec.locator(".pw-picker-apply").click()
    banner = spec.page.locator(".pw-picker .pw-error:visible").first
    banner.wait_for()
    assert banner.inner_text().startswith(
        "Applying a profile specification needs the notebook's running Python kernel"
    )
    assert picker.locator(".pw-pt-row:not([hidden])").all_inner_texts() == rows_before
    page_watch.assert_clean()


def test_exported_widget_says_what_needs_the_kernel(
    tmp_path: Path, static_server: str, page, page_watch: PageWatch
) -> None:
    nb = write_notebook(
        tmp_path / "one.ipynb",
        [
            "import perfweave as pw\nfrom perfweave.examples import path\n"
            "pw.CalltreeExplorer(pw.read(path('hatchet-graph-literal.json')))"
        ],
    )
    assert main(["export", str(nb), str(tmp_path / "one.html")]) == 0
    _open(page, f"{static_server}/one.html", views=1)
    explorer = page.locator(".pw-explorer[data-ready='1']").first
    explorer.wait_for()
    explorer.get_by_role("button", name="Expand all").click()
    banner = explorer.locator(".pw-error")
    banner.wait_for(state="visible")
    assert banner.inner_text().startswith(
        "Expanding everything below a row needs the notebook's running Python kernel; "
        "this page is a saved copy"
    )
    assert "expand_all" not in banner.inner_text()  # the person's words, not the request's
    # the rows drawn before stay
    assert explorer.locator("[role=row]", has_text="foo").count() >= 1
    page_watch.assert_clean()


def test_export_of_a_failing_notebook_names_the_cell(tmp_path: Path, capsys) -> None:
    nb = write_notebook(tmp_path / "bad.ipynb", ["x = 1", "1 / 0"])
    assert main(["export", str(nb), str(tmp_path / "bad.html")]) == 1
    err = capsys.readouterr().err
    assert str(nb) in err and "cell 2 failed: ZeroDivisionError" in err
    assert not (tmp_path / "bad.html").exists()


def test_export_of_the_tour(tmp_path: Path, static_server: str, page, page_watch) -> None:
    tour = ROOT / "notebooks" / "00_tour.ipynb"
    if not tour.is_file():
        pytest.skip(f"skipped: the tour notebook {tour} is not in this checkout yet")
    out = tmp_path / "tour.html"
    assert main(["export", str(tour), str(out)]) == 0
    views = out.read_text().count('type="application/vnd.jupyter.widget-view+json"')
    assert views >= 4
    _open(page, f"{static_server}/tour.html", views=views)
    for selector in (".pw-explorer[data-ready='1']", ".pw-heatmap[data-ready='1']"):
        page.locator(selector).first.wait_for()
    # one run, the ensemble, and the ScalingView's, whose chart and growth column are there
    assert page.locator(".pw-explorer").count() == 3
    scaling = page.locator(".pw-scaling").first
    scaling.locator(".pw-hcell", has_text="growth").wait_for()
    scaling.locator(".pw-scaling-chart path.line").first.wait_for()
    # one dot per run of the tour's study (matmul: 9 sizes, the warm-up unticked)
    import perfweave as pw

    assert scaling.locator(".pw-scaling-chart .dot").count() == len(
        pw.datasets.matmul_scaling().profiles
    )
    page.locator(".pw-picker .pw-pt-row", has_text="perl").first.wait_for()
    assert page.locator(".pw-merge-panel .pw-merge-scatter .dot").count() > 100
    assert page.locator(".pw-error:visible").count() == 0
    save_screenshot(page, "export_tour")
    page_watch.assert_clean()


COMPOSITE = """
import ipywidgets as widgets
from perfweave.widgets._base import CompositeBase


class Box(CompositeBase):
    '''A composite with one control, as ClassPicker and MergePanel are built.'''

    def __init__(self):
        super().__init__()
        self.level = widgets.IntSlider(value=7, min=0, max=20, description="level")
        self._set_children(self.level)


Box()
"""


def test_exported_composite_control_says_it_needs_the_kernel(
    tmp_path: Path, static_server: str, page, page_watch: PageWatch
) -> None:
    """A composite's control on a saved page snaps back to the saved value and its banner says
    why (the MergePanel's sliders used to snap back without a word)."""
    nb = write_notebook(tmp_path / "box.ipynb", [COMPOSITE])
    assert main(["export", str(nb), str(tmp_path / "box.html")]) == 0
    _open(page, f"{static_server}/box.html", views=1)
    box = page.locator(".pw-composite").first
    banner = box.locator(".pw-error")
    assert banner.is_hidden()
    handle = box.locator(".widget-slider .ui-slider-handle, .widget-slider [role=slider]").first
    handle.focus()
    handle.press("ArrowRight")
    banner.wait_for(state="visible")
    assert (
        banner.locator(".pw-error-text")
        .inner_text()
        .startswith(
            "Changing this control needs the notebook's running Python kernel; "
            "this page is a saved copy"
        )
    )
    readout = box.locator(".widget-readout").first
    page.wait_for_function("(el) => el.textContent.trim() === '7'", arg=readout.element_handle())
    save_screenshot(box, "export_composite_control")
    page_watch.assert_clean()


def test_exported_flame_graph_zooms_and_searches_without_a_kernel(
    tmp_path: Path, static_server: str, page, page_watch: PageWatch
) -> None:
    """A saved flame graph keeps its frames: a click zooms (the breadcrumb follows), the
    search marks matches with their share, all without Python; the numbers are Python's."""
    nb = write_notebook(
        tmp_path / "flame.ipynb",
        [
            "import perfweave as pw\nfrom perfweave.examples import path\n"
            "pw.FlameGraph(pw.datasets.lulesh())"
        ],
    )
    assert main(["export", str(nb), str(tmp_path / "flame.html")]) == 0
    page.set_viewport_size({"width": 1100, "height": 700})
    _open(page, f"{static_server}/flame.html", views=1)
    flame = page.locator(".pw-flame[data-ready='1']").first
    flame.wait_for()
    canvas = flame.locator("canvas.pw-fl-canvas")
    assert not canvas_is_blank(canvas)
    layout = pw.FlameGraph(pw.datasets.lulesh()).layout
    frames = layout.frames()
    target = frames[frames["name"] == "LagrangeElements"].iloc[0]
    box = canvas.bounding_box()
    row = float(canvas.get_attribute("data-row"))
    page.mouse.click(
        box["x"] + box["width"] * (target["x0"] + target["x1"]) / 2,
        box["y"] + row * (target["depth"] + 0.5),
    )
    page.wait_for_function(
        f"() => document.querySelector('.pw-flame').dataset.zoom === '{int(target['node'])}'"
    )
    crumbs = flame.locator(".pw-fl-crumbs .pw-btn").all_inner_texts()
    assert crumbs == ["all", *(str(layout.values.names[p]) for p in layout.path(target["node"]))]
    assert flame.locator(".pw-error:visible").count() == 0
    save_screenshot(page, "export_flame_zoomed")
    # search without a kernel: the share Python gives for the same pattern
    flame.locator(".pw-fl-search").fill("Calc")
    flame.locator(".pw-fl-search").press("Enter")
    found = flame.locator(".pw-fl-found")
    page.wait_for_function("() => document.querySelector('.pw-fl-found').textContent !== ''")
    share = layout.search("Calc").share
    assert f"{100 * share:.0f}% of the total" in found.inner_text()
    # a bad pattern: the banner says why, the view stays
    flame.locator(".pw-fl-search").fill("Calc(")
    flame.locator(".pw-fl-search").press("Enter")
    banner = flame.locator(".pw-error")
    banner.wait_for(state="visible")
    assert "bad regular expression" in banner.inner_text()
    flame.locator(".pw-fl-crumbs .pw-btn", has_text="all").click()
    page.wait_for_function("() => document.querySelector('.pw-flame').dataset.zoom === '-1'")
    save_screenshot(page, "export_flame_search")
    page_watch.assert_clean()


def test_export_of_views_changed_in_later_cells(
    tmp_path: Path, static_server: str, page, page_watch: PageWatch
) -> None:
    """A later cell changes what the explorer and the flame graph show, after their first rows
    and frames went with their state: the saved page draws both, each in Python's last view
    (the notebook's saved widget state keeps buffers by path, so a dropped first reply must
    leave them where they were)."""
    nb = write_notebook(
        tmp_path / "later.ipynb",
        [
            "import perfweave as pw\nfrom perfweave.examples import path\n"
            "fg = pw.FlameGraph(pw.datasets.lulesh())\nfg",
            "frames = fg.frames\n"
            "_ = fg.zoom(int(frames[frames['name'] == 'LagrangeElements']['node'].iloc[0]))",
            "ex = pw.CalltreeExplorer(pw.read(path('hatchet-graph-literal.json')))\nex",
            "_ = ex.focus(4)",
        ],
    )
    assert main(["export", str(nb), str(tmp_path / "later.html")]) == 0
    _open(page, f"{static_server}/later.html", views=2)
    flame = page.locator(".pw-flame[data-ready='1']").first
    flame.wait_for()
    crumbs = flame.locator(".pw-fl-crumbs .pw-btn").all_inner_texts()
    assert crumbs[0] == "all" and crumbs[-1] == "LagrangeElements"
    assert not canvas_is_blank(flame.locator("canvas.pw-fl-canvas"))
    explorer = page.locator(".pw-explorer[data-ready='1']").first
    explorer.wait_for()
    ex = pw.CalltreeExplorer(pw.read(example("hatchet-graph-literal.json")))
    ex.focus(4)  # the later cell: only node 4's subtree is shown
    want = list(ex.visible_rows()["name"].astype(str))
    explorer.locator("[role=row]", has_text=want[-1]).first.wait_for()
    assert explorer.get_attribute("data-rows") == str(len(want))
    save_screenshot(page, "export_views_changed_later")
    page_watch.assert_clean()
