"""Performance models of scaling studies: Extra-P's single- and multi-parameter PMNF
models, fitted for many functions (call paths x metrics) at once with array arithmetic.

:func:`fit_models` fits a table of functions, :func:`fit_model` one function (over one
parameter, or several: :mod:`.multi`),
:func:`predict` evaluates a table of models, :func:`growth_order` ranks them by
asymptotic growth; :class:`ScalingStudy` holds a scaling study of an ensemble (the runs
its models are fitted to, the target, the focused node) and answers what its views show
(:class:`GroupCurve`, :class:`FocusText`; the ScalingView is a thin view over it);
:mod:`.terms` is the search space.
"""

from perfweave.scaling.fit import FewParameterValues, LogTermsSkipped, fit_model, fit_models
from perfweave.scaling.model import (
    MultiParameterModel,
    ScalingModel,
    evaluate,
    growth_order,
    predict,
)
from perfweave.scaling.study import FocusText, GroupCurve, ScalingStudy

__all__ = [
    "FewParameterValues",
    "FocusText",
    "GroupCurve",
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
