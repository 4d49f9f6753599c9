"""Reading the collective profiler's backtrace files (FORMAT_VERSION 9)."""

from __future__ import annotations

import re
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

import perfweave.counts as pc
from perfweave.counts import parse_backtrace, read_backtrace
from perfweave.errors import ParseError, SkippedInputWarning
from tests.counts._paths import WRF_ALL, expected

WRF_TRACES = sorted(WRF_ALL.glob("alltoallv_backtrace_rank0_trace*.md"))
ALL_TRACES = WRF_TRACES + sorted(
    p
    for t in ("allgatherv_c", "alltoall_multicomms_c", "alltoall_simple_c")
    for p in expected(t).glob("*_backtrace_rank*_trace*.md")
)


def _sections(path):
    """The trace lines and the 'Calls:' lists of a file, by plain text splitting."""
    text = path.read_text()
    trace = text.split("# Trace\n", 1)[1].split("# Context", 1)[0]
    return [line for line in trace.splitlines() if line], re.findall(r"^Calls: (.*)$", text, re.M)


@pytest.mark.parametrize("path", ALL_TRACES, ids=lambda p: p.parent.parent.name + "/" + p.name)
def test_every_line_of_the_trace_is_a_frame_and_every_context_is_read(path):
    b = read_backtrace(path)
    lines, calls = _sections(path)
    assert [f.line for f in b.frames] == [
        i for i, line in enumerate(path.read_text().split("\n"), start=1) if line in lines
    ]
    assert len(b.frames) == len(lines)
    assert [c.calls.tolist() for c in b.contexts] == [pc.parse_ranklist(c).tolist() for c in calls]
    name = re.match(r"(\w+?)_backtrace_rank(\d+)_trace(\d+)\.md", path.name)
    assert (b.collective, b.rank, b.trace) == (name[1], int(name[2]), int(name[3]))
    assert b.program is not None and b.program in path.read_text() and b.pid > 0


def test_wrf_frames_contexts_and_calls():
    traces = [read_backtrace(p) for p in WRF_TRACES]
    for b in traces:
        inner = b.frames[0]
        assert (inner.module_name, inner.symbol, inner.offset) == (
            "liballtoallv_backtrace.so",
            "_mpi_alltoallv",
            0xD4,
        )
        assert b.frames[1].name == "MPI_Alltoallv"
        # unresolved frames of the program: module and address
        assert b.frames[2].symbol == "" and b.frames[2].offset is None
        assert b.frames[2].name == f"wrf.exe [0x{b.frames[2].address:x}]"
        assert b.frames[-2].name == "__libc_start_main" and b.frames[-2].offset == 0xF5
        assert [(c.comm_rank, c.world_rank) for c in b.contexts] == [(0, 0)]
    calls = sorted(c for b in traces for c in b.calls.tolist())
    counted = sorted(c for g in pc.read(WRF_ALL).groups for c in g.calls.tolist())
    assert calls == counted  # each of the 964 calls in exactly one backtrace


def test_position_independent_frames_are_named_by_module_and_offset():
    b = read_backtrace(expected("allgatherv_c") / "allgatherv_backtrace_rank0_trace0.md")
    names = [f.name for f in b.frames]
    assert names[2] == "allgatherv_c+0x13f4"  # ./allgatherv_c(+0x13f4) [0x55a01fdf23f4]
    assert names[4] == "libc.so.6+0x29d90"
    assert b.frames[2].address == 0x55A01FDF23F4
    assert b.contexts[0].calls.tolist() == [0, 1]


FRAME = "./prog(main+0x10) [0x401000]"


def _text(
    frames: str = FRAME,
    contexts: str = "# Context 0\n\nCommunicator: 0\n"
    "Communicator rank: 0\nCOMM_WORLD rank: 0\nCalls: 0-2\n",
) -> str:
    return f"FORMAT_VERSION: 9\n\nstack trace for ./prog pid=1\n\n# Trace\n\n{frames}\n\n{contexts}"


