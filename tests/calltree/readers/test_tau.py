"""TAU reader: the 4-rank cpi profiles against Hatchet and the files, synthetic profiles
(several metrics, threads, TAU's name forms, ranks missing a node) and bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave
from perfweave import GraphFrame
from perfweave.calltree.readers import detect
from perfweave.errors import ParseError
from tests.calltree._peer import assert_same
from tests.calltree.readers._round_trip_checks import assert_round_trips

CPI = Path(__file__).resolve().parents[2] / "data" / "hatchet" / "tau-cpi-mpi"
COLUMNS = ["name", "file", "module", "line", "end_line", "Calls", "Subrs", "time", "time (inc)"]


def _at(gf, name, **levels):
    df = gf.dataframe
    for lvl, v in levels.items():
        df = df.xs(v, level=lvl)
    return df[df["name"] == name].iloc[0]


def _children(gf, name):
    g = gf.graph
    nid = int(g.frames.index[g.frames["name"] == name][0])
    return sorted(g.frame(int(c))["name"] for c in g.children_of(nid))


def _profile(entries, metric="TIME", extra=()):
    """Text of a TAU profile file: entries are (name, calls, subrs, excl, incl)."""
    lines = [
        f"{len(entries)} templated_functions_MULTI_{metric}",
        "# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Metric Name"
        f"</name><value>{metric}</value></attribute></metadata>",
    ]
    lines += [f'"{n}" {c} {s} {e} {i} 0 GROUP="TAU_USER"' for n, c, s, e, i in entries]
    lines += ["0 aggregates", f"{len(extra)} userevents", "# eventname numevents max min mean"]
    lines += list(extra)
    return "\n".join(lines) + "\n"


def _write(directory: Path, name: str, text: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(text)


# --------------------------------------------------------------------- the real profiles
def test_cpi_structure_and_values():
    gf = GraphFrame.from_tau(CPI)
    assert len(gf.graph) == 12 and gf.graph.is_tree()
    assert [r.frame["name"] for r in gf.graph.roots] == [".TAU application"]
    assert gf.dataframe.index.names == ["node", "rank"]
    assert len(gf.dataframe) == 48 and list(gf.dataframe.columns) == COLUMNS
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]
    assert gf.default_metric == "time (inc)"
    # profile.0.0.0 line 3: ".TAU application" 1 7 449 51781 0
    root = _at(gf, ".TAU application", rank=0)
    assert (root["Calls"], root["Subrs"], root["time"], root["time (inc)"]) == (1, 7, 449, 51781)
    assert _at(gf, ".TAU application", rank=1)["time (inc)"] == 55329
    # ".TAU application => MPI_Finalize()   => MPI_File_open()" 1 0 27490 27490 (rank 0)
    assert _at(gf, "MPI_File_open()", rank=0)["time"] == 27490
    assert _at(gf, "MPI_File_open()", rank=3)["time"] == 27051
    assert _children(gf, "MPI_Finalize()") == [
        "MPI_Comm_get_attr()",
        "MPI_File_open()",
        "MPI_Info_create()",
        "MPI_Info_free()",
    ]
    assert len(_children(gf, ".TAU application")) == 7
    assert gf.dataframe["file"].isna().all() and gf.dataframe["module"].isna().all()


def test_detected_and_round_trips():
    assert detect(CPI) == "tau"
    assert perfweave.read(CPI).graph == GraphFrame.from_tau(CPI).graph
    assert_round_trips(GraphFrame.from_tau(CPI))


@pytest.mark.peer
@pytest.mark.filterwarnings("ignore::FutureWarning")  # Hatchet's fillna/stack on pandas 2
def test_same_as_hatchet():
    import hatchet as ht

    ours = GraphFrame.from_tau(CPI)
    theirs = ht.GraphFrame.from_tau(str(CPI))
    assert_same(ours, theirs, metrics=["Calls", "Subrs", "time", "time (inc)"])
    assert ours.default_metric == theirs.default_metric


# --------------------------------------------------------------------- synthetic
NAMED = [
    (".TAU application", 1, 4, 10, 100),
    ("main C [{cpi.c} {15,0}]", 1, 3, 5, 90),
    (".TAU application => main C [{cpi.c} {15,0}]", 1, 3, 5, 90),
    (
        ".TAU application => main C [{cpi.c} {15,0}] => [SUMMARY] compute [{cpi.c} {30,1}-{52,1}]",
        4,
        1,
        20,
        60,
    ),
    (
        ".TAU application => main C [{cpi.c} {15,0}] => [SUMMARY] compute [{cpi.c} {30,1}-{52,1}]"
        " => [UNWIND] /src/lib/util.c [@] helper [{/src/lib/util.c} {77}]",
        8,
        0,
        40,
        40,
    ),
    (".TAU application => main C [{cpi.c} {15,0}] => [SAMPLE] memcpy /lib64/libc.so.6", 2, 0, 5, 5),
    (".TAU application => MPI_Init()", 1, 0, 7, 7),
]


def _named_dir(tmp_path, ranks=(0, 1)):
    d = tmp_path / "named"
    for r in ranks:
        entries = [(n, c, s, e * (r + 1), i * (r + 1)) for n, c, s, e, i in NAMED]
        if r == 1:  # rank 1 never called MPI_Init
            entries = entries[:-1]
        _write(d, f"profile.{r}.0.0", _profile(entries))
    return d


def test_tau_name_forms_files_modules_and_lines(tmp_path):
    gf = GraphFrame.from_tau(_named_dir(tmp_path))
    assert _children(gf, ".TAU application") == ["MPI_Init()", "main"]
    assert _children(gf, "main") == ["[SAMPLE] memcpy", "[SUMMARY] compute"]
    assert _children(gf, "[SUMMARY] compute") == ["[UNWIND] helper"]
    main = _at(gf, "main", rank=0)
    assert (main["file"], main["module"], main["line"], main["end_line"]) == ("cpi.c", None, 15, 0)
    comp = _at(gf, "[SUMMARY] compute", rank=0)
    assert (comp["file"], comp["line"], comp["end_line"]) == ("cpi.c", 30, 52)
    helper = _at(gf, "[UNWIND] helper", rank=1)
    assert (helper["file"], helper["module"], helper["line"]) == ("/src/lib/util.c", None, 77)
    assert helper["time"] == 80  # rank 1 values are doubled
    memcpy = _at(gf, "[SAMPLE] memcpy", rank=0)
    assert (memcpy["file"], memcpy["module"]) == (None, "/lib64/libc.so.6")


def test_a_node_missing_on_a_rank_gets_zeros(tmp_path):
    gf = GraphFrame.from_tau(_named_dir(tmp_path))
    init = _at(gf, "MPI_Init()", rank=1)
    assert (init["Calls"], init["time"], init["time (inc)"]) == (0, 0, 0)
    assert len(gf.dataframe) == len(gf.graph) * 2


@pytest.mark.peer
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_name_forms_same_as_hatchet(tmp_path):
    import hatchet as ht

    d = _named_dir(tmp_path)
    ours, theirs = GraphFrame.from_tau(d), ht.GraphFrame.from_tau(str(d))
    assert_same(ours, theirs, metrics=["Calls", "Subrs", "time", "time (inc)"])
    cols = ["name", "line", "end_line"]
    a = ours.dataframe.reset_index().sort_values(["name", "rank"])[cols]
    b = theirs.dataframe.reset_index().sort_values(["name", "rank"])[cols]
    assert a.values.tolist() == b.values.tolist()


def test_several_metrics_and_threads(tmp_path):
    entries = [(".TAU application", 1, 1, 5, 50), (".TAU application => work()", 2, 0, 45, 45)]
    papi = [(n, c, s, e * 1000, i * 1000) for n, c, s, e, i in entries]
    for t in (0, 1):
        _write(tmp_path / "MULTI__TIME", f"profile.0.0.{t}", _profile(entries, "TIME"))
        _write(tmp_path / "MULTI__PAPI_L2_TCM", f"profile.0.0.{t}", _profile(papi, "PAPI_L2_TCM"))
    gf = GraphFrame.from_tau(tmp_path)
    assert gf.dataframe.index.names == ["node", "thread"]
    assert sorted(gf.exc_metrics) == ["PAPI_L2_TCM", "time"]
    assert sorted(gf.inc_metrics) == ["PAPI_L2_TCM (inc)", "time (inc)"]
    work = _at(gf, "work()", thread=1)
    assert (work["time"], work["PAPI_L2_TCM"], work["PAPI_L2_TCM (inc)"]) == (45, 45000, 45000)


def test_context_user_events_are_not_functions(tmp_path):
    """Hatchet parses every line with '=>' as a function, so context user events
    ("event : a => b" after the functions) make it fail; they are skipped here."""
    entries = [(".TAU application", 1, 1, 5, 50), (".TAU application => send()", 2, 0, 45, 45)]
    events = ['"Message size : .TAU application => send()" 2 8 8 8 128']
    _write(tmp_path, "profile.0.0.0", _profile(entries, extra=events))
    gf = GraphFrame.from_tau(tmp_path)
    assert len(gf.graph) == 2 and gf.dataframe.index.names == ["node"]


def test_flat_profile_keeps_every_function(tmp_path):
    """Without callpaths Hatchet keeps only the first function; here each is a root."""
    entries = [(".TAU application", 1, 2, 5, 50), ("solve()", 3, 0, 30, 30), ("io()", 1, 0, 15, 15)]
    _write(tmp_path, "profile.0.0.0", _profile(entries))
    gf = GraphFrame.from_tau(tmp_path)
    assert sorted(r.frame["name"] for r in gf.graph.roots) == [
        ".TAU application",
        "io()",
        "solve()",
    ]
    assert _at(gf, "solve()")["time"] == 30


def test_callpath_whose_top_is_not_listed_becomes_a_root(tmp_path):
    entries = [(".TAU application", 1, 0, 5, 5), ("worker => step()", 3, 0, 9, 9)]
    _write(tmp_path, "profile.0.0.0", _profile(entries))
    gf = GraphFrame.from_tau(tmp_path)
    assert sorted(r.frame["name"] for r in gf.graph.roots) == [".TAU application", "worker"]
    assert _children(gf, "worker") == ["step()"]


# --------------------------------------------------------------------- bad input
def _copy(tmp_path) -> Path:
    d = tmp_path / "tau"
    shutil.copytree(CPI, d)
    for f in d.iterdir():
        f.chmod(0o644)
    return d


def test_truncated_profile(tmp_path):
    d = _copy(tmp_path)
    f = d / "profile.2.0.0"
    f.write_text("\n".join(f.read_text().splitlines()[:10]))
    with pytest.raises(ParseError) as err:
        GraphFrame.from_tau(d)
    assert str(f) in str(err.value) and "23 function lines" in str(err.value)


def test_malformed_function_line(tmp_path):
    d = _copy(tmp_path)
    f = d / "profile.1.0.0"
    lines = f.read_text().splitlines()
    lines[4] = '"MPI_Comm_size()  " one two GROUP="MPI"'
    f.write_text("\n".join(lines))
    with pytest.raises(ParseError, match=r"profile\.1\.0\.0, line 5: expected \"name\" calls"):
        GraphFrame.from_tau(d)


def test_missing_header_and_not_a_profile(tmp_path):
    d = _copy(tmp_path)
    (d / "profile.0.0.0").write_text("hello\nworld\n")
    with pytest.raises(ParseError, match=r"profile\.0\.0\.0, line 1: expected a TAU header"):
        GraphFrame.from_tau(d)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ParseError, match="profile.RANK.CONTEXT.THREAD files"):
        GraphFrame.from_tau(tmp_path / "empty")


def test_metric_directories_that_disagree(tmp_path):
    entries = [(".TAU application", 1, 1, 5, 50), (".TAU application => a()", 2, 0, 45, 45)]
    other = [(".TAU application", 1, 1, 5, 50), (".TAU application => b()", 2, 0, 45, 45)]
    _write(tmp_path / "MULTI__TIME", "profile.0.0.0", _profile(entries, "TIME"))
    _write(tmp_path / "MULTI__CYCLES", "profile.0.0.0", _profile(other, "CYCLES"))
    with pytest.raises(ParseError, match=r"line 4: expected the same function"):
        GraphFrame.from_tau(tmp_path)


def test_inputs_are_not_modified(tmp_path):
    d = _copy(tmp_path)
    before = {f.name: f.read_bytes() for f in d.iterdir()}
    GraphFrame.from_tau(d)
    assert {f.name: f.read_bytes() for f in d.iterdir()} == before


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(0, 10**6), min_size=1, max_size=25),
    st.integers(1, 3),
    st.integers(0, 2**32 - 1),
)
def test_random_callpath_trees_read_back(tmp_path_factory, picks, n_ranks, seed):
    """Random trees written as callpath profiles (a random subset of nodes per rank,
    lines shuffled) come back with their structure and every (node, rank) value."""
    rng = np.random.default_rng(seed)
    parent = [-1] + [p % (i + 1) for i, p in enumerate(picks)]
    paths = [".TAU application"]
    for i in range(1, len(parent)):
        paths.append(f"{paths[parent[i]]} => f{i}()")
    d = tmp_path_factory.mktemp("tau")
    truth = {}
    for r in range(n_ranks):
        present = [0] + [i for i in range(1, len(paths)) if rng.random() < 0.8]
        # a node present on a rank implies its ancestors are too
        keep = set(present)
        for i in present:
            while parent[i] >= 0:
                i = parent[i]
                keep.add(i)
        order = [0] + [int(i) for i in rng.permutation(sorted(keep - {0}))]
        entries = []
        for i in order:
            exc = int(rng.integers(0, 1000))
            truth[(f"f{i}()" if i else ".TAU application", r)] = exc
            entries.append((paths[i], 1, 0, exc, exc + 1))
        _write(d, f"profile.{r}.0.0", _profile(entries))
    gf = GraphFrame.from_tau(d)
    assert len(gf.graph) == len({name for name, _ in truth})
    df = gf.dataframe.reset_index()
    for (name, r), exc in truth.items():
        row = df[(df["name"] == name) & ((df["rank"] == r) if "rank" in df else True)]
        assert row["time"].tolist() == [exc]
    for i in range(1, len(parent)):
        if any(n == f"f{i}()" for n, _ in truth):
            want = ".TAU application" if parent[i] == 0 else f"f{parent[i]}()"
            nid = int(gf.graph.frames.index[gf.graph.frames["name"] == f"f{i}()"][0])
            assert gf.graph.frame(int(gf.graph.parent[nid]))["name"] == want
    assert len(df) == len(gf.graph) * n_ranks
