"""Performance models of scaling studies: Extra-P's single- and multi-parameter PMNF
models, fitted for many functions (call paths x metrics) at once with array arithmetic.

:func:`fit_models` fits a table of functions, :func:`fit_model` one function (over one
parameter, or several: :mod:`.multi`),
:func:`predict` evaluates a table of models, :func:`growth_order` ranks them by
asymptotic growth; :class:`ScalingStudy` refits an ensemble's models over chosen runs
(the core of the ScalingView widget); :mod:`.terms` is the search space.
"""

from perfweave.scaling.fit import FewParameterValues, LogTermsSkipped, fit_model, fit_models
from perfweave.scaling.model import (
    MultiParameterModel,
    ScalingModel,
    evaluate,
    growth_order,
    predict,
)
from perfweave.scaling.study import ScalingStudy

__all__ = [
    "FewParameterValues",
    "LogTermsSkipped",
    "MultiParameterModel",
    "ScalingModel",
    "ScalingStudy",
    "evaluate",
    "fit_model",
    "fit_models",
    "growth_order",
    "predict",
]
