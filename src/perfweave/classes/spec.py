"""OProfile sample file names: the path grammar and the :class:`SampleSpec` record.

A sample file path says everything opreport needs to classify it::

    <session>/{root}/usr/bin/perl/{dep}/{root}/usr/lib/libc.so.6/EVENT.COUNT.UM.TGID.TID.CPU
    <session>/{root}/usr/bin/perl/{dep}/{kern}/ext4/...
    <session>/{root}/usr/bin/perl/{dep}/{anon:anon}/4242.0x7f00.0x7f10/...
    <session>/{root}/usr/bin/bash/{dep}/{root}/usr/bin/bash/{cg}/{root}/usr/lib/libc.so.6/...

The application image sits between the first ``{root}``/``{kern}`` and ``{dep}``; the image
the samples fell in (``lib_image``) follows ``{dep}``; an optional ``{cg}`` part names the
call-graph target. The last component has six dot-separated fields, as OProfile writes
them (``"%s.%d.%d."`` then ``%d`` or ``all`` three times): an event name, then the count and
unit mask in decimal, then tgid, tid and cpu in decimal or ``all`` where the session was not
separated by thread group, thread or CPU. Numbers have at most 18 digits (so every later
numeric step stays exact in int64); ``nan``, ``inf``, ``-1`` or ``0x10`` are refused.

:func:`parse_sample_path` parses one path with a precise error; :func:`parse_sample_paths`
parses many at once: one regular-expression pass over all paths splits off the six fields,
each distinct directory (one per application x image) is parsed once, and the per-path
parser only runs on rejected paths, to say why.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import astuple, dataclass, field
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from perfweave.errors import ArgumentError, ParseError, SkippedInputWarning, SpecError

#: Columns of a spec table, in :class:`SampleSpec` field order.
SPEC_COLUMNS = (
    "filename",
    "image",
    "lib_image",
    "cg_image",
    "event",
    "count",
    "unitmask",
    "tgid",
    "tid",
    "cpu",
)
EVENT_FIELDS = ("event", "count", "unitmask", "tgid", "tid", "cpu")
_BASES = ("{root}", "{kern}")
_EXPECTED_EVENT = "EVENT.COUNT.UNITMASK.TGID.TID.CPU (six non-empty fields)"
#: per event field: its pattern (a decimal of at most 18 digits, or also 'all')
_NUMBER = r"\d{1,18}"
_FIELD_PATTERNS = {
    "event": r"[^/.\n]+",
    "count": _NUMBER,
    "unitmask": _NUMBER,
    "tgid": rf"{_NUMBER}|all",
    "tid": rf"{_NUMBER}|all",
    "cpu": rf"{_NUMBER}|all",
}
_FIELD_RES = {f: re.compile(p) for f, p in _FIELD_PATTERNS.items()}


@dataclass(frozen=True, slots=True)
class SampleSpec:
    """What one sample file name says: images, event, count, unit mask, tgid, tid, cpu.

    Fields are strings as in the file name (``"all"`` where not separated); ``lib_image``
    equals ``image`` for samples in the application image itself.
    """

    filename: str
    image: str
    lib_image: str
    event: str
    count: str
    unitmask: str
    tgid: str
    tid: str
    cpu: str
    cg_image: str = field(default="")

    @property
    def is_dependent(self) -> bool:
        """Samples fell in another image than the application (a library, the kernel)."""
        return self.lib_image != self.image

    @property
    def is_callgraph(self) -> bool:
        """A call-graph arc file (``{cg}``); opreport ignores these without --callgraph."""
        return bool(self.cg_image)

    def as_row(self) -> tuple[str, ...]:
        """The values in :data:`SPEC_COLUMNS` order."""
        return (
            self.filename,
            self.image,
            self.lib_image,
            self.cg_image,
            *astuple(self)[3:9],
        )


def _anon_name(kind: str, region: str, path: str) -> str:
    """``{anon:NAME}`` + ``tgid.start.end`` -> ``NAME (tgid:T range:S-E)`` as opreport names it."""
    name = kind[len("{anon:") : -1]
    parts = region.split(".")
    if not name or len(parts) != 3 or not all(parts):
        raise ParseError(
            path, "an anonymous region '{anon:NAME}/TGID.START.END'", found=f"{kind}/{region}"
        )
    return f"{name} (tgid:{parts[0]} range:{parts[1]}-{parts[2]})"


def _image_after(parts: list[str], i: int, stop: str, path: str) -> tuple[str, int]:
    """Read the image named from ``parts[i]`` (a base marker) up to ``stop``; return (name, next)."""
    kind = parts[i]
    if kind.startswith("{anon:") and kind.endswith("}"):
        if i + 1 >= len(parts):
            raise ParseError(path, "TGID.START.END after " + kind, found=path)
        return _anon_name(kind, parts[i + 1], path), i + 2
    if kind not in _BASES:
        raise ParseError(path, "'{root}', '{kern}' or '{anon:...}' after '{dep}'", found=kind)
    j = i + 1
    names = []
    while j < len(parts) and parts[j] != stop:
        names.append(parts[j])
        j += 1
    if not names:
        raise ParseError(path, f"an image name after {kind}", found=path)
    return "/" + "/".join(names), j


def _parse_directory(dirname: str, path: str) -> tuple[str, str, str]:
    """(image, lib_image, cg_image) from the directory part of a sample file path."""
    parts = dirname.split("/")
    start = next((k for k, p in enumerate(parts) if p in _BASES), None)
    if start is None:
        raise ParseError(path, "a '{root}' or '{kern}' component", found=dirname)
    parts = parts[start:]
    try:
        dep = parts.index("{dep}", 1)
    except ValueError:
        raise ParseError(path, "a '{dep}' component after the application image") from None
    if dep < 2 or any(not p for p in parts[1:dep]):
        raise ParseError(path, "an application image before '{dep}'", found=dirname)
    image = "/" + "/".join(parts[1:dep])
    if dep + 1 >= len(parts):
        raise ParseError(path, "an image after '{dep}'", found=dirname)
    lib_image, j = _image_after(parts, dep + 1, "{cg}", path)
    cg_image = ""
    if j < len(parts):
        if parts[j] != "{cg}":
            raise ParseError(path, "'{cg}' or the event fields after " + lib_image, found=parts[j])
        if j + 1 >= len(parts):
            raise ParseError(path, "an image after '{cg}'", found=dirname)
        cg_image, k = _image_after(parts, j + 1, "\0", path)
        if k != len(parts):
            raise ParseError(path, "the event fields after the call-graph image", found=parts[k])
    if any(not p for p in parts[dep + 1 :]):
        raise ParseError(path, "no empty path components", found=dirname)
    return image, lib_image, cg_image


def parse_sample_path(path: str | PathLike[str]) -> SampleSpec:
    """Parse one sample file path into a :class:`SampleSpec` (raises :class:`ParseError`)."""
    text = str(path)
    if "\n" in text:
        raise ParseError(text, "a path on one line", found=text)
    dirname, sep, last = text.rpartition("/")
    if not sep:
        raise ParseError(text, "a sample file path with directories", found=text)
    fields = last.split(".")
    if len(fields) != 6 or not all(fields):
        raise ParseError(text, _EXPECTED_EVENT, found=last)
    for name, value in zip(EVENT_FIELDS, fields):
        if not _FIELD_RES[name].fullmatch(value):
            what = "or 'all' " if name in ("tgid", "tid", "cpu") else ""
            raise ParseError(
                text,
                f"a decimal {name} of at most 18 digits {what}in {_EXPECTED_EVENT}",
                found=value,
            )
    image, lib_image, cg_image = _parse_directory(dirname, text)
    return SampleSpec(text, image, lib_image, *fields, cg_image=cg_image)


def empty_spec_table() -> pd.DataFrame:
    """A spec table with no rows (string columns)."""
    return pd.DataFrame({c: pd.Series([], dtype=object) for c in SPEC_COLUMNS})


@dataclass
class ParsedPaths:
    """The result of parsing many paths: the spec table and the paths that did not parse.

    ``table`` has one row per good path with the :data:`SPEC_COLUMNS`; ``errors`` holds one
    :class:`ParseError` per bad path (naming the path and what was expected), in input order.
    """

    table: pd.DataFrame
    errors: list[ParseError] = field(default_factory=list)

    def specs(self) -> list[SampleSpec]:
        """The rows as :class:`SampleSpec` records."""
        cols = [self.table[c].tolist() for c in SPEC_COLUMNS]
        return [
            SampleSpec(f, i, li, e, c, u, tg, ti, cp, cg_image=cg)
            for f, i, li, cg, e, c, u, tg, ti, cp in zip(*cols)
        ]


# A path = directory + "/" + six non-empty dot-free fields; any other line matches the
# second branch with empty groups. One C-level pass over all paths joined by newlines.
_FIELDS_RE = r"\.".join(f"({_FIELD_PATTERNS[f]})" for f in EVENT_FIELDS)
_SPLIT_RE = re.compile(r"^(?:([^\n]*)/" + _FIELDS_RE + r"|[^\n]*)$", re.M)


def _split_paths(raw: np.ndarray) -> np.ndarray:
    """(directory, event, count, unitmask, tgid, tid, cpu) per path; empty strings if bad."""
    rows = _SPLIT_RE.findall("\n".join(raw))
    if len(rows) != len(raw):  # a path holds a newline: split them one by one
        rows = [_split_one(p) for p in raw]
    return np.array(rows, dtype=object).reshape(len(raw), 7)


def _split_one(path: str) -> tuple[str, ...]:
    match = None if "\n" in path else _SPLIT_RE.fullmatch(path)
    return match.groups("") if match else ("",) * 7


def parse_sample_paths(
    paths: Iterable[str | PathLike[str]], *, on_error: str = "raise"
) -> ParsedPaths:
    """Parse many sample file paths into a spec table, vectorised.

    ``on_error="raise"`` raises the first path's :class:`ParseError`; ``"collect"`` keeps the
    good rows and reports every bad path in :attr:`ParsedPaths.errors`.
    """
    if on_error not in ("raise", "collect"):
        raise ArgumentError(f"on_error must be 'raise' or 'collect', not {on_error!r}")
    raw = np.array([str(p) for p in paths], dtype=object)
    if len(raw) == 0:
        return ParsedPaths(empty_spec_table())
    rows = _split_paths(raw)
    # directories repeat (one per application x image): parse each distinct one once
    dir_codes, dirs = pd.factorize(rows[:, 0])
    images = np.empty((len(dirs), 3), dtype=object)
    dir_ok = np.ones(len(dirs), dtype=bool)
    for k, dirname in enumerate(dirs):
        try:
            images[k] = _parse_directory(dirname, dirname)
        except ParseError:
            dir_ok[k] = False
    ok = dir_ok[dir_codes] & (rows[:, 1] != "")
    errors: list[ParseError] = []
    # only the rejected paths: say precisely why (the fast path accepts exactly what
    # parse_sample_path accepts; test_vectorised_and_per_path_parsers_agree checks it)
    for pos in np.flatnonzero(~ok):
        try:
            parse_sample_path(raw[pos])
        except ParseError as exc:
            if on_error == "raise":
                raise
            errors.append(exc)
    at = dir_codes[ok]
    table = pd.DataFrame(
        {
            "filename": raw[ok],
            "image": images[at, 0],
            "lib_image": images[at, 1],
            "cg_image": images[at, 2],
            **{c: rows[ok, k + 1] for k, c in enumerate(EVENT_FIELDS)},
        },
        copy=False,
    )
    return ParsedPaths(table[list(SPEC_COLUMNS)], errors)


def specs_table(specs: Sequence[SampleSpec]) -> pd.DataFrame:
    """A spec table from :class:`SampleSpec` records."""
    if not specs:
        return empty_spec_table()
    return pd.DataFrame([s.as_row() for s in specs], columns=list(SPEC_COLUMNS), dtype=object)


def read_listing(path: str | PathLike[str], *, on_error: str = "raise") -> ParsedPaths:
    """Parse a listing file: one sample file path per line (blank lines ignored).

    Bad paths raise (``on_error="raise"``) or are reported in ``errors`` with their line
    number (``"collect"``); they are never dropped silently.
    """
    raw = Path(path).read_bytes()
    try:
        lines = raw.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ParseError(path, "a UTF-8 listing of sample file paths", line=line) from None
    numbered = [(n, line.strip()) for n, line in enumerate(lines, 1) if line.strip()]
    line_of = {p: n for n, p in numbered}

    def at_line(exc: ParseError) -> ParseError:
        detail = "" if exc.found in (None, exc.path) else f" (at {exc.found!r})"
        return ParseError(path, exc.expected + detail, line=line_of.get(exc.path), found=exc.path)

    try:
        parsed = parse_sample_paths([p for _, p in numbered], on_error=on_error)
    except ParseError as exc:
        raise at_line(exc) from None
    parsed.errors = [at_line(e) for e in parsed.errors]
    return parsed


def scan_session(session_dir: str | PathLike[str], session: str = "current") -> list[str]:
    """Sample file paths of one session (``<dir>/samples/<session>``), sorted like opreport.

    Only files under ``{root}`` or ``{kern}`` count, as in opreport; the list is sorted by
    path so that every later step sees opreport's order. The tree is walked without
    recursion (any depth); symbolic links to directories are not followed. A directory
    named like a sample file, or one that cannot be listed, is skipped with a
    :class:`~perfweave.errors.SkippedInputWarning` naming it. A ``session_dir`` that does
    not exist is a :class:`~perfweave.errors.SpecError` saying so; an existing one without
    the session gives no files (opreport's "No sample file found").
    """
    root = Path(session_dir)
    absolute = session.startswith(("/", "."))
    if not absolute and not root.is_dir():
        what = "is not a directory" if root.exists() else "does not exist"
        raise SpecError(f"session directory {str(root)!r} {what}")
    base = Path(session) if absolute else root / "samples" / session
    if not base.is_dir():
        return []
    files: list[str] = []
    stack = [str(base / top) for top in _BASES if (base / top).is_dir()]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        if _looks_like_sample_file(entry.name):
                            _skip(entry.path, "a directory where a sample file should be")
                        else:
                            stack.append(entry.path)
                    elif entry.is_file():
                        files.append(entry.path)
        except OSError as exc:
            _skip(folder, f"a directory that cannot be listed ({exc.strerror or exc})")
    return sorted(files)


def _looks_like_sample_file(name: str) -> bool:
    fields = name.split(".")
    return len(fields) == 6 and all(
        _FIELD_RES[f].fullmatch(v) for f, v in zip(EVENT_FIELDS, fields)
    )


def _skip(path: str, what: str) -> None:
    warnings.warn(f"{path}: skipped, {what}", SkippedInputWarning, stacklevel=3)
