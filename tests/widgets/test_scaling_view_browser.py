"""ScalingView in a real browser (JupyterLab and Voila on Debian's chromium), on the MPI
scaling ensemble. The kernel writes the view's Python state to a JSON file whenever it
changes, so the test checks that what the page shows and what Python holds agree."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.widgets.browser import (
    PageWatch,
    Server,
    open_in_lab,
    open_in_voila,
    save_screenshot,
    wait_state,
    write_notebook,
)

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

READY = ".pw-scaling .pw-explorer[data-ready='1']"

STATE_HOOK = """
import json

def watch(view, path):
    def dump(_=None):
        row = view.models.loc[view.focused]
        state = {
            "focused": view.focused,
            "name": row["name"],
            "model": row["model"],
            "reason": row["reason"],
            "selected": len(view.selected_profiles),
            "target": view.target,
            "log": view.log_axes,
            "error": view.error,
            "sort": view.explorer.sort_column,
            "refit_ms": view.last_refit_ms,
        }
        with open(path, "w") as f:
            json.dump(state, f)
    view.observe(dump, names=["focused", "selected_profiles", "target", "log_axes", "error"])
    view.explorer.observe(dump, names=["sort_column"])
    dump()
    return view
"""


def _notebook(path: Path) -> Path:
    state = path.with_suffix(".state.json")
    return write_notebook(
        path,
        [
            "import perfweave as pw",
            STATE_HOOK,
            "ens = pw.datasets.mpi_scaling()",
            f"view = watch(pw.ScalingView(ens, 'mpi.world.size', 'Avg time/rank'), {str(state)!r})"
            "\nview",
        ],
    )


def test_scaling_view_in_jupyterlab(lab: Server, page: Page, page_watch: PageWatch) -> None:
    from playwright.sync_api import expect

    nb = _notebook(lab.root_dir / "scaling.ipynb")
    open_in_lab(page, lab, "scaling.ipynb", READY)
    view = page.locator(".pw-scaling").first
    state = wait_state(nb, lambda s: s["focused"] == 2)
    assert state["model"] == "1.92e-05 + 9.09e-09 * p^(9/4)"
    # the chart of the focused node: five points, the fit and its dashed extrapolation
    chart = view.locator(".pw-scaling-chart")
    chart.locator("path.line").first.wait_for()
    assert chart.locator(".dot").count() == 5
    assert chart.locator("path.line").count() == 2
    model_line = view.get_by_text("1.92e-05 + 9.09e-09 * p^(9/4)", exact=False)
    assert model_line.count() >= 1
    # the explorer's extra columns: sort by growth with a header click
    header = view.locator(".pw-hcell", has_text="growth")
    header.click()
    wait_state(nb, lambda s: s["sort"] == "growth")
    save_screenshot(view, "scaling_view_lab")

    # a click on a row of the explorer focuses the chart on it
    row = view.locator(".pw-row:not([hidden])", has=page.get_by_text("main", exact=True)).first
    row.click()
    state = wait_state(nb, lambda s: s["name"] == "main")
    assert state["model"] == "50.8"
    # and the chart follows the keyboard cursor: the row below main is MPI_Barrier
    page.keyboard.press("ArrowDown")
    state = wait_state(nb, lambda s: s["name"] == "MPI_Barrier")
    view.get_by_text(": main > MPI_Barrier", exact=False).first.wait_for()  # the title
    page.keyboard.press("ArrowUp")
    wait_state(nb, lambda s: s["name"] == "main")

    # excluding the largest run refits every model: five runs are needed, four are left;
    # the kernel pushes the explorer's new rows with the change (no request of the page)
    explorer = view.locator(".pw-explorer").first
    pushes = int(explorer.get_attribute("data-pushes") or 0)
    view.locator(".pw-scaling-runs input[type=checkbox]").last.uncheck()
    state = wait_state(nb, lambda s: s["selected"] == 4)
    assert "at least 5" in state["reason"]
    view.get_by_text("no model:", exact=False).first.wait_for()
    expect(explorer.locator(".pw-body")).not_to_contain_text("p^(9/4)")
    assert int(explorer.get_attribute("data-pushes") or 0) > pushes
    view.locator("button", has_text="all runs").click()
    state = wait_state(nb, lambda s: s["selected"] == 5)
    expect(explorer.locator(".pw-body")).to_contain_text("p^(9/4)")

    # linear axes and a bad target: the banner says so, the box snaps back
    view.locator("button", has_text="linear").click()
    wait_state(nb, lambda s: s["log"] is False)
    box = view.locator(".widget-text input").first
    box.fill("-4")
    box.press("Enter")
    state = wait_state(nb, lambda s: bool(s["error"]))
    assert "positive" in state["error"]
    banner = view.locator(".pw-error-text").first
    banner.wait_for(state="visible")
    assert "positive" in banner.inner_text()
    box.fill("4096")
    box.press("Enter")
    state = wait_state(nb, lambda s: s["target"] == 4096 and not s["error"])
    view.locator(".pw-hcell", has_text="at 4096").wait_for()
    save_screenshot(view, "scaling_view_lab_linear")
    page_watch.assert_clean()


def test_scaling_view_in_voila(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    nb = _notebook(tmp_path / "scaling.ipynb")
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    view = page.locator(".pw-scaling").first
    view.locator(".pw-scaling-chart path.line").first.wait_for()
    assert view.locator(".pw-scaling-chart .dot").count() == 5
    view.locator(".pw-scaling-runs input[type=checkbox]").first.uncheck()
    wait_state(nb, lambda s: s["selected"] == 4)
    save_screenshot(view, "scaling_view_voila")
    page_watch.assert_clean()


def test_groups_of_runs_get_their_colors_and_curves(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """Two machines, five sizes, two repeats each (machine b twice as slow): colored by
    machine, each group's points and fitted curve in its own color, a legend names them."""
    repo = Path(__file__).resolve().parents[2]
    nb = write_notebook(
        tmp_path / "groups.ipynb",
        [
            f"import sys\nsys.path.insert(0, {str(repo)!r})\n"
            "import perfweave as pw\nfrom tests.widgets.test_scaling_view import _grouped_study",
            "view = pw.ScalingView(_grouped_study(), 'size', 'time', group_by='machine')\nview",
        ],
    )
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    view = page.locator(".pw-scaling").first
    chart = view.locator(".pw-scaling-chart")
    chart.locator("path.line").first.wait_for()
    dots = chart.locator(".dot")
    assert dots.count() == 20  # 2 machines x 5 sizes x 2 repeats
    fills = {d.evaluate("e => getComputedStyle(e).fill") for d in dots.all()}
    assert len(fills) == 2  # one color per machine
    # the run table names each run's group
    assert view.locator(".pw-scaling-runs .pw-head", has_text="machine").count() == 1
    # the header row keeps its height above the first run (labels do not shrink to fit)
    head = view.locator(".pw-scaling-runs .pw-head").first.bounding_box()
    first = view.locator(".pw-scaling-runs .widget-checkbox").first.bounding_box()
    assert first["y"] >= head["y"] + head["height"]
    save_screenshot(view, "scaling_view_voila_groups")
    page_watch.assert_clean()


