"""Property test of Extra-P's line and document formats: any experiment written in the text
format, both JSON layouts, JSON Lines and Talpas reads back as the same profiles (one per
point and repetition) and the same values, whatever the parameters, call paths, metrics
and repetitions."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import perfweave as pw
from perfweave.calltree.graph import Node
from perfweave.ensemble.models import metric_matrix

NAMES = st.text("abcdefgh_", min_size=1, max_size=6)


@st.composite
def experiments(draw):
    """(parameters, points, {(callpath, metric): [repetitions per point]})."""
    k = draw(st.integers(1, 3))
    params = draw(st.lists(NAMES, min_size=k, max_size=k, unique=True))
    values = st.integers(1, 64).map(float) | st.floats(0.25, 1e4, allow_nan=False)
    points = draw(st.lists(st.tuples(*[values] * k), min_size=1, max_size=6, unique=True))
    callpaths = draw(
        st.lists(st.lists(NAMES, min_size=1, max_size=3).map("->".join), min_size=1,
                 max_size=3, unique=True)
    )  # fmt: skip
    metrics = draw(st.lists(NAMES, min_size=1, max_size=2, unique=True))
    number = st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False)
    data = {
        (c, m): [draw(st.lists(number, min_size=1, max_size=3)) for _ in points]
        for c in callpaths
        for m in metrics
    }
    return params, points, data


def _text(params, points, data) -> str:
    lines = [f"PARAMETER {' '.join(params)}"]
    lines.append("POINTS " + " ".join("(" + " ".join(repr(v) for v in p) + ")" for p in points))
    for (c, m), reps in data.items():
        lines += [f"REGION {c}", f"METRIC {m}"]
        lines += ["DATA " + " ".join(repr(v) for v in r) for r in reps]
    return "\n".join(lines) + "\n"


def _json(params, points, data) -> str:
    out: dict = {}
    for (c, m), reps in data.items():
        out.setdefault(c, {})[m] = [{"point": list(p), "values": r} for p, r in zip(points, reps)]
    return json.dumps({"parameters": params, "measurements": out})


def _json_ids(params, points, data) -> str:
    callpaths = list(dict.fromkeys(c for c, _ in data))
    metrics = list(dict.fromkeys(m for _, m in data))
    measurements = [
        {"callpath_id": callpaths.index(c) + 1, "metric_id": metrics.index(m) + 1,
         "coordinate_id": i + 1, "value": v}
        for (c, m), reps in data.items() for i, r in enumerate(reps) for v in r
    ]  # fmt: skip
    return json.dumps(
        {
            "parameters": [{"id": j + 1, "name": n} for j, n in enumerate(params)],
            "callpaths": [{"id": j + 1, "name": n} for j, n in enumerate(callpaths)],
            "metrics": [{"id": j + 1, "name": n} for j, n in enumerate(metrics)],
            "coordinates": [
                {
                    "id": i + 1,
                    "parameter_value_pairs": [
                        {"parameter_id": j + 1, "parameter_value": v} for j, v in enumerate(p)
                    ],
                }
                for i, p in enumerate(points)
            ],  # fmt: skip
            "measurements": measurements,
        }
    )


def _lines(params, points, data, talpas: bool) -> str:
    out = []
    for (c, m), reps in data.items():
        for p, r in zip(points, reps):
            for v in r:
                where = dict(zip(params, p))
                if talpas:
                    out.append(
                        f'{{"parameters":{json.dumps(where)};"metric":"{m}";'
                        f'"callpath":"{c}";"value":{v!r}}}'
                    )
                else:
                    out.append(
                        json.dumps({"params": where, "callpath": c, "metric": m, "value": v})
                    )
    return "\n".join(out) + "\n"


WRITERS = {
    "e.txt": _text,
    "e.json": _json,
    "ids.json": _json_ids,
    "e.jsonl": lambda *a: _lines(*a, talpas=False),
    "talpas.txt": lambda *a: _lines(*a, talpas=True),
}


@given(experiments())
def test_every_format_reads_back_what_was_written(tmp_path_factory, experiment):
    params, points, data = experiment
    folder = tmp_path_factory.mktemp("extrap")
    for name, write in WRITERS.items():
        path = folder / name
        path.write_text(write(params, points, data))
        ens = pw.Ensemble.from_extrap(path)
        meta = ens.metadata
        assert list(meta.columns) == [*params, "repetition", "file"], name
        nodes = {
            "->".join(str(n.frame["name"]) for n in Node(ens.graph, i).path()): i
            for i in range(len(ens.graph))
        }
        X = meta[params].to_numpy(float)
        for (c, m), reps in data.items():
            Y = metric_matrix(ens, m)[nodes[c]]
            for p, r in zip(points, reps):
                at = (np.array(p) == X).all(axis=1)
                got = Y[at][meta["repetition"].to_numpy()[at].argsort()]
                np.testing.assert_array_equal(got[: len(r)], r, err_msg=name)
                assert np.isnan(got[len(r) :]).all(), name
