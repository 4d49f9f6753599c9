"""Statistical tests per node across profiles, in Thicket's ``stats`` names and columns.

- :func:`ttest`: Welch's t statistic of two columns from their means and sample standard
  deviations, and the two-sided critical value at ``alpha`` with ``n1 + n2 - 2`` degrees
  of freedom (Thicket's ``__ttest``, the test behind ``preference``).
- :func:`preference`: where ``|t|`` exceeds the critical value, ``comparison_func`` of
  the two means (and of the two standard deviations); elsewhere ``"No preference"``.
- :func:`confidence_interval`: ``mean -/+ z * std / sqrt(n)`` with the normal quantile
  ``z`` of ``(1 + confidence_level) / 2``, as a ``(low, high)`` tuple per node.
- :func:`check_normality`: Shapiro-Wilk's p-value > 0.05 (True), < 0.05 (False).

Every function adds its columns to ``ens.statsframe`` (with the ``<column>_mean`` and
``<column>_std`` it needs, as Thicket does) and returns their names. Statistics run over
the profiles that have a value (NaN skipped), so ``n`` is the node's count of values;
Thicket counts the rows of its first node (the same for a filled, complete ensemble).
Deliberate difference: ``check_normality`` holds booleans (NA with fewer than 3 values),
where Thicket writes the strings ``"True"``/``"False"``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as _sps

from perfweave.ensemble import stats as _stats
from perfweave.ensemble.ensemble import Ensemble
from perfweave.errors import ShapeError


def _pair(ens: Ensemble, columns: Sequence[Any], what: str) -> list[Any]:
    columns = list(columns) if not isinstance(columns, (str, tuple)) else [columns]
    if len(columns) != 2:
        raise ShapeError(f"{what} compares two columns, got {len(columns)}: {columns!r}")
    return _stats._check_columns(ens, columns)


def matrix(ens: Ensemble, column: Any) -> np.ndarray:
    """The (nodes, profiles) values of a performance column (NaN where missing)."""
    return _stats._wide(ens, column, _stats._is_dense(ens))


def _mean_std_count(ens: Ensemble, col: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    _stats.compute_stats(ens, [col], ("mean", "std"))
    sf = ens.statsframe
    count = (~np.isnan(matrix(ens, col))).sum(axis=1)
    mean = sf[_stats._name(col, "mean")].to_numpy(dtype=float)
    return mean, sf[_stats._name(col, "std")].to_numpy(dtype=float), count


def _joined(columns: Sequence[Any], multi: bool) -> str:
    """Thicket's comparison label: ``a vs b``; tuples printed without their quotes."""
    a, b = (str(c).replace("'", "") if multi else str(c) for c in columns)
    return f"{a} vs {b}"


def _label(ens: Ensemble, name: str) -> Any:
    """A statsframe label for a comparison column (under ``Preference`` when columnar)."""
    return ("Preference", name) if isinstance(ens.statsframe.columns, pd.MultiIndex) else name


