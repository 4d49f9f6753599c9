"""Reducing ranks and threads: the one rule every view of a multi-rank frame uses.

A GraphFrame indexed by ``node, rank, thread`` (or one of the two) holds a row where a
thread measured a node. The frame's **cells** are the rank/thread combinations that have a
row for some node (a GAMESS run read per profile has 40: 8 ranks with 4 threads, 8 with
one). A cell without a row for a node measured nothing there:

- for an **additive** metric (a time, a count of calls or samples, bytes: anything whose
  parts add up) it counts as **0** in every reduction over the cells (mean, median, min,
  max, sum, std, var, a callable). So where inclusive values nest on each cell, no node's
  reduced inclusive value exceeds its parent's for the monotone reductions (mean, median,
  min, max, sum, any quantile); std and var measure spread and are not monotone;
- a **non-additive** metric (:func:`is_additive`: a minimum, maximum, mean, deviation,
  ratio or timestamp a reader wrote per row) is reduced over the cells that have a value
  (Hatchet's rule for every metric).

A node without any value stays NaN. What is compared (``across``): ``"threads"``, each
cell on its own (what ``drop_index_levels`` and a node's value average over, as in
Hatchet); ``"ranks"``, each rank with its threads summed (a non-additive metric: their
mean), the default of the spread views (:func:`rank_spread`, ``load_imbalance``, the
explorer's imbalance column and glyph) wherever there is a rank level, so a rank's helper
threads do not count as ranks that idle. Several rows of one node on one cell (a sampling
profile) are summed first (:mod:`perfweave.calltree._layout`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from perfweave.calltree._layout import INT, Layout, layout
from perfweave.errors import ShapeError

if TYPE_CHECKING:
    from perfweave.calltree.graphframe import GraphFrame

#: what is compared: each rank (its threads summed) or each rank/thread cell
ACROSS = ("ranks", "threads")
#: reductions by name; numpy's functions of these names are the same reductions
REDUCTIONS = ("mean", "median", "min", "max", "sum", "std", "var")
_NUMPY = {
    np.mean: "mean",
    np.median: "median",
    np.min: "min",
    np.max: "max",
    np.sum: "sum",
    np.std: "std",
    np.var: "var",
}
_REDUCE: dict[str, Callable[..., np.ndarray]] = {v: k for k, v in _NUMPY.items()}
_NAN_REDUCE: dict[str, Callable[..., np.ndarray]] = {
    "mean": np.nanmean,
    "median": np.nanmedian,
    "min": np.nanmin,
    "max": np.nanmax,
    "sum": np.nansum,
    "std": np.nanstd,  # ddof=0, numpy's
    "var": np.nanvar,
}

# words in a metric's name that make it a statistic of its own rows, not a sum of parts
_STATISTIC = frozenset(
    ("min", "max", "avg", "mean", "median", "std", "stddev", "stdev", "var", "variance")
    + ("ratio", "percent", "pct", "imbalance", "efficiency")
)
_TIMESTAMP = frozenset(("ts", "timestamp", "start", "end", "begin"))
_WORDS = re.compile(r"[^0-9a-z]+")
_DERIVED = re.compile(r" (\(inc\)|\(exc\))$")


def is_additive(metric: object) -> bool:
    """Whether a metric's values add up over ranks/threads (so a missing row counts 0).

    A time, a count (calls, visits, samples: a rank that never entered a node made 0
    calls) and bytes are additive. Not additive, by a word of the name (separated by
    ``#``, ``.``, ``/``, ``_``, spaces...): ``min``, ``max``, ``avg``, ``mean``,
    ``median``, ``std``/``stddev``, ``var``, ``ratio``, ``percent``, a ``%``, and a
    timestamp (``ts``, ``timestamp``): Caliper's ``min#inclusive#sum#time.duration`` and
    ``Max time/rank``, timemory's ``stddev.wall_clock``, PerfFlowAspect's ``ts``.
    """
    name = _DERIVED.sub("", str(metric)).strip().lower()
    if "%" in name or name in _TIMESTAMP:
        return False
    return not (set(_WORDS.split(name)) & _STATISTIC)


def unmeasured_zero(df: pd.DataFrame, n: int, metric: str) -> np.ndarray:
    """The nodes (of ``n``) that some row of ``df`` (any rank, any thread) has a value of
    additive ``metric`` for: where one rank or thread shown on its own has none, it
    measured nothing, 0 by the rule every reduction follows. None for a statistic."""
    if not is_additive(metric):
        return np.zeros(n, bool)
    node = np.asarray(df.index.get_level_values("node"), dtype=INT)
    has = df[metric].notna().to_numpy()
    return np.bincount(node[has], minlength=n)[:n] > 0


def default_across(levels: Sequence[str]) -> str:
    """``"ranks"`` where the frame has a rank level (threads summed), else ``"threads"``."""
    return "ranks" if "rank" in levels else "threads"


def check_across(levels: Sequence[str], across: str | None) -> str:
    """``across`` checked against the frame's levels (None: :func:`default_across`)."""
    if across is None:
        return default_across(levels)
    if across not in ACROSS:
        raise ShapeError(f"across={across!r}: expected one of {', '.join(map(repr, ACROSS))}")
    if across == "ranks" and levels and "rank" not in levels:
        raise ShapeError(
            f"across='ranks': the frame has no rank level (its levels: {', '.join(levels)}); "
            "use across='threads'"
        )
    return across


def compared(levels: Sequence[str], across: str) -> str:
    """What one value of a spread is, for a header: ``ranks``, ``ranks, threads summed``,
    ``threads`` (a frame with threads only), ``every thread`` (every rank/thread cell)."""
    others = [lvl for lvl in levels if lvl != "rank"]
    if across == "ranks" and "rank" in levels:
        return "ranks" if not others else f"ranks, {'/'.join(others)}s summed"
    if len(levels) == 1:
        return f"{levels[0]}s"
    return f"every {levels[-1]}"


@dataclass(frozen=True)
class Cells:
    """Metrics per node and compared unit (a rank, or a rank/thread cell).

    ``values[m]`` is nodes x units: 0 where an additive metric measured nothing, NaN where
    a non-additive one has no value and in every unit of a node without any value.
    ``measured[m]`` says where a row has a value. ``unit_values`` gives each unit's
    value of each index level it keeps (``rank``, ``thread``)."""

    values: dict[str, np.ndarray]
    measured: dict[str, np.ndarray]
    labels: list[str]
    unit_values: dict[str, np.ndarray]
    across: str
    levels: list[str]
    level_counts: dict[str, int]
    layout: Layout  # where the rows read sit

    @property
    def width(self) -> int:
        return len(self.labels)

    @property
    def what(self) -> str:
        """What one unit is (:func:`compared`)."""
        return compared(self.levels, self.across) if self.levels else ""

    @property
    def noun(self) -> str:
        """What the units are, plural: ``ranks`` or ``threads``."""
        if self.across == "ranks" and "rank" in self.levels:
            return "ranks"
        return f"{self.levels[-1]}s" if self.levels else ""

    def reduce(self, metric: str, how: str | Callable = "mean") -> np.ndarray:
        """One value per node: :func:`reduce_matrix` of ``metric``'s cells (an additive
        metric's rows are whole or all NaN: no NaN to skip)."""
        return reduce_matrix(self.values[metric], how, skipna=not is_additive(metric))

    def partial(self) -> bool:
        """Whether some node with a value lacks a row on some unit (the 0 rule applies)."""
        for m, seen in self.measured.items():
            if is_additive(m) and not seen.all() and not seen[seen.any(axis=1)].all():
                return True
        return False

    def describe(self, how: str = "mean") -> str:
        """``mean over 4 ranks``, ``mean over 40 threads (16 ranks)``, ``mean over 16 ranks
        (threads summed)``; ``, a rank without a row counts 0`` where that happens."""
        if not self.levels:
            return ""
        counts = self.level_counts
        if self.across == "ranks" and len(self.levels) > 1:
            others = "/".join(lvl for lvl in self.levels if lvl != "rank")
            text = f"{how} over {_count(self.width, 'rank')} ({others}s summed)"
            unit = "rank"
        elif len(self.levels) == 1:
            text = f"{how} over {_count(self.width, self.levels[0])}"
            unit = self.levels[0]
        elif self.width == int(np.prod([counts[lvl] for lvl in self.levels])):
            text = f"{how} over " + ", ".join(_count(counts[lvl], lvl) for lvl in self.levels)
            unit = "/".join(self.levels)
        else:
            last, rest = self.levels[-1], self.levels[:-1]
            text = f"{how} over {_count(self.width, last)} "
            text += f"({', '.join(_count(counts[lvl], lvl) for lvl in rest)})"
            unit = last
        if self.partial():
            text += f"; a {unit} without a row for a node counts 0"
        return text


def _count(n: int, noun: str) -> str:
    """``4 ranks``, ``1 thread``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def rank_cells(
    gf: GraphFrame,
    metrics: Sequence[str],
    across: str = "threads",
    dataframe: pd.DataFrame | None = None,
) -> Cells:
    """The (node x unit) matrices of ``metrics`` by the rule of this module.

    ``dataframe`` (default: the frame's) may be a selection of its rows (one rank). A
    frame without rank/thread levels has one unit: each node's rows summed."""
    df = gf.dataframe if dataframe is None else dataframe
    lay = layout(df, len(gf.graph))
    across = check_across(lay.levels, across)
    for m in metrics:
        if m not in df.columns:
            raise ShapeError(f"no metric column {m!r}; the columns are {list(df.columns)}")
    if not lay.levels:
        values, measured = {}, {}
        for m in metrics:
            total, present = lay.dense(_floats(df, m))
            values[m] = np.where(present, total, np.nan)
            measured[m] = present
        return Cells(values, measured, [""], {}, across, [], {}, lay)
    used = np.flatnonzero(np.bincount(lay.combo, minlength=lay.k) > 0)
    unit_values = {lvl: lay.combo_values[lvl][used] for lvl in lay.levels}
    group = None
    if across == "ranks" and len(lay.levels) > 1:
        ranks, group = np.unique(unit_values["rank"], return_inverse=True)
        order = np.argsort(group, kind="stable")
        starts = np.flatnonzero(np.r_[True, group[order][1:] != group[order][:-1]])
        unit_values = {"rank": ranks}
    values, measured = {}, {}
    for m in metrics:
        total, present = lay.dense(_floats(df, m))
        if len(used) < lay.k:
            total, present = total[:, used], present[:, used]
        additive = is_additive(m)
        if group is not None:
            if not additive:  # a statistic per row: its threads' mean, not their sum
                total = np.where(present, total, 0.0)
            count = np.add.reduceat(present[:, order].astype(INT), starts, axis=1)
            total = np.add.reduceat(total[:, order], starts, axis=1)
            present = count > 0
            if not additive:
                with np.errstate(invalid="ignore", divide="ignore"):
                    total = total / np.maximum(count, 1)
        values[m] = _fill(total, present, additive)
        measured[m] = present
    labels = [
        ", ".join(p)
        for p in zip(*([f"{lvl} {v}" for v in vals] for lvl, vals in unit_values.items()))
    ]
    counts = dict(lay.level_counts)
    return Cells(values, measured, labels, unit_values, across, list(lay.levels), counts, lay)


def _floats(df: pd.DataFrame, metric: str) -> np.ndarray:
    return pd.to_numeric(df[metric], errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def _fill(total: np.ndarray, present: np.ndarray, additive: bool) -> np.ndarray:
    """Additive: 0 where a unit measured nothing, NaN rows where the node has no value;
    otherwise NaN wherever a unit has no value."""
    if additive:
        if present.all():
            return total
        has = present.any(axis=1)
        out = np.where(present, total, 0.0)
        if not has.all():
            out[~has] = np.nan
        return out
    return np.where(present, total, np.nan)


def reduce_matrix(
    matrix: np.ndarray, how: str | Callable = "mean", skipna: bool = True
) -> np.ndarray:
    """One value per row of a (node x unit) matrix from :func:`rank_cells`: NaN cells are
    left out (a non-additive metric's units without a value), an all-NaN row gives NaN.
    ``skipna=False`` is for matrices whose rows are whole or all NaN (faster).

    ``how`` is one of :data:`REDUCTIONS` (std and var with ddof=0, as numpy's), the numpy
    function of that name, or any callable taking a 1-d array (called once per node)."""
    name = how if isinstance(how, str) else _NUMPY.get(how)
    n = len(matrix)
    if name is not None:
        if name not in _NAN_REDUCE:
            raise ShapeError(f"unknown reduction {how!r}; expected one of {', '.join(REDUCTIONS)}")
        if not matrix.shape[1]:
            return np.full(n, np.nan)
        with warnings.catch_warnings(), np.errstate(invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: NaN
            if not skipna:
                return np.asarray(_REDUCE[name](matrix, axis=1), dtype=float)
            out = _NAN_REDUCE[name](matrix, axis=1)
        if name == "sum":
            out = np.where(np.isnan(matrix).all(axis=1), np.nan, out)
        return np.asarray(out, dtype=float)
    if not callable(how):
        raise ShapeError(f"unknown reduction {how!r}; expected one of {', '.join(REDUCTIONS)}")
    out = np.full(n, np.nan)
    for i, row in enumerate(matrix):
        row = row[~np.isnan(row)]
        if len(row):
            out[i] = float(how(row))
    return out


def reduce_ranks(
    gf: GraphFrame,
    metrics: str | Sequence[str],
    how: str | Callable = "mean",
    across: str = "threads",
) -> pd.DataFrame:
    """One value per graph node (index 0..n-1) of each metric, reduced over the frame's
    ranks/threads by the rule of this module; ``.attrs["perfweave.node_values"]`` says
    how (``mean over 40 threads (16 ranks); a thread without a row for a node counts 0``).
    """
    cols = [metrics] if isinstance(metrics, str) else list(metrics)
    cells = rank_cells(gf, cols, across)
    out = pd.DataFrame(
        {m: cells.reduce(m, how) for m in cols},
        index=pd.RangeIndex(len(gf.graph), name="node"),
        columns=cols,
    )
    out.attrs["perfweave.node_values"] = cells.describe(_how_name(how))
    return out


def _how_name(how: str | Callable) -> str:
    if isinstance(how, str):
        return how
    return _NUMPY.get(how) or getattr(how, "__name__", "reduction")


@dataclass(frozen=True)
class RankSpread:
    """How a metric spreads over the compared units of each node (a rank, or a thread):
    ``mean`` and ``max`` over the units, ``excess = max - mean`` (what the slowest unit
    spends beyond the average, in the metric's unit), the POP load-balance
    ``efficiency = mean / max`` and Chopper's ``imbalance = max / mean``."""

    metric: str
    cells: Cells
    mean: np.ndarray
    max: np.ndarray

    @property
    def matrix(self) -> np.ndarray:
        return self.cells.values[self.metric]

    @property
    def excess(self) -> np.ndarray:
        return self.max - self.mean

    @property
    def efficiency(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.mean / self.max

    @property
    def imbalance(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.max / self.mean

    @property
    def what(self) -> str:
        return self.cells.what


def rank_spread(gf: GraphFrame, metric: str, across: str | None = None) -> RankSpread:
    """:class:`RankSpread` of ``metric`` over ``across`` (default: :func:`default_across`).
    A frame without rank/thread levels is a :class:`~perfweave.errors.ShapeError`."""
    if not gf.index_levels:
        raise ShapeError(
            f"{metric!r}: the frame has no rank or thread index level, so there is nothing "
            f"to spread over (index: {list(gf.dataframe.index.names)})"
        )
    cells = rank_cells(gf, [metric], check_across(gf.index_levels, across))
    return spread_of(cells, metric)


def spread_of(cells: Cells, metric: str) -> RankSpread:
    """The :class:`RankSpread` of one metric of computed cells. A mean is never above the
    maximum: where rounding puts it there (three ranks of 0.1 s: a mean 1.4e-17 s above),
    it is the maximum, so an excess is never below 0, an efficiency never above 1."""
    mean, top = cells.reduce(metric, "mean"), cells.reduce(metric, "max")
    return RankSpread(metric, cells, np.minimum(mean, top), top)


def profile_means(
    dataframe: pd.DataFrame, n_nodes: int, profiles: Sequence[Any], metric: str
) -> np.ndarray:
    """(nodes, profiles) of an ensemble's ``metric``: per profile, the mean over that
    profile's rank/thread cells by the rule of this module (a cell of the profile without
    a row for the node counts 0 if the metric is additive); NaN where the node has no value
    in the profile. Without rank/thread levels, the sum of a node's rows per profile."""
    lay: Layout = layout(dataframe, n_nodes)
    pos = pd.Index(profiles).get_indexer(dataframe.index.get_level_values(1))
    p = len(profiles)
    values = _floats(dataframe, metric)
    ok = ~np.isnan(values) & (pos >= 0)
    flat = lay.node[ok] * p + pos[ok]
    sums = np.bincount(flat, weights=values[ok], minlength=n_nodes * p)
    rows = np.bincount(flat, minlength=n_nodes * p)
    has = rows > 0
    if len(lay.levels) > 1 and is_additive(metric):
        # the profile's cells: its distinct (rank, thread...) combinations with a row
        cell = lay.combo[pos >= 0]
        owner = pos[pos >= 0]
        first = np.unique(cell)  # combinations include the profile level: one owner each
        owner_of = np.full(lay.k, -1, INT)
        owner_of[cell] = owner
        width = np.bincount(owner_of[first], minlength=p)
        per = np.tile(np.maximum(width, 1), n_nodes)
    elif len(lay.levels) > 1:  # a non-additive metric: the mean over cells with a value
        per = _cells_per_node_profile(lay, pos, ok, n_nodes, p)
    else:
        per = np.ones(n_nodes * p)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(has, sums / per, np.nan).reshape(n_nodes, p)


def _cells_per_node_profile(
    lay: Layout, pos: np.ndarray, ok: np.ndarray, n_nodes: int, p: int
) -> np.ndarray:
    """How many rank/thread cells of each (node, profile) have a value (at least 1)."""
    rows = np.flatnonzero(ok)
    cell_key, first = np.unique(lay.node[rows] * lay.k + lay.combo[rows], return_index=True)
    flat = (cell_key // lay.k) * p + pos[rows[first]]
    return np.maximum(np.bincount(flat, minlength=n_nodes * p), 1)
