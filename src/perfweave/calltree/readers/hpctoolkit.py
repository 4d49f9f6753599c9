"""HPCToolkit databases: ``experiment.xml`` (the calling context tree) + ``*.metric-db``.

One expat pass (C speed, exact error positions) collects the name tables and the tree's
elements into lists; everything after that is numpy/pandas over those columns: graph
parents and enclosing files by pointer jumping up the ancestors, names by string columns,
the statements' exclusive values moved out of their parents with one ``np.add.at``. Each
``*.metric-db`` file holds one (rank, thread)'s values: a 32-byte header and a big-endian
``float64`` matrix of (node id, metric), read as one block. Semantics follow Hatchet's
reader (node names, frames, metric names, statements subtracted from their parent scope);
the differences are listed in ``docs/calltree-readers.md``.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.display import metric_unit
from perfweave.errors import ParseError

_MAGIC = b"HPCPROF-metricdb__"
_HEADER = 32  # magic (18) + version (5) + endianness (1) + nodes (4) + metrics (4)
_DB_NAME = re.compile(r"-(\d+)-(\d+)-([\w\d]+)-(\d+)-\d\.metric-db$")
_SECTION = "SecCallPathProfileData"
_CCT_TAGS = {"PF", "Pr", "L", "S", "C", "M"}
_RENAME = {
    "CPUTIME (usec) (E)": "time",
    "CPUTIME (sec) (E)": "time",
    "CPUTIME (usec) (I)": "time (inc)",
    "CPUTIME (sec) (I)": "time (inc)",
}


def sniff(path: Path) -> bool:
    xml_path = path / "experiment.xml" if path.is_dir() else path
    if xml_path.name != "experiment.xml" or not xml_path.is_file():
        return False
    with open(xml_path, "rb") as f:
        return b"HPCToolkitExperiment" in f.read(4096)


def read(path: str | PathLike[str], **_: Any):
    """Read an HPCToolkit database directory (or its ``experiment.xml``) into a GraphFrame."""
    root = Path(path)
    directory = root.parent if root.is_file() else root
    xml_path = directory / "experiment.xml"
    if not xml_path.is_file():
        raise ParseError(directory, "an HPCToolkit database directory with experiment.xml")
    tables, cct = _scan(xml_path.read_bytes(), xml_path)
    nodes = _graph_nodes(cct, tables, xml_path)
    values, ranks, threads = _metric_dbs(directory, len(tables["metrics"]))
    return _assemble(nodes, tables["metrics"], values, ranks, threads, directory, tables["units"])


# ---------------------------------------------------------------------- experiment.xml
_TABLES = {
    "LoadModule": "modules",
    "File": "files",
    "Procedure": "procedures",
    "MetricDB": "metricdb",
}
_WANTED = ("i", "n", "f", "l", "lm")


def _scan(text: bytes, path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """One expat pass: the name tables and the calling context tree's elements.

    Expat (C) checks the XML and reports a malformed or truncated file with its line and
    column; the handlers only append to lists, and the columns are built afterwards.
    """
    tables: dict[str, Any] = {key: {} for key in _TABLES.values()}
    bad_entries: list[str] = []
    tags: list[str] = []
    parents: list[int] = []
    attrs: list[dict[str, str]] = []
    stack: list[int] = []
    state = {"in_cct": False, "seen": False}

    def start(tag: str, a: dict[str, str]) -> None:
        if state["in_cct"]:
            if tag == "M":  # inline metric values (summaries): not part of the tree
                stack.append(stack[-1])
                return
            parents.append(stack[-1])
            stack.append(len(tags))
            tags.append(tag)
            attrs.append(a)
        elif tag == _SECTION:
            state["in_cct"] = state["seen"] = True
            stack.append(-1)
        elif tag in _TABLES:
            if "i" in a and "n" in a:
                tables[_TABLES[tag]][a["i"]] = a["n"]
            else:
                bad_entries.append(f"<{tag} {a}>")

    def end(tag: str) -> None:
        if state["in_cct"]:
            stack.pop()
            if not stack:
                state["in_cct"] = False

    parser = xml.parsers.expat.ParserCreate()
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text, True)
    except xml.parsers.expat.ExpatError as exc:
        raise ParseError(
            path,
            "well-formed XML (HPCToolkit experiment.xml)",
            line=exc.lineno,
            position=f"column {exc.offset + 1}",
            found=xml.parsers.expat.ErrorString(exc.code),
        ) from exc
    if bad_entries:
        raise ParseError(path, "table entries with attributes i and n", found=bad_entries[0])
    if not state["seen"]:
        raise ParseError(path, f"a <{_SECTION}> element", found="none")
    if not tables["metricdb"]:
        raise ParseError(path, "at least one <MetricDB> in the MetricDBTable", found="none")
    try:
        ids = sorted(tables["metricdb"], key=int)
    except ValueError as exc:
        raise ParseError(path, "integer MetricDB ids", found=str(list(tables["metricdb"]))) from exc
    tables["metrics"] = [_RENAME.get(tables["metricdb"][i], tables["metricdb"][i]) for i in ids]
    # the unit a metric's name declares (CPUTIME (usec)) stays with its renamed column
    tables["units"] = {
        new: metric_unit(tables["metricdb"][i])
        for i, new in zip(ids, tables["metrics"])
        if metric_unit(tables["metricdb"][i])
    }

    tag_arr = np.array(tags, dtype=object).astype(str) if tags else np.zeros(0, str)
    parent = np.array(parents, dtype=np.int64)
    if not len(tag_arr) or not np.any(tag_arr == "PF"):
        raise ParseError(path, f"<PF> elements inside <{_SECTION}>", found="none")
    unknown = ~np.isin(tag_arr, list(_CCT_TAGS))
    if unknown.any():
        raise ParseError(
            path,
            "calling-context elements PF, Pr, L, S, C or M",
            found=f"<{tag_arr[np.flatnonzero(unknown)[0]]}>",
        )
    top_bad = (parent < 0) & ~np.isin(tag_arr, ["PF", "M"])
    if top_bad.any():
        raise ParseError(
            path,
            f"only <PF> (and <M>) at the top of <{_SECTION}>",
            found=f"<{tag_arr[np.flatnonzero(top_bad)[0]]}>",
        )
    columns = {name: np.array([a.get(name) for a in attrs], dtype=object) for name in _WANTED}
    return tables, {"tag": tag_arr, "parent": parent, **columns}


def _ints(values: np.ndarray, path: Path, what: str, default: int = 0) -> np.ndarray:
    """Integer values of attributes such as ``l`` (a "beg-end" range gives its beginning).

    A value that is a number but not an integer of int64 (``inf``, ``1e400``, 20 digits)
    is a ParseError naming it; text that is no number at all keeps ``default``.
    """
    s = pd.Series(values, dtype=object)
    num = pd.to_numeric(s, errors="coerce")
    odd = num.isna() & s.notna()
    if odd.any():
        head = s[odd].astype(str).str.extract(r"^\s*(-?\d+)", expand=False)
        num[odd] = pd.to_numeric(head, errors="coerce")
    arr = num.to_numpy(dtype=float, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        bad = np.isinf(arr) | (np.abs(arr) >= 2.0**63) | (arr % 1 != 0) & np.isfinite(arr)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ParseError(path, f"an integer {what}", position=f"element {k}", found=values[k])
    return num.fillna(default).astype(np.int64).to_numpy()


def _codes(
    values: np.ndarray, where: np.ndarray, table: dict[str, str], what: str, path: Path
) -> tuple[np.ndarray, np.ndarray]:
    """Codes (-1 where absent) into a name array, for table ids on elements ``where``.

    A non-numeric value is a literal name (the DTD allows both); a numeric id missing
    from its table is an error. Only the distinct values are looked up.
    """
    codes, uniq = pd.factorize(np.where(where, values, None))
    names = []
    for u in uniq:
        if u in table:
            names.append(table[u])
        elif str(u).isdigit():
            raise ParseError(path, f"{what} ids listed in its table", found=f"id {u}")
        else:
            names.append(str(u))
    return codes.astype(np.int64), np.array(names + [""], dtype=object)


def _node_ids(values: np.ndarray, path: Path) -> np.ndarray:
    ids = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce")
    bad = ids.isna() | (ids != ids.round())
    if bad.any():
        raise ParseError(
            path, "integer node ids (attribute i)", found=f"i={values[bad.to_numpy()][0]}"
        )
    return ids.to_numpy(np.int64)


def _nearest(parent: np.ndarray, target: np.ndarray) -> np.ndarray:
    """For every element, its nearest strict ancestor where ``target`` holds (or -1)."""
    cur = parent.copy()
    while True:
        walk = (cur >= 0) & ~target[np.maximum(cur, 0)]
        if not walk.any():
            return cur
        cur[walk] = parent[cur[walk]]


def _graph_nodes(cct: dict[str, np.ndarray], tables: dict[str, Any], path: Path) -> pd.DataFrame:
    """One row per graph node: nid, graph parent (row index), frame and dataframe columns."""
    tag, parent = cct["tag"], cct["parent"]
    proc = np.isin(tag, ["PF", "Pr"])
    proc_code, proc_names = _codes(cct["n"], proc, tables["procedures"], "procedure", path)
    if np.any(proc & (proc_code < 0)):
        k = int(np.flatnonzero(proc & (proc_code < 0))[0])
        raise ParseError(path, "an n (procedure) attribute on every PF/Pr", found=f"element {k}")
    scope_tag = proc | (tag == "L")
    file_code, file_names = _codes(cct["f"], scope_tag, tables["files"], "file", path)
    mod_code, mod_names = _codes(cct["lm"], proc, tables["modules"], "load module", path)
    line = _ints(cct["l"], path, "line (l)")
    # nameless procedures (Pr) and call sites (C) are not nodes: children move up
    nameless = proc_names[proc_code] == ""
    is_node = np.isin(tag, ["PF", "Pr", "L", "S"]) & ~((tag == "Pr") & nameless)
    if np.any(is_node & pd.isna(cct["i"])):
        k = int(np.flatnonzero(is_node & pd.isna(cct["i"]))[0])
        raise ParseError(path, "an i (node id) attribute on every PF/Pr/L/S", found=f"<{tag[k]}>")
    # a statement's (or file-less loop's) file is that of its nearest enclosing scope
    has_file = file_code >= 0
    scope = _nearest(parent, has_file)
    file_eff = np.where(has_file, file_code, np.where(scope >= 0, file_code[scope], -1))
    graph_parent = _nearest(parent, is_node)

    idx = np.flatnonzero(is_node)
    pos = np.full(len(tag), -1, np.int64)
    pos[idx] = np.arange(len(idx))
    kind = tag[idx]
    func = np.isin(kind, ["PF", "Pr"])
    loop = kind == "L"
    n_line = line[idx]
    n_file = file_eff[idx]
    line_txt = n_line.astype(str).astype(object)
    # a procedure called from a line of its parent scope is named "line:name"
    xml_parent = parent[idx]
    parent_line = np.where(xml_parent >= 0, line[np.maximum(xml_parent, 0)], 0)
    # text columns as object arrays joined with "+" (elementwise str concatenation in C;
    # numpy 1.26 has no np.strings)
    pname = proc_names[proc_code[idx]].astype(str).astype(object)
    prefixed = parent_line.astype(str).astype(object) + ":" + pname
    base = np.array([f.rsplit("/", 1)[-1] for f in file_names], dtype=object)[n_file]
    where = base.astype(str).astype(object) + ":" + line_txt
    name = np.where(
        func,
        np.where(parent_line != 0, prefixed, pname),
        np.where(loop, "Loop@" + where, where),
    ).astype(object)
    file_col = np.where(n_file >= 0, file_names[n_file], None)
    gp = graph_parent[idx]
    nodes = pd.DataFrame(
        {
            "nid": _node_ids(cct["i"][idx], path),
            "parent": np.where(gp >= 0, pos[np.maximum(gp, 0)], -1),
            "name": name,
            "type": kind.astype(object),
            "file": file_col,
            "line": n_line,
            "module": np.where(func, mod_names[mod_code[idx]], None),
            "frame_type": np.where(func, "function", np.where(loop, "loop", "statement")),
            "frame_name": np.where(func, name, None),
            "frame_file": np.where(func, None, file_col),
            "frame_line": np.where(func, None, n_line.astype(object)),
        }
    )
    nodes["is_statement"] = kind == "S"
    nodes["xml_parent_pos"] = np.where(xml_parent >= 0, pos[np.maximum(xml_parent, 0)], -1)
    return nodes


# ---------------------------------------------------------------------- metric-db files
def _metric_dbs(directory: Path, n_metrics: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Values (files, node ids, metrics) and the rank and thread of every file."""
    files = sorted(directory.glob("*.metric-db"))
    if not files:
        raise ParseError(directory, "*.metric-db files beside experiment.xml", found="none")
    ranks, threads, blocks = [], [], []
    shape = None
    for f in files:  # one read per (rank, thread) file; the values are one numpy block
        m = _DB_NAME.search(f.name)
        if m is None:
            raise ParseError(
                f, "a metric-db name ending -RANK-THREAD-HOST-PID-N.metric-db", found=f.name
            )
        with open(f, "rb") as fh:
            head = fh.read(_HEADER)
            if len(head) < _HEADER or not head.startswith(_MAGIC):
                raise ParseError(f, "an HPCPROF-metricdb header", found=repr(head[:24]))
            if head[23:24] != b"b":
                raise ParseError(
                    f, "big-endian metric-db data ('b')", position=23, found=repr(head[23:24])
                )
            n_nodes, n_db_metrics = (int(v) for v in np.frombuffer(head[24:32], ">i4"))
            if n_db_metrics != n_metrics:
                raise ParseError(
                    f,
                    f"{n_metrics} metrics (as the MetricDBTable of experiment.xml lists)",
                    position=28,
                    found=str(n_db_metrics),
                )
            if shape is not None and shape != (n_nodes, n_db_metrics):
                raise ParseError(
                    f, f"{shape[0]} nodes like the other metric-db files", found=str(n_nodes)
                )
            shape = (n_nodes, n_db_metrics)
            data = np.fromfile(fh, dtype=">f8", count=n_nodes * n_db_metrics)
        if data.size != n_nodes * n_db_metrics:
            raise ParseError(
                f,
                f"{n_nodes * n_db_metrics} values after the header",
                position=_HEADER + data.size * 8,
                found=f"{data.size} (truncated file)",
            )
        blocks.append(data.reshape(n_nodes, n_db_metrics))
        ranks.append(int(m.group(1)))
        threads.append(int(m.group(2)))
    ranks_a, threads_a = np.array(ranks, np.int64), np.array(threads, np.int64)
    pairs = ranks_a * (threads_a.max() + 1) + threads_a
    if len(np.unique(pairs)) != len(pairs):
        dup = files[int(np.flatnonzero(pd.Series(pairs).duplicated().to_numpy())[0])]
        raise ParseError(dup, "one metric-db file per (rank, thread)", found="a duplicate")
    return np.stack(blocks).astype(np.float64), ranks_a, threads_a


