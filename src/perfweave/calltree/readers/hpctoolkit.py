"""HPCToolkit databases: ``experiment.xml`` (the calling context tree) + ``*.metric-db``.

The XML is checked by expat (C speed, exact error positions); the calling context tree is
then tokenised with one regular expression and laid out with numpy (depths by cumulative
sums, parents by a search per depth level), so no Python code runs per XML element. Each
``*.metric-db`` file holds one (rank, thread)'s values: a 32-byte header and a big-endian
``float64`` matrix of (node id, metric). Semantics follow Hatchet's reader (node names,
frames, metric names, the exclusive values of statements subtracted from their parent
scope); the differences are listed in ``docs/calltree-readers.md``.
"""

from __future__ import annotations

import html
import re
import xml.parsers.expat
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.errors import ParseError

_MAGIC = b"HPCPROF-metricdb__"
_HEADER = 32  # magic (18) + version (5) + endianness (1) + nodes (4) + metrics (4)
_DB_NAME = re.compile(r"-(\d+)-(\d+)-([\w\d]+)-(\d+)-\d\.metric-db$")
_SECTION = "SecCallPathProfileData"
# one token: an opening, self-closing or closing tag (attributes captured whole)
_TAG = re.compile(r"<(/?)([A-Za-z_][\w.-]*)((?:\s+[\w.:-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>")
_ATTR = re.compile(r"([\w.:-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
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
    text = xml_path.read_bytes()
    _check_xml(text, xml_path)
    doc = text.decode("utf-8", errors="replace")
    tables = _tables(doc, xml_path)
    cct = _cct(doc, xml_path)
    nodes = _graph_nodes(cct, tables, xml_path)
    values, ranks, threads = _metric_dbs(directory, len(tables["metrics"]))
    return _assemble(nodes, tables["metrics"], values, ranks, threads, directory)


# ---------------------------------------------------------------------- experiment.xml
def _check_xml(text: bytes, path: Path) -> None:
    """Well-formedness by expat: a malformed or truncated file names line and column."""
    parser = xml.parsers.expat.ParserCreate()
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


def _line_of(doc: str, offset: int) -> int:
    return doc.count("\n", 0, offset) + 1


def _section(doc: str, tag: str, path: Path, required: bool = True) -> tuple[str, int]:
    """The text inside the first ``<tag ...>...</tag>`` and its offset."""
    m = re.search(rf"<{tag}(\s[^>]*)?>", doc)
    if m is None:
        if required:
            raise ParseError(path, f"a <{tag}> element", found="none")
        return "", 0
    end = doc.find(f"</{tag}>", m.end())
    return doc[m.end() : end], m.end()


def _tables(doc: str, path: Path) -> dict[str, Any]:
    """Load modules, files, procedures (id -> name) and metric names in MetricDB order."""
    out: dict[str, Any] = {}
    for key, table, entry in (
        ("modules", "LoadModuleTable", "LoadModule"),
        ("files", "FileTable", "File"),
        ("procedures", "ProcedureTable", "Procedure"),
        ("metricdb", "MetricDBTable", "MetricDB"),
    ):
        body, _ = _section(doc, table, path)
        names: dict[str, str] = {}
        for m in re.finditer(rf"<{entry}\s([^>]*?)/?>", body):
            attrs = {k: html.unescape(a if a else b) for k, a, b in _ATTR.findall(m.group(1))}
            if "i" not in attrs or "n" not in attrs:
                raise ParseError(path, f"<{entry}> with attributes i and n", found=m.group(0)[:80])
            names[attrs["i"]] = attrs["n"]
        out[key] = names
    if not out["metricdb"]:
        raise ParseError(path, "at least one <MetricDB> in the MetricDBTable", found="none")
    try:
        ids = sorted(out["metricdb"], key=int)
    except ValueError as exc:
        raise ParseError(path, "integer MetricDB ids", found=str(list(out["metricdb"]))) from exc
    out["metrics"] = [_RENAME.get(out["metricdb"][i], out["metricdb"][i]) for i in ids]
    return out


def _cct(doc: str, path: Path) -> dict[str, np.ndarray]:
    """The elements of the calling context tree as arrays (document order).

    Returns tag, parent (element index, -1 at top level) and the raw attributes
    i, n, f, l, lm (None where absent).
    """
    body, start = _section(doc, _SECTION, path)
    if "<!--" in body:
        body = re.sub(r"<!--.*?-->", lambda m: " " * len(m.group(0)), body, flags=re.S)
    leftover = _TAG.sub("", body)
    if leftover.strip():
        bad = leftover.strip()[:40]
        offset = start + body.find(bad.split()[0]) if bad.split() else start
        raise ParseError(
            path,
            f"only XML elements inside <{_SECTION}>",
            line=_line_of(doc, offset),
            found=bad,
        )
    tokens = _TAG.findall(body)
    n_tok = len(tokens)
    if n_tok == 0:
        raise ParseError(path, f"<PF> elements inside <{_SECTION}>", found="an empty section")
    closing = np.fromiter((t[0] == "/" for t in tokens), bool, n_tok)
    self_closing = np.fromiter((t[3] == "/" for t in tokens), bool, n_tok)
    names = np.array([t[1] for t in tokens], dtype=object)
    # depth before each token; an opening tag sits at that depth, a closing tag one above
    step = np.where(closing, -1, np.where(self_closing, 0, 1))
    before = np.concatenate([[0], np.cumsum(step)[:-1]])
    opening = ~closing
    o_idx = np.flatnonzero(opening)
    o_depth = before[o_idx]
    # the parent of an element: the last container opened one level up, before it
    containers = o_idx[~self_closing[o_idx]]
    key_scale = n_tok + 1
    c_key = before[containers] * key_scale + containers
    order = np.argsort(c_key, kind="stable")
    c_key, containers = c_key[order], containers[order]
    q = (o_depth - 1) * key_scale + o_idx
    at = np.searchsorted(c_key, q, side="right") - 1
    parent_tok = np.where(o_depth > 0, containers[np.maximum(at, 0)], -1)
    # closing tags must close the element of their own name
    c_idx = np.flatnonzero(closing)
    c_at = np.searchsorted(c_key, (before[c_idx] - 1) * key_scale + c_idx, side="right") - 1
    matched = containers[np.maximum(c_at, 0)] if len(containers) else np.zeros(0, np.int64)
    bad = (c_at < 0) | (names[matched] != names[c_idx]) if len(c_idx) else np.zeros(0, bool)
    if np.any(bad):  # expat has checked the document; this guards the regex tokeniser
        raise ParseError(path, "balanced tags in the calling context tree", found="a stray tag")
    tok_to_elem = np.full(n_tok, -1, np.int64)
    tok_to_elem[o_idx] = np.arange(len(o_idx))
    parent = np.where(parent_tok >= 0, tok_to_elem[np.maximum(parent_tok, 0)], -1)
    tags = names[o_idx].astype(str)
    unknown = ~np.isin(tags, list(_CCT_TAGS))
    if unknown.any():
        raise ParseError(
            path,
            "calling-context elements PF, Pr, L, S, C or M",
            found=f"<{tags[np.flatnonzero(unknown)[0]]}>",
        )
    top_bad = (parent < 0) & ~np.isin(tags, ["PF", "M"])
    if top_bad.any():
        raise ParseError(
            path,
            f"only <PF> (and <M>) at the top of <{_SECTION}>",
            found=f"<{tags[np.flatnonzero(top_bad)[0]]}>",
        )
    attrs = _attribute_columns([tokens[k][2] for k in o_idx], ("i", "n", "f", "l", "lm"))
    return {"tag": tags, "parent": parent, **attrs}


def _attribute_columns(attr_texts: list[str], wanted: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Columns of attribute values (object arrays, None where absent), one row per element."""
    n = len(attr_texts)
    # one findall over all elements, separated by a marker the attribute pattern skips
    joined = "\x00".join(attr_texts)
    pairs = re.findall(r"\x00|([\w.:-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", joined)
    keys = np.array([p[0] for p in pairs], dtype=object)
    vals = np.array([p[1] or p[2] for p in pairs], dtype=object)
    elem = np.cumsum(keys == "")  # element index of each attribute (markers have no key)
    out = {}
    for name in wanted:
        col = np.full(n, None, dtype=object)
        hit = keys == name
        col[elem[hit]] = vals[hit]
        out[name] = col
    return out


def _ints(values: np.ndarray, default: int = 0) -> np.ndarray:
    """Integer values of attributes such as ``l`` (a "beg-end" range gives its beginning)."""
    s = pd.Series(values, dtype=object).fillna(str(default)).astype(str)
    head = s.str.extract(r"^\s*(-?\d+)", expand=False)
    return head.fillna(str(default)).astype(np.int64).to_numpy()


def _lookup(
    values: np.ndarray, where: np.ndarray, table: dict[str, str], what: str, path: Path
) -> np.ndarray:
    """Names for table ids (on elements ``where``); a non-numeric value is a literal name,
    a missing id an error."""
    s = pd.Series(np.where(where, values, None), dtype=object)
    mapped = s.map(table)
    unresolved = s.notna() & mapped.isna()
    if unresolved.any():
        raw = s[unresolved].astype(str)
        numeric = raw.str.fullmatch(r"\d+")
        if numeric.any():
            raise ParseError(
                path, f"{what} ids listed in its table", found=f"id {raw[numeric].iloc[0]}"
            )
        mapped[unresolved] = raw
    return mapped.to_numpy(dtype=object)


def _node_ids(values: np.ndarray, path: Path) -> np.ndarray:
    ids = pd.Series(values, dtype=object).astype(str)
    ok = ids.str.fullmatch(r"\d+")
    if not ok.all():
        raise ParseError(path, "integer node ids (attribute i)", found=f"i={ids[~ok].iloc[0]}")
    return ids.astype(np.int64).to_numpy()


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
    proc_name = _lookup(cct["n"], proc, tables["procedures"], "procedure", path)
    if np.any(proc & pd.isna(proc_name)):
        k = int(np.flatnonzero(proc & pd.isna(proc_name))[0])
        raise ParseError(path, "an n (procedure) attribute on every PF/Pr", found=f"element {k}")
    scope_tag = proc | (tag == "L")
    file_name = _lookup(cct["f"], scope_tag, tables["files"], "file", path)
    module = _lookup(cct["lm"], proc, tables["modules"], "load module", path)
    line = _ints(cct["l"])
    # nameless procedures (Pr) and call sites (C) are not nodes: children move up
    is_node = np.isin(tag, ["PF", "Pr", "L", "S"]) & ~((tag == "Pr") & (proc_name == ""))
    if np.any(is_node & pd.isna(cct["i"])):
        k = int(np.flatnonzero(is_node & pd.isna(cct["i"]))[0])
        raise ParseError(path, "an i (node id) attribute on every PF/Pr/L/S", found=f"<{tag[k]}>")
    # a statement's (or file-less loop's) file is that of its nearest enclosing scope
    has_file = pd.notna(file_name)
    scope = _nearest(parent, has_file)
    file_eff = np.where(has_file, file_name, file_name[np.maximum(scope, 0)])
    file_eff = np.where(has_file | (scope >= 0), file_eff, None)
    graph_parent = _nearest(parent, is_node)
    # a procedure called from a line of its parent scope is named "line:name"
    parent_line = np.where(parent >= 0, line[np.maximum(parent, 0)], 0)
    prefix = np.where(parent_line != 0, parent_line.astype(str), "")
    name = np.full(len(tag), None, dtype=object)
    with_prefix = pd.Series(prefix[proc], dtype=object) + ":" + pd.Series(proc_name[proc])
    name[proc] = np.where(prefix[proc] != "", with_prefix.to_numpy(dtype=object), proc_name[proc])
    base = pd.Series(file_eff, dtype=object).fillna("").astype(str).str.rsplit("/", n=1).str[-1]
    base = base.to_numpy(dtype=object)
    loop, stmt = tag == "L", tag == "S"
    name[loop] = ("Loop@" + base[loop] + ":" + line[loop].astype(str)).astype(object)
    name[stmt] = (base[stmt] + ":" + line[stmt].astype(str)).astype(object)

    idx = np.flatnonzero(is_node)
    pos = np.full(len(tag), -1, np.int64)
    pos[idx] = np.arange(len(idx))
    gp = graph_parent[idx]
    kind = tag[idx]
    func = np.isin(kind, ["PF", "Pr"])
    line_n = line[idx].astype(object)
    nodes = pd.DataFrame(
        {
            "nid": _node_ids(cct["i"][idx], path),
            "parent": np.where(gp >= 0, pos[np.maximum(gp, 0)], -1),
            "name": name[idx],
            "type": kind,
            "file": file_eff[idx],
            "line": line[idx],
            "module": np.where(func, module[idx], None),
            "frame_type": np.where(func, "function", np.where(kind == "L", "loop", "statement")),
            "frame_name": np.where(func, name[idx], None),
            "frame_file": np.where(func, None, file_eff[idx]),
            "frame_line": np.where(func, None, line_n),
        }
    )
    nodes["is_statement"] = kind == "S"
    nodes["xml_parent_pos"] = np.where(parent[idx] >= 0, pos[np.maximum(parent[idx], 0)], -1)
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
def _assemble(nodes, metrics, values, ranks, threads, directory):
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
    )
