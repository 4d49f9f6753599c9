"""ScalingView in a real browser (JupyterLab and Voila on Debian's chromium), on the MPI
scaling ensemble. The kernel writes the view's Python state to a JSON file whenever it
changes, so the test checks that what the page shows and what Python holds agree."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.widgets.browser import (
    AFTER_MESSAGE,
    PageWatch,
    Server,
    canvas_is_blank,
    eventually,
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
#: the fitted curves (the interval's band is a bqplot Lines mark too, its lines unstroked)
FIT = "path.line:not([style*='opacity: 0'])"

STATE_HOOK = (
    AFTER_MESSAGE
    + """
import json

def watch(view, path):
    def write():
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
    dump = after_message(write)
    view.observe(dump, names=["focused", "selected_profiles", "target", "log_axes", "error"])
    view.explorer.observe(dump, names=["sort_column"])
    write()
    return view
"""
)


# the view's own toggle buttons: label, top edge, and whether the label is cut short
TOGGLES = """(root) => [...root.querySelectorAll(".widget-toggle-buttons button")].map((b) => (
  { text: b.textContent.trim(), top: Math.round(b.getBoundingClientRect().top),
    clipped: b.scrollWidth > b.clientWidth + 1 }))"""

# scroll every sideways scroller of the explorer to its end; then the last header cell's right
# edge, the visible right edge (the view's, or the explorer's if narrower) and the left
# edges of the last header cell and of the first row's last cell
LAST_COLUMN = """(view) => {
  const ex = view.querySelector(".pw-explorer");
  const wide = [...ex.querySelectorAll("*")].filter((el) => el.scrollWidth > el.clientWidth);
  for (const el of wide) el.scrollLeft = 1e6;
  const box = (el) => el.getBoundingClientRect();
  const heads = ex.querySelectorAll(".pw-head > .pw-hcell");
  const row = ex.querySelector(".pw-row:not([hidden]):not(.pw-loading)");
  const out = { right: box(heads[heads.length - 1]).right, head: box(heads[heads.length - 1]).left,
                cell: box(row.children[row.children.length - 1]).left,
                limit: Math.min(box(view).right, box(ex).right) };
  for (const el of wide) el.scrollLeft = 0;  // the screenshot from the start
  return out;
}"""


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
    chart.locator(FIT).first.wait_for()
    assert chart.locator(".dot").count() == 5
    assert chart.locator(FIT).count() == 2
    model_line = view.get_by_text("1.92e-05 + 9.09e-09 * p^(9/4)", exact=False)
    assert model_line.count() >= 1
    # the explorer's extra columns: sort by growth with a header click
    header = view.locator(".pw-hcell", has_text="growth")
    header.click()
    wait_state(nb, lambda s: s["sort"] == "growth term · fit quality")
    # in the notebook's narrow output the controls wrap as whole controls: each pair of
    # toggle buttons stays on one row and no button's label is cut ("flame at tar…")
    buttons = view.evaluate(TOGGLES)
    assert [b["text"] for b in buttons] == ["linear", "log", "calltree", "flame at target"]
    assert buttons[0]["top"] == buttons[1]["top"] and buttons[2]["top"] == buttons[3]["top"]
    assert not [b["text"] for b in buttons if b["clipped"]], buttons
    # the explorer's table is wider than the output: it scrolls sideways as one (header with
    # its rows), so its last column can be reached and still sits under its header
    reach = view.evaluate(LAST_COLUMN)
    assert reach["right"] <= reach["limit"] + 1, reach
    assert abs(reach["head"] - reach["cell"]) <= 1, reach
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

    # excluding the largest run refits every model on the four left (as Extra-P fits
    # fewer than 5 values: never "good"); the kernel pushes the explorer's new rows with
    # the change (no request of the page)
    explorer = view.locator(".pw-explorer").first
    pushes = int(explorer.get_attribute("data-pushes") or 0)
    view.locator(".pw-scaling-runs input[type=checkbox]").last.uncheck()
    state = wait_state(nb, lambda s: s["selected"] == 4)
    assert state["reason"] == "" and state["model"] == "50.4"  # main, refitted
    view.get_by_text("(4 scales)", exact=False).first.wait_for()
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
    # the box snaps back to the kept target (a message from the kernel): wait for it, or
    # typing races it (a fresh-clone run sent the old 2700 and 4096 run together)
    expect(box).not_to_have_value("-4")
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
    view.locator(f".pw-scaling-chart {FIT}").first.wait_for()
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
    chart.locator(FIT).first.wait_for()
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
        view.locator(f".pw-scaling-chart {FIT}").first.wait_for()
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


def _at_4096(node: int) -> list[float]:
    """What the at-target column writes for ``node`` of the MPI study at 4096 ranks: its
    prediction and 90 % interval (seeded: the kernel's numbers), a lower bound below 0 as 0."""
    import perfweave as pw

    fits = pw.datasets.mpi_scaling().models("Avg time/rank", "mpi.world.size")
    got = pw.scaling.predict(fits.loc[[node]], 4096, interval=0.9).iloc[0]
    return [got["prediction"], max(got["low"], 0.0), got["high"]]


def _written(text: str, seconds: list[float]) -> None:
    """``text`` writes ``seconds`` in the column's one format (one step of seconds, the same
    decimals; an exact 0 is "0"), each within half of its last digit."""
    from perfweave.calltree.numbers import TIME_UNITS

    found = re.findall(r"(-?[\d,]+(?:\.(\d+))?) (s|ms|µs|ns)\b", text)
    assert len(found) == len(seconds), text
    assert len({unit for _, _, unit in found}) == 1, text
    # a value below the column's resolution keeps two significant digits of its own
    # (0.049 s beside 4.9 s), never reads as 0
    assert (
        len({len(d) for n, d, _ in found if n != "0" and not re.fullmatch(r"0\.0+\d{1,2}", n)}) <= 1
    ), text
    for (number, decimals, unit), want in zip(found, seconds):
        step = TIME_UNITS[unit]
        assert (
            abs(float(number.replace(",", "")) * step - want) <= 0.5 * 10.0 ** -len(decimals) * step
        )


def test_the_interval_band_and_a_poor_fit_are_drawn(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """MPI_Barrier (SMAPE 89 %) predicted at 4096 ranks, 12x past the largest measured run:
    the chart shades the 90 % interval from the first run to the target around its curves
    and warns that the fit is poor; the explorer's growth column marks every poor fit, the
    at-target column writes each prediction with its interval and no time below 0."""
    nb = write_notebook(
        tmp_path / "band.ipynb",
        [
            "import perfweave as pw",
            "view = pw.ScalingView(pw.datasets.mpi_scaling(), 'mpi.world.size', "
            "'Avg time/rank', target=4096)\nview.focus_node(10)\nview",
        ],
    )
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    view = page.locator(".pw-scaling").first
    chart = view.locator(".pw-scaling-chart")
    chart.locator(FIT).first.wait_for()
    band = chart.locator("path.area[style*='opacity: 0.16']")
    assert band.count() == 1 and len(band.get_attribute("d") or "") > 100
    shade = band.bounding_box()
    fit, extra = (chart.locator(FIT).nth(i).bounding_box() for i in range(2))
    dots = [d.bounding_box() for d in chart.locator(".dot").all()]
    # from the first run to the target, and the curves inside it (to their 2 px strokes)
    assert shade["x"] <= min(d["x"] + d["width"] / 2 for d in dots) + 1
    assert shade["x"] + shade["width"] >= extra["x"] + extra["width"] - 4
    for line in (fit, extra):
        assert shade["y"] - 4 <= line["y"] and line["y"] + line["height"] <= (
            shade["y"] + shade["height"] + 4
        )
    # the poor fit is marked in the chart, in red, and under it
    warning = chart.locator("text.label", has_text="poor fit")
    assert "SMAPE 89% is above 50%" in (warning.text_content() or "")
    assert warning.evaluate("e => getComputedStyle(e).fill") == "rgb(198, 40, 40)"
    below = view.locator(".pw-scaling-quality")
    assert "do not trust its predictions" in below.inner_text()
    assert view.get_by_text("(shaded)", exact=False).count() == 1
    # the explorer: the header says how far the target lies past the data
    view.locator(".pw-hcell", has_text="12x past data").wait_for()
    barrier = view.locator(".pw-row", has=page.get_by_text("MPI_Barrier", exact=True)).first
    assert "p^(1/3) log2(p)^2 · ⚠ poor" in barrier.inner_text()
    _written(barrier.inner_text().split("· ⚠ poor\n")[1], _at_4096(10))
    body = view.locator(".pw-explorer .pw-body")
    assert "-p^(5/3) · ⚠ poor" in body.inner_text()  # CalcTimeConstraintsForElems shrinks
    assert "< 0: model invalid here" in body.inner_text()
    page.wait_for_timeout(300)
    save_screenshot(view, "scaling_view_band_poor")
    # a good fit: no warning
    view.locator(".pw-row", has=page.get_by_text("LagrangeElements", exact=True)).first.click()
    view.get_by_text("quality good", exact=False).wait_for()
    assert chart.locator("text.label", has_text="poor fit").count() == 0
    page_watch.assert_clean()


def test_unticked_runs_are_hollow_rings_in_the_chart(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """The bundled study of 9 runs (matmul_scaling): unticking the first run refits every
    model on the other 8 and the chart keeps that run as a hollow ring of its group's
    color where it was measured, the 8 others filled."""
    state_file = tmp_path / "mm.state.json"
    nb = write_notebook(
        tmp_path / "mm.ipynb",
        [
            "import perfweave as pw",
            STATE_HOOK,
            "mm = pw.datasets.matmul_scaling()\n"
            f"view = watch(pw.ScalingView(mm, 'x', 'time'), {str(state_file)!r})\n"
            "view.focus_node(1)\nview",
        ],
    )
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    view = page.locator(".pw-scaling").first
    chart = view.locator(".pw-scaling-chart")
    chart.locator(FIT).first.wait_for()
    state = wait_state(nb, lambda s: s["name"] == "init_mat" and s["selected"] == 9)
    before = state["model"]
    dots = chart.locator(".dot")
    assert dots.count() == 9
    view.locator(".pw-scaling-runs input[type=checkbox]").first.uncheck()
    state = wait_state(nb, lambda s: s["selected"] == 8)
    assert state["model"] != before  # refitted on the 8 runs left
    view.get_by_text(state["model"], exact=False).first.wait_for()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.pw-scaling-chart .dot')]"
        ".filter(d => getComputedStyle(d).fill === 'none').length === 1"
    )
    styles = [
        d.evaluate("e => [getComputedStyle(e).fill, getComputedStyle(e).stroke]")
        for d in dots.all()
    ]
    hollow = [s for s in styles if s[0] == "none"]
    filled = [s for s in styles if s[0] != "none"]
    assert len(styles) == 9 and len(hollow) == 1 and len(filled) == 8
    assert hollow[0][1] == filled[0][0]  # the ring is drawn in the group's color
    save_screenshot(view, "scaling_view_unticked_hollow")
    page_watch.assert_clean()


def test_the_flame_at_the_target(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """The toggle swaps the calltree for the flame graph predicted at the target; a new
    target redraws it, and the title says the scale."""
    nb = _notebook(tmp_path / "scaling_flame.ipynb")
    server = voila_server(nb)
    page.set_viewport_size({"width": 1200, "height": 1000})
    open_in_voila(page, server.url(), READY)
    view = page.locator(".pw-scaling").first
    view.locator(".pw-scaling-shown button", has_text="flame at target").click()
    flame = view.locator(".pw-flame[data-ready='1']")
    flame.wait_for()
    title = view.locator(".pw-fl-title")
    assert "predicted at mpi.world.size = 2,700 (not run" in title.inner_text()
    assert view.locator(".pw-explorer").count() == 0
    assert not canvas_is_blank(view.locator("canvas.pw-fl-canvas"))
    box = view.locator(".widget-text input").first  # the target box
    box.fill("4096")
    box.press("Enter")
    wait_state(tmp_path / "scaling_flame.ipynb", lambda s: s["target"] == 4096)
    eventually(lambda: "mpi.world.size = 4,096" in title.inner_text(), "the flame kept 2,700")
    save_screenshot(view, "scaling_view_flame_at_target")
    view.locator(".pw-scaling-shown button", has_text="calltree").click()
    view.locator(".pw-explorer[data-ready='1']").wait_for()
    page_watch.assert_clean()
