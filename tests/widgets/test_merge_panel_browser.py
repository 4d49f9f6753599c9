"""MergePanel in a real browser (JupyterLab and Voila on Debian's chromium).

The notebook makes the kernel write the panel's Python state to a JSON file after every
redraw, so the test checks that what the page shows and what Python holds agree. The redraw
time after a slider step (key press on the slider to the new matrices and status on the
page) is measured in the page and printed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.widgets.browser import (
    AFTER_MESSAGE,
    PageWatch,
    Server,
    eventually,
    open_in_lab,
    open_in_voila,
    save_screenshot,
    wait_state,
    write_notebook,
)

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

READY = ".pw-merge-panel .pw-merge-status"
XSS = "<img src=x onerror=alert(1)>"

STATE_HOOK = (
    AFTER_MESSAGE
    + """
import dataclasses, json

def watch(panel, path):
    def write():
        d = panel.diagnostics
        state = {
            "version": panel.view_version,
            "settings": dataclasses.asdict(panel.settings),
            "kept": panel.kept,
            "dropped": panel.dropped["dropped"].tolist(),
            "pair": list(panel.pair) if panel.pair else None,
            "error": panel.error,
            "status": panel._status.value,
            "anchors": panel.anchors,
            "chosen": getattr(d, "chosen", None),
            "n_scores": len(getattr(d, "scores", [])),
            "design": None if panel.design is None else {
                "n": panel.design.n_subexperiments,
                "bound": panel.design.proven_bound,
                "blocks": [list(b) for b in panel.design.blocks],
            },
            "draw_ms": panel.last_draw_ms,
            "compute_ms": panel.last_compute_ms,
        }
        with open(path, "w") as f:
            json.dump(state, f)
    dump = after_message(write)
    panel.observe(dump, names=["view_version", "error"])
    write()
    return panel
"""
)

# time from the key press on a slider to the page showing the new status and matrix cells
_REDRAW_JS = """
([status, cells]) => {
  const root = document.querySelector('.pw-merge-panel');
  const s = root.querySelector('.pw-merge-status');
  const text = s ? s.textContent : '';
  const n = root.querySelectorAll('.pw-merge-achieved .pw-matrix-cell').length;
  if (text.includes(status) && n === cells && window.__pwT0 !== undefined) {
    return performance.now() - window.__pwT0;
  }
  return false;
}
"""

_ARM_JS = """
() => {
  if (!window.__pwArmed) {
    window.__pwArmed = true;
    for (const ev of ['keydown', 'pointerup', 'click']) {
      document.addEventListener(ev, () => { window.__pwT0 = performance.now(); }, true);
    }
  }
}
"""


# widths in px: the output area, the panel, the slider tracks; elements sticking out on the
# right (the merged-table preview scrolls sideways in its own box); labels cut
_LAYOUT_JS = """
(root) => {
  const area = root.closest('.jp-OutputArea-output') || root.parentElement;
  const right = area.getBoundingClientRect().right;
  const out = [];
  for (const el of root.querySelectorAll('.jupyter-widgets, table, svg')) {
    if (el.parentElement.closest('.pw-merge-scroll')) continue;  // scrolls in its own box
    const b = el.getBoundingClientRect();
    if (b.width > 0 && b.right > right + 1) {
      const cls = typeof el.className === 'string' ? el.className : el.className.baseVal;
      out.push(el.tagName + '.' + cls.split(' ').slice(-2).join('.') + ' ' + Math.round(b.right));
    }
  }
  const cut = [...root.querySelectorAll('.widget-label, .widget-html-content')]
    .filter((e) => e.offsetWidth > 0 && e.scrollWidth > e.clientWidth + 1)
    .map((e) => e.textContent.slice(0, 40));
  const track = (sel) => {
    const t = root.querySelector(sel + ' .noUi-target');
    return t ? t.getBoundingClientRect().width : null;
  };
  return {
    area: area.getBoundingClientRect().width,
    panel: root.getBoundingClientRect().width,
    dep_track: track('.pw-merge-dep'),
    sims_track: track('.pw-merge-sims'),
    outside: out,
    cut: cut,
  };
}
"""


def check_layout(panel: Locator) -> dict:
    """The panel fits its output area: nothing sticks out, no label cut, sliders usable."""
    got = panel.evaluate(_LAYOUT_JS)
    assert got["panel"] <= got["area"] + 1, got
    assert not got["outside"], got
    assert not got["cut"], got
    for track in ("dep_track", "sims_track"):
        assert not got[track] or got[track] >= 150, got  # None/0: hidden (HRM)
    return got


def axis_labels(panel: Locator, figure: str) -> list[str]:
    return panel.locator(f"{figure} .axislabel").evaluate_all(
        "els => els.map((e) => e.textContent)"
    )


def wait_axis_labels(panel: Locator, figure: str, want: list[str], timeout: float = 10.0):
    """Wait until the figure's axis labels (x, y) are ``want``."""
    eventually(
        lambda: axis_labels(panel, figure) == want,
        lambda: f"{figure} axis labels {axis_labels(panel, figure)}, expected {want}",
        timeout,
    )


