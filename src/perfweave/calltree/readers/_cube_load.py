"""What a Cube 4 file holds, taken out of pycubexr into plain arrays and tables.

pycubexr (the Extra-P project's reader of Cube 4) decodes the archive: the tar, its
``anchor.xml`` (metrics, regions, the calling-context tree of cnodes, the system tree of
machines, nodes, processes and threads) and each metric's ``<id>.index`` / ``<id>.data``
pair. This module walks pycubexr's objects once and gives the reader numpy arrays (cnodes
in preorder with their parents, one cnode x location matrix per metric) and small tables.
Whatever pycubexr raises on a broken file becomes a :class:`~perfweave.errors.ParseError`
naming the file, the part of it (the tar, ``anchor.xml``, a metric's index and data) and
what was expected there. Nothing here decides what the values mean (that is ``cube.py``).
"""

from __future__ import annotations

import os
import stat
import sys
import tarfile
import traceback
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import ParseError as XMLParseError

import numpy as np
import pandas as pd

from perfweave.calltree.readers._common import to_int
from perfweave.errors import ParseError

ARCHIVE = (
    "a Cube 4 archive (.cubex: a tar file holding anchor.xml and an <id>.index and "
    "<id>.data file per metric)"
)
ANCHOR = (
    "a Cube 4 anchor.xml: <metrics> of INCLUSIVE or EXCLUSIVE metrics, <program> with the "
    "regions and one root <cnode> whose calleeId names a region, <system> with one root "
    "<systemtreenode> holding <locationgroup>s of <location>s, each with a numeric Id and rank"
)


@dataclass
class CubeMetric:
    """One metric with values: Cube's unique name, kind (``INCLUSIVE``/``EXCLUSIVE``: how
    its values are stored), value type (``DOUBLE``, ``UINT64``, ``MINDOUBLE`` ...), unit of
    measurement as written (``sec``, ``occ``, ``bytes``, ``#``) and description; ``values``
    is a (cnode x location) matrix, cnodes in preorder, locations by id, in the file's
    numeric type (zeros where the file stores no value for a cnode)."""

    name: str
    kind: str
    data_type: str
    unit: str
    description: str
    values: np.ndarray


@dataclass
class CubeProfile:
    """A Cube file as arrays: the cnodes in preorder (``parent``: index of the parent
    cnode, -1 for a root; ``region``: row of ``regions``), the regions (``name``,
    ``file``, ``line``, ``end_line``, ``paradigm``), the locations by id, the system tree
    and the metrics that have values."""

    path: Path
    attrs: dict[str, str]
    cnode_id: np.ndarray
    parent: np.ndarray
    region: np.ndarray
    regions: pd.DataFrame
    locations: pd.DataFrame
    system: pd.DataFrame
    metrics: list[CubeMetric] = field(default_factory=list)
    #: metrics anchor.xml declares but the archive holds no values for (Score-P declares
    #: every metric it knows; only those it measured have data files)
    without_data: list[str] = field(default_factory=list)
    #: metrics of value types that are not one number per cnode and location, as
    #: ``name (TYPE)`` (histograms, scale functions, rates, TAU atomics, n-tuples, complex)
    unreadable: list[str] = field(default_factory=list)


def load(path: Path) -> CubeProfile:
    """Read the Cube 4 file ``path`` with pycubexr (see the module docstring)."""
    _check_regular_file(path)
    from pycubexr import CubexParser

    parser = CubexParser(path)
    try:
        _open(parser, path)
        cnode_id, parent, region, regions, cnodes = _cnodes(parser, path)
        locations, system = _system(parser, path)
        profile = CubeProfile(
            path=path,
            attrs={str(k): str(v) for k, v in parser._anchor_result.attrs.items()},
            cnode_id=cnode_id,
            parent=parent,
            region=region,
            regions=regions,
            locations=locations,
            system=system,
        )
        _metrics(parser, path, profile, cnodes)
        return profile
    finally:
        archive = getattr(parser, "_cubex_file", None)  # also when opening it failed half-way
        if archive is not None:
            archive.close()


def _check_regular_file(path: Path) -> None:
    """Only a regular file is opened: a FIFO would block, a device never end."""
    st = os.stat(path)  # FileNotFoundError for a missing file, as every reader
    if stat.S_ISDIR(st.st_mode):
        raise ParseError(path, ARCHIVE, found="a directory")
    if not stat.S_ISREG(st.st_mode):
        raise ParseError(path, f"{ARCHIVE} in a regular file", found="a special file")


def _found(exc: BaseException) -> str:
    """An exception as text; one without a message (pycubexr's ``assert``) by the source
    line that raised it (``assert hasattr(MetricType, metric_type)``)."""
    if str(exc):
        return f"{type(exc).__name__}: {exc}"
    frames = traceback.extract_tb(exc.__traceback__)
    line = frames[-1].line if frames else ""
    return f"{type(exc).__name__} at {line}" if line else type(exc).__name__


