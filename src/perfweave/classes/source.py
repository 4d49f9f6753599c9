"""Inputs of profile classes: what a path holds, read once into one spec table.

:func:`detect_kind` says what a path is (an OProfile session directory or a ``.tar.gz`` of
one, a sample-file listing, ``perf script`` text, ``perf report --stdio`` output or perf
JSON) from its name and first bytes, the way the CLI treats it. :func:`load_source` reads
any of those (or a spec table, :class:`SampleSpec` records, a samples DataFrame) once into
a :class:`ClassSource`: the spec table with sample counts per session, its integer codes,
and masks per profile specification computed per distinct value. Every later choice of
spec, merge or axis only masks and re-arranges this table; nothing is parsed again.
:func:`session_archive` unpacks a session archive safely (regular files and folders only,
no member outside the archive, within :class:`ArchiveLimits`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfweave.classes.archive import ArchiveLimits, UnpackedSession, is_session_archive
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


#: what :func:`detect_kind` finds a path to be
KINDS = ("session", "session-archive", "listing", "perf-json", "perf-report", "perf-script")

#: what to do when ``perf report`` output has percentages but no sample counts
PERF_REPORT_COUNTS_HINT = (
    "this perf report output has percentages but no sample counts: run `perf report "
    "--stdio -n` (--show-nr-samples) or add `sample` to its -F/--fields to print them, or "
    "give `perf script` output instead"
)


@dataclass
class ClassSource:
    """The parsed input of profile classes: ``kind`` (``"session"``, ``"listing"``,
    ``"table"`` or ``"perf"``), a label, and the spec table per session.

    ``has_samples`` says whether the rows carry sample counts; ``missing_counts`` says why
    not and how to get them where that is known (perf report output without counts).
    """

    kind: str  # "session" | "listing" | "table" | "perf"
    label: str
    session_dir: str | None = None
    has_samples: bool = True
    missing_counts: str = ""
    #: the unpacked copy of a session archive, kept (and removed) with this source
    unpacked: UnpackedSession | None = None
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
        if not self.table(["current"]).empty:
            return
        if self.kind == "session":
            raise SpecError(NO_FILES)
        what = "perf data has no samples" if self.kind == "perf" else "no sample files"
        raise SpecError(f"{self.label}: {what}")

    def values(self) -> pd.DataFrame:
        """The current session's rows (for completion hints)."""
        return self.table(["current"])


def _session_table(session_dir: str | None, session: str) -> pd.DataFrame:
    files = scan_session(session_dir, session)  # type: ignore[arg-type]
    if not files:
        return empty_spec_table().assign(samples=pd.Series([], dtype=np.int64))
    table = parse_sample_paths(files).table
    table["samples"] = sample_counts(table["filename"])
    return table


def _head(path: Path) -> str:
    with open(path, "rb") as fh:
        return fh.read(4096).decode("utf-8", "replace")


def detect_kind(path: str | PathLike[str]) -> str:
    """What ``path`` holds, one of :data:`KINDS`, from its name and first 4 KiB.

    A directory is a session, a ``.tar.gz``/``.tgz``/``.tar`` file a session archive, a
    ``.json`` file perf JSON (``perf data convert --to-json``); a text file whose first
    line names ``{root}`` or ``{kern}`` is a sample-file listing, one that opens with
    ``#`` comment lines (after an optional ``$ perf report ...`` line) ``perf report``
    output, anything else ``perf script`` text. A missing path is a
    :class:`~perfweave.errors.FormatError`.
    """
    path = Path(path)
    if path.is_dir():
        return "session"
    if not path.exists():
        raise FormatError(f"{text(path)}: no such file or directory")
    if is_session_archive(path):
        return "session-archive"
    if path.suffix.lower() == ".json":
        return "perf-json"
    head = _head(path)
    first = next((line.strip() for line in head.splitlines() if line.strip()), "")
    if "{root}" in first or "{kern}" in first:
        return "listing"
    lines = [line for line in head.splitlines() if line.strip() and not line.startswith("$ ")]
    if lines and all(line.startswith("#") for line in lines[:3]):
        return "perf-report"
    return "perf-script"


def _perf_file(path: Path, kind: str) -> tuple[pd.DataFrame, str]:
    """The spec table of a perf file and, for report output without counts, why not."""
    if kind == "perf-json":
        return perf_sample_specs(read_perf_json(path)), ""
    if kind == "perf-report":
        head = _head(path)
        lines = [ln for ln in head.splitlines() if ln.strip() and not ln.startswith("$ ")]
        if len(head) < 4096 and all(line.startswith("#") for line in lines):
            return empty_spec_table(), ""  # only comments (perf report --header-only)
        table = perf_report_specs(read_perf_report(path))
        return table, "" if "samples" in table else PERF_REPORT_COUNTS_HINT
    samples = read_perf_script(path)
    by_symbol = "symbol" in samples and bool((samples["symbol"] != "").any())
    return perf_sample_specs(samples, by_symbol=by_symbol), ""


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


def load_source(
    source: Any, kind: str | None = None, *, archive_limits: ArchiveLimits | None = None
) -> ClassSource:
    """Read ``source`` once into a :class:`ClassSource`.

    ``source``: a path (see :func:`detect_kind`; a session archive is unpacked, within
    ``archive_limits``, into a temporary folder kept as long as the source), a spec table
    or samples DataFrame, or :class:`SampleSpec` records. ``kind`` forces how a path is
    read: ``"session"``, ``"listing"`` or ``"perf"``.
    """
    if isinstance(source, pd.DataFrame):
        if {"comm", "dso"} <= set(source.columns):
            by_symbol = "symbol" in source and bool((source["symbol"] != "").any())
            table = perf_sample_specs(source, by_symbol=by_symbol)
            return ClassSource("perf", "(samples DataFrame)", _tables={"current": table})
        table = as_spec_table(source)
        return ClassSource(
            "table", "spec table", has_samples="samples" in table, _tables={"current": table}
        )
    if (
        isinstance(source, Sequence)
        and not isinstance(source, str)
        and (not source or isinstance(source[0], SampleSpec))
    ):
        table = as_spec_table(list(source))
        return ClassSource("table", "sample specs", has_samples=False, _tables={"current": table})
    if not isinstance(source, (str, PathLike)):
        raise FormatError(
            "profile classes read a session directory (or a .tar.gz of one), a sample-file "
            "listing, perf data (path or samples DataFrame) or a spec table, not "
            f"{type(source).__name__}"
        )
    if kind not in (None, "session", "listing", "perf"):
        raise FormatError(f"kind must be 'session', 'listing' or 'perf', not {kind!r}")
    path = Path(source)
    found = detect_kind(path)
    label = text(path)
    if found == "session-archive" and kind in (None, "session"):
        unpacked = UnpackedSession(path, archive_limits)
        return ClassSource("session", label, session_dir=unpacked.path, unpacked=unpacked)
    if found == "session" or kind == "session":
        return ClassSource("session", label, session_dir=str(path))
    if kind == "listing" or (kind is None and found == "listing"):
        table, has = _listing(path)
        return ClassSource("listing", label, has_samples=has, _tables={"current": table})
    perf_kind = found if found.startswith("perf-") else "perf-script"
    table, why = _perf_file(path, perf_kind)
    return ClassSource(
        "perf",
        label,
        has_samples="samples" in table or table.empty,
        missing_counts=why,
        _tables={"current": table},
    )
