"""Ensembles read from the places people write them: a plain script with no
``if __name__ == "__main__":`` guard, ``python -c``, the ``perfweave`` command and a notebook
kernel. Each runs for real in a subprocess; stderr must stay clean and the ensemble whole.

The scripts record the id of every process that reads a file (a wrapper around the reader,
installed at the script's top level, so reader processes started fresh install it too),
which shows where the reads ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perfweave.ensemble import build

SRC = Path(__file__).resolve().parents[2] / "src"

# the top of every script: record which processes read files, then build the ensemble
PREAMBLE = """\
import json, os, sys
import perfweave as pw
from perfweave.ensemble import build

_read_one = build._read_one

def _recorded(path, *args):
    with open(os.environ["PW_READ_LOG"], "a") as fh:
        fh.write(f"{os.getpid()}\\n")
    return _read_one(path, *args)

build._read_one = _recorded
files = json.loads(os.environ["PW_FILES"])
"""

REPORT = """\
print(json.dumps({"profiles": len(ens), "nodes": len(ens.graph), "pid": os.getpid()}))
"""


def run_python(args, files, tmp_path, cwd=None):
    """Run ``python args`` with perfweave importable; (stdout json, stderr, reader pids)."""
    log = tmp_path / "reads.log"
    log.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
        "PW_FILES": json.dumps(files),
        "PW_READ_LOG": str(log),
    }
    env.pop("PYTHONWARNINGS", None)
    proc = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd or tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    pids = [int(x) for x in log.read_text().split()] if log.exists() else []
    report = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else {}
    return report, proc.stderr, pids


def beside_the_bar(err: str) -> list[str]:
    """The lines of stderr other than the progress bar's (drawn after two seconds)."""
    lines = err.replace("\r", "\n").splitlines()
    return [x for x in lines if x.strip() and not x.startswith("reading profiles: ")]


def script(tmp_path, body: str, name="analysis.py") -> str:
    path = tmp_path / name
    path.write_text(PREAMBLE + textwrap.dedent(body) + REPORT)
    return str(path)


def assert_read_elsewhere(report, pids, n_files):
    """Every file was read once, none of them by the script's own process."""
    assert report["profiles"] == n_files
    assert len(pids) == n_files
    assert report["pid"] not in pids


def test_unguarded_script_default_reads_on_all_cores(tmp_path, many_copies):
    if build._usable_cores() < 2:
        pytest.skip("this machine lets the process use one core: the default stays serial")
    path = script(tmp_path, 'ens = pw.Ensemble.from_files(files, profile_key="file")\n')
    report, err, pids = run_python([path], many_copies, tmp_path)
    assert beside_the_bar(err) == []
    assert_read_elsewhere(report, pids, len(many_copies))
    expected = build.reader_processes(len(many_copies), None, None)
    assert len(set(pids)) == expected


def test_unguarded_script_with_workers(tmp_path, rajaperf_files):
    path = script(tmp_path, "ens = pw.Ensemble.from_files(files, workers=2)\n")
    report, err, pids = run_python([path], rajaperf_files, tmp_path)
    assert beside_the_bar(err) == []
    assert_read_elsewhere(report, pids, len(rajaperf_files))
    assert report["nodes"] == len(build.from_files(rajaperf_files, workers=1).graph)


def test_unguarded_script_with_threads_reads_here_and_says_so_once(tmp_path, rajaperf_files):
    """With another thread running, forking is unsafe and a fresh process would run the
    script again: the files are read in the script's process, with one warning."""
    body = """\
    import threading
    stop = threading.Event()
    threading.Thread(target=stop.wait, daemon=True).start()
    ens = pw.Ensemble.from_files(files, workers=2)
    stop.set()
    """
    path = script(tmp_path, body)
    report, err, pids = run_python([path], rajaperf_files, tmp_path)
    assert report["profiles"] == len(rajaperf_files)
    assert set(pids) == {report["pid"]}
    assert "Traceback" not in err
    warning_lines = [line for line in beside_the_bar(err) if "Warning" in line]
    assert len(warning_lines) == 1, err
    assert "ParallelReadWarning" in warning_lines[0]
    assert f"read {len(rajaperf_files)} files in this process" in warning_lines[0]
    assert "analysis.py" in warning_lines[0] and "__main__" in warning_lines[0]


