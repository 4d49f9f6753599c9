"""The call sites of the WRF run in a CalltreeExplorer linked to the CountMatrixHeatmap of
their calls, in a real browser (Voila + headless Chromium): a click on a frame in the tree
shows its calls in the heatmap, a call group picked in the heatmap selects its call sites in
the tree. The kernel writes both widgets' Python state to a JSON file on every change, so the
test checks that the page and Python agree; screenshots go to tests/artifacts/."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import perfweave.counts as pc
from tests.widgets.browser import (
    AFTER_MESSAGE,
    PageWatch,
    Server,
    canvas_is_blank,
    eventually,
    open_in_voila,
    save_screenshot,
    wait_state,
    write_notebook,
)

if TYPE_CHECKING:  # pragma: no cover
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[1] / "data" / "counts"

STATE_HOOK = (
    AFTER_MESSAGE
    + """
import json

def watch(ex, hm, path):
    graph = ex.original.graph
    def write():
        state = {
            "selected": ex.selected_nodes, "group": hm.group_index, "note": hm.note,
            "version": hm.view_version, "error": ex.error or hm.error,
            "group_labels": hm.group_labels,
            "groups": [g.calls.tolist() for g in hm.profile.call_groups(0)],
            "names": [str(n) for n in graph.frames["name"]],
            "parents": [int(p) for p in graph.parent],
            "site_nodes": [int(n) for n in ex.graphframe.metadata["call_sites"]["node"]],
        }
        with open(path, "w") as out:
            json.dump(state, out)
    dump = after_message(write)
    ex.observe(dump, names=["selected_nodes", "error"])
    hm.observe(dump, names=["view_version", "group_index", "error"])
    write()
