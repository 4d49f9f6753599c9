"""Performance-model benchmark (issue 20): perfweave's Extra-P models against Extra-P.

``python -m benchmarks models`` times

1. ``Ensemble.models`` on the MPI scaling ensemble (45 nodes, 5 runs; target 20 ms),
2. ``fit_models`` on 10,000 synthetic functions x 7 parameter values (target 0.5 s),
3. multi-parameter models: 45 and 10,000 functions on a 5 x 5 grid (ranks x problem
   size), 1,000 functions on a 5 x 5 x 5 grid (Extra-P's multi-parameter modeler; it
   models 200 resp. 20 of the many and its time is scaled),

and Extra-P 4.2.x (its default single-parameter modeler) on the same functions in the
same run, in a subprocess of Extra-P's own venv (``benchmarks/extrap_reference.py``
creates it). Extra-P needs about 0.1 s per function, so in case 2 it models
``--extrap-functions`` of them (200 by default) and its time is scaled to all 10,000;
the table says so. Without Extra-P's venv the ratios are left out, with the reason.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np

from benchmarks import extrap_reference as ref
from benchmarks._common import Table, best_cpu, best_time
from perfweave.ensemble import Ensemble
from perfweave.ensemble.models import metric_matrix, parameter
from perfweave.scaling import fit_models, terms

X7 = np.array([4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0])


def synthetic(n: int, x: np.ndarray, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """``n`` functions ``c0 + c1 * term`` (random hypotheses, some constants) with 2 %
    multiplicative noise over ``x``; returns (Y, true hypothesis index or -1)."""
    rng = np.random.default_rng(seed)
    H = len(terms.POLY)
    hyp = rng.integers(-1, H, n)
    T = terms.term_values(x)
    c0 = np.exp(rng.uniform(np.log(0.1), np.log(10.0), n))
    tmax = np.where(hyp >= 0, T[np.maximum(hyp, 0), -1], 1.0)
    c1 = np.where(hyp >= 0, rng.uniform(1.0, 20.0, n) * c0 / tmax, 0.0)
    clean = c0[:, None] + c1[:, None] * np.where(hyp[:, None] >= 0, T[np.maximum(hyp, 0)], 0.0)
    return clean * (1.0 + 0.02 * rng.standard_normal(clean.shape)), hyp


def synthetic_multi(n: int, X: np.ndarray, names: tuple[str, ...], seed: int = 8) -> np.ndarray:
    """``n`` multi-parameter functions at the points ``X`` (points, parameters): random
    combinations of Extra-P's shapes (products, sums, mixed, one parameter, constants) of
    random terms, 1-5 % noise."""
    rng = np.random.default_rng(seed)
    k = len(names)
    if k == 2:
        kinds = list(ref.MULTI_SHAPES)
    else:
        kinds = ["p*q*r", "p + q + r", "p*q*r + p", "p*q + r", "q*r + p", "p", "q + r", "const"]
    labels = list(rng.choice(kinds, n))
    frame = ref._synthetic_multi(X, names, ref._shapes_of(labels, names), rng)
    return frame[ref.value_columns(frame)].to_numpy()


def _extrap(py: Path | None, x: np.ndarray, Y: np.ndarray) -> float | str:
    if py is None:
        return "n/a"
    return float(ref.run_extrap(py, x, Y)["seconds"])


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks models")
    ap.add_argument("--venv", type=Path, default=ref.DEFAULT_VENV, help="Extra-P's venv")
    ap.add_argument("--functions", type=int, default=10_000)
    ap.add_argument(
        "--browser",
        action="store_true",
        help="also time a run box click in ScalingView in Chromium (Voila), 10,000 nodes x 50 runs",
    )
    ap.add_argument(
        "--extrap-functions",
        type=int,
        default=200,
        help="how many of the synthetic functions Extra-P models (its time is scaled)",
    )
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    py = ref.venv_python(args.venv)
    if not py.exists():
        print(
            f"Extra-P's venv {args.venv} is missing: no Extra-P times or ratios "
            "(create it with `python -m benchmarks.extrap_reference`)"
        )
        py = None
    table = Table(
        "performance models (issue 20)",
        header=("case", "perfweave", "target", "Extra-P", "Extra-P/perfweave"),
    )

    # 1. the MPI scaling ensemble, every node, one metric
    ens = Ensemble.from_files(str(ref.MPI_DIR))
    metric = "Avg time/rank"
    t, fits = best_time(lambda: ens.models(metric, ref.PARAM), repeat=20)
    cpu = best_cpu(lambda: ens.models(metric, ref.PARAM), repeat=20)
    x = parameter(ens, ref.PARAM)
    peer = _extrap(py, x, metric_matrix(ens, metric))
    table.add(f"MPI scaling ensemble: {len(fits)} nodes x {len(x)} runs, {metric!r}", t, 0.02, peer)
    table.add("  same, CPU time", cpu, 0.02)

    # 2. many functions at once
    Y, _ = synthetic(args.functions, X7)
    t, _ = best_time(lambda: fit_models(X7, Y), repeat=3)
    k = min(args.extrap_functions, args.functions)
    peer = _extrap(py, X7, Y[:k])
    if isinstance(peer, float):
        peer *= args.functions / k
    label = f"{args.functions:,} functions x {len(X7)} points"
    if py is not None and k < args.functions:
        label += f" (Extra-P: {k} of them, time x{args.functions / k:g})"
    table.add(label, t, 0.5, peer)
    cpu = best_cpu(lambda: fit_models(X7, Y), repeat=3)
    table.add("  same, CPU time of this process (the machine is shared)", cpu, 0.5)

    # 3. repeats: 5 measurements per parameter value, folded by their mean
    Yr = np.repeat(Y[:2000], 5, axis=1) * (
        1 + 0.01 * np.random.default_rng(1).standard_normal((2000, 35))
    )
    t, _ = best_time(lambda: fit_models(np.repeat(X7, 5), Yr), repeat=3)
    table.add("2,000 functions x 7 points x 5 repeats", t)

    # 4. multi-parameter models (ranks x problem size), Extra-P's multi-parameter modeler
    for F, X, names in (
        (45, ref._grid(ref.MULTI_P, ref.MULTI_Q), ("p", "q")),
        (args.functions, ref._grid(ref.MULTI_P, ref.MULTI_Q), ("p", "q")),
        (
            1_000,
            ref._grid(ref.MULTI_P, ref.MULTI_Q, np.array([2.0, 4, 8, 16, 32])),
            ("p", "q", "r"),
        ),
    ):
        Ym = synthetic_multi(F, X, names)
        t, _ = best_time(lambda: fit_models(X, Ym), repeat=3 if F > 100 else 20)
        k = min(args.extrap_functions if len(names) == 2 else 20, F)
        peer = _extrap(py, X, Ym[:k])
        if isinstance(peer, float):
            peer *= F / k
        dims = " x ".join("5" for _ in names)
        label = f"{len(names)} parameters: {F:,} functions x {dims} points"
        if py is not None and k < F:
            label += f" (Extra-P: {k} of them, time x{F / k:g})"
        table.add(label, t, None, peer)
        if F >= 1000:
            cpu = best_cpu(lambda: fit_models(X, Ym), repeat=3)
            table.add("  same, CPU time", cpu)

    # 5. ScalingView: excluding a run refits every model and updates the explorer and chart
    from perfweave.widgets.scaling_view import ScalingView

    big = scaling_ensemble(10_000, 50)
    view = ScalingView(big, param="mpi.world.size", metric="time")
    runs = list(big.profiles)
    choices = [runs[:k] + runs[k + 1 :] for k in range(5)]
    state = iter(range(10**6))

    def click() -> None:
        view.select_profiles(choices[next(state) % len(choices)])

    t, _ = best_time(click, repeat=5)
    cpu = best_cpu(click, repeat=5)
    table.add("ScalingView: exclude a run, 10,000 nodes x 50 runs (Python side)", t, 0.3)
    table.add("  same, CPU time", cpu, 0.3)
    if args.browser:
        ms = browser_clicks()
        if isinstance(ms, str):
            print(f"\nbrowser case skipped: {ms}")
        else:
            med = float(np.median(ms))
            table.add(
                "ScalingView in Chromium: run box click -> page updated, median", med / 1e3, 0.3
            )
            table.add("  same, max", max(ms) / 1e3, 0.3)
    table.print()
    print(
        "\nThe ScalingView (Python side) figure is the kernel's work after a click (refit of "
        "every model, the explorer's columns, the chart). The Chromium figure (--browser) runs "
        "from the click on a run's box in Voila (the page's pointer event) until the page shows "
        "the new run count and the explorer's refitted rows."
    )
    if py is None:
        print("\nExtra-P ratios left out: its venv is missing (see above).")


if __name__ == "__main__":  # pragma: no cover
    import sys

    main(sys.argv[1:])


# the runs note shows the new count once the kernel has refitted and redrawn
_NOTE_JS = """([want]) => {
  // the click's own time (the page's clock), not Playwright's call
  const t0 = window.__pwClickAt;
  const hit = [...document.querySelectorAll('.pw-scaling .widget-label')]
    .some(e => e.textContent === want);
  const rows = Number(document.querySelector('.pw-scaling .pw-explorer').dataset.rowsAt);
  return t0 !== undefined && hit && rows > t0 ? performance.now() - t0 : false;
}"""
_CLICK_JS = """() => document.addEventListener('pointerdown',
  (ev) => { window.__pwClickAt = ev.timeStamp; }, { capture: true })"""


def browser_clicks(clicks: int = 10, cap: float = 120.0) -> list[float] | str:
    """Milliseconds from a click on a run's box (the page's pointer event) until the page
    shows the refit's run count and the explorer's refitted rows, ScalingView over
    :func:`scaling_ensemble` (10,000 nodes x 50 runs) in Voila."""
    import shutil
    import tempfile

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "playwright is not installed"
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        return "Debian's chromium is not installed"
    from benchmarks.widgets import Session
    from tests.widgets.browser import CHROME_ARGS, write_notebook

    repo = Path(__file__).resolve().parent.parent
    work = Path(tempfile.mkdtemp(prefix="pw-bench-models-"))
    nb = write_notebook(
        work / "scaling.ipynb",
        [
            f"import sys\nsys.path.insert(0, {str(repo)!r})\n"
            "from benchmarks.models import scaling_ensemble\nfrom perfweave.widgets import ScalingView",
            "view = ScalingView(scaling_ensemble(10_000, 50), param='mpi.world.size', metric='time')"
            "\nview",
        ],
    )
    ms: list[float] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROME_ARGS)
            session = Session(browser, nb, cap)
            try:
                session.load(".pw-scaling-runs input[type=checkbox]")
                page = session.page
                page.locator(".pw-scaling .pw-explorer[data-ready='1']").wait_for()
                page.evaluate(_CLICK_JS)
                boxes = page.locator(".pw-scaling-runs input[type=checkbox]")
                fitted = 50
                for k in range(clicks):
                    box = boxes.nth(k // 2)
                    fitted += -1 if k % 2 == 0 else 1
                    box.click()
                    done = page.wait_for_function(
                        _NOTE_JS,
                        arg=[f"{fitted} of 50 runs fitted"],
                        polling="raf",
                        timeout=cap * 1000,
                    )
                    ms.append(float(done.json_value()))
            finally:
                session.close()
                browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return ms


def scaling_ensemble(n_nodes: int = 10_000, n_runs: int = 50, seed: int = 0):
    """A synthetic scaling study: a random calltree of ``n_nodes`` nodes measured in
    ``n_runs`` runs at 10 scales (``mpi.world.size`` 2..1024, repeats at each), each node a
    random model of the search space with 3 % noise (metric ``time``)."""
    import pandas as pd

    from perfweave.calltree.graph import Graph
    from perfweave.ensemble import Ensemble
    from perfweave.ensemble._table import dense_index

    rng = np.random.default_rng(seed)
    parent = np.full(n_nodes, -1, np.int64)
    parent[1:] = (rng.random(n_nodes - 1) * np.arange(1, n_nodes)).astype(np.int64)
    frames = pd.DataFrame({"name": [f"f{i}" for i in range(n_nodes)], "type": "function"})
    graph, _ = Graph._new(frames, parent, None)
    sizes = np.resize(2.0 ** np.arange(1, 11), n_runs)
    Y, _ = synthetic(n_nodes, np.sort(np.unique(sizes)), seed)
    at = np.searchsorted(np.sort(np.unique(sizes)), sizes)
    values = Y[:, at] * (1 + 0.03 * rng.standard_normal((n_nodes, n_runs)))
    profiles = list(range(n_runs))
    df = pd.DataFrame(
        {"time": values.ravel(), "name": np.repeat(graph.frames["name"].to_numpy(), n_runs)},
        index=dense_index(n_nodes, profiles),
    )
    meta = pd.DataFrame(
        {"mpi.world.size": sizes.astype(int), "machine": np.where(np.arange(n_runs) % 2, "a", "b")},
        index=pd.Index(profiles, name="profile"),
    )
    return Ensemble(graph, df, meta, exc_metrics=["time"], default_metric="time")
