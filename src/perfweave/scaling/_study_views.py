"""What a view of a :class:`~perfweave.scaling.ScalingStudy` writes: the calltree's columns
of growth terms and predictions at the target, the text about the focused model, a poor
fit's warning. Every number in the metric's unit, one format per column
(:mod:`perfweave.calltree.numbers`); no time below 0 shown as a time
(:func:`perfweave.scaling.interval.shown`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from perfweave.calltree.numbers import ColumnFormat, column_format, format_quantity
from perfweave.scaling import quality
from perfweave.scaling.interval import INVALID, shown

if TYPE_CHECKING:  # pragma: no cover
    from perfweave.scaling.study import ScalingStudy

#: the share of new measurements the written and drawn intervals hold
LEVEL = 0.9
#: models whose interval the column of predictions writes: those predicted largest there
INTERVAL_ROWS = 64
#: the column of growth terms with their quality (sorted by asymptotic order)
GROWTH_COLUMN = "growth term · fit quality"


@dataclass(frozen=True)
class FocusText:
    """What a view writes about the focused node: ``title`` (its id and call path),
    ``model`` (the model, or why there is none, and each group's model when grouping),
    ``figures`` (SMAPE, AR2, scales, the prediction at the target with its interval and
    how far the target lies past the data), ``quality`` (how far to trust it) and whether
    that is ``poor`` (a view marks it)."""

    title: str
    model: str
    figures: str
    quality: str
    poor: bool


def with_interval(value: float, low: float, high: float, fmt: ColumnFormat) -> str:
    """``477.6 ms (12.5 ms – 1,651.0 ms)``: a prediction and its interval in the format of
    their column (the prediction alone where there is no interval)."""
    text = fmt.text(value)
    if not (np.isfinite(low) and np.isfinite(high)):
        return text
    return f"{text} ({fmt.text(low)} – {fmt.text(high)})"


def intervals(study: ScalingStudy, models: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) at the study's target of the :data:`INTERVAL_ROWS` models predicted
    largest there (NaN for the others: the bootstrap costs a few ms per model; a chart
    draws the focused node's interval whatever its rank)."""
    at = study.predict(models, study.target).to_numpy()
    low = np.full(len(models), np.nan)
    high = low.copy()
    has = (models["reason"] == "").to_numpy()
    valid = np.where(has & ~(at < 0), at, -np.inf)
    rows = np.argsort(-valid, kind="stable")[:INTERVAL_ROWS]
    rows = np.sort(rows[has[rows]])
    if len(rows):
        got = study.predict(models.iloc[rows], study.target, interval=LEVEL)
        low[rows], high[rows] = got["low"].to_numpy(), got["high"].to_numpy()
    return low, high


def explorer_columns(
    study: ScalingStudy, to_ensemble: np.ndarray | None
) -> tuple[pd.DataFrame, dict[str, pd.Series]]:
    """The growth and prediction columns and their sort keys (see
    :meth:`ScalingStudy.explorer_columns`), indexed by the ensemble's node ids, or by the
    ids of the tree whose nodes ``to_ensemble`` maps to the ensemble's (-1: none)."""
    models = study.models()
    has = models["reason"] == ""
    growth = models["term"] + " · " + models["quality"].where(models["quality"] != "poor", "⚠ poor")
    at = study.predict(models, study.target)
    low, high = intervals(study, models)
    value, low, high, invalid = shown(at, low, high, study.never_negative)
    # one format for the column: its predictions and intervals (never 1,616 s over 507.9 s)
    written = has.to_numpy() & ~np.asarray(invalid, dtype=bool)
    fmt = column_format(np.concatenate([a[written] for a in (value, low, high)]), study.unit)
    texts = [with_interval(v, lo, hi, fmt) for v, lo, hi in zip(value, low, high)]
    texts = np.where(invalid, INVALID, np.asarray(texts, dtype=object))
    column = study.target_column()
    frame = pd.DataFrame(
        {GROWTH_COLUMN: growth.where(has, None), column: pd.Series(texts, index=models.index)}
    )
    frame[column] = frame[column].where(has, None)
    keys = pd.DataFrame({GROWTH_COLUMN: models["growth"], column: value}, index=models.index)
    if to_ensemble is not None:  # a filtered, focused or dropped tree: matched by path
        found = to_ensemble >= 0
        frame = frame.iloc[to_ensemble[found]].set_axis(np.flatnonzero(found))
        keys = keys.iloc[to_ensemble[found]].set_axis(frame.index)
    return frame, {GROWTH_COLUMN: keys[GROWTH_COLUMN], column: keys[column]}


def fit_warning(study: ScalingStudy, fits: pd.DataFrame) -> str:
    """The text a chart shows when a curve it draws is a poor fit ("" if none)."""
    poor = fits[(fits["reason"] == "") & (fits["quality"] == "poor")]
    if not len(poor):
        return ""
    if study.group_by is None:
        row = poor.iloc[0]
        why = quality.explain(row["smape"], row["ar2"], row["n"], row["c1"] == 0)
        return f"⚠ {why.replace('poor: ', 'poor fit: ')}"
    return "⚠ poor fit: " + ", ".join(str(g) for g in poor.index)


def focus_text(study: ScalingStudy, fits: pd.DataFrame | None = None) -> FocusText:
    """The texts about the focused node (:class:`FocusText`); ``fits``: its models per
    group (:meth:`ScalingStudy.group_models`), when the caller has them."""
    node, unit, target = study.focused, study.unit, study.target
    row = study.models().loc[node]
    title = f"node {node}: {study.path_text(node)}"
    if row["reason"]:
        model, figures, trust, poor = f"no model: {row['reason']}", "", "", False
    else:
        got = study.predict(study.models().loc[[node]], target, interval=LEVEL)
        value, low, high, invalid = shown(
            got["prediction"], got["low"], got["high"], study.never_negative[[node]]
        )
        kind = " (constant)" if row["c1"] == 0 else " (decreasing)" if row["c1"] < 0 else ""
        model = f"model: {row['model']}{kind}"
        if invalid[0]:
            said = f"{INVALID} (the shrinking model crosses 0 before {target:g})"
        else:
            said = format_quantity(value[0], unit)
            if np.isfinite(low[0]):
                said += (
                    f", {LEVEL:.0%} interval {format_quantity(low[0], unit)} – "
                    f"{format_quantity(high[0], unit)} (shaded)"
                )
        past = study.past_data(target)
        if past > 1:
            said += f"; ⚠ {past:.2g}x past the largest measured ({study.largest():g})"
        figures = (
            f"SMAPE {row['smape']:.1f}%  AR2 {row['ar2']:.3f}  ({row['n']} scales)  ·  at "
            f"{study.param}={target:g}: {said}"
        )
        why = quality.explain(row["smape"], row["ar2"], row["n"], row["c1"] == 0)
        poor = row["quality"] == "poor"
        trust = f"⚠ {why}: do not trust its predictions" if poor else f"quality {why}"
    if study.group_by is not None:  # the curves a chart draws: one model per group
        each = [
            f"{g}: {fit['model'] if not fit['reason'] else 'no model'}"
            + (f" ({fit['quality']})" if not fit["reason"] else "")
            for g, fit in (study.group_models() if fits is None else fits).iterrows()
        ]
        model = f"{model} (all runs)  ·  by {study.group_by}: " + ";  ".join(each)
    return FocusText(title, model, figures, trust, bool(poor))
