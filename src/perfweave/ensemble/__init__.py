"""Ensemble core: many profiles over one unified calltree (Thicket's model).

:class:`Ensemble` holds a union graph, a performance table indexed by (node, profile),
a metadata table (one row per profile) and a statistics table (one row per node).
"""

from perfweave.ensemble.ensemble import Ensemble
from perfweave.ensemble.profiles import profile_hash

__all__ = ["Ensemble", "profile_hash"]
