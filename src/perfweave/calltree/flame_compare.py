"""Two calltrees in one flame graph: widths from the larger side, colour by the difference.

``a`` and ``b`` (two GraphFrames or two Ensembles) are laid out on the union of their graphs
(:meth:`Graph.union`: equal frames along matching paths merge). A node a side lacks counts 0
on that side. A frame is as wide as the larger of its two values (so both fit), and carries
``value_a``, ``value_b``, ``delta`` (a - b), ``relative`` (delta over the larger side),
``p_value``, ``q_value``, ``significant``, ``n_a`` and ``n_b``.

**The test.** Welch's two-sided t-test per node (unequal variances,
:func:`perfweave.ensemble.significance.welch_pvalues`) over the samples of each side: the
profiles of an Ensemble, the ranks of a multi-rank GraphFrame (each rank's threads summed;
a rank without a row for the node counts 0, the core's rule). The p-values of all tested
nodes are corrected for the number of nodes by Benjamini-Hochberg, and a node is
``significant`` where the adjusted ``q_value < alpha`` (0.05). It assumes the samples of a
side are independent and roughly normal per node; with fewer than 2 samples on a side there
is no test: ``p_value`` is NaN and ``significant`` says only that the values differ
(``tested`` is False and :attr:`FlameComparison.test` says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from perfweave.calltree.flame import FlameLayout, NodeValues, layout_x, node_values
from perfweave.errors import ShapeError


@dataclass(frozen=True)
class FlameComparison:
    """Per union-graph node: each side's value, the difference and its test."""

    value_a: np.ndarray
    value_b: np.ndarray
    p_value: np.ndarray
    q_value: np.ndarray
    significant: np.ndarray
    n_a: np.ndarray
    n_b: np.ndarray
    tested: bool
    alpha: float
    samples: str

    @property
    def delta(self) -> np.ndarray:
        return self.value_a - self.value_b

    @property
    def relative(self) -> np.ndarray:
        """``delta`` over the larger side (0 where both are 0), in [-1, 1]."""
        larger = np.maximum(np.abs(self.value_a), np.abs(self.value_b))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(larger > 0, self.delta / larger, 0.0)

    @property
    def test(self) -> str:
        """The test and threshold, as a legend says them."""
        if not self.tested:
            return "one sample per side: no test, colour by Δ alone"
        return (
            f"Welch's t-test over the {self.samples} of each side, Benjamini–Hochberg "
            f"adjusted, q < {self.alpha:g}"
        )

    def columns(self, nodes: np.ndarray) -> dict[str, np.ndarray]:
        """The comparison's columns of ``frames()`` for ``nodes``."""
        return {
            "value_a": self.value_a[nodes],
            "value_b": self.value_b[nodes],
            "delta": self.delta[nodes],
            "relative": self.relative[nodes],
            "p_value": self.p_value[nodes],
            "q_value": self.q_value[nodes],
            "significant": self.significant[nodes],
            "n_a": self.n_a[nodes],
            "n_b": self.n_b[nodes],
        }


def _on_union(values: np.ndarray, ids: np.ndarray, n: int, fill: float = 0.0) -> np.ndarray:
    out = np.full((n, *values.shape[1:]), fill)
    out[ids] = values
    return out


def compare_layout(
    a: Any, b: Any, metric: Any = None, statistic: str = "mean", alpha: float = 0.05
) -> FlameLayout:
    """The flame graph of ``a`` against ``b`` (see the module docstring)."""
    from perfweave.ensemble.significance import benjamini_hochberg, welch_pvalues

    if type(a) is not type(b):
        raise ShapeError(
            f"compare draws two GraphFrames or two Ensembles, not a {type(a).__name__} "
            f"against a {type(b).__name__}"
        )
    if not 0 < alpha < 1:
        raise ShapeError(f"alpha must be between 0 and 1, got {alpha}")
    va = node_values(a, metric, statistic)
    vb = node_values(b, va.metric, statistic)
    graph, ma, mb = va.graph.union(vb.graph)
    n = len(graph)
    names = np.empty(n, dtype=object)
    names[mb] = vb.names
    names[ma] = va.names
    inc_a, inc_b = _on_union(va.inclusive, ma, n), _on_union(vb.inclusive, mb, n)
    exc_a, exc_b = _on_union(va.exclusive, ma, n), _on_union(vb.exclusive, mb, n)
    # a node a side lacks was measured as 0 in each of that side's samples
    sa, sb = _on_union(va.samples, ma, n), _on_union(vb.samples, mb, n)
    tested = va.samples.shape[1] >= 2 and vb.samples.shape[1] >= 2
    if tested:
        p, n_a, n_b = welch_pvalues(sa, sb)
        q = benjamini_hochberg(p)
        significant = (q < alpha) & (inc_a != inc_b)
    else:
        p = q = np.full(n, np.nan)
        n_a = np.full(n, va.samples.shape[1])
        n_b = np.full(n, vb.samples.shape[1])
        significant = inc_a != inc_b
    module = None
    if va.module is not None or vb.module is not None:
        module = np.full(n, None, dtype=object)
        for side, ids in ((vb, mb), (va, ma)):
            if side.module is not None:
                module[ids] = side.module
    widths = np.maximum(inc_a, inc_b)
    shown = NodeValues(
        graph,
        names,
        widths,
        np.maximum(exc_a, exc_b),
        va.metric,
        va.unit or vb.unit,
        f"a: {va.how}; b: {vb.how}",
        np.column_stack([inc_a, inc_b]),
        "sides",
        module,
    )
    x0, x1, total = layout_x(graph, widths)
    noun = va.sample_noun if va.sample_noun == vb.sample_noun else "samples"
    comparison = FlameComparison(
        inc_a,
        inc_b,
        p,
        q,
        np.asarray(significant, dtype=bool),
        np.asarray(n_a, dtype=np.int64),
        np.asarray(n_b, dtype=np.int64),
        tested,
        alpha,
        noun,
    )
    return FlameLayout(shown, x0, x1, total, comparison)
