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


# ---------------------------------------------------------------- multi-parameter
#: the multi-parameter grid: ranks p x problem size q, each point measured twice
MULTI_P = np.array([16.0, 32.0, 64.0, 128.0, 256.0])
MULTI_Q = np.array([1000.0, 2000.0, 4000.0, 8000.0, 16000.0])
MULTI_SEED = 21
#: true combinations of the synthetic multi-parameter functions (Extra-P's shapes)
MULTI_SHAPES = ("p*q", "p + q", "p + p*q", "q + p*q", "p", "q", "const")


def _grid(*axes: np.ndarray, repeats: int = 1) -> np.ndarray:
    """The points of a full grid (sorted), each ``repeats`` times: (points, parameters)."""
    mesh = np.meshgrid(*axes, indexing="ij")
    pts = np.column_stack([m.ravel() for m in mesh])
    return np.repeat(pts, repeats, axis=0)


def _point_columns(X: np.ndarray) -> list[str]:
    return [f"y{i}_" + "_".join(f"{v:g}" for v in row) for i, row in enumerate(X)]


def point_values(frame: pd.DataFrame) -> np.ndarray:
    """The point (one value per parameter) of each ``y<i>_<p>_<q>...`` column."""
    return np.array([[float(v) for v in c.split("_")[1:]] for c in value_columns(frame)])


def _synthetic_multi(X: np.ndarray, names: tuple[str, ...], shapes: list[tuple], rng):
    """Functions ``c0 + sum of coefficient x product of per-parameter terms`` at the
    points ``X`` with 1-5 % multiplicative noise; ``shapes`` lists each function's terms
    (tuples of parameter positions); the per-parameter terms are random hypotheses."""
    sys.path.insert(0, str(ROOT / "src"))
    from perfweave.scaling import terms

    F, k = len(shapes), X.shape[1]
    H = len(terms.POLY)
    hyp = rng.integers(0, H, (F, k))
    c0 = np.exp(rng.uniform(np.log(0.1), np.log(10.0), F))
    T = [terms.term_values(X[:, j]) for j in range(k)]  # (H, points)
    clean = np.repeat(c0[:, None], len(X), axis=1)
    coef = {}
    for f, shape in enumerate(shapes):
        for term in shape:
            vals = np.prod([T[j][hyp[f, j]] for j in term], axis=0)
            c = rng.uniform(1.0, 20.0) * c0[f] / vals.max()
            coef[(f, term)] = c
            clean[f] += c * vals
    sigma = rng.choice([0.01, 0.02, 0.05], F)
    Y = clean * (1.0 + sigma[:, None] * rng.standard_normal(clean.shape))
    frame = pd.DataFrame(Y, columns=_point_columns(X))
    used = [sorted({j for t in shape for j in t}) for shape in shapes]
    truth = {
        "true_combination": [
            " + ".join("*".join(names[j] for j in t) for t in shape) or "const" for shape in shapes
        ],
        "true_c0": c0,
    }
    for j, name in enumerate(names):
        on = np.array([j in u for u in used])
        truth[f"true_p_exp[{name}]"] = np.where(on, terms.POLY_F[hyp[:, j]], 0.0)
        truth[f"true_log_exp[{name}]"] = np.where(on, terms.LOG_F[hyp[:, j]], 0.0)
    truth["noise"] = sigma
    return pd.concat([pd.DataFrame(truth), frame], axis=1)


def _shapes_of(labels, names: tuple[str, ...]) -> list[tuple]:
    pos = {n: j for j, n in enumerate(names)}
    out = []
    for label in labels:
        if label == "const":
            out.append(())
            continue
        out.append(tuple(tuple(pos[n] for n in t.split("*")) for t in label.split(" + ")))
    return out


