"""What a chart of a :class:`~perfweave.scaling.ScalingStudy` draws of its focused node: each
group's model as a curve over the measured range, dashed on to the target, with the interval
of a new measurement as a band; no time below 0 (:func:`perfweave.scaling.interval.shown`)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from perfweave.scaling._study_views import LEVEL
from perfweave.scaling.interval import shown

if TYPE_CHECKING:  # pragma: no cover
    from perfweave.scaling.study import ScalingStudy


@dataclass(frozen=True)
class GroupCurve:
    """What a chart draws of one group's model of the focused node: its ``name`` (the
    group, or ``"fit"`` without grouping), whether it has a model (``fitted``), the
    ``curve`` (x, y) over the measured range, the ``extrapolation`` (x, y) on to the
    target, and the ``band`` (x, low, high) of the interval of a new measurement from the
    first run to the target. No time below 0: a lower bound below 0 is 0, and on a log
    axis the curve has a gap (NaN) where the model is at or below 0. Arrays are empty
    where there is nothing to draw."""

    group: Hashable
    name: str
    fitted: bool
    curve: tuple[np.ndarray, np.ndarray]
    extrapolation: tuple[np.ndarray, np.ndarray]
    band: tuple[np.ndarray, np.ndarray, np.ndarray]


def group_curves(
    study: ScalingStudy, log: bool, fits: pd.DataFrame | None, points: int
) -> list[GroupCurve]:
    """One :class:`GroupCurve` per row of ``fits`` (default: the study's group models)."""
    fits = study.group_models() if fits is None else fits
    lo, hi = study.measured_range(log)
    target = study.target
    nonnegative = bool(study.never_negative[study.focused])
    none = np.zeros(0)
    out = []
    for i, group in enumerate(fits.index):
        fit = fits.iloc[i]
        name = str(group) if study.group_by is not None else "fit"
        curve = extra = (none, none)
        band = (none, none, none)
        fitted = fit["reason"] == ""
        if fitted:
            curve = study.curve(fit, lo, hi, points, log=log)
            if target > hi:
                extra = study.curve(fit, hi, target, points, log=log)
            xs, low, high = study.band(fits.iloc[[i]], lo, max(hi, target), LEVEL, points, log)
            low, high = shown(np.zeros_like(low), low, high, nonnegative)[1:3]
            band = (xs, low, high)
            if log:  # a log axis has no place for values at or below 0: a gap
                curve, extra = ((xs, np.where(ys > 0, ys, np.nan)) for xs, ys in (curve, extra))
        out.append(GroupCurve(group, name, bool(fitted), curve, extra, band))
    return out
