"""Browser fixtures: one offline headless Chromium and one JupyterLab per session, Voila per test.

Every test that uses them is marked ``browser`` (so ``-m "not browser"`` leaves them out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.widgets.browser import (
    ARTIFACTS,
    CHROME_ARGS,
    OfflineRouter,
    PageWatch,
    Server,
    chromium_or_skip,
    is_local,
    save_screenshot,
    start_lab,
    start_voila,
)

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import BrowserContext, Page

BROWSER_FIXTURES = {"browser_context", "page", "lab_server", "lab", "voila_server"}
VIEWPORT = {"width": 1200, "height": 900}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``browser`` every test that uses a browser fixture (before ``-m`` selects)."""
    for item in items:
        if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator:
    """Keep each phase's report on the item, so ``page`` can screenshot a failed test."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def offline_router() -> OfflineRouter:
    """Records every request the browser tried to send off this machine (all are aborted)."""
    return OfflineRouter()


@pytest.fixture(scope="session")
def browser_context(offline_router: OfflineRouter) -> Iterator[BrowserContext]:
    """A headless Debian Chromium context (via Playwright) that cannot reach the network."""
    executable = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROME_ARGS
        )
        context = browser.new_context(viewport=VIEWPORT)
        context.route(lambda url: not is_local(url), offline_router)
        yield context
        context.close()
        browser.close()


@pytest.fixture
def page_watch() -> PageWatch:
    """Console errors, page errors and dialogs of the test's ``page``."""
    return PageWatch()


@pytest.fixture
def page(
    browser_context: BrowserContext,
    page_watch: PageWatch,
    offline_router: OfflineRouter,
    request: pytest.FixtureRequest,
) -> Iterator[Page]:
    """A fresh page; at teardown it fails the test on any console error, page error, dialog or
    unexpected network request, and screenshots a failed test to ``tests/artifacts/``."""
    (ARTIFACTS / f"FAILED-{request.node.name}.png").unlink(missing_ok=True)
    new_page = browser_context.new_page()
    page_watch.attach(new_page)
    blocked_before = len(offline_router.blocked)
    yield new_page
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        save_screenshot(new_page, f"FAILED-{request.node.name}")
    new_page.close()
    unexpected = offline_router.unexpected(blocked_before)
    assert not unexpected, "the page tried to reach the network:\n" + "\n".join(unexpected)
    page_watch.assert_clean()


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """JupyterLab for the whole session; tests write notebooks into ``lab_server.root_dir``."""
    chromium_or_skip()
    work = tmp_path_factory.mktemp("lab")
    root = work / "root"
    root.mkdir()
    server = start_lab(root, work / "server")
    yield server
    server.stop()


@pytest.fixture
def lab(lab_server: Server) -> Iterator[Server]:
    """The session's JupyterLab, with the kernels this test started shut down afterwards."""
    yield lab_server
    lab_server.shutdown_kernels()


@pytest.fixture
def voila_server(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """Factory: ``voila_server(notebook, env=None) -> Server`` (single-notebook Voila), stopped
    at teardown. ``server.url()`` is the page to open."""
    chromium_or_skip()
    servers: list[Server] = []

    def start(notebook: Path, env: dict[str, str] | None = None) -> Server:
        server = start_voila(notebook, tmp_path / f"voila{len(servers)}", env=env)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
