"""Widget benchmark scenario ``lab``: CalltreeExplorer in JupyterLab, timed the way issue 34
measures it, run by ``python -m benchmarks widgets --only lab``.

One JupyterLab server, one notebook, Debian's headless Chromium driven by Playwright. Cell 1
builds a GraphFrame of a million nodes (the ``wide`` tree of ``benchmarks.widgets``: the
fan-out-4 tree plus a node ``wide`` with 10,000 leaf children); cell 2 is
``CalltreeExplorer(gf)``. Each run clears the outputs, closes the explorers of the earlier
runs in the kernel, then runs cell 2 as Shift+Enter does and reads the page's clock from
just before the run until the explorer's first rows are in the page (``data-ready``) and
until the frame after them is painted. After the runs, on the last explorer: the
10,000-children node expanded (and collapsed again) and two filter + squash queries (each
undone), every one from the page's click event to the rows drawn and painted.

Every kernel message the page sends or receives is stamped with the page's clock as it
passes Lab's kernel connection, so the first-rows figure splits into: the execute request
reaching the kernel, the kernel's work up to the explorer's comm-open and display messages,
the page's widget manager until ``render()`` starts, the first ``rows`` request's round trip
and the drawing. The kernel also writes how long it spent in the cell and in each request
handler. Medians and ranges of the runs, with the load average at the start and the end.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks._lab import (
    CLOSE_WIDGETS,
    LabSession,
    add_parts,
    first_draw_parts,
    first_time,
    kernel_hooks,
    load_average,
    spread,
)
from benchmarks.widgets import FILTERS, REPO, VIEWPORT, WIDE_CHILDREN, Figures, _fmt_n

TARGETS = {"first_ms": 300.0, "filter_ms": 500.0, "wide_ms": 100.0}
#: the notebook's cells (see :func:`_kernel_cells`)
EXPLORER_CELL, CLOSE_CELL = 1, 2

# Marks, in the page's clock, when an explorer shows its first rows (data-ready) or has
# drawn an action's reply (data-actions), and when the frame after that was painted.
PROBE_JS = """() => {
  if (window.__pwMarks) return;
  window.__pwMarks = [];
  const mark = (el, name) => {
    const m = {
      name, at: performance.now(), first: Number(el.dataset.firstRowsMs),
      last: Number(el.dataset.lastMs), action: el.dataset.lastAction,
      actions: Number(el.dataset.actions || 0), click: window.__pwClickAt,
    };
    window.__pwMarks.push(m);
    requestAnimationFrame(() => setTimeout(() => { m.paint = performance.now(); }, 0));
  };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes') {
        const el = r.target;
        if (!el.classList.contains('pw-explorer')) continue;
        if (r.attributeName === 'data-ready' && el.dataset.ready === '1') mark(el, 'ready');
        if (r.attributeName === 'data-actions') mark(el, 'action');
      } else {
        for (const node of r.addedNodes) {
          if (!(node instanceof Element)) continue;
          const el = node.matches('.pw-explorer') ? node : node.querySelector('.pw-explorer');
          if (el && el.dataset.ready === '1') mark(el, 'ready');
        }
      }
    }
  }).observe(document.body, {
    subtree: true, childList: true, attributes: true,
    attributeFilter: ['data-ready', 'data-actions'],
  });
  document.addEventListener('click', () => { window.__pwClickAt = performance.now(); }, true);
}"""

MARK_JS = """([name, since]) => (window.__pwMarks || []).find(
  (m) => m.name === name && m.at > since && m.paint !== undefined) || null"""


def _kernel_cells(state: Path, n: int) -> list[str]:
    """The notebook: data and hooks, the explorer, closing the earlier explorers."""
    return [
        "import sys, gc, json, os, time\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from benchmarks.widgets import build_data\n"
        "from perfweave.widgets import CalltreeExplorer\n"
        f"gf = build_data('wide', {n})\n" + kernel_hooks("CalltreeExplorer", state),
        "CalltreeExplorer(gf)",
        CLOSE_WIDGETS,
    ]


class LabExplorer(LabSession):
    """The scenario's notebook open in JupyterLab, and the figures read from its page."""

    def __init__(self, browser: Any, work: Path, n: int, cap: float) -> None:
        cells = lambda state: _kernel_cells(state, n)  # noqa: E731
        super().__init__(browser, work, "explorer_lab", cells, PROBE_JS, VIEWPORT, cap)

    def _mark(self, name: str, since: float) -> dict[str, Any]:
        handle = self.page.wait_for_function(
            MARK_JS, arg=[name, since], timeout=self.cap * 1000, polling=20
        )
        return handle.json_value()

    def first_rows(self) -> dict[str, float]:
        """Run the explorer's cell once (the earlier explorers closed, the outputs
        cleared); the page's times from the run to the first rows, split by the kernel
        messages on the way."""
        t0, mark, log = self.run_first(
            EXPLORER_CELL, CLOSE_CELL, ".pw-explorer", MARK_JS, lambda t0: ["ready", t0]
        )
        got = first_draw_parts(log, t0, mark, "rows")
        return self.with_kernel_times(got, "rows")

    def act(self, do: Callable[[], None], action: str) -> dict[str, float]:
        """Run ``do`` (a click); the page's time from the click to the reply drawn and to
        the frame after painted, and the kernel handler's time."""
        before = len(self.state().get("py_ms", {}).get(action, []))
        since = float(self.page.evaluate("performance.now()"))
        do()
        mark = self._mark("action", since)
        if mark["action"] != action:
            raise RuntimeError(
                f"expected the explorer to report {action!r}, not {mark['action']!r}"
            )
        got = {
            "drawn": mark["at"] - mark["click"],
            "painted": mark["paint"] - mark["click"],
            "act": mark["last"],
        }
        log = [m for m in self.nb.messages() if m["t"] > since]
        asked = first_time(log, dir="send", what="request", action=action)
        answered = first_time(log, dir="recv", what="response")
        if asked is not None and answered is not None:
            got.update(
                click_to_request=asked - mark["click"],
                round_trip=answered - asked,
                reply_to_drawn=mark["at"] - answered,
                drawn_to_painted=mark["paint"] - mark["at"],
            )
        py = self.state().get("py_ms", {}).get(action, [])
        if len(py) > before:
            got["kernel"] = py[-1]
        return got


