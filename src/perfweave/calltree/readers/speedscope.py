"""speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json), as
speedscope exports it and py-spy writes it (``py-spy record --format speedscope``).

A document holds ``shared.frames`` (``{name, file?, line?, col?}``) and ``profiles``, each
with a ``unit`` and a ``name``, of one of two types: ``evented`` (``events``: ``O`` opens
and ``C`` closes a frame at the value ``at``) or ``sampled`` (``samples``: stacks of frame
indices, root first, and their ``weights``).

* **Frames** ``{name, type: "function", file, line, col}`` (the attributes a file has).
  Frames equal in all of them are one frame, even where the file lists them twice.
* **Rows** per ``thread``: the profile's index in ``profiles`` (one profile per thread, as
  py-spy writes them); the ``profile_name`` column holds its name.
* **Metrics** in the profile's unit (``gf.units``): ``time`` and ``time (inc)`` for
  seconds, milliseconds, microseconds or nanoseconds (profiles in different time units are
  converted to seconds), ``bytes``/``bytes (inc)`` for bytes, ``weight``/``weight (inc)``
  for ``none``. A sampled profile's sample counts its weight exclusively at its leaf and
  inclusively on every node of its stack (a recursive function's levels are separate
  nodes, so never twice); an empty stack belongs to no frame and is not counted. An evented
  frame's inclusive value runs from its ``O`` to its ``C``, its exclusive value is that
  minus its callees'.
* **What speedscope refuses is a ParseError naming the event** (``profiles[p].events[k]``):
  a ``C`` that closes a frame other than the one on top, a ``C`` with nothing open, a frame
  still open at the end, ``at`` going back, a frame index out of range; also samples and
  weights of different lengths, a weight that is negative or not a finite number.
"""

from __future__ import annotations

import re
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.calltree._build import build_graphframe
from perfweave.calltree.readers._common import file_ends, load_json
from perfweave.calltree.readers._stacks import call_path_rows, stack_entries
from perfweave.errors import ParseError

_SCHEMA = re.compile(rb'"\$schema"\s*:\s*"https://www\.speedscope\.app/file-format-schema\.json"')
#: speedscope's value units -> (metric, perfweave unit)
_UNITS = {
    "none": ("weight", ""),
    "nanoseconds": ("time", "ns"),
    "microseconds": ("time", "µs"),
    "milliseconds": ("time", "ms"),
    "seconds": ("time", "s"),
    "bytes": ("bytes", "B"),
}
_SECONDS = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
_FRAME_KEYS = ("name", "file", "line", "col")
INT = np.int64


def sniff(path: Path) -> bool:
    """A JSON object with speedscope's ``$schema`` in its first or last 4 KiB."""
    head, tail = file_ends(path)
    if head.lstrip()[:1] != b"{":
        return False
    return _SCHEMA.search(head) is not None or _SCHEMA.search(tail) is not None


def read(source: Any, **_: Any):
    """Read a speedscope JSON file (a path, JSON text or the parsed dict)."""
    doc, name = load_json(source, "speedscope JSON")
    if not isinstance(doc, dict):
        raise ParseError(name, "a speedscope document (a JSON object)", found=type(doc).__name__)
    frames, frame_code, listed = _frames(doc, name)
    profiles = doc.get("profiles")
    if not isinstance(profiles, list) or not profiles:
        raise ParseError(name, "'profiles': a non-empty list", position="profiles", found=profiles)
    parts = [_profile(prof, p, listed, name) for p, prof in enumerate(profiles)]
    return _graphframe(doc, parts, frames, frame_code, name)


# ---------------------------------------------------------------------- frames
def _frames(doc: dict, name: str) -> tuple[pd.DataFrame, np.ndarray, list[str]]:
    """The distinct frames (attributes present in the file), each listed frame's code and
    the listed frames' names."""
    shared = doc.get("shared")
    listed = shared.get("frames") if isinstance(shared, dict) else None
    if not isinstance(listed, list):
        raise ParseError(name, "'shared.frames': a list of frames", position="shared", found=shared)
    keys = []
    for i, frame in enumerate(listed):
        where = f"shared.frames[{i}]"
        if not isinstance(frame, dict) or not isinstance(frame.get("name"), str):
            raise ParseError(
                name, "a frame object with a 'name' string", position=where, found=frame
            )
        file = frame.get("file")
        if file is not None and not isinstance(file, str):
            raise ParseError(name, "'file' as a string", position=where, found=file)
        for key in ("line", "col"):
            value = frame.get(key)
            if value is not None and not (type(value) is int and 0 <= value < 2**63):
                raise ParseError(
                    name, f"'{key}' as a whole number >= 0", position=where, found=value
                )
        keys.append(tuple(frame.get(k) for k in _FRAME_KEYS))
    codes: dict[tuple, int] = {}
    code = [codes.setdefault(key, len(codes)) for key in keys]
    table = pd.DataFrame(list(codes), columns=list(_FRAME_KEYS), dtype=object)
    table.insert(1, "type", "function")
    for key in _FRAME_KEYS[1:]:
        if table[key].isna().all():
            table = table.drop(columns=key)
        elif key != "file" and table[key].notna().all():
            table[key] = table[key].astype(INT)
    return table, np.asarray(code, dtype=INT), [key[0] for key in keys]