def _open(parser: Any, path: Path) -> None:
    """Open the archive and parse anchor.xml (pycubexr's ``__enter__``), naming what failed."""
    try:
        parser.__enter__()
    except PermissionError:
        raise
    except XMLParseError as exc:
        line, column = getattr(exc, "position", (None, None))
        raise ParseError(
            path,
            "well-formed XML in anchor.xml",
            position=f"anchor.xml line {line}, column {column}",
            found=str(exc),
        ) from None
    except RecursionError:
        raise ParseError(
            path,
            f"a cnode tree pycubexr can walk (it recurses: at most about "
            f"{sys.getrecursionlimit()} levels)",
            found="a deeper tree in anchor.xml",
        ) from None
    except Exception as exc:  # pycubexr's asserts, tarfile's and XML's errors
        raise _open_error(parser, path, exc) from None


def _open_error(parser: Any, path: Path, exc: Exception) -> ParseError:
    """The ParseError for a failure inside pycubexr's ``__enter__``: which stage failed is
    told by what pycubexr had set up before it (the archive, its member list)."""
    members = getattr(parser, "_tar_file_member_list", None)
    if members is None:  # the tar itself
        text = str(exc)
        if path.stat().st_size == 0:
            found = "an empty file"
        elif "could not be opened successfully" in text:
            found = "no tar archive (nor a gzip, bzip2 or xz compressed one)"
        elif "unexpected end of data" in text:
            found = "an archive that ends inside a member (cut short)"
        else:
            found = _found(exc)
        return ParseError(path, ARCHIVE, found=found)
    if "anchor.xml" not in members:
        shown = ", ".join(members[:6]) + (", ..." if len(members) > 6 else "")
        return ParseError(
            path,
            "anchor.xml in the Cube archive (written last: a file cut short loses it)",
            found=f"{len(members)} member(s): {shown}" if members else "an empty archive",
        )
    if isinstance(exc, (OSError, EOFError, zlib.error, tarfile.TarError)):
        return ParseError(
            path, "anchor.xml as XML or gzip-compressed XML (cut short?)", found=_found(exc)
        )
    return ParseError(path, ANCHOR, position="anchor.xml", found=_found(exc))


def _cnodes(parser: Any, path: Path):
    """Cnodes in preorder: ids, parent indices, region rows; the region table; the cnode
    objects (in the same order)."""
    roots = list(parser.get_root_cnodes())
    if not roots:
        raise ParseError(path, "at least one <cnode> in anchor.xml's <program>")
    ids: list[int] = []
    parents: list[int] = []
    cnodes: list[Any] = []
    stack = [(c, -1) for c in reversed(roots)]
    while stack:  # pycubexr's objects can only be walked one by one
        cnode, up = stack.pop()
        cnodes.append(cnode)
        ids.append(cnode.id)
        parents.append(up)
        here = len(ids) - 1
        stack.extend((child, here) for child in reversed(cnode.get_children()))
    if len(set(ids)) != len(ids):
        seen: set[int] = set()
        dup = next(i for i in ids if i in seen or seen.add(i))
        raise ParseError(path, "unique cnode ids in anchor.xml", found=f"cnode id {dup} twice")
    row_of: dict[int, int] = {}
    regions: list[dict] = []
    region = np.empty(len(cnodes), np.int64)
    for k, cnode in enumerate(cnodes):
        r = cnode.region if cnode.region is not None else parser.get_region(cnode)
        if r.id not in row_of:
            row_of[r.id] = len(regions)
            regions.append(
                {
                    "name": r.name or "",
                    "file": r.mod or "",
                    "line": r.begin,
                    "end_line": r.end,
                    "paradigm": r.paradigm or "",
                }
            )
        region[k] = row_of[r.id]
    table = pd.DataFrame(regions, columns=["name", "file", "line", "end_line", "paradigm"])
    table["line"] = table["line"].astype(np.int64)
    table["end_line"] = table["end_line"].astype(np.int64)
    return (np.asarray(ids, np.int64), np.asarray(parents, np.int64), region, table, cnodes)


