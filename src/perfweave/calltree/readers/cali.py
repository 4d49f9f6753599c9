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
from itertools import chain
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers._calistream import (
    CaliContents,
    CaliPath,
    from_caliperreader,
    parse_cali,
)
from perfweave.calltree.readers._common import CALIPER_RENAMES as RENAMES
from perfweave.calltree.readers._common import (
    MAX_RANK,
    caliper_unit,
    check_rank_grid,
    node_order_key,
    read_text,
)
from perfweave.errors import ArgumentTypeError, OptionError, ParseError

INT = np.int64
_CTX = "path"
NODE_ORDER_ATTRS = ("min#min#aggregate.slot", "aggregate.slot")
ORDER_NAMES = ("Node order", "aggregate.slot", *NODE_ORDER_ATTRS)
NOT_METRICS = {"mpi.rank", "rank", "loop.start_iteration", *ORDER_NAMES}
_AVG_TIME = "avg#inclusive#sum#time.duration"
_NUMERIC = {"int", "uint", "double", "addr", "bool"}
# attributes that make a record's call path more than its path (see _callpath)
_GPU, _ROCM, _SAMPLE = "cupti.activity.kind", "rocm.activity", "module#cali.sampler.pc"


def sniff(path: Path) -> bool:
    """A ``.cali`` file name, or a file starting with a ``__rec=`` record."""
    if not path.is_file():
        return False
    if path.suffix == ".cali":
        return True
    with open(path, "rb") as f:
        return f.read(6) == b"__rec="


#: ``sampled_rows`` choices: one row per node (its records summed), or one per record
SAMPLED_ROWS = ("sum", "keep")
#: what tells apart the records of one node of a sampling profile (``sampled_rows="keep"``)
_SAMPLE_PARTS = ("module#cali.sampler.pc", "source.function#callpath.address")


def read(
    source: Any,
    native: bool = False,
    string_attributes: str | list[str] | tuple[str, ...] = (),
    node_ordering: bool = True,
    strict: bool = True,
    sampled_rows: str = "sum",
    **_: Any,
):
    """Read a ``.cali`` file (or a ``caliperreader.CaliperReader`` that has read one).

    ``native`` keeps Caliper's attribute names instead of their aliases ("Total time");
    ``string_attributes`` adds those string attributes as dataframe columns;
    ``node_ordering`` orders siblings by Caliper's node order ("Node order" /
    ``aggregate.slot``) where recorded, else by first appearance in the file.
    ``strict=False`` reads a snapshot record whose ``data=`` values do not match its
    ``attr=`` ids pairwise (a missing value is NaN), with one counted
    ``IncompleteInputWarning`` naming the lines, instead of raising a ``ParseError``.

    A sampling profile has several records per call-tree node (one per sampled call stack
    and module). ``sampled_rows="sum"`` (the default) gives one row per node (and rank):
    its records' metrics summed, as every other profile has. ``"keep"`` gives the raw rows,
    one per record as Hatchet reads them, with the sampled module and the unwound call
    stack (``module``, ``source.function#callpath.address``) as the columns that tell a
    node's rows apart.
    """
    if sampled_rows not in SAMPLED_ROWS:
        raise OptionError(
            f"sampled_rows={sampled_rows!r}: expected one of {', '.join(map(repr, SAMPLED_ROWS))}"
        )
    reader, name = load_contents(source, strict)
    if isinstance(string_attributes, str):
        string_attributes = [string_attributes]
    strings = set(string_attributes)
    if sampled_rows == "keep":
        strings |= set(_SAMPLE_PARTS)
    return _build(reader, name, native, strings, node_ordering, sampled_rows == "sum")


def load_contents(source: Any, strict: bool = True) -> tuple[CaliContents, str]:
    """Parse a .cali file natively, or take the contents of a CaliperReader."""
    if not isinstance(source, (str, PathLike)):
        import caliperreader as cr

        if isinstance(source, cr.CaliperReader):
            return from_caliperreader(source), "<CaliperReader>"
        raise ArgumentTypeError("from_cali needs a .cali path or a caliperreader.CaliperReader")
    name = str(Path(source))
    return parse_cali(read_text(source, ".cali"), name, strict), name


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


NO_REGION = "(no region)"


def _no_region(rec: dict) -> tuple[tuple[str, ...], str, bool]:
    """A sampled record without a region path: its function under the "(no region)" root
    (Hatchet drops these records; here they are kept, and counted in a warning)."""
    return (NO_REGION, rec.get("source.function#cali.sampler.pc", "unknown")), "function", True


