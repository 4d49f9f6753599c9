"""Widget benchmark: CalltreeExplorer in a real browser (Voila + Debian's headless Chromium).

``python -m benchmarks widgets [--sizes 100000,1000000] [--profiles 100] [--cap 300]``

The ``lab`` scenario (``benchmarks/widgets_lab.py``) times the explorer in JupyterLab as
issue 34 does: from running the cell ``CalltreeExplorer(gf)`` until its first rows are painted,
and the 10,000-children expand and filter + squash on it (``--lab-size``, ``--runs``).

Each scenario is one notebook served by its own Voila server and opened by Playwright in
headless Chromium (offline: requests off this machine are aborted). The notebook builds the
data in one cell, the explorer in a second (both timed with ``time.perf_counter`` in the
kernel) and displays it in a third. The figures are read from the page: the explorer sets
``data-first-rows-ms`` (render() start to first rows drawn) and, after every action,
``data-last-ms`` (click to rows redrawn, Python round trip included). The kernel also times
each request handler of the widget, so a browser figure splits into Python and the rest
(comm transport, unpacking, DOM). Figures are printed beside their targets; nothing asserts.

Hatchet's and Thicket's tree views are text (``tree()``) or classic-notebook only, so there
is no browser peer to time against.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchmarks._common import Table

REPO = Path(__file__).resolve().parents[1]
READY = ".pw-explorer[data-ready='1']"
VIEWPORT = {"width": 1200, "height": 900}
WIDE_CHILDREN = 10_000
FILTERS = ("`time (inc)` > 0.01%", "time > 0.5")

TARGETS = {
    "first_rows_ms": 1500.0,
    "first_kb": 200.0,
    "toggle_ms": 100.0,
    "wide_ms": 300.0,
    "row_elements": 250,
    "filter_ms": {100_000: 500.0, 1_000_000: 3000.0},
    "ensemble_ms": 1500.0,
    "picker_redraw_ms": 300.0,
    "merge_redraw_ms": 200.0,
}

# records when the explorer became ready, in the page's clock (0 = navigation start)
READY_PROBE = """(() => {
  const seen = () => {
    const el = document.querySelector('.pw-explorer[data-ready="1"]');
    if (el && window.__pwReadyAt === undefined) window.__pwReadyAt = performance.now();
  };
  new MutationObserver(seen).observe(document, {
    subtree: true, attributes: true, attributeFilter: ['data-ready'], childList: true,
  });
})();"""

PAGE_TIMES_JS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const root = document.querySelector('.pw-explorer');
  return {
    ready_at: window.__pwReadyAt,
    html_end: nav ? nav.responseEnd : null,
    first_rows_ms: Number(root.dataset.firstRowsMs),
  };
}"""

RESET_ACTION_JS = """() => {
  const root = document.querySelector('.pw-explorer');
  delete root.dataset.lastAction;
  delete root.dataset.lastMs;
}"""

ACTION_DONE_JS = "() => document.querySelector('.pw-explorer').dataset.lastMs !== undefined"

ACTION_JS = """() => {
  const root = document.querySelector('.pw-explorer');
  return [root.dataset.lastAction, Number(root.dataset.lastMs)];
}"""

# Scroll .pw-body to a fraction of its height; resolve once the rows in view are drawn with
# data (no .pw-loading), counting .pw-row elements at every animation frame meanwhile.
SCROLL_JS = """async (frac) => {
  const root = document.querySelector('.pw-explorer');
  const body = root.querySelector('.pw-body');
  const total = Number(body.getAttribute('aria-rowcount'));
  const rowH = root.querySelector('.pw-spacer').offsetHeight / total;
  const top = Math.round(frac * (body.scrollHeight - body.clientHeight));
  const t0 = performance.now();
  body.scrollTop = top;
  const first = Math.min(total - 1, Math.floor(body.scrollTop / rowH));
  const last = Math.min(total, Math.ceil((body.scrollTop + body.clientHeight) / rowH)) - 1;
  let most = 0;
  for (;;) {
    await new Promise((r) => requestAnimationFrame(r));
    const all = root.querySelectorAll('.pw-row');
    most = Math.max(most, all.length);
    const shown = [...all].filter((r) => !r.hidden);
    const idx = shown.map((r) => Number(r.dataset.row));
    const done = shown.length && !shown.some((r) => r.classList.contains('pw-loading'))
      && Math.min(...idx) <= first && Math.max(...idx) >= last;
    const ms = performance.now() - t0;
    if (done || ms > 20000) return { ms: done ? ms : -1, most, first, last };
  }
}"""

