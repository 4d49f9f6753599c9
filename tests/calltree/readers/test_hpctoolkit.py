"""HPCToolkit reader: experiment.xml + metric-db databases (cpi: 4 ranks, allgather:
10 ranks x 2 threads), against Hatchet, its CSV dump, the files themselves and bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfweave
from perfweave import GraphFrame
from perfweave.errors import ParseError
from tests.calltree._peer import assert_same
from tests.calltree.readers._round_trip_checks import assert_round_trips

DATA = Path(__file__).resolve().parents[2] / "data" / "hatchet"
CPI = DATA / "hpctoolkit-cpi-database"
ALLGATHER = DATA / "hpctoolkit-allgather-database"
COLUMNS = ["time (inc)", "time", "nid", "name", "type", "file", "line", "module"]


def _plain(values) -> list:
    """Values with missing ones as None (pandas 3 stores missing text as NaN)."""
    return [None if v is None or (isinstance(v, float) and np.isnan(v)) else v for v in values]


def _by_nid(gf, **levels) -> pd.DataFrame:
    df = gf.dataframe
    for lvl, value in levels.items():
        df = df.xs(value, level=lvl)
    return df.set_index("nid")


# --------------------------------------------------------------------- facts of the files
def test_cpi_structure_and_values():
    gf = GraphFrame.from_hpctoolkit(CPI)
    assert len(gf.graph) == 34 and gf.graph.is_tree()
    assert [r.frame["name"] for r in gf.graph.roots] == ["<program root>"]
    assert gf.dataframe.index.names == ["node", "rank"]
    assert sorted(set(gf.dataframe.index.get_level_values("rank"))) == [0, 1, 2, 3]
    assert len(gf.dataframe) == 34 * 4
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]
    assert gf.default_metric == "time"
    assert list(gf.dataframe.columns) == COLUMNS
    r0 = _by_nid(gf, rank=0)
    # metric-db of rank 0: node 1 (index 0) holds 0x412e7e8c00000000 = 999238.0 inclusive
    assert r0.loc[2, "time (inc)"] == 999238.0 and r0.loc[2, "name"] == "<program root>"
    # main (PF i=4, l=19, f=./src/cpi.c, lm=cpi); MPI_Init called from line 27 of main
    assert r0.loc[4, ["name", "type", "file", "line", "module"]].tolist() == [
        "main",
        "PF",
        "./src/cpi.c",
        19,
        "cpi",
    ]
    assert r0.loc[6, "name"] == "27:MPI_Init"
    # statement S i=44 keeps its exclusive time; its PF parent (i=43) loses it
    assert r0.loc[44, "time"] == r0.loc[44, "time (inc)"] > 0
    assert r0.loc[43, "time"] == 0.0
    assert r0.loc[44, ["name", "type", "file", "line"]].tolist() == [
        "<unknown file>:0",
        "S",
        "<unknown file>",
        0,
    ]


def test_cpi_exclusive_values_are_the_metric_db_minus_statements():
    gf = GraphFrame.from_hpctoolkit(CPI)
    raw = np.fromfile(next(CPI.glob("*-000000-000-*.metric-db")), dtype=">f8", offset=32).reshape(
        60, 2
    )
    r0 = _by_nid(gf, rank=0)
    # PF i=41 holds raw exclusive time; its direct statement S i=60 moves it all out
    assert raw[41 - 1, 1] == raw[60 - 1, 1] > 0
    assert r0.loc[41, "time"] == raw[41 - 1, 1] - raw[60 - 1, 1] == 0.0
    assert r0.loc[60, "time"] == raw[60 - 1, 1]
    # inclusive values are the metric-db's, untouched
    np.testing.assert_array_equal(r0["time (inc)"].to_numpy(), raw[r0.index - 1, 0])


def test_allgather_ranks_threads_and_roots():
    gf = GraphFrame.from_hpctoolkit(ALLGATHER)
    assert len(gf.graph) == 1474
    assert sorted(r.frame["name"] for r in gf.graph.roots) == [
        "<no thread>",
        "<partial call paths>",
        "<program root>",
    ]
    assert gf.dataframe.index.names == ["node", "rank", "thread"]
    assert len(gf.dataframe) == 1474 * 20
    idx = gf.dataframe.index
    assert set(idx.get_level_values("rank")) == set(range(10))
    assert set(idx.get_level_values("thread")) == {0, 1}
    types = gf.dataframe["type"].value_counts()
    assert types.to_dict() == {"PF": 18100, "S": 11240, "L": 140}
    loops = gf.graph.frames[gf.graph.frames["type"] == "loop"]
    assert len(loops) == 7 and loops["name"].isna().all()


def test_statement_file_is_its_enclosing_scope_not_the_last_file_seen():
    """Deliberate difference: Hatchet names a statement after the file of whatever
    procedure it parsed last (a global), so S i=60, a statement of the <unknown procedure>
    PF i=41, becomes "interp.c:0" after the callee __GI_sched_yield (interp.c) is read."""
    r0 = _by_nid(GraphFrame.from_hpctoolkit(CPI), rank=0)
    assert r0.loc[41, "file"] == "<unknown file>"
    assert r0.loc[60, ["name", "file"]].tolist() == ["<unknown file>:0", "<unknown file>"]
    csv = pd.read_csv(DATA / "hpctoolkit-cpi-graphframe.csv")
    assert set(csv.loc[csv["nid"] == 60, "file"]) == {"interp.c"}  # Hatchet's answer


def test_matches_hatchets_csv_dump():
    """The expected dataframe Hatchet's repository ships for the cpi database."""
    ours = GraphFrame.from_hpctoolkit(CPI).dataframe.reset_index()
    csv = pd.read_csv(DATA / "hpctoolkit-cpi-graphframe.csv", keep_default_na=False)
    csv["module"] = csv["module"].replace("", None)
    # the one deliberate difference (see the test above)
    fixed = csv["nid"] == 60
    csv.loc[fixed, "file"] = "<unknown file>"
    csv.loc[fixed, "name"] = "<unknown file>:0"
    key = ["nid", "rank"]
    a = ours.set_index(key).sort_index()
    b = csv.set_index(key).sort_index()
    assert a.index.equals(b.index)
    for col in ["time (inc)", "time", "line"]:
        np.testing.assert_allclose(a[col].to_numpy(float), b[col].to_numpy(float))
    for col in ["name", "type", "file", "module"]:
        assert a[col].tolist() == b[col].tolist(), col


