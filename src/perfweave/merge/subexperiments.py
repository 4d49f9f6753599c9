"""Split a raw experiment table into subexperiments of ``n_pmcs`` HEMs each.

A processor reads only ``n_pmcs`` hardware event monitors (HEMs) per run, so an experiment
is a series of subexperiments laid side by side: columns ``0..n_pmcs-1`` are the first,
the next ``n_pmcs`` the second, and so on. Rows of different subexperiments are different
runs; only the rows within one subexperiment belong together.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from perfweave.errors import MergeError, ParseError
from perfweave.merge._blocks import check_positive_int
from perfweave.merge.codes import code_table_mapping

_CODE = re.compile(r"\d.*")
_MAX_CODE_DIGITS = 18  # longer codes are in no table (and int() of 4,300+ digits fails)


@dataclass(frozen=True)
class Subexperiments(Sequence[pd.DataFrame]):
    """The subexperiments of one experiment, in column order, plus what processing dropped.

    Behaves as a read-only sequence of DataFrames (columns are HEM names). ``dropped_rows``
    counts the rows with missing values removed from each subexperiment; ``dropped_columns``
    lists the columns removed by ``min_mean`` (subexperiment, column, hem, mean).
    """

    frames: tuple[pd.DataFrame, ...]
    dropped_rows: tuple[int, ...] = ()
    dropped_columns: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=["subexperiment", "column", "hem", "mean"])
    )

    def __len__(self) -> int:
        return len(self.frames)

    def __getitem__(self, i):  # type: ignore[override]
        return self.frames[i]

    def __iter__(self) -> Iterator[pd.DataFrame]:
        return iter(self.frames)

    @property
    def hems(self) -> list[str]:
        """Distinct HEM names in order of first appearance."""
        return list(dict.fromkeys(name for frame in self.frames for name in frame.columns))


def column_code(name: str) -> str | None:
    """Event code of a raw column name as R reads it: ``'X446.2'`` -> ``'446'``.

    Everything from the first ``.`` on is a repeat suffix; the code starts at the first
    digit of what remains. ``None`` when the name holds no digit.
    """
    head = str(name).split(".", 1)[0]
    match = _CODE.search(head)
    return match.group(0) if match else None


def make_unique(names: Sequence[str]) -> list[str]:
    """Rename repeats ``NAME`` -> ``NAME.1``, ``NAME.2`` ... (R's ``make.unique``)."""
    taken = set(names)
    seen: set[str] = set()
    counters: dict[str, int] = {}
    out = []
    for name in names:
        if name not in seen:
            seen.add(name)
            out.append(name)
            continue
        k = counters.get(name, 0)
        while True:
            k += 1
            candidate = f"{name}.{k}"
            if candidate not in taken:
                break
        counters[name] = k
        taken.add(candidate)
        seen.add(candidate)
        out.append(candidate)
    return out


def _read(data: pd.DataFrame | str | PathLike[str]) -> tuple[pd.DataFrame, str]:
    if isinstance(data, pd.DataFrame):
        return data, "<data>"
    path = Path(data)
    try:
        frame = pd.read_csv(path)
    except OSError as exc:  # a directory, a missing or unreadable file
        raise ParseError(path, "a readable CSV file", found=exc.strerror or str(exc)) from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ParseError(path, "a CSV table of HEM readings", found=str(exc)) from None
    except pd.errors.EmptyDataError:
        raise ParseError(path, "a CSV header of event codes", line=1, found="") from None
    return frame, str(path)


def _hem_names(columns: Sequence[str], mapping: dict[int, str], source: str) -> list[str]:
    names = []
    for pos, col in enumerate(columns):
        code = column_code(col)
        if code is None or not (code.isascii() and code.isdigit()):
            raise ParseError(
                source,
                "a column name holding an event code (like 'X446' or 'X446.2')",
                line=1 if source != "<data>" else None,
                position=f"column {pos + 1}",
                found=str(col),
            )
        if len(code) > _MAX_CODE_DIGITS or int(code) not in mapping:
            raise ParseError(
                source,
                "an event code listed in the code table",
                line=1 if source != "<data>" else None,
                position=f"column {pos + 1} ({col})",
                found=code if len(code) <= 40 else f"{code[:20]}... ({len(code)} digits)",
            )
        names.append(mapping[int(code)])
    return names


def _check_numeric(frame: pd.DataFrame, source: str) -> None:
    if len(frame) == 0:
        raise ParseError(
            source,
            "at least one row of HEM readings",
            line=2 if source != "<data>" else None,
            found="no rows",
        )
    for pos, col in enumerate(frame.columns):
        if not pd.api.types.is_numeric_dtype(frame[col].dtype):
            values = pd.to_numeric(frame[col], errors="coerce")
            bad = np.flatnonzero(values.isna().to_numpy() & frame[col].notna().to_numpy())
            row = int(bad[0]) if len(bad) else 0
            raise ParseError(
                source,
                "numeric HEM readings",
                line=row + 2 if source != "<data>" else None,
                position=f"column {pos + 1} ({col})"
                + (f", row {row}" if source == "<data>" else ""),
                found=str(frame[col].iloc[row]),
            )


def _no_complete_row(
    sub: pd.DataFrame, frame: pd.DataFrame, start: int, s: int, source: str
) -> None:
    """Raise for a subexperiment none of whose rows is complete, naming empty columns."""
    empty = [k for k in range(sub.shape[1]) if sub.iloc[:, k].isna().all()]
    named = ", ".join(f"column {start + k + 1} ({frame.columns[start + k]})" for k in empty)
    raise ParseError(
        source,
        f"readings in every column of subexperiment {s} (columns {start + 1}-"
        f"{start + sub.shape[1]}); no row of it is complete, so it would be empty",
        line=None,
        found=f"{named} without any reading" if empty else "a missing value in every row",
    )


def process_raw_experiments(
    data: pd.DataFrame | str | PathLike[str],
    n_pmcs: int,
    code_table: pd.DataFrame | dict[int, str] | str | None = "T2080",
    *,
    min_mean: float | None = None,
) -> Subexperiments:
    """Split raw readings (a DataFrame or CSV path) into subexperiments of ``n_pmcs`` HEMs.

    Column names carry event codes (``X446.2`` -> 446), turned into HEM names with
    ``code_table`` (default ``"T2080"``: the bundled NXP T2080 table; or a DataFrame with
    ``code``/``hems`` columns, or a dict). Consecutive groups of ``n_pmcs`` columns are
    subexperiments; rows with a missing value are dropped per subexperiment; a HEM read
    twice in one subexperiment becomes ``NAME.1``. ``min_mean`` (mergingTools uses
    100, always) drops columns whose mean is ``<= min_mean`` and warns naming them; by
    default nothing is dropped. ``n_pmcs`` must divide the number of columns (mergingTools
    silently drops a trailing partial group). The input is never modified.
    """
    frame, source = _read(data)
    check_positive_int("n_pmcs", n_pmcs)
    n_cols = frame.shape[1]
    if n_cols == 0 or n_cols % n_pmcs:
        raise MergeError(
            f"{source}: {n_cols} columns do not split into subexperiments of n_pmcs={n_pmcs} "
            f"HEMs ({n_cols % n_pmcs} columns left over); expected a multiple of {n_pmcs}"
        )
    _check_numeric(frame, source)
    names = _hem_names([str(c) for c in frame.columns], code_table_mapping(code_table), source)

    frames, dropped_rows, dropped_cols = [], [], []
    for s, start in enumerate(range(0, n_cols, n_pmcs)):
        cols = range(start, start + n_pmcs)
        sub = pd.DataFrame(
            {
                name: frame.iloc[:, c]
                for name, c in zip(make_unique([names[c] for c in cols]), cols, strict=True)
            }
        )
        keep = sub.notna().all(axis=1).to_numpy()
        if len(sub) and not keep.any():
            _no_complete_row(sub, frame, start, s, source)
        dropped_rows.append(int((~keep).sum()))
        sub = sub.loc[keep].reset_index(drop=True)
        if min_mean is not None:
            means = sub.mean(axis=0)
            low = means.index[(means <= min_mean).to_numpy()]
            for name in low:
                pos = start + list(sub.columns).index(name)
                dropped_cols.append((s, str(frame.columns[pos]), name, float(means[name])))
            sub = sub.drop(columns=list(low))
        frames.append(sub)
    dropped = pd.DataFrame(dropped_cols, columns=["subexperiment", "column", "hem", "mean"])
    if len(dropped):
        listing = ", ".join(f"{c} ({h}, mean {m:g})" for _, c, h, m in dropped_cols)
        warnings.warn(
            f"{source}: dropped {len(dropped)} column(s) with mean <= {min_mean:g}: {listing}",
            stacklevel=2,
        )
    return Subexperiments(tuple(frames), tuple(dropped_rows), dropped)
