"""Ensembles as JSON, in Thicket's ``to_json`` layout (so either library reads the other's).

Keys: ``graph`` (a list of {node id: {data, children, parents}}), ``dataframe_indices``,
``dataframe`` / ``metadata`` / ``stats`` (records, missing values as null),
``inclusive_metrics``, ``exclusive_metrics``, the profile list under the profile level's
name, ``profile_idx_name`` and ``profile_mapping``. Reading lays the table out densely,
like every perfweave ensemble (absent (node, profile) rows are NaN).
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.graph import Graph
from perfweave.calltree.readers.toolkit import load_json, to_int
from perfweave.ensemble import _table
from perfweave.ensemble.ensemble import Ensemble, new_statsframe
from perfweave.errors import GraphError, ParseError, ShapeError

INT = np.int64


def _default(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (pd.Timestamp,)):
        return v.isoformat()
    return str(v)


def _records(df: pd.DataFrame) -> list[dict]:
    """Records with NaN/None/NA as null (JSON has no NaN)."""
    return df.astype(object).where(df.notna(), None).to_dict("records")


def to_json(ens: Ensemble) -> str:
    """See :meth:`Ensemble.to_json`."""
    if isinstance(ens.dataframe.columns, pd.MultiIndex):
        raise ShapeError(
            "to_json writes index-concatenated ensembles; a columns-concat has tuple "
            "column labels that Thicket's JSON layout cannot name"
        )
    g = ens.graph
    records = g.frames.to_dict("records")
    (child_ptr, child_idx), (parent_ptr, parent_idx) = g.children_csr(), g.parents_csr()
    kids = np.split(child_idx, child_ptr[1:-1]) if len(g) else []
    parents = np.split(parent_idx, parent_ptr[1:-1]) if len(g) else []
    graph = {
        str(i): {
            "data": {k: v for k, v in rec.items() if v is not None and v == v},
            "children": c.tolist(),
            "parents": p.tolist(),
        }
        for i, (rec, c, p) in enumerate(zip(records, kids, parents))
    }
    ens._one_profile_level("to_json")
    level = ens.profile_level
    doc = {
        "graph": [graph],
        "dataframe_indices": list(ens.dataframe.index.names),
        "dataframe": _records(ens.dataframe.reset_index()),
        "metadata": _records(ens.metadata.reset_index()),
        "stats": _records(ens.statsframe.reset_index()),
        "inclusive_metrics": list(ens.inc_metrics),
        "exclusive_metrics": list(ens.exc_metrics),
        level: ens.profiles,
        "profile_idx_name": level,
        "profile_mapping": {str(k): v for k, v in ens.profile_mapping.items()},
        "default_metric": ens.default_metric,
        "node_ordering": bool(g.node_ordering),
    }
    return json.dumps(doc, default=_default)


def from_json(text_or_path: str | os.PathLike) -> Ensemble:
    """See :meth:`Ensemble.from_json`."""
    text = os.fspath(text_or_path)
    if not text.lstrip().startswith("{") and not os.path.exists(text):
        raise FileNotFoundError(2, "No such file or directory", text)
    # the readers' JSON loading: positions in errors, any depth, over-long numbers named
    doc, source = load_json(text, "ensemble JSON")
    if not isinstance(doc, dict):
        raise ParseError(source, "an ensemble JSON object", found=type(doc).__name__)
    for key in ("graph", "dataframe", "dataframe_indices"):
        if key not in doc:
            raise ParseError(
                source, f"an ensemble JSON object with key {key!r}", found=str(list(doc))[:80]
            )
    graph, pos_of_nid = _graph(doc["graph"], source, bool(doc.get("node_ordering")))
    indices = list(doc["dataframe_indices"])
    if len(indices) < 2 or indices[0] != "node":
        raise ParseError(
            source, "dataframe_indices starting with node, profile", found=str(indices)
        )
    level = doc.get("profile_idx_name", indices[1])
    extra = indices[2:]
    df = pd.DataFrame(doc["dataframe"])
    for col in indices:
        if col not in df.columns:
            raise ParseError(source, f"dataframe records with a {col!r} field")
    nid = df["node"].to_numpy()
    node = _lookup(pos_of_nid, nid, source)
    meta = pd.DataFrame(doc.get("metadata") or [])
    if level in meta.columns:
        meta = meta.set_index(level)
    else:
        meta = pd.DataFrame(index=pd.Index(pd.unique(df[level])))
    # profiles in the order written (Thicket's and perfweave's own order of them)
    sorted_profiles = pd.Index(list(meta.index))
    prof_pos = sorted_profiles.get_indexer(df[level])
    if (prof_pos < 0).any():
        bad = df[level].to_numpy()[prof_pos < 0][0]
        raise ParseError(source, "dataframe profiles listed in the metadata", found=repr(bad))
    table = df.drop(columns=["node", level])
    for c in table.columns:  # JSON null -> NaN, as in tables perfweave builds
        if table[c].dtype == object:
            table[c] = table[c].where(table[c].notna(), np.nan)
    out = _table.stack(
        [table],
        [np.arange(len(table), dtype=INT)],
        [node],
        [prof_pos],
        list(sorted_profiles),
        len(graph),
        [source],
        level=level,
        extra_levels=extra,
        node_names=graph.frames["name"].to_numpy(),
    )
    meta = meta.reindex(sorted_profiles)
    meta.index.name = level
    stats = new_statsframe(graph, out)
    if doc.get("stats"):
        sdf = pd.DataFrame(doc["stats"])
        if "node" in sdf.columns:
            ids = _lookup(pos_of_nid, sdf["node"].to_numpy(), source)
            for c in sdf.columns:
                if c in ("node", "name"):
                    continue
                col = pd.Series(np.nan, index=stats.index, dtype=object)
                col.iloc[ids] = sdf[c].to_numpy(dtype=object)
                stats[c] = col.infer_objects()
    mapping = _mapping(doc.get("profile_mapping") or {}, sorted_profiles)
    cols = set(out.columns)
    return Ensemble(
        graph,
        out,
        meta,
        [m for m in doc.get("exclusive_metrics", []) if m in cols],
        [m for m in doc.get("inclusive_metrics", []) if m in cols],
        doc.get("default_metric", "time"),
        stats,
        mapping,
    )


def _graph(spec: Any, source: str, node_ordering: bool = False) -> tuple[Graph, dict]:
    """The graph of Thicket's node dicts and a map: JSON node id -> perfweave id.

    With ``node_ordering`` siblings keep the order of their JSON ids (the writer's node
    order) instead of being ordered by frame."""
    nodes: dict[int, dict] = {}
    for part in spec if isinstance(spec, list) else [spec]:
        if not isinstance(part, dict):
            raise ParseError(source, "'graph' as objects of node id -> node", found=part)
        for k, v in part.items():
            nid = to_int(k, source, "an integer node id")
            children = v.get("children", []) if isinstance(v, dict) else None
            if not isinstance(children, list) or not isinstance(v.get("data", {}), dict):
                raise ParseError(
                    source,
                    "a node object with a 'data' object and a 'children' list",
                    position=f"node {k}",
                    found=v,
                )
            v = {**v, "children": [to_int(c, source, "integer child ids") for c in children]}
            nodes[nid] = v
    if not nodes:
        raise ParseError(source, "at least one graph node")
    nids = sorted(nodes)
    row_of = {nid: i for i, nid in enumerate(nids)}
    frames = pd.DataFrame([nodes[n].get("data", {}) for n in nids])
    try:
        src = [row_of[n] for n in nids for _ in nodes[n].get("children", [])]
        dst = [row_of[int(c)] for n in nids for c in nodes[n].get("children", [])]
    except KeyError as exc:
        raise ParseError(source, "children that are graph nodes", found=str(exc)) from exc
    if "name" not in frames.columns:
        raise ParseError(source, "a 'name' in every node's data")
    try:
        edges = (np.asarray(src, INT), np.asarray(dst, INT))
        key = np.arange(len(nids), dtype=INT) if node_ordering else None
        graph, pos = Graph.build(frames, edges=edges, order_key=key)
    except GraphError as exc:
        raise ParseError(source, "a well-formed call graph", found=str(exc)) from exc
    return graph, {nid: int(pos[row_of[nid]]) for nid in nids}


def _lookup(pos_of_nid: dict, nid: np.ndarray, source: str) -> np.ndarray:
    keys = np.fromiter(pos_of_nid.keys(), dtype=INT, count=len(pos_of_nid))
    vals = np.fromiter(pos_of_nid.values(), dtype=INT, count=len(pos_of_nid))
    order = np.argsort(keys)
    keys, vals = keys[order], vals[order]
    ids = pd.to_numeric(pd.Series(nid), errors="coerce").to_numpy(dtype=float)
    wrong = ~np.isfinite(ids) | (ids % 1 != 0) | (np.abs(ids) >= 2.0**62)
    if wrong.any():
        raise ParseError(source, "integer node ids", found=repr(nid[np.flatnonzero(wrong)[0]]))
    nid = ids.astype(INT)
    at = np.clip(np.searchsorted(keys, nid), 0, len(keys) - 1)
    bad = keys[at] != nid
    if bad.any():
        raise ParseError(source, "rows of graph nodes", found=f"node {int(nid[bad][0])}")
    return vals[at]


def _mapping(raw: dict, profiles: pd.Index) -> dict:
    """Profile mapping with the original profile ids as keys (JSON made them strings)."""
    by_text = {str(p): p for p in profiles}
    return {by_text.get(str(k), k): v for k, v in raw.items()}