def test_scaling_view_in_the_exported_page(tmp_path: Path, page: Page, page_watch: PageWatch):
    """``perfweave export``: the saved page draws the view (explorer columns, chart, runs)
    with the network cut off."""
    import functools
    import http.server
    import threading

    from perfweave.cli import main

    nb = write_notebook(
        tmp_path / "scaling.ipynb",
        [
            "import perfweave as pw",
            "pw.ScalingView(pw.datasets.mpi_scaling(), 'mpi.world.size', 'Avg time/rank')",
        ],
    )
    assert main(["export", str(nb), str(tmp_path / "scaling.html")]) == 0
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/scaling.html")
        view = page.locator(".pw-scaling").first
        view.locator(".pw-explorer[data-ready='1']").wait_for(timeout=60_000)
        view.locator(".pw-hcell", has_text="growth").wait_for()
        view.locator(".pw-scaling-chart path.line").first.wait_for()
        assert view.locator(".pw-scaling-chart .dot").count() == 5
        assert view.get_by_text("1.92e-05 + 9.09e-09 * p^(9/4)").count() == 1
        boxes = view.locator(".pw-scaling-runs input[type=checkbox]")
        assert boxes.count() == 5
        page.wait_for_timeout(300)
        save_screenshot(view, "scaling_view_export")  # (docs/img/scaling_view.png)
        # a run box needs the kernel: the page says so and the box snaps back
        boxes.first.click()
        banner = view.locator(".pw-error-text").first
        banner.wait_for(state="visible")
        assert "needs the notebook's running Python kernel" in banner.inner_text()
        page.wait_for_function("(el) => el.checked", arg=boxes.first.element_handle())
        save_screenshot(view, "scaling_view_export_needs_kernel")
        page_watch.assert_clean()
    finally:
        server.shutdown()
        server.server_close()
