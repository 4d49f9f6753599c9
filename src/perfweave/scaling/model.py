"""One fitted model as an object, and predictions from a table of models."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from perfweave.errors import ShapeError


def evaluate(c0: Any, c1: Any, p_exp: Any, log_exp: Any, values: Any) -> np.ndarray:
    """``c0 + c1 * v^p_exp * log2(v)^log_exp`` for coefficient arrays (shape (F,)) and
    values (shape (V,)): shape (F, V). A constant (``c1 = 0``) is ``c0`` everywhere."""
    v = np.asarray(values, dtype=float).reshape(1, -1)
    c0, c1, pe, le = (np.asarray(a, dtype=float).reshape(-1, 1) for a in (c0, c1, p_exp, log_exp))
    with np.errstate(all="ignore"):
        term = np.power(v, pe) * np.where(le != 0, np.power(np.log2(v), le), 1.0)
        return c0 + np.where(c1 != 0, c1 * term, 0.0)


def predict(
    models: pd.DataFrame, values: Any, interval: float | None = None
) -> pd.DataFrame | pd.Series:
    """Values of every model of a :func:`fit_models` table at ``values``: a Series (one
    value per model) for a scalar, else a DataFrame with one column per value. Rows
    without a model give NaN.

    For a table of multi-parameter models ``values`` gives one value per parameter: one
    point (a mapping name -> value, or a sequence in the parameters' order) gives a
    Series; several points (a DataFrame with a column per parameter, a mapping name ->
    array, or an array of shape (points, parameters)) give a DataFrame with one column
    per point (columns indexed by the parameters' values).

    ``interval`` (e.g. 0.9): also the range that a new measurement at ``values`` falls in
    with that probability (:mod:`perfweave.scaling.interval`: a bootstrap over the
    measured points). One value or point gives a DataFrame with columns ``prediction``,
    ``low`` and ``high``; several give those three as the first level of the columns
    (``out["low"]`` has one column per value). The table must be one that
    :func:`fit_models` or ``Ensemble.models`` returned, or rows of it: it keeps the
    measured points."""
    from perfweave.scaling.multi import evaluate_table, point_values, table_params

    if interval is not None:
        from perfweave.scaling.interval import predict_interval

        return predict_interval(models, values, interval)

    names = table_params(models)
    if names and "c1" not in models.columns:
        V, single = point_values(values, names)
        out = evaluate_table(models, V)
        if single:
            return pd.Series(out[:, 0], index=models.index, name=tuple(V[0].tolist()))
        cols = pd.MultiIndex.from_arrays([V[:, j] for j in range(len(names))], names=names)
        return pd.DataFrame(out, index=models.index, columns=cols)
    missing = [c for c in ("c0", "c1", "p_exp", "log_exp") if c not in models.columns]
    if missing:
        raise ShapeError(f"not a table of models: no column {missing[0]!r}")
    scalar = np.ndim(values) == 0
    vals = np.atleast_1d(np.asarray(values, dtype=float))
    out = evaluate(models["c0"], models["c1"], models["p_exp"], models["log_exp"], vals)
    if scalar:
        return pd.Series(out[:, 0], index=models.index, name=float(vals[0]))
    return pd.DataFrame(out, index=models.index, columns=vals)


@dataclass(frozen=True)
class ScalingModel:
    """One function's model ``c0 + c1 * p^p_exp * log2(p)^log_exp``, its fit figures and
    its ``quality`` (see :func:`perfweave.scaling.fit_models` for their meaning)."""

    c0: float
    c1: float
    p_exp: float
    log_exp: float
    term: str
    model: str
    rss: float
    smape: float
    ar2: float
    n: int
    reason: str = ""
    note: str = ""
    quality: str = ""

    @property
    def ok(self) -> bool:
        """Whether there is a model (enough distinct parameter values)."""
        return not self.reason

    def predict(self, values: Any) -> Any:
        """The model's value at ``values`` (a number for a number, else an array)."""
        out = evaluate(self.c0, self.c1, self.p_exp, self.log_exp, np.atleast_1d(values))[0]
        return float(out[0]) if np.ndim(values) == 0 else out

    def __str__(self) -> str:
        return self.model if self.ok else f"no model: {self.reason}"

    @classmethod
    def from_row(cls, row: pd.Series) -> ScalingModel:
        kinds = {"term": str, "model": str, "reason": str, "note": str, "n": int, "quality": str}
        return cls(**{k: kinds.get(k, float)(row[k]) for k in cls.__dataclass_fields__})


def growth_order(models: pd.DataFrame) -> pd.Series:
    """A sort key of asymptotic growth per model: larger grows faster. Terms order by
    their exponent of p, then of log2(p); a constant is 0, a term with a negative
    coefficient (shrinking) is below 0, no model is NaN."""
    if "p_exp" not in models.columns:
        raise ShapeError(
            "growth_order ranks single-parameter models (columns p_exp, log_exp, c1); "
            "rank multi-parameter models by their predicted values (scaling.predict)"
        )
    pe = models["p_exp"].to_numpy(dtype=float)
    le = models["log_exp"].to_numpy(dtype=float)
    c1 = models["c1"].to_numpy(dtype=float)
    # log exponents (<= 2) move the key by at most 0.02, less than the smallest gap
    # between two exponents of p (1/12), so p^a always outranks p^b log2(p)^j for a > b
    key = np.sign(c1) * (pe + 0.01 * le + 1.0)
    key = np.where(c1 == 0, 0.0, key)
    return pd.Series(key, index=models.index, name="growth")


@dataclass(frozen=True)
class MultiParameterModel:
    """One function's multi-parameter model and its fit figures (see
    :func:`perfweave.scaling.fit_models` with several parameters): ``c0``, ``coefficients``
    (term -> coefficient, a term named by the parameters it multiplies: ``"p"``,
    ``"p*q"``), per parameter ``p_exp`` and ``log_exp`` (the exponents of its
    single-parameter term ``v^p_exp * log2(v)^log_exp``), ``combination``, ``term``,
    ``model``, ``rss``, ``smape``, ``ar2``, ``n``, ``reason``, ``note``, ``quality``."""

    params: tuple[str, ...]
    c0: float
    coefficients: dict[str, float]
    p_exp: dict[str, float]
    log_exp: dict[str, float]
    combination: str
    term: str
    model: str
    rss: float
    smape: float
    ar2: float
    n: int
    reason: str = ""
    note: str = ""
    quality: str = ""

    @property
    def ok(self) -> bool:
        """Whether there is a model (enough distinct values of every parameter)."""
        return not self.reason

    def predict(self, values: Any) -> Any:
        """The model's value at ``values``: one point (a mapping name -> value, or one
        value per parameter in order) gives a number; several points (a DataFrame with a
        column per parameter, a mapping name -> array, or an array of shape (points,
        parameters)) give an array."""
        from perfweave.scaling.multi import evaluate_table, point_values

        V, single = point_values(values, self.params)
        out = evaluate_table(self._table(), V)[0]
        return float(out[0]) if single else out

    def _table(self) -> pd.DataFrame:
        row: dict[str, Any] = {"c0": self.c0}
        row.update({f"c[{k}]": v for k, v in self.coefficients.items()})
        for name in self.params:
            row[f"p_exp[{name}]"] = self.p_exp[name]
            row[f"log_exp[{name}]"] = self.log_exp[name]
        return pd.DataFrame([row])

    def __str__(self) -> str:
        return self.model if self.ok else f"no model: {self.reason}"

    @classmethod
    def from_row(cls, row: pd.Series, params: tuple[str, ...]) -> MultiParameterModel:
        coefs = {str(c)[2:-1]: float(row[c]) for c in row.index if str(c).startswith("c[")}
        return cls(
            params=tuple(params),
            c0=float(row["c0"]),
            coefficients=coefs,
            p_exp={n: float(row[f"p_exp[{n}]"]) for n in params},
            log_exp={n: float(row[f"log_exp[{n}]"]) for n in params},
            combination=str(row["combination"]),
            term=str(row["term"]),
            model=str(row["model"]),
            rss=float(row["rss"]),
            smape=float(row["smape"]),
            ar2=float(row["ar2"]),
            n=int(row["n"]),
            reason=str(row["reason"]),
            note=str(row["note"]),
            quality=str(row["quality"]),
        )