class SnapshotTree:
    """The call tree of a profile's records: a node per distinct call path.

    Nodes are found by (parent node, label), so a record costs one lookup per path level
    not seen before: linear in the size of the tree whatever its depth (the ``path`` of a
    natively parsed record is a :class:`CaliPath` sharing its prefix with its parent's).
    """

    def __init__(self, records: list[dict]) -> None:
        self.ids: dict[tuple[int, str], int] = {}
        self.parent: list[int] = []
        self.labels: list[str] = []
        self.types: list[str] = []
        self.kept: list[dict] = []  # the records placed in the tree
        self.row_node: list[int] = []  # and their nodes
        self.sampling = False
        self.no_region: list[int] = []  # positions in kept of sampled records without a path
        # records of one context node share its path object: id(path) -> (path, node)
        seen: dict[int, tuple[Any, int]] = {}
        for rec in records:
            channel = rec.get("spot.channel")
            if channel is not None and channel != "regionprofile":
                continue
            path = rec.get(_CTX)
            plain = _GPU not in rec and _ROCM not in rec and _SAMPLE not in rec
            if type(path) is CaliPath and plain:  # the call path is the path (_callpath)
                me = self._linked(path, seen)
            elif type(path) is list and path and plain:  # from caliper-reader
                hit = seen.get(id(path))
                if hit is None or hit[0] is not path:
                    hit = seen[id(path)] = (path, self._node(tuple(path), "function"))
                me = hit[1]
            else:
                found = _callpath(rec)
                if found is None:
                    if _SAMPLE not in rec:
                        continue
                    found = _no_region(rec)
                    self.no_region.append(len(self.kept))
                cp, ntype, sampled = found
                self.sampling |= sampled
                me = self._node(cp, ntype)
            self.kept.append(rec)
            self.row_node.append(me)

    def _linked(self, path: CaliPath, seen: dict) -> int:
        """The node of a linked path: its links not met before are walked once."""
        chain = []
        link: CaliPath | None = path
        while link is not None:
            hit = seen.get(id(link))
            if hit is not None and hit[0] is link:
                break
            chain.append(link)
            link = link.up
        me = -1 if link is None else seen[id(link)][1]
        for link in reversed(chain):
            me = self._child(me, link.value, "function")
            seen[id(link)] = (link, me)
        return me

    def _child(self, parent: int, value: Any, ntype: str) -> int:
        """The child of ``parent`` labelled ``value``, created (as ``ntype``) on first sight."""
        label = value if type(value) is str else _to_text(value)
        key = (parent, label)
        me = self.ids.get(key)
        if me is None:
            me = self.ids[key] = len(self.labels)
            self.parent.append(parent)
            self.labels.append(label)
            self.types.append(ntype)
        return me

    def _node(self, cp: tuple, ntype: str) -> int:
        """The node of a call path, created (with missing ancestors) on first sight."""
        me, last = -1, len(cp)
        for depth, value in enumerate(cp, 1):
            me = self._child(me, value, ntype if depth == last else "function")
        return me


