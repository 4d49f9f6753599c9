"""What a ClassPicker reads: one spec table (with sample counts) parsed once, then reused.

Sources: an OProfile session directory, a sample-file listing, a spec table or SampleSpec
records, perf data (``perf script`` text, ``perf report --stdio`` output, perf JSON, or a
samples DataFrame from :func:`~perfweave.classes.read_perf_script`). Every control change
only masks and re-arranges this table; nothing is parsed again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.classes.arrange import as_spec_table
from perfweave.classes.opreport import NO_FILES
from perfweave.classes.perf import (
    perf_report_specs,
    perf_sample_specs,
    read_perf_json,
    read_perf_report,
    read_perf_script,
)
from perfweave.classes.profile_spec import ProfileSpec
from perfweave.classes.samplefile import sample_counts
from perfweave.classes.spec import (
    SampleSpec,
    empty_spec_table,
    parse_sample_paths,
    read_listing,
    scan_session,
)
from perfweave.classes.spec_codes import SpecCodes
from perfweave.errors import FormatError, SpecError


def text(value: Any) -> str:
    """A value as displayable text (non-UTF-8 file names keep a visible replacement)."""
    s = str(value)
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        s = s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return s


@dataclass
class Source:
    """The parsed data of a picker: ``kind``, a label, and the spec table per session."""

    kind: str  # "session" | "listing" | "table" | "perf"
    label: str
    session_dir: str | None = None
    has_samples: bool = True
    _tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    _codes: dict[tuple[str, ...], SpecCodes] = field(default_factory=dict)
    _factors: dict[tuple, tuple[np.ndarray, pd.Series]] = field(default_factory=dict)

    def table(self, sessions: Sequence[str]) -> pd.DataFrame:
        """The spec rows of ``sessions`` (only session directories have several sessions)."""
        if self.kind != "session":
            if [s for s in sessions if s != "current"]:
                raise SpecError(f"session: only applies to a session directory, not to {self.kind}")
            return self._tables["current"]
        parts = []
        for s in sessions:
            if s not in self._tables:
                self._tables[s] = _session_table(self.session_dir, s)
            parts.append(self._tables[s])
        if len(parts) == 1:
            return parts[0]
        merged = pd.concat(parts, ignore_index=True).drop_duplicates("filename")
        return merged.sort_values("filename", kind="stable").reset_index(drop=True)

    def codes(self, sessions: Sequence[str]) -> SpecCodes:
        """The integer codes of :meth:`table` (computed once per session choice)."""
        key = tuple(sessions)
        if key not in self._codes:
            self._codes[key] = SpecCodes.of(self.table(sessions).reset_index(drop=True))
        return self._codes[key]

    def mask(
        self, spec: ProfileSpec, sessions: Sequence[str], *, exclude_dependent: bool
    ) -> np.ndarray:
        """``spec.mask(table)``, with the event and numeric tags tested once per distinct
        value of their column (its codes kept per source) instead of once per row."""
        table = self.table(sessions)
        keep = replace(spec, event=None, numeric={}).mask(
            table, exclude_dependent=exclude_dependent
        )
        if spec.event is not None:
            keep &= self._per_value(sessions, "event", lambda u: u.isin(spec.event))
        for col, wanted in spec.numeric.items():
            if wanted is not None:
                keep &= self._per_value(
                    sessions, col, lambda u, w=wanted: pd.to_numeric(u, errors="coerce").isin(w)
                )
        return keep

    def _per_value(self, sessions: Sequence[str], column: str, test) -> np.ndarray:
        key = (tuple(sessions), column)
        if key not in self._factors:
            values = self.table(sessions)[column].to_numpy(dtype=object)
            codes, uniques = pd.factorize(values)
            self._factors[key] = (codes, pd.Series(uniques, dtype=object))
        codes, uniques = self._factors[key]
        hit = np.append(np.asarray(test(uniques), dtype=bool), False)  # code -1: no value
        return hit[codes]

    def check_nonempty(self) -> None:
        if self.kind == "session" and self.table(["current"]).empty:
            raise SpecError(NO_FILES)
        if self.kind != "session" and self._tables["current"].empty:
            what = "perf data has no samples" if self.kind == "perf" else "no sample files"
            raise SpecError(f"{self.label}: {what}")

    def values(self) -> pd.DataFrame:
        """The current session's rows (for completion hints)."""
        return self.table(["current"]) if self.kind == "session" else self._tables["current"]


