"""Caliper json-split files (``cali-query -q "... format json-split"``).

The file is one JSON object: ``nodes`` (a flat list of ``{label, column[, parent]}``
context-tree nodes), ``columns``/``column_metadata`` (names, and which columns are values)
and ``data`` (one list of values per record, where non-value columns hold indices into
``nodes``). Every other top-level key is run metadata.

The call tree is the hierarchy of the ``source.function#callpath.address`` column
(sampled call paths, preferred) or of ``path`` (annotated regions). Everything is parsed
column-wise with numpy/pandas: node labels, parents and record columns are arrays, and the
rows Hatchet adds for (node, rank) pairs without a record are added in one step.
"""

from __future__ import annotations

import io
import json
import re
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers._common import CALIPER_RENAMES as RENAMES
from perfweave.calltree.readers._common import (
    MAX_RANK,
    caliper_unit,
    check_rank_grid,
    load_json,
    node_order_key,
)
from perfweave.errors import OptionError, ParseError

INT = np.int64
_SECTIONS = ("data", "columns", "column_metadata", "nodes")
_CALLPATH = "source.function#callpath.address"
_SOURCELOC = "sourceloc#cali.sampler.pc"
_NODE_ORDER = "Node order"
_FILE_LINE = re.compile(r"(?P<file>.*):(?P<line>\d+)$")


def sniff(path: Path) -> bool:
    """A JSON object whose first or last bytes name the json-split sections."""
    if not path.is_file():
        return False
    with open(path, "rb") as f:
        head = f.read(4096)
        f.seek(max(0, path.stat().st_size - 4096))
        tail = f.read()
    if head.lstrip()[:1] != b"{":
        return False
    text = head + tail
    # "data" usually comes first and the nodes ({"column", "label"} objects) last
    return b'"column_metadata"' in text or all(
        k in text for k in (b'"data"', b'"column"', b'"label"')
    )


def read(source: Any, node_ordering: bool = True, query: str | None = None, **_: Any):
    """Read a json-split file (path, open stream, JSON text or parsed dict) into a GraphFrame.

    A ``.cali`` path is read natively (see :mod:`.cali`), where Hatchet would run cali-query.

    ``node_ordering`` (Hatchet's default True) orders siblings by the file's "Node order"
    column where it has one; otherwise siblings follow frame order. ``query`` (Hatchet's
    CalQL query for cali-query) is refused: see :func:`refuse_query`.
    """
    if query:
        refuse_query(source, query)
    if isinstance(source, (str, PathLike)) and str(source).endswith(".cali"):
        from perfweave.calltree.readers import cali  # a native file: no cali-query needed

        return cali.read(source, node_ordering=node_ordering)
    if hasattr(source, "read"):  # an open file or stream
        text = source.read()
        source = text.decode("utf-8") if isinstance(text, bytes) else text
    if isinstance(source, PathLike) or (
        isinstance(source, str) and not source.lstrip().startswith(("{", "[")) and _is_file(source)
    ):
        name = str(source)
        fast = _fast_load(Path(source).read_bytes())
        if fast is not None:
            obj, records = fast
            return from_dict(obj, name, node_ordering=node_ordering, _table=records)
    obj, name = load_json(source, "Caliper json-split")
    return from_dict(obj, name, node_ordering=node_ordering)


def refuse_query(source: Any, query: Any) -> None:
    """Raise :class:`OptionError` for a CalQL ``query``: Hatchet pipes a ``.cali`` file
    through Caliper's ``cali-query`` program with it; perfweave runs no external program
    and reads ``.cali`` files itself, so the message names what to do instead."""
    name = str(source) if isinstance(source, (str, PathLike)) else type(source).__name__
    if len(name) > 200:
        name = name[:200] + "..."
    raise OptionError(
        f"from_caliper({name!r}, query={str(query)[:200]!r}): a CalQL query needs Caliper's "
        "cali-query program, which perfweave does not run. Read the .cali file itself: "
        f"GraphFrame.from_caliper({name!r}) (or from_caliperreader) reads every attribute "
        "and metric natively; then choose rows with gf.filter(...) and columns from "
        "gf.dataframe. Or run cali-query yourself, with the query ending in 'format "
        'json-split\', e.g. cali-query -q "<query> format json-split" run.cali > run.json, '
        "and read run.json with GraphFrame.from_caliper('run.json')."
    )


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):  # not a usable path (too long, NUL ...)
        return False