def _build(
    reader, name: str, native: bool, strings: set[str], node_ordering: bool, sum_samples: bool
):
    tree = SnapshotTree(reader.records)
    parent, labels, types = tree.parent, tree.labels, tree.types
    if not labels:
        raise ParseError(name, "snapshot records with a 'path' attribute", found="none")

    cols = attribute_columns(reader, tree.kept, strings, name)
    if tree.no_region:
        _warn_no_region(name, tree, cols)
    node = np.asarray(tree.row_node, dtype=INT)
    n = len(labels)

    order_key = None
    if node_ordering:
        slot = next((a for a in NODE_ORDER_ATTRS if a in cols), None)
        order_key = np.arange(n, dtype=INT)  # first appearance
        if slot is not None:
            order_key = node_order_key(n, node, as_float(cols[slot]))

    value_attrs = [c for c in cols if is_value(reader, c)]
    rank = cols.get("mpi.rank")
    if rank is not None and pd.isna(rank).any():
        bad = int(node[np.asarray(pd.isna(rank))][0])
        raise ParseError(
            name,
            "an mpi.rank in every record of a multi-rank profile",
            found=f"a record of {'/'.join(_path_names(parent, labels, bad))} without one",
        )
    if rank is not None:
        rank = _check_ranks(rank, node, parent, labels, name)
        check_rank_grid(n, rank, name)
    # repeated nodes: a profile's records summed per node, a sampling profile's per (node,
    # rank) unless its raw rows are asked for
    keys = ["node"] if rank is None else ["node", "mpi.rank"]
    aggregate = sum_samples if tree.sampling else rank is None
    if aggregate and rank is None:  # a node with two records (counted: no pandas index)
        aggregate = len(node) > 0 and int(np.bincount(node).max()) > 1
    elif aggregate:
        aggregate = pd.MultiIndex.from_arrays([node, rank]).has_duplicates
    missing = _missing_rows(node, rank, n)
    if aggregate or len(missing[0]):  # rare: repeated or absent nodes, in pandas
        df = pd.DataFrame({"node": node, **cols})
        if aggregate:
            df = _aggregate(df, keys)
        df = _fill_missing(df, value_attrs, *missing)  # aggregating keeps the node set
        node = df["node"].to_numpy()
        cols = {c: df[c] for c in df.columns if c != "node"}
    cols = {"node": node, **cols, "nid": node}

    renames = {}
    for c in cols:
        a = None if native or c in ("node", "nid") else reader.attribute(c)
        alias = a.alias if a is not None else None
        renames[c] = RENAMES.get(alias or c, alias or c)
    metrics = [c for c in value_attrs if c not in NOT_METRICS and renames[c] not in NOT_METRICS]
    exc, inc = [], []
    for c in metrics:
        # an alias ("Avg time/rank") says nothing of what it aggregates: the attribute it
        # names does (avg#inclusive#sum#time.duration). Hatchet and Thicket class by the
        # alias alone and so take such columns for exclusive ones.
        new = renames[c]
        (inc if _names_inclusive(new) or _names_inclusive(c) else exc).append(new)
    units = _units(reader, metrics, renames)
    kept_cols = [c for c in cols if c not in ORDER_NAMES and renames[c] not in ORDER_NAMES]
    names = [renames[c] for c in kept_cols]
    arrays = [cols[c] for c in kept_cols]
    if "rank" in names:
        i = names.index("rank")
        arrays[i] = np.asarray(arrays[i]).astype(INT)
    name_col = np.asarray(labels, dtype=object)[node]
    if "name" in names:
        arrays[names.index("name")] = name_col
    else:
        names.append("name")
        arrays.append(name_col)
    df = _frame(names, arrays)

    cols = set(df.columns)
    if "time" in cols and "time" in exc + inc:
        default = "time"
    elif renames.get(_AVG_TIME, _AVG_TIME) in cols:  # by its alias (Avg time/rank) if any
        default = renames.get(_AVG_TIME, _AVG_TIME)
    else:
        default = (inc or exc or ["time"])[0]
    frames = pd.DataFrame({"name": labels, "type": types})  # sorted columns: used as given
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
        units=units,
    )


def _units(reader: CaliContents, metrics: list[str], renames: dict[str, str]) -> dict[str, str]:
    """The unit of each metric column (by its shown name) that Caliper's metadata or the
    attribute's name gives (:func:`~perfweave.calltree.readers._common.caliper_unit`)."""
    out = {}
    for c in metrics:
        a = reader.attribute(c)
        whole = a is not None and a.type in ("int", "uint")
        unit = caliper_unit(c, a.unit if a is not None else None, whole)
        if unit:
            out[renames[c]] = unit
    return out


def _warn_no_region(name: str, tree: SnapshotTree, cols: dict) -> None:
    """Say how many sampled records (and samples, where ``count`` is recorded) had no
    region path and were put under the "(no region)" node."""
    import warnings

    from perfweave.errors import NoRegionWarning

    rows = np.asarray(tree.no_region, dtype=INT)
    text = f"{len(rows)} of {len(tree.kept)} sampled records"
    count = cols.get("count")
    if count is not None:
        counts = as_float(count)
        text = (
            f"{np.nansum(counts[rows]):.0f} of {np.nansum(counts):.0f} samples "
            f"({len(rows)} of {len(tree.kept)} records)"
        )
    warnings.warn(
        NoRegionWarning(
            f"{name}: {text} have no region path; they are kept under the "
            f"{NO_REGION!r} root, by sampled function"
        ),
        stacklevel=5,  # the caller of perfweave.read
    )


def _check_ranks(rank, node: np.ndarray, parent: list[int], labels: list[str], name: str):
    """``mpi.rank`` as int64 after checking every value is an integer in 0..MAX_RANK."""
    r = as_float(rank)
    with np.errstate(invalid="ignore"):
        wrong = ~np.isfinite(r) | (r < 0) | (r > MAX_RANK) | (r % 1 != 0)
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        raise ParseError(
            name,
            f"an integer mpi.rank in 0..{MAX_RANK}",
            position=f"a record of {'/'.join(_path_names(parent, labels, int(node[i])))}",
            found=str(rank[i]),
        )
    return r.astype(INT)