def ttest(ens: Ensemble, columns: Sequence[Any], alpha: float = 0.05) -> list[Any]:
    """Welch's t statistic per node of two columns and the critical t value: columns
    ``"<a> vs <b>_tvalue"`` and ``"<a> vs <b>_tstatistic"``."""
    if not 0 < alpha < 1:
        raise ShapeError(f"alpha must be between 0 and 1, got {alpha}")
    a, b = _pair(ens, columns, "ttest")
    m1, s1, n1 = _mean_std_count(ens, a)
    m2, s2, n2 = _mean_std_count(ens, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        dof = (n1 + n2 - 2).astype(float)
        dof[dof <= 0] = np.nan
        tvalue = _sps.t.ppf(1 - alpha / 2, dof)
        tstat = (m1 - m2) / np.sqrt(s1**2 / n1 + s2**2 / n2)
    base = _joined([a, b], isinstance(a, tuple))
    return _stats._set(
        ens,
        {_label(ens, base + "_tvalue"): tvalue, _label(ens, base + "_tstatistic"): tstat},
    )


def preference(
    ens: Ensemble,
    columns: Sequence[Any],
    comparison_func: Callable[[Any, Any], Any],
    test: str = "ttest",
    alpha: float = 0.05,
) -> list[Any]:
    """Thicket's ``preference``: per node, ``comparison_func(mean_a, mean_b)`` and
    ``comparison_func(std_a, std_b)`` where the t-test is significant, else
    ``"No preference"``; columns ``"<a> vs <b>_std_preferred"``, ``..._mean_preferred``."""
    if test != "ttest":
        raise ShapeError(f"unknown test {test!r}; the available test is 'ttest'")
    a, b = _pair(ens, columns, "preference")
    tv_col, ts_col = ttest(ens, [a, b], alpha)
    sf = ens.statsframe
    tvalue, tstat = sf[tv_col].to_numpy(float), sf[ts_col].to_numpy(float)
    significant = (tstat < -tvalue) | (tstat > tvalue)
    out = {}
    base = _joined([a, b], isinstance(a, tuple))
    for stat in ("std", "mean"):
        x = sf[_stats._name(a, stat)].to_numpy(float)
        y = sf[_stats._name(b, stat)].to_numpy(float)
        chosen = pairwise(comparison_func, x, y)
        values = np.full(len(sf), "No preference", dtype=object)
        values[significant] = chosen[significant]
        out[_label(ens, f"{base}_{stat}_preferred")] = values
    return _stats._set(ens, out)


def pairwise(func: Callable[[Any, Any], Any], x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``func(x[i], y[i])`` for every i, as an object array: one call on the whole arrays
    when it returns one value per element and agrees with element calls on a sample."""
    n = len(x)
    try:
        whole = np.asarray(func(x, y))
    except Exception:
        whole = None
    if whole is not None and whole.shape == (n,):
        sample = np.unique(np.linspace(0, max(n - 1, 0), min(n, 16)).astype(np.int64))
        if all(_same(func(x[i], y[i]), whole[i]) for i in sample):
            return whole.astype(object)
    out = np.empty(n, dtype=object)
    out[:] = [func(xi, yi) for xi, yi in zip(x.tolist(), y.tolist())]
    return out


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) or (pd.isna(a) and pd.isna(b))
    except (TypeError, ValueError):
        return False


def confidence_interval(
    ens: Ensemble, columns: Sequence[Any], confidence_level: float = 0.95
) -> list[Any]:
    """``(mean - z s / sqrt(n), mean + z s / sqrt(n))`` per node, in a column named
    ``confidence_interval_<level>_<column>``."""
    if not isinstance(confidence_level, float) or not 0 < confidence_level < 1:
        raise ShapeError(f"confidence_level must be a float in (0, 1), got {confidence_level!r}")
    columns = _stats._check_columns(ens, columns)
    z = float(_sps.norm.ppf((1 + confidence_level) / 2))
    out = {}
    for col in columns:
        mean, std, n = _mean_std_count(ens, col)
        with np.errstate(invalid="ignore", divide="ignore"):
            half = z * std / np.sqrt(n)
        lo, hi = mean - half, mean + half
        values = np.empty(len(mean), dtype=object)
        values[:] = list(zip(lo.tolist(), hi.tolist()))
        name = f"confidence_interval_{confidence_level}_"
        label = (col[0], name + col[1]) if isinstance(col, tuple) else name + str(col)
        out[label] = values
    return _stats._set(ens, out)


def check_normality(ens: Ensemble, columns: Sequence[Any], alpha: float = 0.05) -> list[Any]:
    """Shapiro-Wilk per node: ``<column>_normality`` is True where the p-value exceeds
    ``alpha``, False where it is below, NA with fewer than 3 values."""
    columns = _stats._check_columns(ens, columns)
    out = {}
    for col in columns:
        p = shapiro_pvalues(matrix(ens, col))
        values = pd.array(np.where(p > alpha, True, False), dtype="boolean")
        values[np.isnan(p) | (p == alpha)] = pd.NA
        out[_stats._name(col, "normality")] = values
    return _stats._set(ens, out)


def shapiro_pvalues(mat: np.ndarray) -> np.ndarray:
    """Shapiro-Wilk p-value of each row's valid values (NaN with fewer than 3). Rows with
    the same count of values are tested together along an axis."""
    count = (~np.isnan(mat)).sum(axis=1)
    out = np.full(len(mat), np.nan)
    ordered = np.sort(mat, axis=1)  # NaN last: the first ``count`` entries are the values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant rows: scipy warns and gives p = 1
        for k in np.unique(count[count >= 3]):
            rows = np.flatnonzero(count == k)
            out[rows] = _shapiro_rows(ordered[rows, :k])
    return out


def _shapiro_rows(block: np.ndarray) -> np.ndarray:
    try:
        return np.asarray(_sps.shapiro(block, axis=1).pvalue, dtype=float)
    except TypeError:  # scipy without the axis argument
        return np.array([_sps.shapiro(row).pvalue for row in block], dtype=float)


def welch_pvalues(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Welch's two-sided t-test per row of two (rows, samples) matrices (NaN left out):
    ``(p, n_a, n_b)``. ``p`` is NaN where a side has fewer than 2 values; where both sides
    have no spread it is 1 for equal means and 0 for different ones. Degrees of freedom by
    Welch-Satterthwaite (unlike :func:`ttest`, which follows Thicket's n1 + n2 - 2)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n1, n2 = (~np.isnan(a)).sum(axis=1), (~np.isnan(b)).sum(axis=1)
    p = np.full(len(a), np.nan)
    ok = (n1 >= 2) & (n2 >= 2)
    if not ok.any():
        return p, n1, n2
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        m1, m2 = np.nanmean(a[ok], axis=1), np.nanmean(b[ok], axis=1)
        v1 = np.nanvar(a[ok], axis=1, ddof=1) / n1[ok]
        v2 = np.nanvar(b[ok], axis=1, ddof=1) / n2[ok]
        se = v1 + v2
        t = (m1 - m2) / np.sqrt(se)
        dof = se**2 / (v1**2 / (n1[ok] - 1) + v2**2 / (n2[ok] - 1))
        out = 2 * _sps.t.sf(np.abs(t), dof)
    flat = se == 0
    out[flat] = np.where(m1[flat] == m2[flat], 1.0, 0.0)
    p[ok] = out
    return p, n1, n2


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q) of the tested rows (NaN: not tested, kept
    NaN), for a false discovery rate over all rows tested at once."""
    p = np.asarray(p, dtype=float)
    q = np.full(len(p), np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    m = len(tested)
    if not m:
        return q
    order = tested[np.argsort(p[tested], kind="stable")]
    scaled = p[order] * m / np.arange(1, m + 1)
    q[order] = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    return q