# the same doubles as Python's json: pandas < 3 needs the round-trip converter, pandas 3
# parses exactly by default (and deprecates the option)
_EXACT_FLOATS = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
_DATA_FIRST = re.compile(rb"\s*\{\s*\"data\"\s*:\s*\[\s*\[")
_DATA_END = re.compile(rb"\]\s*\]")
_ROW_SEP = re.compile(rb"\s*\]\s*,\s*\[\s*")


def _fast_load(raw: bytes) -> tuple[dict, pd.DataFrame] | None:
    """Parse a json-split file whose first section is ``data`` with the C CSV parser.

    The records are flat lists of numbers and nulls (no strings): the ``data`` array is
    turned into CSV lines and parsed column-wise, the rest of the document with ``json``.
    Returns None (the caller then uses the plain JSON path, which reports errors exactly)
    whenever the file does not have that shape or any check fails.
    """
    head = _DATA_FIRST.match(raw)
    if head is None:
        return None
    start = raw.index(b"[", head.start())  # the data array's '['
    end_match = _DATA_END.search(raw, start)
    if end_match is None:
        return None
    span = raw[start : end_match.end()]
    if b'"' in span or b"{" in span:
        return None
    try:
        rest = json.loads(raw[:start] + b"[]" + raw[end_match.end() :])
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    columns = rest.get("columns") if isinstance(rest, dict) else None
    if not isinstance(columns, list) or not columns or not all(isinstance(c, str) for c in columns):
        return None
    # without the outer brackets and the first/last row's; then one record per line
    rows = span[1:-1].strip()[1:-1].strip()
    first = _ROW_SEP.search(rows)
    body = rows
    if first is not None:  # rows usually share one separator; else normalise each
        body = rows.replace(first.group(0), b"\n")
        if b"[" in body or b"]" in body:
            body = _ROW_SEP.sub(b"\n", rows)
    if b"[" in body or b"]" in body:
        return None
    # every record must have exactly one value per column
    chars = np.frombuffer(body, dtype=np.uint8)
    breaks = np.flatnonzero(chars == ord("\n"))
    commas = np.flatnonzero(chars == ord(","))
    bounds = np.concatenate([[-1], breaks, [len(chars)]])
    per_row = np.diff(np.searchsorted(commas, bounds))
    if len(per_row) == 0 or not (per_row == len(columns) - 1).all():
        return None
    try:
        table = pd.read_csv(
            io.BytesIO(body),
            header=None,
            names=list(range(len(columns))),
            skipinitialspace=True,
            na_values=["null"],
            keep_default_na=False,
            **_EXACT_FLOATS,
        )
    except (ValueError, pd.errors.ParserError):
        return None
    if len(table) != len(per_row) or any(not is_numeric_dtype(t) for t in table.dtypes):
        return None
    table.columns = columns
    return rest, table