def score_ticks(panel: Locator) -> list[str]:
    """Tick labels of the score chart's x axis (the simulation numbers)."""
    return (
        panel.locator(".pw-merge-scores .axis")
        .first.locator(".tick text")
        .evaluate_all("els => els.map((e) => e.textContent)")
    )


def panel_notebook(path: Path, make_panel: str) -> Path:
    state = path.with_suffix(".state.json")
    return write_notebook(
        path,
        [
            "import perfweave.merge as pm\nfrom perfweave.widgets import MergePanel",
            STATE_HOOK,
            f"panel = watch({make_panel}, {str(state)!r})\npanel",
        ],
    )


VIGNETTE = "MergePanel(pm.process_raw_experiments(pm.load_vignette('much'), 6), seed=1)"


def wait_cells(panel: Locator, figure: str, n: int) -> None:
    from playwright.sync_api import expect

    expect(panel.locator(f"{figure} .pw-matrix-cell")).to_have_count(n, timeout=15_000)


def measure_redraw(panel: Locator, press: Callable[[], None], status: str, cells: int) -> float:
    """Milliseconds from the input event to the page showing ``status`` and ``cells`` cells."""
    page = panel.page
    page.evaluate(_ARM_JS)
    press()
    handle = page.wait_for_function(_REDRAW_JS, arg=[status, cells], polling="raf", timeout=15_000)
    return float(handle.json_value())


def status_text(panel: Locator) -> str:
    return panel.locator(".pw-merge-status").inner_text()


def check_views_agree(panel: Locator, state: dict) -> None:
    """Status, kept table, matrices and scatter axes on the page equal Python's state."""
    from playwright.sync_api import expect

    expect(panel.locator(".pw-merge-status")).to_have_text(state["status"], timeout=15_000)
    n = len(state["kept"])
    wait_cells(panel, ".pw-merge-target", n * n)
    wait_cells(panel, ".pw-merge-achieved", n * n)
    kept_text = panel.locator(".pw-merge-kept").inner_text()
    for hem in state["kept"] + state["dropped"]:
        assert hem in kept_text
    x, y = state["pair"]
    axis_text = panel.locator(".pw-merge-scatter").inner_text()
    assert x in axis_text and y in axis_text


def expect_status(panel: Locator, state: dict) -> None:
    from playwright.sync_api import expect

    expect(panel.locator(".pw-merge-status")).to_have_text(state["status"], timeout=15_000)


_MATRIX_JS = """
(root) => ({
  cols: [...root.querySelectorAll('.pw-matrix-col')].map((e) => [e.textContent, e.title]),
  rows: [...root.querySelectorAll('.pw-matrix-row')].map((e) => [e.textContent, e.title]),
  // a label whose box overlaps the next one's (names running together)
  overlap: [...root.querySelectorAll('.pw-matrix-col')].some((e, k, all) => k > 0 &&
    e.getBoundingClientRect().left < all[k - 1].getBoundingClientRect().right - 0.5),
  // text and background of each cell that shows a value
  cells: [...root.querySelectorAll('.pw-matrix-cell')].filter((e) => e.textContent)
    .map((e) => [e.textContent, getComputedStyle(e).color, getComputedStyle(e).backgroundColor]),
})
"""


