"""Caliper timeseries ``.cali`` files: one profile per iteration block, as one Ensemble.

A Caliper timeseries run (``CALI_CONFIG=...,timeseries``) writes snapshot records in time
order; each record of the main loop carries ``loop.start_iteration``, the first iteration
of the block it measures. As Hatchet's ``GraphFrame.from_timeseries`` does, the records
are cut into blocks where that value changes (records without it stay in the current
block); a block's records of one call path are averaged into its row. Records of the
first snapshot (``timeseries.snapshot == 0``: set-up before the loop, e.g. ``main`` and
``init``) are carried into every later block with their ``loop.iterations``,
``loop.start_iteration`` and ``timeseries.snapshot`` only, so those nodes stay in each
iteration's table with the loop attributes and no measurements.

All blocks share one call tree (every path of the file). The Ensemble's profile ids are
the blocks' start iterations, also in the metadata column ``iteration``.
"""

from __future__ import annotations

from os import PathLike
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree.graphframe import GraphFrame
from perfweave.calltree.readers import cali
from perfweave.calltree.readers.toolkit import CALIPER_RENAMES, is_int64, node_order_key
from perfweave.ensemble.ensemble import Ensemble
from perfweave.errors import ParseError

_CARRIED = ("loop.iterations", "loop.start_iteration", "timeseries.snapshot")
_SNAPSHOT = "timeseries.snapshot"


def read_timeseries(
    source: str | PathLike[str] | Any,
    level: str = "loop.start_iteration",
    native: bool = False,
    node_ordering: bool = True,
) -> Ensemble:
    """Read a Caliper timeseries ``.cali`` file into an Ensemble of per-iteration profiles.

    ``level`` is the attribute whose changes start a new profile; ``native`` keeps
    Caliper's attribute names; ``node_ordering`` as in :func:`perfweave.read`.
    """
    contents, name = cali.load_contents(source)
    tree = cali.SnapshotTree(contents.records)
    if not tree.labels:
        raise ParseError(name, "snapshot records with a 'path' attribute", found="none")
    block, starts = _blocks(contents.records, tree.kept, level, name)
    cols = cali.attribute_columns(contents, tree.kept, set(), name)
    cols = {c: np.asarray(cali.as_float(v)) for c, v in cols.items() if c != "spot.channel"}
    node = np.asarray(tree.row_node, dtype=np.int64)
    records = pd.DataFrame({"node": node, **cols})
    renames = {
        c: c if native else CALIPER_RENAMES.get(_alias(contents, c), _alias(contents, c))
        for c in cols
    }
    value = [c for c in cols if cali.is_value(contents, c)]
    ignored = {*cali.NOT_METRICS}
    exc = [renames[c] for c in value if c not in ignored and renames[c] not in ignored]
    inc = [m for m in exc if "(inc)" in m or "inclusive" in m]
    exc = [m for m in exc if m not in inc]
    default = "time" if "time" in exc + inc else (inc or exc or ["time"])[0]
    frames = pd.DataFrame({"name": tree.labels, "type": tree.types})
    parent = np.asarray(tree.parent, dtype=np.int64)
    order_key = _order_key(records, len(tree.labels)) if node_ordering else None
    meta = cali.parse_globals(contents.globals)

    gfs = []
    carried = records.iloc[:0][["node", *[c for c in _CARRIED if c in records]]]
    for b in range(len(starts)):
        own = records[block == b]
        rows = pd.concat([own, carried], ignore_index=True) if len(carried) else own
        means = rows.groupby("node", sort=True).mean()  # NaN-skipping, as Hatchet's
        means = means.dropna(axis=1, how="all").reset_index()
        table = means.rename(columns=renames).drop(
            columns=[c for c in cali.ORDER_NAMES if c in renames.values()], errors="ignore"
        )
        table["nid"] = table["node"].astype(float)
        table["name"] = np.asarray(tree.labels, dtype=object)[table["node"].to_numpy()]
        gfs.append(
            GraphFrame.from_records(
                frames,
                table,
                parent=parent,
                exc_metrics=[m for m in exc if m in table],
                inc_metrics=[m for m in inc if m in table],
                default_metric=default,
                metadata=dict(meta),
                order_key=order_key,
                path=name,
            )
        )
        if _SNAPSHOT in rows:
            first = rows[rows[_SNAPSHOT] == 0.0]
            carried = first[["node", *[c for c in _CARRIED if c in rows]]]
    ids = [int(s) for s in starts]
    return Ensemble.from_graphframes(
        gfs, [{"iteration": i} for i in ids], profiles=ids, sources=[name] * len(ids)
    )


def _alias(contents, attribute: str) -> str:
    a = contents.attribute(attribute)
    return (a.alias if a is not None else None) or attribute


def _blocks(records: list[dict], kept: list[dict], level: str, name: str):
    """The block of each kept record, and each block's ``level`` value, in file order."""
    current, starts = 0, [0]
    block_of: dict[int, int] = {}
    seen_level = False
    for rec in records:
        value = rec.get(level)
        if value is not None:
            seen_level = True
            try:
                step = int(float(value))
            except (TypeError, ValueError, OverflowError):  # text, nan, inf or 1e400
                step = None
            if not is_int64(step):
                raise ParseError(
                    name, f"a whole number as the value of {level!r}", found=repr(value)
                )
            if step != current:
                starts.append(step)
                current = step
        block_of[id(rec)] = len(starts) - 1
    if not seen_level:
        raise ParseError(
            name,
            f"a Caliper timeseries file (records with {level!r})",
            found=f"no record with {level!r}",
        )
    return np.asarray([block_of[id(r)] for r in kept], dtype=np.int64), starts


def _order_key(records: pd.DataFrame, n: int) -> np.ndarray:
    """Siblings in Caliper's node order where recorded, else first appearance."""
    slot = next((a for a in cali.NODE_ORDER_ATTRS if a in records), None)
    if slot is None:
        return np.arange(n, dtype=np.int64)
    return node_order_key(n, records["node"].to_numpy(), records[slot].to_numpy(dtype=float))
