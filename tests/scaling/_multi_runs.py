"""A small two-parameter scaling study written as Caliper json-split files (one per run):
runs at 5 rank counts x 5 problem sizes, four call paths with known models."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

RANKS = (8, 16, 32, 64, 128)
SIZES = (100, 200, 400, 800, 1600)
#: call path -> its time as a function of ranks p and problem size q
TRUTH = {
    "main": lambda p, q: 50.0 + 0.0 * p,
    "solve": lambda p, q: 2.0 + 0.01 * q * np.log2(p),
    "exchange": lambda p, q: 1.0 + 0.3 * p,
    "reduce": lambda p, q: 0.5 + 0.2 * np.log2(p) + 0.002 * q,
}
#: the terms Extra-P's method finds without noise: combination and exponents per call path
EXPECTED = {
    "main": ("const", (0, 0), (0, 0)),
    "solve": ("ranks*size", (0, 1), (1, 0)),
    "exchange": ("ranks", (1, 0), (0, 0)),
    "reduce": ("ranks + size", (0, 1), (1, 0)),
}


def write_runs(folder: Path, noise: float = 0.0, seed: int = 0) -> list[Path]:
    """One json-split file per (ranks, size) run with metadata ``ranks``, ``size`` and a
    text column ``machine``; returns the paths."""
    rng = np.random.default_rng(seed)
    names = list(TRUTH)
    nodes = [{"label": "main", "column": "path"}] + [
        {"label": n, "column": "path", "parent": 0} for n in names[1:]
    ]
    paths = []
    for p in RANKS:
        for q in SIZES:
            values = [TRUTH[n](float(p), float(q)) for n in names]
            values = [v * (1 + noise * rng.standard_normal()) for v in values]
            doc = {
                "data": [[v, i] for i, v in enumerate(values)],
                "columns": ["time", "path"],
                "column_metadata": [{"is_value": True}, {"is_value": False}],
                "nodes": nodes,
                "ranks": p,
                "size": q,
                "machine": "a" if q < 400 else "b",
                "fixed": 7,
            }
            path = folder / f"run_{p}_{q}.json"
            path.write_text(json.dumps(doc))
            paths.append(path)
    return paths
