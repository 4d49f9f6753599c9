"""Reference models from Extra-P 4.2.x for perfweave's conformance tests.

Extra-P pins numpy 1.x and pulls PySide6, so it lives in a venv of its own (by default
``.venv-extrap`` at the project root, ignored by git), created here when missing with
``pip install "extrap==4.2.*"``. Only its modelers are imported (no display needed).

    python -m benchmarks.extrap_reference [--venv DIR] [--out tests/data/scaling]

writes, with their provenance (Extra-P, numpy and Python versions, date, command) in
``PROVENANCE.json``:

- ``mpi_scaling_inputs.csv``: per node of the MPI scaling ensemble
  (``tests/data/thicket/mpi_scaling_cali``) and metric (``Avg time/rank``,
  ``Max time/rank``) the value at each ``mpi.world.size``;
- ``synthetic_inputs.csv``: functions with a known term and a few percent noise, three
  repeats at each of seven parameter values;
- ``*_extrap.csv``: Extra-P's default single-parameter model of each function
  (``c0``, ``c1``, ``poly``, ``log``, ``rss``, ``smape``, ``ar2``, ``text``).

The benchmark (``python -m benchmarks models``) uses :func:`run_extrap` to time Extra-P
on the same functions in the same run.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_VENV = ROOT / ".venv-extrap"
WORKER = Path(__file__).resolve().parent / "_extrap_worker.py"
EXTRAP_SPEC = "extrap==4.2.*"
MPI_DIR = ROOT / "tests" / "data" / "thicket" / "mpi_scaling_cali"
PARAM = "mpi.world.size"
METRICS = ("Avg time/rank", "Max time/rank")
#: the synthetic functions' parameter values, each measured three times
SYNTH_X = np.repeat([8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0], 3)
SYNTH_SEED = 20


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def ensure_venv(venv: Path = DEFAULT_VENV) -> Path:
    """The python of Extra-P's venv, created (with Extra-P installed) when missing."""
    py = venv_python(venv)
    if not py.exists():
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", EXTRAP_SPEC], check=True)
    return py


