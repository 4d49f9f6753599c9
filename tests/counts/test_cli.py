from __future__ import annotations

import argparse

import pytest

from perfweave.cli import _counts
from perfweave.errors import PerfweaveError
from tests.counts._paths import WRF, expected


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="perfweave")
    sub = parser.add_subparsers(dest="command")
    _counts.register(sub)
    args = parser.parse_args(list(argv))
    return args.func(args)


def test_summary(capsys):
    assert run("counts", "summary", str(expected("alltoallv_multicomms_c"))) == 0
    out = capsys.readouterr().out
    assert "2 lead ranks, 3 call groups, 5 calls" in out
    assert "lead rank 0 (job 0): Alltoallv" in out
    assert "communicator sizes: 2 (2 calls), 4 (1 calls)" in out
    assert "send messages: 24, large 0, small 24 (non-zero 16" in out
    assert "patterns: 2 (1->N 0, N->1 0, N->n 0; empty calls 0)" in out


def test_patterns_out_writes_upstream_files(tmp_path, capsys):
    src = expected("alltoallv_dt_c")
    assert run("counts", "patterns", str(src), "--out", str(tmp_path)) == 0
    for name in ("patterns-job0-rank0.md", "patterns-summary-job0-rank0.md"):
        assert (tmp_path / name).read_bytes() == (src / name).read_bytes()
    assert "wrote" in capsys.readouterr().out


def test_patterns_to_stdout(capsys):
    assert run("counts", "patterns", str(expected("alltoallv_f"))) == 0
    out = capsys.readouterr().out
    assert "1 ranks sent to 2 other ranks\n\n2 ranks sent to 1 other ranks" in out
    assert "Nothing special detected; no summary" in out


def test_bad_file_is_reported_on_stderr(copy_dir, capsys):
    d = copy_dir(expected("alltoallv_multicomms_c"))
    (d / "recv-counters.job0.rank2.txt").write_text("# Raw counters\n\nNumber of ranks: x\n")
    assert run("counts", "summary", str(d)) == 0
    captured = capsys.readouterr()
    assert "recv-counters.job0.rank2.txt, line 3" in captured.err
    assert "1 lead ranks" in captured.out
    with pytest.raises(PerfweaveError):
        run("counts", "summary", "--strict", str(d))


def test_empty_directory_is_an_error(tmp_path):
    with pytest.raises(PerfweaveError, match="no count files in"):
        run("counts", "patterns", str(tmp_path))


def test_through_the_perfweave_command(tmp_path, capsys):
    from perfweave.cli import main

    assert main(["counts", "patterns", str(expected("alltoallv_c")), "--out", str(tmp_path)]) == 0
    assert (tmp_path / "patterns-job0-rank0.md").read_bytes() == (
        expected("alltoallv_c") / "patterns-job0-rank0.md"
    ).read_bytes()
    assert main(["counts", "summary", str(tmp_path / "missing")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"perfweave counts: error: {tmp_path / 'missing'}: not a directory"]


def test_workers_option(capsys):
    from perfweave.cli import main

    assert main(["counts", "summary", "--workers", "1", str(WRF)]) == 0
    one = capsys.readouterr().out
    assert main(["counts", "summary", "--workers", "2", str(WRF)]) == 0
    assert capsys.readouterr().out == one and "160" in one
    with pytest.raises(SystemExit):
        main(["counts", "summary", "--workers", "0", str(WRF)])
    assert "expected a whole number >= 1, got '0'" in capsys.readouterr().err


def test_sites_prints_each_call_site_and_the_calltree(capsys):
    import perfweave.counts as pc

    d = expected("alltoall_multicomms_c")
    assert run("counts", "sites", str(d)) == 0
    out = capsys.readouterr().out
    table = pc.read(d).call_sites().metadata["call_sites"]
    assert f"{len(table)} call sites, {table['calls'].sum()} calls, 4 ranks (COMM_WORLD" in out
    line = next(x for x in out.splitlines() if x.lstrip().startswith("0 "))
    assert (
        f"{table.loc[0, 'bytes_sent']:,.0f}" in line and f"{table.loc[0, 'time_max']:.6f}" in line
    )
    assert "alltoall_backtrace_rank0_trace0.md, alltoall_backtrace_rank1_trace0.md" in line
    assert "# time (inc): mean over 4 ranks" in out and "└─ " in out and "MPI_Alltoall\n" in out


def test_sites_csv_and_options(capsys):
    import io

    import pandas as pd

    import perfweave.counts as pc

    d = expected("allgatherv_c")
    assert run("counts", "sites", str(d), "--csv", "--wrappers", "keep") == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col="site")
    want = pc.read(d).call_sites(wrappers="keep").metadata["call_sites"]
    assert got["bytes_sent"].tolist() == want["bytes_sent"].tolist()
    assert got["caller"].tolist() == ["allgatherv_c+0x13f4"]
    assert run("counts", "sites", str(d), "--metric", "calls (inc)", "--aggregate", "max") == 0
    assert "# calls (inc): max over 4 ranks" in capsys.readouterr().out
    with pytest.raises(PerfweaveError, match="--metric 'bytes': no such metric"):
        run("counts", "sites", str(d), "--metric", "bytes")
    with pytest.raises(PerfweaveError, match="no backtrace files"):
        run("counts", "sites", str(WRF))


def test_sites_help_says_what_is_shown(capsys):
    with pytest.raises(SystemExit):
        run("counts", "sites", "--help")
    text = " ".join(capsys.readouterr().out.split())
    for phrase in ("NaN where a file is missing", "COMM_WORLD rank", "--wrappers {drop,keep}"):
        assert phrase in text
    assert "MPI_Alltoallv" in text and "'profiler'" in text


def test_sites_binary_names_the_programs_frames(capsys):
    """--binary: the callers and the tree's frames by function (lines as addr2line gave
    them, tests/data/counts/symbols/addr2line.txt); without it, by address."""
    from perfweave.errors import UnmatchedCallsWarning
    from tests.counts._paths import COUNTS

    d = COUNTS / "symbols"
    with pytest.warns(UnmatchedCallsWarning, match="no timing files"):  # it has none
        assert run("counts", "sites", str(d / "results"), "--binary", str(d / "prog")) == 0
    out = capsys.readouterr().out
    for caller in (
        "exchange_halo (/src/symbols/prog.c:10)",
        "transpose (/src/symbols/prog.c:17)",
        "transpose (/src/symbols/prog.c:18)",
    ):
        assert caller in out
    assert " solve\n" in out and " main\n" in out and "[0x" not in out
    with pytest.warns(UnmatchedCallsWarning):
        assert run("counts", "sites", str(d / "results")) == 0
    assert "prog [0x401149]" in capsys.readouterr().out
    with pytest.raises(PerfweaveError, match=r"prog\.c: expected an ELF binary"):
        run("counts", "sites", str(d / "results"), "--binary", str(d / "prog.c"))
    with pytest.raises(SystemExit):
        run("counts", "sites", "--help")
    text = " ".join(capsys.readouterr().out.split())
    assert "--binary PATH" in text and "pip install perfweave[symbols]" in text
