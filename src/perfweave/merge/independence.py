"""Drop HEMs that are (nearly) linear functions of others before building the Gaussian.

Two HEMs with correlation close to 1 make the covariance matrix singular; mergingTools keeps
the first of each dependent group by a greedy walk, reproduced here, and the positive
definiteness check says what to do when the kept matrix still cannot be sampled.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfweave.errors import MergeError

#: eigenvalue tolerance of MASS::mvrnorm: accept when min(ev) >= -TOL * max(|ev|)
PD_TOL = 1e-6


def _validate(cor: pd.DataFrame) -> np.ndarray:
    if not isinstance(cor, pd.DataFrame) or list(cor.index) != list(cor.columns):
        raise MergeError(
            "a correlation matrix must be a square DataFrame labelled alike on both axes"
        )
    values = cor.to_numpy(dtype=float)
    if not np.all(np.isfinite(values)):
        raise MergeError("the correlation matrix holds NaN or infinite values")
    return values


#: the range of ``dep_lvl`` (a correlation threshold), checked once, here
DEP_LVL_RANGE = (0.0, 1.0)


def check_dep_lvl(dep_lvl: object) -> float:
    """``dep_lvl`` as a float, or a :class:`MergeError` naming the value and the range."""
    lo, hi = DEP_LVL_RANGE
    number = isinstance(dep_lvl, int | float | np.integer | np.floating)
    if isinstance(dep_lvl, bool) or not number or not lo <= float(dep_lvl) <= hi:
        raise MergeError(f"dep_lvl must be a number in [{lo:g}, {hi:g}], got {dep_lvl!r}")
    return float(dep_lvl)


def _walk(values: np.ndarray, dep_lvl: float, absolute: bool) -> tuple[np.ndarray, list]:
    """mergingTools' greedy walk: the kept mask and (dropped, by, r) per dropped HEM."""
    strength = np.abs(values) if absolute else values
    kept = np.ones(len(values), dtype=bool)
    reasons: list[tuple[int, int, float]] = []
    for i in range(len(values)):  # one step per kept HEM: the walk is sequential
        if kept[i]:
            dependent = (strength[:, i] > dep_lvl) & kept
            dependent[i] = False
            reasons += [(int(j), i, float(values[j, i])) for j in np.flatnonzero(dependent)]
            kept &= ~dependent
    return kept, reasons


def independent_matrix(
    cor: pd.DataFrame, dep_lvl: float, *, absolute: bool = False
) -> pd.DataFrame:
    """Sub-matrix of HEMs kept by mergingTools' greedy rule at ``dep_lvl``.

    Walk the HEMs in order; each HEM still kept drops every other kept HEM whose
    correlation with it is strictly greater than ``dep_lvl`` (signed, as in mergingTools;
    ``absolute=True`` compares ``|r|`` so strong negative dependence is dropped too).
    Always a labelled DataFrame, also when one HEM is left (R returns a bare number).
    """
    values = _validate(cor)
    kept, _ = _walk(values, check_dep_lvl(dep_lvl), absolute)
    return cor.iloc[kept, kept].copy()


def drop_reasons(cor: pd.DataFrame, dep_lvl: float, *, absolute: bool = False) -> pd.DataFrame:
    """Why each HEM :func:`independent_matrix` drops at ``dep_lvl`` is dropped: one row per
    dropped HEM (in the order the walk drops them) with the kept HEM that dropped it and
    their correlation ``r``. Columns: ``dropped``, ``kept``, ``r``."""
    columns = ["dropped", "kept", "r"]
    if len(cor) == 0:
        return pd.DataFrame(columns=columns)
    values = _validate(cor)
    _, reasons = _walk(values, check_dep_lvl(dep_lvl), absolute)
    names = [str(c) for c in cor.columns]
    rows = [(names[j], names[i], r) for j, i, r in reasons]
    return pd.DataFrame(rows, columns=columns)


def is_positive_definite(cor: pd.DataFrame | np.ndarray) -> bool:
    """Whether a multivariate normal can be drawn with this correlation (mvrnorm's test)."""
    values = np.asarray(cor, dtype=float)
    ev = np.linalg.eigvalsh(values)
    return bool(ev[0] >= -PD_TOL * np.abs(ev).max())


def _greedy_drop(cor: pd.DataFrame) -> list[str]:
    """HEMs to remove (largest loading on the smallest eigenvalue first) until PD."""
    drop: list[str] = []
    current = cor
    while len(current) > 1 and not is_positive_definite(current):
        _, vectors = np.linalg.eigh(current.to_numpy(dtype=float))
        worst = current.index[int(np.argmax(np.abs(vectors[:, 0])))]
        drop.append(str(worst))
        current = current.drop(index=worst, columns=worst)
    return drop


def check_positive_definite(
    kept: pd.DataFrame,
    full: pd.DataFrame | None = None,
    dep_lvl: float | None = None,
    *,
    absolute: bool = False,
) -> None:
    """Raise :class:`MergeError` when ``kept`` cannot be sampled, saying how to fix it.

    The message names HEMs whose removal makes the matrix sampleable and, when the full
    matrix and ``dep_lvl`` are given, the largest lower ``dep_lvl`` that works.
    """
    if is_positive_definite(kept):
        return
    smallest = float(np.linalg.eigvalsh(kept.to_numpy(dtype=float))[0])
    msg = (
        f"the correlation matrix of the {len(kept)} kept HEMs is not positive definite "
        f"(smallest eigenvalue {smallest:.3g})"
    )
    if dep_lvl is not None:
        msg += f" at dep_lvl={dep_lvl:g}"
    msg += f"; drop HEM(s) {_greedy_drop(kept)}"
    if full is not None and dep_lvl is not None:
        values = np.abs(full.to_numpy(dtype=float)) if absolute else full.to_numpy(dtype=float)
        off = values[np.triu_indices(len(values), 1)]
        # thresholds where the kept set changes: just below each correlation value
        for value in np.unique(off[(off < dep_lvl) & (off >= 0)])[::-1]:
            level = np.floor(value * 1e4) / 1e4  # a printable level just below this value
            if level >= value:
                level -= 1e-4
            if level >= 0 and is_positive_definite(
                independent_matrix(full, level, absolute=absolute)
            ):
                msg += f", or use dep_lvl={level:.4f}"
                break
    raise MergeError(msg)
