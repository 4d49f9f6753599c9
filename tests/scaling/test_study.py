"""ScalingStudy.match_nodes: nodes of a derived tree back to the ensemble's node ids."""

from __future__ import annotations

import numpy as np

import perfweave as pw
from perfweave.ensemble._subgraph import ancestor_closure, subgraph
from perfweave.scaling import ScalingStudy


def _study():
    ens = pw.datasets.mpi_scaling()
    return ens, ScalingStudy(ens, "mpi.world.size", "Avg time/rank")


def test_same_tree_and_a_pruned_tree():
    ens, study = _study()
    assert (study.match_nodes(ens.graph) == np.arange(len(ens.graph))).all()
    keep = np.zeros(len(ens.graph), bool)
    keep[[16, 18, 24]] = True
    keep = ancestor_closure(ens.graph, keep)  # a filter keeps the paths to what it keeps
    sub, old_to_new = subgraph(ens.graph, keep)
    got = study.match_nodes(sub)
    assert (got[old_to_new[keep]] == np.flatnonzero(keep)).all()


def test_a_focused_subtree_is_matched_below_its_new_root():
    ens, study = _study()
    depth = np.asarray(ens.graph.depth)
    after = np.flatnonzero(depth[15:] <= depth[14])
    keep = np.zeros(len(ens.graph), bool)
    keep[14 : 15 + after[0]] = True  # LagrangeLeapFrog and everything below it
    sub, old_to_new = subgraph(ens.graph, keep)
    assert len(sub) == keep.sum() and (np.asarray(sub.parent) < 0).sum() == 1
    got = study.match_nodes(sub)
    assert (got[old_to_new[keep]] == np.flatnonzero(keep)).all()