def from_dict(
    obj: Any, name: str = "<dict>", node_ordering: bool = True, _table: pd.DataFrame | None = None
):
    """Build the GraphFrame from an already parsed json-split object (not modified).

    ``_table`` is the ``data`` section already parsed into columns (the fast file path).
    """
    if not isinstance(obj, dict):
        raise ParseError(
            name, "a JSON object with " + ", ".join(_SECTIONS), found=type(obj).__name__
        )
    missing = [k for k in _SECTIONS if k not in obj]
    if missing:
        raise ParseError(
            name, "json-split sections " + ", ".join(_SECTIONS), found=f"no {', '.join(missing)}"
        )
    columns, col_meta = obj["columns"], obj["column_metadata"]
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise ParseError(name, "'columns' as a list of names", found=columns)
    if not isinstance(col_meta, list) or len(col_meta) != len(columns):
        raise ParseError(
            name,
            f"'column_metadata' with one entry per column ({len(columns)})",
            found=f"{len(col_meta) if isinstance(col_meta, list) else type(col_meta).__name__}",
        )
    is_value, declared = [], []
    for i, md in enumerate(col_meta):
        if not isinstance(md, dict) or "is_value" not in md:
            raise ParseError(
                name,
                "column metadata with 'is_value'",
                position=f"column_metadata[{i}]",
                found=md,
            )
        is_value.append(bool(md["is_value"]))
        declared.append(md.get("attribute.unit"))
    metadata = {k: v for k, v in obj.items() if k not in _SECTIONS}

    if _CALLPATH in columns:
        path_col, node_type = _CALLPATH, "function"
        both = "path" in columns
    elif "path" in columns:
        path_col, node_type, both = "path", "region", False
    else:
        raise ParseError(
            name, f"a hierarchy column ('{_CALLPATH}' or 'path')", found=f"columns {columns}"
        )

    labels, node_col, node_parent = _node_table(obj["nodes"], name)
    records = _table if _table is not None else _records(obj["data"], columns, name)
    return _assemble(
        records,
        columns,
        is_value,
        labels,
        node_col,
        node_parent,
        path_col,
        node_type,
        both,
        node_ordering,
        metadata,
        name,
        declared,
    )


