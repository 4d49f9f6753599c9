"""Example data shipped inside perfweave, returned as ready objects.

Every dataset is a few real (or, for OProfile, synthetic) profiles copied into the package
(``perfweave/examples/data/``, origin and license in its ``README.md``), so notebooks, the
demo and Binder need no download::

    import perfweave as pw

    pw.datasets.list()                  # name, what it returns, origin, license
    gf = pw.datasets.cpi()              # GraphFrame: Caliper profile of cpi, 4 MPI ranks
    ens = pw.datasets.mpi_scaling()     # Ensemble: 5 runs, 27..343 ranks
    mm = pw.datasets.matmul_scaling()   # Ensemble: 9 Score-P runs, x = 1..2000
    wrf = pw.datasets.wrf_alltoallv()   # CountsProfile: WRF, 160 ranks, 4 alltoallv calls
    pw.datasets.path("wrf_alltoallv")   # where the files are, for readers and the CLI

Each call reads the files again and returns a new object, so changing it in place (as
``drop_index_levels`` does) never affects the next call.
"""

from __future__ import annotations

import atexit
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from perfweave.errors import PerfweaveError
from perfweave.examples import path as _example_path

if TYPE_CHECKING:  # pragma: no cover
    from perfweave.calltree.graphframe import GraphFrame
    from perfweave.counts import CountsProfile
    from perfweave.ensemble import Ensemble
    from perfweave.merge.subexperiments import Subexperiments

_HATCHET = "LLNL Hatchet tests/data @ 79c009b (v2024.1.0)"
_THICKET = "LLNL Thicket tests/data @ 5f2d9af"
_LLNL_MIT = "MIT (LLNS)"
_CP = "gvallee/collective_profiler"
_CP_LICENSE = "BSD-3-Clause (Mellanox Technologies)"


@dataclass(frozen=True)
class _Dataset:
    name: str
    returns: str
    files: str
    description: str
    origin: str
    license: str


_CATALOG: tuple[_Dataset, ...] = (
    _Dataset(
        "cpi",
        "GraphFrame",
        "cpi-callpath-profile.json",
        "Caliper json-split callpath profile of cpi: 127 nodes, 4 MPI ranks",
        _HATCHET,
        _LLNL_MIT,
    ),
    _Dataset(
        "lulesh",
        "GraphFrame",
        "lulesh-annotation-profile.cali",
        "native Caliper .cali annotation profile of LULESH: 19 regions",
        _HATCHET,
        _LLNL_MIT,
    ),
    _Dataset(
        "hatchet_literal",
        "GraphFrame",
        "hatchet-graph-literal.json",
        "Hatchet's JSON format: a small two-root calltree (24 nodes)",
        _HATCHET,
        _LLNL_MIT,
    ),
    _Dataset(
        "calltree_formats",
        "dict",
        "formats",
        "one small profile per format perfweave reads: format name -> GraphFrame",
        _HATCHET,
        _LLNL_MIT,
    ),
    _Dataset(
        "mpi_scaling",
        "Ensemble",
        "mpi_scaling",
        "one MPI program on 27, 64, 125, 216 and 343 ranks (5 .cali, 45 nodes)",
        _THICKET,
        _LLNL_MIT,
    ),
    _Dataset(
        "matmul_scaling",
        "Ensemble",
        "matmul_scaling",
        "Score-P Cube profiles of a matrix multiplication at 9 sizes x = 1..2000, named "
        "the Extra-P way and read by Ensemble.from_extrap (4 call paths, time, visits, "
        "PAPI counters)",
        "extra-p/extrap tests/data/cubeset/single_parameter @ v4.2.5 (291ac81)",
        "BSD-3-Clause (Technical University of Darmstadt)",
    ),
    _Dataset(
        "rajaperf",
        "Ensemble",
        "rajaperf",
        "RAJAPerf: 5 Base_Seq runs on quartz, 4 Base_CUDA runs on lassen (2 sizes, 2 blocks)",
        _THICKET,
        _LLNL_MIT,
    ),
    _Dataset(
        "alltoallv",
        "CountsProfile",
        "alltoallv",
        "compact send/recv count files of a 4-rank alltoallv test",
        f"{_CP} tests/alltoallv_dt_c @ 2303e38",
        _CP_LICENSE,
    ),
    _Dataset(
        "wrf_alltoallv",
        "CountsProfile",
        "wrf_alltoallv",
        "WRF on 160 ranks (4 nodes x 40): 4 alltoallv calls, timings of communicator 0",
        f"{_CP} examples/result_task2_wrf_run-at-20210608-150432 @ d9f6f96",
        _CP_LICENSE,
    ),
    _Dataset(
        "wrf_call_sites",
        "CountsProfile",
        "wrf_call_sites",
        "WRF on 160 ranks: all 964 alltoallv calls (compact counts), the 10 backtraces of their "
        "call sites, timings of communicator 0; profile.call_sites() weaves them",
        f"{_CP} examples/result_task2_wrf_run-at-20210608-150432 @ d9f6f96",
        _CP_LICENSE,
    ),
    _Dataset(
        "oprofile_session",
        "Path",
        "opsession_*.tar.gz",
        "synthetic OProfile sessions (libodb sample files): sep, nosep, um_cpu, many",
        "made for perfweave (OProfile 1.4.0 libodb format)",
        "MIT (perfweave)",
    ),
    _Dataset(
        "perf_script",
        "DataFrame",
        "perf/perf-script.txt",
        "`perf script` of perl and bash loops (perf 6.1, task-clock, 344 samples)",
        "made for perfweave with Linux perf 6.1",
        "MIT (perfweave)",
    ),
    _Dataset(
        "hem_vignette",
        "Subexperiments",
        "perfweave/merge/data/data_{hrm,much}_raw_vignette.csv",
        "NXP T2080 hardware events: HRM (3 x 6 PMCs) and MUCH (24 x 6 PMCs) vignettes",
        "R package mergingTools 1.0.1 (CRAN) @ 31482b7",
        "GPL-3 (data)",
    ),
)

