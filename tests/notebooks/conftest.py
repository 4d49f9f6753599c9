"""Browser fixtures of the widget tests, shared here (one offline Chromium, one JupyterLab for
every notebook). Imported by name: pytest only applies a conftest's fixtures and item hooks to
the tests beside it."""

from __future__ import annotations

from tests.widgets.conftest import (  # noqa: F401 - fixtures and the report hook `page` needs
    browser_context,
    lab,
    lab_server,
    offline_router,
    page,
    page_watch,
    pytest_runtest_makereport,
)
