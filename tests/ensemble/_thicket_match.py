"""Matching perfweave's and Thicket's tables: nodes by call path, profiles by file (the
two libraries number nodes and hash profile ids differently)."""

from __future__ import annotations

import pandas as pd


def our_paths(graph) -> list[tuple]:
    """The call path (names from the root) of every node of a perfweave graph."""
    names = graph.frames["name"].tolist()
    paths: list[tuple] = []
    for i, p in enumerate(graph.parent.tolist()):
        paths.append((*paths[p], names[i]) if p >= 0 else (names[i],))
    return paths


def their_paths(th) -> dict:
    """Thicket node -> its call path."""
    return {n: tuple(x.frame["name"] for x in n.path()) for n in th.graph.traverse()}


def by_path(df: pd.DataFrame, paths, level: str | list[str]) -> pd.DataFrame:
    """A performance table keyed on (call path, ``level``, or the levels of a list):
    either side's node ids mapped through its ``paths``."""
    out = df.reset_index()
    out["node"] = [paths[n] for n in out["node"]]
    return out.set_index(["node", *([level] if isinstance(level, str) else level)]).sort_index()


def ours_table(ens) -> pd.DataFrame:
    """perfweave's performance table keyed on (call path, file)."""
    paths = our_paths(ens.graph)
    df = ens.dataframe.reset_index()
    df["path"] = [paths[i] for i in df["node"]]
    df["file"] = df[ens.profile_level].map(ens.profile_mapping)
    return df.set_index(["path", "file"]).sort_index()


def theirs_table(th) -> pd.DataFrame:
    """Thicket's performance table keyed on (call path, file)."""
    paths = their_paths(th)
    df = th.dataframe.reset_index()
    df["path"] = [paths[n] for n in df["node"]]
    df["file"] = df["profile"].map(th.profile_mapping)
    return df.set_index(["path", "file"]).sort_index()