@pytest.mark.parametrize(
    ("text", "line", "expected_text"),
    [
        (_text(frames="./prog(main+0x10) 0x401000"), 7, "a stack frame"),
        (_text(frames=FRAME + "\nnot a frame"), 8, "a stack frame"),
        (_text(frames=""), 5, "at least one stack frame"),
        ("FORMAT_VERSION: 9\n\nstack trace for x pid=1\n\n" + FRAME + "\n", 5, "'# Trace'"),
        ("FORMAT_VERSION: nine\n", 1, "FORMAT_VERSION"),
        ("stack trace for x pid=abc\n# Trace\n" + FRAME, 1, "pid=<integer>"),
        (_text(contexts=""), 9, "'# Context 0' section"),
        (_text(contexts="# Context 1\nCommunicator: 0\n"), 9, "'# Context 0'"),
        (
            _text(
                contexts="# Context 0\nCommunicator: 0\nCommunicator rank: 0\nCOMM_WORLD rank: 0\n"
            ),
            9,
            "a 'Calls:' line",
        ),
        (
            _text(contexts="# Context 0\nCommunicator: 0\nCommunicator: 1\n"),
            11,
            "one 'Communicator:'",
        ),
        (
            _text(
                contexts="# Context 0\nCommunicator: 0\nCommunicator rank: 0\n"
                "COMM_WORLD rank: x\nCalls: 0\n"
            ),
            12,
            "'COMM_WORLD rank: <integer>'",
        ),
        (
            _text(
                contexts="# Context 0\nCommunicator: 0\nCommunicator rank: 0\n"
                "COMM_WORLD rank: 0\nCalls: 3-1\n"
            ),
            13,
            "low <= high",
        ),
        (_text(contexts="# Context 0\nCommunicator: 0\nRank: 0\n"), 11, "'Calls:'"),
    ],
)
def test_bad_backtraces_name_the_file_and_line(text, line, expected_text):
    with pytest.raises(ParseError) as info:
        parse_backtrace(text, path="x_backtrace_rank0_trace0.md")
    assert info.value.line == line and expected_text in str(info.value)
    assert str(info.value).startswith("x_backtrace_rank0_trace0.md, line")


def test_name_and_encoding_errors(tmp_path):
    bad_name = tmp_path / "backtrace_0.md"
    bad_name.write_text(_text())
    with pytest.raises(ParseError, match="a name like alltoallv_backtrace_rank0_trace0.md"):
        read_backtrace(bad_name)
    latin = tmp_path / "alltoallv_backtrace_rank0_trace0.md"
    latin.write_bytes(_text().replace("main", "m\xe4in").encode("latin-1"))
    with pytest.raises(ParseError, match="UTF-8 text"):
        read_backtrace(latin)


def test_a_bad_backtrace_is_recorded_and_the_rest_of_the_directory_read(copy_dir):
    d = copy_dir(WRF_ALL)
    bad = d / "alltoallv_backtrace_rank0_trace4.md"
    bad.write_text(bad.read_text().replace("./wrf.exe() [0x574f36]", "./wrf.exe() 0x574f36"))
    with pytest.warns(SkippedInputWarning, match="trace4.md, line"):
        prof = pc.read(d)
    assert [str(e).split(",")[0] for e in prof.errors] == [str(bad)]
    assert sorted(b.trace for b in prof.backtraces) == [0, 1, 2, 3, 5, 6, 7, 8, 9]
    assert sum(g.n_calls for g in prof.groups) == 964  # the counts are all still there
    with pytest.raises(ParseError, match="trace4.md, line"):
        pc.read(d, strict=True)


hexes = st.integers(min_value=0, max_value=2**64 - 1)
symbols = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.$@]{0,30}", fullmatch=True)
modules = st.from_regex(r"(/[A-Za-z0-9_.-]{1,12}){1,4}", fullmatch=True)


@given(
    module=st.one_of(st.just(""), modules),
    symbol=st.one_of(st.just(""), symbols),
    offset=st.one_of(st.none(), st.integers(min_value=-(2**63), max_value=2**63)),
    address=hexes,
)
def test_any_frame_backtrace_symbols_writes_reads_back(module, symbol, offset, address):
    if offset is not None and abs(offset) >= 16**16:
        offset = None
    if not module:  # backtrace_symbols writes "[0x...]" alone without a module
        symbol, offset = "", None
    inside = "" if offset is None else f"{'-' if offset < 0 else '+'}0x{abs(offset):x}"
    line = f"{module}({symbol}{inside}) [0x{address:x}]" if module else f"[0x{address:x}]"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = parse_backtrace(_text(frames=line))
    (f,) = b.frames
    assert (f.module, f.symbol, f.offset, f.address) == (module, symbol, offset, address)
    assert f.name == symbol if symbol else (module.rsplit("/", 1)[-1] in f.name or not module)
