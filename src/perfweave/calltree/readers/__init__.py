"""Readers, one module per format, and :func:`read`, which detects the format.

Each reader module defines ``read(path, **options) -> GraphFrame`` and
``sniff(path) -> bool`` (a cheap look at the file name and first bytes), and may define
``companion(path) -> bool`` (files its profiler writes beside a profile that are not
profiles). ``FORMATS`` lists them in detection order; the first whose ``sniff`` says yes
reads the file.
"""

from __future__ import annotations

import functools
import importlib
from os import PathLike
from pathlib import Path

from perfweave.errors import FormatError, OptionError, ParseError

# format name -> module under perfweave.calltree.readers (detection order)
FORMATS: dict[str, str] = {
    "hpctoolkit": "hpctoolkit",
    "hpctoolkit4": "hpctoolkit4",
    "tau": "tau",
    "cube": "cube",
    "cali": "cali",
    "caliper": "caliper_json",
    "hatchet-json": "hatchet_json",
    "literal": "literal",
    "timemory": "timemory",
    "pyinstrument": "pyinstrument",
    "cprofile": "cprofile",
    "gprof-dot": "gprof_dot",
    "perfflowaspect": "perfflowaspect",
    "trace-event": "trace_event",
    "perf-script": "perf_script",
    "speedscope": "speedscope",
}


def reader(fmt: str):
    """The reader module for a format name."""
    if fmt not in FORMATS:
        raise FormatError(f"unknown format {fmt!r}; known formats: {', '.join(FORMATS)}")
    return importlib.import_module(f"perfweave.calltree.readers.{FORMATS[fmt]}")


def available_formats() -> list[str]:
    """Formats whose reader module is present in this installation."""
    return list(_available_formats())


@functools.cache
def _available_formats() -> tuple[str, ...]:
    """Looked up once: detecting 10,000 files' format searched the disk for the same
    reader modules 10,000 times (most of ``Ensemble.from_files``' detection time)."""
    return tuple(
        fmt
        for fmt, mod in FORMATS.items()
        if importlib.util.find_spec(f"perfweave.calltree.readers.{mod}") is not None
    )


def detect(path: str | PathLike[str]) -> str:
    """The format of ``path`` (a file or a directory), or FormatError."""
    p = Path(path)
    if not p.exists():
        if p.is_symlink():  # a loop, or a link whose target is gone: not "no such file"
            raise ParseError(
                p, "a profile file or directory", found="a symbolic link that leads nowhere"
            )
        raise FileNotFoundError(2, "No such file or directory", str(p))
    for fmt in available_formats():
        if reader(fmt).sniff(p):
            return fmt
    raise FormatError(
        f"{p}: not a profile format perfweave recognises ({', '.join(available_formats())})"
    )


def read(path: str | PathLike[str], format: str | None = None, **options):
    """Read a profile of any supported format into a GraphFrame (format detected unless given).

    ``path`` may be a list of files of one run where the format reads several into one
    frame (PerfFlowAspect traces, one per rank); the first file decides the format.

    ``options`` go to the format's reader; one it does not take raises OptionError (a TypeError) naming
    the options it does take (readers accept ``**_`` for callers that pass the same
    options to several formats, so without this check a misspelt option did nothing).
    """
    first = path[0] if isinstance(path, (list, tuple)) and path else path
    fmt = format or detect(first)
    module = reader(fmt)
    known = reader_options(fmt)
    unknown = sorted(set(options) - set(known))
    if unknown:
        takes = ", ".join(known) or "no options"
        raise OptionError(
            f"the {fmt} reader has no option {', '.join(map(repr, unknown))} (it takes: {takes})"
        )
    return module.read(path, **options)


def is_companion(path: str | PathLike[str]) -> bool:
    """Whether ``path`` is a file a profiler writes beside its profiles that is no profile
    (Score-P's ``scorep.cfg``): a reader module may define ``companion(path) -> bool``.
    A directory given to ``Ensemble.from_files`` leaves such files out."""
    p = Path(path)
    for fmt in available_formats():
        test = getattr(reader(fmt), "companion", None)
        if test is not None and test(p):
            return True
    return False


def reader_options(fmt: str) -> list[str]:
    """The keyword options the reader of ``fmt`` takes."""
    import inspect

    params = list(inspect.signature(reader(fmt).read).parameters.values())[1:]
    return [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


import importlib.util  # noqa: E402  (used by available_formats)