# ---------------------------------------------------------------------- profiles
class _Part:
    """One profile's entries: parent entry, depth, listed frame index, and the values each
    adds exclusively and inclusively; its metric, unit and name."""

    def __init__(self, metric: str, unit: str, label: str) -> None:
        self.metric, self.unit, self.label = metric, unit, label
        empty = np.empty(0, INT)
        self.parent, self.depth, self.frame = empty, empty, empty
        self.exc, self.inc = np.empty(0), np.empty(0)


def _profile(prof: Any, p: int, listed: list[str], name: str) -> _Part:
    where = f"profiles[{p}]"
    if not isinstance(prof, dict):
        raise ParseError(name, "a profile object", position=where, found=prof)
    unit = prof.get("unit")
    if unit not in _UNITS:
        raise ParseError(
            name, f"'unit' one of {', '.join(_UNITS)}", position=where, found=repr(unit)
        )
    label = prof.get("name")
    part = _Part(*_UNITS[unit], label if isinstance(label, str) else f"profile {p}")
    kind = prof.get("type")
    if kind == "evented":
        _evented(part, prof.get("events"), listed, name, where)
    elif kind == "sampled":
        _sampled(part, prof.get("samples"), prof.get("weights"), len(listed), name, where)
    else:
        raise ParseError(name, "'type' 'evented' or 'sampled'", position=where, found=repr(kind))
    return part


def _indices(values: list, n_frames: int, name: str, where) -> np.ndarray:
    """Frame indices as int64, each a whole number in 0..n_frames-1; ``where(k)`` names the
    place of the k-th value in errors."""
    bad = next((k for k, v in enumerate(values) if type(v) is not int), None)
    if bad is None:
        try:
            out = np.array(values, dtype=INT)
        except OverflowError:
            out = None
        if out is not None:
            wrong = np.flatnonzero((out < 0) | (out >= n_frames))
            if not len(wrong):
                return out
            bad = int(wrong[0])
        else:
            bad = next(k for k, v in enumerate(values) if not -(2**63) <= v < 2**63)
    raise ParseError(
        name,
        f"a frame index, a whole number in 0..{n_frames - 1} (shared.frames)",
        position=where(bad),
        found=repr(values[bad]),
    )


def _numbers(values: list, what: str, name: str, where, *, at_least: float | None) -> np.ndarray:
    """Finite JSON numbers as float64 (``at_least``: their lower bound)."""
    bad = next((k for k, v in enumerate(values) if type(v) not in (int, float)), None)
    if bad is None:
        try:
            out = np.array(values, dtype=float)
        except OverflowError:  # an integer beyond float64
            out = np.array([v if abs(v) < 2**1023 else np.inf for v in values], dtype=float)
        wrong = ~np.isfinite(out)
        if at_least is not None:
            wrong |= out < at_least
        if not wrong.any():
            return out
        bad = int(np.flatnonzero(wrong)[0])
    bound = "" if at_least is None else f" >= {at_least:g}"
    raise ParseError(
        name, f"{what}: a finite number{bound}", position=where(bad), found=repr(values[bad])
    )


