"""The model cells of an ensemble's statistics table: text that also answers Thicket's calls.

``ens.models(metric, param)`` writes each node's model into ``statsframe`` under
``<metric>_extrap-model``. Thicket puts an object there (its ``ModelWrapper``) that
tutorials call: ``cell.eval(512)`` for the model's value at a parameter value and
``fig, ax = cell.display(RSS=True)`` for a plot of the model over the measured points.
perfweave's cell is a :class:`ModelCell`: a ``str`` holding the model text (so the table
prints, compares, filters and is written to JSON as before) that also has ``eval``,
``display``, ``model`` (the fitted :class:`~perfweave.scaling.ScalingModel` or
:class:`~perfweave.scaling.MultiParameterModel`) and ``param_name``. A node without a model
is an empty cell whose ``eval`` gives NaN, as :func:`perfweave.scaling.predict` does.
All cells of one ``models`` call share the fitted table; a cell builds its model object
when first asked. A table read back with ``Ensemble.from_json`` holds the text only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from perfweave.errors import ShapeError, require
from perfweave.scaling.model import MultiParameterModel, ScalingModel, predict


@dataclass(frozen=True)
class ModelSet:
    """What the cells of one ``models`` call share: the fitted table, the parameter
    values ``x`` (one per profile; a DataFrame for several parameters), the (nodes,
    profiles) matrix ``Y`` that was fitted, and the names a plot shows."""

    fits: pd.DataFrame
    x: Any
    Y: np.ndarray
    param: Any
    metric: Any
    unit: str
    agg: str


class ModelCell(str):
    """One node's model: its text, and Thicket's ``ModelWrapper`` calls."""

    _set: ModelSet
    _row: int

    def __new__(cls, text: str, models: ModelSet, row: int) -> ModelCell:
        cell = super().__new__(cls, text)
        cell._set = models
        cell._row = row
        return cell

    @property
    def param_name(self) -> Any:
        """The metadata column(s) the model is a function of (Thicket's name)."""
        return self._set.param

    @property
    def model(self) -> Any:
        """The fitted model: a :class:`~perfweave.scaling.ScalingModel`, or a
        :class:`~perfweave.scaling.MultiParameterModel` for several parameters."""
        row = self._set.fits.iloc[self._row]
        if isinstance(self._set.x, pd.DataFrame):
            return MultiParameterModel.from_row(row, tuple(self._set.x.columns))
        return ScalingModel.from_row(row)

    def eval(self, val: Any) -> Any:
        """The model's value at ``val`` (Thicket's ``ModelWrapper.eval``): a number for a
        number, an array for an array; for several parameters one value per parameter
        (see :meth:`MultiParameterModel.predict`). NaN where the node has no model."""
        model = self.model
        if not model.ok:
            return float("nan") if np.ndim(val) == 0 else np.full(np.shape(val), np.nan)
        return model.predict(val)

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        """The measured points the model was fitted to: the distinct parameter values and
        the node's value at each (the ``agg`` of its runs there), NaN runs left out."""
        if isinstance(self._set.x, pd.DataFrame):
            raise ShapeError(
                "a multi-parameter model has points in several dimensions; read them "
                "from the ensemble's metadata and dataframe"
            )
        x = np.asarray(self._set.x, dtype=float)
        y = self._set.Y[self._row]
        keep = ~np.isnan(y)
        table = pd.Series(y[keep]).groupby(x[keep]).agg(self._set.agg)
        return table.index.to_numpy(dtype=float), table.to_numpy(dtype=float)

    def display(self, RSS: bool = False) -> tuple[Any, Any]:
        """A matplotlib figure of the model from the smallest measured parameter value to
        1.5 times the largest, over the measured points, as Thicket's
        ``ModelWrapper.display`` draws it; past the largest measured value also the range
        a new measurement falls in with 90 % probability (:func:`perfweave.scaling.predict`
        with ``interval=0.9``, cut at zero), and no value below zero. The legend gives the model's
        quality; ``RSS=True`` writes the residual sum of squares on the plot. Returns
        ``(fig, ax)``; the figure is not shown (``plt.show()`` shows it)."""
        plt = require("matplotlib.pyplot", "plot", "ModelCell.display")
        if isinstance(self._set.x, pd.DataFrame):
            raise ShapeError(
                "display() plots a model of one parameter; this one has "
                f"{len(self._set.x.columns)} ({', '.join(map(str, self._set.x.columns))}): "
                "evaluate it with cell.eval(...) or show it in pw.ScalingView"
            )
        model = self.model
        if not model.ok:
            raise ShapeError(f"node {self._row} has no model to display: {model.reason}")
        xs, ys = self.points()
        grid = np.linspace(xs[0], 1.5 * xs[-1], 101)
        line = _not_below_zero(model.predict(grid))
        fig, ax = plt.subplots()
        ax.plot(grid, line, label=f"{self} ({model.quality})")
        past = np.linspace(xs[-1], 1.5 * xs[-1], 26)
        if len(xs) > 1 and past[-1] > past[0]:
            band = predict(self._set.fits.iloc[[self._row]], past, interval=0.9)
            low = np.maximum(band["low"].to_numpy(dtype=float)[0], 0.0)
            high = np.maximum(band["high"].to_numpy(dtype=float)[0], 0.0)
            ax.fill_between(past, low, high, alpha=0.2, label="90 % of new measurements")
        name = self._set.fits["name"].iloc[self._row] if "name" in self._set.fits else None
        ax.plot(xs, ys, "ro", label=str(name if name is not None else f"node {self._row}"))
        ax.set_xlabel(str(self._set.param))
        unit = f" ({self._set.unit})" if self._set.unit else ""
        ax.set_ylabel(f"{self._set.metric}{unit}")
        if RSS:
            top = np.nanmax(np.concatenate([ys, line]))
            ax.text(grid[0], top, f"RSS = {model.rss:.6g}")
        ax.legend(loc=1)
        return fig, ax


def _not_below_zero(values: np.ndarray) -> np.ndarray:
    """``values`` with those below zero left out (NaN): no plot shows a negative time."""
    out = np.asarray(values, dtype=float).copy()
    out[out < 0] = np.nan
    return out


def model_cells(models: ModelSet) -> np.ndarray:
    """One :class:`ModelCell` per row of ``models.fits`` (an object array). One Python
    object per node is the price of Thicket's per-cell calls: 100,000 cells took 0.3-0.6 s
    on a loaded 2-core machine, about as long as fitting 100,000 functions."""
    new = str.__new__
    out = np.empty(len(models.fits), dtype=object)
    for i, text in enumerate(models.fits["model"].tolist()):
        cell = new(ModelCell, text)
        cell._set = models
        cell._row = i
        out[i] = cell
    return out