def test_detected_and_read_through_the_experiment_file():
    from perfweave.calltree.readers import detect

    assert detect(CPI) == "hpctoolkit"
    assert detect(CPI / "experiment.xml") == "hpctoolkit"
    a = perfweave.read(CPI)
    b = perfweave.read(CPI / "experiment.xml")
    assert a.graph == b.graph and len(a.dataframe) == 136


@pytest.mark.parametrize("db", [CPI, ALLGATHER], ids=["cpi", "allgather"])
def test_round_trips(db):
    assert_round_trips(GraphFrame.from_hpctoolkit(db))


# --------------------------------------------------------------------- the peer
def _fix_hatchet_statements(theirs) -> int:
    """Give Hatchet's statements the file of their enclosing PF/Pr/L (from Hatchet's own
    rows of those scopes), so the rest can be compared exactly. Returns how many changed."""
    from hatchet.frame import Frame

    df = theirs.dataframe
    first = df.groupby(level="node").first()
    changed = 0
    for node in theirs.graph.traverse():
        if node.frame.get("type") != "statement":
            continue
        scope = node.parents[0]
        while first.loc[scope, "type"] not in ("PF", "Pr", "L"):
            scope = scope.parents[0]
        file = first.loc[scope, "file"]
        if file == node.frame["file"]:
            continue
        changed += 1
        node.frame = Frame({"type": "statement", "file": file, "line": node.frame["line"]})
        rows = df.index.get_level_values("node") == node
        df.loc[rows, "file"] = file
        df.loc[rows, "name"] = f"{file.rsplit('/', 1)[-1]}:{node.frame['line']}"
    return changed


@pytest.mark.peer
@pytest.mark.parametrize("db, n_fixed", [(CPI, 1), (ALLGATHER, 44)], ids=["cpi", "allgather"])
def test_same_as_hatchet(db, n_fixed):
    import hatchet as ht

    ours = GraphFrame.from_hpctoolkit(db)
    theirs = ht.GraphFrame.from_hpctoolkit(str(db))
    assert _fix_hatchet_statements(theirs) == n_fixed
    assert_same(ours, theirs)
    assert ours.exc_metrics == theirs.exc_metrics
    assert ours.inc_metrics == theirs.inc_metrics
    assert ours.default_metric == theirs.default_metric
    levels = ["nid", *theirs.dataframe.index.names[1:]]
    a = ours.dataframe.reset_index().set_index(levels).sort_index()
    b = theirs.dataframe.reset_index().set_index(levels).sort_index()
    for col in ["name", "type", "file", "line", "module"]:
        assert a[col].tolist() == b[col].tolist(), col


