"""Numbers in the explorer, in a real browser (Voila on Debian's chromium): a Caliper
profile's units and one number format per column, and bars that sit beside the digits
(compare mode; the narrow explorer of a ScalingView), never through them."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.widgets.browser import (
    PageWatch,
    Server,
    open_in_voila,
    save_screenshot,
    write_notebook,
)

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[1] / "data"
SAMPLING = DATA / "calltree-sampling/sampling-profile.cali"
MPI = DATA / "thicket/mpi_scaling_cali"
READY = ".pw-explorer[data-ready='1']"
SHOWN = ".pw-row:not([hidden]):not(.pw-loading)"

# every shown metric cell of a widget: its column, its text, and the boxes of its parts
CELLS = """(root) => [...root.querySelectorAll(".pw-row:not([hidden]):not(.pw-loading)")].flatMap(
  (row) => [...row.querySelectorAll(".pw-metric")].map((cell, column) => {
    const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.right, r.width]; };
    return { column, text: cell.querySelector(".pw-val").textContent,
             bar: box(cell.querySelector(".pw-bar")), val: box(cell.querySelector(".pw-val")),
             pct: box(cell.querySelector(".pw-pct")), cell: box(cell) };
  }))"""
# the note under each metric header ("ms · % of the whole run"), "" where it has none
HEAD_NOTES = """(root) => [...root.querySelectorAll(".pw-hcell.pw-hmetric")].map(
  (cell) => cell.querySelector(".pw-hnote")?.textContent ?? "")"""
NUMBER = re.compile(r"^-?[\d,]+(\.\d+)?( (s|ms|µs|ns))?$")


def cells(widget: Locator) -> list[dict]:
    return widget.evaluate(CELLS)


def one_format_per_column(shown: list[dict]) -> dict[int, tuple[str, int]]:
    """Each column's (unit, decimals), asserting every non-zero cell of it has the same
    ones and none is in e-notation."""
    formats: dict[int, set[tuple[str, int]]] = {}
    for c in shown:
        text = c["text"]
        assert "e-" not in text and "e+" not in text, text
        assert NUMBER.match(text), text
        number, _, unit = text.partition(" ")
        # an exact 0 is written "0"; a value below the column's resolution keeps two
        # significant digits of its own ("0.00026 s" under "68.16 s"), never reads as 0
        if number != "0" and not re.fullmatch(r"-?0\.0*[1-9]\d?", number):
            formats.setdefault(c["column"], set()).add((unit, len(number.partition(".")[2])))
    for column, found in formats.items():
        assert len(found) == 1, f"column {column} mixes formats {found}"
    return {column: next(iter(found)) for column, found in formats.items()}


def bars_beside_digits(shown: list[dict]) -> int:
    """Assert no drawn bar overlaps its cell's number or share; the count of bars drawn."""
    drawn = 0
    for c in shown:
        left, right, width = c["bar"]
        if width < 0.5:
            continue
        drawn += 1
        for part in ("val", "pct"):
            p_left, p_right, p_width = c[part]
            if p_width > 0:
                assert right <= p_left + 0.5 or left >= p_right - 0.5, (c["text"], c)
    return drawn


def test_a_caliper_profile_shows_its_units_one_format_per_column(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """The sampling profile's ``time`` is seconds (Caliper's attribute metadata) and its
    column, from 68 ms at the top down to single samples, is written in one step with one
    number of decimals; the lulesh profile's time.duration columns likewise."""
    nb = write_notebook(
        tmp_path / "cali.ipynb",
        [
            "import warnings\nimport perfweave as pw\nwarnings.simplefilter('ignore')",
            f"pw.CalltreeExplorer(pw.read({str(SAMPLING)!r}), height=400)",
            "pw.CalltreeExplorer(pw.datasets.lulesh(), height=400)",
        ],
    )
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    page.locator(READY).nth(1).wait_for()
    for i, name in enumerate(("explorer_voila_cali_units", "explorer_voila_cali_lulesh")):
        widget = page.locator(".pw-explorer").nth(i)
        widget.get_by_role("button", name="Expand all").click()
        page.wait_for_function(
            "(el) => el.querySelectorAll('.pw-row:not([hidden]):not(.pw-loading)').length >= 12",
            arg=widget.element_handle(),
        )
        heads = widget.locator(".pw-hcell.pw-hmetric").all_inner_texts()
        notes = widget.evaluate(HEAD_NOTES)
        formats = one_format_per_column(cells(widget))
        timed = [i for i, h in enumerate(heads) if "time" in h]
        assert timed and all(formats[i][0] in ("s", "ms", "µs", "ns") for i in timed), formats
        # the header names the unit its cells are written in: never "s" above "124.0 ms"
        for i in timed:
            assert notes[i].split(" · ")[0] == formats[i][0], (heads[i], formats[i])
        assert all(formats[i][0] == "" for i, h in enumerate(heads) if h.startswith("count"))
        save_screenshot(widget, name)
    page_watch.assert_clean()


def test_bars_sit_beside_the_digits(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    """Compare mode (two runs of the MPI scaling study: Δ bars from the middle of the
    cell) and the narrow explorer beside a ScalingView: every bar ends before its number."""
    nb = write_notebook(
        tmp_path / "bars.ipynb",
        [
            "import perfweave as pw",
            f"a = pw.read({str(MPI / '27_cores.cali')!r})\n"
            f"b = pw.read({str(MPI / '64_cores.cali')!r})\n"
            "pw.CalltreeExplorer(a, compare=b, metrics=['Avg time/rank'], hot_levels=8)",
            "pw.ScalingView(pw.datasets.mpi_scaling(), 'mpi.world.size', 'Avg time/rank')",
        ],
    )
    server = voila_server(nb)
    open_in_voila(page, server.url(), READY)
    page.locator(READY).nth(1).wait_for()
    compare = page.locator(".pw-explorer").nth(0)
    shown = cells(compare)
    diffs = compare.locator(f"{SHOWN} .pw-bar.pw-pos, {SHOWN} .pw-bar.pw-neg")
    assert diffs.count() > 0
    assert bars_beside_digits(shown) > 0
    one_format_per_column(shown)
    save_screenshot(compare, "explorer_voila_compare_bars")

    beside = page.locator(".pw-scaling .pw-explorer").first
    beside.locator(SHOWN).first.wait_for()
    shown = cells(beside)
    assert bars_beside_digits(shown) > 0
    save_screenshot(page.locator(".pw-scaling").first, "scaling_view_explorer_bars")
    page_watch.assert_clean()
