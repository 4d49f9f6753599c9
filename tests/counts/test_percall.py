from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from perfweave.counts import parse_percall, read_compact, read_percall
from perfweave.errors import ParseError
from tests.counts._paths import SET1, WRF, expected


def test_wrf_per_call_file():
    c = read_percall(WRF / "counts.rank0_call0.md")
    assert (c.rank, c.call, c.comm_size) == (0, 0, 160)
    assert (c.send_datatype_size, c.recv_datatype_size) == (1, 1)
    send, recv = c.send.dense(), c.recv.dense()
    assert send.shape == recv.shape == (160, 160) and send.dtype == np.int64
    # what rank j sends to rank i is what rank i receives from rank j
    assert np.array_equal(send.T, recv)
    assert send.sum() == recv.sum() > 0
    assert c.send.rows.shape[0] == 25  # 160 ranks but 25 distinct send rows


def test_wrf_calls_are_distinct_and_consistent():
    calls = [read_percall(WRF / f"counts.rank0_call{i}.md") for i in (0, 1, 3, 4)]
    assert len({(c.send.fingerprint, c.recv.fingerprint) for c in calls}) == 4
    for c in calls:
        assert np.array_equal(c.send.dense().T, c.recv.dense())


def test_set1_files_without_trailing_newline():
    text = (SET1 / "input" / "counts.rank0_call2.md").read_text()
    assert not text.endswith("\n")
    c = read_percall(SET1 / "input" / "counts.rank0_call2.md")
    assert c.send.dense().tolist() == [[0] * 4, [1] * 4, [0] * 4, [0] * 4]
    assert c.recv == c.send
    again = parse_percall(text + "\n")
    assert again.send == c.send and again.recv == c.recv


def test_alltoall_per_call_file_agrees_with_compact_file():
    d = expected("alltoall_dt_c")
    c = read_percall(d / "counts.rank0_call0.md")
    assert c.send.shape == (4, 1)
    compact = read_compact(d / "send-counters.job0.rank0.txt").blocks[0]
    assert compact.counts == c.send and 0 in compact.calls.tolist()


def test_documented_dash_name(tmp_path):
    p = tmp_path / "counts-rank3_call7.md"
    p.write_text((SET1 / "input" / "counts.rank0_call1.md").read_text())
    c = read_percall(p)
    assert (c.rank, c.call) == (3, 7)


GOOD = "Send datatype size: 8\nRecv datatype size: 4\nComm size: 2\n\nSend counts\n1 2 \n3 4 \n\n\nRecv counts\n1 3 \n2 4 \n"


def test_good_text():
    c = parse_percall(GOOD)
    assert c.send.dense().tolist() == [[1, 2], [3, 4]]
    assert c.recv.dense().tolist() == [[1, 3], [2, 4]]
    assert (c.send_datatype_size, c.recv_datatype_size) == (8, 4)


@pytest.mark.parametrize(
    ("broken", "line", "expected"),
    [
        (GOOD.replace("Recv counts", "Recv"), 13, "'Recv counts'"),
        (GOOD.replace("3 4 \n", ""), 7, "2 rows of counts under 'Send counts'"),
        (GOOD.replace("3 4 \n", "3 4 5 \n"), 7, "2 counts per row"),
        (GOOD.replace("2 4 \n", "2 four \n"), 12, "a non-negative integer count"),
        (GOOD.replace("Comm size: 2", "Comm size: two"), 3, "'Comm size: <integer>'"),
        (GOOD.replace("Recv datatype size: 4\n", ""), 4, "'Recv datatype size: <integer>'"),
        ("Hello\n" + GOOD, 1, "'Send datatype size:'"),
    ],
)
def test_bad_per_call_text(broken, line, expected):
    with pytest.raises(ParseError) as info:
        parse_percall(broken, path="counts.rank0_call0.md")
    assert info.value.line == line
    assert "counts.rank0_call0.md" in str(info.value) and expected in str(info.value)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 8).flatmap(
        lambda n: st.tuples(
            arrays(np.int64, (n, n), elements=st.integers(0, 10**12)),
            arrays(np.int64, (n, n), elements=st.integers(0, 10**12)),
        )
    ),
    st.booleans(),
    st.booleans(),
)
def test_per_call_text_round_trips(matrices, trailing_space, final_newline):
    send, recv = matrices
    n = send.shape[0]
    end = " " if trailing_space else ""

    def rows(m):
        return [" ".join(map(str, r)) + end for r in m.tolist()]

    text = "\n".join(
        [f"Send datatype size: 4\nRecv datatype size: 8\nComm size: {n}\n", "Send counts"]
        + rows(send)
        + ["", "", "Recv counts"]
        + rows(recv)
    ) + ("\n" if final_newline else "")
    c = parse_percall(text)
    assert np.array_equal(c.send.dense(), send) and np.array_equal(c.recv.dense(), recv)
    assert (c.comm_size, c.send_datatype_size, c.recv_datatype_size) == (n, 4, 8)


