"""Fuzz targets for the counts, classes and merge parsers (issue #16, part 2).

Seeds are the project's own test data (``tests/data/counts``, ``tests/data/classes``) and
small excerpts of it kept in ``tests/data/fuzz_seeds/counts_classes_merge`` (see the README
there). Each target's ``parse`` takes the path of one mutated input.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks._fuzz_core import Target
from perfweave.classes import parse_sample_paths, read_listing
from perfweave.classes.perf import (
    read_perf_callchains,
    read_perf_json,
    read_perf_report,
    read_perf_script,
)
from perfweave.classes.samplefile import read_samples, sample_count
from perfweave.counts import (
    parse_ranklist,
    read,
    read_comm_data,
    read_compact,
    read_locations,
    read_percall,
    read_timings,
)
from perfweave.merge import process_raw_experiments

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SEEDS = DATA / "fuzz_seeds" / "counts_classes_merge"
_PROFILER = DATA / "counts" / "collective_profiler_tests"
_SET2 = DATA / "counts" / "go_tools_testdata" / "pkg" / "counts" / "testData" / "set2" / "input"
_PERF = DATA / "classes" / "perf_equivalents"


def _expected(test: str) -> Path:
    return _PROFILER / test / "expectedOutput"


def _parse_ranklists(path: Path) -> None:
    """Every line of the file as a rank list (what compact headers and rows hold)."""
    for k, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        parse_ranklist(line, path=str(path), line=k)


def _read_counts_dir(path: Path) -> None:
    """The non-strict directory reader: a bad file is skipped and named, never raised."""
    read(path.parent, workers=1)


def _sample_file(path: Path) -> None:
    read_samples(path)
    sample_count(path)


def _sample_names(path: Path) -> None:
    read_listing(path, on_error="collect")
    text = path.read_text(errors="replace")
    parse_sample_paths(text.splitlines(), on_error="collect")


def _perf_script(path: Path) -> None:
    read_perf_script(path)
    read_perf_callchains(path)


def _raw_experiments(path: Path) -> None:
    process_raw_experiments(path, 6)


TARGETS: list[Target] = [
    Target(
        "counts.compact",
        (
            _expected("alltoallv_multicomms_c") / "send-counters.job0.rank0.txt",
            _expected("allgatherv_c") / "recv-counters.job0.rank0.txt",
            _expected("alltoall_dt_c") / "send-counters.job0.rank0.txt",
            _SET2 / "send-counters.job0.rank0.txt",
        ),
        read_compact,
    ),
    Target(
        "counts.percall",
        (
            DATA
            / "counts"
            / "go_tools_testdata"
            / "pkg"
            / "counts"
            / "testData"
            / "set1"
            / "input"
            / "counts.rank0_call0.md",
            _expected("alltoall_simple_c") / "counts.rank0_call0.md",
        ),
        read_percall,
    ),
    Target("counts.ranklist", (SEEDS / "ranklists.txt",), _parse_ranklists),
    Target(
        "counts.timings",
        (
            _expected("alltoall_simple_c") / "alltoall_execution_times.rank0_comm0_job0.md",
            _expected("alltoall_simple_c") / "alltoall_late_arrival_times.rank0_comm0_job0.md",
        ),
        read_timings,
    ),
    Target(
        "counts.locations",
        (_expected("alltoall_simple_c") / "alltoall_locations_comm0_rank0.md",),
        read_locations,
    ),
    Target(
        "counts.comm_data",
        (_expected("alltoall_simple_c") / "alltoall_comm_data_rank0.md",),
        read_comm_data,
    ),
    Target(
        "counts.read_dir",
        (_expected("alltoallv_multicomms_c") / "send-counters.job0.rank2.txt",),
        _read_counts_dir,
        companions=tuple(
            _expected("alltoallv_multicomms_c") / name
            for name in (
                "recv-counters.job0.rank2.txt",
                "send-counters.job0.rank0.txt",
                "recv-counters.job0.rank0.txt",
            )
        ),
    ),
    Target(
        "classes.sample_names",
        (SEEDS / "sample_files.txt",),
        _sample_names,
    ),
    Target(
        "classes.sample_header",
        (SEEDS / "CPU_CLK_UNHALTED.100000.0.100.100.1",),
        _sample_file,
    ),
    Target(
        "classes.perf_script",
        (SEEDS / "script_flat.txt", SEEDS / "script_callchains.txt"),
        _perf_script,
    ),
    Target(
        "classes.perf_report",
        (_PERF / "report_comm_dso.txt", _PERF / "report_group_comm_dso.txt"),
        read_perf_report,
    ),
    Target("classes.perf_json", (_PERF / "perf_data_convert.json",), read_perf_json),
    Target("merge.raw_csv", (SEEDS / "raw_experiments.csv",), _raw_experiments),
]