CANVAS_BLANK_JS = """(canvas) => {
  const w = canvas.width, h = canvas.height;
  if (!w || !h) return true;
  const px = new Uint32Array(canvas.getContext('2d').getImageData(0, 0, w, h).data.buffer);
  for (let i = 1; i < px.length; i++) if (px[i] !== px[0]) return false;
  return true;
}"""


# ---------------------------------------------------------------------- kernel side
def build_data(kind: str, n: int, profiles: int = 100) -> Any:
    """The data a scenario shows (runs in the notebook's kernel).

    ``frame``: the fan-out-4 tree of ``make_gf(n)``. ``wide``: the same tree on
    ``n - 10_001`` nodes plus a node ``wide`` under the root with 10,000 leaf children.
    ``ensemble``: ``profiles`` GraphFrames of ``n`` nodes, random seeds 0..profiles-1.
    """
    from benchmarks.calltree import make_gf, synthetic
    from perfweave.calltree._build import build_graphframe

    if kind == "frame":
        return make_gf(n).update_inclusive_columns()
    if kind == "wide":
        base = n - WIDE_CHILDREN - 1
        frames, parent, data = synthetic(base)
        rng = np.random.default_rng(1)
        wide = base
        kids = np.arange(base + 1, n)
        names = ["wide"] + [f"leaf{i}" for i in range(WIDE_CHILDREN)]
        frames = pd.concat(
            [frames, pd.DataFrame({"name": names, "type": "function"})], ignore_index=True
        )
        parent = np.concatenate([parent, [0], np.full(len(kids), wide)])
        times = np.concatenate([[rng.exponential(1.0)], rng.exponential(1.0, len(kids))])
        data = pd.concat(
            [data, pd.DataFrame({"node": np.arange(base, n), "time": times})], ignore_index=True
        )
        gf = build_graphframe(frames, data, parent=parent, exc_metrics=["time"])
        return gf.update_inclusive_columns()
    if kind == "ensemble":
        from perfweave import Ensemble

        gfs = []
        for seed in range(profiles):
            frames, parent, data = synthetic(n, seed=seed)
            gf = build_graphframe(frames, data, parent=parent, exc_metrics=["time"])
            gfs.append(gf.update_inclusive_columns())
        return Ensemble.from_graphframes(gfs)
    raise ValueError(f"unknown data kind {kind!r}")


