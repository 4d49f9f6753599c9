"""Run Extra-P's default single-parameter modeler on functions given as JSON.

This file runs inside Extra-P's own venv (see ``benchmarks/extrap_reference.py``): it
imports only Extra-P, numpy and the standard library, never perfweave.

Input (``--input FILE``): ``{"x": [...], "functions": [[...], ...]}``, one value per
parameter value in ``x`` (repeats of a parameter value allowed, NaN/null = no
measurement). Output (``--output FILE``): ``{"extrap": version, "seconds": modelling
time, "models": [{"c0", "c1", "poly", "log", "rss", "smape", "ar2", "text"}, ...]}``,
``poly`` as "a/b" text.
"""

from __future__ import annotations

import argparse
import json
import math
import time
import warnings
from collections import defaultdict


def _measurements(x, values):
    """One Extra-P measurement per distinct parameter value (its repeats as values)."""
    from extrap.entities.callpath import Callpath
    from extrap.entities.coordinate import Coordinate
    from extrap.entities.measurement import Measurement
    from extrap.entities.metric import Metric

    by_value = defaultdict(list)
    for p, v in zip(x, values):
        if v is not None and not math.isnan(v):
            by_value[float(p)].append(float(v))
    cp, metric = Callpath("f"), Metric("m")
    return [Measurement(Coordinate(p), cp, metric, vals) for p, vals in sorted(by_value.items())]


def _describe(model) -> dict:
    hyp = model.hypothesis
    fn = hyp.function
    out = {
        "c0": float(fn.constant_coefficient),
        "c1": 0.0,
        "poly": "0",
        "log": 0,
        "rss": float(hyp.RSS),
        "smape": float(hyp.SMAPE),
        "ar2": float(hyp.AR2),
        "text": str(fn),
    }
    if fn.compound_terms:
        (term,) = fn.compound_terms
        out["c1"] = float(term.coefficient)
        for simple in term.simple_terms:
            if simple.term_type == "polynomial":
                out["poly"] = str(simple.exponent)
            else:
                out["log"] = int(simple.exponent)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--agg", default="mean", choices=("mean", "median"))
    args = ap.parse_args()
    import extrap
    from extrap.entities.measurement import Measure
    from extrap.modelers.single_parameter import all_modelers

    with open(args.input, encoding="utf-8") as fh:
        data = json.load(fh)
    x = data["x"]
    sets = [_measurements(x, f) for f in data["functions"]]
    modeler = all_modelers["Default"]()
    modeler.use_measure = Measure.MEAN if args.agg == "mean" else Measure.MEDIAN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        models = modeler.model(sets)
        seconds = time.perf_counter() - t0
    result = {
        "extrap": extrap.__version__,
        "modeler": f"{type(modeler).__module__}.{type(modeler).__name__} (Default)",
        "seconds": seconds,
        "models": [_describe(m) for m in models],
    }
    with open(args.output, "w", encoding="utf-8") as fh:
        json.dump(result, fh)


if __name__ == "__main__":
    main()