def _session_table(session_dir: str | None, session: str) -> pd.DataFrame:
    files = scan_session(session_dir, session)  # type: ignore[arg-type]
    if not files:
        return empty_spec_table().assign(samples=pd.Series([], dtype=np.int64))
    table = parse_sample_paths(files).table
    table["samples"] = sample_counts(table["filename"])
    return table


def _perf_file(path: Path) -> pd.DataFrame:
    if path.suffix.lower() == ".json":
        samples = read_perf_json(path)
        return perf_sample_specs(samples)
    with open(path, "rb") as fh:
        head = fh.read(4096).decode("utf-8", "replace")
    # perf report output opens with '#' comment lines (a saved file may start with the
    # '$ perf report ...' command that wrote it); perf script output with sample lines
    lines = [line for line in head.splitlines() if line.strip() and not line.startswith("$ ")]
    if lines and all(line.startswith("#") for line in lines[:3]):
        if len(head) < 4096 and all(line.startswith("#") for line in lines):
            return empty_spec_table()  # only comments (perf report --header-only): no samples
        return perf_report_specs(read_perf_report(path))
    samples = read_perf_script(path)
    by_symbol = "symbol" in samples and bool((samples["symbol"] != "").any())
    return perf_sample_specs(samples, by_symbol=by_symbol)


def _listing(path: Path) -> tuple[pd.DataFrame, bool]:
    table = read_listing(path).table
    names = table["filename"].tolist()
    for base in (Path("."), path.parent):
        try:
            table["samples"] = sample_counts([str(base / n) for n in names])
            return table, True
        except (OSError, ValueError):
            continue
    return table, False


def load(source: Any, kind: str | None = None) -> Source:
    """Parse ``source`` once. ``kind`` forces "session", "listing" or "perf" for a path."""
    if isinstance(source, pd.DataFrame):
        if {"comm", "dso"} <= set(source.columns):
            by_symbol = "symbol" in source and bool((source["symbol"] != "").any())
            table = perf_sample_specs(source, by_symbol=by_symbol)
            return Source("perf", "(samples DataFrame)", _tables={"current": table})
        table = as_spec_table(source)
        return Source(
            "table", "spec table", has_samples="samples" in table, _tables={"current": table}
        )
    if (
        isinstance(source, Sequence)
        and not isinstance(source, str)
        and (not source or isinstance(source[0], SampleSpec))
    ):
        table = as_spec_table(list(source))
        return Source("table", "sample specs", has_samples=False, _tables={"current": table})
    if not isinstance(source, (str, PathLike)):
        raise FormatError(
            "ClassPicker reads a session directory, a sample-file listing, perf data "
            f"(path or samples DataFrame) or a spec table, not {type(source).__name__}"
        )
    path = Path(source)
    if not path.exists():
        raise FormatError(f"{text(path)}: no such file or directory")
    label = text(path)
    if path.is_dir() or kind == "session":
        return Source("session", label, session_dir=str(path))
    if kind is None:
        with open(path, "rb") as fh:
            head = fh.read(4096).decode("utf-8", "replace")
        first = next((line.strip() for line in head.splitlines() if line.strip()), "")
        is_listing = "{root}" in first or "{kern}" in first
        kind = "listing" if is_listing else "perf"
    if kind == "listing":
        table, has = _listing(path)
        return Source("listing", label, has_samples=has, _tables={"current": table})
    if kind == "perf":
        return Source("perf", label, _tables={"current": _perf_file(path)})
    raise ValueError(f"kind must be 'session', 'listing' or 'perf', not {kind!r}")
