"""Round-trip checks shared by the reader tests: literal and JSON keep graph and values."""

from __future__ import annotations

import math
from types import SimpleNamespace

from perfweave import GraphFrame
from tests.calltree._peer import rows


def _same_rows(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert len(a[key]) == len(b[key]), key
        for ra, rb in zip(a[key], b[key]):
            for x, y in zip(ra, rb):
                both_nan = isinstance(x, float) and math.isnan(x) and math.isnan(y)
                assert both_nan or math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12), (key, x, y)


def assert_round_trips(gf: GraphFrame) -> None:
    """``from_json(to_json())`` keeps everything; ``from_literal(to_literal())`` keeps the
    graph and the values of the first rank/thread (what a literal holds)."""
    metrics = gf.exc_metrics + gf.inc_metrics
    levels = gf.index_levels

    back = GraphFrame.from_json(gf.to_json())
    assert back.graph == gf.graph
    assert back.index_levels == levels
    assert sorted(back.exc_metrics) == sorted(gf.exc_metrics)
    assert sorted(back.inc_metrics) == sorted(gf.inc_metrics)
    _same_rows(rows(back, metrics, levels), rows(gf, metrics, levels))

    lit = GraphFrame.from_literal(gf.to_literal())
    assert lit.graph == gf.graph
    first = gf.dataframe
    for lvl in levels:
        first = first.xs(first.index.get_level_values(lvl).min(), level=lvl)
    view = SimpleNamespace(graph=gf.graph, dataframe=first)
    _same_rows(rows(lit, metrics, []), rows(view, metrics, []))
