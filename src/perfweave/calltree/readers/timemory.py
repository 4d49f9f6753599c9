"""timemory's JSON tree output (``*.tree.json``): one call tree per component and rank.

The file is ``{"timemory": {COMPONENT: {properties..., "graph" | "mpi" | "upc" | "upcxx":
[per-rank trees]}}}``. Each tree node holds a ``prefix`` (the region label, often
``func@file:line/tail``), thread/process ids and inclusive/exclusive statistics. Nodes are
identified by their call path of names, so one graph node collects every rank, thread and
component; each statistic becomes a column ``<stat>.<component>`` (`` (inc)`` for the
inclusive ones). Dummy nodes (hash 0) are skipped, their children moving up.

Trees are small and nested, so this reader walks them in plain Python (no recursion).
A directory is read as all its ``*.tree.json`` files, one component each.
"""

from __future__ import annotations

import json
import re
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers._common import is_int64, load_json, sniff_json_keys, unit_word
from perfweave.errors import ArgumentTypeError, ParseError

_DROP_STATS = ("cereal_class_version", "count")
# statistics in the component's own unit (its ``unit_repr``; ``sqr`` is its square)
_UNIT_STATS = ("sum", "min", "max", "mean", "stddev")
# region label forms, tried in order: [func][file] / "label  [func/file:line]" /
# func@file:line/tail / func@file/tail / func:line/tail  ('@' or '/' as separator)
_LABELS = [
    re.compile(r"^\[(?P<func>.*)\]\[(?P<file>.*)\]$"),
    re.compile(r"(?P<head>.+)[ \t]+\[(?P<func>\S+)/(?P<file>\S+):(?P<line>[0-9]+)\]$"),
    re.compile(r"(?P<func>\S+)[@/](?P<file>\S+):(?P<line>[0-9]+)/*(?P<tail>.*)"),
    re.compile(r"(?P<func>\S+)[@/](?P<file>\S+)/(?P<tail>.*)"),
    re.compile(r"(?P<func>\S+):(?P<line>[0-9]+)/*(?P<tail>.*)"),
]


def sniff(path: Path) -> bool:
    if path.is_dir():
        return any(path.glob("*.tree.json"))
    return sniff_json_keys(path, '"timemory"')


def read(
    source: Any,
    select: list[str] | None = None,
    per_rank: bool = False,
    per_thread: bool = False,
    **_: Any,
):
    """Read a timemory tree (file, directory of ``*.tree.json``, JSON text or dict).

    ``select`` keeps only the named components (e.g. ``["wall_clock"]``); ``per_rank`` /
    ``per_thread`` put the rank / thread into the frame so that equal regions of different
    ranks / threads stay separate nodes.
    """
    doc, name = _load(source)
    if select is not None:
        if not isinstance(select, (list, tuple)):
            raise ArgumentTypeError("select must be None or a list of component names")
        select = [(s() if callable(s) else str(s)).lower() for s in select]
    return _Builder(name, select, per_rank, per_thread).build(doc)


def _load(source: Any) -> tuple[dict, str]:
    if isinstance(source, (str, PathLike)) and Path(source).is_dir():
        files = sorted(Path(source).glob("*.tree.json"))
        if not files:
            raise ParseError(source, "a directory holding *.tree.json files", found="none")
        merged: dict[str, Any] = {}
        for f in files:
            part, fname = load_json(f, "timemory tree JSON")
            if not isinstance(part, dict) or not isinstance(part.get("timemory"), dict):
                raise ParseError(fname, "a JSON object with a 'timemory' object")
            merged.update(part["timemory"])
        return {"timemory": merged}, str(source)
    if hasattr(source, "read"):
        source = json.loads(source.read())
    doc, name = load_json(source, "timemory tree JSON")
    if not isinstance(doc, dict) or not isinstance(doc.get("timemory"), dict):
        raise ParseError(
            name,
            "a JSON object with a 'timemory' object of components",
            found=type(doc).__name__ if not isinstance(doc, dict) else f"keys {sorted(doc)[:6]}",
        )
    return doc, name


def split_label(prefix: str) -> tuple[str, str, str]:
    """(name, file, line) of a timemory region label, as Hatchet names them."""
    for pattern in _LABELS:
        m = pattern.search(prefix)
        if m is None:
            continue
        g = {k: v for k, v in m.groupdict().items() if v}
        if not g:
            continue
        if "head" in g:
            return g["head"].rstrip(), g.get("file", "<unknown>"), g.get("line", "0")
        name = g.get("func", prefix)
        if "tail" in g:
            name = f"{name}/{g['tail']}"
        return name, g.get("file", "<unknown file>"), g.get("line", "0")
    return prefix, "<unknown>", "0"


