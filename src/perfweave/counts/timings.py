"""Timing, location and communicator files of a profiler results directory, as DataFrames.

- ``<coll>_execution_times.rank<R>_comm<C>_job<J>.md`` and ``<coll>_late_arrival_times...``:
  ``# Call <n>`` sections with one time in seconds per communicator rank.
- ``<coll>_locations_comm<C>_rank<R>.md``: the world ranks, PIDs and host of each
  communicator rank, for the calls listed.
- ``<coll>_comm_data_rank<R>.md``: ``ID: <comm>; world rank: <rank>`` lines.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from perfweave.counts._fields import MAX_RANKS, read_uint
from perfweave.counts.ranklist import parse_ranklist
from perfweave.errors import ParseError

__all__ = [
    "COMM_DATA_NAME",
    "LOCATIONS_NAME",
    "TIMINGS_NAME",
    "read_comm_data",
    "read_locations",
    "read_timings",
]

TIMINGS_NAME = re.compile(
    r"^(\w+?)_(execution|late_arrival)_times\.rank(\d+)_comm(\d+)_job(\d+)\.md$"
)
LOCATIONS_NAME = re.compile(r"^(\w+?)_locations_comm(\d+)_rank(\d+)\.md$")
COMM_DATA_NAME = re.compile(r"^(\w+?)_comm_data_rank(\d+)\.md$")
_CALL_HEADER = re.compile(r"^# Call (\S*)[ \t]*$", re.MULTILINE)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")  # universal newlines: CR ends become \n
    except UnicodeDecodeError as exc:
        raise ParseError(str(path), "UTF-8 text", position=exc.start) from None


def _body_start(text: str) -> int:
    """Offset after an optional ``FORMAT_VERSION: n`` line."""
    if text.startswith("FORMAT_VERSION:"):
        nl = text.find("\n")
        return len(text) if nl < 0 else nl + 1
    return 0


def read_timings(path: str | os.PathLike[str]) -> pd.DataFrame:
    """One row per (call, communicator rank): ``collective, measure, lead_rank, comm, job,
    call, rank, seconds`` (measure is ``"execution"`` or ``"late_arrival"``)."""
    p = Path(path)
    m = TIMINGS_NAME.match(p.name)
    if not m:
        raise ParseError(str(p), "a name like alltoallv_execution_times.rank0_comm0_job0.md")
    text = _read(p)
    start = _body_start(text)
    headers = list(_CALL_HEADER.finditer(text, start))
    leading = text[start : headers[0].start() if headers else len(text)]
    if leading.strip():
        line = text.count("\n", 0, start + len(leading) - len(leading.lstrip())) + 1
        raise ParseError(
            str(p), "'# Call <n>' before the times", line=line, found=leading.strip()[:40]
        )
    fast = _plain_times(text, start, headers)
    calls, times = [], []
    for k, h in enumerate(headers):
        digits = h.group(1)
        if digits.isascii() and digits.isdigit() and len(digits) <= 18:  # below MAX_ID
            call_id = int(digits)
        else:  # its line is counted only here: counting per header is quadratic in the file
            call_id = read_uint(
                digits,
                path=str(p),
                line=text.count("\n", 0, h.start()) + 1,
                expected="'# Call <integer>'",
                found=h.group(0),
            )
        if fast is not None:
            calls.append(np.full(fast[1][k], call_id, dtype=np.int64))
            continue
        body = text[h.end() : headers[k + 1].start() if k + 1 < len(headers) else len(text)]
        try:
            values = np.array(body.split(), dtype=np.float64)
        except ValueError:
            bad_at = next(
                i for i, t in enumerate(body.split("\n")) if t.strip() and not _is_float(t)
            )
            line = text.count("\n", 0, h.end()) + 1 + bad_at
            raise ParseError(
                str(p), "a time in seconds", line=line, found=body.split("\n")[bad_at]
            ) from None
        calls.append(np.full(values.size, call_id, dtype=np.int64))
        times.append(values)
    if fast is not None:
        times = [fast[0]]
    call = np.concatenate(calls) if calls else np.zeros(0, dtype=np.int64)
    rank = _ranks([c.size for c in calls])
    n = call.size
    return pd.DataFrame(
        {
            "collective": pd.Series([m.group(1)] * n, dtype="string"),
            "measure": pd.Series([m.group(2)] * n, dtype="string"),
            "lead_rank": np.full(n, int(m.group(3)), dtype=np.int64),
            "comm": np.full(n, int(m.group(4)), dtype=np.int64),
            "job": np.full(n, int(m.group(5)), dtype=np.int64),
            "call": call,
            "rank": rank.astype(np.int64),
            "seconds": np.concatenate(times) if times else np.zeros(0),
        }
    )


def _plain_times(
    text: str, start: int, headers: list[re.Match]
) -> tuple[np.ndarray, np.ndarray] | None:
    """All times of a file as the profiler writes them (one number per line, ``# Call``
    lines, blank lines) read by pandas' C parser, and the number of times after each
    header; None for anything else (the caller's checked path then names the bad line)."""
    body = text[start:]
    n_headers = len(headers)
    if (
        not body.isascii()
        or any(c in body for c in "\t\r\f\v")
        or body.count("#") != n_headers
        or body.count(" ") != sum(h.group(0).count(" ") for h in headers)  # only in headers
    ):
        return None
    raw = np.frombuffer(body.encode("ascii"), dtype=np.uint8)
    newlines = np.flatnonzero(raw == ord("\n"))
    line_start = np.concatenate(([0], newlines + 1))
    line_end = np.append(newlines, raw.size)
    filled = line_end > line_start
    first = (
        np.where(filled, raw[np.minimum(line_start, max(raw.size - 1, 0))], 0)
        if raw.size
        else filled
    )
    header = filled & (first == ord("#"))
    value = filled & ~header
    section = np.cumsum(header) - 1
    if bool((section[value] < 0).any()):
        return None
    counts = np.bincount(section[value], minlength=n_headers)
    try:
        times = pd.read_csv(
            io.StringIO(body),
            header=None,
            names=["seconds"],
            comment="#",
            skip_blank_lines=True,
            dtype=np.float64,
            engine="c",
        )["seconds"].to_numpy()
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return None
    if times.size != int(counts.sum()):
        return None
    return times, counts


def _ranks(sizes: list[int]) -> np.ndarray:
    """``0 .. size-1`` for each section, section after section."""
    lengths = np.asarray(sizes, dtype=np.int64)
    if lengths.size == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    return np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(starts, lengths)


def _is_float(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def read_locations(path: str | os.PathLike[str]) -> pd.DataFrame:
    """One row per communicator rank: ``collective, comm, lead_rank, calls, rank,
    world_rank, pid, hostname`` (``calls`` is the call list as written)."""
    p = Path(path)
    m = LOCATIONS_NAME.match(p.name)
    if not m:
        raise ParseError(str(p), "a name like alltoallv_locations_comm0_rank0.md")
    lines = _read(p).split("\n")
    fields: dict[str, tuple[str, int]] = {}
    hosts: list[tuple[int, str]] = []
    for i, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("FORMAT_VERSION:") or text == "Hostnames:":
            continue
        key, sep, value = text.partition(":")
        if not sep:
            raise ParseError(str(p), "'<field>: <value>'", line=i, found=line)
        if key.startswith("Rank "):
            r = read_uint(
                key[5:],
                path=str(p),
                line=i,
                expected="'Rank <n>: <hostname>'",
                maximum=MAX_RANKS - 1,
                found=line,
            )
            hosts.append((r, value.strip()))
        else:
            fields[key] = (value.strip(), i)
    for key in ("Communicator ID", "Calls", "COMM_WORLD ranks"):
        if key not in fields:
            raise ParseError(str(p), f"a '{key}:' line", line=len(lines))
    world = parse_ranklist(
        fields["COMM_WORLD ranks"][0], path=str(p), line=fields["COMM_WORLD ranks"][1]
    )
    pids = (
        parse_ranklist(fields["PIDs"][0], path=str(p), line=fields["PIDs"][1])
        if "PIDs" in fields
        else np.zeros(0, dtype=np.int64)
    )
    parse_ranklist(fields["Calls"][0], path=str(p), line=fields["Calls"][1])  # validate only
    n = world.size
    host = np.full(n, None, dtype=object)
    for r, name in hosts:
        if r >= n:
            raise ParseError(str(p), f"communicator ranks 0-{n - 1}", found=f"Rank {r}")
        host[r] = name
    return pd.DataFrame(
        {
            "collective": pd.Series([m.group(1)] * n, dtype="string"),
            "comm": np.full(n, int(m.group(2)), dtype=np.int64),
            "lead_rank": np.full(n, int(m.group(3)), dtype=np.int64),
            "calls": pd.Series([fields["Calls"][0]] * n, dtype="string"),
            "rank": np.arange(n, dtype=np.int64),
            "world_rank": world,
            "pid": pd.array(pids if pids.size == n else [None] * n, dtype="Int64"),
            "hostname": pd.Series(host, dtype="string"),
        }
    )


def read_comm_data(path: str | os.PathLike[str]) -> pd.DataFrame:
    """``collective, lead_rank, comm, world_rank`` from ``ID: <c>; world rank: <r>`` lines."""
    p = Path(path)
    m = COMM_DATA_NAME.match(p.name)
    if not m:
        raise ParseError(str(p), "a name like alltoallv_comm_data_rank0.md")
    rows = []
    pattern = re.compile(r"^ID: (\d+); world rank: (\d+)$")
    for i, line in enumerate(_read(p).split("\n"), start=1):
        text = line.strip()
        if not text or text.startswith("FORMAT_VERSION:"):
            continue
        mm = pattern.match(text)
        if not mm:
            raise ParseError(str(p), "'ID: <comm>; world rank: <rank>'", line=i, found=line)
        what = "'ID: <comm>; world rank: <rank>'"
        rows.append(
            tuple(read_uint(g, path=str(p), line=i, expected=what, found=line) for g in mm.groups())
        )
    arr = np.array(rows, dtype=np.int64).reshape(-1, 2)
    n = arr.shape[0]
    return pd.DataFrame(
        {
            "collective": pd.Series([m.group(1)] * n, dtype="string"),
            "lead_rank": np.full(n, int(m.group(2)), dtype=np.int64),
            "comm": arr[:, 0],
            "world_rank": arr[:, 1],
        }
    )