_BY_NAME = {d.name: d for d in _CATALOG}
OPROFILE_SESSIONS = ("sep", "nosep", "um_cpu", "many")
RAJAPERF_MACHINES = ("quartz", "lassen")
HEM_VIGNETTES = ("hrm", "much")


def _choose(kind: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise PerfweaveError(
            f"unknown {kind} {value!r}: expected one of {', '.join(map(repr, choices))}"
        )
    return value


def list() -> pd.DataFrame:
    """The bundled datasets: one row per function, with what it returns, origin and license."""
    rows = [
        {
            "name": d.name,
            "returns": d.returns,
            "description": d.description,
            "origin": d.origin,
            "license": d.license,
        }
        for d in _CATALOG
    ]
    return pd.DataFrame(rows).set_index("name")


def path(name: str) -> Path:
    """The file or directory of a dataset (for readers, widgets and the command line).

    ``name`` is a dataset (``"wrf_alltoallv"``, ``"mpi_scaling"``...); an OProfile session
    is extracted first (:func:`oprofile_session`), the HEM vignettes are the directory of
    the CSV files.
    """
    _choose("dataset", name, tuple(_BY_NAME))
    if name == "oprofile_session":
        return oprofile_session()
    if name == "hem_vignette":
        from importlib import resources

        return Path(str(resources.files("perfweave.merge") / "data"))
    return _example_path(_BY_NAME[name].files)


def cpi() -> GraphFrame:
    """Caliper callpath profile of cpi (json-split): 127 nodes, ``rank`` index level (4)."""
    from perfweave.calltree.readers import read

    return read(_example_path("cpi-callpath-profile.json"), node_ordering=False)


def lulesh() -> GraphFrame:
    """Native Caliper profile of LULESH with region annotations (``.cali``)."""
    from perfweave.calltree.readers import read

    return read(_example_path("lulesh-annotation-profile.cali"))


def hatchet_literal() -> GraphFrame:
    """Hatchet's JSON example: two roots, metrics ``time`` and ``time (inc)``."""
    from perfweave.calltree.readers import read

    return read(_example_path("hatchet-graph-literal.json"))


#: format name -> bundled profile in that format (a file, or a directory for TAU and HPCToolkit)
CALLTREE_FORMATS: dict[str, str] = {
    "Caliper json-split": "cpi-callpath-profile.json",
    "Caliper .cali": "lulesh-annotation-profile.cali",
    "Hatchet JSON": "hatchet-graph-literal.json",
    "HPCToolkit database": "formats/hpctoolkit-cpi-database",
    "TAU profiles": "formats/tau-cpi-mpi",
    "timemory JSON": "formats/timemory/wall.tree.json",
    "pyinstrument JSON": "formats/pyinstrument-hatchet-json/pyinstrument-hatchet-profile.json",
    "gprof2dot DOT": "formats/gprof2dot-cpi/callgrind.dot.64042.0.1",
    "cProfile pstats": "formats/cprofile-hatchet-pstats/cprofile-cycle.pstats",
}


def calltree_format_path(name: str) -> Path:
    """The bundled profile in format ``name`` (a key of :data:`CALLTREE_FORMATS`)."""
    return _example_path(CALLTREE_FORMATS[_choose("format", name, tuple(CALLTREE_FORMATS))])


def calltree_formats() -> dict[str, GraphFrame]:
    """One small profile per calltree format, each read with ``perfweave.read`` (format
    detected): Caliper, Hatchet, HPCToolkit, TAU, timemory, pyinstrument, gprof2dot, cProfile.
    Caliper JSON is read with ``node_ordering=False`` (the order Hatchet's tests use)."""
    from perfweave.calltree.readers import read

    frames = {}
    for name in CALLTREE_FORMATS:
        options = {"node_ordering": False} if name == "Caliper json-split" else {}
        frames[name] = read(calltree_format_path(name), **options)
    return frames


def mpi_scaling() -> Ensemble:
    """An MPI strong-scaling study of LULESH: 5 profiles over one calltree, identified by their
    number of ranks (``mpi.world.size``: 27, 64, 125, 216, 343) instead of a metadata hash."""
    from perfweave.ensemble import Ensemble

    files = sorted(_example_path("mpi_scaling").glob("*.cali"))
    return Ensemble.from_files(files, profile_key="mpi.world.size", progress=False)


def matmul_scaling() -> Ensemble:
    """A measured scaling study with 9 scale points: Score-P runs of a matrix
    multiplication at x = 1, 10, 25, 50, 100, 250, 500, 1000, 2000 (Extra-P's test Cube set,
    one ``mm.x<X>y1z1.r1/profile.cubex`` per run), read as Extra-P reads it
    (:meth:`Ensemble.from_extrap`: metadata ``x`` and ``repetition``; every metric's
    exclusive value, the PAPI counters' included). Enough runs that unticking one in the
    ScalingView leaves a model to refit."""
    from perfweave.ensemble import Ensemble

    return Ensemble.from_extrap(_example_path("matmul_scaling"), format="cube")


def rajaperf_files(machine: str = "quartz") -> tuple[Path, ...]:
    """The RAJAPerf ``.cali`` files of ``machine`` (``"quartz"`` CPU, ``"lassen"`` GPU)."""
    _choose("RAJAPerf machine", machine, RAJAPERF_MACHINES)
    return tuple(sorted(_example_path(f"rajaperf/{machine}").rglob("*.cali")))


def rajaperf(machine: str = "quartz") -> Ensemble:
    """RAJAPerf suite runs as an Ensemble: ``"quartz"`` (5 Base_Seq runs, problem sizes
    1048576 x 4 and 2097152) or ``"lassen"`` (Base_CUDA, both sizes, block sizes 128 and 256)."""
    from perfweave.ensemble import Ensemble

    return Ensemble.from_files(rajaperf_files(machine), progress=False)


def alltoallv() -> CountsProfile:
    """A 4-rank alltoallv test of the collective profiler (compact count files)."""
    from perfweave.counts import read_counts

    return read_counts(_example_path("alltoallv"), strict=True)


def wrf_alltoallv() -> CountsProfile:
    """The WRF weather model on 160 ranks (Niagara, 4 nodes x 40 ranks): calls 0, 1, 3 and 4
    of lead rank 0 (per-call count files), with execution and late-arrival times."""
    from perfweave.counts import read_counts

    return read_counts(_example_path("wrf_alltoallv"), strict=True)


def wrf_call_sites() -> CountsProfile:
    """The same WRF run with all 964 alltoallv calls (compact count files: 4 distinct
    matrices), the backtraces of its 10 call sites and the execution and late-arrival times
    of communicator 0 (those of :func:`wrf_alltoallv`; communicator 1's are not bundled, so
    its call sites' times are NaN). ``call_sites()`` weaves them into a calltree."""
    from perfweave.counts import read_counts, read_timings

    profile = read_counts(_example_path("wrf_call_sites"), strict=True)
    times = sorted(_example_path("wrf_alltoallv").glob("alltoallv_*_times.rank0_comm0_*.md"))
    profile.timings = pd.concat([read_timings(p) for p in times], ignore_index=True)
    return profile


_extracted: dict[str, Path] = {}


def _scratch() -> Path:
    root = _extracted.get("")
    if root is None:
        root = Path(tempfile.mkdtemp(prefix="perfweave-sessions-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        _extracted[""] = root
    return root


def oprofile_session(name: str = "sep", directory: str | Path | None = None) -> Path:
    """A synthetic OProfile session directory (``samples/current/...``), extracted from the
    bundled archive: ``"sep"`` (separated by thread and CPU), ``"nosep"``, ``"um_cpu"``
    (unit masks, per CPU) or ``"many"`` (many thread groups).

    Without ``directory`` it is extracted once per process into a temporary directory that
    is removed at exit; with one, into ``directory/opsession_<name>`` (reused if present).
    Pass the path to :func:`perfweave.opreport` or :class:`perfweave.ClassPicker`.
    """
    _choose("OProfile session", name, OPROFILE_SESSIONS)
    if directory is None and name in _extracted:
        return _extracted[name]
    target = Path(directory if directory is not None else _scratch()) / f"opsession_{name}"
    if not (target / "samples").is_dir():
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(_example_path(f"opsession_{name}.tar.gz")) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(target, filter="data")
            else:  # older Pythons: our own archive of regular files and directories
                tar.extractall(target)
    if directory is None:
        _extracted[name] = target
    return target


def perf_script() -> pd.DataFrame:
    """Samples of ``perf script`` (perf 6.1, task-clock) on perl and bash loops: one row per
    sample (comm, pid, tid, cpu, time, period, event, ip, symbol, dso)."""
    from perfweave.classes import read_perf_script

    return read_perf_script(_example_path("perf/perf-script.txt"))


def hem_vignette(method: str = "much", *, raw: bool = False) -> Subexperiments | pd.DataFrame:
    """mergingTools' vignette data, split into subexperiments of 6 PMCs with HEM names:
    ``"much"`` (24 subexperiments, 16 HEMs) or ``"hrm"`` (3, anchor ``PROCESSOR_CYCLES``).
    ``raw=True`` gives the CSV as read (event-code columns ``X1``, ``X1.1``...)."""
    from perfweave.merge import load_vignette, process_raw_experiments
    from perfweave.merge.vignette import VIGNETTE_N_PMCS

    data = load_vignette(_choose("HEM vignette", method, HEM_VIGNETTES))
    return data if raw else process_raw_experiments(data, VIGNETTE_N_PMCS)


__all__ = [
    "CALLTREE_FORMATS",
    "HEM_VIGNETTES",
    "OPROFILE_SESSIONS",
    "RAJAPERF_MACHINES",
    "alltoallv",
    "calltree_format_path",
    "calltree_formats",
    "cpi",
    "hatchet_literal",
    "hem_vignette",
    "list",
    "lulesh",
    "matmul_scaling",
    "mpi_scaling",
    "oprofile_session",
    "path",
    "perf_script",
    "rajaperf",
    "rajaperf_files",
    "wrf_alltoallv",
    "wrf_call_sites",
]