def _node_table(nodes: Any, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(label, column, parent) arrays of the ``nodes`` section; parent -1 for none."""
    if not isinstance(nodes, list):
        raise ParseError(name, "'nodes' as a list of node objects", found=type(nodes).__name__)
    try:
        table = pd.DataFrame.from_records(nodes, columns=["label", "column", "parent"])
    except (TypeError, ValueError, AttributeError) as exc:
        bad = next((i for i, n in enumerate(nodes) if not isinstance(n, dict)), None)
        raise ParseError(
            name,
            "node objects with 'label' and 'column'",
            position=f"nodes[{bad}]" if bad is not None else None,
            found=str(exc),
        ) from exc
    for key in ("label", "column"):
        gaps = table[key].isna().to_numpy()
        if gaps.any():
            i = int(np.flatnonzero(gaps)[0])
            raise ParseError(
                name, f"a '{key}' in every node", position=f"nodes[{i}]", found=nodes[i]
            )
    parent = pd.to_numeric(table["parent"], errors="coerce")
    bad = table["parent"].notna().to_numpy() & (
        parent.isna().to_numpy() | (parent.fillna(0).to_numpy() % 1 != 0)
    )
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ParseError(name, "an integer parent index", position=f"nodes[{i}]", found=nodes[i])
    parent_arr = parent.fillna(-1).to_numpy().astype(INT)
    label = table["label"].astype(str).to_numpy(dtype=object)
    # Hatchet names empty labels "UNKNOWN <k>", counting them in file order
    empty = label == ""
    if empty.any():
        k = np.cumsum(empty)[empty] - 1
        label[empty] = np.char.add("UNKNOWN ", k.astype(str)).astype(object)
    return label, table["column"].astype(str).to_numpy(dtype=object), parent_arr


def _records(data: Any, columns: list[str], name: str) -> pd.DataFrame:
    if not isinstance(data, list):
        raise ParseError(name, "'data' as a list of records", found=type(data).__name__)
    if not data:
        return pd.DataFrame({c: pd.Series(dtype=float) for c in columns})
    width = len(columns)
    if set(map(type, data)) != {list} or len(set(map(len, data))) != 1 or len(data[0]) != width:
        for i, row in enumerate(data):
            if not isinstance(row, list) or len(row) != width:
                raise ParseError(
                    name,
                    f"records of {width} values (one per column)",
                    position=f"data[{i}]",
                    found=row,
                )
    table = np.empty((len(data), width), dtype=object)
    table[:] = data  # rectangular (checked above): one C-level copy
    return pd.DataFrame({c: _column(table[:, j].tolist()) for j, c in enumerate(columns)})


def _column(values: list) -> np.ndarray | pd.Series:
    """One record column as a typed array: ints, floats (None -> NaN), else objects."""
    arr = np.asarray(values)
    if arr.dtype.kind in "iufb":
        return arr
    try:
        return np.asarray(values, dtype=float)  # numbers with nulls
    except (TypeError, ValueError):
        return pd.Series(values, dtype=object)


def _node_refs(values: pd.Series, n_nodes: int, col: str, name: str) -> np.ndarray:
    """Integer node indices of a reference column (-1 where null); checks the range."""
    num = pd.to_numeric(values, errors="coerce")
    given = values.notna().to_numpy()
    arr = num.to_numpy(dtype=float, na_value=np.nan)
    bad = given & (np.isnan(arr) | (arr % 1 != 0) | (arr < 0) | (arr >= n_nodes))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ParseError(
            name,
            f"indices into 'nodes' (0..{n_nodes - 1}) in column '{col}'",
            position=f"data row {values.index[i]}",
            found=str(values.iloc[i]),
        )
    return np.where(given, np.nan_to_num(arr, nan=-1), -1).astype(INT)


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (``inf``, not ``np.float64(inf)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _check_values(values: pd.Series, column: str, name: str) -> None:
    """A value (metric) column holds numbers: null where absent, never text or infinity.

    ParseError names the column, the data row and the value (a column whose
    ``column_metadata`` says ``is_value`` but holds names is refused here too).
    """
    if is_numeric_dtype(values) and values.dtype != bool:
        arr = values.to_numpy(dtype=float, na_value=np.nan)
        wrong = np.isinf(arr)
    else:
        num = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        given = values.notna().to_numpy()
        wrong = given & ~np.isfinite(num)
        if values.dtype == bool or any(isinstance(v, bool) for v in values.dropna()):
            wrong = given
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        raise ParseError(
            name,
            f"finite numbers (or null) in the value column {column!r}",
            position=f"data row {i}",
            found=repr(_plain(values.iloc[i])),
        )


def _assemble(
    records,
    columns,
    is_value,
    labels,
    node_col,
    node_parent,
    path_col,
    node_type,
    both,
    node_ordering,
    metadata,
    name,
    declared=(),
):
    n_raw = len(labels)
    bad_parent = (node_parent < -1) | (node_parent >= n_raw)
    if bad_parent.any():
        i = int(np.flatnonzero(bad_parent)[0])
        raise ParseError(
            name,
            f"a parent index into 'nodes' (0..{n_raw - 1})",
            position=f"nodes[{i}]",
            found=f"parent {node_parent[i]}",
        )
    in_tree = node_col == path_col
    raw_ids = np.flatnonzero(in_tree).astype(INT)
    compact = np.full(n_raw, -1, INT)
    compact[raw_ids] = np.arange(len(raw_ids), dtype=INT)
    par_raw = node_parent[raw_ids]
    outside = (par_raw >= 0) & (compact[np.maximum(par_raw, 0)] < 0)
    if outside.any():
        i = int(raw_ids[np.flatnonzero(outside)[0]])
        raise ParseError(
            name,
            f"a parent in the '{path_col}' hierarchy",
            position=f"nodes[{i}]",
            found=f"parent {node_parent[i]} ({node_col[node_parent[i]]})",
        )
    parent = np.where(par_raw >= 0, compact[np.maximum(par_raw, 0)], -1)
    names = labels[raw_ids]
    types = np.full(len(raw_ids), node_type, dtype=object)
    files = np.full(len(raw_ids), np.nan, dtype=object)
    lines = np.full(len(raw_ids), np.nan, dtype=object)
    nids = raw_ids.copy()

    # rename columns as Hatchet does; the hierarchy column becomes "nid"
    new_cols = ["nid" if c == path_col else RENAMES.get(c, c) for c in columns]
    df = records.set_axis(new_cols, axis=1)
    value_cols = [c for c, v in zip(new_cols, is_value) if v and c != "rank"]
    label_cols = [c for c, v in zip(new_cols, is_value) if not v and c != "nid"]

    if path_col in [c for c, v in zip(columns, is_value) if v]:
        raise ParseError(
            name,
            f"'is_value': false for the hierarchy column {path_col!r}",
            position=f"column_metadata[{columns.index(path_col)}]",
            found="true",
        )
    for c in value_cols:
        _check_values(df[c], c, name)
    df = df[df["nid"].notna()].reset_index(drop=True)
    ref = _node_refs(df["nid"], n_raw, path_col, name)
    node = compact[ref]
    if (node < 0).any():
        i = int(np.flatnonzero(node < 0)[0])
        raise ParseError(
            name,
            f"records that refer to '{path_col}' nodes",
            position=f"data row {i}",
            found=f"node {ref[i]} ({node_col[ref[i]]})",
        )
    df["nid"] = ref
    df["node"] = node
    if both:  # a secondary region hierarchy splits records: sum them per call path node
        keys = ["node", "nid"] + [k for k in ("rank", _SOURCELOC) if k in df.columns]
        agg = {c: "sum" for c in value_cols}
        agg.update({c: "first" for c in label_cols if c not in keys})
        df = df.groupby(keys, sort=False, dropna=False).agg(agg).reset_index()

    # reference columns hold node indices: replace them with labels
    for c in label_cols:
        refs = _node_refs(df[c], n_raw, c, name)
        text = np.where(refs >= 0, labels[np.maximum(refs, 0)], None)
        if c == _SOURCELOC:
            split = pd.Series(text, dtype=object).str.extract(_FILE_LINE)
            df = df.drop(columns=c)
            df["file"] = split["file"].to_numpy(dtype=object)
            df["line"] = split["line"].to_numpy(dtype=object)
        else:
            df[c] = text
    # mpi.rank is a value, or (is_value false) a reference whose label is the rank
    if "rank" in df.columns:
        ranks = pd.to_numeric(df["rank"], errors="coerce").astype(float)
        wrong = ranks.isna() | (ranks < 0) | (ranks > MAX_RANK) | (ranks % 1 != 0)
        if wrong.any():
            i = int(np.flatnonzero(wrong.to_numpy())[0])
            raise ParseError(
                name,
                f"an integer mpi.rank in 0..{MAX_RANK}",
                position=f"data row {i}",
                found=str(df["rank"].iloc[i]),
            )
        df["rank"] = ranks.astype(INT)

    extra = None
    if "line" in df.columns:
        df, extra = _split_statements(df, len(raw_ids), n_raw)
    if extra is not None:
        parent = np.concatenate([parent, extra["parent"]])
        names = np.concatenate([names, np.full(len(extra), np.nan, dtype=object)])
        types = np.concatenate([types, np.full(len(extra), "statement", dtype=object)])
        files = np.concatenate([files, extra["file"].to_numpy(dtype=object)])
        lines = np.concatenate([lines, extra["line"].to_numpy(dtype=object)])
        nids = np.concatenate([nids, extra["nid"].to_numpy(dtype=INT)])
        row_names = np.concatenate([labels[raw_ids], extra["name"].to_numpy(dtype=object)])
    else:
        row_names = names
    n = len(parent)

    order_key = None
    if node_ordering and _NODE_ORDER in df.columns:
        order = pd.to_numeric(df[_NODE_ORDER], errors="coerce").to_numpy(dtype=float)
        order_key = node_order_key(n, df["node"].to_numpy(), order, by_appearance=False)
        df = df.drop(columns=_NODE_ORDER)
        value_cols = [c for c in value_cols if c != _NODE_ORDER]

    df = _fill_missing(df, n, nids, value_cols, name)
    df["name"] = row_names[df["node"].to_numpy()]

    frames = {"type": types, "name": names}
    if extra is not None:
        frames.update(file=files, line=lines)
    exc = [c for c in value_cols if "(inc)" not in c]
    inc = [c for c in value_cols if "(inc)" in c]
    default = "time" if "time" in value_cols else (inc or exc or ["time"])[0]
    # each metric's unit: its attribute.unit metadata, else what Caliper's name says
    units = {
        new: caliper_unit(old, unit, _whole(df[new]))
        for old, new, unit in zip(columns, new_cols, declared)
        if new in value_cols and caliper_unit(old, unit, _whole(df[new]))
    }
    return build_graphframe(
        pd.DataFrame(frames),
        df,
        parent=parent,
        exc_metrics=exc,
        inc_metrics=inc,
        default_metric=default,
        metadata=metadata,
        order_key=order_key,
        path=name,
        units=units,
    )


def _split_statements(df: pd.DataFrame, n_nodes: int, n_raw: int):
    """Give every call path node sampled at several source lines a child per line.

    Records move to their (file, line) child, the node itself keeps no record (the
    missing-row step gives it zeros). Returns the records and the new nodes' table.
    """
    has_line = df["line"].notna().to_numpy()
    located = df.loc[has_line, ["node", "file", "line"]]
    pairs = located.drop_duplicates()
    per_node = pairs.groupby("node").size()
    split_nodes = per_node.index[per_node.to_numpy() > 1]
    if len(split_nodes) == 0:
        return df, None
    stmts = pairs[pairs["node"].isin(split_nodes)].sort_values(["node", "line", "file"])
    stmts = stmts.reset_index(drop=True)
    stmts["new"] = np.arange(n_nodes, n_nodes + len(stmts), dtype=INT)
    moved = df.reset_index().merge(stmts, on=["node", "file", "line"], how="inner")
    new_node = df["node"].to_numpy().copy()
    new_node[moved["index"].to_numpy()] = moved["new"].to_numpy()
    nid = df["nid"].to_numpy().copy()
    nid[moved["index"].to_numpy()] = n_raw + moved["new"].to_numpy() - n_nodes
    df = df.assign(node=new_node, nid=nid)
    base = stmts["file"].astype(str).str.rsplit("/", n=1).str[-1]
    extra = pd.DataFrame(
        {
            "parent": stmts["node"].to_numpy(dtype=INT),
            "file": stmts["file"].to_numpy(dtype=object),
            "line": stmts["line"].to_numpy(dtype=object),
            "name": (base + ":" + stmts["line"].astype(str)).to_numpy(dtype=object),
            "nid": n_raw + stmts["new"].to_numpy() - n_nodes,
        }
    )
    return df, extra


def _fill_missing(
    df: pd.DataFrame, n: int, nids: np.ndarray, value_cols: list[str], name: str = "<dict>"
) -> pd.DataFrame:
    """Add a zero row for every node (and every rank 0..max) that has no record."""
    node = df["node"].to_numpy()
    if "rank" in df.columns:
        check_rank_grid(n, df["rank"].to_numpy(), name)
        n_ranks = int(df["rank"].max()) + 1 if len(df) else 1
        seen = np.zeros((n, n_ranks), bool)
        seen[node, df["rank"].to_numpy()] = True
        miss_node, miss_rank = np.nonzero(~seen)
        fill = pd.DataFrame({"node": miss_node.astype(INT), "rank": miss_rank.astype(INT)})
    else:
        seen = np.zeros(n, bool)
        seen[node] = True
        fill = pd.DataFrame({"node": np.flatnonzero(~seen).astype(INT)})
    if not len(fill):
        return df
    fill["nid"] = nids[fill["node"].to_numpy()]
    for c in value_cols:
        fill[c] = 0
    out = pd.concat([df, fill], ignore_index=True, sort=False)
    for c in value_cols:  # keep integer counters integral where no record lacked them
        if pd.api.types.is_integer_dtype(df[c]) and not out[c].isna().any():
            out[c] = out[c].astype(df[c].dtype)
    return out


def _whole(column: pd.Series) -> bool:
    """Whether every value of a column is a whole number (and there is one): JSON carries
    no attribute types, so this tells Caliper's integer microseconds from its seconds."""
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    values = values[np.isfinite(values)]
    return bool(len(values)) and bool(np.all(values == np.round(values)))