def _evented(part: _Part, events: Any, listed: list[str], name: str, where: str) -> None:
    """Calls of an evented profile: each O paired with the C that closes it, checked as
    speedscope checks them (a stack, replayed all at once by nesting depth)."""
    if not isinstance(events, list):
        raise ParseError(name, "'events': a list", position=where, found=events)

    def at_event(k: int) -> str:
        return f"{where}.events[{k}] (profile {part.label!r})"

    bad = next((k for k, e in enumerate(events) if not isinstance(e, dict)), None)
    if bad is not None:
        raise ParseError(name, "an event object", position=at_event(bad), found=events[bad])
    kinds = [e.get("type") for e in events]
    bad = next((k for k, t in enumerate(kinds) if t not in ("O", "C")), None)
    if bad is not None:
        raise ParseError(name, "'type' 'O' or 'C'", position=at_event(bad), found=repr(kinds[bad]))
    frame = _indices([e.get("frame") for e in events], len(listed), name, at_event)
    at = _numbers([e.get("at") for e in events], "'at'", name, at_event, at_least=None)
    back = np.flatnonzero(at[1:] < at[:-1])
    if len(back):
        k = int(back[0]) + 1
        raise ParseError(
            name,
            f"'at' never going back (the event before is at {at[k - 1]:g})",
            position=at_event(k),
            found=f"at {at[k]:g}",
        )
    opens = np.array([t == "O" for t in kinds], dtype=bool)
    after = np.cumsum(np.where(opens, 1, -1))  # frames open after each event
    level = np.where(opens, after - 1, after)  # the depth an event opens or closes at
    under = np.flatnonzero(after < 0)
    valid = int(under[0]) if len(under) else len(events)  # events before the first error
    o, c = _pairs(level[:valid])
    wrong = np.flatnonzero(frame[o] != frame[c])
    first = wrong[np.argmin(c[wrong])] if len(wrong) else None  # the first such C in the file
    if first is not None and int(c[first]) < valid:
        k, top = int(c[first]), int(o[first])
        raise ParseError(
            name,
            f"a 'C' event closing the frame on top, frame {frame[top]} "
            f"({listed[frame[top]]!r}, opened by event {top})",
            position=at_event(k),
            found=f"'C' of frame {frame[k]} ({listed[frame[k]]!r})",
        )
    if valid < len(events):
        raise ParseError(
            name,
            "a 'C' event closing an open frame",
            position=at_event(valid),
            found=f"'C' of frame {frame[valid]} ({listed[frame[valid]]!r}) with no frame open",
        )
    if len(events) and after[-1] > 0:
        still = np.setdiff1d(np.flatnonzero(opens), o)  # O events never closed
        k = int(still[0])
        raise ParseError(
            name,
            "every frame closed by the end of the profile",
            position=at_event(k),
            found=f"'O' of frame {frame[k]} ({listed[frame[k]]!r}) never closed "
            f"({int(after[-1])} left open)",
        )
    _calls(part, o, c, level, frame, at, name, where)