def _luminance(css: str) -> float:
    r, g, b = (int(v) / 255 for v in css[css.index("(") + 1 : css.index(")")].split(",")[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def check_matrix_labels(panel: Locator, kept: list[str]) -> None:
    """Matrices are labelled with the HEM names (full name on hover), labels never run
    together, and every value reads on its cell (contrast ratio of at least 4.5)."""
    from perfweave.widgets._matrix import abbreviate

    got = panel.locator(".pw-merge-target").evaluate(_MATRIX_JS)
    assert got["cols"] == [[a, k] for a, k in zip(abbreviate(kept), kept)]
    assert got["rows"] == got["cols"] and not got["overlap"]
    assert got["cells"], "values are written while cells are large enough"
    for text, fg, bg in got["cells"]:
        lf, lb = _luminance(fg), _luminance(bg)
        ratio = (max(lf, lb) + 0.05) / (min(lf, lb) + 0.05)
        assert ratio >= 4.5, (text, fg, bg, ratio)


def set_readout(control: Locator, value: str) -> None:
    readout = control.locator(".widget-readout")
    readout.click()
    readout.press("Control+a")
    readout.type(value)
    readout.press("Enter")


def test_merge_panel_in_jupyterlab(lab: Server, page: Page, page_watch: PageWatch) -> None:
    from playwright.sync_api import expect

    nb = panel_notebook(lab.root_dir / "merge_panel.ipynb", VIGNETTE)
    open_in_lab(page, lab, "merge_panel.ipynb", READY)
    panel = page.locator(".pw-merge-panel").first
    state = wait_state(nb, lambda s: s["version"] >= 1)
    assert state["settings"]["dep_lvl"] == 0.85 and len(state["kept"]) == 7
    check_views_agree(panel, state)
    assert "simulation" in state["status"] and "chosen" in state["status"]
    # the chosen simulation is marked on the scores chart
    assert f"chosen #{state['chosen'] + 1}" in panel.locator(".pw-merge-scores").inner_text()
    layout = check_layout(panel)
    ticks = score_ticks(panel)
    assert ticks and all(t.isdigit() and 1 <= int(t) <= state["n_scores"] for t in ticks), ticks
    print(f"\nMergePanel layout in JupyterLab: {layout}; score x ticks {ticks}")
    check_matrix_labels(panel, state["kept"])
    save_screenshot(panel, "merge_panel_lab_much")

    # dep_lvl typed into the slider's readout: fewer HEMs kept, DOM and Python agree
    set_readout(panel.locator(".pw-merge-dep"), "0.70")
    state = wait_state(nb, lambda s: s["settings"]["dep_lvl"] == 0.7)
    assert len(state["kept"]) == 6
    check_views_agree(panel, state)

    # slider steps by keyboard: redraw time measured in the page
    times = []
    dep_handle = panel.locator(".pw-merge-dep .noUi-handle")
    for value, kept in (("0.71", 6), ("0.72", 6)):
        ms = measure_redraw(
            panel, lambda h=dep_handle: h.press("ArrowRight"), f"dep_lvl {value}", kept * kept
        )
        times.append(("dep_lvl -> " + value, ms))
    version = wait_state(nb, lambda s: True)["version"]
    sims_handle = panel.locator(".pw-merge-sims .noUi-handle")
    for n_sims in (110, 120, 130):  # noqa: B007
        ms = measure_redraw(
            panel, lambda: sims_handle.press("ArrowRight"), f"of {n_sims} chosen", 36
        )
        times.append((f"n_sims -> {n_sims}", ms))
    state = wait_state(nb, lambda s: s["settings"]["n_sims"] == 130)
    assert state["n_scores"] == 130 and state["version"] == version + 3
    check_views_agree(panel, state)
    print("\nMergePanel redraw in JupyterLab (input event -> new status and matrices on page):")
    for what, ms in times:
        print(f"  {what:18s} {ms:7.1f} ms")
    print(
        f"  Python compute {state['compute_ms']:.1f} ms, widget updates {state['draw_ms']:.1f} ms"
    )

    # a fast drag sends one value on release: no backlog of recomputations
    version = wait_state(nb, lambda s: True)["version"]
    box = sims_handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    for k in range(1, 25):
        page.mouse.move(box["x"] + box["width"] / 2 + 4 * k, box["y"] + box["height"] / 2)
    page.mouse.up()
    state = wait_state(nb, lambda s: s["version"] > version)
    time.sleep(1.0)
    state = wait_state(nb, lambda s: True)
    assert state["version"] == version + 1, "a drag must cause one recomputation"
    assert state["settings"]["n_sims"] > 130
    check_views_agree(panel, state)

    # a click on a matrix cell (row 4, column 2) picks the pair x = HEM 2, y = HEM 4: Python's
    # pair, the scatter's axis labels and the marginals' titles agree
    kept = state["kept"]
    n = len(kept)
    for figure in (".pw-merge-achieved", ".pw-merge-target"):
        for row, col in ((3, 1), (0, n - 1)):
            version = wait_state(nb, lambda s: True)["version"]
            panel.locator(f"{figure} .pw-matrix-cell").nth(row * n + col).click()
            state = wait_state(nb, lambda s, v=version: s["version"] > v)
            assert state["pair"] == [kept[col], kept[row]]
            wait_axis_labels(panel, ".pw-merge-scatter", [kept[col], kept[row]])
            expect(panel.locator(".pw-merge-marg-x")).to_contain_text(f"x: {kept[col]}")
            expect(panel.locator(".pw-merge-marg-y")).to_contain_text(f"y: {kept[row]}")
    save_screenshot(panel, "merge_panel_lab_picked")

    # HRM: the anchor dropdown lists the HEMs read in every subexperiment
    panel.locator(".pw-merge-method button", has_text="HRM").click()
    state = wait_state(nb, lambda s: s["settings"]["method"] == "hrm")
    expect_status(panel, state)  # the page has drawn this state before it is read
    select = panel.locator(".pw-merge-anchor select")
    assert select.locator("option").all_inner_texts() == state["anchors"]
    assert select.input_value() == state["settings"]["anchor"] == "PROCESSOR_CYCLES"
    assert "HRM" in state["status"]
    assert panel.locator(".pw-merge-dep").is_hidden()
    check_layout(panel)
    save_screenshot(panel, "merge_panel_lab_hrm")
    panel.locator(".pw-merge-method button", has_text="MUCH").click()
    state = wait_state(nb, lambda s: s["settings"]["method"] == "much")
    check_views_agree(panel, state)

    # a bad value: message in the panel, previous result kept
    kept_before = state["kept"]
    runs = panel.locator(".pw-merge-runs input")
    runs.fill("1")
    runs.press("Enter")
    time.sleep(0.5)
    # BoundedIntText clamps to its minimum (2) in the browser: a valid value, no error
    state = wait_state(nb, lambda s: s["settings"]["n_runs"] == 2 or bool(s["error"]))
    assert state["kept"] == kept_before

    # design tab: HEMs and PMCs in, covering design out, CSV link
    page.get_by_role("tab", name="Design").click()
    hems = "\n".join(f"EV{i}" for i in range(12))
    panel.locator("textarea").fill(hems)
    pmcs = panel.get_by_role("spinbutton", name="PMCs", exact=True)
    pmcs.fill("5")
    pmcs.press("Enter")
    panel.locator(".pw-merge-build").click()
    state = wait_state(nb, lambda s: s["design"] is not None, timeout=30)
    design = state["design"]
    table = panel.locator(".pw-merge-design-table table tbody tr")
    table.nth(design["n"] - 1).wait_for()  # Python writes its state before the page draws
    assert table.count() == design["n"]
    assert table.first.inner_text().split("\t")[1:] == design["blocks"][0]
    summary = panel.locator(".pw-merge-design-summary").inner_text()
    assert f"{design['n']} subexperiments" in summary
    assert f"proven lower bound {design['bound']}" in summary
    href = panel.locator(".pw-merge-csv-link").get_attribute("href")
    assert href.startswith("data:text/csv;base64,")
    save_screenshot(panel, "merge_panel_lab_design")
    page_watch.assert_clean()


HRM_VIGNETTE = Path(__file__).resolve().parents[1] / "data" / "merge" / "data_hrm_raw_vignette.csv"


def test_merge_panel_not_available_in_jupyterlab(lab: Server, page: Page) -> None:
    """Pairs never read together: MUCH is one 'not available' line, not placeholder charts;
    HRM works and its pooled correlation is one line in place of the matrix."""
    from playwright.sync_api import expect

    make = f"MergePanel({str(HRM_VIGNETTE)!r}, n_pmcs=6)"  # the raw CSV
    nb = panel_notebook(lab.root_dir / "merge_na.ipynb", make)
    open_in_lab(page, lab, "merge_na.ipynb", ".pw-merge-panel .pw-merge-unavailable")
    panel = page.locator(".pw-merge-panel").first
    state = wait_state(nb, lambda s: "never read" in s["error"])
    na = panel.locator(".pw-merge-unavailable")
    expect(na).to_contain_text("MUCH not available")
    assert panel.locator(".pw-matrix-cell").count() == 0
    assert panel.locator(".pw-merge-scatter").is_hidden()
    expect(panel.locator(".pw-error").first).to_contain_text("never read in the same")
    save_screenshot(panel, "merge_panel_lab_not_available")
    panel.locator(".pw-merge-method button", has_text="HRM").click()
    state = wait_state(nb, lambda s: s["settings"]["method"] == "hrm" and not s["error"])
    expect_status(panel, state)
    expect(panel.locator(".pw-merge-target .pw-matrix-note")).to_contain_text(
        "not available: 75 HEM pair(s) never read"
    )
    assert panel.locator(".pw-merge-target .pw-matrix-cell").count() == 0
    wait_cells(panel, ".pw-merge-achieved", 16 * 16)
    check_layout(panel)
    save_screenshot(panel, "merge_panel_lab_hrm_pooled_na")


def test_merge_panel_in_voila(
    tmp_path: Path, voila_server: Callable[..., Server], page: Page, page_watch: PageWatch
) -> None:
    make = (
        "MergePanel([pd.DataFrame({X: a + 50, 'B': b + 80}), pd.DataFrame({X: a + 50, "
        "'C': c + 60}), pd.DataFrame({'B': b + 80, 'C': c + 60})], seed=0)"
    )
    setup = (
        "import numpy as np, pandas as pd\n"
        f"X = {XSS!r}\n"
        "rng = np.random.default_rng(2)\n"
        "a, b, c = (rng.normal(size=300) for _ in range(3))"
    )
    state_path = tmp_path / "merge_voila.state.json"
    nb = write_notebook(
        tmp_path / "merge_voila.ipynb",
        [
            "import perfweave.merge as pm\nfrom perfweave.widgets import MergePanel",
            STATE_HOOK,
            setup,
            f"panel = watch({VIGNETTE}, {str(state_path)!r})\npanel",
            f"evil = {make}\nevil",
        ],
    )
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    panels = page.locator(".pw-merge-panel")
    panels.nth(1).locator(".pw-merge-status").wait_for()
    panel = panels.first
    state = wait_state(nb, lambda s: s["version"] >= 1)
    check_views_agree(panel, state)
    set_readout(panel.locator(".pw-merge-dep"), "0.60")
    state = wait_state(nb, lambda s: s["settings"]["dep_lvl"] == 0.6)
    assert len(state["kept"]) == 5
    check_views_agree(panel, state)
    ms = measure_redraw(
        panel,
        lambda: panel.locator(".pw-merge-sims .noUi-handle").press("ArrowRight"),
        "of 110 chosen",
        25,
    )
    print(f"\nMergePanel redraw in Voila, n_sims 100 -> 110: {ms:.1f} ms")
    panel.locator(".pw-merge-method button", has_text="HRM").click()
    state = wait_state(nb, lambda s: s["settings"]["method"] == "hrm")
    expect_status(panel, state)
    panel.locator(".pw-merge-method button", has_text="MUCH").click()
    wait_state(nb, lambda s: s["settings"]["method"] == "much")
    save_screenshot(panel, "merge_panel_voila")
    # half a laptop screen and a wide monitor: the panel still fits, nothing cut
    for width in (760, 1700):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(300)  # bqplot re-lays its figures on resize
        got = check_layout(panel)
        assert got["panel"] <= width, got
        save_screenshot(panel, f"merge_panel_voila_{width}px")
    # a markup HEM name is shown as text, never run
    evil = panels.nth(1)
    assert XSS in evil.locator(".pw-merge-kept").inner_text()
    assert XSS in evil.locator(".pw-merge-preview").inner_text()
    assert page.locator("img[src=x]").count() == 0
    page_watch.assert_clean()