def _add_runs(
    fig: Figures, label: str, runs: list[dict[str, float]], target: float | None, note: str
) -> None:
    painted = [r["painted"] for r in runs]
    drawn = [r["drawn"] for r in runs]
    kernel = [r["kernel"] for r in runs if "kernel" in r]
    detail = (
        f"{len(runs)} runs, {spread(painted)} ms; drawn (before paint) median "
        f"{statistics.median(drawn):,.0f} ms"
    )
    if kernel:
        detail += f"; kernel handler median {statistics.median(kernel):,.0f} ms"
    fig.add(label, statistics.median(painted), "ms", target, f"{detail}{note}")


def _add_parts(fig: Figures, runs: list[dict[str, float]], tag: str) -> None:
    """Where an action's time went (medians): the page, the round trip, the kernel."""
    parts = [
        ("click_to_request", "page: click -> request sent"),
        ("round_trip", "request -> reply in the page"),
        ("kernel", "  of which the kernel's handler"),
        ("reply_to_drawn", "page: reply -> rows in the DOM"),
        ("drawn_to_painted", "page: rows in the DOM -> next frame painted"),
    ]
    add_parts(fig, runs, parts, tag, "    ")


def lab_scenario(
    fig: Figures, browser: Any, work: Path, n: int, runs: int, cap: float
) -> dict[str, Any]:
    """The issue's CalltreeExplorer rows, in JupyterLab (see the module text)."""
    tag = f"@ {_fmt_n(n)} (Lab)"
    load_before = load_average()
    s = LabExplorer(browser, work, n, cap)
    out: dict[str, Any] = {}
    try:
        warm = s.first_rows()  # the kernel's first explorer: imports, first calls
        first = [s.first_rows() for _ in range(runs)]
        out["first"] = first
        _add_runs(
            fig,
            f"cell run -> first rows painted {tag}",
            first,
            TARGETS["first_ms"],
            f"; the kernel's first explorer {warm['painted']:,.0f} ms (not counted)",
        )
        parts = [
            ("to_kernel", "run -> kernel starts the cell (execute_input)"),
            ("kernel_to_open", "kernel: cell start -> the explorer's comm open"),
            ("open_to_display", "kernel: comm open -> its display (execute_result)"),
            ("kernel_cell", "kernel: whole cell, timed in the kernel"),
            ("display_to_render", "page: display -> render() starts"),
            ("render_to_drawn", "page: render() -> first rows in the DOM (rows in the state)"),
            ("render_to_request", "page: render() -> first rows request sent"),
            ("round_trip", "first rows request -> reply in the page"),
            ("kernel_rows", "  of which the kernel's rows handler"),
            ("reply_to_drawn", "page: reply -> rows in the DOM"),
            ("drawn_to_painted", "page: rows in the DOM -> next frame painted"),
        ]
        add_parts(fig, first, parts, tag, "  ")

        # the node of 10,000 children: expand (timed) and collapse again
        page = s.page
        row = page.locator(".pw-row:not([hidden])", has=page.get_by_text("wide", exact=True))
        toggle = row.locator(".pw-toggle")
        opened, closed = [], []
        for _ in range(runs):
            opened.append(s.act(lambda: toggle.click(), "toggle"))
            closed.append(s.act(lambda: toggle.click(), "toggle"))
        out["wide"] = opened
        _add_runs(
            fig,
            f"expand a node of {WIDE_CHILDREN:,} children {tag}",
            opened,
            TARGETS["wide_ms"],
            "",
        )
        _add_parts(fig, opened, tag)
        _add_runs(fig, f"  collapse it again {tag}", closed, None, "")

        for query in FILTERS:
            done, undone = [], []
            for _ in range(runs):
                page.locator(".pw-filter-input").fill(query)
                click = page.locator("[data-action=filter]")
                done.append(s.act(lambda: click.click(), "filter"))
                kept = s.state().get("node_count", 0)
                undo = page.locator("[data-action=undo]")
                undone.append(s.act(lambda: undo.click(), "undo"))
            out[f"filter {query}"] = done
            _add_runs(
                fig,
                f"filter+squash {query!r} {tag}",
                done,
                TARGETS["filter_ms"],
                f"; kept {kept:,} of {n:,} nodes",
            )
            _add_parts(fig, done, tag)
            _add_runs(fig, f"  undo {tag}", undone, None, "")
        fig.notes += s.problems("lab")
    finally:
        s.close()
    fig.table.add_row(
        f"load average {tag}", "", "", "", f"before: {load_before}; after: {load_average()}"
    )
    return out


def lab_scenarios(
    fig: Figures, browser: Any, work: Path, n: int, runs: int, cap: float
) -> list[tuple[str, Callable[[], None]]]:
    """The scenario for ``benchmarks.widgets.main``."""
    return [(f"lab @ {_fmt_n(n)}", lambda: lab_scenario(fig, browser, work, n, runs, cap))]
