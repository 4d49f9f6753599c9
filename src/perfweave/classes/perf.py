"""Linux perf data in the same model: ``perf script`` samples and ``perf report`` tables.

``perf script`` prints one header line per sample (``comm pid[/tid] [cpu] time: [period]
event:`` and, without call chains, ``ip symbol+off (dso)``), followed by tab-indented call
chain frames when recorded with ``-g`` (the first frame is where the sample fell).
:func:`read_perf_script` scans the whole text with one regular expression (in C, no
per-line Python code) into one row per sample, parsing repeated pieces once;
:func:`read_perf_json` reads ``perf data convert --to-json``; :func:`read_perf_report`
reads ``perf report --stdio`` tables; :func:`perf_sample_specs` folds samples into spec-table rows that
:func:`~perfweave.classes.arrange.arrange` classifies like OProfile sample files:
application image = the process's executable (the dso named like its command), dependent
image = the dso, tgid = pid, tid, cpu, event; count and unit mask are ``"0"`` (perf samples
by frequency, without a fixed count).
"""

from __future__ import annotations

import json
import re
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from perfweave.classes._groups import group_ids
from perfweave.errors import ArgumentError, ParseError

# groups: who (comm pid[/tid] [cpu], repeats), time, what ([period] event, repeats), where
_HEADER = (
    r"([ \t]*\S[^\n\[]*?[ \t]+-?\d+(?:/-?\d+)?[ \t]+\[\d+\])[ \t]+(\d+\.\d+):"
    r"[ \t]+((?:\d+[ \t]+)?\S+?):(?:[ \t]+([^\n]*))?"
)
_WHO_RE = re.compile(
    r"^\s*(?P<comm>\S.*?)\s+(?P<pid>-?\d+)(?:/(?P<tid>-?\d+))?\s+\[(?P<cpu>\d+)\]$"
)
_WHAT_RE = re.compile(r"^(?:(?P<period>\d+)\s+)?(?P<event>\S+)$")
# every line is one match: a sample header, a call-chain frame, a blank or a comment line
_LINE_RE = re.compile(
    r"^(?:" + _HEADER + r"|[ \t]+([0-9a-fA-F]+[ \t][^\n]*)|[ \t]*|[#$][^\n]*)$", re.M
)
_ONE_LINE_RE = re.compile(_LINE_RE.pattern.replace("^(?:", "(?:", 1))
_FRAME_RE = re.compile(
    r"^\s*(?P<ip>[0-9a-fA-F]+)\s+(?P<symbol>.*?)(?:\+0x[0-9a-fA-F]+)?\s+\((?P<dso>[^()]*)\)\s*$"
)
_EXPECTED_LINE = (
    "a perf script sample line 'comm pid[/tid] [cpu] time: [period] event:', "
    "a call-chain frame, a comment or a blank line"
)
SAMPLE_COLUMNS = ("comm", "pid", "tid", "cpu", "time", "period", "event", "ip", "symbol", "dso")


def _text(source: str | PathLike[str] | None, text: str | None) -> tuple[str, str]:
    if text is None:
        if source is None:
            raise ArgumentError("give a path or text=")
        return Path(source).read_text(errors="replace"), str(source)
    return text, str(source) if source is not None else "<string>"


def _lines(source: str | PathLike[str] | None, text: str | None) -> tuple[pd.Series, str]:
    text, name = _text(source, text)
    return pd.Series(text.split("\n"), dtype=object), name


def _scan(text: str, name: str) -> np.ndarray:
    """One row of regex groups per line (a single C-level pass over the whole text)."""
    rows = _LINE_RE.findall(text)
    if len(rows) != text.count("\n") + 1:  # some line matched nothing: find and name it
        for k, line in enumerate(text.split("\n"), 1):
            if not _ONE_LINE_RE.fullmatch(line):
                raise ParseError(name, _EXPECTED_LINE, line=k, found=line)
    return np.array(rows, dtype=object).reshape(len(rows), 5)