def multi_inputs(seed: int = MULTI_SEED) -> pd.DataFrame:
    """Two-parameter functions (p ranks, q problem size) in four sets:

    - ``grid``: each shape of :data:`MULTI_SHAPES` 24 times (constants 12) on the 5 x 5
      grid, each point measured twice;
    - ``missing``: 24 functions of the grid's shapes with about 15 % of the points missing;
    - ``sparse``: 24 functions on a sparse design (a line along p at the smallest q, a
      line along q at the smallest p, three more points);
    - ``below_1``: 24 functions with q = 0.25..4 (log terms of q left out).

    Columns: ``set``, the truth (``true_combination``, ``true_p_exp[p]``, ...), ``noise``
    and one column ``y<i>_<p>_<q>`` per measurement (NaN where a set has none)."""
    rng = np.random.default_rng(seed)
    names = ("p", "q")
    parts = {}
    grid = _grid(MULTI_P, MULTI_Q, repeats=2)
    labels = [s for s in MULTI_SHAPES for _ in range(12 if s == "const" else 24)]
    parts["grid"] = _synthetic_multi(grid, names, _shapes_of(labels, names), rng)
    some = list(rng.choice(MULTI_SHAPES[:-1], 24))
    one = _grid(MULTI_P, MULTI_Q)
    missing = _synthetic_multi(one, names, _shapes_of(some, names), rng)
    cols = value_columns(missing)
    drop = rng.random((len(missing), len(cols))) < 0.15
    missing[cols] = missing[cols].mask(drop)
    parts["missing"] = missing
    sparse_pts = np.array(
        [[p, MULTI_Q[0]] for p in MULTI_P]
        + [[MULTI_P[0], q] for q in MULTI_Q[1:]]
        + [[32.0, 2000.0], [64.0, 4000.0], [128.0, 8000.0]]
    )
    sparse_pts = sparse_pts[np.lexsort(sparse_pts.T[::-1])]
    some = list(rng.choice(MULTI_SHAPES[:-1], 24))
    parts["sparse"] = _synthetic_multi(sparse_pts, names, _shapes_of(some, names), rng)
    low = _grid(MULTI_P, np.array([0.25, 0.5, 1.0, 2.0, 4.0]))
    some = list(rng.choice(MULTI_SHAPES[:-1], 24))
    parts["below_1"] = _synthetic_multi(low, names, _shapes_of(some, names), rng)
    # one column per point of any set (renumbered), NaN where a set was not measured
    long = []
    for key, part in parts.items():
        vals = part[value_columns(part)]
        X = point_values(part)
        melted = pd.DataFrame(
            {
                "row": np.repeat(np.arange(len(part)), len(X)),
                "p": np.tile(X[:, 0], len(part)),
                "q": np.tile(X[:, 1], len(part)),
                "rep": np.tile(_repeat_number(X), len(part)),
                "value": vals.to_numpy().ravel(),
            }
        )
        melted["set"] = key
        long.append(melted)
    long = pd.concat(long, ignore_index=True)
    wide = long.pivot_table(index=["set", "row"], columns=["p", "q", "rep"], values="value")
    wide = wide.reindex([(k, r) for k, part in parts.items() for r in range(len(part))])
    wide.columns = _point_columns(np.array([[p, q] for p, q, _ in wide.columns]))
    truth = pd.concat(
        [part.drop(columns=value_columns(part)).assign(set=key) for key, part in parts.items()],
        ignore_index=True,
    )
    out = pd.concat([truth, wide.reset_index(drop=True)], axis=1)
    return out[["set", *[c for c in out.columns if c != "set"]]]


def _repeat_number(X: np.ndarray) -> np.ndarray:
    """0, 1, ... for the repeats of each point (in order)."""
    keys = pd.Series([tuple(r) for r in X])
    return keys.groupby(keys).cumcount().to_numpy()


def multi3_inputs(seed: int = MULTI_SEED + 1) -> pd.DataFrame:
    """Three-parameter functions (p, q, r) on a 5 x 5 x 5 grid: 30 functions of several of
    Extra-P's three-parameter shapes, 1-5 % noise."""
    rng = np.random.default_rng(seed)
    names = ("p", "q", "r")
    X = _grid(MULTI_P, np.array([10.0, 20.0, 40.0, 80.0, 160.0]), np.array([2.0, 4, 8, 16, 32]))
    kinds = ["p*q*r", "p + q + r", "p*q*r + p", "p*q + r", "p*r + q", "q*r + p", "p", "q + r"]
    labels = [kinds[i % len(kinds)] for i in range(30)]
    return _synthetic_multi(X, names, _shapes_of(labels, names), rng)


