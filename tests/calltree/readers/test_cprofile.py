"""cProfile/pstats reader: the recursive example against Hatchet and the file itself,
profiles made here with cProfile, random call graphs, and bad input."""

from __future__ import annotations

import cProfile
import marshal
import pstats
import subprocess
import sys
import types
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave
from perfweave import GraphFrame
from perfweave.errors import FormatError, ParseError
from tests.calltree._peer import assert_same
from tests.calltree.readers._round_trip_checks import assert_round_trips

DATA = Path(__file__).resolve().parents[2] / "data" / "hatchet" / "cprofile-hatchet-pstats"
CYCLE = DATA / "cprofile-cycle.pstats"
PY2 = DATA / "cprofile-cycle-py2.pstats"


def _row(gf, name):
    df = gf.dataframe
    return df[df["name"] == name].iloc[0]


def _children(gf, name):
    g = gf.graph
    nid = int(g.frames.index[g.frames["name"] == name][0])
    return sorted(g.frame(c)["name"] for c in g.children_of(nid))


def test_cycle_file_structure_and_values():
    gf = GraphFrame.from_cprofile(CYCLE)
    assert len(gf.graph) == 9 and not gf.graph.is_tree()
    assert sorted(r.frame["name"] for r in gf.graph.roots) == ["__exit__", "e"]
    assert gf.dataframe.index.names == ["node"]
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]
    assert gf.default_metric == "time"
    assert list(gf.dataframe.columns) == [
        "file",
        "line",
        "name",
        "numcalls",
        "nativecalls",
        "time (inc)",
        "time",
    ]
    # from the marshalled dict: recursive (line 27) is called by g, f and itself
    rec = _row(gf, "recursive")
    assert (rec["file"], rec["line"]) == ("pstats_reader_test.py", 27)
    assert (rec["numcalls"], rec["nativecalls"]) == (1002000, 101202000)
    assert rec["time"] == pytest.approx(22.7388) and rec["time (inc)"] == pytest.approx(22.7388)
    assert _row(gf, "e")["time (inc)"] == pytest.approx(23.0226)
    assert _children(gf, "f") == ["g", "recursive"]
    assert _children(gf, "recursive") == []  # the self call closes a cycle
    assert gf.metadata["cycle_edges"] == [("recursive", "recursive")]
    rec_id = int(gf.graph.frames.index[gf.graph.frames["name"] == "recursive"][0])
    parents = sorted(gf.graph.frame(p)["name"] for p in gf.graph.parents_of(rec_id))
    assert parents == ["f", "g"]


def test_detected_and_round_trips():
    assert perfweave.read(CYCLE).graph == GraphFrame.from_cprofile(CYCLE).graph
    from perfweave.calltree.readers import detect

    assert detect(CYCLE) == "cprofile"
    assert_round_trips(GraphFrame.from_cprofile(CYCLE))


@pytest.mark.peer
def test_same_as_hatchet():
    """Hatchet keeps the self edge recursive -> recursive, which makes its graph cyclic
    (Node.paths() never ends); without that one edge the graphs and values agree."""
    import hatchet as ht

    ours = GraphFrame.from_cprofile(CYCLE)
    theirs = ht.GraphFrame.from_cprofile(str(CYCLE))
    loops = []
    for node in theirs.graph.traverse():
        for child in list(node.children):
            if child is node:
                node.children.remove(child)
                node.parents.remove(node)
                loops.append((node.frame["name"], node.frame["name"]))
    assert loops == ours.metadata["cycle_edges"]
    assert_same(ours, theirs, metrics=["time", "time (inc)", "numcalls", "nativecalls"])


def test_python2_file_is_a_clear_format_error():
    with pytest.raises(FormatError, match=r"cprofile-cycle-py2\.pstats: a Python 2 pstats"):
        GraphFrame.from_cprofile(PY2)
    with pytest.raises(FormatError, match="Python 2"):
        perfweave.read(PY2)


# --------------------------------------------------------------------- made here
def _ping(n):
    return _pong(n - 1) if n > 0 else 0


def _pong(n):
    return _ping(n - 1) if n > 0 else 1


