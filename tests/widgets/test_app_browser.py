"""`perfweave app`: the Voila dashboard it starts serves the notebook and draws its widgets."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import perfweave as pw
from perfweave.examples import path as example
from tests.widgets.browser import (
    PageWatch,
    Server,
    _jupyter_env,
    _wait_until_up,
    chromium_or_skip,
    free_port,
    open_in_voila,
    save_screenshot,
    write_notebook,
)

ROOT = Path(__file__).resolve().parents[2]
#: what a person running `perfweave app` must not see: warnings, deprecations, version talk
NOISE = re.compile(
    r"warning|deprecat|adapting from protocol|without encryption|cannot be longer|mismatch", re.I
)
URL_LINE = re.compile(r"perfweave: the Voila app at (http://127\.0\.0\.1:(\d+)/\?token=(\w+))")


@pytest.fixture
def perfweave_app(tmp_path: Path) -> Iterator:
    """Factory: ``perfweave_app(notebook_or_None) -> Server`` started by the CLI as a person
    would (``perfweave app [NOTEBOOK] --port P``, no display); stopped at teardown."""
    chromium_or_skip()
    servers: list[Server] = []

    def start(notebook: Path | None) -> Server:
        port = free_port()
        cmd = [sys.executable, "-m", "perfweave", "app", "--port", str(port)]
        cmd += [str(notebook)] if notebook else []
        work = tmp_path / f"app{len(servers)}"
        work.mkdir()
        env = _jupyter_env(work, None)
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        log = work / "app.log"
        with open(log, "w") as fh:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while not (match := URL_LINE.search(log.read_text())) and time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        assert match, f"perfweave app printed no URL:\n{log.read_text()[-3000:]}"
        url, printed_port, token = match.groups()
        assert int(printed_port) == port
        server = Server(proc, f"http://127.0.0.1:{port}", token, ROOT, log)
        servers.append(server)
        return _wait_until_up(server, "tcp", 60.0)

    yield start
    for server in servers:
        server.stop()


def test_app_serves_and_renders_a_notebook(
    perfweave_app, tmp_path: Path, page, page_watch: PageWatch
) -> None:
    nb = write_notebook(
        tmp_path / "dash.ipynb",
        [
            "import perfweave as pw\nfrom perfweave.examples import path\n"
            "pw.CalltreeExplorer(pw.read(path('hatchet-graph-literal.json')))",
            "pw.CountMatrixHeatmap(path('alltoallv'))",
        ],
    )
    server = perfweave_app(nb)
    explorer = open_in_voila(page, server.url(), ".pw-explorer[data-ready='1']")
    gf = pw.read(example("hatchet-graph-literal.json"))
    roots = gf.dataframe.loc[gf.graph.root_ids]
    assert (
        f"{roots['time (inc)'].max():g}"
        in explorer.locator("[role=row]", has_text="foo").first.inner_text()
    )
    page.locator(".pw-heatmap[data-ready='1']").first.wait_for()
    # Voila shows outputs only: no code cell of the notebook is on the page
    assert "CountMatrixHeatmap(" not in page.content()
    # the app is live: a click reaches Python (the row expands or collapses)
    before = int(explorer.get_attribute("data-rows"))
    explorer.get_by_role("button", name="Expand all").click()
    page.wait_for_function(
        "(n) => +document.querySelector('.pw-explorer').dataset.rows !== n", arg=before
    )
    save_screenshot(page, "app_voila_dashboard")
    page_watch.assert_clean()
    noise = [line for line in server.log_path.read_text().splitlines() if NOISE.search(line)]
    assert not noise, "perfweave app printed:\n" + "\n".join(noise)


def test_app_serves_the_tour_by_default(perfweave_app, page, page_watch: PageWatch) -> None:
    tour = ROOT / "notebooks" / "00_tour.ipynb"
    if not tour.is_file():
        pytest.skip(f"skipped: the tour notebook {tour} is not in this checkout yet")
    server = perfweave_app(None)
    open_in_voila(page, server.url(), ".pw-merge-panel .pw-merge-status", timeout=180)
    # one run, the ensemble, and the ScalingView's explorer: each draws when its first
    # rows arrive, in no fixed order after the merge panel's status (wait, then count)
    page.locator(".pw-explorer[data-ready='1']").nth(2).wait_for()
    assert page.locator(".pw-explorer").count() == 3
    page.locator(".pw-scaling .pw-scaling-chart path.line").first.wait_for()
    page.locator(".pw-heatmap[data-ready='1']").first.wait_for()
    page.locator(".pw-picker .pw-pt-row").first.wait_for()
    save_screenshot(page, "app_voila_tour")
    page_watch.assert_clean()
    noise = [line for line in server.log_path.read_text().splitlines() if NOISE.search(line)]
    assert not noise, "perfweave app printed:\n" + "\n".join(noise)