# --------------------------------------------------------------------- bad input
def _copy_db(tmp_path: Path, src: Path = CPI) -> Path:
    dst = tmp_path / "db"
    shutil.copytree(src, dst)
    for f in dst.iterdir():
        f.chmod(0o644)
    dst.chmod(0o755)
    return dst


def test_truncated_xml_names_file_and_line(tmp_path):
    db = _copy_db(tmp_path)
    xml = db / "experiment.xml"
    text = xml.read_text()
    xml.write_text(text[: text.index('<S i="44"')])
    with pytest.raises(ParseError) as err:
        GraphFrame.from_hpctoolkit(db)
    assert str(xml) in str(err.value) and err.value.line is not None
    assert "well-formed XML" in str(err.value)


def test_unknown_procedure_id(tmp_path):
    db = _copy_db(tmp_path)
    xml = db / "experiment.xml"
    xml.write_text(
        xml.read_text().replace(
            '<PF i="4" s="7" l="19" lm="2" f="3" n="7">',
            '<PF i="4" s="7" l="19" lm="2" f="3" n="9999">',
        )
    )
    with pytest.raises(ParseError, match=r"procedure ids.*9999"):
        GraphFrame.from_hpctoolkit(db)


def test_metric_missing_from_header(tmp_path):
    db = _copy_db(tmp_path)
    xml = db / "experiment.xml"
    text = xml.read_text()
    start = text.index('<MetricDB i="1"')
    xml.write_text(text[:start] + text[text.index("/>", start) + 2 :])
    with pytest.raises(ParseError) as err:
        GraphFrame.from_hpctoolkit(db)
    assert "1 metrics" in str(err.value) and ".metric-db" in str(err.value)


def test_truncated_metric_db(tmp_path):
    db = _copy_db(tmp_path)
    f = next(db.glob("*-000002-000-*.metric-db"))
    f.write_bytes(f.read_bytes()[:500])
    with pytest.raises(ParseError, match=r"120 values after the header.*58 .truncated") as err:
        GraphFrame.from_hpctoolkit(db)
    assert err.value.path == str(f)


def test_metric_db_with_fewer_nodes_than_the_tree(tmp_path):
    db = _copy_db(tmp_path)
    for f in db.glob("*.metric-db"):
        data = bytearray(f.read_bytes())
        data[24:28] = (40).to_bytes(4, "big")
        f.write_bytes(bytes(data[: 32 + 40 * 2 * 8]))
    with pytest.raises(ParseError, match=r"node ids 1\.\.40.*i=4\d"):
        GraphFrame.from_hpctoolkit(db)


def test_not_a_metric_db(tmp_path):
    db = _copy_db(tmp_path)
    f = next(db.glob("*-000001-000-*.metric-db"))
    f.write_bytes(b"hello world, this is not a metric database at all")
    with pytest.raises(ParseError, match="HPCPROF-metricdb header"):
        GraphFrame.from_hpctoolkit(db)


def test_no_metric_db_files_and_no_experiment(tmp_path):
    db = _copy_db(tmp_path)
    for f in db.glob("*.metric-db"):
        f.unlink()
    with pytest.raises(ParseError, match="metric-db files"):
        GraphFrame.from_hpctoolkit(db)
    (db / "experiment.xml").unlink()
    with pytest.raises(ParseError, match="experiment.xml"):
        GraphFrame.from_hpctoolkit(db)


def test_unexpected_element_in_the_tree(tmp_path):
    db = _copy_db(tmp_path)
    xml = db / "experiment.xml"
    xml.write_text(
        xml.read_text()
        .replace('<S i="44" s="541" l="0">', '<Q i="44">', 1)
        .replace('</S>\n</PF>\n</C>\n<C i="45"', '</Q>\n</PF>\n</C>\n<C i="45"', 1)
    )
    with pytest.raises(ParseError, match="PF, Pr, L, S, C or M.*<Q>"):
        GraphFrame.from_hpctoolkit(db)