def test_guarded_script_with_threads_uses_fresh_processes(tmp_path, rajaperf_files):
    body = """\
    import threading
    if __name__ == "__main__":
        stop = threading.Event()
        threading.Thread(target=stop.wait, daemon=True).start()
        ens = pw.Ensemble.from_files(files, workers=2)
        stop.set()
    """
    path = script(tmp_path, body)
    text = Path(path).read_text().replace("print(json", "    print(json")
    Path(path).write_text(text)
    report, err, pids = run_python([path], rajaperf_files, tmp_path)
    assert beside_the_bar(err) == []
    assert_read_elsewhere(report, pids, len(rajaperf_files))


def test_python_c_with_threads(tmp_path, rajaperf_files):
    """``python -c``: a fresh process has no script to run again."""
    code = (
        PREAMBLE
        + "import threading\nstop = threading.Event()\n"
        + "threading.Thread(target=stop.wait, daemon=True).start()\n"
        + "ens = pw.Ensemble.from_files(files, workers=2)\n"
        + REPORT
    )
    report, err, _ = run_python(["-c", code], rajaperf_files, tmp_path)
    assert beside_the_bar(err) == []
    assert report["profiles"] == len(rajaperf_files)


def test_python_c_plain(tmp_path, rajaperf_files):
    code = PREAMBLE + "ens = pw.Ensemble.from_files(files, workers=2)\n" + REPORT
    report, err, pids = run_python(["-c", code], rajaperf_files, tmp_path)
    assert beside_the_bar(err) == []
    assert_read_elsewhere(report, pids, len(rajaperf_files))


def test_cli_ensemble_with_jobs(tmp_path, rajaperf_files):
    code = "import sys; from perfweave.cli import main; sys.exit(main())"
    proc = subprocess.run(
        [sys.executable, "-c", code, "ensemble", "--jobs", "2", *rajaperf_files],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert f"profiles: {len(rajaperf_files)}\n" in proc.stdout


def test_cli_rejects_a_bad_job_count(tmp_path, rajaperf_files):
    code = "import sys; from perfweave.cli import main; sys.exit(main())"
    proc = subprocess.run(
        [sys.executable, "-c", code, "ensemble", "--jobs", "0", rajaperf_files[0]],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert proc.returncode == 2
    assert "--jobs: expected a whole number >= 1, found '0'" in proc.stderr


def test_notebook_kernel(tmp_path, rajaperf_files):
    """A notebook kernel runs threads (so no fork) and its __main__ is guarded."""
    nbformat = pytest.importorskip("nbformat", reason="nbformat comes with the test extra")
    nbclient = pytest.importorskip("nbclient", reason="nbclient comes with the test extra")
    cell = (
        f"import sys; sys.path.insert(0, {str(SRC)!r})\n"
        "import perfweave as pw, threading\n"
        f"ens = pw.Ensemble.from_files({rajaperf_files!r}, workers=2)\n"
        "print(len(ens), threading.active_count() > 1)"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    # the progress bar widget may show (reading took over two seconds); nothing else may
    streams = [o for o in outputs if o["output_type"] == "stream"]
    others = [o for o in outputs if o["output_type"] not in ("stream", "display_data")]
    assert others == [] and [o["name"] for o in streams] == ["stdout"], outputs
    assert streams[0]["text"] == f"{len(rajaperf_files)} True\n"
    for shown in (o for o in outputs if o["output_type"] == "display_data"):
        assert shown["data"]["text/plain"].startswith("reading profiles: ")
