"""Run Extra-P's default single- or multi-parameter modeler on functions given as JSON.

This file runs inside Extra-P's own venv (see ``benchmarks/extrap_reference.py``): it
imports only Extra-P, numpy and the standard library, never perfweave.

Input (``--input FILE``): ``{"x": [...], "functions": [[...], ...]}``, one value per
parameter value in ``x`` (repeats of a parameter value allowed, NaN/null = no
measurement). Output (``--output FILE``): ``{"extrap": version, "seconds": modelling
time, "models": [{"c0", "c1", "poly", "log", "rss", "smape", "ar2", "text"}, ...]}``,
``poly`` as "a/b" text.

With several parameters (each entry of ``x`` a list, one value per parameter) the
modeler is Extra-P's multi-parameter modeler with its defaults, the measurements given
in sorted order of their points, and each model is ``{"c0", "terms": [{"coef",
"factors": [[parameter index, poly, log], ...]}, ...], "rss", "smape", "ar2", "text"}``
with the terms in the order of Extra-P's function.

``--experiment FILE`` instead reads one of Extra-P's own test experiments with its reader
and writes each function's points, means and model (see :func:`_experiment`).

``--read FORMAT --path PATH`` reads an input as ``extrap --FORMAT PATH`` does (text, json
(JSON and JSON Lines), talpas, cube (a directory), extra-p (a saved experiment)) and
models it as Extra-P's command line does (its default modeler, the mean of the
repetitions, the measurements in the reader's order): see :func:`_read`.
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


def _points(x, values):
    """One Extra-P measurement per distinct point (a tuple of parameter values), in
    sorted order of the points."""
    from extrap.entities.callpath import Callpath
    from extrap.entities.coordinate import Coordinate
    from extrap.entities.measurement import Measurement
    from extrap.entities.metric import Metric

    by_point = defaultdict(list)
    for p, v in zip(x, values):
        if v is not None and not math.isnan(v):
            by_point[tuple(float(c) for c in p)].append(float(v))
    cp, metric = Callpath("f"), Metric("m")
    return [Measurement(Coordinate(*p), cp, metric, vals) for p, vals in sorted(by_point.items())]


def _simple(term) -> tuple[str, int]:
    poly, log = "0", 0
    for simple in term.simple_terms:
        if simple.term_type == "polynomial":
            poly = str(simple.exponent)
        else:
            log = int(simple.exponent)
    return poly, log


def _describe_multi(model) -> dict:
    hyp = model.hypothesis
    fn = hyp.function
    out_terms = []
    for term in fn.compound_terms:
        factors = [[int(p), *_simple(t)] for p, t in term.parameter_term_pairs]
        out_terms.append({"coef": float(term.coefficient), "factors": factors})
    return {
        "c0": float(fn.constant_coefficient),
        "terms": out_terms,
        "rss": float(hyp.RSS),
        "smape": float(hyp.SMAPE),
        "ar2": float(hyp.AR2),
        "text": str(fn),
    }


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


def _experiment(path: str, output: str) -> None:
    """Read one of Extra-P's own experiment files (its text or JSON-lines format) with its
    reader and write, per (callpath, metric), the mean at each point (sorted) and the
    model of Extra-P's multi-parameter modeler (single-parameter: its default modeler)
    given the measurements in sorted order of their points."""
    import extrap
    from extrap.modelers.multi_parameter.multi_parameter_modeler import MultiParameterModeler
    from extrap.modelers.single_parameter import all_modelers

    if path.endswith(".jsonl"):
        from extrap.fileio.file_reader.jsonlines_file_reader import read_jsonlines_file

        exp = read_jsonlines_file(path)
    else:
        from extrap.fileio.file_reader.text_file_reader import TextFileReader

        exp = TextFileReader().read_experiment(path)
    params = [str(p) for p in exp.parameters]
    multi = len(params) > 1
    modeler = MultiParameterModeler() if multi else all_modelers["Default"]()
    functions = []
    for (callpath, metric), ms in exp.measurements.items():
        ms = sorted(ms, key=lambda m: m.coordinate.as_tuple())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (model,) = modeler.model([ms])
        functions.append(
            {
                "callpath": str(callpath),
                "metric": str(metric),
                "points": [list(m.coordinate.as_tuple()) for m in ms],
                "means": [float(m.mean) for m in ms],
                "model": _describe_multi(model) if multi else _describe(model),
            }
        )
    result = {"extrap": extrap.__version__, "params": params, "functions": functions}
    with open(output, "w", encoding="utf-8") as fh:
        json.dump(result, fh)


def _read(fmt: str, path: str, output: str, save: str | None = None) -> None:
    """Read ``path`` with Extra-P's reader of ``fmt`` and model every function with
    Extra-P's model generator (``extrap --<fmt> <path>``'s defaults); write the parameters,
    and per (callpath, metric) the points (reader order), the mean and number of values
    at each, the model and the warnings modelling it gave."""
    import extrap
    from extrap.modelers.model_generator import ModelGenerator

    if fmt == "extra-p":
        from extrap.fileio.experiment_io import read_experiment

        exp = read_experiment(path)
    else:
        from extrap.fileio.file_reader import all_readers

        reader = next(r for r in all_readers.values() if fmt == r.NAME)()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exp = reader.read_experiment(path)
    params = [str(p) for p in exp.parameters]
    multi = len(params) > 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        generator = ModelGenerator(exp)
        generator.model_all()
    if save:  # the experiment with its models, as Extra-P's "Save experiment" writes it
        from extrap.fileio.experiment_io import write_experiment

        write_experiment(exp, save)
    functions = []
    for (callpath, metric), ms in exp.measurements.items():
        model = generator.models[(callpath, metric)]
        functions.append(
            {
                "callpath": str(callpath),
                "metric": str(metric),
                "points": [list(m.coordinate.as_tuple()) for m in ms],
                "means": [float(m.mean) for m in ms],
                "repetitions": [int(m.repetitions) for m in ms],
                "model": _describe_multi(model) if multi else _describe(model),
            }
        )
    result = {
        "extrap": extrap.__version__,
        "params": params,
        "modeler": f"{type(generator.modeler).__module__}.{type(generator.modeler).__name__}",
        "warnings": sorted({str(w.message) for w in caught}),
        "functions": functions,
    }
    with open(output, "w", encoding="utf-8") as fh:
        json.dump(result, fh)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--input")
    ap.add_argument("--read", help="a format of Extra-P's command line: text, json, talpas, cube")
    ap.add_argument("--path", help="the input --read reads")
    ap.add_argument("--save", help="with --read: also save the modelled experiment (.extra-p)")
    ap.add_argument("--experiment", help="one of Extra-P's experiment files (text, .jsonl)")
    ap.add_argument("--output", required=True)
    ap.add_argument("--agg", default="mean", choices=("mean", "median"))
    args = ap.parse_args()
    if args.read:
        _read(args.read, args.path, args.output, args.save)
        return
    if args.experiment:
        _experiment(args.experiment, args.output)
        return
    import extrap
    from extrap.entities.measurement import Measure
    from extrap.modelers.single_parameter import all_modelers

    with open(args.input, encoding="utf-8") as fh:
        data = json.load(fh)
    x = data["x"]
    multi = bool(x) and isinstance(x[0], list)
    if multi:
        from extrap.modelers.multi_parameter.multi_parameter_modeler import MultiParameterModeler

        sets = [_points(x, f) for f in data["functions"]]
        modeler = MultiParameterModeler()
        describe = _describe_multi
    else:
        sets = [_measurements(x, f) for f in data["functions"]]
        modeler = all_modelers["Default"]()
        describe = _describe
    modeler.use_measure = Measure.MEAN if args.agg == "mean" else Measure.MEDIAN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        models = modeler.model(sets)
        seconds = time.perf_counter() - t0
    result = {
        "extrap": extrap.__version__,
        "modeler": f"{type(modeler).__module__}.{type(modeler).__name__}"
        + ("" if multi else " (Default)"),
        "seconds": seconds,
        "models": [describe(m) for m in models],
    }
    with open(args.output, "w", encoding="utf-8") as fh:
        json.dump(result, fh)


if __name__ == "__main__":
    main()