def _parse_unique(values, regex: re.Pattern) -> tuple[np.ndarray, pd.DataFrame]:
    """Codes of ``values`` and the regex groups of each distinct value (parsed once)."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    return codes, pd.Series(uniques, dtype=object).str.extract(regex)


def read_perf_script(
    source: str | PathLike[str] | None = None, *, text: str | None = None
) -> pd.DataFrame:
    """One row per sample of ``perf script`` output (a file, or ``text=``).

    Columns: comm, pid, tid (= pid when perf printed one number), cpu, time, period (0 when
    not printed), event, ip, symbol, dso (empty when the sample shows no location). A line
    that is neither a sample, a frame, a comment (``#``/``$``) nor blank raises
    :class:`ParseError` naming the file and line.

    One regular expression scans the whole text in C; locations (which repeat) are parsed
    once per distinct value.
    """
    text, name = _text(source, text)
    rows = _scan(text, name)
    is_header = rows[:, 0] != ""
    hpos = np.flatnonzero(is_header)
    head = rows[hpos]
    # where the sample fell: the inline location, else the first call-chain frame
    where = head[:, 3].copy()
    nxt = np.minimum(hpos + 1, len(rows) - 1)
    use_frame = (where == "") & (hpos + 1 < len(rows)) & (rows[nxt, 4] != "")
    where[use_frame] = rows[nxt[use_frame], 4]
    loc_codes, loc = _parse_unique(where, _FRAME_RE)
    who_codes, who = _parse_unique(head[:, 0], _WHO_RE)
    what_codes, what = _parse_unique(head[:, 2], _WHAT_RE)
    _check_digits(who[["pid", "tid", "cpu"]], who_codes, hpos, text, name)
    _check_digits(what[["period"]], what_codes, hpos, text, name)
    who_pid = who["pid"].astype(np.int64).to_numpy()
    who_tid = who["tid"].fillna(who["pid"]).astype(np.int64).to_numpy()
    periods = what["period"].fillna("0").astype(np.int64).to_numpy()
    return pd.DataFrame(
        {
            "comm": who["comm"].to_numpy(dtype=object)[who_codes],
            "pid": who_pid[who_codes],
            "tid": who_tid[who_codes],
            "cpu": who["cpu"].astype(np.int64).to_numpy()[who_codes],
            "time": head[:, 1].astype(float),
            "period": periods[what_codes],
            "event": what["event"].to_numpy(dtype=object)[what_codes],
            "ip": loc["ip"].fillna("").to_numpy(dtype=object)[loc_codes],
            "symbol": loc["symbol"].fillna("").to_numpy(dtype=object)[loc_codes],
            "dso": loc["dso"].fillna("").to_numpy(dtype=object)[loc_codes],
        },
        copy=False,
    )


def _check_digits(
    fields: pd.DataFrame, codes: np.ndarray, hpos: np.ndarray, text: str, name: str
) -> None:
    """ParseError naming the first sample line with a number of more than 18 digits (it
    would overflow int64); ``fields`` are the groups of each distinct value, ``codes``
    the distinct value of each sample and ``hpos`` its line index."""
    long = np.zeros(len(fields), dtype=bool)
    for col in fields.columns:
        long |= (fields[col].str.len() > 18).fillna(False).to_numpy(dtype=bool)
    if long.any():
        k = int(hpos[np.flatnonzero(long[codes])[0]])
        raise ParseError(
            name,
            "a pid, tid, cpu and period of at most 18 digits",
            line=k + 1,
            found=text.split("\n", k + 1)[k],
        )


def read_perf_callchains(
    source: str | PathLike[str] | None = None, *, text: str | None = None
) -> pd.DataFrame:
    """Call-chain frames of ``perf script -g`` output: sample index, depth (0 = leaf), ip,
    symbol, dso. Sample indices match the rows of :func:`read_perf_script`."""
    text, name = _text(source, text)
    rows = _scan(text, name)
    is_header = rows[:, 0] != ""
    sample = np.cumsum(is_header) - 1
    fpos = np.flatnonzero((rows[:, 4] != "") & (sample >= 0))
    codes, frames = _parse_unique(rows[fpos, 4], _FRAME_RE)
    bad = frames["ip"].isna().to_numpy()[codes]
    if bad.any():
        k = int(fpos[np.flatnonzero(bad)[0]])
        raise ParseError(
            name, "a call-chain frame 'ip symbol (dso)'", line=k + 1, found=text.split("\n")[k]
        )
    header_pos = np.flatnonzero(is_header)
    owner = sample[fpos]
    return pd.DataFrame(
        {
            "sample": owner,
            "depth": fpos - header_pos[owner] - 1,
            "ip": frames["ip"].to_numpy(dtype=object)[codes],
            "symbol": frames["symbol"].to_numpy(dtype=object)[codes],
            "dso": frames["dso"].to_numpy(dtype=object)[codes],
        }
    )


def read_perf_json(source: str | PathLike[str]) -> pd.DataFrame:
    """Samples of ``perf data convert --to-json`` output, with :func:`read_perf_script`'s columns.

    That format names no event and no period per sample: ``event`` is ``"all"`` and
    ``period`` 0; the location is the first call-chain entry (dso names as perf wrote them,
    ``[unknown]`` where perf left the symbol out, as ``perf script`` prints it).
    """
    try:
        doc = json.loads(Path(source).read_bytes().decode("utf-8"))
        samples = doc["samples"]
    except UnicodeDecodeError as exc:
        raise ParseError(source, "UTF-8 JSON", position=exc.start) from None
    except RecursionError:
        raise ParseError(source, "JSON nested less than about 1,000 levels deep") from None
    except (ValueError, KeyError, TypeError) as exc:  # JSONDecodeError is a ValueError
        raise ParseError(source, "perf's JSON with a 'samples' list", found=str(exc)) from None
    if not isinstance(samples, list) or not all(isinstance(x, dict) for x in samples):
        raise ParseError(source, "'samples' as a list of objects")
    frame = pd.DataFrame.from_records(
        samples, columns=["timestamp", "pid", "tid", "cpu", "comm", "callchain"]
    )
    chains = frame["callchain"].tolist()
    leaf = [c[0] if isinstance(c, list) and c else {} for c in chains]
    if not all(isinstance(f, dict) for f in leaf):
        k = next(i for i, f in enumerate(leaf) if not isinstance(f, dict))
        raise ParseError(source, "call-chain entries as objects", position=f"sample {k}")
    return pd.DataFrame(
        {
            "comm": frame["comm"].astype(object).to_numpy(),
            "pid": _json_ints(frame["pid"], "pid", source),
            "tid": _json_ints(frame["tid"], "tid", source),
            "cpu": _json_ints(frame["cpu"], "cpu", source, missing=-1),
            "time": _json_ints(frame["timestamp"], "timestamp", source) / 1e9,
            "period": np.zeros(len(frame), dtype=np.int64),
            "event": "all",
            "ip": np.array([str(f.get("ip", "")).removeprefix("0x") for f in leaf], dtype=object),
            "symbol": np.array([str(f.get("symbol", "[unknown]")) for f in leaf], dtype=object),
            "dso": np.array([str(f.get("dso", "")) for f in leaf], dtype=object),
        }
    )


_INT64 = (-(2**63), 2**63 - 1)


def _json_ints(
    values: pd.Series, field: str, source: str | PathLike[str], missing: int | None = None
) -> np.ndarray:
    """A JSON integer field of every sample as int64; ``missing`` fills absent values
    (else they are an error, as are non-integers and integers outside int64)."""
    out = np.empty(len(values), dtype=np.int64)
    for k, v in enumerate(values.tolist()):
        if missing is not None and (v is None or (isinstance(v, float) and v != v)):
            v = missing
        elif isinstance(v, float) and v.is_integer():  # a column with gaps is float
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int) or not _INT64[0] <= v <= _INT64[1]:
            raise ParseError(
                source,
                f"an integer {field} (int64)",
                position=f"sample {k}",
                found=repr(v)[:40],
            )
        out[k] = v
    return out


def _basename(values: np.ndarray) -> np.ndarray:
    return np.array([v.rsplit("/", 1)[-1] for v in values], dtype=object)


def perf_sample_specs(samples: pd.DataFrame, *, by_symbol: bool = False) -> pd.DataFrame:
    """Fold perf samples into spec-table rows (with ``samples`` and ``period`` sums).

    One row per (event, pid, tid, cpu, executable, dso[, symbol]). The application image of
    a process is the dso whose base name is the process's command (its executable), or the
    command itself when no sample fell in the executable. Grouping is on integer codes.
    """
    dso = samples["dso"].where(samples["dso"] != "", "[unknown]")
    comm_codes, comms = pd.factorize(samples["comm"], sort=True)
    dso_codes, dsos = pd.factorize(dso, sort=True)
    ev_codes, events = pd.factorize(samples["event"], sort=True)
    pid = samples["pid"].to_numpy(dtype=np.int64)
    # the executable of each pid: the first dso named like the command
    comm_index = {c: k for k, c in enumerate(comms)}
    dso_as_comm = np.array([comm_index.get(b, -1) for b in _basename(np.asarray(dsos))])
    own = dso_as_comm[dso_codes] == comm_codes
    pids, first = np.unique(pid[own], return_index=True)
    exe_of_pid = dict(zip(pids.tolist(), np.asarray(dsos, dtype=object)[dso_codes[own][first]]))
    names = np.asarray(comms, dtype=object)[comm_codes]
    image = pd.Series(pid).map(exe_of_pid).to_numpy(dtype=object)
    image = np.where(pd.isna(image), names, image)
    img_codes, imgs = pd.factorize(pd.Series(image, dtype=object), sort=True)
    cols = [
        ev_codes,
        pid,
        samples["tid"].to_numpy(np.int64),
        samples["cpu"].to_numpy(np.int64),
        img_codes,
        dso_codes,
    ]
    if by_symbol:
        sym_codes, syms = pd.factorize(samples["symbol"], sort=True)
        cols.append(sym_codes)
    inverse, first = group_ids(cols, lexicographic=True)
    keys = np.column_stack([c[first] for c in cols])
    counts = np.bincount(inverse, minlength=len(first)).astype(np.int64)
    periods = np.zeros(len(first), dtype=np.int64)
    np.add.at(periods, inverse, samples["period"].to_numpy(np.int64))
    event = np.asarray(events, dtype=object)[keys[:, 0]]
    g_image = np.asarray(imgs, dtype=object)[keys[:, 4]]
    g_dso = np.asarray(dsos, dtype=object)[keys[:, 5]]
    pid_s, tid_s, cpu_s = (pd.Series(keys[:, k]).astype(str) for k in (1, 2, 3))
    label = (
        "perf:"
        + pd.Series(g_image)
        + "/{dep}/"
        + pd.Series(g_dso)
        + "/"
        + pd.Series(event)
        + ".0.0."
        + pid_s
        + "."
        + tid_s
        + "."
        + cpu_s
    )
    out = pd.DataFrame(
        {
            "filename": label.astype(object),
            "image": g_image,
            "lib_image": g_dso,
            "cg_image": "",
            "event": event,
            "count": "0",
            "unitmask": "0",
            "tgid": pid_s.astype(object),
            "tid": tid_s.astype(object),
            "cpu": cpu_s.astype(object),
            "samples": counts,
            "period": periods,
        }
    )
    if by_symbol:
        out["symbol"] = np.asarray(syms, dtype=object)[keys[:, 6]]
        out["filename"] = out["filename"] + "#" + out["symbol"]
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
    if len(set(headings)) != len(headings):
        dup = next(h for h in headings if headings.count(h) > 1)
        raise ParseError(name, "column headings that differ", found=f"{dup!r} twice")
    return _typed_report(pd.DataFrame(rows, columns=headings, dtype=object), events, name)


def _typed_report(table: pd.DataFrame, events: list[str], name: str) -> pd.DataFrame:
    out = {}
    for col in table.columns:
        values = table[col].astype(str)
        parts = values.str.split()
        width = int(parts.str.len().max()) if len(values) else 0
        numeric = values.str.fullmatch(r"[\d.%\s]+").all() and len(values) > 0
        if numeric and width > 1 and len(events) == width:
            for i, ev in enumerate(events):
                out[f"{col}:{ev}"] = _number(parts.str[i], col, name)
        elif numeric:
            out[col] = _number(parts.str[0], col, name)
        else:
            out[col] = table[col].astype(object)
    return pd.DataFrame(out)


def _number(values: pd.Series, col: str, name: str) -> pd.Series:
    """A column of percentages (all ending in ``%``) as floats, else of plain numbers;
    a cell that is neither is a ParseError naming the column and the cell."""
    percent = bool(values.str.endswith("%").all())
    text = values.str.rstrip("%") if percent else values
    nums = pd.to_numeric(text, errors="coerce")
    bad = nums.isna().to_numpy()
    if bad.any():
        what = "percentages" if percent else "numbers (all with '%' or none)"
        raise ParseError(name, f"{what} in the column {col!r}", found=str(values[bad].iloc[0]))
    return nums.astype(float) if percent else nums


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
