"""Linux perf data in the same model: ``perf script`` samples and ``perf report`` tables.

``perf script`` prints one header line per sample (``comm pid[/tid] [cpu] time: [period]
event:`` and, without call chains, ``ip symbol+off (dso)``), followed by tab-indented call
chain frames when recorded with ``-g`` (the first frame is where the sample fell).
:func:`read_perf_script` parses it with vectorised regular expressions into one row per
sample; :func:`perf_sample_specs` folds samples into spec-table rows that
:func:`~perfweave.classes.arrange.arrange` classifies like OProfile sample files:
application image = the process's executable (the dso named like its command), dependent
image = the dso, tgid = pid, tid, cpu, event; count and unit mask are ``"0"`` (perf samples
by frequency, without a fixed count).
"""

from __future__ import annotations

import re
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from perfweave.errors import ParseError

_HEADER_RE = re.compile(
    r"^\s*(?P<comm>\S.*?)\s+(?P<pid>-?\d+)(?:/(?P<tid>-?\d+))?\s+\[(?P<cpu>\d+)\]\s+"
    r"(?P<time>\d+\.\d+):\s+(?:(?P<period>\d+)\s+)?(?P<event>\S+?):(?:\s+(?P<rest>.*?))?\s*$"
)
_FRAME_RE = re.compile(
    r"^\s*(?P<ip>[0-9a-fA-F]+)\s+(?P<symbol>.*?)(?:\+0x[0-9a-fA-F]+)?\s+\((?P<dso>[^()]*)\)\s*$"
)
_EXPECTED_HEADER = "a perf script sample line 'comm pid[/tid] [cpu] time: [period] event:'"
SAMPLE_COLUMNS = ("comm", "pid", "tid", "cpu", "time", "period", "event", "ip", "symbol", "dso")


def _lines(source: str | PathLike[str] | None, text: str | None) -> tuple[pd.Series, str]:
    if text is None:
        if source is None:
            raise ValueError("give a path or text=")
        text = Path(source).read_text(errors="replace")
        name = str(source)
    else:
        name = str(source) if source is not None else "<string>"
    return pd.Series(text.split("\n"), dtype=object), name


def _frames(lines: pd.Series) -> pd.DataFrame:
    return lines.str.extract(_FRAME_RE)


def read_perf_script(
    source: str | PathLike[str] | None = None, *, text: str | None = None
) -> pd.DataFrame:
    """One row per sample of ``perf script`` output (a file, or ``text=``).

    Columns: comm, pid, tid (= pid when perf printed one number), cpu, time, period (0 when
    not printed), event, ip, symbol, dso (empty when the sample shows no location). A line
    that is neither a sample, a frame, a comment (``#``/``$``) nor blank raises
    :class:`ParseError` naming the file and line.
    """
    lines, name = _lines(source, text)
    stripped = lines.str.strip()
    blank = (stripped == "").to_numpy()
    indented = lines.str.match(r"\s").to_numpy() & ~blank
    comment = stripped.str.startswith(("#", "$ ")).to_numpy()
    is_header = ~blank & ~indented & ~comment
    hpos = np.flatnonzero(is_header)
    head = lines.iloc[hpos].str.extract(_HEADER_RE)
    bad = head["comm"].isna().to_numpy()
    if bad.any():
        k = int(hpos[np.flatnonzero(bad)[0]])
        raise ParseError(name, _EXPECTED_HEADER, line=k + 1, found=lines.iloc[k])
    # where the sample fell: the inline location, else the first call-chain frame
    nxt = np.minimum(hpos + 1, len(lines) - 1)
    has_frame = indented[nxt] & (hpos + 1 < len(lines))
    loc_text = head["rest"].fillna("").to_numpy(dtype=object)
    use_frame = (loc_text == "") & has_frame
    loc_text[use_frame] = lines.to_numpy(dtype=object)[nxt[use_frame]]
    loc = pd.Series(loc_text, dtype=object).str.extract(_FRAME_RE)
    pid = head["pid"].astype(np.int64).to_numpy()
    tid = head["tid"].fillna(head["pid"]).astype(np.int64).to_numpy()
    return pd.DataFrame(
        {
            "comm": head["comm"].to_numpy(dtype=object),
            "pid": pid,
            "tid": tid,
            "cpu": head["cpu"].astype(np.int64).to_numpy(),
            "time": head["time"].astype(float).to_numpy(),
            "period": head["period"].fillna("0").astype(np.int64).to_numpy(),
            "event": head["event"].to_numpy(dtype=object),
            "ip": loc["ip"].fillna("").to_numpy(dtype=object),
            "symbol": loc["symbol"].fillna("").to_numpy(dtype=object),
            "dso": loc["dso"].fillna("").to_numpy(dtype=object),
        }
    )