def test_inputs_are_not_modified(tmp_path):
    db = _copy_db(tmp_path)
    before = {f.name: f.read_bytes() for f in db.iterdir()}
    GraphFrame.from_hpctoolkit(db)
    assert {f.name: f.read_bytes() for f in db.iterdir()} == before


# --------------------------------------------------------------------- random databases
_PROCS = {"4": "main", "5": "solve", "6": "g&lt;int&gt;", "7": ""}
_FILES = {"2": "a.c", "3": "dir/b.c"}
_CONTAINS = {  # which elements may hold which (experiment.xml's DTD)
    "C": {"PF"},
    "S": {"PF", "Pr", "L", "S"},
    "L": {"PF", "Pr", "L"},
    "Pr": {"PF", "Pr", "L"},
    "PF": {"C"},
}

_steps = st.lists(
    st.tuples(
        st.sampled_from(["C", "S", "L", "Pr", "PF"]),
        st.integers(0, 10**6),
        st.sampled_from(sorted(_PROCS)),
        st.sampled_from([None, *sorted(_FILES)]),
        st.integers(0, 40),
    ),
    max_size=40,
)


def _random_tree(steps):
    """Elements (tag, parent, attrs) in document order of a valid calling context tree."""
    elems = [("PF", -1, {"n": "4", "f": "2", "l": "0", "lm": "1"})]
    for kind, pick, proc, file, line in steps:
        allowed = [k for k, e in enumerate(elems) if e[0] in _CONTAINS[kind]]
        if not allowed:
            continue
        attrs = {"l": str(line)}
        if kind in ("PF", "Pr"):
            attrs.update(n=proc, lm="1")
        if kind in ("PF", "Pr", "L") and file is not None:
            attrs["f"] = file
        elems.append((kind, allowed[pick % len(allowed)], attrs))
    return elems


def _write_db(d: Path, elems, values: np.ndarray) -> None:
    kids: dict[int, list[int]] = {}
    for k, (_, p, _) in enumerate(elems):
        kids.setdefault(p, []).append(k)

    def emit(k, out):
        tag, _, attrs = elems[k]
        text = " ".join(f'{a}="{v}"' for a, v in attrs.items())
        out.append(f'<{tag} i="{k + 2}" {text}>')
        for c in kids.get(k, []):
            emit(c, out)
        out.append(f"</{tag}>")

    body: list[str] = []
    for r in kids.get(-1, []):
        emit(r, body)
    procs = "".join(f'<Procedure i="{i}" n="{n}"/>' for i, n in _PROCS.items())
    files = "".join(f'<File i="{i}" n="{n}"/>' for i, n in _FILES.items())
    d.mkdir()
    (d / "experiment.xml").write_text(
        '<?xml version="1.0"?>\n<HPCToolkitExperiment version="2.0">\n'
        '<SecCallPathProfile i="0" n="t"><SecHeader>\n<MetricDBTable>'
        '<MetricDB i="0" n="CPUTIME (usec) (I)"/><MetricDB i="1" n="CPUTIME (usec) (E)"/>'
        '</MetricDBTable>\n<LoadModuleTable><LoadModule i="1" n="/lib/x.so"/></LoadModuleTable>\n'
        f"<FileTable>{files}</FileTable>\n<ProcedureTable>{procs}</ProcedureTable>\n"
        "</SecHeader>\n<SecCallPathProfileData>\n" + "\n".join(body) + "\n"
        "</SecCallPathProfileData>\n</SecCallPathProfile>\n</HPCToolkitExperiment>\n"
    )
    n_nodes = values.shape[1]
    for r in range(values.shape[0]):
        head = b"HPCPROF-metricdb__" + b"01.10" + b"b"
        head += n_nodes.to_bytes(4, "big") + (2).to_bytes(4, "big")
        (d / f"1.t-{r:06d}-000-a8c0-{100 + r}-0.metric-db").write_bytes(
            head + values[r].astype(">f8").tobytes()
        )


