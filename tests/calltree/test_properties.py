"""Property tests on random trees: the graph algebra's laws."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.calltree._build import build_graphframe
from tests.calltree._peer import assert_same, rows, structure

NAMES = list("abcde")


@st.composite
def trees(draw, max_nodes=25):
    n = draw(st.integers(1, max_nodes))
    parent = [-1] + [draw(st.integers(-1, i - 1)) if i else -1 for i in range(1, n)]
    names = [draw(st.sampled_from(NAMES)) for _ in range(n)]
    times = [float(draw(st.integers(0, 100))) for _ in range(n)]
    return parent, names, times


def frame_of(tree):
    parent, names, times = tree
    data = pd.DataFrame({"node": range(len(names)), "time": times})
    gf = build_graphframe([{"name": x} for x in names], data, parent=parent, exc_metrics=["time"])
    return gf.squash()  # merge same-frame siblings, as every reader's output would be


@settings(max_examples=60, deadline=None)
@given(trees(), trees())
def test_union_is_commutative_up_to_ordering(a, b):
    ga, gb = frame_of(a).graph, frame_of(b).graph
    ab, _, _ = ga.union(gb)
    ba, _, _ = gb.union(ga)
    assert ab == ba
    assert structure(ab) == structure(ba)
    assert len(ab) <= len(ga) + len(gb)
    assert ab.union(ga)[0] == ab  # a is already inside a | b


@settings(max_examples=60, deadline=None)
@given(trees(), st.data())
def test_squash_then_inclusive_keeps_root_totals(tree, data):
    gf = frame_of(tree)
    total = gf.dataframe["time"].sum()
    keep = np.array(
        data.draw(st.lists(st.booleans(), min_size=len(gf.dataframe), max_size=len(gf.dataframe)))
    )
    if not keep.any():
        keep[0] = True
    # dropping rows moves nothing; squashing the kept rows keeps their sum at the roots
    part = gf.filter(keep)
    roots = part.graph.root_ids
    inc = part.dataframe.loc[roots, "time (inc)"].sum()
    assert np.isclose(inc, part.dataframe["time"].sum())
    assert part.dataframe["time"].sum() <= total + 1e-9


@settings(max_examples=60, deadline=None)
@given(trees(), trees())
def test_a_plus_b_minus_b_is_a_on_a_nodes(a, b):
    ga, gb = frame_of(a), frame_of(b)
    back = (ga + gb) - gb
    want = rows(ga, ["time", "time (inc)"], [])
    got = rows(back, ["time", "time (inc)"], [])
    for key, values in want.items():
        assert np.allclose(got[key], values)


@settings(max_examples=80, deadline=None)
@given(trees(), st.data())
def test_filtering_twice_is_filtering_once_by_both(tree, data):
    # the second squash must merge what the first one left as equal-frame cousins and
    # now become siblings, whatever the first one merged
    gf = frame_of(tree)
    n = len(gf.dataframe)
    first = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    names = set(data.draw(st.lists(st.sampled_from(NAMES), min_size=1)))

    def named(frame):
        name = frame.graph.frames["name"].to_numpy()[frame.node_ids()]
        return np.isin(name, list(names))

    if not (first & named(gf)).any():
        return
    once = gf.filter(first & named(gf))
    part = gf.filter(first)
    twice = part.filter(named(part))
    assert twice.graph == once.graph
    assert_same(twice, once, ["time", "time (inc)"])