def read_perf_callchains(
    source: str | PathLike[str] | None = None, *, text: str | None = None
) -> pd.DataFrame:
    """Call-chain frames of ``perf script -g`` output: sample index, depth (0 = leaf), ip,
    symbol, dso. Sample indices match the rows of :func:`read_perf_script`."""
    lines, name = _lines(source, text)
    stripped = lines.str.strip()
    blank = (stripped == "").to_numpy()
    indented = lines.str.match(r"\s").to_numpy() & ~blank
    comment = stripped.str.startswith(("#", "$ ")).to_numpy()
    is_header = ~blank & ~indented & ~comment
    sample = np.cumsum(is_header) - 1
    fpos = np.flatnonzero(indented & (sample >= 0))
    frames = _frames(lines.iloc[fpos])
    bad = frames["ip"].isna().to_numpy()
    if bad.any():
        k = int(fpos[np.flatnonzero(bad)[0]])
        raise ParseError(
            name, "a call-chain frame 'ip symbol (dso)'", line=k + 1, found=lines.iloc[k]
        )
    header_pos = np.flatnonzero(is_header)
    owner = sample[fpos]
    return pd.DataFrame(
        {
            "sample": owner,
            "depth": fpos - header_pos[owner] - 1,
            "ip": frames["ip"].to_numpy(dtype=object),
            "symbol": frames["symbol"].to_numpy(dtype=object),
            "dso": frames["dso"].to_numpy(dtype=object),
        }
    )


def _basename(series: pd.Series) -> pd.Series:
    return series.str.rsplit("/", n=1).str[-1]


def perf_sample_specs(samples: pd.DataFrame, *, by_symbol: bool = False) -> pd.DataFrame:
    """Fold perf samples into spec-table rows (with ``samples`` and ``period`` sums).

    One row per (event, pid, tid, cpu, executable, dso[, symbol]). The application image of
    a process is the dso whose base name is the process's command (its executable), or the
    command itself when no sample fell in the executable.
    """
    s = samples.copy()
    s["dso"] = s["dso"].where(s["dso"] != "", "[unknown]")
    own = s[_basename(s["dso"]) == s["comm"]].drop_duplicates("pid")
    exe = s["pid"].map(own.set_index("pid")["dso"]).fillna(s["comm"])
    s["image"] = exe.astype(object)
    keys = ["event", "pid", "tid", "cpu", "image", "dso"] + (["symbol"] if by_symbol else [])
    g = s.groupby(keys, sort=True).agg(samples=("period", "size"), period=("period", "sum"))
    g = g.reset_index()
    pid = g["pid"].astype(str)
    tid = g["tid"].astype(str)
    cpu = g["cpu"].astype(str)
    label = (
        "perf:"
        + g["image"]
        + "/{dep}/"
        + g["dso"]
        + "/"
        + g["event"]
        + ".0.0."
        + pid
        + "."
        + tid
        + "."
        + cpu
    )
    if by_symbol:
        label = label + "#" + g["symbol"]
    out = pd.DataFrame(
        {
            "filename": label.astype(object),
            "image": g["image"].astype(object),
            "lib_image": g["dso"].astype(object),
            "cg_image": "",
            "event": g["event"].astype(object),
            "count": "0",
            "unitmask": "0",
            "tgid": pid.astype(object),
            "tid": tid.astype(object),
            "cpu": cpu.astype(object),
            "samples": g["samples"].astype(np.int64),
            "period": g["period"].astype(np.int64),
        }
    )
    if by_symbol:
        out["symbol"] = g["symbol"].astype(object)
    return out


_EVENTS_RE = re.compile(r"^#\s*Samples:\s*(?P<n>\S+)\s+of events? '(?P<events>[^']*)'")


def _report_events(comments: list[str]) -> list[str]:
    for line in comments:
        m = _EVENTS_RE.match(line)
        if m:
            ev = m["events"].strip()
            inner = re.match(r"^anon group \{(.*)\}$", ev)
            return [e.strip() for e in inner[1].split(",")] if inner else [ev]
    return []


