"""Native Caliper ``.cali`` files (or a ``caliperreader.CaliperReader`` that read one).

A ``.cali`` file is a stream of ``__rec=`` lines: context-tree nodes, snapshot records
(``ctx``) and run globals. ``_calistream`` parses it natively into the dicts caliper-reader
would give (one per snapshot); the ``path`` attribute (a list of region names) places a
snapshot in the call tree. GPU activity records (CUPTI/ROCm) add the kernel or memcpy as a
child of their path; sampled records name the sampled function. Records of other SPOT
channels than ``regionprofile`` are skipped.

Records are walked once in Python to find their call paths; converting the attribute
columns, aggregating records per node and filling absent (node, rank) rows are columnar.
"""

from __future__ import annotations

import math
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers._calistream import CaliContents, from_caliperreader, parse_cali
from perfweave.errors import ParseError

INT = np.int64
_CTX = "path"
_NODE_ORDER_ATTRS = ("min#min#aggregate.slot", "aggregate.slot")
_ORDER_NAMES = ("Node order", "aggregate.slot", *_NODE_ORDER_ATTRS)
_NOT_METRICS = {"mpi.rank", "rank", "loop.start_iteration", *_ORDER_NAMES}
_NUMERIC = {"int", "uint", "double", "addr", "bool"}
# Caliper attribute names -> the column names every perfweave/Hatchet reader uses
RENAMES = {
    "mpi.rank": "rank",
    "module#cali.sampler.pc": "module",
    "sum#time.duration": "time",
    "sum#avg#sum#time.duration": "time",
    "inclusive#sum#time.duration": "time (inc)",
    "sum#avg#inclusive#sum#time.duration": "time (inc)",
}


def sniff(path: Path) -> bool:
    """A ``.cali`` file name, or a file starting with a ``__rec=`` record."""
    if not path.is_file():
        return False
    if path.suffix == ".cali":
        return True
    with open(path, "rb") as f:
        return f.read(6) == b"__rec="


def read(
    source: Any,
    native: bool = False,
    string_attributes: str | list[str] | tuple[str, ...] = (),
    node_ordering: bool = True,
    **_: Any,
):
    """Read a ``.cali`` file (or a ``caliperreader.CaliperReader`` that has read one).

    ``native`` keeps Caliper's attribute names instead of their aliases ("Total time");
    ``string_attributes`` adds those string attributes as dataframe columns;
    ``node_ordering`` orders siblings by Caliper's node order ("Node order" /
    ``aggregate.slot``) where recorded, else by first appearance in the file.
    """
    reader, name = _load(source)
    if isinstance(string_attributes, str):
        string_attributes = [string_attributes]
    return _build(reader, name, native, set(string_attributes), node_ordering)


def _load(source: Any) -> tuple[CaliContents, str]:
    """Parse a .cali file natively, or take the contents of a CaliperReader."""
    if not isinstance(source, (str, PathLike)):
        import caliperreader as cr

        if isinstance(source, cr.CaliperReader):
            return from_caliperreader(source), "<CaliperReader>"
        raise TypeError("from_cali needs a .cali path or a caliperreader.CaliperReader")
    path = Path(source)
    name = str(path)
    if path.is_dir():
        raise ParseError(path, "a .cali file", found="a directory")
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return parse_cali(text, name), name


def _callpath(rec: dict) -> tuple[tuple[str, ...], str, bool] | None:
    """(call path, node type, sampled?) of a snapshot record, or None if it has no path."""
    path = rec.get(_CTX)
    if path is None:
        return None
    if isinstance(path, str):
        return (path,), "function", False
    path = list(path)
    kind = rec.get("cupti.activity.kind")
    if kind is not None:
        if kind == "kernel":
            return (*path, rec.get("cupti.kernel.name", "kernel")), "kernel", False
        return (*path, kind), kind, False
    act = rec.get("rocm.activity")
    if act is not None:
        if act == "KERNEL_DISPATCH_COMPLETE":
            return (*path, rec.get("rocm.kernel.name", "kernel")), "kernel", False
        if "hipMemcpy" in str(rec.get("rocm.api", "")):
            return (*path[:-1], act), "memcpy", False  # the path ends in the API call
        return (*path, act), "function", False
    if "module#cali.sampler.pc" in rec:
        func = rec.get("source.function#cali.sampler.pc", "unknown")
        return (*path[:-1], func), "function", True
    if not path:
        return ("unknown_context",), "function", False
    return tuple(path), "function", False


