"""A widget whose kernel is gone (issue 24): in JupyterLab, an explorer and a heatmap are drawn,
the kernel is shut down (or restarted: the new kernel does not know the widgets), then a person
expands a row and changes a heatmap control. Each request gives up after the widget's
``request_timeout`` (set short here, 2 s), the banner says the kernel did not answer, and the
view drawn before stays usable."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.widgets.browser import (
    PageWatch,
    Server,
    eventually,
    open_in_lab,
    save_screenshot,
    write_notebook,
)
from tests.widgets.test_explorer_browser import LULESH
from tests.widgets.test_heatmap_browser import SYNTHETIC

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

GONE = "The Python kernel did not answer (it may have stopped or restarted); the view is unchanged."


def visible_names(widget: Locator) -> list[str]:
    return widget.locator(".pw-row:not([hidden]):not(.pw-loading) .pw-name").all_inner_texts()


def banner_text(widget: Locator) -> str:
    banner = widget.locator(".pw-error").first
    return banner.locator(".pw-error-text").inner_text() if banner.is_visible() else ""


def kernel_state(page: Page) -> str:
    return page.evaluate(
        """() => {
            const w = window.jupyterapp.shell.currentWidget;
            const k = w && w.sessionContext && w.sessionContext.session
                && w.sessionContext.session.kernel;
            return k ? `${k.connectionStatus}/${k.status}` : 'none';
        }"""
    )


def restart_kernels(lab: Server) -> None:
    """Restart every session's kernel, as JupyterLab's "Restart Kernel" does."""
    for session in lab._api("GET", "api/sessions") or []:
        lab._api("POST", f"api/kernels/{session['kernel']['id']}/restart")


@pytest.mark.parametrize("how", ["shut down", "restarted"])
def test_requests_time_out_with_a_banner_when_the_kernel_is_gone(
    how: str, lab: Server, page: Page, page_watch: PageWatch
) -> None:
    name = f"kernel_{how.replace(' ', '_')}"
    write_notebook(
        lab.root_dir / f"{name}.ipynb",
        [
            "import perfweave as pw\n"
            "from perfweave.widgets import CalltreeExplorer, CountMatrixHeatmap",
            SYNTHETIC,
            f"gf = pw.read({str(LULESH)!r}).drop_index_levels()\n"
            "ex = CalltreeExplorer(gf)\nex.request_timeout = 2\nex",
            "hm = CountMatrixHeatmap(synthetic(64, distinct=8))\nhm.request_timeout = 2\nhm",
        ],
    )
    open_in_lab(page, lab, f"{name}.ipynb", ".pw-heatmap[data-ready='1']")
    explorer = page.locator(".pw-explorer[data-ready='1']").first
    heatmap = page.locator(".pw-heatmap[data-ready='1']").first
    eventually(lambda: len(visible_names(explorer)) > 3, "the explorer drew no rows")
    names = visible_names(explorer)
    closed = explorer.locator(".pw-row[aria-expanded='false']").first
    closed_name = closed.locator(".pw-name").inner_text()
    assert banner_text(explorer) == "" and banner_text(heatmap) == ""

    # the kernel goes away (as "Shut Down Kernel" or "Restart Kernel" do); the page keeps its
    # widgets
    if how == "shut down":
        lab.shutdown_kernels()
        eventually(
            lambda: kernel_state(page) != "connected/idle", "the page never saw the kernel go"
        )
    else:
        restart_kernels(lab)  # returns once the new kernel is up

    # expanding a row needs Python: it gives up after 2 s and says why
    closed.locator(".pw-toggle").click()
    eventually(
        lambda: banner_text(explorer) == GONE,
        lambda: f"explorer banner: {banner_text(explorer)!r}",
        timeout=15,
    )
    assert closed.get_attribute("aria-expanded") == "false"
    assert visible_names(explorer) == names  # the last view, unchanged
    # the banner's close button is the banner's own (no widget button style reaches it)
    close = explorer.locator(".pw-error-close").first
    assert close.evaluate("e => getComputedStyle(e).borderTopStyle") == "none"
    assert closed_name in names

    # the view stays usable: the cursor moves through the drawn rows without Python
    body = explorer.locator(".pw-body")
    body.focus()
    body.press("Home")
    body.press("ArrowDown")
    body.press("ArrowDown")
    eventually(
        lambda: explorer.locator(".pw-row.pw-cursor .pw-name").all_inner_texts() == [names[2]],
        lambda: (
            "cursor on " + repr(explorer.locator(".pw-row.pw-cursor .pw-name").all_inner_texts())
        ),
    )

    # a heatmap control: the same banner, and the drawn matrix stays
    canvas_before = heatmap.locator(".pw-hm-canvas").screenshot()
    heatmap.locator(".pw-hm-scale").select_option("log")
    eventually(
        lambda: banner_text(heatmap) == GONE,
        lambda: f"heatmap banner: {banner_text(heatmap)!r}",
        timeout=15,
    )
    assert heatmap.locator(".pw-hm-canvas").screenshot() == canvas_before
    assert heatmap.locator(".pw-hm-scale").input_value() == "linear"  # snapped back
    heatmap.locator(".pw-hm-canvas").hover()  # tooltips still read the drawn blocks
    save_screenshot(explorer, f"{name}_explorer")
    save_screenshot(heatmap, f"{name}_heatmap")
    page_watch.assert_clean()
