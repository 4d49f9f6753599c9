"""The ``perf script`` reader on speedscope's samples (tests/data/speedscope-linux-perf) and
on small written cases. Expected numbers come from a plain parse in this file: blocks split
at blank lines, the header's first word-run and tid, the frames' symbols."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import perfweave as pw
from perfweave.calltree.readers import detect
from perfweave.cli import main
from perfweave.errors import IncompleteInputWarning, ParseError, SkippedInputWarning
from tests.calltree._reference import name_paths

DATA = Path(__file__).resolve().parents[2] / "data" / "speedscope-linux-perf"
FILES = sorted(DATA.glob("*.txt"))
HEADER = DATA / "simple-with-header.linux-perf.txt"
SYSTEM = DATA / "system-wide.linux-perf.txt"


def _samples(path: Path) -> list[dict]:
    """Each sample: its header's words, its period and its stack of frame names, root first (a symbol
    without its +0x offset; ``[unknown]`` as its address)."""
    out = []
    text = path.read_text()
    for block in text.split("\n\n"):
        lines = [ln for ln in block.split("\n") if ln.strip() and not ln.startswith("#")]
        if not lines:
            continue
        words = lines[0].split()
        colon = next(i for i, w in enumerate(words) if w.endswith(":"))  # the time
        stack = []
        for line in lines[1:]:
            address, symbol = line.split()[:2]
            symbol = symbol.split("+0x")[0]
            stack.append("0x" + address if symbol == "[unknown]" else symbol)
        out.append(
            {"words": words, "period": int(words[colon + 1]), "stack": tuple(reversed(stack))}
        )
    return out


def _by_path(gf, column: str) -> dict[tuple[str, ...], float]:
    """A column summed over a node's rows (all ranks and threads), by call path."""
    summed = gf.dataframe[column].groupby(level="node").sum()
    paths = name_paths(gf)
    return {paths[n]: float(v) for n, v in summed.items() if v}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_samples_count_at_the_leaf_and_on_the_whole_stack(path):
    samples = _samples(path)
    leaf = Counter(s["stack"] for s in samples)
    inclusive = Counter(s["stack"][:k] for s in samples for k in range(1, len(s["stack"]) + 1))
    period = Counter()
    for s in samples:
        period[s["stack"]] += s["period"]
    gf = pw.read(path)
    assert detect(path) == "perf-script"
    assert _by_path(gf, "samples") == {k: float(v) for k, v in leaf.items()}
    assert _by_path(gf, "samples (inc)") == {k: float(v) for k, v in inclusive.items()}
    assert _by_path(gf, "period") == {k: float(v) for k, v in period.items()}
    assert int(gf.dataframe["samples"].sum()) == len(samples)
    assert gf.exc_metrics == ["samples", "period"]
    assert gf.inc_metrics == ["samples (inc)", "period (inc)"]
    assert gf.unit_of("period") == "ns" and gf.unit_of("period (inc)") == "ns"  # cpu-clock


def test_the_header_file_in_numbers():
    gf = pw.read(HEADER)
    text = HEADER.read_text()
    n = len(re.findall(r"^simple-terminat ", text, flags=re.M))
    assert n == 136
    main_rows = gf.dataframe[gf.dataframe["name"] == "main"]
    assert int(main_rows["samples (inc)"].sum()) == n and int(main_rows["samples"].sum()) == 0
    assert int(main_rows["period (inc)"].sum()) == 1001001 * n
    # perf script --header's "# key : value" lines are the metadata
    assert gf.metadata["hostname"] == "e2b5bab9a538"
    assert gf.metadata["perf version"] == "4.15.18"
    assert gf.metadata["perf_event"] == "cpu-clock"
    times = [float(t) for t in re.findall(r"^simple-terminat +9 +([0-9.]+):", text, flags=re.M)]
    assert gf.metadata["perf_samples"] == n
    assert gf.metadata["perf_time_first"] == min(times) == 198789.478194
    assert gf.metadata["perf_time_last"] == max(times)
    assert set(gf.dataframe.index.get_level_values("rank")) == {9}
    assert set(gf.dataframe["command"]) == {"simple-terminat"}


def test_system_wide_threads_are_rank_and_thread_levels():
    gf = pw.read(SYSTEM)
    samples = _samples(SYSTEM)
    by_tid = Counter(int(s["words"][1]) for s in samples)  # COMMAND TID [CPU] TIME: ...
    df = gf.dataframe
    assert df.index.names == ["node", "rank", "thread"]
    # no pid printed: each thread is its own rank
    roots = df[df["samples (inc)"] > 0].groupby(level=["rank", "thread"])["samples"].sum()
    assert {(r, t): int(v) for (r, t), v in roots.items()} == {(t, t): c for t, c in by_tid.items()}
    assert dict(zip(df.index.get_level_values("thread"), df["command"])) == {
        0: "swapper",
        9: "simple-terminat",
    }