def read_perf_report(
    source: str | PathLike[str] | None = None, *, text: str | None = None, sep: str | None = None
) -> pd.DataFrame:
    """The table of ``perf report --stdio`` (fixed columns) or ``perf report -t SEP`` output.

    Columns keep perf's headings; a heading with one value per event of a ``--group`` report
    becomes ``heading:event`` columns. Percentages become floats, counts integers.
    """
    lines, name = _lines(source, text)
    raw = [line.rstrip("\n") for line in lines.tolist()]
    comments = [line for line in raw if line.startswith("#")]
    body = [
        (k, line)
        for k, line in enumerate(raw, 1)
        if line.strip() and not line.startswith(("#", "$ "))
    ]
    events = _report_events(comments)
    dots_at = next((k for k, line in enumerate(raw) if re.match(r"^#\s*\.{2,}", line)), None)
    if sep is None and dots_at is None:
        heads = [line for line in comments if ";" in line or "Overhead" in line]
        sep = ";" if heads and ";" in heads[-1] else None
    if sep is not None:
        head_line = next((line for line in reversed(comments) if sep in line), None)
        if head_line is None:
            raise ParseError(name, f"a heading line with columns separated by {sep!r}")
        headings = [h.strip() for h in head_line[1:].split(sep)]
        rows = []
        for k, line in body:
            cells = [c.strip() for c in line.split(sep)]
            if len(cells) != len(headings):
                raise ParseError(
                    name, f"{len(headings)} fields separated by {sep!r}", line=k, found=line
                )
            rows.append(cells)
    else:
        if dots_at is None:
            raise ParseError(name, "a '# ....' line under the column headings")
        dots = raw[dots_at]
        spans = [(m.start(), m.end()) for m in re.finditer(r"\.+", dots)]
        head_line = raw[dots_at - 1]
        headings = [head_line[a:b].strip() for a, b in spans[:-1]]
        headings.append(head_line[spans[-1][0] :].strip())
        bounds = [a for a, _ in spans] + [None]
        rows = []
        for _k, line in body:
            cells = [line[bounds[i] : bounds[i + 1]].strip() for i in range(len(spans) - 1)]
            cells.append(line[bounds[-2] :].strip())
            rows.append(cells)
    return _typed_report(pd.DataFrame(rows, columns=headings, dtype=object), events)


def _typed_report(table: pd.DataFrame, events: list[str]) -> pd.DataFrame:
    out = {}
    for col in table.columns:
        values = table[col].astype(str)
        parts = values.str.split()
        width = int(parts.str.len().max()) if len(values) else 0
        numeric = values.str.fullmatch(r"[\d.%\s]+").all() and len(values) > 0
        if numeric and width > 1 and len(events) == width:
            for i, ev in enumerate(events):
                out[f"{col}:{ev}"] = _number(parts.str[i])
        elif numeric:
            out[col] = _number(parts.str[0])
        else:
            out[col] = table[col].astype(object)
    return pd.DataFrame(out)


def _number(values: pd.Series) -> pd.Series:
    if values.str.endswith("%").all():
        return values.str.rstrip("%").astype(float)
    return pd.to_numeric(values)


def perf_report_specs(table: pd.DataFrame) -> pd.DataFrame:
    """Spec-table rows from a :func:`read_perf_report` table (fields it lacks are ``all``).

    ``Command`` is the application, ``Shared Object`` the dependent image, ``Pid`` (or
    ``Pid:Command``) the tgid, ``CPU`` the cpu; one row per event of a group report, with
    ``samples`` / ``period`` where the report has those columns.
    """
    n = len(table)
    comm = table.get("Command")
    pid = table.get("Pid")
    if "Pid:Command" in table:
        both = table["Pid:Command"].str.split(":", n=1)
        pid, comm = both.str[0], both.str[1]
    image = comm.astype(object) if comm is not None else pd.Series(["all"] * n, dtype=object)
    lib = table["Shared Object"].astype(object) if "Shared Object" in table else image
    events = sorted({c.split(":", 1)[1] for c in table.columns if c.startswith("Samples:")})
    frames = []
    for ev in events or [None]:
        part = pd.DataFrame(
            {
                "image": image.to_numpy(),
                "lib_image": lib.to_numpy(),
                "cg_image": "",
                "event": ev or "all",
                "count": "0",
                "unitmask": "0",
                "tgid": pid.astype(str).to_numpy() if pid is not None else "all",
                "tid": "all",
                "cpu": table["CPU"].astype(int).astype(str).to_numpy() if "CPU" in table else "all",
            }
        )
        key = f"Samples:{ev}" if ev else "Samples"
        if key in table:
            part["samples"] = table[key].astype(np.int64).to_numpy()
        pkey = f"Period:{ev}" if ev else "Period"
        if pkey in table:
            part["period"] = table[pkey].astype(np.int64).to_numpy()
        frames.append(part)
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "filename", ("perf-report:" + out.index.astype(str)).astype(object))
    return out
