"""Extra-P 4.2.5's reading and models of its own test inputs, for ``Ensemble.from_extrap``.

Extra-P runs in a venv of its own (numpy 1.x; see :mod:`benchmarks.extrap_reference`,
whose venv this reuses). For every input under ``tests/data/extrap`` (text, JSON, JSON
Lines, Talpas files and the two Cube sets) this runs ``extrap --<format> <input>``'s
pipeline (:func:`benchmarks._extrap_worker._read`: its reader, its model generator with
the default modeler and the mean of the repetitions) and writes

- ``tests/data/extrap/extrap_models.json``: per input, the parameters, the warnings
  Extra-P gave, and per (call path, metric) the points, the mean and the number of
  values at each, and the model (single parameter: ``c0``, ``c1``, ``poly``, ``log``,
  ``rss``, ``smape``, ``ar2``, ``text``; several: ``c0`` and ``terms`` with their
  factors ``[parameter index, exponent, log exponent]``), or the error Extra-P raised;
- ``tests/data/extrap/saved/two_parameter_1.extra-p``: ``text/two_parameter_1.txt`` read
  and modelled by Extra-P and saved as its ``.extra-p`` experiment;
- ``tests/data/scaling/few_inputs.csv`` and ``few_extrap.csv``: functions measured at 2, 3
  and 4 parameter values (Extra-P warns that it wants 5 and fits anyway) and Extra-P's
  model of each;
- ``tests/data/extrap/PROVENANCE.json``: versions, date, command.

    python -m benchmarks.extrap_inputs_reference [--venv DIR]
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.extrap_reference import (
    DEFAULT_VENV,
    WORKER,
    _extrap_frame,
    ensure_venv,
    run_extrap,
    versions,
)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "extrap"
SCALING = ROOT / "tests" / "data" / "scaling"
#: the format Extra-P's command line reads each folder with
FOLDERS = {"text": "text", "json": "json", "jsonlines": "json", "talpas": "talpas"}
CUBE_SETS = ("cubeset/single_parameter", "cubeset/multi_parameter")
SAVED_FROM = "text/two_parameter_1.txt"
FEW_SEED = 23


def inputs() -> list[tuple[str, str]]:
    """(path relative to tests/data/extrap, Extra-P's format) of every input."""
    out = []
    for folder, fmt in FOLDERS.items():
        for f in sorted((DATA / folder).rglob("*")):
            if f.is_file():
                out.append((f.relative_to(DATA).as_posix(), fmt))
    return out + [(d, "cube") for d in CUBE_SETS]


def read_with_extrap(py: Path, rel: str, fmt: str, save: Path | None = None) -> dict:
    """Extra-P's reading and models of one input (or ``{"error": message}``)."""
    with tempfile.TemporaryDirectory() as tmp:
        dst = Path(tmp) / "out.json"
        cmd = [str(py), str(WORKER), "--read", fmt, "--path", str(DATA / rel), "--output", str(dst)]
        if save is not None:
            cmd += ["--save", str(save)]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
        if done.returncode:
            last = done.stderr.strip().splitlines()[-1]
            return {"format": fmt, "error": last}
        out = json.loads(dst.read_text())
    out["format"] = fmt
    return out


def few_inputs(seed: int = FEW_SEED) -> pd.DataFrame:
    """Functions ``c0 + c1 * p^i * log2(p)^j`` with 1-5 % noise measured at 2, 3 and 4
    distinct values of p (two repeats each), in three sets."""
    sys.path.insert(0, str(ROOT / "src"))
    from perfweave.scaling import terms

    rng = np.random.default_rng(seed)
    parts = []
    for x in (
        np.array([8.0, 64.0]),
        np.array([4.0, 16.0, 64.0]),
        np.array([2.0, 8.0, 32.0, 128.0]),
    ):
        F = 60
        hyp = rng.integers(-1, len(terms.POLY), F)  # -1: a constant
        c0 = np.exp(rng.uniform(np.log(0.1), np.log(10.0), F))
        T = terms.term_values(x)
        tmax = np.where(hyp >= 0, T[np.maximum(hyp, 0), -1], 1.0)
        c1 = np.where(hyp >= 0, rng.uniform(1.0, 20.0, F) * c0 / tmax, 0.0)
        clean = c0[:, None] + c1[:, None] * np.where(hyp[:, None] >= 0, T[np.maximum(hyp, 0)], 0)
        xs = np.repeat(x, 2)
        Y = np.repeat(clean, 2, axis=1)
        Y = Y * (1.0 + rng.choice([0.01, 0.02, 0.05], F)[:, None] * rng.standard_normal(Y.shape))
        frame = pd.DataFrame(Y, columns=[f"y{i}_{int(v)}" for i, v in enumerate(xs)])
        frame.insert(0, "set", f"{len(x)}_values")
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    args = ap.parse_args(argv)
    py = ensure_venv(args.venv)
    saved = DATA / "saved" / (Path(SAVED_FROM).stem + ".extra-p")
    saved.parent.mkdir(exist_ok=True)
    results = {}
    for rel, fmt in inputs():
        results[rel] = read_with_extrap(py, rel, fmt, saved if rel == SAVED_FROM else None)
    results[saved.relative_to(DATA).as_posix()] = read_with_extrap(
        py, saved.relative_to(DATA).as_posix(), "extra-p"
    )
    (DATA / "extrap_models.json").write_text(json.dumps(results, indent=1) + "\n")
    few = few_inputs()
    few.to_csv(SCALING / "few_inputs.csv", index=False)
    refs = []
    for _, part in few.groupby("set", sort=False):
        cols = [c for c in part.columns if c.startswith("y") and part[c].notna().all()]
        x = np.array([float(c.rsplit("_", 1)[1]) for c in cols])
        refs.append(_extrap_frame(run_extrap(py, x, part[cols].to_numpy(float))))
    pd.concat(refs, ignore_index=True).to_csv(SCALING / "few_extrap.csv", index=False)
    prov = {
        "generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "command": "python -m benchmarks.extrap_inputs_reference",
        "extrap_venv": versions(py),
        "host": {"python": platform.python_version(), "machine": platform.machine()},
        "files": {
            "extrap_models.json": "Extra-P's reading (points, means, repetitions) and models of "
            "every input here, as its command line reads and models them (default modeler, "
            "mean); 'error' where Extra-P rejects the input",
            "saved/two_parameter_1.extra-p": f"{SAVED_FROM} read, modelled and saved by Extra-P",
            "../scaling/few_inputs.csv": f"seed {FEW_SEED}: 60 functions each at 2, 3 and 4 "
            "distinct parameter values (two repeats), random terms of the 42, 1-5 % noise",
            "../scaling/few_extrap.csv": "Extra-P's model of each function of few_inputs.csv",
        },
    }
    (DATA / "PROVENANCE.json").write_text(json.dumps(prov, indent=2) + "\n")
    print(f"wrote {len(results)} inputs' references to {DATA.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
