"""Arithmetic between ensembles: ``a - b``, ``a + b``, ``a * b``, ``a / b`` (and a number).

Two ensembles describe the same runs when they have the same profile ids (give them
shared ids with ``replace_profile_index(column)``, e.g. the process count, when they
come from two builds). Their graphs are unified once and every metric is combined row by
row on (node, profile), with Hatchet's GraphFrame semantics per profile: for ``+`` and
``-`` a node one side lacks counts as 0 there, for ``*`` and ``/`` the result is NaN.
The metadata and profile mapping are the left operand's; the statistics table starts
empty (its rows would describe the operands, not the result). With a number, every
metric column is combined with it.
"""

from __future__ import annotations

import numbers
from typing import Any

import pandas as pd

from perfweave.calltree.graphframe import OPERATIONS, GraphFrame
from perfweave.ensemble.ensemble import Ensemble
from perfweave.errors import ShapeError


def _graphframe(ens: Ensemble) -> GraphFrame:
    df = ens.dataframe
    if "name" in df.columns and isinstance(df["name"].dtype, pd.CategoricalDtype):
        df = df.copy(deep=False)
        df["name"] = df["name"].astype(object)
    return GraphFrame(ens.graph, df, list(ens.exc_metrics), list(ens.inc_metrics), None)


def combine(left: Ensemble, right: Any, op: str, reflected: bool = False) -> Ensemble:
    """``left <op> right`` (``right <op> left`` when ``reflected``)."""
    if isinstance(left.dataframe.columns, pd.MultiIndex):
        raise ShapeError("arithmetic works on index ensembles, not on a columns-concat")
    if isinstance(right, numbers.Number) and not isinstance(right, bool):
        return _with_number(left, right, op, reflected)
    if not isinstance(right, Ensemble):
        return NotImplemented
    if isinstance(right.dataframe.columns, pd.MultiIndex):
        raise ShapeError("arithmetic works on index ensembles, not on a columns-concat")
    if left.profile_level != right.profile_level:
        raise ShapeError(
            f"cannot {op} ensembles whose profile levels differ: {left.profile_level!r} "
            f"and {right.profile_level!r}"
        )
    mine, theirs = set(left.profiles), set(right.profiles)
    if mine != theirs:
        only_l = sorted(map(repr, mine - theirs))[:4]
        only_r = sorted(map(repr, theirs - mine))[:4]
        raise ShapeError(
            f"cannot {op} ensembles of different profiles (only left: {', '.join(only_l)}; "
            f"only right: {', '.join(only_r)}); give both the same ids with "
            "replace_profile_index(column), e.g. a process count"
        )
    gf = _graphframe(left)._binary(_graphframe(right), op)
    return left._replace(graph=gf.graph, dataframe=gf.dataframe, statsframe=None)


def _with_number(ens: Ensemble, value: float, op: str, reflected: bool) -> Ensemble:
    df = ens.dataframe.copy(deep=False)
    fn = OPERATIONS[op]
    for col in dict.fromkeys(ens.exc_metrics + ens.inc_metrics):
        if col in df.columns:
            df[col] = fn(value, df[col]) if reflected else fn(df[col], value)
    return ens._replace(dataframe=df, statsframe=None)