def _main():
    for _ in range(3):
        _ping(5)
    return sorted([3, 1, 2])


def test_mutual_recursion_profiled_here(tmp_path):
    prof = cProfile.Profile()
    prof.runcall(_main)
    out = tmp_path / "run.pstats"
    prof.dump_stats(out)
    gf = GraphFrame.from_cprofile(out)
    assert _row(gf, "_ping")["nativecalls"] == 3 * 3  # n = 5, 3, 1 each time
    assert _row(gf, "_pong")["nativecalls"] == 3 * 3
    assert _row(gf, "_main")["numcalls"] == 1
    # _ping -> _pong -> _ping: one of the two edges is a back edge; every node stays
    assert ("_pong", "_ping") in gf.metadata["cycle_edges"]
    assert _children(gf, "_main") == ["<built-in method builtins.sorted>", "_ping"]
    assert _children(gf, "_ping") == ["_pong"]
    assert _children(gf, "_pong") == []
    assert len(gf.graph) == len(gf.dataframe)


def _write(tmp_path, stats, name="x.pstats"):
    p = tmp_path / name
    p.write_bytes(marshal.dumps(stats))
    return p


def _fn(name, line=1):
    return ("prog.py", line, name)


def _stat(tt, ct, callers=()):
    return (1, 1, tt, ct, {c: (1, 1, tt, ct) for c in callers})


def test_cycle_that_no_root_reaches(tmp_path):
    a, b, c = _fn("a", 1), _fn("b", 2), _fn("c", 3)
    p = _write(tmp_path, {a: _stat(1, 3, [b]), b: _stat(1, 2, [a]), c: _stat(1, 1, [b])})
    gf = GraphFrame.from_cprofile(p)
    assert len(gf.graph) == 3
    assert [r.frame["name"] for r in gf.graph.roots] == ["a"]
    assert gf.metadata["cycle_edges"] == [("b", "a")]


def test_same_name_in_two_files_stays_two_nodes(tmp_path):
    """Hatchet keys functions by name, file *base name* and line, so these two collapse
    into one node there; both are kept here (same frame, two siblings)."""
    main, x1, x2 = _fn("main"), ("/a/util.py", 5, "helper"), ("/b/util.py", 5, "helper")
    p = _write(tmp_path, {main: _stat(1, 4), x1: _stat(1, 1, [main]), x2: _stat(2, 2, [main])})
    gf = GraphFrame.from_cprofile(p)
    assert len(gf.graph) == 3
    assert sorted(gf.dataframe.loc[gf.dataframe["name"] == "helper", "file"]) == [
        "/a/util.py",
        "/b/util.py",
    ]


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 12).flatmap(
        lambda n: st.tuples(
            st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)))
        )
    )
)
def test_random_call_graphs_become_dags_that_keep_every_function(tmp_path_factory, case):
    n, pairs = case
    pairs = sorted(set(pairs))
    keys = [_fn(f"f{i}", i) for i in range(n)]
    stats = {
        keys[i]: _stat(float(i), float(i + 1), [keys[s] for s, d in pairs if d == i])
        for i in range(n)
    }
    gf = GraphFrame.from_cprofile(_write(tmp_path_factory.mktemp("cp"), stats))
    g = gf.graph
    assert len(g) == n and len(gf.dataframe) == n
    kept = {
        (g.frame(s)["name"], g.frame(int(c))["name"]) for s in range(n) for c in g.children_of(s)
    }
    dropped = set(gf.metadata["cycle_edges"])
    named = {(f"f{s}", f"f{d}") for s, d in pairs}
    assert kept | dropped == named and not kept & dropped
    # each dropped edge closes a cycle: its callee reaches its caller through kept edges
    by_name = {g.frame(i)["name"]: i for i in range(n)}
    for caller, callee in dropped:
        assert by_name[caller] in set(g.subtree(by_name[callee]).tolist())


# --------------------------------------------------------------------- bad input
SCRIPT = """\
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def main():
    return [fib(8) for _ in range(3)]


main()
"""


