"""The explorer's ensemble mode names profiles by their readable labels, not hash ids."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import perfweave as pw
from perfweave.examples import path
from tests.widgets.browser import PageWatch, Server, open_in_voila, save_screenshot, write_notebook

READY = ".pw-explorer[data-ready='1']"


@pytest.fixture(scope="module")
def scaling() -> pw.Ensemble:
    return pw.Ensemble.from_files(sorted(path("mpi_scaling").glob("*.cali")))


def test_glyph_state_carries_labels(scaling) -> None:
    ex = pw.CalltreeExplorer(scaling, metrics=["Avg time/rank"])
    profiles = ex.glyph["profiles"]
    assert profiles == scaling.labels.tolist()
    assert not set(map(str, scaling.profiles)) & set(profiles)


def test_glyph_tooltip_names_lowest_and_highest_profiles(
    voila_server: Callable[..., Server], tmp_path: Path, page, page_watch: PageWatch, scaling
) -> None:
    nb = write_notebook(
        tmp_path / "labels.ipynb",
        [
            "import perfweave as pw\nfrom perfweave.examples import path\n"
            "ens = pw.Ensemble.from_files(sorted(path('mpi_scaling').glob('*.cali')))\n"
            "pw.CalltreeExplorer(ens, metrics=['Avg time/rank'])"
        ],
    )
    server = voila_server(nb)
    widget = open_in_voila(page, server.url(), READY)
    row = widget.locator(".pw-row:not([hidden])").first
    node = int(row.get_attribute("data-node"))
    row.locator(".pw-glyph").hover()
    tip = widget.locator(".pw-tooltip")
    tip.locator("div", has_text="highest:").wait_for()
    lines = tip.locator("div").all_inner_texts()
    values = scaling.dataframe["Avg time/rank"].xs(node, level="node")
    labels = scaling.labels
    lowest = next(x for x in lines if x.startswith("lowest: "))[len("lowest: ") :]
    highest = next(x for x in lines if x.startswith("highest: "))[len("highest: ") :]
    assert labels[values.idxmin()] in lowest.split(", ")
    assert labels[values.idxmax()] in highest.split(", ")
    assert not any(str(p) in " ".join(lines) for p in scaling.profiles)
    save_screenshot(widget, "explorer_ensemble_labels")
    page_watch.assert_clean()
