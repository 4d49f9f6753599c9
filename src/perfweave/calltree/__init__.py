"""Calltree core: one profile's call graph and metrics (Hatchet's GraphFrame model)."""

from perfweave.calltree.frame import Frame
from perfweave.calltree.graph import Graph, Node
from perfweave.calltree.graphframe import GraphFrame
from perfweave.calltree.path_query import PathQuery, path_query
from perfweave.calltree.readers import read
from perfweave.calltree.steps import Step, replay
from perfweave.calltree.study import CalltreeStudy, CalltreeView

__all__ = [
    "CalltreeStudy",
    "CalltreeView",
    "Frame",
    "Graph",
    "GraphFrame",
    "Node",
    "PathQuery",
    "Step",
    "path_query",
    "read",
    "replay",
]
