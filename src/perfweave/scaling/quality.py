"""How far to trust a model: "good", "fair" or "poor", from its error figures and points.

Extra-P reports SMAPE and AR2 but leaves the reading to the user, and AR2 misleads on its
own: a constant model gets AR2 = 1 whatever its error, and a term's AR2 is measured
against the constant's spread, so a nearly constant function gets a low AR2 for a tight
fit. The rules (one place, used by every table, view and the CLI):

- **poor**: SMAPE above 50 % (the model misses the measurements by half on average), or a
  model with a growth term whose AR2 is below 0 (its term predicts the measurements worse
  than their mean does: the term is not supported by the data, and extrapolating it is
  a guess);
- **good**: SMAPE at most 10 %, at least :data:`~perfweave.scaling.fit.MIN_POINTS` (5)
  distinct parameter values (several parameters: 5 of each on its lines; fewer are
  fitted as Extra-P fits them, never "good"), and, for a model with a growth term, AR2 at least 0.9. A
  constant is judged by its SMAPE and points alone: its AR2 is 1 by definition and says
  nothing;
- **fair**: every other model;
- "" where there is no model.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: a SMAPE above this (percent) makes a model poor, whatever else it has
SMAPE_POOR = 50.0
#: a good model's SMAPE (percent) is at most this
SMAPE_GOOD = 10.0
#: a model with a growth term whose AR2 is below this is poor
AR2_POOR = 0.0
#: a good model with a growth term has at least this AR2
AR2_GOOD = 0.9
#: the grades, best first
GRADES = ("good", "fair", "poor")


def _fewest_for_good() -> int:
    from perfweave.scaling.fit import MIN_POINTS

    return MIN_POINTS


def grade(smape: Any, ar2: Any, n: Any, constant: Any, has_model: Any) -> np.ndarray:
    """The quality of each model (arrays of one value per model): "good", "fair", "poor",
    or "" where ``has_model`` is False. ``constant`` marks models without a growth term."""
    smape = np.asarray(smape, dtype=float)
    ar2 = np.asarray(ar2, dtype=float)
    n = np.asarray(n, dtype=float)
    constant = np.asarray(constant, dtype=bool)
    with np.errstate(invalid="ignore"):
        poor = ~(smape <= SMAPE_POOR) | (~constant & ~(ar2 >= AR2_POOR))
        good = (smape <= SMAPE_GOOD) & (n >= _fewest_for_good()) & (constant | (ar2 >= AR2_GOOD))
    out = np.where(poor, "poor", np.where(good, "good", "fair")).astype(object)
    return np.where(np.asarray(has_model, dtype=bool), out, "").astype(object)


def explain(smape: float, ar2: float, n: int, constant: bool) -> str:
    """Why a model has its grade, in a few words (for a chart or a tooltip)."""
    quality = grade(smape, ar2, n, constant, True).item()
    if quality == "poor":
        if not smape <= SMAPE_POOR:
            return f"poor: SMAPE {smape:.0f}% is above {SMAPE_POOR:.0f}%"
        return f"poor: AR2 {ar2:.2f} is below {AR2_POOR:g} (the term fits worse than the mean)"
    if quality == "good":
        return f"good: SMAPE {smape:.1f}%" + ("" if constant else f", AR2 {ar2:.2f}")
    missing = []
    if not smape <= SMAPE_GOOD:
        missing.append(f"SMAPE {smape:.0f}% (good: at most {SMAPE_GOOD:.0f}%)")
    if not constant and not ar2 >= AR2_GOOD:
        missing.append(f"AR2 {ar2:.2f} (good: at least {AR2_GOOD:g})")
    if n < _fewest_for_good():
        missing.append(f"{n} points (good: at least {_fewest_for_good()})")
    return "fair: " + ", ".join(missing)
