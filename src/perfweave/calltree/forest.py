"""Algorithms on forests stored as parent arrays, for the packages above calltree.

The call sites of ``counts`` build a calltree out of backtraces with them:
:func:`level_order` groups node ids by depth (to walk a tree top-down or bottom-up one
numpy step per level), :func:`merge_groups` merges nodes with the same frame under merged
parents (how graphs merge). Both are vectorised per level, never per node; their
implementations, with the rest of the forest algorithms calltree uses inside, are in
``calltree/_forest.py``.
"""

from perfweave.calltree._forest import level_order, merge_groups

__all__ = ["level_order", "merge_groups"]
