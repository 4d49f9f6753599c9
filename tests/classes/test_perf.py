"""perf script / perf report parsing, checked against each other on real perf 6.1 output."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.classes import (
    arrange,
    perf_report_specs,
    perf_sample_specs,
    read_perf_callchains,
    read_perf_report,
    read_perf_script,
)
from perfweave.errors import ParseError

from .conftest import DATA

PERF = DATA / "perf_equivalents"


@pytest.fixture(scope="module")
def samples():
    return read_perf_script(PERF / "script_flat.txt")


def _base(series):
    return series.str.rsplit("/", n=1).str[-1]


def test_script_header_fields(samples):
    assert len(samples) == 344  # "# Samples: 344" in the perf report headers
    first = samples.iloc[0]
    assert (first.comm, first.pid, first.tid, first.cpu, first.event) == (
        "work.sh",
        24225,
        24225,
        1,
        "task-clock",
    )
    assert (first.period, first.symbol, first.dso) == (
        2004008,
        "__pte_offset_map_lock",
        "[kernel.kallsyms]",
    )
    assert set(samples["event"]) == {"cpu-clock", "task-clock"}


def test_default_script_format_gives_the_same_samples(samples):
    chained = read_perf_script(PERF / "script_callchains.txt")
    cols = ["comm", "pid", "cpu", "event", "period", "symbol", "dso"]
    assert chained[cols].equals(samples[cols])


def test_callchains(samples):
    frames = read_perf_callchains(PERF / "script_callchains.txt")
    leaves = frames[frames["depth"] == 0]
    assert leaves["sample"].tolist() == list(range(len(samples)))
    assert leaves["symbol"].tolist() == samples["symbol"].tolist()
    first = frames[frames["sample"] == 0]
    assert first["depth"].tolist() == list(range(13))
    assert first["symbol"].iloc[-1] == "__GI___execve"


def test_samples_and_periods_match_perf_report(samples):
    table = read_perf_report(PERF / "report_fields_sample_period.txt")
    by = samples.assign(dso=_base(samples["dso"])).groupby(["event", "comm", "dso"])
    counted = by.agg(n=("period", "size"), period=("period", "sum"))
    for ev in ("cpu-clock", "task-clock"):
        for _, row in table.iterrows():
            got = counted.loc[(ev, row["Command"], row["Shared Object"])]
            assert (got["n"], got["period"]) == (row[f"Samples:{ev}"], row[f"Period:{ev}"])
    assert table["Samples:cpu-clock"].sum() == 172


def test_perf_specs_resolve_executables(samples):
    specs = perf_sample_specs(samples)
    bash = specs[specs["tgid"] == "24225"]
    assert set(bash["image"]) == {"/usr/bin/bash"}  # work.sh exec'd bash in the same pid
    # perf report --sort pid,dso: 24225 [kernel.kallsyms] 5.23% of 344 = 9 per event
    kernel = bash[(bash["lib_image"] == "[kernel.kallsyms]") & (bash["event"] == "cpu-clock")]
    assert kernel["samples"].sum() == 9
    assert specs["samples"].sum() == len(samples)


def test_perf_specs_classify_like_sample_files(samples):
    specs = perf_sample_specs(samples)
    with pytest.raises(Exception, match="Already displaying results for parameter event"):
        arrange(specs)
    classes = arrange(specs, "cpu,tgid")
    assert classes.axis == "event"
    assert classes.names == ["cpu-clock:0", "task-clock:0"]
    by_cpu = arrange(specs[specs["event"] == "cpu-clock"], "tgid")
    assert by_cpu.axis == "cpu" and by_cpu.names == ["cpu:0", "cpu:1"]


def test_report_tables_in_both_layouts():
    fixed = read_perf_report(PERF / "report_comm_dso.txt")
    sep = read_perf_report(PERF / "report_comm_dso_fieldsep.txt")
    assert fixed["Command"].tolist() == sep["Command"].tolist()
    assert fixed["Shared Object"].tolist() == sep["Shared Object"].tolist()
    assert fixed["Overhead:cpu-clock"].tolist() == [40.12, 34.30, 20.35, 4.65, 0.58]
    cpu = read_perf_report(PERF / "report_cpu_comm.txt")
    assert cpu["CPU"].tolist() == [1, 1, 0, 1]
    sym = read_perf_report(PERF / "report_comm_dso_sym.txt")
    assert sym["Symbol"].iloc[0] == "[.] Perl_pp_padsv"


def test_report_specs():
    specs = perf_report_specs(read_perf_report(PERF / "report_fields_sample_period.txt"))
    assert len(specs) == 10
    classes = arrange(specs)
    assert classes.names == ["cpu-clock:0", "task-clock:0"]
    pid = perf_report_specs(read_perf_report(PERF / "report_pid_dso.txt"))
    assert set(pid["tgid"]) == {"24224", "24225"}
    assert set(pid["image"]) == {"bash", "perl"}


def test_bad_script_line_is_named():
    text = "perl 1/1 [000] 1.0: 10 cpu-clock: \n\tffff sym (dso)\nthis is not a sample\n"
    with pytest.raises(ParseError, match=r"<string>, line 3: expected a perf script sample"):
        read_perf_script(text=text)


def test_bad_report_row_is_named(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("# Overhead;Command\n 1.0%;a\n 2.0%;b;c\n")
    with pytest.raises(ParseError, match=r"r.txt, line 3"):
        read_perf_report(path)


_comm = st.text("abcdefghijklmnopqrstuvwxyz_-.", min_size=1, max_size=12)


@settings(max_examples=100, deadline=None)
@given(
    _comm,
    st.integers(1, 10**7),
    st.integers(1, 10**7),
    st.integers(0, 255),
    st.integers(1, 10**9),
    st.sampled_from(["cpu-clock", "cycles:u", "sched:sched_switch"]),
    st.booleans(),
)
def test_generated_sample_lines(comm, pid, tid, cpu, period, event, inline):
    where = " 4011a0 main+0x10 (/usr/bin/x)" if inline else ""
    line = f"{comm} {pid}/{tid} [{cpu:03d}] 12.345678: {period} {event}:{where}"
    text = line + ("\n" if inline else "\n\t4011a0 main+0x10 (/usr/bin/x)\n")
    row = read_perf_script(text=text).iloc[0]
    assert (row.comm, row.pid, row.tid, row.cpu, row.period, row.event) == (
        comm,
        pid,
        tid,
        cpu,
        period,
        event,
    )
    assert (row.symbol, row.dso) == ("main", "/usr/bin/x")


def test_perf_json_has_the_same_samples(samples):
    from perfweave.classes import read_perf_json

    js = read_perf_json(PERF / "perf_data_convert.json")
    assert len(js) == len(samples)
    for col in ("comm", "pid", "tid", "cpu", "symbol"):
        assert js[col].tolist() == samples[col].tolist()
    named = (js["dso"] != "").to_numpy()  # perf leaves the dso out of unresolved frames
    assert named.sum() > len(js) // 2
    assert js["dso"][named].tolist() == _base(samples["dso"])[named].tolist()
    assert np.allclose(js["time"], samples["time"], atol=1e-6)
    assert set(js["event"]) == {"all"}


def test_perf_json_bad_file(tmp_path):
    from perfweave.classes import read_perf_json

    path = tmp_path / "x.json"
    path.write_text('{"headers": {}}')
    with pytest.raises(ParseError, match="x.json: expected perf's JSON"):
        read_perf_json(path)


def test_no_samples_fold_to_an_empty_spec_table():
    specs = perf_sample_specs(read_perf_script(text="# nothing\n"))
    assert specs.empty and {"samples", "period", "image"} <= set(specs.columns)
