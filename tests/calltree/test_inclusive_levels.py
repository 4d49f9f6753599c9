"""inclusive.up_sum works level by level in level order (one slice per level, the runs of
equal parents found once): its sums are, bit for bit, those of the plain level loop
(each level's children added into their parents by one reduceat, deepest level first)."""

from __future__ import annotations

import numpy as np
import pytest

import perfweave as pw
from perfweave.calltree._layout import layout
from perfweave.calltree.inclusive import up_sum
from perfweave.errors import NoRegionWarning
from tests.conftest import DATA


def level_loop(graph, dense: np.ndarray) -> np.ndarray:
    """The plain rule: per level from the deepest, each run of equal parents summed by one
    reduceat and added into the parent."""
    total = dense.copy()
    parent = graph.parent
    depth = np.asarray(graph.depth)
    for d in range(int(depth.max()), 0, -1):
        level = np.flatnonzero(depth == d)
        par = parent[level]
        starts = np.flatnonzero(np.r_[True, par[1:] != par[:-1]])
        total[par[starts]] += np.add.reduceat(total[level], starts, axis=0)
    return total


def _dense(gf, columns: list[str]) -> np.ndarray:
    lay = layout(gf.dataframe, len(gf.graph))
    parts = [lay.dense(gf.dataframe[c].to_numpy(dtype=float))[0] for c in columns]
    return np.concatenate(parts, axis=1)


def _profiles():
    with pytest.warns(NoRegionWarning):
        sampling = pw.read(f"{DATA}/calltree-sampling/sampling-profile.cali")
    cpi = pw.read(f"{DATA}/hatchet/hpctoolkit-cpi-database")  # 4 ranks
    lulesh = pw.read(f"{DATA}/hatchet/caliper-lulesh-json/lulesh-annotation-profile.json")
    return {
        "sampling": (sampling, [str(m) for m in sampling.exc_metrics]),
        "cpi": (cpi, [str(m) for m in cpi.exc_metrics]),
        "lulesh": (lulesh, [str(m) for m in lulesh.exc_metrics]),
    }


@pytest.mark.parametrize("name", ["sampling", "cpi", "lulesh"])
def test_up_sum_is_the_level_loop_bit_for_bit(name):
    gf, columns = _profiles()[name]
    assert gf.graph.is_tree() and columns
    dense = _dense(gf, columns)
    got = up_sum(gf.graph, dense)
    want = level_loop(gf.graph, dense)
    assert got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=True)
    assert got.view(np.int64).tolist() == want.view(np.int64).tolist()  # same bits


def test_up_sum_of_a_deep_forest_with_runs_and_single_children():
    import pandas as pd

    from perfweave.calltree._build import build_graphframe

    rng = np.random.default_rng(7)
    n = 6000  # parents drawn among the 30 or so nodes before: ~250 levels, 3 roots
    back = np.minimum(rng.geometric(0.03, size=n - 1), np.arange(1, n))
    parent = np.r_[-1, np.arange(1, n) - back]
    parent[[2000, 4000]] = -1
    gf = build_graphframe(
        pd.DataFrame({"name": [f"f{i % 97}" for i in range(n)]}),
        pd.DataFrame({"node": np.arange(n), "time": rng.exponential(1.0, n) * 1e-3}),
        parent=parent,
        exc_metrics=["time"],
        inc_metrics=[],
        default_metric="time",
    )
    graph = gf.graph
    depth = np.asarray(graph.depth)
    assert depth.max() > 100 and len(graph.root_ids) == 3
    dense = np.c_[rng.exponential(1.0, n), rng.random(n) < 0.5].astype(float)
    dense[rng.random(n) < 0.1, 0] = np.nan
    got, want = up_sum(graph, dense), level_loop(graph, dense)
    assert np.array_equal(got, want, equal_nan=True)
    one = up_sum(graph, dense[:, 0])  # a vector too
    assert np.array_equal(one, want[:, 0], equal_nan=True)


def _layout_x_scaled(graph, widths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """layout_x's rule with every parent's scale factor worked out (the path taken where
    some children overflow their parent)."""
    from perfweave.calltree.flame import _children_sum, _down_sum

    w = np.maximum(np.nan_to_num(np.asarray(widths, dtype=float), nan=0.0), 0.0)
    n, parent = len(graph), graph.parent
    child_sum = _children_sum(graph, w)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(child_sum > w, w / child_sum, 1.0)
    zero = (f <= 0).astype(float)
    logf = np.where(f > 0, np.log(np.where(f > 0, f, 1.0)), 0.0)
    has = parent >= 0
    above_log, above_zero = np.zeros(n), np.zeros(n)
    above_log[has] = _down_sum(graph, logf)[parent[has]]
    above_zero[has] = _down_sum(graph, zero)[parent[has]]
    drawn = np.where(above_zero > 0, 0.0, w * np.exp(above_log))
    ptr, idx = graph.children_csr()
    groups = np.repeat(np.arange(n), np.diff(ptr))
    d = drawn[idx]
    run = np.cumsum(d) - d
    offset = np.zeros(n)
    offset[idx] = run - run[ptr[groups]]
    roots = graph.root_ids
    offset[roots] = np.cumsum(drawn[roots]) - drawn[roots]
    total = float(drawn[roots].sum())
    x0 = _down_sum(graph, offset) / total
    return x0, x0 + drawn / total


@pytest.mark.parametrize("name", ["sampling", "cpi", "lulesh"])
def test_layout_x_without_overflow_is_the_scaled_rule_bit_for_bit(name):
    """Inclusive values summed from exclusive ones never overflow their parent: layout_x
    then skips the scale factors (all 1), and gets the same numbers."""
    from perfweave.calltree.flame import _children_sum, flame_layout, layout_x

    gf, _ = _profiles()[name]
    values = flame_layout(gf).values.inclusive
    assert not (_children_sum(gf.graph, values) > values).any()
    x0, x1, _ = layout_x(gf.graph, values)
    want0, want1 = _layout_x_scaled(gf.graph, values)
    assert x0.tolist() == want0.tolist() and x1.tolist() == want1.tolist()