# ---------------------------------------------------------------------- GraphFrame
def _assemble(nodes, metrics, values, ranks, threads, directory, units=None):
    n_files, n_db_nodes, _ = values.shape
    nid = nodes["nid"].to_numpy()
    if len(nid) and (nid.min() < 1 or nid.max() > n_db_nodes):
        bad = int(nid[(nid < 1) | (nid > n_db_nodes)][0])
        raise ParseError(
            directory / "experiment.xml",
            f"node ids 1..{n_db_nodes} (as the metric-db files hold)",
            found=f"i={bad}",
        )
    exc_cols = [j for j, m in enumerate(metrics) if "(inc)" not in m and "(I)" not in m]
    vals = values[:, nid - 1, :].copy()  # (files, graph nodes, metrics)
    # statements: their exclusive values leave the enclosing node (Hatchet's rule)
    stmt = np.flatnonzero(nodes["is_statement"].to_numpy())
    target = nodes["xml_parent_pos"].to_numpy()[stmt]
    keep = target >= 0
    if keep.any() and exc_cols:
        src = values[:, nid[stmt[keep]] - 1, :][:, :, exc_cols]
        moved = np.zeros((n_files, len(nid), len(exc_cols)))
        np.add.at(moved, (slice(None), target[keep]), src)
        vals[:, :, exc_cols] -= moved
    n = len(nid)
    data = pd.DataFrame(vals.reshape(n_files * n, len(metrics)), columns=metrics)
    data["node"] = np.tile(np.arange(n, dtype=np.int64), n_files)
    data["rank"] = np.repeat(ranks, n)
    if np.any(threads != 0):
        data["thread"] = np.repeat(threads, n)
    for col in ("nid", "name", "type", "file", "line", "module"):
        data[col] = np.tile(nodes[col].to_numpy(), n_files)
    frames = pd.DataFrame(
        {
            "name": nodes["frame_name"].to_numpy(dtype=object),
            "type": nodes["frame_type"].to_numpy(dtype=object),
            "file": nodes["frame_file"].to_numpy(dtype=object),
            "line": nodes["frame_line"].to_numpy(dtype=object),
        }
    )
    frames = frames.loc[:, [c for c in frames.columns if frames[c].notna().any()]]
    if "name" not in frames.columns:
        frames["name"] = None
    inc = [m for m in metrics if "(inc)" in m or "(I)" in m]
    exc = [m for m in metrics if m not in inc]
    return build_graphframe(
        frames,
        data,
        parent=nodes["parent"].to_numpy(),
        exc_metrics=exc,
        inc_metrics=inc,
        default_metric="time" if "time" in metrics else (exc or inc)[0],
        metadata={"hpctoolkit_database": str(directory)},
        path=directory,
        units=units,
    )