def _names_inclusive(name: str) -> bool:
    """An inclusive metric's name: ``x (inc)``, or a Caliper attribute aggregated from
    ``inclusive#...`` (``avg#inclusive#sum#time.duration``)."""
    return "(inc)" in name or "inclusive" in name


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def is_value(contents: CaliContents, name: str) -> bool:
    a = contents.attribute(name)
    return a is not None and a.is_value


def attribute_columns(
    contents: CaliContents, records: list[dict], strings: set[str], path: str = "<cali>"
) -> dict:
    """Typed columns of the records' attributes (numbers, and the strings asked for), in
    order of first appearance: numpy arrays for numbers, Series for text. Metric values
    are checked (:func:`_check_numbers`); other numeric attributes are NaN where a record
    holds no single number (e.g. a list along a nested path)."""
    out: dict = {}
    for col in dict.fromkeys(chain.from_iterable(records)):  # keys in order of appearance
        if col == _CTX:
            continue
        a = contents.attribute(col)
        kind = a.type if a is not None else None
        if kind in _NUMERIC:
            values = [rec.get(col) for rec in records]
            if kind == "bool":
                out[col] = pd.Series(_with_nan(values), dtype=object).map(
                    _to_bool, na_action="ignore"
                )
            else:
                out[col] = _to_number(values, kind)
                if a.is_value:
                    _check_numbers(out[col], values, kind, col, path)
        elif col == "spot.channel" or (kind == "string" and col in strings):
            out[col] = pd.Series(
                [math.nan if v is None else _to_text(v) for v in (r.get(col) for r in records)]
            )
    return out


def _check_numbers(column: np.ndarray, values: list, kind: str, col: str, path: str) -> None:
    """A metric (``is_value``) attribute holds a finite number in every record that has it.

    ParseError names the attribute, the record and the value: text, ``inf``/``1e400``,
    and integers outside 64 bits are refused rather than read as NaN or wrapped around.
    """
    bad = None
    if column.dtype.kind == "f" and kind == "double" and np.isfinite(column).all():
        return  # (speed: the usual metric column) every value a finite number
    if column.dtype.kind == "f":
        given = np.asarray([v is not None for v in values], dtype=bool)
        wrong = given & ~np.isfinite(column)
        if kind in ("int", "uint"):  # 2e23 or 1.5 where Caliper writes 64-bit integers
            with np.errstate(invalid="ignore"):
                wrong |= given & ((column % 1 != 0) | (np.abs(column) >= 2.0**64))
        if wrong.any():
            bad = int(np.flatnonzero(wrong)[0])
    elif column.dtype.kind not in "iu":
        bad = 0
    if bad is not None:
        kind_text = "an integer of 64 bits" if kind in ("int", "uint") else "a finite number"
        raise ParseError(
            path,
            f"{kind_text} as the value of {col!r} ({kind})",
            position=f"snapshot record {bad + 1}",
            found=_to_text(values[bad]),
        )


def _with_nan(values: list) -> list:
    return [math.nan if v is None else v for v in values]


def _to_number(values: list, kind: str) -> np.ndarray:
    """Caliper's values as int64 (uint64 where needed) or float64, NaN where not a number.

    Whole-column ``int``/``float`` passes first (profiles have few records per attribute,
    so plain passes beat per-column pandas conversions); anything unusual (missing values,
    addresses, text) goes value by value.
    """
    if kind != "addr":
        try:
            nums = list(map(int, values))  # TypeError for a missing value or a list
        except (TypeError, ValueError):
            nums = None
        if nums is not None and _fits(nums, kind):
            if kind == "double":
                return np.asarray(nums, dtype=float)
            unsigned = kind != "int" and all(x >= 0 for x in nums)
            return np.asarray(nums, dtype=object).astype(np.uint64 if unsigned else INT)
        if kind == "double":
            try:
                return np.asarray(list(map(float, values)), dtype=float)
            except (TypeError, ValueError):
                pass
    return _to_number_each(values, kind)


