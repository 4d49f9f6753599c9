"""The browser fixtures work end to end: a trivial inline anywidget in JupyterLab and in Voila."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.widgets.browser import (
    OfflineRouter,
    PageWatch,
    Server,
    canvas_is_blank,
    open_in_lab,
    open_in_voila,
    save_screenshot,
    write_notebook,
)

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import BrowserContext, Page

pytestmark = pytest.mark.browser

SMOKE_WIDGET = '''
import anywidget
import traitlets


class Smoke(anywidget.AnyWidget):
    _esm = """
    function render({ model, el }) {
        const label = document.createElement("div");
        label.className = "smoke";
        label.textContent = model.get("label");
        const drawn = document.createElement("canvas");
        drawn.className = "smoke-drawn";
        drawn.width = 120;
        drawn.height = 60;
        const ctx = drawn.getContext("2d");
        ctx.fillStyle = "#2a7ab0";
        ctx.fillRect(20, 10, 80, 40);
        const blank = document.createElement("canvas");
        blank.className = "smoke-blank";
        blank.width = 30;
        blank.height = 30;
        el.append(label, drawn, blank);
    }
    export default { render };
    """
    label = traitlets.Unicode("").tag(sync=True)
'''


def _smoke_notebook(path: Path, label: str) -> Path:
    return write_notebook(path, [SMOKE_WIDGET, f"Smoke(label={label!r})"])


def _check_smoke(page: Page, label: str) -> None:
    assert page.locator(".smoke").inner_text() == label
    assert not canvas_is_blank(page.locator("canvas.smoke-drawn"))
    assert canvas_is_blank(page.locator("canvas.smoke-blank"))  # the check can say "blank"


def test_smoke_widget_in_jupyterlab(lab: Server, page: Page, page_watch: PageWatch) -> None:
    _smoke_notebook(lab.root_dir / "smoke.ipynb", "smoke in lab")
    open_in_lab(page, lab, "smoke.ipynb", "canvas.smoke-blank")
    _check_smoke(page, "smoke in lab")
    save_screenshot(page, "smoke_lab")
    save_screenshot(page.locator(".jp-OutputArea-output:has(.smoke)"), "smoke_lab_widget")
    page_watch.assert_clean()


def test_smoke_widget_in_voila(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    server = voila_server(_smoke_notebook(tmp_path / "smoke.ipynb", "smoke in voila"))
    open_in_voila(page, server.url(), "canvas.smoke-blank")
    _check_smoke(page, "smoke in voila")
    save_screenshot(page, "smoke_voila")
    page_watch.assert_clean()


def test_guards_see_errors_dialogs_and_network(
    browser_context: BrowserContext, offline_router: OfflineRouter
) -> None:
    """The page guards are not vacuous: an error, a dialog and a remote request are all caught."""
    watch = PageWatch()
    blocked_before = len(offline_router.blocked)
    probe = browser_context.new_page()
    watch.attach(probe)
    try:
        probe.set_content(
            "<script>console.error('boom'); alert('xss');"
            "fetch('https://example.invalid/x').catch(() => {});</script>"
        )
        probe.wait_for_timeout(200)
    finally:
        probe.close()
    assert any("boom" in error for error in watch.errors)
    assert watch.dialogs == ["alert: xss"]
    assert offline_router.unexpected(blocked_before) == ["https://example.invalid/x"]
