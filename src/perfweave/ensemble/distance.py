"""Distances between two columns' distributions per node, and Thicket's scores.

Each node's values of a column across profiles are summarised by their mean ``m`` and
sample standard deviation ``s`` (the ``<column>_mean``/``<column>_std`` statistics, added
as Thicket adds them), and two columns are compared as two normal distributions:

- Bhattacharyya distance: ``1/4 ln(1/4 (s1²/s2² + s2²/s1² + 2)) + 1/4 (m1 - m2)² / (s1² + s2²)``
  (0 for identical distributions, growing without bound);
- Hellinger distance: ``1 - sqrt(2 s1 s2 / (s1² + s2²)) exp(-1/4 (m1 - m2)² / (s1² + s2²))``
  (0 to 1);
- ``score_delta_mean_delta_stdnorm``: ``(m1 - m2) + (s1 - s2) / |m1 - m2|``;
- ``score_delta_mean_delta_coefficient_of_variation``: ``(m1 - m2) + s1/m1 - s2/m2``;
- ``score_bhattacharyya`` / ``score_hellinger``: the distance, negated where
  ``comparison_func`` holds for the two columns' characterisation (their means by default:
  ``a < b`` gives a negative score).

Column names are Thicket's (``<a>_<b>_bhattacharyya_distance``; scores under
``("Scoring", name)``). Division by zero gives inf/NaN as numpy does (Thicket's element
arithmetic gives the same). All of it is whole-column numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from perfweave.ensemble import stats as _stats
from perfweave.ensemble.ensemble import Ensemble
from perfweave.ensemble.significance import _pair, pairwise
from perfweave.errors import ShapeError


def _moments(ens: Ensemble, a: Any, b: Any) -> tuple[np.ndarray, ...]:
    _stats.compute_stats(ens, [a, b], ("mean", "std"))
    sf = ens.statsframe
    return tuple(
        sf[_stats._name(c, s)].to_numpy(dtype=float) for s in ("mean", "std") for c in (a, b)
    )


def bhattacharyya(m1, m2, s1, s2) -> np.ndarray:
    """Bhattacharyya distance of two normal distributions (arrays of means and stds)."""
    with np.errstate(all="ignore"):
        v1, v2 = s1**2, s2**2
        return 0.25 * np.log(0.25 * (v1 / v2 + v2 / v1 + 2)) + 0.25 * ((m1 - m2) ** 2 / (v1 + v2))


def hellinger(m1, m2, s1, s2) -> np.ndarray:
    """Hellinger distance of two normal distributions (arrays of means and stds)."""
    with np.errstate(all="ignore"):
        v = s1**2 + s2**2
        return 1 - np.sqrt(2 * s1 * s2 / v) * np.exp(-0.25 * (m1 - m2) ** 2 / v)


def _distance_name(a: Any, b: Any, what: str) -> str:
    if isinstance(a, tuple):
        return f"{a[0]}_{a[1]}_{b[0]}_{b[1]}_{what}"
    return f"{a}_{b}_{what}"


def _distance(ens, columns, output_column_name, fn, what) -> list[Any]:
    a, b = _pair(ens, columns, what)
    name = output_column_name or _distance_name(a, b, what)
    return _stats._set(ens, {name: fn(*_moments(ens, a, b))})


def bhattacharyya_distance(
    ens: Ensemble, columns: Sequence[Any], output_column_name: Any = None
) -> list[Any]:
    """Per-node Bhattacharyya distance of two columns (see the module docstring)."""
    return _distance(ens, columns, output_column_name, bhattacharyya, "bhattacharyya_distance")


def hellinger_distance(
    ens: Ensemble, columns: Sequence[Any], output_column_name: Any = None
) -> list[Any]:
    """Per-node Hellinger distance of two columns (see the module docstring)."""
    return _distance(ens, columns, output_column_name, hellinger, "hellinger_distance")


def _delta(ens, columns, output_column_name, fn, fn_name) -> list[Any]:
    a, b = _pair(ens, columns, "a score")
    if not (isinstance(a, tuple) and isinstance(b, tuple)):
        raise ShapeError(
            "the delta scores compare two parts of a columns-concat ensemble: give columns "
            f"as (header, column) tuples, not {[a, b]!r}"
        )
    m1, m2, s1, s2 = _moments(ens, a, b)
    with np.errstate(all="ignore"):
        values = fn(m1, m2, s1, s2)
    name = output_column_name or _distance_name(a, b, fn_name)
    return _stats._set(ens, {("Scoring", name): values})


def score_delta_mean_delta_stdnorm(
    ens: Ensemble, columns: Sequence[Any], output_column_name: Any = None
) -> list[Any]:
    """``(m1 - m2) + (s1 - s2) / |m1 - m2|`` per node, under ``("Scoring", name)``."""
    return _delta(
        ens,
        columns,
        output_column_name,
        lambda m1, m2, s1, s2: (m1 - m2) + (s1 - s2) / np.abs(m1 - m2),
        "_calc_score_delta_mean_delta_stdnorm",
    )


def score_delta_mean_delta_coefficient_of_variation(
    ens: Ensemble, columns: Sequence[Any], output_column_name: Any = None
) -> list[Any]:
    """``(m1 - m2) + s1/m1 - s2/m2`` per node, under ``("Scoring", name)``."""
    return _delta(
        ens,
        columns,
        output_column_name,
        lambda m1, m2, s1, s2: (m1 - m2) + s1 / m1 - s2 / m2,
        "_calc_score_delta_mean_delta_coefficient_of_variation",
    )


def _characterise(ens: Ensemble, a: Any, b: Any, how: str | Callable) -> list[Any]:
    if callable(how):
        names = list(how(ens, [a, b]))
        if len(names) < 2:
            raise ShapeError("characterization_func must return two statsframe column names")
        return names[:2]
    if how not in _stats.STATS:
        raise ShapeError(f"unknown characterisation {how!r}; choose from {', '.join(_stats.STATS)}")
    return _stats.compute_stats(ens, [a, b], (how,))


def _score(ens, columns, output_column_name, characterization_func, comparison_func, fn, name):
    a, b = _pair(ens, columns, "a score")
    distance = fn(*_moments(ens, a, b))
    ca, cb = _characterise(ens, a, b, characterization_func)
    compare = comparison_func or (lambda x, y: x < y)
    sf = ens.statsframe
    better = pairwise(compare, sf[ca].to_numpy(), sf[cb].to_numpy()).astype(bool)
    return _stats._set(
        ens, {("Scoring", output_column_name or name): distance * np.where(better, -1, 1)}
    )


def score_bhattacharyya(
    ens: Ensemble,
    columns: Sequence[Any],
    output_column_name: Any = None,
    characterization_func: str | Callable = "mean",
    comparison_func: Callable[[Any, Any], bool] | None = None,
) -> list[Any]:
    """The Bhattacharyya distance, negated where ``comparison_func(char_a, char_b)``
    holds (``characterization_func``: a statistic name or ``f(ens, columns) -> names``)."""
    return _score(
        ens,
        columns,
        output_column_name,
        characterization_func,
        comparison_func,
        bhattacharyya,
        "bhattacharyya",
    )


def score_hellinger(
    ens: Ensemble,
    columns: Sequence[Any],
    output_column_name: Any = None,
    characterization_func: str | Callable = "mean",
    comparison_func: Callable[[Any, Any], bool] | None = None,
) -> list[Any]:
    """The Hellinger distance, signed as :func:`score_bhattacharyya`."""
    return _score(
        ens,
        columns,
        output_column_name,
        characterization_func,
        comparison_func,
        hellinger,
        "hellinger",
    )
