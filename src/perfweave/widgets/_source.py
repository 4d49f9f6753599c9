"""Transitional: ``as_core`` moved to :func:`perfweave.calltree.study.as_core` (issue 30).

FlameGraph and ScalingView still import it from here; this module goes once they import
the core's (everything else that lived here is in :mod:`perfweave.calltree.study`,
:mod:`~perfweave.calltree.view_columns` and :mod:`~perfweave.calltree.glyphs`).
"""

from perfweave.calltree.study import as_core

__all__ = ["as_core"]