def _build(reader, name: str, native: bool, strings: set[str], node_ordering: bool):
    ids: dict[tuple, int] = {}
    parent: list[int] = []
    labels: list[str] = []
    types: list[str] = []
    kept: list[dict] = []
    row_node: list[int] = []
    sampling = False
    for rec in reader.records:
        channel = rec.get("spot.channel")
        if channel is not None and channel != "regionprofile":
            continue
        found = _callpath(rec)
        if found is None:
            continue
        cp, ntype, sampled = found
        sampling |= sampled
        me = ids.get(cp)
        if me is None:
            for depth in range(1, len(cp) + 1):  # create missing ancestors first
                prefix = cp[:depth]
                if prefix not in ids:
                    ids[prefix] = len(labels)
                    parent.append(ids[prefix[:-1]] if depth > 1 else -1)
                    labels.append(str(prefix[-1]))
                    types.append(ntype if depth == len(cp) else "function")
            me = ids[cp]
        kept.append(rec)
        row_node.append(me)
    if not labels:
        raise ParseError(name, "snapshot records with a 'path' attribute", found="none")

    df = _attribute_columns(reader, kept, strings)
    df.insert(0, "node", np.asarray(row_node, dtype=INT))
    n = len(labels)

    order_key = None
    if node_ordering:
        slot = next((a for a in _NODE_ORDER_ATTRS if a in df.columns), None)
        order_key = np.arange(n, dtype=INT)  # first appearance
        if slot is not None:
            big = np.iinfo(INT).max // 2
            order_key = np.full(n, big, INT) + np.arange(n, dtype=INT)
            vals = pd.to_numeric(df[slot], errors="coerce").to_numpy(dtype=float)
            ok = ~np.isnan(vals)
            np.minimum.at(order_key, df["node"].to_numpy()[ok], vals[ok].astype(INT))

    value_attrs = [c for c in df.columns if c != "node" and _is_value(reader, c)]
    if "mpi.rank" in df.columns and df["mpi.rank"].isna().any():
        bad = int(df["node"].to_numpy()[df["mpi.rank"].isna().to_numpy()][0])
        raise ParseError(
            name,
            "an mpi.rank in every record of a multi-rank profile",
            found=f"a record of {'/'.join(_path_names(parent, labels, bad))} without one",
        )
    if "mpi.rank" not in df.columns and not sampling:
        df = _aggregate(df, value_attrs)
    df = _fill_missing(df, n, value_attrs)
    df["nid"] = df["node"].to_numpy()

    renames = {}
    for c in df.columns:
        a = None if native or c in ("node", "nid") else reader.attribute(c)
        alias = a.alias if a is not None else None
        renames[c] = RENAMES.get(alias or c, alias or c)
    metrics = [c for c in value_attrs if c not in _NOT_METRICS and renames[c] not in _NOT_METRICS]
    exc, inc = [], []
    for c in metrics:
        new = renames[c]
        (inc if "(inc)" in new or "inclusive" in new else exc).append(new)
    drop = [c for c in df.columns if c in _ORDER_NAMES or renames[c] in _ORDER_NAMES]
    df = df.drop(columns=drop).rename(columns=renames)
    if "rank" in df.columns:
        df["rank"] = df["rank"].astype(INT)
    df["name"] = np.asarray(labels, dtype=object)[df["node"].to_numpy()]

    cols = set(df.columns)
    if "time" in cols and "time" in exc + inc:
        default = "time"
    elif "avg#inclusive#sum#time.duration" in cols:
        default = "avg#inclusive#sum#time.duration"
    else:
        default = (inc or exc or ["time"])[0]
    frames = pd.DataFrame({"type": types, "name": labels})
    return build_graphframe(
        frames,
        df,
        parent=np.asarray(parent, dtype=INT),
        exc_metrics=_unique(exc),
        inc_metrics=_unique(inc),
        default_metric=default,
        metadata=parse_globals(reader.globals),
        order_key=order_key,
        path=name,
    )


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _is_value(contents: CaliContents, name: str) -> bool:
    a = contents.attribute(name)
    return a is not None and a.is_value


def _attribute_columns(reader, records: list[dict], strings: set[str]) -> pd.DataFrame:
    """Typed columns of the records' attributes (numbers, and the strings asked for)."""
    raw = pd.DataFrame.from_records(records) if records else pd.DataFrame()
    out = {}
    for col in raw.columns:
        if col == _CTX:
            continue
        a = reader.attribute(col)
        kind = a.type if a is not None else None
        values = raw[col]
        if kind in _NUMERIC:
            if kind == "bool":
                out[col] = values.map(_to_bool, na_action="ignore")
            else:
                out[col] = _to_number(values, kind)
        elif col == "spot.channel" or (kind == "string" and col in strings):
            out[col] = values.map(_to_text, na_action="ignore")
    return pd.DataFrame(out, index=raw.index)