def _percall_text(send, recv, *, trailing=" ", blank_lines=2, final_newline=True, eol="\n"):
    n = send.shape[0]

    def rows(m):
        return [" ".join(map(str, r)) + trailing for r in m.tolist()]

    lines = (
        ["Send datatype size: 4", "Recv datatype size: 8", f"Comm size: {n}", "", "Send counts"]
        + rows(send)
        + [""] * blank_lines
        + ["Recv counts"]
        + rows(recv)
    )
    return eol.join(lines) + (eol if final_newline else "")


@settings(max_examples=80, deadline=None)
@given(
    st.tuples(st.integers(1, 7), st.booleans()).flatmap(
        lambda nw: st.tuples(  # n ranks; Alltoallv rows of n counts or Alltoall rows of 1
            arrays(np.int64, (nw[0], nw[0] if nw[1] else 1), elements=st.integers(0, 10**18)),
            arrays(np.int64, (nw[0], nw[0] if nw[1] else 1), elements=st.integers(0, 99)),
        )
    ),
    st.sampled_from(["", " ", "  "]),
    st.integers(0, 3),
    st.booleans(),
    st.sampled_from(["\n", "\r\n"]),
)
def test_bytes_fast_path_agrees_with_line_parse(matrices, trailing, blank_lines, final, eol):
    from perfweave.counts.percall import _parse_lines, _parse_plain

    send, recv = matrices
    text = _percall_text(
        send, recv, trailing=trailing, blank_lines=blank_lines, final_newline=final, eol=eol
    )
    fast = parse_percall(text)
    slow = _parse_lines(text, path="<string>", rank=None, call=None)
    assert np.array_equal(fast.send.dense(), send) and np.array_equal(fast.recv.dense(), recv)
    assert (fast.send, fast.recv) == (slow.send, slow.recv)
    assert (fast.comm_size, fast.send_datatype_size, fast.recv_datatype_size) == (
        slow.comm_size,
        4,
        8,
    )
    plain = _parse_plain(text.encode(), path="<string>", rank=None, call=None)
    # the byte-level path takes LF files with counts of up to 16 digits; others go by line
    assert (plain is not None) == (eol == "\n" and int(send.max()) < 10**16)


def test_large_file_error_names_line_from_either_path(tmp_path):
    rng = np.random.default_rng(5)
    send = rng.integers(0, 100, size=(400, 400))
    send[rng.random(send.shape) < 0.9] = 0
    text = _percall_text(send, send.T.copy())
    p = tmp_path / "counts.rank2_call9.md"
    p.write_text(text)
    c = read_percall(p)  # ~350 KB per section: parsed in several chunks
    assert (c.rank, c.call) == (2, 9)
    assert np.array_equal(c.send.dense(), send) and np.array_equal(c.recv.dense(), send.T)
    lines = text.split("\n")
    recv_at = lines.index("Recv counts")
    lines[recv_at + 391] = lines[recv_at + 391].replace(" ", " 7x ", 1)
    p.write_text("\n".join(lines))
    with pytest.raises(ParseError) as info:
        read_percall(p)
    assert info.value.line == recv_at + 392 and "'7x'" in str(info.value)
    assert str(p) in str(info.value)


def test_non_utf8_file_is_a_parse_error(tmp_path):
    p = tmp_path / "counts.rank0_call0.md"
    p.write_bytes(GOOD.encode().replace(b"Comm size: 2", b"Comm size: \xff2"))
    with pytest.raises(ParseError, match="UTF-8 text"):
        read_percall(p)


@pytest.mark.parametrize(
    ("content", "line", "expected"),
    [
        (b"", 1, "a 'Send counts' line"),
        (GOOD.replace("Comm size: 2", "Comm size: two").encode(), 3, "'Comm size: <integer>'"),
        (GOOD.replace("3 4 \n", "3 4 5 \n").encode(), 7, "2 counts per row"),
    ],
)
def test_file_errors_through_the_mapped_file(tmp_path, content, line, expected):
    p = tmp_path / "counts.rank0_call0.md"
    p.write_bytes(content)
    with pytest.raises(ParseError) as info:
        read_percall(p)
    assert info.value.line == line and expected in str(info.value)
    p.unlink()  # the mapping is closed: the file can go


def test_crlf_file_reads_like_lf(tmp_path):
    p = tmp_path / "counts.rank0_call0.md"
    p.write_bytes(GOOD.replace("\n", "\r\n").encode())
    c = read_percall(p)
    assert c.send.dense().tolist() == [[1, 2], [3, 4]]
    assert c.recv.dense().tolist() == [[1, 3], [2, 4]]
