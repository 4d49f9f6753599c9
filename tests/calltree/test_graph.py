"""Graph: canonical numbering, union, squash, equality, DAGs and malformed structure."""

import numpy as np
import pytest

from perfweave import Graph
from perfweave.errors import GraphError


def names(g):
    return [str(n) for n in g.traverse()]


def test_preorder_sorts_children_by_frame():
    g = Graph.from_lists(("main", ("solve", "mpi"), "init"))
    assert names(g) == ["main", "init", "solve", "mpi"]
    assert g.depth.tolist() == [0, 1, 1, 2]
    assert g.parent.tolist() == [-1, 0, 0, 2]
    assert [str(c) for c in g.roots[0].children] == ["init", "solve"]
    assert g.is_tree()


def test_union_merges_matching_paths_and_maps_ids():
    a = Graph.from_lists(("a", ("b", "c", "d"), ("e", "f")))
    b = Graph.from_lists(("a", ("b", "c", "x"), "g"), ("z",))
    u, ma, mb = a.union(b)
    assert len(u) == 9 and len(u.root_ids) == 2
    for old_graph, mapping in ((a, ma), (b, mb)):
        for node in old_graph.traverse():
            new = u.node(int(mapping[node.nid]))
            assert [str(p) for p in new.path()] == [str(p) for p in node.path()]
    assert u.union(a)[0] == u  # idempotent


def test_union_pairs_duplicate_siblings_in_order():
    a = Graph.from_lists(("r", "x", "x"))
    b = Graph.from_lists(("r", "x"))
    u, ma, mb = a.union(b)
    assert len(u) == 3
    assert mb[1] == ma[1] != ma[2]


def test_union_all_equals_pairwise_fold():
    gs = [
        Graph.from_lists(("m", ("a", "b"), "c")),
        Graph.from_lists(("m", ("a", "d"))),
        Graph.from_lists(("m", "c", ("e", "f")), ("other",)),
    ]
    u, maps = Graph.union_all(gs)
    u2, m0, m1 = gs[0].union(gs[1])
    u3, m01, m2 = u2.union(gs[2])
    assert u == u3
    assert np.array_equal(maps[2], m2) and np.array_equal(maps[0], m01[m0])


def test_equality_ignores_child_order_and_sees_frames():
    assert Graph.from_lists(("a", "b", "c")) == Graph.from_lists(("a", "c", "b"))
    assert Graph.from_lists(("a", "b", "c")) != Graph.from_lists(("a", "b", "d"))
    assert Graph.from_lists(("a", ("b", "c"))) != Graph.from_lists(("a", "b", "c"))


def test_squash_rewires_to_nearest_kept_ancestor_and_merges_siblings():
    g = Graph.from_lists(("main", ("f", "leaf"), ("g", "leaf")))
    keep = np.array([str(n) in ("main", "leaf") for n in g.traverse()])
    s, old_to_new = g.squash(keep)
    assert names(s) == ["main", "leaf"]  # the two leaf nodes became siblings and merged
    leafs = [n.nid for n in g.traverse() if str(n) == "leaf"]
    assert old_to_new[leafs[0]] == old_to_new[leafs[1]] == 1
    assert (old_to_new[[n.nid for n in g.traverse() if str(n) in "fg"]] == -1).all()


def test_dag_numbering_union_and_squash():
    frames = [{"name": n} for n in ("a", "b", "c", "d")]
    g = Graph.from_edges(frames, [0, 0, 1, 2], [1, 2, 3, 3])  # diamond
    assert not g.is_tree()
    assert names(g) == ["a", "b", "d", "c"]
    assert [str(p) for p in g.node(2).parents] == ["b", "c"]
    with pytest.raises(GraphError, match="2 paths"):
        g.node(2).path()
    u, ma, mb = g.union(Graph.from_lists(("a", ("b", "e"))))
    assert len(u) == 5 and not u.is_tree()
    s, m = g.squash(np.array([True, False, True, True]))  # drop b: d hangs off a and c
    assert sorted(str(c) for c in s.roots[0].children) == ["c", "d"]


def test_cycles_and_bad_ids_are_graph_errors():
    with pytest.raises(GraphError, match="cycle"):
        Graph.from_parents([{"name": "a"}, {"name": "b"}], [1, 0])
    with pytest.raises(GraphError, match="own parent"):
        Graph.from_parents([{"name": "a"}], [0])
    with pytest.raises(GraphError, match="not a node id"):
        Graph.from_parents([{"name": "a"}], [5])
    with pytest.raises(GraphError, match="cycle|root"):
        Graph.from_edges([{"name": "a"}, {"name": "b"}, {"name": "c"}], [0, 1, 2, 1], [1, 2, 1, 0])


def test_frames_compare_like_hatchet():
    from perfweave import Frame

    f = Frame(name="main")
    assert f["type"] == "None" and f == Frame({"name": "main", "type": "None"})
    assert Frame(name="a") < Frame(name="b")
    assert str(Frame(name="x", line=3)) == "{'line': '3', 'name': 'x', 'type': 'None'}"
    with pytest.raises(ValueError):
        Frame()