def multi_reference(result: dict, names: tuple[str, ...]) -> pd.DataFrame:
    """Extra-P's multi-parameter models as a table with perfweave's column names:
    ``combination``, ``c0``, ``c[<names>]``, ``p_exp[<name>]``, ``log_exp[<name>]``,
    ``rss``, ``smape``, ``ar2``, ``text``."""
    from fractions import Fraction
    from itertools import combinations

    k = len(names)
    subs = [
        "*".join(names[j] for j in s) for n in range(1, k + 1) for s in combinations(range(k), n)
    ]
    rows = []
    for m in result["models"]:
        row = {"combination": "", "c0": m["c0"], **{f"c[{s}]": 0.0 for s in subs}}
        exps = {j: (0.0, 0) for j in range(k)}
        combo = []
        for term in m["terms"]:
            label = "*".join(names[f[0]] for f in sorted(term["factors"]))
            combo.append(label)
            row[f"c[{label}]"] = term["coef"]
            for j, poly, log in term["factors"]:
                exps[j] = (float(Fraction(poly)), log)
        row["combination"] = " + ".join(combo) or "const"
        for j, name in enumerate(names):
            row[f"p_exp[{name}]"], row[f"log_exp[{name}]"] = exps[j]
        row.update({key: m[key] for key in ("rss", "smape", "ar2", "text")})
        rows.append(row)
    return pd.DataFrame(rows)


def write_multi(py: Path, out: Path, prov: dict) -> None:
    """Write the multi-parameter inputs and Extra-P's models of them (see
    :func:`multi_inputs`, :func:`multi3_inputs`) and note them in ``prov``."""
    frame = multi_inputs()
    frame.to_csv(out / "multi_inputs.csv", index=False)
    refs = []
    for _, part in frame.groupby("set", sort=False):
        cols = [c for c in value_columns(part) if part[c].notna().any()]
        X = np.array([[float(v) for v in c.split("_")[1:]] for c in cols])
        res = run_extrap(py, X, part[cols].to_numpy(float))
        refs.append(multi_reference(res, ("p", "q")))
    prov["multi_modeler"] = res["modeler"]
    pd.concat(refs, ignore_index=True).to_csv(out / "multi_extrap.csv", index=False)
    three = multi3_inputs()
    three.to_csv(out / "multi3_inputs.csv", index=False)
    res = run_extrap(py, point_values(three), three[value_columns(three)].to_numpy(float))
    multi_reference(res, ("p", "q", "r")).to_csv(out / "multi3_extrap.csv", index=False)
    prov["files"]["multi_inputs.csv"] = (
        f"seed {MULTI_SEED}: two-parameter functions (p = 16..256, q = 1000..16000) of the "
        f"shapes {', '.join(MULTI_SHAPES)} with random per-parameter terms of the 42, 1-5 % "
        "noise; sets grid (5 x 5, two repeats), missing (about 15 % of points left out), "
        "sparse (two lines and three more points), below_1 (q = 0.25..4)"
    )
    prov["files"]["multi_extrap.csv"] = (
        "Extra-P's multi-parameter model of each function of multi_inputs.csv (in input "
        "order), in perfweave's column names"
    )
    prov["files"]["multi3_inputs.csv"] = (
        f"seed {MULTI_SEED + 1}: 30 three-parameter functions on a 5 x 5 x 5 grid"
    )
    prov["files"]["multi3_extrap.csv"] = "Extra-P's model of each function of multi3_inputs.csv"


#: Extra-P 4.2.5's own multi-parameter test experiments (paths under its tests/data)
EXTRAP_TEST_FILES = (
    *(f"text/two_parameter_{i}.txt" for i in range(1, 8)),
    *(f"text/three_parameter_{i}.txt" for i in range(1, 4)),
    "input/input_data_2p.txt",
    "input/input_data_3p.txt",
    "input/experiments_MP/experiment_MP.txt",
    *(
        f"jsonlines/{n}_matrix_2p.jsonl"
        for n in ("band", "complete", "cross", "incomplete", "sparse")
    ),
    "jsonlines/matrix_3p.jsonl",
    "jsonlines/matrix_3p_bands.jsonl",
    "jsonlines/matrix_3p_bands_incomplete.jsonl",
    "jsonlines/matrix_4p.jsonl",
)