def test_unknown_symbols_keep_module_and_address():
    gf = pw.read(SYSTEM)
    frames = gf.graph.frames
    kernel = frames[frames["module"] == "[kernel.kallsyms]"]
    addresses = set(re.findall(r"^\t\s*([0-9a-f]+) \[unknown\] \(\[kernel\.kallsyms\]\)$",
                               SYSTEM.read_text(), flags=re.M))  # fmt: skip
    assert set(kernel["name"]) == {"0x" + a for a in addresses}
    assert len(addresses) > 20  # distinct addresses stay distinct frames
    assert set(frames.loc[frames["name"] == "main", "module"]) == {"/workdir/simple-terminates"}


def _write(tmp_path: Path, text: str, name: str = "perf.txt") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


RECURSIVE = """\
prog 7/8 100.000001: 10 cycles:
\t1 f (/bin/prog)
\t2 g (/bin/prog)
\t3 f (/bin/prog)

prog 7/8 100.000002: 20 cycles:
\t1 f (/bin/prog)
\t2 g (/bin/prog)
\t3 f (/bin/prog)

prog 7/9 100.000003: 5 cycles:
\t3 f+0x10 (/bin/prog)
"""


def test_recursion_counts_once_on_each_node_of_the_stack(tmp_path):
    gf = pw.read(_write(tmp_path, RECURSIVE))
    inc = _by_path(gf, "samples (inc)")
    exc = _by_path(gf, "samples")
    assert inc == {("f",): 3.0, ("f", "g"): 2.0, ("f", "g", "f"): 2.0}
    assert exc == {("f", "g", "f"): 2.0, ("f",): 1.0}
    assert _by_path(gf, "period (inc)") == {("f",): 35.0, ("f", "g"): 30.0, ("f", "g", "f"): 30.0}
    assert gf.unit_of("period") == ""  # cycles: a count, not a time
    # pid/tid: rank is the pid, thread the tid
    cells = set(zip(gf.dataframe.index.get_level_values("rank"),
                    gf.dataframe.index.get_level_values("thread")))  # fmt: skip
    assert cells == {(7, 8), (7, 9)}


@pytest.mark.parametrize("cut", ["\t1 f+0x", "\t1 f (/bin/pr"])
def test_a_sample_cut_inside_a_line_is_left_out_and_named(tmp_path, cut):
    """The output ends inside a call-chain line (no newline, no module): the frame is a
    piece of a name and the sample lost its outer frames. Read, it made a root of its own
    (``f+0x`` as ``f``, ``f (/bin/pr`` as a frame of that name) that never ran."""
    text = RECURSIVE + "\nprog 7/8 100.000004: 40 cycles:\n\t3 f (/bin/prog)\n" + cut
    with pytest.warns(IncompleteInputWarning, match=r"ends inside line 16 .*lines 14-16"):
        gf = pw.read(_write(tmp_path, text))
    whole = pw.read(_write(tmp_path, RECURSIVE, "whole.txt"))
    assert _by_path(gf, "samples (inc)") == _by_path(whole, "samples (inc)")
    # a whole last line without its newline (as speedscope's samples end) is read
    unended = pw.read(_write(tmp_path, RECURSIVE.rstrip("\n"), "unended.txt"))
    assert _by_path(unended, "samples (inc)") == _by_path(whole, "samples (inc)")


def test_a_sample_header_cut_short_is_left_out_and_named(tmp_path):
    """The output ends inside the next sample's header: the samples above it are whole and
    read; the piece of a header was a ParseError, so nothing of the file could be read."""
    text = RECURSIVE + "\nprog 7/8 100.00"
    with pytest.warns(IncompleteInputWarning, match=r"ends inside line 14 \('prog 7/8 100.00'"):
        gf = pw.read(_write(tmp_path, text))
    whole = pw.read(_write(tmp_path, RECURSIVE, "whole.txt"))
    assert _by_path(gf, "samples (inc)") == _by_path(whole, "samples (inc)")


def test_one_event_is_read_and_the_others_named(tmp_path):
    text = RECURSIVE + "\nprog 7/8 100.000004: 3 instructions:\n\t9 h (/bin/prog)\n"
    path = _write(tmp_path, text)
    with pytest.warns(SkippedInputWarning, match="left out 1 of 'instructions'"):
        gf = pw.read(path)
    assert int(gf.dataframe["samples"].sum()) == 3
    with pytest.warns(SkippedInputWarning, match="left out 3 of 'cycles'"):
        other = pw.read(path, event="instructions")
    assert list(other.graph.frames["name"]) == ["h"]
    with pytest.raises(ParseError, match="event 'branches'"):
        pw.read(path, event="branches")


def test_samples_without_call_chains_carry_their_frame(tmp_path):
    text = (
        "  V8 WorkerThread 25607 [001] 1.5:     250000 cpu-clock:u:  7f00 foo+0x4 (/lib/x.so)\n"
        "  V8 WorkerThread 25607 [001] 1.6:     250000 cpu-clock:u:  7f08 foo+0xc (/lib/x.so)\n"
        "  V8 WorkerThread 25607 [001] 1.7:     250000 cpu-clock:u:  7f80 bar (/lib/x.so)\n"
    )
    path = _write(tmp_path, text)
    assert detect(path) == "perf-script"
    gf = pw.read(path)
    assert _by_path(gf, "samples") == {("foo",): 2.0, ("bar",): 1.0}
    assert set(gf.dataframe["command"]) == {"V8 WorkerThread"}
    assert gf.unit_of("period") == "ns"