def instrument(
    ex: Any, path: str, traits: tuple[str, ...] = ("node_count", "row_count"), **info: Any
) -> Any:
    """Time every request handler of widget ``ex`` (runs in the kernel) and keep ``path``
    (JSON) up to date with the timings, its bundle size, the ``traits`` named and ``info``."""
    py_ms: dict[str, list[float]] = {}

    def dump() -> None:
        state = {
            **info,
            **{name: getattr(ex, name) for name in traits},
            "model_id": ex.model_id,
            "esm_bytes": len(str(ex._esm).encode()),
            "css_bytes": len(str(ex._css).encode()),
            "py_ms": py_ms,
        }
        # whole or not at all: the page side reads this file while the kernel writes it
        tmp = Path(f"{path}.tmp")
        tmp.write_text(json.dumps(state))
        os.replace(tmp, path)

    def timed(action: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                py_ms.setdefault(action, []).append((time.perf_counter() - t0) * 1e3)
                dump()

        return run

    # the widget looks its handlers up by name per request, so instance attributes win
    for action, method in ex._actions.items():
        setattr(ex, method, timed(action, getattr(ex, method)))
    dump()
    return ex


def write_scenario(folder: Path, name: str, kind: str, n: int, profiles: int) -> Path:
    from tests.widgets.browser import write_notebook

    state = folder / f"{name}.state.json"
    return write_notebook(
        folder / f"{name}.ipynb",
        [
            "import sys, time\n"
            f"sys.path.insert(0, {str(REPO)!r})\n"
            "from benchmarks.widgets import build_data, instrument\n"
            "from perfweave.widgets import CalltreeExplorer\n"
            "t0 = time.perf_counter()\n"
            f"data = build_data({kind!r}, {n}, {profiles})\n"
            "data_s = time.perf_counter() - t0",
            "t0 = time.perf_counter()\n"
            "ex = CalltreeExplorer(data, hot_levels=4)\n"
            "explorer_s = time.perf_counter() - t0\n"
            f"_ = instrument(ex, {str(state)!r}, data_s=data_s, explorer_s=explorer_s)",
            "ex",
        ],
    )


# ---------------------------------------------------------------------- browser side
class Session:
    """One scenario: its Voila server, page, websocket frames and the kernel's state file."""

    def __init__(self, browser: Any, notebook: Path, cap: float) -> None:
        from tests.widgets.browser import OfflineRouter, PageWatch, is_local, start_voila

        self.notebook, self.cap = notebook, cap
        self.state_path = notebook.with_suffix(".state.json")
        work = notebook.parent / f"{notebook.stem}-voila"
        self.server = start_voila(notebook, work)
        try:
            self.context = browser.new_context(viewport=VIEWPORT)
        except BaseException:
            self.server.stop()
            raise
        self.router = OfflineRouter()
        self.context.route(lambda url: not is_local(url), self.router)
        self.page = self.context.new_page()
        self.watch = PageWatch().attach(self.page)
        self.frames: list[tuple[str, bytes]] = []
        self.page.on("websocket", self._on_websocket)
        self.page.add_init_script(READY_PROBE)

    def _on_websocket(self, ws: Any) -> None:
        def received(payload: str | bytes) -> None:
            data = payload.encode() if isinstance(payload, str) else payload
            self.frames.append((ws.url, data))

        ws.on("framereceived", received)

    def load(self, ready: str) -> None:
        """Go to the page and wait until ``ready`` (a selector) is in it."""
        self.page.goto(self.server.url(), timeout=self.cap * 1000)
        self.page.wait_for_selector(ready, state="attached", timeout=self.cap * 1000)

    def problems(self) -> list[str]:
        """Console errors, dialogs and blocked non-local requests of the page."""
        return self.watch.errors + self.watch.dialogs + self.router.unexpected()

    def open(self) -> dict[str, Any]:
        """Load the page; wall time from goto to data-ready, the page's own times, frames."""
        t0 = time.perf_counter()
        self.load(READY)
        wall = time.perf_counter() - t0
        frames = list(self.frames)
        times = self.page.evaluate(PAGE_TIMES_JS)
        return {"wall_ms": wall * 1e3, "frames": frames, **times}

    def state(self) -> dict[str, Any]:
        return json.loads(self.state_path.read_text())

    def act(self, do: Callable[[], None], action: str) -> tuple[float, float | None]:
        """Run ``do`` (a click or key press); the explorer's data-last-ms for it and the
        kernel handler's ms (None when the kernel did not time it)."""
        before = len(self.state().get("py_ms", {}).get(action, []))
        self.page.evaluate(RESET_ACTION_JS)
        do()
        self.page.wait_for_function(ACTION_DONE_JS, timeout=self.cap * 1000, polling="raf")
        got, ms = self.page.evaluate(ACTION_JS)
        if got != action:
            raise RuntimeError(f"expected the explorer to report {action!r}, it reported {got!r}")
        py = self.state().get("py_ms", {}).get(action, [])
        return ms, (py[-1] if len(py) > before else None)

    def act_on(self, root: str, do: Callable[[], None], action: str) -> tuple[float, float | None]:
        """:func:`act_on` in this scenario's page."""
        return act_on(self, root, do, action)

    def visible_rows(self, extra: str = "") -> Any:
        return self.page.locator(f".pw-row:not([hidden]):not(.pw-loading){extra}")

    def close(self) -> None:
        try:
            self.context.close()
        finally:
            self.server.stop()


def act_on(
    session: Any, root: str, do: Callable[[], None], action: str
) -> tuple[float, float | None]:
    """Run ``do`` on the widget whose root element is ``root`` (a selector) in
    ``session.page`` (Voila's :class:`Session` or JupyterLab's ``LabSession``); the page's
    ``data-last-ms`` once it reports ``action``, and the kernel handler's ms (None when the
    kernel did not time it)."""
    before = len(session.state().get("py_ms", {}).get(action, []))
    session.page.evaluate(
        "(root) => { const r = document.querySelector(root); delete r.dataset.lastAction;"
        " delete r.dataset.lastMs; }",
        root,
    )
    do()
    session.page.wait_for_function(
        "([root, action]) => { const r = document.querySelector(root);"
        " return r.dataset.lastAction === action && r.dataset.lastMs !== undefined; }",
        arg=[root, action],
        timeout=session.cap * 1000,
        polling="raf",
    )
    ms = float(
        session.page.evaluate("(root) => Number(document.querySelector(root).dataset.lastMs)", root)
    )
    py = session.state().get("py_ms", {}).get(action, [])
    return ms, (py[-1] if len(py) > before else None)


# ---------------------------------------------------------------------- table helpers
class Figures:
    """The printed table: figure, measured value, target, PASS/MISS, what it includes."""

    def __init__(self, title: str) -> None:
        self.table = Table(title, header=("figure", "measured", "target", "result", "detail"))
        self.misses: list[str] = []
        self.notes: list[str] = []

    def add(
        self,
        label: str,
        value: float | None,
        unit: str,
        target: float | None = None,
        detail: str = "",
        fmt: str = "{:,.1f}",
    ) -> None:
        shown = "n/a" if value is None else f"{fmt.format(value)} {unit}"
        result = ""
        if target is not None:
            result = "n/a" if value is None else ("PASS" if value <= target else "MISS")
            if result == "MISS":
                self.misses.append(f"{label}: {shown} (target <= {target:g} {unit})")
        tgt = "" if target is None else f"<= {target:g} {unit}"
        self.table.add_row(label, shown, tgt, result, detail)

    def error(self, label: str, exc: BaseException) -> None:
        text = f"{type(exc).__name__}: {exc}".splitlines()[0][:90]
        self.table.add_row(label, "error", "", "n/a", text)
        self.misses.append(f"{label}: error {text}")


def page_problems(fig: Figures, s: Session, tag: str) -> None:
    """Console errors, dialogs and blocked requests of a scenario, as notes."""
    problems = s.problems()
    fig.notes += [f"{tag}: {p}" for p in problems]


def _med_max(values: list[float]) -> tuple[float, float]:
    return statistics.median(values), max(values)


def _fmt_n(n: int) -> str:
    return f"{n:.0e}".replace("e+0", "e")


def _kb(frames: list[tuple[str, bytes]], needle: bytes | None = None) -> float:
    return sum(len(d) for _, d in frames if needle is None or needle in d) / 1000


# ---------------------------------------------------------------------- scenarios
def report_open(fig: Figures, s: Session, opened: dict[str, Any], tag: str, target: float):
    st = s.state()
    html_to_ready = (
        opened["ready_at"] - opened["html_end"]
        if opened.get("ready_at") is not None and opened.get("html_end")
        else None
    )
    fig.add(
        f"display -> first rows drawn {tag}",
        opened["first_rows_ms"],
        "ms",
        target,
        "data-first-rows-ms: render() start -> first rows (sent with the state)",
    )
    fig.add(
        f"  page HTML received -> first rows {tag}",
        html_to_ready,
        "ms",
        detail="page clock: Voila front end, kernel ws, widget state, ESM import, render",
    )
    fig.add(
        f"  page.goto -> data-ready (wall) {tag}",
        opened["wall_ms"],
        "ms",
        detail="includes Voila starting a kernel and running the notebook",
    )
    fig.add(f"  kernel: build data {tag}", st["data_s"] * 1e3, "ms", detail="in the notebook")
    fig.add(
        f"  kernel: CalltreeExplorer(...) {tag}",
        st["explorer_s"] * 1e3,
        "ms",
        detail="constructor: the view and its first window of rows",
    )
    return st


def report_bytes(fig: Figures, st: dict, opened: dict, tag: str, target: float | None) -> None:
    frames = opened["frames"]
    model = st["model_id"].encode()
    bundle = (st["esm_bytes"] + st["css_bytes"]) / 1000
    fig.add(
        f"bytes to the page, load -> ready {tag}",
        _kb(frames),
        "KB",
        target,
        f"all {len(frames)} websocket frames received (Voila's kernel traffic too)",
    )
    mine = [f for f in frames if model in f[1]]
    fig.add(
        f"  frames naming the explorer's model {tag}",
        _kb(frames, model),
        "KB",
        detail=f"{len(mine)} frames: its state (ESM+CSS {bundle:.1f} KB) and row replies",
    )
    fig.add(
        f"  the same without the ESM+CSS bundle {tag}",
        _kb(frames, model) - bundle,
        "KB",
        detail="traits + first rows window(s)",
    )


def frame_scenario(
    fig: Figures, browser: Any, work: Path, n: int, args: argparse.Namespace, scroll: bool
) -> None:
    tag = f"@ {_fmt_n(n)}"
    nb = write_scenario(work, f"frame{n}", "frame", n, 0)
    s = Session(browser, nb, args.cap)
    try:
        opened = s.open()
        st = report_open(fig, s, opened, tag, TARGETS["first_rows_ms"])
        report_bytes(fig, st, opened, tag, TARGETS["first_kb"])

        # expand/collapse an ordinary (collapsed, in view) node, repeatedly
        row = s.visible_rows("[aria-expanded=false]").first
        node = row.get_attribute("data-node")
        toggle = s.page.locator(f".pw-row:not([hidden])[data-node='{node}'] .pw-toggle")
        ms, py = [], []
        for _ in range(args.repeat):
            b, k = s.act(lambda: toggle.click(), "toggle")
            ms.append(b)
            py.append(k or 0.0)
        med, top = _med_max(ms)
        fig.add(
            f"expand/collapse a node {tag}: median",
            med,
            "ms",
            TARGETS["toggle_ms"],
            f"{len(ms)} clicks; max {top:.1f} ms; kernel handler median "
            f"{statistics.median(py):.1f} ms",
        )
        fig.add(f"  expand/collapse max {tag}", top, "ms", TARGETS["toggle_ms"])

        # filter + squash, then undo
        target = TARGETS["filter_ms"].get(n)
        for query in FILTERS:
            s.page.locator(".pw-filter-input").fill(query)
            click = s.page.locator("[data-action=filter]")
            b, k = s.act(lambda: click.click(), "filter")
            kept = s.state()["node_count"]
            fig.add(
                f"filter+squash {query!r} {tag}",
                b,
                "ms",
                target,
                f"kept {kept:,} of {n:,} nodes; kernel handler {k or 0:.0f} ms",
            )
            undo = s.page.locator("[data-action=undo]")
            b, k = s.act(lambda: undo.click(), "undo")
            fig.add(f"  undo {tag}", b, "ms", detail=f"kernel handler {k or 0:.0f} ms")

        if scroll:
            scroll_figures(fig, s, n, tag, args.scroll_steps)
        page_problems(fig, s, tag)
    finally:
        s.close()


def scroll_figures(fig: Figures, s: Session, n: int, tag: str, steps: int) -> None:
    body = s.page.locator(".pw-body")
    body.focus()
    body.press("Home")
    expand = s.page.locator("[data-action=expand-all]")
    b, k = s.act(lambda: expand.click(), "expand_all")
    total = int(body.get_attribute("aria-rowcount"))
    fig.add(
        f"expand all from row 0 {tag}",
        b,
        "ms",
        detail=f"{total:,} rows now; kernel handler {k or 0:.0f} ms",
    )
    most, jumps, failed = s.page.locator(".pw-row").count(), [], 0
    for i in range(steps):
        out = s.page.evaluate(SCROLL_JS, (i + 1) / steps)
        most = max(most, out["most"])
        if out["ms"] < 0:
            failed += 1
        else:
            jumps.append(out["ms"])
    fig.add(
        f"max .pw-row elements while scrolling {tag}",
        most,
        "",
        TARGETS["row_elements"],
        f"{steps} jumps to the end of {total:,} rows, counted every animation frame",
        fmt="{:.0f}",
    )
    if jumps:
        med, top = _med_max(jumps)
        fig.add(
            f"scroll jump -> rows drawn {tag}: median",
            med,
            "ms",
            detail=f"max {top:.0f} ms; to rAF resolution"
            + (f"; {failed} timed out" if failed else ""),
        )


def wide_scenario(fig: Figures, browser: Any, work: Path, n: int, args: argparse.Namespace):
    tag = f"@ {_fmt_n(n)}"
    nb = write_scenario(work, f"wide{n}", "wide", n, 0)
    s = Session(browser, nb, args.cap)
    try:
        s.open()
        row = s.page.locator(".pw-row:not([hidden])", has=s.page.get_by_text("wide", exact=True))
        toggle = row.locator(".pw-toggle")
        opened, closed, py = [], [], []
        for _ in range(args.wide_repeat):
            b, k = s.act(lambda: toggle.click(), "toggle")
            opened.append(b)
            py.append(k or 0.0)
            b, _ = s.act(lambda: toggle.click(), "toggle")
            closed.append(b)
        med, top = _med_max(opened)
        fig.add(
            f"expand a node of {WIDE_CHILDREN:,} children {tag}: median",
            med,
            "ms",
            TARGETS["wide_ms"],
            f"{len(opened)} expands; max {top:.1f} ms; kernel handler median "
            f"{statistics.median(py):.1f} ms",
        )
        fig.add(f"  expand of {WIDE_CHILDREN:,} children max {tag}", top, "ms", TARGETS["wide_ms"])
        fig.add(f"  collapse it again {tag}: median", statistics.median(closed), "ms")
        page_problems(fig, s, tag)
    finally:
        s.close()


def ensemble_scenario(fig: Figures, browser: Any, work: Path, args: argparse.Namespace) -> None:
    p, n = args.profiles, args.profile_nodes
    tag = f"@ {p} x {_fmt_n(n)}"
    nb = write_scenario(work, "ensemble", "ensemble", n, p)
    s = Session(browser, nb, args.cap)
    try:
        opened = s.open()
        st = report_open(fig, s, opened, tag, None)
        canvases = s.page.locator(".pw-row:not([hidden]):not(.pw-loading) canvas.pw-canvas")
        count = canvases.count()
        blank = sum(bool(canvases.nth(i).evaluate(CANVAS_BLANK_JS)) for i in range(count))
        drawn = count > 0 and blank == 0
        fig.add(
            f"first rows with distribution glyphs {tag}",
            opened["first_rows_ms"] if drawn else None,
            "ms",
            TARGETS["ensemble_ms"],
            f"data-first-rows-ms; {count - blank} of {count} row canvases drawn (non-blank)",
        )
        report_bytes(fig, st, opened, tag, None)
        page_problems(fig, s, tag)
    finally:
        s.close()


# MergePanel: time from a key press on a slider to the page showing the new status and an
# achieved matrix of (kept HEMs)^2 cells (the kept count is read from the status)
MERGE_ARM_JS = """() => {
  if (!window.__pwArmed) {
    window.__pwArmed = true;
    document.addEventListener('keydown', () => { window.__pwT0 = performance.now(); }, true);
  }
}"""

MERGE_DONE_JS = """(want) => {
  const root = document.querySelector('.pw-merge-panel');
  const text = root.querySelector('.pw-merge-status').textContent;
  const m = text.match(/(\\d+) kept/);
  const cells = root.querySelectorAll('.pw-merge-achieved .pw-matrix-cell').length;
  if (text.includes(want) && m && cells === Number(m[1]) ** 2 && window.__pwT0 !== undefined) {
    return performance.now() - window.__pwT0;
  }
  return false;
}"""


def merge_panel_scenario(fig: Figures, browser: Any, work: Path, args: argparse.Namespace):
    """MergePanel on the bundled MUCH vignette: redraw after dep_lvl and n_sims steps."""
    from tests.widgets.browser import write_notebook

    tag = "@ vignette"
    nb = write_notebook(
        work / "merge_panel.ipynb",
        [
            "import perfweave.merge as pm\nfrom perfweave.widgets import MergePanel",
            "panel = MergePanel(pm.process_raw_experiments(pm.load_vignette('much'), 6), "
            "dep_lvl=0.7, seed=1)\npanel",
        ],
    )
    session = Session(browser, nb, args.cap)
    try:
        session.load(".pw-merge-achieved .pw-matrix-cell")
        page = session.page
        page.evaluate(MERGE_ARM_JS)
        steps = [
            ("dep_lvl", ".pw-merge-dep", [f"dep_lvl {0.70 + 0.01 * k:.2f}" for k in range(1, 9)]),
            ("n_sims", ".pw-merge-sims", [f"of {100 + 10 * k} chosen" for k in range(1, 9)]),
        ]
        for what, control, wants in steps:
            handle = page.locator(f"{control} .noUi-handle")
            ms = []
            for want in wants:
                handle.press("ArrowRight")
                done = page.wait_for_function(
                    MERGE_DONE_JS, arg=want, polling="raf", timeout=args.cap * 1000
                )
                ms.append(float(done.json_value()))
            med, top = _med_max(ms)
            fig.add(
                f"MergePanel {what} step -> redrawn {tag}: median",
                med,
                "ms",
                TARGETS["merge_redraw_ms"],
                f"{len(ms)} key presses on the slider; key press -> new status and matrices "
                f"on the page; max {top:.0f} ms",
            )
            fig.add(f"  MergePanel {what} step max {tag}", top, "ms", TARGETS["merge_redraw_ms"])
        fig.notes += [f"merge_panel: {p}" for p in session.problems()]
    finally:
        session.close()


# ClassPicker: a merge toggle on 100,000 sample paths, from the click to the new report
# table drawn (the table stamps performance.now() in the frame after it drew its rows)
PICKER_DONE_JS = """([t0, classes]) => {
  const t = document.querySelector('.pw-picker-reportlist');
  if (!t || t.dataset.classes !== String(classes) || t.dataset.drawn !== t.dataset.version)
    return false;
  const at = Number(t.dataset.drawnAt || 0);
  return at > t0 ? at - t0 : false;
}"""


def picker_scenario(fig: Figures, browser: Any, work: Path, args: argparse.Namespace) -> None:
    """ClassPicker over 100,000 sample paths (the browser test's table): merge toggles that
    give 8, 1, 200 and 1 classes, each timed from the click to the new table drawn."""
    from tests.widgets.browser import write_notebook
    from tests.widgets.test_picker_browser import BIG

    tag = "@ 1e5 paths"
    nb = write_notebook(
        work / "picker.ipynb",
        [
            BIG,  # the browser test's 100,000 sample paths, as a cell of its own
            "from perfweave.widgets import ClassPicker\n"
            "p = ClassPicker(big, spec='event:CPU_CLK_UNHALTED', merge='cpu,tgid')\np",
        ],
    )
    session = Session(browser, nb, args.cap)
    try:
        session.load(".pw-picker-reportlist[data-drawn]")
        page = session.page
        steps = [("cpu", 8), ("cpu", 1), ("tgid", 200), ("tgid", 1)] * 3
        ms: dict[int, list[float]] = {}
        for flag, classes in steps:
            t0 = page.evaluate("performance.now()")
            page.locator(f".pw-picker-merge-{flag}").click()
            done = page.wait_for_function(
                PICKER_DONE_JS, arg=[t0, classes], polling="raf", timeout=args.cap * 1000
            )
            ms.setdefault(classes, []).append(float(done.json_value()))
        for classes, values in sorted(ms.items()):
            med, top = _med_max(values)
            fig.add(
                f"ClassPicker merge toggle -> {classes} classes redrawn {tag}: median",
                med,
                "ms",
                TARGETS["picker_redraw_ms"],
                f"{len(values)} clicks; click -> new table drawn in the page; max {top:.0f} ms "
                f"(each: {', '.join(f'{v:.0f}' for v in values)})",
            )
        fig.notes += [f"picker: {p}" for p in session.problems()]
    finally:
        session.close()


def _chromium() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return None
    path = shutil.which("chromium") or "/usr/bin/chromium"
    return path if Path(path).exists() else None


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks widgets")
    ap.add_argument("--sizes", default="100000,1000000", help="node counts of the frame runs")
    ap.add_argument("--wide-size", type=float, default=None, help="tree of the 10k-child node")
    ap.add_argument("--profiles", type=int, default=100)
    ap.add_argument("--profile-nodes", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=10, help="expand/collapse clicks")
    ap.add_argument("--wide-repeat", type=int, default=5, help="expands of the wide node")
    ap.add_argument("--scroll-steps", type=int, default=20)
    ap.add_argument("--lab-size", type=float, default=1e6, help="nodes of the JupyterLab run")
    ap.add_argument("--runs", type=int, default=5, help="runs of each JupyterLab figure")
    ap.add_argument(
        "--only",
        default="lab,frame,wide,ensemble,merge_panel,picker,heatmap,heatmap_lab,flame,flame_lab",
        help="scenarios to run",
    )
    ap.add_argument("--cap", type=float, default=300.0, help="seconds allowed per page/action")
    ap.add_argument("--keep", action="store_true", help="keep the notebooks and server logs")
    args = ap.parse_args(argv)
    sizes = [int(float(s)) for s in args.sizes.split(",") if s]
    only = set(args.only.split(","))
    chromium = _chromium()
    if chromium is None:
        print("widgets benchmark skipped: needs playwright (pip) and chromium (apt)")
        return
    from playwright.sync_api import sync_playwright

    from benchmarks._lab import CHROME_ARGS

    work = Path(tempfile.mkdtemp(prefix="pw-bench-widgets-"))
    fig = Figures("widgets: perfweave widgets in headless Chromium (JupyterLab and Voila)")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROME_ARGS)
            try:
                scenarios: list[tuple[str, Callable[[], None]]] = []
                if "lab" in only:
                    from benchmarks.widgets_lab import lab_scenarios

                    lab_n, runs = int(args.lab_size), args.runs
                    scenarios += lab_scenarios(fig, browser, work, lab_n, runs, args.cap)
                if "flame_lab" in only:
                    from benchmarks.widgets_flame_lab import flame_lab_scenarios

                    lab_n, runs = int(args.lab_size), args.runs
                    scenarios += flame_lab_scenarios(fig, browser, work, lab_n, runs, args.cap)
                if "heatmap_lab" in only:
                    from benchmarks.widgets_heatmap_lab import heatmap_lab_scenarios

                    scenarios += heatmap_lab_scenarios(fig, browser, work, args.runs, args.cap)
                if "frame" in only:
                    for n in sizes:
                        scenarios.append(
                            (
                                f"frame @ {_fmt_n(n)}",
                                lambda n=n: frame_scenario(
                                    fig, browser, work, n, args, scroll=n == min(sizes)
                                ),
                            )
                        )
                if "wide" in only:
                    wide = int(args.wide_size or max(sizes))
                    scenarios.append(
                        (
                            f"wide @ {_fmt_n(wide)}",
                            lambda: wide_scenario(fig, browser, work, wide, args),
                        )
                    )
                if "ensemble" in only:
                    scenarios.append(
                        ("ensemble", lambda: ensemble_scenario(fig, browser, work, args))
                    )
                if "merge_panel" in only:
                    scenarios.append(
                        ("merge_panel", lambda: merge_panel_scenario(fig, browser, work, args))
                    )
                if "picker" in only:
                    scenarios.append(("picker", lambda: picker_scenario(fig, browser, work, args)))
                if "heatmap" in only:
                    from benchmarks.widgets_heatmap import heatmap_scenarios

                    scenarios += heatmap_scenarios(fig, browser, work, args.cap)
                if "flame" in only:
                    from benchmarks.widgets_flame import flame_scenarios

                    scenarios += flame_scenarios(fig, browser, work, sizes, args.cap)
                for label, run in scenarios:
                    print(f"running {label} ...", file=sys.stderr, flush=True)
                    try:
                        run()
                    except Exception as exc:  # keep the other scenarios' figures
                        fig.error(label, exc)
            finally:
                browser.close()
    finally:
        if args.keep:
            print(f"notebooks and Voila logs kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    fig.table.print()
    print(
        "\nno peer: llnl-hatchet's and llnl-thicket's tree views are text (tree()) or "
        "classic-notebook only; there is no browser tree view to time against."
    )
    if fig.notes:
        print("\npage problems:\n  " + "\n  ".join(fig.notes))
    if fig.misses:
        print("\ntargets missed:\n  " + "\n  ".join(fig.misses))


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