def _system(parser: Any, path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(locations by id, system tree nodes) from anchor.xml's system tree.

    pycubexr parses the tree but offers only a flat list of locations; the hierarchy is
    read from its objects' child lists. A location's ``machine`` is the name of its
    system tree root, its ``node`` the name of the system tree node holding its process
    (``node quartz1``; on a Blue Gene ``nodecard 30``), its ``process`` the location
    group's name, ``rank`` the group's rank and ``thread`` the location's rank.
    """
    roots = getattr(parser._anchor_result, "system_tree_nodes", None) or []
    nodes: list[dict] = []
    locations: list[dict] = []
    stack = [(root, -1, 0, root.name or "") for root in reversed(roots)]
    while stack:
        stn, up, depth, machine = stack.pop()
        attrs = {str(k): v for k, v in (stn.attrs or {}).items()}
        nodes.append(
            {"id": stn.id, "parent": up, "depth": depth, "name": stn.name or ""}
            | ({"class": stn.clazz} if stn.clazz else {})
            | attrs
        )
        groups = list(getattr(stn, "_location_group_children", []))
        while groups:
            group = groups.pop(0)
            rank = to_int(group.rank, path, f"a numeric <rank> of location group {group.id}")
            for loc in getattr(group, "_locations", []):
                locations.append(
                    {
                        "location": loc.id,
                        "rank": rank,
                        "thread": to_int(loc.rank, path, f"a numeric <rank> of location {loc.id}"),
                        "name": loc.name or "",
                        "type": loc.type or "",
                        "process": group.name or "",
                        "process_type": group.type or "",
                        "node": stn.name or "",
                        "machine": machine,
                    }
                )
            groups.extend(getattr(group, "_location_groups", []))
        children = stn._system_tree_node_children
        stack.extend((c, stn.id, depth + 1, machine) for c in reversed(children))
    if not locations:
        raise ParseError(path, "at least one <location> in anchor.xml's system tree")
    table = pd.DataFrame(locations).sort_values("location", kind="stable")
    ids = table["location"].to_numpy()
    if not np.array_equal(ids, np.arange(len(ids))):
        bad = next(int(i) for k, i in enumerate(ids) if i != k)
        raise ParseError(
            path,
            f"location ids 0..{len(ids) - 1} (each once) in anchor.xml's system tree",
            found=f"location id {bad}",
        )
    return table.reset_index(drop=True), pd.DataFrame(nodes)


def _metrics(parser: Any, path: Path, profile: CubeProfile, cnodes: list) -> None:
    """Each metric's values as a (cnode x location) matrix, in metric-tree order."""
    from pycubexr.classes.values import MaxValues, MinValues
    from pycubexr.utils.exceptions import MissingMetricError, UnsupportedMetricFormatError

    n_loc = len(profile.locations)
    row_of = {int(cid): k for k, cid in enumerate(profile.cnode_id)}
    for root in parser.get_metrics():
        for metric in root.get_all_children():
            name = str(metric.name)
            try:
                stored = parser.get_metric_values(metric, cache=False)
            except MissingMetricError:
                profile.without_data.append(name)
                continue
            except UnsupportedMetricFormatError:
                profile.unreadable.append(f"{name} ({metric.data_type})")
                continue
            except PermissionError:
                raise
            except Exception as exc:  # pycubexr's asserts, struct, zlib, tar
                raise _values_error(path, metric, n_loc, exc) from None
            values = stored.values
            if isinstance(values, (MinValues, MaxValues)):
                values = values.astype(np.float64)
            elif not (
                isinstance(values, np.ndarray)
                and values.ndim == 1
                and values.dtype.names is None
                and values.dtype.kind in "iuf"
            ):
                profile.unreadable.append(f"{name} ({metric.data_type})")
                continue
            entries = stored.cnode_indices  # cnode id -> position of its values
            if len(values) != len(entries) * n_loc:
                raise _values_error(
                    path,
                    metric,
                    n_loc,
                    None,
                    found=f"{len(values)} values for {len(entries)} distinct cnodes "
                    f"x {n_loc} locations",
                )
            try:
                rows = np.fromiter((row_of[int(c)] for c in entries), np.int64, len(entries))
            except KeyError as exc:
                raise _values_error(path, metric, n_loc, None, found=f"cnode {exc}") from None
            at = np.fromiter(entries.values(), np.int64, len(entries))
            matrix = np.zeros((len(cnodes), n_loc), values.dtype)
            matrix[rows] = values.reshape(len(entries), n_loc)[at]
            profile.metrics.append(
                CubeMetric(
                    name=name,
                    kind=str(metric.metric_type),
                    data_type=str(metric.data_type),
                    unit=str(metric.units or ""),
                    description=str(metric.description or ""),
                    values=matrix,
                )
            )


def _values_error(
    path: Path, metric: Any, n_loc: int, exc: Exception | None, found: str | None = None
) -> ParseError:
    return ParseError(
        path,
        f"the values of metric {metric.name!r} in {metric.id}.index and {metric.id}.data "
        f"(CUBEX.INDEX then one tree index per stored cnode; CUBEX.DATA or ZCUBEX.DATA then "
        f"{n_loc} {metric.data_type} value(s) per stored cnode)",
        found=found if found is not None else _found(exc),
    )