def versions(py: Path) -> dict:
    """Versions of Extra-P, numpy and Python in Extra-P's venv."""
    code = (
        "import json, sys, numpy, extrap; print(json.dumps({'extrap': extrap.__version__, "
        "'numpy': numpy.__version__, 'python': sys.version.split()[0]}))"
    )
    out = subprocess.run([str(py), "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def run_extrap(py: Path, x: np.ndarray, Y: np.ndarray, agg: str = "mean") -> dict:
    """Extra-P's models of the rows of ``Y`` over ``x`` (and its modelling time),
    computed in a subprocess of Extra-P's venv."""
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "in.json", Path(tmp) / "out.json"
        rows = [[None if np.isnan(v) else float(v) for v in row] for row in np.asarray(Y)]
        xs = np.asarray(x, dtype=float).tolist()  # a list of lists: several parameters
        src.write_text(json.dumps({"x": xs, "functions": rows}))
        subprocess.run(
            [str(py), str(WORKER), "--input", str(src), "--output", str(dst), "--agg", agg],
            check=True,
        )
        return json.loads(dst.read_text())


# ---------------------------------------------------------------------- inputs
def mpi_inputs() -> tuple[np.ndarray, pd.DataFrame]:
    """Parameter values and one row per (metric, node) of the MPI scaling ensemble."""
    sys.path.insert(0, str(ROOT / "src"))
    from perfweave.ensemble import Ensemble
    from perfweave.ensemble.models import metric_matrix, parameter

    ens = Ensemble.from_files(str(MPI_DIR))
    x = parameter(ens, PARAM)
    order = np.argsort(x)
    names = ens.graph.frames["name"].to_numpy()
    paths = [" / ".join(str(v) for v in node.path()) for node in _nodes(ens.graph)]
    parts = []
    for metric in METRICS:
        Y = metric_matrix(ens, metric)[:, order]
        frame = pd.DataFrame(Y, columns=[f"y_{int(v)}" for v in x[order]])
        frame.insert(0, "path", paths)
        frame.insert(0, "name", names)
        frame.insert(0, "node", np.arange(len(names)))
        frame.insert(0, "metric", metric)
        parts.append(frame)
    return x[order], pd.concat(parts, ignore_index=True)


def _nodes(graph):
    from perfweave.calltree.graph import Node

    return [Node(graph, i) for i in range(len(graph))]


def synthetic_inputs(seed: int = SYNTH_SEED) -> pd.DataFrame:
    """Functions ``c0 + c1 * p^i * log2(p)^j`` (every hypothesis of the search space
    several times, and constants) with multiplicative noise of 1 to 5 percent."""
    sys.path.insert(0, str(ROOT / "src"))
    from perfweave.scaling import terms

    rng = np.random.default_rng(seed)
    H = len(terms.POLY)
    reps = 6
    hyp = np.concatenate([np.tile(np.arange(H), reps), np.full(2 * reps, -1)])
    F = len(hyp)
    c0 = np.exp(rng.uniform(np.log(0.1), np.log(10.0), F))
    share = rng.uniform(1.0, 20.0, F)  # the term's value at the largest p, in units of c0
    T = terms.term_values(SYNTH_X)
    tmax = np.where(hyp >= 0, T[np.maximum(hyp, 0), -1], 1.0)
    c1 = np.where(hyp >= 0, share * c0 / tmax, 0.0)
    sigma = rng.choice([0.01, 0.02, 0.05], F)
    clean = c0[:, None] + c1[:, None] * np.where(hyp[:, None] >= 0, T[np.maximum(hyp, 0)], 0.0)
    Y = clean * (1.0 + sigma[:, None] * rng.standard_normal(clean.shape))
    frame = pd.DataFrame(Y, columns=[f"y{i}_{int(v)}" for i, v in enumerate(SYNTH_X)])
    true_poly = np.where(hyp >= 0, terms.POLY_F[np.maximum(hyp, 0)], 0.0)
    true_log = np.where(hyp >= 0, terms.LOG_F[np.maximum(hyp, 0)], 0.0)
    frame.insert(0, "noise", sigma)
    frame.insert(0, "true_c1", c1)
    frame.insert(0, "true_c0", c0)
    frame.insert(0, "true_log", true_log)
    frame.insert(0, "true_poly", true_poly)
    return frame


def edge_inputs(seed: int = 9) -> pd.DataFrame:
    """Functions at the edges of the method: all zero, mostly zero, shrinking, negative,
    nearly constant, a term far below its constant, random magnitudes; at p = 1..32 (log
    terms allowed at 1) and at p = 0.25..8 (log terms left out below 1)."""
    rng = np.random.default_rng(seed)
    parts = []
    for x in (np.array([1.0, 2, 4, 8, 16, 32]), np.array([0.25, 0.5, 1, 2, 4, 8])):
        rows = [
            [0, 0, 0, 0, 0, 0],
            [0, 0, 1e-3, 0, 0, 2e-3],
            [5, 4, 3, 2, 1, 0.5],
            [-1, -2, -3, -5, -8, -13],
            [1, 1, 1, 1, 1, 1.0000001],
            list(100 + rng.standard_normal(6)),
            list(1e-9 * x**3 + 1e-12),
            list(7 + 1e-6 * x),
        ]
        rows += [
            list(np.abs(rng.standard_normal(6)) * 10.0 ** rng.integers(-6, 3)) for _ in range(20)
        ]
        rows += [list(np.abs(rng.standard_normal(6)) + x) for _ in range(8)]
        frame = pd.DataFrame(rows, columns=[f"y{i}_{v:g}" for i, v in enumerate(x)])
        parts.append(frame)
    return pd.concat(parts, keys=["from_1", "below_1"], names=["set", "row"]).reset_index()


def value_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c.startswith("y")]


def column_values(frame: pd.DataFrame) -> np.ndarray:
    """The parameter value of each ``y..._<value>`` column."""
    return np.array([float(c.rsplit("_", 1)[1]) for c in value_columns(frame)])


def _extrap_frame(result: dict) -> pd.DataFrame:
    out = pd.DataFrame(result["models"])
    out["poly"] = out["poly"].astype(str)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "scaling")
    args = ap.parse_args(argv)
    py = ensure_venv(args.venv)
    args.out.mkdir(parents=True, exist_ok=True)
    prov = {
        "generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "command": "python -m benchmarks.extrap_reference"
        + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:])),
        "extrap_install": f'pip install "{EXTRAP_SPEC}"',
        "extrap_venv": versions(py),
        "host": {"python": platform.python_version(), "machine": platform.machine()},
        "files": {},
    }
    x, mpi = mpi_inputs()
    mpi.to_csv(args.out / "mpi_scaling_inputs.csv", index=False)
    res = run_extrap(py, x, mpi[value_columns(mpi)].to_numpy(float))
    prov["modeler"] = res["modeler"]
    ref = pd.concat([mpi[["metric", "node", "name"]], _extrap_frame(res)], axis=1)
    ref.to_csv(args.out / "mpi_scaling_extrap.csv", index=False)
    prov["files"]["mpi_scaling_inputs.csv"] = (
        f"{PARAM} and {', '.join(METRICS)} per node of tests/data/thicket/mpi_scaling_cali "
        "(perfweave's Ensemble.from_files; node ids are perfweave's)"
    )
    prov["files"]["mpi_scaling_extrap.csv"] = "Extra-P's model of each row of the inputs"
    synth = synthetic_inputs()
    synth.to_csv(args.out / "synthetic_inputs.csv", index=False)
    res = run_extrap(py, column_values(synth), synth[value_columns(synth)].to_numpy(float))
    _extrap_frame(res).to_csv(args.out / "synthetic_extrap.csv", index=False)
    prov["files"]["synthetic_inputs.csv"] = (
        f"seed {SYNTH_SEED}: each of the 42 hypotheses 6 times and 12 constants, c0 in "
        "[0.1, 10] log-uniform, the term 1..20 x c0 at the largest p, multiplicative "
        "Gaussian noise of 1, 2 or 5 %, 3 repeats at p = 8..512"
    )
    prov["files"]["synthetic_extrap.csv"] = "Extra-P's model of each synthetic function"
    edge = edge_inputs()
    edge.to_csv(args.out / "edge_inputs.csv", index=False)
    refs = []
    for _, part in edge.groupby("set", sort=False):
        cols = [c for c in value_columns(part) if part[c].notna().all()]
        x_part = np.array([float(c.rsplit("_", 1)[1]) for c in cols])
        refs.append(_extrap_frame(run_extrap(py, x_part, part[cols].to_numpy(float))))
    pd.concat(refs, ignore_index=True).to_csv(args.out / "edge_extrap.csv", index=False)
    prov["files"]["edge_inputs.csv"] = (
        "seed 9: zeros, shrinking, negative, nearly constant and random-magnitude functions at "
        "p = 1..32 (set from_1) and p = 0.25..8 (set below_1, no log terms)"
    )
    prov["files"]["edge_extrap.csv"] = "Extra-P's model of each edge function, in input order"
    (args.out / "PROVENANCE.json").write_text(json.dumps(prov, indent=2) + "\n")
    print(
        f"wrote reference tables to {os.path.relpath(args.out)} (Extra-P {prov['extrap_venv']['extrap']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
