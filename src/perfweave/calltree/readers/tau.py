"""TAU profile directories: one ``profile.RANK.CONTEXT.THREAD`` text file per rank/thread.

A file lists ``N`` functions after a two-line header, each as
``"name" calls subrs exclusive inclusive profilecalls GROUP="..."``. With callpath
profiling, entries named ``a => b => c`` give the calling context tree; the plain entries
are per-function totals and are not nodes (except the top-level timer). Several metrics
are several directories (``MULTI__TIME/``, ``MULTI__PAPI_L2_TCM/``, ...) holding the same
files. Node names, columns and the rank/thread index follow Hatchet's reader; differences
are listed in ``docs/calltree-readers.md``.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.errors import ParseError, SkippedInputWarning

_FILE = re.compile(r"^profile\.(\d+)\.(\d+)\.(\d+)$")
_COUNT = re.compile(r"^\s*(\d+)\s+templated_functions")
_ENTRY = re.compile(r'^"(?P<name>.*)"\s+(?P<nums>[-+\d.eE\s]+?)(?:\s+GROUP="(?P<group>.*)")?\s*$')
_LINES = re.compile(r"\{.*\}\]")


def sniff(path: Path) -> bool:
    """A directory with profile.R.C.T files, itself or in a metric subdirectory."""
    if not path.is_dir():
        return False
    try:
        places = [path, *sorted(p for p in path.iterdir() if p.is_dir())]
        first = next((f for d in places for f in sorted(d.iterdir()) if _FILE.match(f.name)), None)
        if first is None:
            return False
        with open(first, "rb") as f:
            return _COUNT.match(f.readline().decode("utf-8", errors="replace")) is not None
    except OSError:
        return False


def _metric_dirs(root: Path) -> list[tuple[Path, list[Path]]]:
    """Directories (sorted) that hold profile.R.C.T files, with those files.

    A *directory* named like a profile file is skipped with a SkippedInputWarning.
    """
    out = []
    for dirpath, dirnames, files in os.walk(root):
        dirnames.sort()
        for name in [d for d in dirnames if _FILE.match(d)]:  # not a metric directory
            dirnames.remove(name)
            warnings.warn(
                SkippedInputWarning(
                    f"{Path(dirpath) / name}: skipped: a directory where a TAU profile "
                    "file was expected (its rank/thread is missing from the profile)"
                ),
                stacklevel=4,
            )
        profiles = sorted(
            (Path(dirpath) / f for f in files if _FILE.match(f)),
            key=lambda p: tuple(int(x) for x in _FILE.match(p.name).groups()),
        )
        if profiles:
            out.append((Path(dirpath), profiles))
    return out


# ---------------------------------------------------------------------- one file
@dataclass
class _Profile:
    metric: str
    entries: list[tuple[str, list[float], int]]  # (quoted name, values, line number)


def _parse_file(path: Path) -> _Profile:
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    m = _COUNT.match(lines[0]) if lines else None
    if m is None:
        raise ParseError(
            path, "a TAU header 'N templated_functions...'", line=1, found=(lines or [""])[0]
        )
    count = int(m.group(1))
    header = lines[1] if len(lines) > 1 else ""
    cols = re.match(r"#\s*(.*?)\s*#", header)
    if cols is None or cols.group(1).split()[:5] != ["Name", "Calls", "Subrs", "Excl", "Incl"]:
        raise ParseError(
            path, "the column line '# Name Calls Subrs Excl Incl ProfileCalls #'", line=2
        )
    metric = _metric_name(header, lines[0])
    if metric is None:
        raise ParseError(path, "a metric name in the header metadata", line=2, found=header)
    if len(lines) < 2 + count:
        raise ParseError(
            path,
            f"{count} function lines after the header",
            line=len(lines),
            found=f"{max(len(lines) - 2, 0)} (truncated file)",
        )
    entries = []
    for k in range(2, 2 + count):
        e = _ENTRY.match(lines[k])
        nums = e.group("nums").split() if e else []
        if e is None or len(nums) < 4:
            raise ParseError(
                path,
                '"name" calls subrs exclusive inclusive profilecalls GROUP="..."',
                line=k + 1,
                found=lines[k],
            )
        try:
            values = [float(v) for v in nums[:4]]
        except ValueError as exc:
            raise ParseError(path, "numbers after the name", line=k + 1, found=lines[k]) from exc
        entries.append((e.group("name"), values, k + 1))
    return _Profile(metric, entries)


def _metric_name(header: str, first: str) -> str | None:
    m = re.search(r"<name>Metric Name</name><value>(.*?)</value>", header)
    m = m or re.search(r"<value>(.*?)</value>", header)
    name = m.group(1) if m else None
    if name is None:
        multi = re.search(r"templated_functions_MULTI_(\S+)", first)
        name = multi.group(1) if multi else ("TIME" if "templated_functions" in first else None)
    if name in ("TIME", "CPU_TIME"):
        return "time"
    return name


# ---------------------------------------------------------------------- names
def _describe(raw: str, as_parent: bool) -> tuple[str, str | None, str | None]:
    """(name, file, module) of a callpath element, by TAU's naming conventions.

    ``[UNWIND] <file> [@] <name> [{<module>} {<line>}]``, ``<name> C [{<file>} {...}]``,
    ``[<type>] <name> [{<file>} {<lines>}]``, ``[<type>] <name> <module path>``, ``<name>``.
    An ancestor in a callpath is only named (Hatchet's rule for nodes first seen there).
    """
    name, file, module = raw, None, None
    try:
        if " C " in raw:
            parts = raw.split(" C ")
            name = parts[0]
            if not as_parent and "[{" in parts[1]:
                file = parts[1].split()[0].strip("}[{")
        elif " [@] " in raw:
            parts = raw.split(" [@] ")
            if as_parent:
                return "[UNWIND] " + parts[1].split()[0], None, None
            file = parts[0].split()[1]
            if "[{" in parts[1]:
                pieces = parts[1].split(" [{")
                module = pieces[1].split()[0].strip("}")
            else:
                pieces = parts[1].split()
                module = pieces[1]
            if module in file:
                if ".so" in file:
                    file = None
                if ".c" in module:
                    module = None
            name = "[UNWIND] " + pieces[0]
        elif "[{" in raw:
            pieces = raw.split(" [{")
            name = pieces[0]
            if not as_parent:
                file = pieces[1].split()[0].strip("}{")
        else:
            tokens = raw.split()
            if len(tokens) == 3 and "/" in raw:
                name = tokens[0] + " " + tokens[1]
                module = None if as_parent else tokens[2]
    except IndexError:  # an element that fits none of the forms keeps its raw text
        return raw, None, None
    return name, file, module


def _line_range(raw: str) -> tuple[int, int]:
    """Start and end line from ``[{file} {12,1}-{30,1}]`` / ``{15,0}`` / ``{15}``."""
    m = _LINES.search(raw) if "[{" in raw else None
    tokens = m.group(0).split() if m else []
    if len(tokens) < 2:
        return 0, 0
    nums = tokens[1].strip("}]").replace("{", "")
    if "-" in nums:
        a, b = nums.split("-")[:2]
        start, end = a.split(",")[0], b.split(",")[0]
    elif "," in nums:
        start, end = nums.split(",")[:2]
    else:
        start, end = nums, "0"
    try:
        return int(start), int(end)
    except ValueError:
        return 0, 0


# ---------------------------------------------------------------------- the tree
@dataclass
class _Tree:
    names: list[str] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)
    ids: dict[tuple[int, str], int] = field(default_factory=dict)  # (parent, element) -> id

    def node(self, path: tuple[str, ...], as_parent: bool) -> int:
        """The node of a callpath, creating it (and missing ancestors) on first sight.

        Walked from the top without recursion: a callpath may be any number of calls deep.
        """
        pid, last = -1, len(path) - 1
        for depth, raw in enumerate(path):
            nid = self.ids.get((pid, raw))
            if nid is None:
                nid = self.ids[(pid, raw)] = len(self.names)
                leaf = depth == last and not as_parent
                top_entry = leaf and depth == 0  # a top-level timer keeps its text
                self.names.append(raw if top_entry else _describe(raw, not leaf)[0])
                self.parent.append(pid)
            pid = nid
        return pid


def read(path: str | PathLike[str], **_: Any):
    """Read a TAU profile directory (one or several metric subdirectories) into a GraphFrame."""
    root = Path(path)
    if not root.is_dir():
        raise ParseError(
            root, "a TAU profile directory (profile.R.C.T files)", found="not a directory"
        )
    metric_dirs = _metric_dirs(root)
    if not metric_dirs:
        raise ParseError(root, "profile.RANK.CONTEXT.THREAD files", found="none")
    layout = [f.name for f in metric_dirs[0][1]]
    for d, files in metric_dirs[1:]:
        if [f.name for f in files] != layout:
            raise ParseError(
                d,
                f"the same profile files as {metric_dirs[0][0]}",
                found=str([f.name for f in files][:4]),
            )

    tree = _Tree()
    rows: list[dict[str, Any]] = []
    seen: set[tuple[int, int]] = set()
    metric_names: list[str] = []
    for k, name in enumerate(layout):
        rank, _, thread = (int(x) for x in _FILE.match(name).groups())
        if (rank, thread) in seen:
            raise ParseError(metric_dirs[0][1][k], "one profile per (rank, thread)", found=name)
        seen.add((rank, thread))
        profiles = [_parse_file(files[k]) for _, files in metric_dirs]
        if not metric_names:
            metric_names = [p.metric for p in profiles]
        rows.extend(_rows_of(profiles, [files[k] for _, files in metric_dirs], tree, rank, thread))
    return _assemble(tree, rows, metric_names, root)


def _rows_of(profiles: list[_Profile], files: list[Path], tree: _Tree, rank: int, thread: int):
    first = profiles[0]
    for p, f in zip(profiles[1:], files[1:]):
        if len(p.entries) != len(first.entries):
            raise ParseError(
                f, f"{len(first.entries)} functions as in {files[0]}", found=str(len(p.entries))
            )
    callpaths = [
        tuple(part.strip(" ") for part in name.split("=>")) for name, _, _ in first.entries
    ]
    tops = {cp[0] for cp in callpaths if len(cp) > 1}
    has_paths = bool(tops)
    done: set[tuple[str, ...]] = set()
    for j, ((raw, values, line), cp) in enumerate(zip(first.entries, callpaths)):
        # with callpaths, the plain entries are totals: only top-level timers are nodes
        is_root_entry = len(cp) == 1 and (j == 0 or cp[0] in tops or not has_paths)
        if len(cp) == 1 and not is_root_entry:
            continue
        if cp in done:
            raise ParseError(files[0], "each callpath once per profile", line=line, found=raw)
        done.add(cp)
        for p, f in zip(profiles[1:], files[1:]):
            if p.entries[j][0] != raw:
                raise ParseError(
                    f,
                    f"the same function as {files[0]}",
                    line=p.entries[j][2],
                    found=p.entries[j][0],
                )
        nid = tree.node(cp, False)
        leaf = cp[-1]
        name, file, module = _describe(leaf, False) if len(cp) > 1 else (leaf, None, None)
        start, end = _line_range(leaf) if len(cp) > 1 else (0, 0)
        row = {
            "node": nid,
            "rank": rank,
            "thread": thread,
            "name": name,
            "file": file,
            "module": module,
            "line": start,
            "end_line": end,
            "Calls": values[0],
            "Subrs": values[1],
        }
        for p in profiles:
            excl, incl = p.entries[j][1][2:4]
            row[p.metric] = excl
            row[p.metric + " (inc)"] = incl
        yield row


def _assemble(tree: _Tree, rows: list[dict], metrics: list[str], root: Path):
    if not tree.names:
        raise ParseError(root, "at least one function in the profiles", found="none")
    data = pd.DataFrame(rows)
    value_cols = ["Calls", "Subrs"] + [c for m in metrics for c in (m, m + " (inc)")]
    pairs = data[["rank", "thread"]].drop_duplicates().sort_values(["rank", "thread"])
    n, k = len(tree.names), len(pairs)
    full = pd.DataFrame(
        {
            "node": np.repeat(np.arange(n, dtype=np.int64), k),
            "rank": np.tile(pairs["rank"].to_numpy(), n),
            "thread": np.tile(pairs["thread"].to_numpy(), n),
        }
    )
    # every node gets a row for every (rank, thread): absent means it did not run there
    data = full.merge(data, on=["node", "rank", "thread"], how="left")
    firsts = data.groupby("node")[["name", "file", "module"]].first()
    for col in ("name", "file", "module"):
        known = firsts[col].reindex(data["node"]).to_numpy(dtype=object)
        values = data[col].to_numpy(dtype=object)
        data[col] = np.where(pd.isna(values), known, values)
        data[col] = data[col].astype(object).where(data[col].notna(), None)
    for col in ("line", "end_line"):
        data[col] = data[col].fillna(0).astype(np.int64)
    for col in value_cols:
        data[col] = data[col].fillna(0.0).astype(np.float64)
    multi_rank = bool((data["rank"] != 0).any())
    multi_thread = bool((data["thread"] != 0).any())
    drop = [c for c, keep in (("rank", multi_rank), ("thread", multi_thread)) if not keep]
    data = data.drop(columns=drop)
    return build_graphframe(
        [{"type": "function", "name": nm} for nm in tree.names],
        data,
        parent=tree.parent,
        exc_metrics=list(metrics),
        inc_metrics=[m + " (inc)" for m in metrics],
        default_metric="time (inc)" if "time" in metrics else metrics[0] + " (inc)",
        path=root,
        units={"time": "µs"} if "time" in metrics else None,  # TAU writes TIME in µs
    )
