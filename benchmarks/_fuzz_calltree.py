"""Fuzz targets for the calltree readers and writers (used by ``python -m benchmarks fuzz``
and ``tests/fuzz/test_fuzz_calltree.py``).

Each :class:`~benchmarks._fuzz_core.Target` mutates real profiles from ``tests/data`` and
reads them with the format given (so a mutant is parsed by the reader under test, not
rejected by format detection). Directory formats (TAU, HPCToolkit) mutate one file and
copy the rest of the directory beside it. ``*-write`` targets also run the writers (text
tree, literal JSON, folded stacks, DOT) on what was read, since names and numbers that
survive a reader must not break an output format.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from benchmarks._fuzz_core import Target

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "hatchet"
#: seeds perfweave derived from the bundled data (see the README there)
SEEDS = DATA.parent / "fuzz_regressions" / "calltree" / "seeds"


def _files(*names: str) -> tuple[Path, ...]:
    return tuple(DATA / n for n in names)


def _reader(fmt: str, *, directory: bool = False) -> Callable[[Path], object]:
    """Read a mutant (or, for directory formats, the directory it sits in) as ``fmt``."""

    def parse(path: Path) -> object:
        from perfweave.calltree.readers import read

        return read(path.parent if directory else path, format=fmt)

    parse.__name__ = f"read_{fmt.replace('-', '_')}"
    return parse


def _read_and_write(fmt: str) -> Callable[[Path], object]:
    """Read a mutant as ``fmt`` and run every writer on the result."""

    def parse(path: Path) -> object:
        from perfweave.calltree.readers import read

        gf = read(path, format=fmt)
        gf.tree(color=False, depth=50)
        json.dumps(gf.to_literal())
        gf.to_flamegraph()
        gf.to_dot()
        return gf

    parse.__name__ = f"read_write_{fmt.replace('-', '_')}"
    return parse


def _ensemble_skip(path: Path) -> object:
    """Lenient ensemble reading: a mutant beside good profiles is skipped, never fatal."""
    from perfweave.ensemble import Ensemble

    return Ensemble.from_files(
        sorted(str(p) for p in path.parent.iterdir()), on_error="skip", progress=False
    )


def _ensemble_json(path: Path) -> object:
    """An ensemble written as JSON (Thicket's layout) read back."""
    from perfweave.ensemble import Ensemble

    return Ensemble.from_json(path)


def _hpctoolkit4(path: Path) -> object:
    """A database v4 with one mutated file: the summary read, then every profile (cct.db)
    with every metric, so all three files are parsed whichever was mutated."""
    from perfweave.calltree.readers import read

    read(path.parent, format="hpctoolkit4")
    return read(path.parent, format="hpctoolkit4", per_profile=True, metric_names="all")


def _perfflowaspect(path: Path) -> object:
    """A trace read per call and with merged call paths."""
    import warnings

    from perfweave.calltree.readers import read

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unterminated arrays, unmatched B/E: named warnings
        read(path, format="perfflowaspect")
        return read(path, format="perfflowaspect", merge_calls=True)


def _trace_event(path: Path) -> object:
    """Any producer's trace: read per call (the PerfFlowAspect reader) and as calltrees by
    the trace-event reader, frames by name and by name and args, then written (calls may
    nest thousands deep: the literal JSON through perfweave's any-depth encoder)."""
    import warnings

    from perfweave.calltree import deepjson
    from perfweave.calltree.readers import read

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unterminated arrays, unmatched B/E: named warnings
        read(path, format="perfflowaspect")
        read(path, format="trace-event", split_args=True)
        gf = read(path, format="trace-event")
    gf.tree(color=False, depth=50)
    deepjson.dumps(gf.to_literal())
    return gf


def _cube(path: Path) -> object:
    """A Cube 4 archive (Score-P .cubex) read through pycubexr."""
    import warnings

    from perfweave.calltree.readers import read

    with warnings.catch_warnings():
        # pycubexr's note on a tar header checksum it repairs, skipped metric types: named
        warnings.simplefilter("ignore")
        return read(path, format="cube")


def _perf_script(path: Path) -> object:
    """A perf script mutant read, then written by every writer (a stack may be thousands of
    frames deep: the literal JSON through perfweave's any-depth encoder)."""
    from perfweave.calltree import deepjson
    from perfweave.calltree.readers import read

    gf = read(path, format="perf-script")
    gf.tree(color=False, depth=50)
    deepjson.dumps(gf.to_literal())
    gf.to_flamegraph()
    gf.to_dot()
    return gf


def _cube_member(path: Path) -> object:
    """One member of a Cube archive mutated (anchor.xml, a metric's index or data), put
    back into the archive it came from, read: the mutation reaches pycubexr's decoding
    instead of breaking the tar around it."""
    import io
    import tarfile
    import tempfile

    mutant = path.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:  # never beside a kept case
        packed = Path(tmp) / "profile.cubex"
        with tarfile.open(_CUBE_MM) as tin, tarfile.open(packed, "w") as tout:
            for member in tin.getmembers():
                data = mutant if member.name == path.name else tin.extractfile(member).read()
                info = tarfile.TarInfo(member.name)
                info.size = len(data)
                tout.addfile(info, io.BytesIO(data))
        return _cube(packed)


_V4 = DATA.parent / "hatchet-more" / "hatchet_cpi_v4_database"
_V4_FILES = {name: _V4 / name for name in ("meta.db", "profile.db", "cct.db")}
_PFW = DATA.parent / "hatchet-more"
#: speedscope's odd trace-event inputs, and a trace of odd but valid values (seeds/)
_SPEEDSCOPE = DATA.parent / "speedscope-trace-event"
_TAU = sorted((DATA / "tau-cpi-mpi").glob("profile.*"))
_HPC = DATA / "hpctoolkit-cpi-database"
_HPC_DB = sorted(_HPC.glob("*.metric-db"))
_SPOT = sorted((DATA / "spotdb").glob("*.cali"))
_CUBE = DATA.parent / "cube"
#: the archive the cube-members seeds come from (seeds/cube/ holds its members)
_CUBE_MM = _CUBE / "experiments" / "mm.x1y1z1.r1" / "profile.cubex"

TARGETS: list[Target] = [
    Target(
        "caliper-json",
        _files(
            "caliper-cpi-json/cpi-callpath-profile.json",
            "caliper-lulesh-json/lulesh-annotation-profile.json",
            "caliper-ordered-json/caliper-region-node-order.json",
        ),
        _reader("caliper"),
    ),
    Target(
        "cali",
        _files(
            "caliper-example-cali/example-profile.cali",
            "caliper-ordered-cali/230525-151052_1930517_eWbGeyrlBOPT.cali",
            "caliper-ordered-cali-mpi/230525-151723_1930647_FSY8b8cKSEEi.cali",
            "caliper-sw4-cuda-activity-cali/caliper_cuda_activity_profile.cali",
        ),
        _reader("cali"),
    ),
    Target("literal", (SEEDS / "literal.json",), _reader("literal")),
    Target("literal-write", (SEEDS / "literal.json",), _read_and_write("literal")),
    Target("hatchet-json", _files("json/hatchet-graph-literal.json"), _reader("hatchet-json")),
    Target(
        "hatchet-json-write",
        _files("json/hatchet-graph-literal.json"),
        _read_and_write("hatchet-json"),
    ),
    Target(
        "pyinstrument",
        _files("pyinstrument-hatchet-json/pyinstrument-hatchet-profile.json"),
        _reader("pyinstrument"),
    ),
    Target(
        "cprofile",
        _files(
            "cprofile-hatchet-pstats/cprofile-cycle.pstats",
            "cprofile-hatchet-pstats/cprofile-cycle-py2.pstats",
        ),
        _reader("cprofile"),
    ),
    Target("gprof-dot", _files("gprof2dot-cpi/callgrind.dot.64042.0.1"), _reader("gprof-dot")),
    Target(
        "gprof-dot-write",
        _files("gprof2dot-cpi/callgrind.dot.64042.0.1"),
        _read_and_write("gprof-dot"),
    ),
    Target("tau", tuple(_TAU[:1]), _reader("tau", directory=True), companions=tuple(_TAU[1:])),
    Target("timemory", _files("timemory/wall.tree.json"), _reader("timemory")),
    Target(
        "hpctoolkit-xml",
        (_HPC / "experiment.xml",),
        _reader("hpctoolkit", directory=True),
        companions=tuple(_HPC_DB),
    ),
    Target(
        "hpctoolkit-metric-db",
        tuple(_HPC_DB[:1]),
        _reader("hpctoolkit", directory=True),
        companions=(_HPC / "experiment.xml", *_HPC_DB[1:]),
    ),
    *(
        Target(
            f"hpctoolkit4-{name.split('.')[0]}",
            (seed,),
            _hpctoolkit4,
            companions=tuple(p for n, p in _V4_FILES.items() if n != name),
        )
        for name, seed in _V4_FILES.items()
    ),
    Target(
        "perfflowaspect",
        (
            _PFW / "perfflowaspect-smoketests" / "array_verbose.pfw",
            _PFW / "perfflowaspect-smoketests" / "object_compact_adiak.pfw",
            _PFW / "perfflowaspect-cpu-mem" / "smoketest3.withusage.array.turing.pfw",
            _PFW / "perfflowaspect-laghos" / "laghos_1iter.pfw",
        ),
        _perfflowaspect,
    ),
    Target(
        "trace-event",
        (SEEDS / "trace_values.json", *sorted(_SPEEDSCOPE.glob("*.json"))),
        _trace_event,
    ),
    Target(
        "cube",
        (
            _CUBE / "experiments" / "mm.x1y1z1.r1" / "profile.cubex",
            _CUBE / "test_only_files" / "cube-values_example.cubex",
            _CUBE / "scorep-cpi-cubex" / "profile.cubex",
        ),
        _cube,
    ),
    Target(
        "cube-members",
        tuple(SEEDS / "cube" / name for name in ("anchor.xml", "1.index", "1.data", "2.data")),
        _cube_member,
    ),
    Target("ensemble-skip", tuple(_SPOT[:1]), _ensemble_skip, companions=tuple(_SPOT[1:])),
    Target(
        "ensemble-json",
        (DATA.parent / "thicket" / "example-json" / "user_ensemble.json",),
        _ensemble_json,
    ),
    # speedscope's perf script samples, read and written (symbols are free text)
    Target(
        "perf-script",
        tuple(sorted((DATA.parent / "speedscope-linux-perf").glob("*.txt"))),
        _perf_script,
    ),
    # speedscope's JSON samples: evented, sampled, and one speedscope refuses
    Target(
        "speedscope",
        tuple(sorted((DATA.parent / "speedscope-json").rglob("*.json"))),
        _reader("speedscope"),
    ),
]