def _expected(elems, values):
    """Reference semantics, one element at a time: nid -> (name, type, file, line, module,
    parent nid, exclusive per rank, inclusive per rank)."""
    import html

    out = {}

    def visit(k, graph_parent, scope_file, parent_line):
        tag, _, attrs = elems[k]
        nid = k + 2
        file = _FILES.get(attrs.get("f"), scope_file) if tag in ("PF", "Pr", "L") else scope_file
        line = int(attrs["l"])
        proc = html.unescape(_PROCS.get(attrs.get("n"), ""))
        is_node = tag in ("PF", "Pr", "L", "S") and not (tag == "Pr" and proc == "")
        if is_node:
            base = (file or "").rsplit("/", 1)[-1]
            name = {
                "L": f"Loop@{base}:{line}",
                "S": f"{base}:{line}",
            }.get(tag, f"{parent_line}:{proc}" if parent_line else proc)
            exc = values[:, nid - 1, 1].copy()
            for c, e in enumerate(elems):
                if e[1] == k and e[0] == "S":
                    exc -= values[:, c + 2 - 1, 1]
            module = "/lib/x.so" if tag in ("PF", "Pr") else None
            out[nid] = (name, tag, file, line, module, graph_parent, exc, values[:, nid - 1, 0])
        for c, e in enumerate(elems):
            if e[1] == k:
                visit(c, nid if is_node else graph_parent, file, line)

    visit(0, None, None, 0)
    return out


@settings(max_examples=40, deadline=None)
@given(_steps, st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_random_databases_follow_the_reference_semantics(tmp_path_factory, steps, ranks, seed):
    elems = _random_tree(steps)
    values = np.random.default_rng(seed).integers(0, 1000, (ranks, len(elems) + 2, 2))
    d = tmp_path_factory.mktemp("hpc") / "db"
    _write_db(d, elems, values.astype(float))
    gf = GraphFrame.from_hpctoolkit(d)
    want = _expected(elems, values.astype(float))
    assert len(gf.graph) == len(want)
    df = gf.dataframe.reset_index()
    nid_of = df.groupby("node")["nid"].first()
    for nid, (name, tag, file, line, module, gparent, exc, inc) in want.items():
        rows = df[df["nid"] == nid].sort_values("rank")
        first = rows.iloc[0]
        got = [first[c] for c in ("name", "type", "file", "line", "module")]
        assert _plain(got) == [name, tag, file, line, module]
        np.testing.assert_array_equal(rows["time"].to_numpy(), exc)
        np.testing.assert_array_equal(rows["time (inc)"].to_numpy(), inc)
        parents = gf.graph.parents_of(int(first["node"]))
        assert [int(nid_of[p]) for p in parents] == ([] if gparent is None else [gparent])


def test_line_ranges_literal_names_and_missing_files(tmp_path):
    """The DTD allows "beg-end" line ranges and names/files given as strings instead of
    table ids; Hatchet's int() and table look-ups fail on them. A PF without a file
    leaves its statements without one."""
    elems = [
        ("PF", -1, {"n": "4", "l": "10-20", "lm": "1"}),
        ("S", 0, {"l": "12-13"}),
        ("C", 0, {"l": "15-15"}),
        ("PF", 2, {"n": "kernel&lt;float&gt;", "f": "src/k.cu", "l": "3", "lm": "1"}),
        ("S", 3, {"l": "7"}),
    ]
    values = np.arange(2 * 7, dtype=float).reshape(1, 7, 2)
    _write_db(tmp_path / "db", elems, values)
    r0 = _by_nid(GraphFrame.from_hpctoolkit(tmp_path / "db"), rank=0)
    assert _plain(r0.loc[2, ["name", "line", "file"]]) == ["main", 10, None]
    assert _plain(r0.loc[3, ["name", "line", "file"]]) == [":12", 12, None]
    assert r0.loc[5, ["name", "file", "line"]].tolist() == ["15:kernel<float>", "src/k.cu", 3]
    assert r0.loc[6, "name"] == "k.cu:7"


def test_ranks_with_different_thread_counts(tmp_path):
    """Hatchet places files in one array assuming every rank has as many threads; here a
    rank without its second thread simply has fewer rows."""
    db = _copy_db(tmp_path, ALLGATHER)
    next(db.glob("*-000003-001-*.metric-db")).unlink()
    gf = GraphFrame.from_hpctoolkit(db)
    pairs = set(zip(*(gf.dataframe.index.get_level_values(lvl) for lvl in ("rank", "thread"))))
    assert len(pairs) == 19 and (3, 1) not in pairs and (3, 0) in pairs
    assert len(gf.dataframe) == 1474 * 19
    full = GraphFrame.from_hpctoolkit(ALLGATHER).dataframe
    assert gf.dataframe.xs((4, 1), level=("rank", "thread"))["time"].equals(
        full.xs((4, 1), level=("rank", "thread"))["time"]
    )