@pytest.mark.parametrize(
    ("text", "line", "match"),
    [
        ("prog 1 1.0: 1 cycles:\n\t1 f (/x)\nthis is not perf output\n", 3, "sample header"),
        ("prog 1 1.0: 1 cycles:\n\t1 f (/x)\n\n\t2 g (/x)\n", 4, "above this call-chain"),
        ("\t1 f (/x)\nprog 1 1.0: 1 cycles:\n", 1, "above this call-chain"),
        ("prog 99999999999 1.0: 1 cycles:\n\t1 f (/x)\n", 1, "thread id"),
        ("prog 1 1.0: 99999999999999999999 cycles:\n\t1 f (/x)\n", 1, "a period"),
        ("prog 1 1.0: 9223372036854775808 cycles:\n\t1 f (/x)\n", 1, "a period"),
        ("prog 1 1.0: " + "9" * 5000 + " cycles:\n\t1 f (/x)\n", 1, "a period"),
        ("prog 1 1.0: 5 cycles:\n\t1 f (/x)\n\nprog 1 2.0: cycles:\n\t1 f (/x)\n", 4, "period"),
    ],
)
def test_bad_input_names_the_file_and_line(tmp_path, text, line, match):
    path = _write(tmp_path, text)
    with pytest.raises(ParseError, match=match) as info:
        pw.read(path, format="perf-script")
    assert info.value.path == str(path) and info.value.line == line


def test_no_sample_at_all(tmp_path):
    for text in ("", "# only a comment\n\n"):
        with pytest.raises(ParseError, match="at least one sample"):
            pw.read(_write(tmp_path, text), format="perf-script")
    with pytest.raises(ParseError, match="a directory"):
        pw.read(tmp_path, format="perf-script")


def test_detection_reads_only_the_ends_of_a_file(tmp_path):
    """A ``perf script --header`` block longer than detection's 4 KiB window: the sample in
    the last 4 KiB decides. Text that is not perf script is not taken for it."""
    head = "# ========\n" + "".join(f"# cpu{k} : core {k}\n" for k in range(400)) + "# ========\n"
    path = _write(tmp_path, head + RECURSIVE)
    assert len(head) > 4096 and detect(path) == "perf-script"
    assert int(pw.read(path).dataframe["samples"].sum()) == 3
    one = _write(tmp_path, "prog 5 [000] 1.0: 1 cycles: 4f0 main (/bin/prog)", "one.txt")
    assert detect(one) == "perf-script"  # one sample without a call chain, no final newline
    other = _write(tmp_path, "just some notes: 1 2 3\nand more\n", "notes.txt")
    with pytest.raises(pw.errors.FormatError):
        detect(other)


def test_cli_and_ensemble(tmp_path, capsys):
    assert main(["info", str(HEADER)]) == 0
    info = capsys.readouterr().out
    assert "format:   perf-script" in info and "9 nodes, 1 roots" in info
    assert main(["tree", str(HEADER), "--color", "never", "--metric", "samples (inc)"]) == 0
    tree = capsys.readouterr().out
    assert "136.000 main" in tree
    assert main(["convert", str(HEADER), "--to", "folded"]) == 0
    folded = capsys.readouterr().out
    leaf = Counter(s["stack"] for s in _samples(HEADER))
    assert {ln.rsplit(" ", 1)[0]: int(ln.rsplit(" ", 1)[1]) for ln in folded.splitlines()} == {
        ";".join(k): v for k, v in leaf.items()
    }
    ens = pw.Ensemble.from_files([str(HEADER), str(DATA / "simple.linux-perf.txt")])
    assert len(ens.profiles) == 2
    totals = ens.dataframe.groupby(level="profile")["samples"].sum()
    assert sorted(int(v) for v in totals) == [1, 136]
    assert np.isclose(ens.dataframe["period"].sum(), 137 * 1001001)


def test_bytes_that_are_not_utf8_are_replaced_and_named(tmp_path):
    path = tmp_path / "perf.txt"
    path.write_bytes(b"prog 1 1.0: 1 cycles:\n\t1 f\xff (/x)\n")
    with pytest.warns(SkippedInputWarning, match="line 2"):
        gf = pw.read(path)
    assert list(gf.graph.frames["name"]) == ["f\ufffd"]


def test_the_tree_shows_samples_with_their_callers_by_default():
    # a stack sample counts for every frame on it: the text tree opened on exclusive samples
    # printed 0.000 for every frame but the leaves
    gf = pw.read(DATA / "simple.linux-perf.txt")
    assert gf.default_metric == "samples (inc)"
    lines = [ln for ln in gf.tree(color=False).splitlines() if not ln.startswith("#")]
    total = float(gf.dataframe["samples"].sum())
    assert float(lines[0].split()[0]) == total > 0
    assert not [ln for ln in lines if ln.lstrip("│├└─ ").startswith("0.000")]
