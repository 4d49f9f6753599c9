"""Extra-P's inputs as ensembles: ``Ensemble.from_extrap(path)``.

Reads every input format Extra-P 4.2 reads (its text format, JSON in both layouts, JSON
Lines, Talpas, a directory of Cube experiments, and its saved ``.extra-p`` experiments)
into an :class:`~perfweave.ensemble.Ensemble`: one profile per point and repetition, a
metadata column per parameter (and ``repetition``, ``file``), call paths as nodes and
metrics as columns, so ``ens.models(metric, params)`` and the ScalingView give the
models Extra-P gives for the same input (see docs/ensemble.md, "Extra-P's inputs").

Which reader: ``format=`` one of :data:`FORMATS`, else by the path: a directory is a Cube
set; ``.extra-p`` a saved experiment; ``.jsonl`` JSON Lines; ``.json`` JSON (JSON Lines if
it holds one object per line, as Extra-P's ``--json`` reads it); other files by their
first line: an object with ``"parameters"`` and ``;`` is Talpas, another object JSON
Lines, ``{`` alone JSON, a ZIP archive a saved experiment, else the text format.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path

from perfweave.ensemble.ensemble import Ensemble
from perfweave.errors import FormatError

#: the formats by name (Extra-P's command line options, and jsonlines / extra-p)
FORMATS = ("text", "json", "jsonlines", "talpas", "cube", "extra-p")
_ZIP = b"PK\x03\x04"


def detect(path: Path) -> str:
    """The format of an Extra-P input (see the module docstring)."""
    if path.is_dir():
        return "cube"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or directory")
    suffix = path.suffix.lower()
    if suffix == ".extra-p":
        return "extra-p"
    if suffix == ".jsonl":
        return "jsonlines"
    if suffix == ".json":
        return "json"
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if head.startswith(_ZIP):
        return "extra-p"
    first = next((line.strip() for line in head.splitlines() if line.strip()), b"")
    if first.startswith(b"{"):
        if first.rstrip(b"\r\n").endswith(b"}"):
            return "talpas" if b'"parameters"' in first and b";" in first else "jsonlines"
        return "json"
    return "text"


def read_extrap(
    path: str | PathLike[str], format: str | None = None, scaling: str = "weak"
) -> Ensemble:
    """See :meth:`Ensemble.from_extrap`."""
    from perfweave.ensemble.extrap._layout import to_ensemble

    where = Path(path)
    fmt = format or detect(where)
    if fmt not in FORMATS:
        raise FormatError(f"format {fmt!r}: Extra-P's formats are {', '.join(FORMATS)}")
    if fmt == "cube":
        from perfweave.ensemble.extrap.cube_set import read_cube_set

        return read_cube_set(where, scaling=scaling)
    if not where.exists():
        raise FileNotFoundError(f"{where}: no such file")
    if where.is_dir():
        raise FormatError(f"{where} is a directory: only a Cube set (format 'cube') is one")
    if fmt == "extra-p":
        from perfweave.ensemble.extrap.saved import STATISTICS, read_saved

        exp, stats = read_saved(where)
        return _saved_ensemble(exp, stats, STATISTICS)
    if fmt == "text":
        from perfweave.ensemble.extrap.text import read_text as reader
    elif fmt == "json":
        from perfweave.ensemble.extrap.json_input import read_json as reader
    elif fmt == "jsonlines":
        from perfweave.ensemble.extrap.jsonlines import read_jsonlines as reader
    else:
        from perfweave.ensemble.extrap.jsonlines import read_talpas as reader
    return to_ensemble(reader(where))


def _saved_ensemble(exp, stats: dict, names: dict) -> Ensemble:
    """A saved experiment: the means, each statistic as ``<metric> <stat>`` and the
    metadata ``repetitions`` (the most values any function has at the point)."""
    from perfweave.ensemble.extrap._layout import to_ensemble

    reps: dict = {}
    for (callpath, metric), at in stats.items():
        for point, more in at.items():
            for key, suffix in names.items():
                exp.add(callpath, f"{metric} {suffix}", point, [more[key]], {})
            reps[point] = max(reps.get(point, 0), more["repetitions"])
    ens = to_ensemble(exp, {p: {"repetitions": n} for p, n in reps.items()})
    return ens


__all__ = ["FORMATS", "detect", "read_extrap"]
