"""Where :func:`subgraph` lived before it moved to :mod:`perfweave.calltree.subgraph`, the
package of the graphs it restricts: kept only for ``scaling/study.py`` and its test, which
are being rewritten (issue 30); import from :mod:`perfweave.calltree.subgraph`."""

from perfweave.calltree.subgraph import ancestor_closure, subgraph

__all__ = ["ancestor_closure", "subgraph"]