def write_extrap_tests(py: Path, tests_dir: Path, out: Path, prov: dict) -> None:
    """Extra-P's own multi-parameter test experiments (read by Extra-P's readers from
    ``tests_dir``, the ``tests/data`` folder of an Extra-P checkout): the mean of every
    function at each point (``extrap_tests_inputs.csv``, long format) and Extra-P's model
    of each function (``extrap_tests_extrap.csv``)."""
    from fractions import Fraction

    inputs, models = [], []
    for rel in EXTRAP_TEST_FILES:
        with tempfile.TemporaryDirectory() as tmp:
            dst = Path(tmp) / "out.json"
            subprocess.run(
                [str(py), str(WORKER), "--experiment", str(tests_dir / rel), "--output", str(dst)],
                check=True,
            )
            res = json.loads(dst.read_text())
        params = res["params"]
        for f in res["functions"]:
            key = {"file": rel, "callpath": f["callpath"], "metric": f["metric"]}
            for point, mean in zip(f["points"], f["means"]):
                coords = {f"v{j}": v for j, v in enumerate(point)}
                inputs.append({**key, "params": ",".join(params), **coords, "mean": mean})
            m = f["model"]
            terms_out = [
                {
                    "coef": t["coef"],
                    "factors": [[params[j], float(Fraction(p)), log] for j, p, log in t["factors"]],
                }
                for t in m["terms"]
            ]
            combo = " + ".join(
                "*".join(params[j] for j, _, _ in sorted(t["factors"])) for t in m["terms"]
            )
            models.append(
                {
                    **key,
                    "params": ",".join(params),
                    "combination": combo or "const",
                    "c0": m["c0"],
                    "terms": json.dumps(terms_out),
                    **{k: m[k] for k in ("rss", "smape", "ar2", "text")},
                }
            )
    pd.DataFrame(inputs).to_csv(out / "extrap_tests_inputs.csv", index=False)
    pd.DataFrame(models).to_csv(out / "extrap_tests_extrap.csv", index=False)
    prov["files"]["extrap_tests_inputs.csv"] = (
        "the mean of each function at each point of Extra-P 4.2.5's own multi-parameter test "
        "experiments (BSD-3-Clause, Technical University of Darmstadt; read with Extra-P's "
        f"readers): {', '.join(EXTRAP_TEST_FILES)}"
    )
    prov["extrap_tests_source"] = (
        f"{tests_dir}: the tests/data folder of github.com/extra-p/extrap (used: tag v4.2.5, "
        "commit 291ac8153ad38c582f36aa8653cd587634393310)"
    )
    prov["files"]["extrap_tests_extrap.csv"] = (
        "Extra-P's multi-parameter model of each function of extrap_tests_inputs.csv "
        "(measurements given in sorted order of their points); terms as JSON"
    )


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
    ap.add_argument(
        "--only-multi",
        action="store_true",
        help="write only the multi-parameter tables (the others and their provenance stay)",
    )
    ap.add_argument(
        "--extrap-tests",
        type=Path,
        help="the tests/data folder of an Extra-P 4.2.5 checkout: also write its own "
        "multi-parameter test experiments and Extra-P's models of them",
    )
    args = ap.parse_args(argv)
    py = ensure_venv(args.venv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.only_multi:
        prov = json.loads((args.out / "PROVENANCE.json").read_text())
        prov["multi_generated"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        prov["multi_command"] = "python -m benchmarks.extrap_reference --only-multi" + (
            " --extrap-tests <Extra-P 4.2.5 checkout>/tests/data" if args.extrap_tests else ""
        )
        prov["multi_extrap_venv"] = versions(py)
        write_multi(py, args.out, prov)
        if args.extrap_tests:
            write_extrap_tests(py, args.extrap_tests, args.out, prov)
        (args.out / "PROVENANCE.json").write_text(json.dumps(prov, indent=2) + "\n")
        print(f"wrote the multi-parameter reference tables to {os.path.relpath(args.out)}")
        return 0
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
    write_multi(py, args.out, prov)
    if args.extrap_tests:
        write_extrap_tests(py, args.extrap_tests, args.out, prov)
    (args.out / "PROVENANCE.json").write_text(json.dumps(prov, indent=2) + "\n")
    print(
        f"wrote reference tables to {os.path.relpath(args.out)} (Extra-P {prov['extrap_venv']['extrap']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
