"""Every notebook in a real JupyterLab (Debian Chromium): run all cells, no error output, no
browser console error, every widget drew; a screenshot of each widget under tests/artifacts/.

It lives beside the widget tests because it needs their session's browser and JupyterLab: a
second set of the same session fixtures elsewhere would start a second Playwright in the same
process, which Playwright's sync API refuses. The notebooks and what they show are listed in
``tests/notebooks/_notebooks.py``."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.notebooks._notebooks import SHOWN, notebook_path
from tests.widgets.browser import Server, canvas_is_blank, open_in_lab, save_screenshot

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import Locator, Page

    from tests.widgets.browser import PageWatch

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: each widget's root element in the page, as its own browser tests know it
ROOTS = {
    # a ScalingView holds an explorer of its own: counted with the ScalingView
    "CalltreeExplorer": ".pw-explorer:not(.pw-scaling .pw-explorer)",
    "ScalingView": ".pw-scaling",
    "CountMatrixHeatmap": ".pw-heatmap",
    "ClassPicker": ".pw-picker",
    "MergePanel": ".pw-merge-panel",
    # a ScalingView's flame (its toggle) would sit inside it: counted with the ScalingView
    "FlameGraph": ".pw-flame:not(.pw-scaling .pw-flame)",
}
OUTPUT = ".jp-Notebook .jp-OutputArea-output"
ERROR_OUTPUT = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"

# "done" once every code cell has run (a number in its prompt) and the kernel is idle; "stopped"
# when the kernel is idle with no cell queued ([*]) but some never ran (run-all stops at an error)
_RUN_STATE_JS = """() => {
    const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
    if (!k || k.status !== 'idle') return '';
    const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]
        .map(p => p.textContent);
    if (prompts.some(p => p.includes('*'))) return '';
    if (prompts.length && prompts.every(p => /\\[\\d+\\]/.test(p))) return 'done';
    return 'stopped';
}"""

# a bqplot figure drew marks (bqplot 0.13's SVG marks): a bar or dot with an area, or a line
# with a length (a flat line has no height); NaN data draws none of these
_FIGURE_DREW_JS = """(fig) => {
    const box = (e) => e.getBBox();
    const area = [...fig.querySelectorAll('rect.bar, path.dot')].map(box);
    const lines = [...fig.querySelectorAll('path.line')].map(box);
    return area.some(b => b.width > 0 && b.height > 0) || lines.some(b => b.width > 0 || b.height > 0);
}"""


def _eventually(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Wait until ``check()`` holds (the page may still be drawing after the kernel is idle)."""
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            pytest.fail(f"{what} within {timeout:.0f} s", pytrace=False)
        time.sleep(0.2)


def _check_widget(kind: str, widget: Locator) -> None:
    """The widget drew its content, not just an empty root."""
    if kind == "CalltreeExplorer":
        rows = widget.locator(".pw-row:not([hidden]) .pw-name")
        _eventually(lambda: rows.count() > 0, "explorer rows drawn")
    elif kind == "CountMatrixHeatmap":
        canvas = widget.locator(".pw-hm-canvas")
        _eventually(lambda: not canvas_is_blank(canvas), "heatmap canvas drawn")
    elif kind == "ClassPicker":
        table = widget.locator(".pw-picker-reportlist")
        classes = widget.locator(".pw-picker-reportlist .pw-pt-hclass")
        _eventually(
            lambda: int(table.get_attribute("data-rows") or 0) > 0 and classes.count() > 0,
            "picker report rows and class columns drawn",
        )
    elif kind == "ScalingView":
        rows = widget.locator(".pw-explorer .pw-row:not([hidden]) .pw-name")
        marks = widget.locator(".pw-scaling-chart")
        _eventually(lambda: rows.count() > 0 and marks.count() > 0, "scaling rows and chart")
        _eventually(lambda: marks.first.evaluate(_FIGURE_DREW_JS), "scaling chart drawn")
    elif kind == "FlameGraph":
        canvas = widget.locator("canvas.pw-fl-canvas")
        _eventually(lambda: not canvas_is_blank(canvas), "flame graph canvas drawn")
    elif kind == "MergePanel":
        figures = widget.locator(".bqplot")
        _eventually(
            lambda: any(f.evaluate(_FIGURE_DREW_JS) for f in figures.all()),
            "merge panel charts drawn",
        )
    assert widget.bounding_box()["height"] > 50, f"{kind} is empty"


@pytest.fixture(scope="module")
def notebooks_in_lab(lab_server: Server) -> Server:
    """The notebooks copied into the session's JupyterLab root (a tmp dir, never the repo)."""
    folder = lab_server.root_dir / "notebooks"
    folder.mkdir(exist_ok=True)
    for name in SHOWN:
        shutil.copy(notebook_path(name), folder / f"{name}.ipynb")
    return lab_server


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_notebook_in_jupyterlab(
    name: str, notebooks_in_lab: Server, lab: Server, page: Page, page_watch: PageWatch
) -> None:
    from playwright.sync_api import expect

    open_in_lab(page, lab, f"notebooks/{name}.ipynb", "*", timeout=180)
    state = page.wait_for_function(_RUN_STATE_JS, timeout=240_000, polling=250).json_value()
    errors = page.locator(ERROR_OUTPUT).all_inner_texts()
    assert not errors, f"{name}: error outputs:\n" + "\n---\n".join(errors)
    assert state == "done", f"{name}: not every cell ran"

    expected = SHOWN[name]
    for kind, root in ROOTS.items():
        widgets = page.locator(f"{OUTPUT} {root}")
        assert widgets.count() == expected.get(kind, 0), f"{name}: {kind} count"
        for i in range(widgets.count()):
            widget = widgets.nth(i)
            widget.scroll_into_view_if_needed()
            if kind in ("CalltreeExplorer", "CountMatrixHeatmap"):
                expect(widget).to_have_attribute("data-ready", "1", timeout=30_000)
            _check_widget(kind, widget)
            save_screenshot(widget, f"notebook_{name}_{kind}_{i}")
    # the notebook's own figures (the merge panel's, picker's and scaling view's charts are theirs)
    figures = page.locator(f"{OUTPUT} .bqplot.figure").all()
    own = [
        f
        for f in figures
        if not f.evaluate("e => !!e.closest('.pw-merge-panel, .pw-picker, .pw-scaling')")
    ]
    assert len(own) == expected.get("bqplot", 0), f"{name}: bqplot figures"
    for i, fig in enumerate(own):
        fig.scroll_into_view_if_needed()
        _eventually(lambda f=fig: f.evaluate(_FIGURE_DREW_JS), f"{name}: figure {i} drew marks")
        save_screenshot(fig, f"notebook_{name}_figure_{i}")
    page.evaluate(  # the page screenshot shows the notebook from its top
        "() => document.querySelectorAll('.jp-WindowedPanel-outer, .jp-Notebook')"
        ".forEach(e => { e.scrollTop = 0; })"
    )
    save_screenshot(page, f"notebook_{name}")
    page_watch.assert_clean()