def _ids(value: Any, keep_scalar: bool, what: str, where: str, path: str):
    """Hatchet's id collapse: one id -> int; several -> "a,b" (or an error if per-id)."""
    if isinstance(value, list):
        if len(value) == 1:
            return _integer(value[0], f"a {what} id", where, path)
        if keep_scalar:
            raise ParseError(
                path,
                f"one {what} id per node (per_{what}=True)",
                position=where,
                found=value,
            )
        return ",".join(str(x) for x in value)
    if value is None:
        return None
    return str(value) if keep_scalar else _integer(value, f"a {what} id", where, path)


def _integer(value: Any, what: str, where: str, path: str) -> int:
    """A JSON integer (or whole float) within int64, else ParseError naming it."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not is_int64(value):
        raise ParseError(path, what, position=where, found=repr(value)[:40])
    return value


def _labelled(stats: dict, labels: Any, suffix: str) -> dict[str, Any]:
    """``{stat}.{label}{suffix}`` columns of a stats dict (vector stats get one per label)."""
    out: dict[str, Any] = {}
    for key, item in stats.items():
        if key in _DROP_STATS:
            continue
        if isinstance(item, dict):
            for i, v in enumerate(item.values()):
                out[f"{key}.{labels[i]}{suffix}"] = v
        elif isinstance(item, list):
            for i, v in enumerate(item):
                out[f"{key}.{labels[i]}{suffix}"] = v
        else:
            out[f"{key}.{labels}{suffix}"] = item
    return out


def _vector_labels(labels: Any) -> list[str]:
    items = labels.keys() if isinstance(labels, dict) else labels
    return [str(x).strip().replace(" ", "-").replace("_", "-") for x in items]


class _Builder:
    def __init__(self, name: str, select, per_rank: bool, per_thread: bool) -> None:
        self.name, self.select = name, select
        self.per_rank, self.per_thread = per_rank, per_thread
        self.ids: dict[tuple, int] = {}
        self.frames: list[dict] = []
        self.parent: list[int] = []
        self.rows: dict[tuple, dict] = {}
        self.metrics: dict[str, None] = {}
        self.units: dict[str, str] = {}  # component -> its unit_repr
        self.has_ranks = False
        self.has_threads = False

    def build(self, doc: dict):
        for comp, data in doc["timemory"].items():
            metric = comp.replace("tim::", "").replace("component::", "").lower()
            if self.select is not None and metric not in self.select:
                continue
            if not isinstance(data, dict):
                raise ParseError(self.name, "a component object", position=f"timemory.{comp}")
            labels = data.get("type")
            unit = data.get("unit_repr")
            if isinstance(unit, str) and unit.strip() and isinstance(labels, (str, type(None))):
                self.units[metric] = unit_word(unit)
            if "graph" in data:
                self._ranks(data["graph"], metric, labels, None, f"timemory.{comp}.graph")
            else:
                if "mpi" in data:
                    self._ranks(data["mpi"], metric, labels, 0, f"timemory.{comp}.mpi")
                offset = _integer(
                    data.get("mpi_size") or 0, "an integer mpi_size", f"timemory.{comp}", self.name
                )
                for dmp in ("upc", "upcxx"):
                    if dmp in data:
                        self._ranks(data[dmp], metric, labels, offset, f"timemory.{comp}.{dmp}")
                        break
        if not self.frames:
            raise ParseError(self.name, "at least one timemory call tree node", found="none")
        return self._graphframe()

    def _ranks(self, ranks: Any, metric: str, labels: Any, first: int | None, where: str):
        if not isinstance(ranks, list):
            raise ParseError(self.name, "a list of per-rank trees", position=where)
        if first is not None and ranks:
            self.has_ranks = True
        for i, rank_data in enumerate(ranks):
            rank = None if first is None else first + i
            trees = rank_data if isinstance(rank_data, list) else [rank_data]
            for j, tree in enumerate(trees):
                if not isinstance(tree, dict) or "node" not in tree:
                    raise ParseError(
                        self.name,
                        "a tree object with 'node'",
                        position=f"{where}[{i}][{j}]",
                        found=tree,
                    )
                if tree.get("children"):
                    self._walk(tree, metric, labels, rank, f"{where}[{i}]")

    def _walk(self, top: dict, metric: str, labels: Any, rank, where: str) -> None:
        stack: list[tuple[dict, int, tuple, str]] = [(top, -1, (), where)]
        while stack:
            tree, up, callpath, here = stack.pop()
            node = tree.get("node") if isinstance(tree, dict) else None
            if not isinstance(node, dict) or "prefix" not in node or "hash" not in node:
                raise ParseError(
                    self.name,
                    "a node with 'hash', 'prefix', 'inclusive' and 'exclusive'",
                    position=here,
                    found=tree,
                )
            children = tree.get("children") or []
            if node["hash"] == 0:  # a dummy root / thread-sync node: children move up
                for k in range(len(children) - 1, -1, -1):
                    stack.append((children[k], up, callpath, f"{here}.children[{k}]"))
                continue
            label = split_label(str(node["prefix"]))  # (name, file, line), parsed once
            me, path = self._node(node, label[0], up, callpath, rank, here)
            self._row(node, label, me, metric, labels, rank, here)
            for k in range(len(children) - 1, -1, -1):
                stack.append((children[k], me, path, f"{here}.children[{k}]"))

    def _node(self, node: dict, name: str, up: int, callpath: tuple, rank, here: str):
        frame = {"type": "region", "name": name}
        if self.per_rank and rank is not None:
            frame["rank"] = _ids(rank, True, "rank", here, self.name)
        if self.per_thread:
            frame["thread"] = _ids(node.get("tid"), True, "thread", here, self.name)
        path = callpath + (tuple(sorted(frame.items())),)
        me = self.ids.get(path)
        if me is None:
            me = self.ids[path] = len(self.frames)
            self.frames.append(frame)
            self.parent.append(up)
        return me, path

    def _row(
        self, node: dict, label: tuple, me: int, metric: str, labels: Any, rank, here: str
    ) -> None:
        try:
            inc_stats = node["inclusive"]["stats"]
            exc_stats = node["exclusive"]["stats"]
            laps = node["inclusive"]["entry"]["laps"]
        except (KeyError, TypeError) as exc:
            raise ParseError(
                self.name,
                "inclusive/exclusive 'stats' and inclusive 'entry.laps'",
                position=here,
                found=f"missing {exc}",
            ) from exc
        name, file, line = label
        thread = _ids(node.get("tid"), False, "thread", here, self.name)
        if thread is not None and thread != 0:
            self.has_threads = True
        if isinstance(labels, str) or labels is None:
            exc = _labelled(exc_stats, metric, "")
            inc = _labelled(inc_stats, metric, " (inc)")
        else:
            vec = _vector_labels(labels)
            exc = _labelled(exc_stats, vec, "")
            inc = _labelled(inc_stats, vec, " (inc)")
        for m in (*exc, *inc):
            self.metrics.setdefault(m)
        key = (me, rank, thread)
        row = self.rows.get(key)
        if row is None:
            self.rows[key] = {
                "node": me,
                "type": "region",
                "name": name,
                "file": file,
                "line": line,
                "rank": rank,
                "thread": thread,
                "pid": _ids(node.get("pid"), False, "pid", here, self.name),
                "count": laps,
                **exc,
                **inc,
            }
        else:
            row.update(exc)
            row.update(inc)

    def _graphframe(self):
        df = pd.DataFrame(list(self.rows.values()))
        levels = [lvl for lvl, on in (("rank", self.has_ranks), ("thread", self.has_threads)) if on]
        df = df.drop(columns=[c for c in ("rank", "thread") if c not in levels])
        metrics = list(self.metrics)
        if levels:
            df = _complete_last_level(df, levels, metrics)
        exc = [m for m in metrics if not m.endswith(" (inc)")]
        inc = [m for m in metrics if m.endswith(" (inc)")]
        if "sum.wall_clock" in exc:
            default = "sum.wall_clock"
        elif "sum.cpu_clock" in exc:
            default = "sum.cpu_clock"
        else:
            default = (exc or inc or ["sum"])[0]
        return build_graphframe(
            pd.DataFrame(self.frames),
            df,
            parent=np.asarray(self.parent, dtype=np.int64),
            exc_metrics=exc,
            inc_metrics=inc,
            default_metric=default,
            path=self.name,
            units={
                f"{stat}.{comp}": unit
                for comp, unit in self.units.items()
                for stat in _UNIT_STATS
                if f"{stat}.{comp}" in self.metrics
            },
        )


def _complete_last_level(df: pd.DataFrame, levels: list[str], metrics: list[str]):
    """Hatchet fills the innermost index level: every (node, outer levels) combination
    gets a row for each value of the last level; added rows hold zero metrics."""
    last, outer = levels[-1], ["node", *levels[:-1]]
    combos = df[outer].drop_duplicates()
    values = pd.DataFrame({last: pd.unique(df[last])})
    full = combos.merge(values, how="cross")
    out = full.merge(df, on=[*outer, last], how="left", indicator=True)
    added = (out.pop("_merge") == "left_only").to_numpy()
    if not added.any():
        return df
    node_info = df.drop_duplicates("node").set_index("node")[["type", "name", "file", "line"]]
    for c in node_info.columns:
        out.loc[added, c] = node_info[c].reindex(out.loc[added, "node"]).to_numpy()
    fill = {m: 0 for m in [*metrics, "count"] if m in out.columns}
    out.loc[added, list(fill)] = 0
    return out
