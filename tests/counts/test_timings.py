from __future__ import annotations

import pytest

from perfweave.counts import read_comm_data, read_locations, read_timings
from perfweave.errors import ParseError
from tests.counts._paths import WRF, expected


def test_allgatherv_late_arrival_times():
    df = read_timings(
        expected("allgatherv_c") / "allgatherv_late_arrival_times.rank0_comm0_job0.md"
    )
    assert df["call"].tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert df["rank"].tolist() == [0, 1, 2, 3] * 2
    assert df["seconds"].tolist() == [8e-6, 18e-6, 11e-6, 22e-6, 2e-6, 2e-6, 3e-6, 2e-6]
    assert set(df["collective"]) == {"allgatherv"} and set(df["measure"]) == {"late_arrival"}
    assert (df["lead_rank"] == 0).all() and (df["comm"] == 0).all() and (df["job"] == 0).all()


def test_wrf_execution_times():
    path = WRF / "alltoallv_execution_times.rank0_comm0_job5471563.md"
    df = read_timings(path)
    headers = [line for line in path.read_text().splitlines() if line.startswith("# Call ")]
    assert df["call"].nunique() == len(headers) == 242
    assert df.groupby("call").size().eq(160).all()
    assert df["seconds"].iloc[0] == pytest.approx(0.051745)
    assert (df["job"] == 5471563).all()


def test_bad_time_names_the_line(tmp_path):
    p = tmp_path / "alltoallv_execution_times.rank0_comm0_job0.md"
    p.write_text("FORMAT_VERSION: 9\n\n# Call 0\n0.1\nfast\n")
    with pytest.raises(ParseError) as info:
        read_timings(p)
    assert info.value.line == 5 and "'fast'" in str(info.value)


def test_times_before_a_call_header(tmp_path):
    p = tmp_path / "alltoallv_execution_times.rank0_comm0_job0.md"
    p.write_text("FORMAT_VERSION: 9\n\n0.1\n# Call 0\n0.2\n")
    with pytest.raises(ParseError, match="'# Call <n>'"):
        read_timings(p)


def test_locations_and_comm_data():
    loc = read_locations(expected("alltoall_multicomms_c") / "alltoall_locations_comm0_rank1.md")
    assert loc["rank"].tolist() == [0, 1, 2]
    assert loc["world_rank"].tolist() == [1, 2, 3]
    assert loc["pid"].tolist() == [1101167, 1101168, 1101169]
    assert set(loc["hostname"]) == {"login02.hpcadvisorycouncil.com"}
    comm = read_comm_data(WRF / "alltoallv_comm_data_rank0.md")
    assert comm[["comm", "world_rank"]].values.tolist() == [[0, 0], [1, 0]]


def test_bad_comm_data(tmp_path):
    p = tmp_path / "alltoallv_comm_data_rank0.md"
    p.write_text("FORMAT_VERSION: 9\n\nID: zero; world rank: 0\n")
    with pytest.raises(ParseError) as info:
        read_comm_data(p)
    assert info.value.line == 3


def test_plain_and_odd_spacing_read_the_same_times(tmp_path, monkeypatch):
    """Plain files (one time per line) take pandas' C parser, others the checked
    per-section path: the same table either way, and the plain path is really taken."""
    import perfweave.counts.timings as timings

    src = WRF / "alltoallv_late_arrival_times.rank0_comm0_job5471563.md"
    plain = read_timings(src)
    odd = tmp_path / src.name
    odd.write_text(src.read_text().replace("\n0.0", "\n 0.0", 5))  # a few leading spaces
    assert read_timings(odd).equals(plain)
    taken = []
    real = timings._plain_times
    monkeypatch.setattr(timings, "_plain_times", lambda *a: taken.append(real(*a)) or taken[-1])
    read_timings(src)
    read_timings(odd)
    assert taken[0] is not None and taken[1] is None


def test_a_header_that_is_no_call_number_is_named_with_its_line(tmp_path):
    # header lines are counted only on this error now (counting each was quadratic)
    p = tmp_path / "alltoallv_execution_times.rank0_comm0_job0.md"
    p.write_text("FORMAT_VERSION: 9\n\n# Call 0\n0.1\n\n# Call x1\n0.2\n")
    with pytest.raises(ParseError) as info:
        read_timings(p)
    assert info.value.line == 6 and "'# Call <integer>'" in str(info.value)