def _to_number_each(values: list, kind: str) -> np.ndarray:
    """``_to_number`` value by value: NaN for missing or non-numeric values."""
    nums: list = []
    has_nan = False
    for v in values:
        if v is None or (isinstance(v, float) and v != v):
            nums.append(math.nan)
            has_nan = True
            continue
        s = _to_text(v)
        try:
            v = int(s, 16) if kind == "addr" and s.startswith("0x") else int(s)
            nums.append(v if -(2**63) <= v < 2**64 else math.copysign(math.inf, v))
        except ValueError:  # not an integer, or more digits than Python converts
            try:
                x = float(s)
            except ValueError:
                x = math.nan
            has_nan |= x != x
            nums.append(x)
    if kind in ("int", "uint", "addr") and not has_nan and _fits(nums, kind):
        arr = np.asarray(nums, dtype=object)
        unsigned = kind != "int" and all(x >= 0 for x in nums)
        return arr.astype(np.uint64 if unsigned else INT)
    return np.asarray(nums, dtype=float)


def _fits(nums: list, kind: str) -> bool:
    """Whether ints ``nums`` fit Caliper's 64-bit ``kind`` (signed, else unsigned).

    Values that do not fit are kept as float (inf beyond float range) for the metric
    check to name; a value of another type (a float) makes the column float too.
    """
    if not nums or kind == "double":
        return kind != "double" or all(abs(x) < 2**1023 for x in nums if type(x) is int)
    if any(type(x) is not int for x in nums):
        return False
    lo, hi = min(nums), max(nums)
    return lo >= -(2**63) and hi < (2**63 if kind == "int" or lo < 0 else 2**64)


def as_float(values) -> np.ndarray:
    """A column as float64, NaN where not a number."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuf":
        return values.astype(float)
    return pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)


def _frame(names: list[str], arrays: list) -> pd.DataFrame:
    """One DataFrame from columns (names may repeat, as aliases can)."""
    if len(set(names)) == len(names):
        return pd.DataFrame(dict(zip(names, arrays)))
    df = pd.DataFrame(dict(enumerate(arrays)))
    df.columns = pd.Index(names)
    return df


def _to_text(v: Any) -> str:
    return "/".join(map(str, v)) if isinstance(v, (list, CaliPath)) else str(v)


def _to_bool(v: Any) -> bool:
    return str(v).strip().lower() in ("true", "1", "yes")


def _aggregate(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per value of ``keys`` (node, or node and rank): numbers summed (NaN only
    where no record has the attribute), text attributes as their distinct values joined
    by ','."""
    if not df.duplicated(keys).any():
        return df
    grouped = df.groupby(keys, sort=False)
    numeric = [c for c in df.columns if c not in keys and pd.api.types.is_numeric_dtype(df[c])]
    parts = [grouped[numeric].sum(min_count=1)] if numeric else []
    text = [c for c in df.columns if c not in keys and c not in numeric]
    if text:
        parts.append(grouped[text].agg(_join_distinct))
    out = pd.concat(parts, axis=1).reset_index() if parts else grouped.size().reset_index()[keys]
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


def _missing_rows(node: np.ndarray, rank, n: int) -> tuple[np.ndarray, np.ndarray | None]:
    """(node, rank) of each absent row: every node, for each rank 0..max with mpi.rank."""
    if rank is not None:
        if isinstance(rank, np.ndarray) and rank.dtype.kind in "iu":
            r = rank.astype(INT)
        else:
            r = pd.to_numeric(pd.Series(rank), errors="coerce").fillna(0).to_numpy().astype(INT)
        seen = np.zeros((n, int(r.max()) + 1 if len(r) else 1), bool)
        seen[node, r] = True
        miss_node, miss_rank = np.nonzero(~seen)
        return miss_node.astype(INT), miss_rank.astype(INT)
    seen = np.zeros(n, bool)
    seen[node] = True
    return np.flatnonzero(~seen).astype(INT), None


def _fill_missing(
    df: pd.DataFrame, value_attrs: list[str], node: np.ndarray, rank: np.ndarray | None
) -> pd.DataFrame:
    """A zero row for each absent (node[, rank]): value attributes 0, others missing."""
    if not len(node):
        return df
    fill = pd.DataFrame({"node": node} if rank is None else {"node": node, "mpi.rank": rank})
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
    if isinstance(value, (list, CaliPath)):
        return list(value)
    text = str(value)
    first = text[:1]
    # (speed) only text starting with a digit, sign, point, space or i/n (inf, nan) can
    # be a number: skip the failing int()/float() calls for the rest
    if first and (first.isdigit() or first.isspace() or first in "+-.iInN"):
        numeric = (int, float)
    else:
        numeric = ()
    for convert in numeric:
        try:
            return convert(text)
        except ValueError:
            pass
    if len(text) >= 2 and (text[0], text[-1]) in (("[", "]"), ("(", ")")):
        return [item.strip() for item in text[1:-1].split(",")]
    return text