"""
)


def _traces(d: Path) -> dict[int, set[int]]:
    """The calls of each call site, by site number = trace number, from the files' text
    (WRF's 10 stacks are distinct, so site k is trace k)."""
    out = {}
    for p in d.glob("alltoallv_backtrace_rank0_trace*.md"):
        text = re.search(r"^Calls: (.*)$", p.read_text(), re.M)[1]
        out[int(re.search(r"trace(\d+)", p.name)[1])] = set(pc.parse_ranklist(text).tolist())
    return out


def test_call_sites_and_heatmap_follow_each_other_in_voila(
    voila_server: Callable[..., Server], tmp_path: Path, page: Page, page_watch: PageWatch
) -> None:
    d = tmp_path / "wrf"
    shutil.copytree(DATA / "wrf_all_calls", d)
    for name in ("execution", "late_arrival"):
        f = f"alltoallv_{name}_times.rank0_comm0_job5471563.md"
        shutil.copy(DATA / "wrf_160ranks_niagara_job5471563" / f, d / f)
    nb = tmp_path / "sites.ipynb"
    write_notebook(
        nb,
        [
            "import warnings\nimport perfweave as pw\nimport perfweave.counts as pc",
            STATE_HOOK,
            f"prof = pc.read({str(d)!r})\n"
            "with warnings.catch_warnings():\n"
            "    warnings.simplefilter('ignore')  # communicator 1 has no timings here\n"
            "    sites = prof.call_sites()\n"
            "ex = pw.CalltreeExplorer(sites, ['bytes_sent (inc)', 'calls (inc)', 'time (inc)'],"
            " height=420)\n"
            "hm = pw.CountMatrixHeatmap(prof, height=440)\n"
            f"pw.link(ex, hm)\nwatch(ex, hm, {str(nb.with_suffix('.state.json'))!r})\nex",
            "hm",
        ],
    )
    server = voila_server(nb)
    page.set_viewport_size({"width": 1300, "height": 1000})
    open_in_voila(page, server.url(), ".pw-heatmap[data-ready='1']")
    explorer = page.locator(".pw-explorer").first
    heatmap = page.locator(".pw-heatmap").first
    explorer.locator(".pw-row").first.wait_for()
    state = wait_state(nb, lambda s: s["version"] >= 1)
    traces = _traces(d)
    names, parents = state["names"], state["parents"]

    # a click on a frame in the tree: the heatmap shows the calls made below it
    (frame,) = [
        n
        for n, name in enumerate(names)
        if name == "wrf.exe [0x575212]" and names[parents[n]] == "wrf.exe [0x418131]"
    ]
    below = {s for s, node in enumerate(state["site_nodes"]) if _is_below(parents, node, frame)}
    row = explorer.locator(f".pw-row[data-node='{frame}']")
    row.click()
    state = wait_state(nb, lambda s: s["selected"] == [frame] and "call site" in s["note"])
    made = set().union(*(traces[s] for s in below))
    holding = [k for k, calls in enumerate(state["groups"]) if made & set(calls)]
    assert state["group"] == holding[0]
    (site,) = below
    assert state["note"].startswith(f"call site {site} (") and f"{len(made)} calls" in state["note"]
    eventually(
        lambda: heatmap.locator(".pw-hm-note").inner_text() == state["note"],
        lambda: f"the page's note {heatmap.locator('.pw-hm-note').inner_text()!r}",
    )
    assert heatmap.locator("select.pw-hm-group").input_value() == str(state["group"])
    assert not canvas_is_blank(heatmap.locator(".pw-hm-canvas"))
    save_screenshot(page, "call_sites_link_voila_site")

    # a call group picked in the heatmap: its call sites selected and revealed in the tree
    other = next(k for k in range(len(state["group_labels"])) if k != state["group"])
    heatmap.locator("select.pw-hm-group").select_option(label=state["group_labels"][other])
    group_calls = set(state["groups"][other])
    want = sorted(state["site_nodes"][s] for s, calls in traces.items() if calls & group_calls)
    state = wait_state(nb, lambda s: sorted(s["selected"]) == want)
    for node in want:
        eventually(
            lambda n=node: (
                explorer.locator(f".pw-row[data-node='{n}']").get_attribute("aria-selected")
                == "true"
            ),
            f"the page never showed node {node} selected",
        )
    assert state["error"] == "" and "call site" not in state["note"]  # site 7's calls: none here
    eventually(
        lambda: heatmap.locator(".pw-hm-note").inner_text() == state["note"],
        "the page's note still names the call site",
    )
    # the group's 121 scattered calls: a two-line title (one heading's line is the measure),
    # the whole list on hover, instead of ten bold lines of call numbers
    title = heatmap.locator(".pw-hm-title")
    assert title.get_attribute("title").endswith(state["group_labels"][other])
    high = title.evaluate(
        "(el) => [el.getBoundingClientRect().height,"
        " el.parentElement.querySelector('h4:not(.pw-hm-title)').getBoundingClientRect().height]"
    )
    assert high[0] <= 2 * high[1] + 1, high
    # time (inc) of a selected call site: the whole run's time is unknown (the tree's top
    # frames have none), so the cell shows no share and its tooltip claims none ("0 s")
    times = [explorer.locator(f".pw-row[data-node='{n}'] .pw-metric").nth(2) for n in want]
    cell = next(c for c in times if c.locator(".pw-val").inner_text() != "–")
    assert cell.locator(".pw-pct").inner_text() == ""
    note = explorer.locator(".pw-hcell.pw-hmetric").nth(2).locator(".pw-hnote").inner_text()
    assert note == "s", note  # its header names no share either ("s · % of the whole run")
    cell.hover()
    tip = explorer.locator(".pw-tooltip")
    eventually(lambda: tip.is_visible(), "no tooltip over the time cell")
    lines = tip.inner_text().splitlines()
    assert lines[0].startswith("time (inc): ") and lines[-1].startswith("node ")
    assert not [line for line in lines if "of the whole run" in line], lines
    save_screenshot(page, "call_sites_link_voila_group")
    page_watch.assert_clean()


def _is_below(parents: list[int], node: int, ancestor: int) -> bool:
    while node >= 0:
        if node == ancestor:
            return True
        node = parents[node]
    return False