def _to_number(values: pd.Series, kind: str) -> pd.Series:
    """Caliper's values as int64 (uint64 where needed) or float64, NaN where not a number.

    One plain pass over the values: profiles have few records per attribute, and there
    per-column pandas conversions cost far more than the conversion itself.
    """
    nums: list = []
    has_nan = False
    for v in values.tolist():
        if v is None or (isinstance(v, float) and v != v):
            nums.append(math.nan)
            has_nan = True
            continue
        s = _to_text(v)
        if kind == "addr" and s.startswith("0x"):
            nums.append(int(s, 16))
            continue
        try:
            nums.append(int(s))
        except ValueError:
            try:
                x = float(s)
            except ValueError:
                x = math.nan
            has_nan |= x != x
            nums.append(x)
    if kind in ("int", "uint", "addr") and not has_nan:
        arr = np.asarray(nums, dtype=object)
        unsigned = kind != "int" and all(x >= 0 for x in nums)
        return pd.Series(arr.astype(np.uint64 if unsigned else INT), index=values.index)
    return pd.Series(np.asarray(nums, dtype=float), index=values.index)


def _to_text(v: Any) -> str:
    return "/".join(map(str, v)) if isinstance(v, list) else str(v)


def _to_bool(v: Any) -> bool:
    return str(v).strip().lower() in ("true", "1", "yes")


def _aggregate(df: pd.DataFrame, value_attrs: list[str]) -> pd.DataFrame:
    """One row per node: numbers summed (NaN only where no record has the attribute),
    text attributes as their distinct values joined by ','."""
    if not df["node"].duplicated().any():
        return df
    grouped = df.groupby("node", sort=False)
    numeric = [c for c in df.columns if c != "node" and pd.api.types.is_numeric_dtype(df[c])]
    parts = [grouped[numeric].sum(min_count=1)] if numeric else []
    text = [c for c in df.columns if c != "node" and c not in numeric]
    if text:
        parts.append(grouped[text].agg(_join_distinct))
    out = (
        pd.concat(parts, axis=1).reset_index() if parts else grouped.size().reset_index()[["node"]]
    )
    return out[[c for c in df.columns if c in out.columns]]


def _join_distinct(values: pd.Series):
    """Distinct values in order of appearance, joined by ','; None when all are missing."""
    distinct = dict.fromkeys(values.dropna())
    return ",".join(map(str, distinct)) if distinct else None


def _path_names(parent: list[int], labels: list[str], nid: int) -> list[str]:
    out = []
    while nid >= 0:
        out.append(labels[nid])
        nid = parent[nid]
    return out[::-1]


def _fill_missing(df: pd.DataFrame, n: int, value_attrs: list[str]) -> pd.DataFrame:
    """A zero row for each node (each rank 0..max with mpi.rank) that has no record."""
    node = df["node"].to_numpy()
    if "mpi.rank" in df.columns:
        rank = pd.to_numeric(df["mpi.rank"], errors="coerce").fillna(0).to_numpy().astype(INT)
        seen = np.zeros((n, int(rank.max()) + 1 if len(rank) else 1), bool)
        seen[node, rank] = True
        miss_node, miss_rank = np.nonzero(~seen)
        fill = pd.DataFrame({"node": miss_node.astype(INT), "mpi.rank": miss_rank.astype(INT)})
    else:
        seen = np.zeros(n, bool)
        seen[node] = True
        fill = pd.DataFrame({"node": np.flatnonzero(~seen).astype(INT)})
    if not len(fill):
        return df
    for c in value_attrs:
        if c != "mpi.rank":
            fill[c] = 0
    out = pd.concat([df, fill], ignore_index=True, sort=False)
    for c in value_attrs:
        if c in df.columns and pd.api.types.is_integer_dtype(df[c]) and not out[c].isna().any():
            out[c] = out[c].astype(df[c].dtype)
    return out


def parse_globals(globals_: dict) -> dict:
    """Caliper globals as Python values: ints, floats, ``[a,b]`` lists, else strings."""
    out: dict[str, Any] = {}
    for key, value in globals_.items():
        out[key] = _parse_value(value)
    return out


def _parse_value(value: Any) -> Any:
    if isinstance(value, list):
        return list(value)
    text = str(value)
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    if len(text) >= 2 and (text[0], text[-1]) in (("[", "]"), ("(", ")")):
        return [item.strip() for item in text[1:-1].split(",")]
    return text
