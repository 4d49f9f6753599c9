"""Reading many files on several processes, or on a dask.distributed cluster, gives the
ensemble the one-process read gives."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

from perfweave.ensemble import Ensemble, build
from perfweave.errors import ParallelReadWarning, ParseError, SkippedInputWarning


def assert_same_ensemble(a: Ensemble, b: Ensemble) -> None:
    assert a.graph == b.graph
    pd.testing.assert_frame_equal(a.dataframe, b.dataframe)
    pd.testing.assert_frame_equal(a.metadata, b.metadata)
    pd.testing.assert_frame_equal(a.statsframe, b.statsframe)
    assert a.profile_mapping == b.profile_mapping
    assert (a.exc_metrics, a.inc_metrics) == (b.exc_metrics, b.inc_metrics)
    assert a.errors == b.errors


def test_two_reader_processes_give_the_same_ensemble(rajaperf_files):
    serial = Ensemble.from_files(rajaperf_files, workers=1)
    parallel = Ensemble.from_files(rajaperf_files, workers=2)
    assert len(serial) == len(rajaperf_files)
    assert_same_ensemble(serial, parallel)


def test_a_long_list_uses_processes_by_default(many_copies, monkeypatch):
    if build._usable_cores() < 2:
        pytest.skip("this machine lets the process use one core: the default stays serial")
    started = []
    pool = build._process_pool

    def recording_pool(n, method):
        started.append(n)
        return pool(n, method)

    monkeypatch.setattr(build, "_process_pool", recording_pool)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ParallelReadWarning)  # no fallback to one process
        parallel = Ensemble.from_files(many_copies, profile_key="file", progress=False)
    assert started == [min(build._usable_cores(), len(many_copies) // 64)]
    serial = Ensemble.from_files(many_copies, profile_key="file", workers=1, progress=False)
    assert len(parallel) == len(many_copies)
    assert_same_ensemble(serial, parallel)


def test_when_processes_are_used():
    cores = build._usable_cores()
    short = build.PARALLEL_MIN_FILES - 1
    assert build.reader_processes(short, None, None) == 1
    assert build.reader_processes(10_000, "cali", None) == min(cores, 10_000 // 64)
    assert build.reader_processes(10_000, lambda p: p, None) == 1  # may not pickle
    assert build.reader_processes(3, None, 2) == 2


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_worker_counts(quartz_files, bad):
    with pytest.raises(ValueError, match="workers must be None or a whole number"):
        Ensemble.from_files(quartz_files, workers=bad)


def test_a_reader_the_processes_cannot_import_is_refused(quartz_files):
    with pytest.raises(ValueError, match="cannot be sent to reader processes"):
        Ensemble.from_files(quartz_files, reader=lambda p: p, workers=2)


def test_executor_and_workers_together_are_refused(quartz_files):
    from concurrent.futures import ThreadPoolExecutor

    with (
        ThreadPoolExecutor(1) as ex,
        pytest.raises(ValueError, match="either executor= or workers="),
    ):
        Ensemble.from_files(quartz_files, executor=ex, workers=2)


def test_a_broken_file_read_in_a_worker_is_named(quartz_files, tmp_path):
    broken = tmp_path / "broken.cali"
    broken.write_bytes(Path(quartz_files[0]).read_bytes()[:700])
    files = [*quartz_files, str(broken)]
    with pytest.raises(ParseError, match="broken.cali"):
        Ensemble.from_files(files, workers=2, reader="cali")
    with pytest.warns(SkippedInputWarning, match="broken.cali"):
        ens = Ensemble.from_files(files, workers=2, reader="cali", on_error="skip")
    assert [p for p, _ in ens.errors] == [str(broken)]
    assert len(ens) == len(quartz_files)
    with pytest.warns(SkippedInputWarning, match="broken.cali"):
        serial = Ensemble.from_files(files, workers=1, on_error="skip")
    assert_same_ensemble(serial, ens)


def test_a_dask_distributed_executor_gives_the_same_ensemble(rajaperf_files):
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (pip install -e '.[test]')"
    )
    serial = Ensemble.from_files(rajaperf_files, workers=1)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_cluster = Ensemble.from_files(rajaperf_files, executor=client.get_executor())
    assert_same_ensemble(serial, on_cluster)


def test_reader_processes_that_die_fall_back_to_this_process(quartz_files, monkeypatch):
    """workers=N never crashes: processes that cannot run leave the read to this process,
    said once in one ParallelReadWarning."""
    import multiprocessing as mp
    import os
    from concurrent.futures import ProcessPoolExecutor

    def dying_pool(n, method):  # every worker exits as it starts
        ctx = mp.get_context(method)
        return ProcessPoolExecutor(n, mp_context=ctx, initializer=os._exit, initargs=(3,))

    monkeypatch.setattr(build, "_process_pool", dying_pool)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ens = Ensemble.from_files(quartz_files, workers=2)
    messages = [str(w.message) for w in seen]
    assert [w.category for w in seen] == [ParallelReadWarning], messages
    assert messages[0].startswith(f"read {len(quartz_files)} files in this process: ")
    assert "BrokenProcessPool" in messages[0] and "\n" not in messages[0]
    assert_same_ensemble(Ensemble.from_files(quartz_files, workers=1), ens)


def test_start_method_follows_the_threads():
    import threading

    from perfweave.ensemble import _processes

    if threading.active_count() == 1:
        assert _processes.start_method() == ("fork", "")
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:  # pytest's own __main__ is guarded (or a package's __main__): fresh processes
        method, why = _processes.start_method()
    finally:
        stop.set()
        t.join()
    assert (method, why) == ("forkserver", "")


@pytest.mark.parametrize(
    ("source", "line", "guarded"),
    [
        ('import x\nif __name__ == "__main__":\n    run()\n', 3, True),
        ("import x\nif '__main__' == __name__:\n    a = 1\n    run()\n", 4, True),
        ('import x\nrun()\nif __name__ == "__main__":\n    pass\n', 2, False),
        ('if __name__ != "__main__":\n    run()\n', 2, False),
        ('def f():\n    if __name__ == "__main__":\n        run()\n', 3, False),
        ('if __name__ == "__main__" and fast:\n    run()\n', 2, False),
    ],
)
def test_main_guard_detection(source, line, guarded):
    import ast

    from perfweave.ensemble import _processes

    assert _processes._under_main_guard(ast.parse(source), line) is guarded