def test_pure_python_profile_module_file(tmp_path):
    """``python -m profile -o`` keys the script's top level by its code object."""
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    out = tmp_path / "out.pstats"
    subprocess.run(
        [sys.executable, "-m", "profile", "-o", str(out), str(script)],
        check=True,
        cwd=tmp_path,
        capture_output=True,
    )
    stats = pstats.Stats(str(out)).stats
    code_keys = [k for k in stats if isinstance(k[2], types.CodeType)]
    assert len(code_keys) == 1  # the case this test is about
    gf = perfweave.read(out)
    assert len(gf.graph) == len(stats)
    df = gf.dataframe
    for key, (cc, nc, tt, ct, callers) in stats.items():
        name = key[2].co_name if isinstance(key[2], types.CodeType) else key[2]
        row = df[(df["file"] == key[0]) & (df["line"] == key[1]) & (df["name"] == name)]
        assert len(row) == 1, key
        row = row.iloc[0]
        assert (row["numcalls"], row["nativecalls"]) == (cc, nc)
        assert (row["time"], row["time (inc)"]) == (tt, ct)
        node = int(row.name)
        parents = {gf.graph.frame(p)["name"] for p in gf.graph.parents_of(node)}
        expected = {c[2].co_name if isinstance(c[2], types.CodeType) else c[2] for c in callers}
        if key[2] == "fib":  # the recursive self edge is left out (cycle_edges)
            expected.discard("fib")
        assert parents == expected, key
    assert code_keys[0][2].co_name == "<module>"
    assert ("fib", "fib") in gf.metadata["cycle_edges"]


@pytest.mark.peer
def test_pure_python_profile_module_file_same_as_hatchet(tmp_path):
    """Hatchet keeps the code object itself as that entry's name; perfweave its
    ``co_name``. Otherwise the same functions and values."""
    import hatchet as ht

    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    out = tmp_path / "out.pstats"
    subprocess.run(
        [sys.executable, "-m", "profile", "-o", str(out), str(script)],
        check=True,
        cwd=tmp_path,
        capture_output=True,
    )
    theirs = ht.GraphFrame.from_cprofile(str(out)).dataframe
    ours = GraphFrame.from_cprofile(out).dataframe
    codes = [n for n in theirs["name"] if isinstance(n, types.CodeType)]
    assert len(codes) == 1
    renamed = [n.co_name if isinstance(n, types.CodeType) else n for n in theirs["name"]]
    key = ["name", "line", "numcalls", "nativecalls", "time", "time (inc)"]
    mine = ours[key].sort_values(key).reset_index(drop=True)
    peer = theirs.assign(name=renamed)[key].sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, peer, check_dtype=False)


def test_truncated_file(tmp_path):
    p = tmp_path / "cut.pstats"
    p.write_bytes(CYCLE.read_bytes()[:200])
    with pytest.raises(ParseError, match=r"cut\.pstats, offset \d+: expected a pstats file"):
        GraphFrame.from_cprofile(p)


def test_not_a_statistics_dict(tmp_path):
    with pytest.raises(ParseError, match="a pstats statistics dict, found 'marshalled list'"):
        GraphFrame.from_cprofile(_write(tmp_path, [1, 2, 3]))
    with pytest.raises(ParseError, match=r"function keys \(file, line, name or code object\)"):
        GraphFrame.from_cprofile(_write(tmp_path, {"main": (1, 1, 0.0, 0.0, {})}))
    with pytest.raises(ParseError, match="at least one profiled function"):
        GraphFrame.from_cprofile(_write(tmp_path, {}))


def test_caller_that_is_not_profiled(tmp_path):
    a, ghost = _fn("a"), _fn("ghost", 9)
    with pytest.raises(ParseError, match=r"function 'a'.*callers that are profiled.*ghost"):
        GraphFrame.from_cprofile(_write(tmp_path, {a: _stat(1, 1, [ghost])}))


def test_bad_statistics_tuple(tmp_path):
    with pytest.raises(ParseError, match=r"function 'a' \(prog.py:1\)"):
        GraphFrame.from_cprofile(_write(tmp_path, {_fn("a"): (1, 1, 0.5)}))