def _pairs(level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(O, C) event indices of each pair, O ascending. At each depth the events alternate
    O, C, O, C (when nothing closes below depth 0): an O's C is the next event at its depth."""
    n = len(level)
    order = np.argsort(level, kind="stable")
    lv = level[order]
    same = np.zeros(n, bool)
    same[:-1] = lv[1:] == lv[:-1]
    first = np.ones(n, bool)
    first[1:] = lv[1:] != lv[:-1]
    start = np.maximum.accumulate(np.where(first, np.arange(n), 0)) if n else np.zeros(0, INT)
    is_open = ((np.arange(n) - start) % 2 == 0) & same
    o = order[is_open]
    c = order[np.flatnonzero(is_open) + 1]
    ascending = np.argsort(o, kind="stable")
    return o[ascending], c[ascending]


def _calls(part: _Part, o: np.ndarray, c: np.ndarray, level, frame, at, name, where) -> None:
    """The calls (O, C pairs, O ascending) as entries: parent call, depth, values."""
    depth = level[o]
    n = len(o)
    key = depth * (len(level) + 1) + o  # calls sorted by (depth, O)
    by_key = np.argsort(key, kind="stable")
    # a call's parent: the last call one level up that opened before it
    pos = np.searchsorted(key[by_key], (depth - 1) * (len(level) + 1) + o) - 1
    parent = np.where(depth > 0, by_key[np.maximum(pos, 0)], -1)
    with np.errstate(over="ignore"):
        inclusive = at[c] - at[o]
    if not np.isfinite(inclusive).all():
        k = int(np.flatnonzero(~np.isfinite(inclusive))[0])
        raise ParseError(
            name,
            "a frame's duration within float64",
            position=f"{where}.events[{int(c[k])}] (profile {part.label!r})",
            found=f"'O' at {at[o[k]]:g}, 'C' at {at[c[k]]:g}",
        )
    callees = np.bincount(parent[parent >= 0], weights=inclusive[parent >= 0], minlength=n)
    part.parent, part.depth, part.frame = parent.astype(INT), depth.astype(INT), frame[o]
    part.inc, part.exc = inclusive, inclusive - callees


def _sampled(part: _Part, samples: Any, weights: Any, n_frames: int, name: str, where: str):
    """Entries of a sampled profile's stacks (root first), weighted by their sample."""
    if not isinstance(samples, list):
        raise ParseError(name, "'samples': a list of stacks", position=where, found=samples)
    if not isinstance(weights, list) or len(weights) != len(samples):
        found = f"{len(weights)} weights" if isinstance(weights, list) else repr(weights)
        raise ParseError(
            name, f"'weights': a list of {len(samples)} numbers, one per sample", position=where,
            found=found,
        )  # fmt: skip
    bad = next((k for k, s in enumerate(samples) if not isinstance(s, list)), None)
    if bad is not None:
        raise ParseError(
            name, "a stack (a list of frame indices)", position=f"{where}.samples[{bad}]",
            found=samples[bad],
        )  # fmt: skip
    lengths = np.fromiter(map(len, samples), dtype=INT, count=len(samples))
    ends = np.cumsum(lengths)

    def at_sample(k: int) -> str:
        return f"{where}.samples[{int(np.searchsorted(ends, k, side='right'))}]"

    flat = _indices(list(chain.from_iterable(samples)), n_frames, name, at_sample)
    weight = _numbers(weights, "a weight", name, lambda k: f"{where}.weights[{k}]", at_least=0.0)
    with np.errstate(over="ignore"):
        total = weight.sum()
    if not np.isfinite(total):
        raise ParseError(name, "weights whose sum is within float64", position=where)
    parent, depth, stack, leaf = stack_entries(lengths[lengths > 0])
    sample_of = np.flatnonzero(lengths > 0)[stack]
    part.parent, part.depth, part.frame = parent, depth, flat
    part.inc = weight[sample_of]
    part.exc = np.where(leaf, part.inc, 0.0)


# ---------------------------------------------------------------------- frame
def _graphframe(doc: dict, parts: list[_Part], frames, frame_code, name):
    sizes = np.array([len(part.frame) for part in parts], dtype=INT)
    if not sizes.sum():
        raise ParseError(
            name, "at least one frame on a stack (a sample or an O/C pair)", found="none"
        )
    offsets = np.cumsum(sizes) - sizes
    parent = np.concatenate(
        [np.where(part.parent >= 0, part.parent + off, -1) for part, off in zip(parts, offsets)]
    )
    depth = np.concatenate([part.depth for part in parts])
    frame = frame_code[np.concatenate([part.frame for part in parts])]
    cell = np.repeat(np.arange(len(parts), dtype=INT), sizes)
    time_units = {part.unit for part in parts if part.metric == "time"}
    scale = [
        _SECONDS[part.unit] if part.metric == "time" and len(time_units) > 1 else 1.0
        for part in parts
    ]
    metrics = list(dict.fromkeys(part.metric for part in parts))
    values = {}
    for metric in metrics:
        mine = [part.metric == metric for part in parts]
        for column, attr in ((metric, "exc"), (f"{metric} (inc)", "inc")):
            values[column] = np.concatenate(
                [getattr(part, attr) * s if m else np.zeros(len(part.frame))
                 for part, s, m in zip(parts, scale, mine)]
            )  # fmt: skip
    node_parent, node_frame, table = call_path_rows(parent, depth, frame, cell, values)
    thread = table.pop("cell").to_numpy()
    for metric in metrics:  # a thread that measured another unit has no value here
        other = np.array([part.metric != metric for part in parts])[thread]
        table.loc[other, [metric, f"{metric} (inc)"]] = np.nan
    table["thread"] = thread
    table["profile_name"] = np.array([part.label for part in parts], dtype=object)[thread]
    units = {}
    for metric in metrics:
        unit = (
            "s"
            if metric == "time" and len(time_units) > 1
            else next(part.unit for part in parts if part.metric == metric)
        )
        if unit:
            units[metric] = units[f"{metric} (inc)"] = unit
    metadata = {
        k: doc[k]
        for k in ("name", "exporter", "version", "activeProfileIndex")
        if isinstance(doc.get(k), (str, int, float)) and not isinstance(doc.get(k), bool)
    }
    metadata["profiles"] = [part.label for part in parts]
    return build_graphframe(
        frames.iloc[node_frame].reset_index(drop=True),
        table,
        parent=node_parent,
        exc_metrics=metrics,
        inc_metrics=[f"{m} (inc)" for m in metrics],
        default_metric=f"{metrics[0]} (inc)",  # a sample or span counts for its callers too
        metadata=metadata,
        path=name,
        units=units or None,
    )
