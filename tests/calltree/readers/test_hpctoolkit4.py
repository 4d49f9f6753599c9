"""HPCToolkit database v4 reader (meta.db, profile.db, cct.db): the GAMESS GPU run (64
profiles) and a 4-rank cpi run, against the bytes themselves, Hatchet, and bad input."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import perfweave
from perfweave import GraphFrame
from perfweave.calltree.readers import detect
from perfweave.errors import (
    FormatError,
    MissingMetricWarning,
    OptionError,
    ParseError,
    SkippedInputWarning,
)
from tests.calltree._peer import assert_same
from tests.calltree.readers._round_trip_checks import assert_round_trips

DATA = Path(__file__).resolve().parents[2] / "data" / "hatchet-more"
GAMESS = DATA / "hpctoolkit-gamess"
CPI = DATA / "hatchet_cpi_v4_database"


def _entry_time(db: Path) -> tuple[int, float, int]:
    """Independent of the reader (struct, following FORMATS.md): the main-thread entry
    point's context id, its inclusive time in the summary profile, and the byte offset of
    that (metric, value) pair in profile.db."""
    meta = (db / "meta.db").read_bytes()
    p_ctx = struct.unpack_from("<Q", meta, 0x48)[0]
    p_entries, n_entries, sz_entry = struct.unpack_from("<QHB", meta, p_ctx)
    ctx = next(
        struct.unpack_from("<L", meta, p_entries + i * sz_entry + 16)[0]
        for i in range(n_entries)
        if struct.unpack_from("<H", meta, p_entries + i * sz_entry + 20)[0] == 1
    )
    p_metrics = struct.unpack_from("<Q", meta, 0x38)[0]
    p_md, n_md, sz_md = struct.unpack_from("<QLB", meta, p_metrics)
    sz_summary = meta[p_metrics + 14]
    inc_id = None
    for i in range(n_md):
        p_sum, n_sum = (
            struct.unpack_from("<Q", meta, p_md + i * sz_md + 16)[0],
            struct.unpack_from("<H", meta, p_md + i * sz_md + 26)[0],
        )
        name_ptr = struct.unpack_from("<Q", meta, p_md + i * sz_md)[0]
        name = meta[name_ptr : meta.index(b"\0", name_ptr)].decode()
        if not name.upper().startswith(("CPUTIME", "REALTIME")):
            continue
        for j in range(n_sum):
            p_scope, _, combine, _, stat_id = struct.unpack_from(
                "<QQBBH", meta, p_sum + j * sz_summary
            )
            scope_name_ptr = struct.unpack_from("<Q", meta, p_scope)[0]
            scope = meta[scope_name_ptr : meta.index(b"\0", scope_name_ptr)]
            if scope == b"execution" and combine == 0:
                inc_id = stat_id
    prof = (db / "profile.db").read_bytes()
    p_infos = struct.unpack_from("<Q", prof, 0x18)[0]
    p_profiles = struct.unpack_from("<Q", prof, p_infos)[0]
    n_values, p_values, n_ctx, _, p_idx = struct.unpack_from("<QQLLQ", prof, p_profiles)
    starts = [struct.unpack_from("<LQ", prof, p_idx + 12 * i) for i in range(n_ctx)]
    for i, (cid, start) in enumerate(starts):
        if cid == ctx:
            end = starts[i + 1][1] if i + 1 < n_ctx else n_values
            for j in range(start, end):
                metric, value = struct.unpack_from("<Hd", prof, p_values + 10 * j)
                if metric == inc_id:
                    return ctx, value, p_values + 10 * j
    raise AssertionError("no inclusive time for the entry point")


# --------------------------------------------------------------------- facts of the files
@pytest.mark.parametrize("db, n_nodes", [(GAMESS, 11292), (CPI, 182)], ids=["gamess", "cpi"])
def test_summary_tree_and_values(db, n_nodes):
    gf = perfweave.read(db)
    assert detect(db) == "hpctoolkit4" and detect(db / "cct.db") == "hpctoolkit4"
    assert len(gf.graph) == n_nodes and gf.graph.is_tree()
    assert [r.frame.attrs for r in gf.graph.roots] == [{"name": "entry", "type": "entry"}]
    assert gf.dataframe.index.names == ["node"] and len(gf.dataframe) == n_nodes
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]
    assert gf.default_metric == "time (inc)"
    root = gf.graph.root_ids[0]
    assert gf.dataframe.loc[root, "time (inc)"] == _entry_time(db)[1]
    types = set(gf.graph.frames["type"])
    assert types == {"entry", "function", "loop", "line", "instruction"}
    names = gf.dataframe["name"]
    assert names.str.startswith("function: ").sum() == (gf.graph.frames["type"] == "function").sum()
    assert (gf.dataframe[["time", "time (inc)"]] >= 0).all().all()
    assert not gf.dataframe[["time", "time (inc)"]].isna().any().any()  # absent values are 0


def test_names_follow_hatchet_rules():
    gf = perfweave.read(GAMESS)
    frames = gf.graph.frames
    names = frames["name"]
    # MPI routines are cut to MPI_Xxx; no function name keeps " [", "(", "<" after position 0
    fn = names[frames["type"] == "function"].str.removeprefix("function: ")
    assert fn.str.match(r"P?MPI_[A-Za-z_]+$").sum() > 0
    plain = fn[~fn.str.startswith((" [", ".", "@", "(", "<"))]
    assert len(plain) > 3000 and not plain.str.contains(r" \[|\(|<|@|\.", regex=True).any()
    lines = names[frames["type"] == "line"]
    assert lines.str.match(r"line .+:\d+$").all()
    ins = names[frames["type"] == "instruction"]
    assert ins.str.match(r".+:\d+$").all()


def test_unlabelled_functions_and_all_metrics():
    gf = perfweave.read(GAMESS, metric_names="all", label_function_nodes=False)
    assert not gf.dataframe["name"].str.startswith("function: ").any()
    metrics = gf.exc_metrics + gf.inc_metrics
    assert len(gf.exc_metrics) == len(gf.inc_metrics) == 44
    # every exclusive metric has its inclusive partner under update_inclusive_columns' naming
    assert {f"{m} (inc)" for m in gf.exc_metrics} == set(gf.inc_metrics)
    assert {"time", "gpuop", "gker", "gxcopy:h2d", "gxcopy:count"} <= set(metrics)
    assert gf.metadata["metric_units"]["gxcopy:h2d"] == "B"
    assert gf.metadata["metric_units"]["time (inc)"] == "sec"
    root = gf.graph.root_ids[0]
    # a GPU run: kernel time is part of the GPU operation time at the root
    assert 0 < gf.dataframe.loc[root, "gker (inc)"] <= gf.dataframe.loc[root, "gpuop (inc)"]


def test_directory_mapping():
    gf = perfweave.read(CPI, directory_mapping={"home/ocankur/apps": "/apps"})
    names = gf.dataframe["name"]
    assert names.str.startswith("line /apps/test/hatchet_cpi/cpi.c:").any()
    assert not names.str.contains("/home/ocankur/apps/").any()


def test_summary_statistics_and_scopes_options():
    gf = perfweave.read(CPI, summary_metrics=["sum"], metric_scopes=["i"])
    assert gf.inc_metrics == ["time (inc)"] and gf.exc_metrics == []
    with pytest.raises(OptionError):
        perfweave.read(CPI, metric_names="everything")


@pytest.mark.parametrize("db", [GAMESS, CPI], ids=["gamess", "cpi"])
def test_per_profile_rows_sum_to_the_summary(db):
    summary = perfweave.read(db, metric_names="all")
    each = perfweave.read(db, metric_names="all", per_profile=True)
    assert each.dataframe.index.names == ["node", "rank", "thread"]
    assert each.graph == summary.graph
    assert each.dataframe.index.is_unique
    metrics = summary.exc_metrics + summary.inc_metrics
    total = each.dataframe[metrics].groupby(level="node").sum()
    total = total.reindex(summary.dataframe.index, fill_value=0.0)
    np.testing.assert_allclose(
        total.to_numpy(), summary.dataframe[metrics].to_numpy(), rtol=1e-9, atol=1e-9
    )
    profiles = each.metadata["profiles"]
    assert len(profiles["profile"]) == (64 if db == GAMESS else 16)
    if db == GAMESS:  # 16 ranks, CPU threads 0-4, and GPU streams among the profiles
        assert sorted(set(each.dataframe.index.get_level_values("rank"))) == list(range(16))
        assert "gpustream" in profiles and "gpucontext" in profiles


def test_parallel_profiles_mode_and_profile_ranks():
    gf = perfweave.read(CPI, parallel_profiles_mode=True)
    assert gf.dataframe.index.names == ["node", "profile"]
    assert len(gf.dataframe) == 417
    assert sorted(set(gf.dataframe.index.get_level_values("profile"))) == [1, 2, 13, 16]
    two = perfweave.read(CPI, per_profile=True, profile_ranks=[0, 2])
    assert sorted(set(two.dataframe.index.get_level_values("rank"))) == [0, 2]


def test_tree_options():
    full = perfweave.read(GAMESS)
    shallow = perfweave.read(GAMESS, max_depth=3)
    assert len(shallow.graph) < len(full.graph)
    depth = np.asarray(shallow.graph.depths()) if hasattr(shallow.graph, "depths") else None
    if depth is not None:
        assert depth.max() == 3
    big = perfweave.read(GAMESS, min_percentage_of_application_time=1)
    root = big.graph.root_ids[0]
    share = big.dataframe["time (inc)"] / big.dataframe.loc[root, "time (inc)"] * 100
    assert (share >= 1).all() and len(big.graph) == 164
    funcs = perfweave.read(GAMESS, exclude_non_function_nodes=True)
    assert set(funcs.graph.frames["type"]) == {"entry", "function"}
    both = perfweave.read(GAMESS, all_entry_points=True)
    assert len(both.graph.roots) == 2 and len(both.graph) == len(full.graph) + 10


@pytest.mark.parametrize("db", [GAMESS, CPI], ids=["gamess", "cpi"])
def test_round_trips(db):
    assert_round_trips(perfweave.read(db, max_depth=6))


def test_cli_info_tree_convert(tmp_path, capsys):
    from perfweave.cli import main

    assert main(["info", str(CPI)]) == 0
    out = capsys.readouterr().out
    assert "hpctoolkit4" in out and "182 nodes" in out
    assert main(["tree", str(CPI), "--depth", "2", "--color", "never"]) == 0
    head, first = capsys.readouterr().out.splitlines()[:2]
    assert head == "# time (inc) in s" and "entry" in first
    dst = tmp_path / "cpi.json"
    assert main(["convert", str(CPI), "--to", "json", "-o", str(dst)]) == 0
    assert len(GraphFrame.from_json(dst).graph) == 182


# --------------------------------------------------------------------- the peer
def _hatchet(db: Path, **options):
    import hatchet as ht

    theirs = ht.GraphFrame.from_hpctoolkit_latest(str(db), **options)
    metrics = [c for c in theirs.dataframe.columns if c != "name"]
    theirs.dataframe[metrics] = theirs.dataframe[metrics].fillna(0.0)  # perfweave: absent = 0
    return theirs, metrics


PEER_OPTIONS = [
    {},
    {"max_depth": 10},
    {"min_percentage_of_application_time": 1},
    {"exclude_mpi_function_details": True},
    {"exclude_openmp_function_details": True},
    {"exclude_cuda_function_details": True},
    {"exclude_system_libraries_source_code": True},
    {"exclude_function_call_lines": True},
    {"exclude_no_source_code_instructions": True},
    {"exclude_instructions": True},
    {"exclude_non_function_nodes": True},
    {
        "label_function_nodes": False,
        "metric_names": ["time", "gpuop", "gker", "gxcopy", "gxcopy:count"],
    },
    {"summary_metrics": ["sum"], "metric_scopes": ["i"]},
    {"directory_mapping": {"home/ocankur/apps": "/apps"}},
]


@pytest.mark.peer
@pytest.mark.parametrize("options", PEER_OPTIONS, ids=lambda o: ",".join(o) or "defaults")
@pytest.mark.parametrize("db", [GAMESS, CPI], ids=["gamess", "cpi"])
def test_same_as_hatchet(db, options):
    if db == CPI and "metric_names" in options:  # a CPU run: its GPU metrics are named
        with pytest.warns(MissingMetricWarning, match="no metric 'gpuop', 'gker', 'gxcopy'"):
            ours = perfweave.read(db, **options)
    else:
        ours = perfweave.read(db, **options)
    theirs, metrics = _hatchet(db, **options)
    assert_same(ours, theirs, metrics=metrics)
    assert ours.default_metric == theirs.default_metric
    assert sorted(ours.inc_metrics) == sorted(theirs.inc_metrics)
    # Hatchet lists only metrics some row holds (and "name"); perfweave all it read
    assert set(theirs.exc_metrics) - {"name"} <= set(ours.exc_metrics)


@pytest.mark.peer
def test_parallel_profiles_same_as_hatchet():
    ours = perfweave.read(CPI, parallel_profiles_mode=True)
    theirs, metrics = _hatchet(CPI, parallel_profiles_mode=True)
    assert_same(ours, theirs, metrics=metrics)
    profiles = ours.metadata["profiles"]
    assert profiles["profile"][:4] == [1, 2, 3, 4] and profiles["rank"][:4] == [1, 0, 2, 0]
    assert profiles["core"][:2] == [92, 44]


@pytest.mark.peer
def test_hatchet_per_profile_mode_fails_on_gamess_where_ours_reads():
    import hatchet as ht

    with pytest.raises(struct.error):
        ht.GraphFrame.from_hpctoolkit_latest(str(GAMESS), parallel_profiles_mode=True)
    assert len(perfweave.read(GAMESS, parallel_profiles_mode=True).dataframe) > 11292


# --------------------------------------------------------------------- bad input
def _copy(tmp_path: Path, src: Path = CPI) -> Path:
    dst = tmp_path / "db"
    shutil.copytree(src, dst)
    for f in dst.rglob("*"):
        f.chmod(0o644 if f.is_file() else 0o755)
    return dst


def _patch(path: Path, offset: int, data: bytes) -> None:
    raw = bytearray(path.read_bytes())
    raw[offset : offset + len(data)] = data
    path.write_bytes(bytes(raw))


def test_wrong_magic_kind_and_version(tmp_path):
    db = _copy(tmp_path)
    _patch(db / "meta.db", 0, b"HPCTOOLKIX")
    with pytest.raises(FormatError):
        detect(db)  # not recognised as a database any more
    with pytest.raises(ParseError, match=r"meta\.db, header: expected an HPCToolkit database file"):
        perfweave.read(db, format="hpctoolkit4")
    db = _copy(tmp_path / "b")
    _patch(db / "profile.db", 10, b"ctxt")
    with pytest.raises(
        ParseError, match=r"profile\.db, header, offset 10: expected file kind 'prof'"
    ):
        perfweave.read(db)
    db = _copy(tmp_path / "c")
    _patch(db / "cct.db", 14, bytes([5]))
    with pytest.raises(
        ParseError,
        match=r"cct\.db, header, offset 14: expected database format major version 4.*5\.0",
    ):
        perfweave.read(db)


@pytest.mark.parametrize("missing", ["profile.db", "cct.db"])
def test_missing_file(tmp_path, missing):
    db = _copy(tmp_path)
    (db / missing).unlink()
    with pytest.raises(ParseError, match=f"with {missing}.*no {missing}"):
        perfweave.read(db)


@pytest.mark.parametrize("name", ["meta.db", "profile.db", "cct.db"])
def test_truncated_files(tmp_path, name):
    db = _copy(tmp_path)
    raw = (db / name).read_bytes()
    (db / name).write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ParseError, match=rf"{name}, offset \d+: expected the footer") as info:
        perfweave.read(db, per_profile=True)
    assert "cut short" in str(info.value)


def test_sections_past_the_end(tmp_path):
    db = _copy(tmp_path)
    raw = (db / "meta.db").read_bytes()
    (db / "meta.db").write_bytes(
        raw[: len(raw) // 2] + raw[-8:]
    )  # footer kept: the sections are cut
    with pytest.raises(
        ParseError, match=r"meta\.db, header, offset \d+: expected section \w+ within"
    ):
        perfweave.read(db)


def test_offset_past_the_end(tmp_path):
    db = _copy(tmp_path)
    meta = (db / "meta.db").read_bytes()
    p_ctx = struct.unpack_from("<Q", meta, 0x48)[0]
    p_entries = struct.unpack_from("<Q", meta, p_ctx)[0]
    _patch(db / "meta.db", p_entries + 8, struct.pack("<Q", len(meta) + 4096))  # pChildren
    with pytest.raises(
        ParseError, match=r"meta\.db, section Context, offset \d+: expected a children array"
    ):
        perfweave.read(db)
    db = _copy(tmp_path / "b")
    prof = (db / "profile.db").read_bytes()
    p_infos = struct.unpack_from("<Q", prof, 0x18)[0]
    p_profiles = struct.unpack_from("<Q", prof, p_infos)[0]
    _patch(db / "profile.db", p_profiles + 8, struct.pack("<Q", 1 << 40))  # pValues of the summary
    with pytest.raises(ParseError, match=r"profile\.db, section profile 0, offset 1099511627776"):
        perfweave.read(db)


def test_a_cycle_in_the_context_tree(tmp_path):
    db = _copy(tmp_path)
    meta = (db / "meta.db").read_bytes()
    p_ctx = struct.unpack_from("<Q", meta, 0x48)[0]
    p_entries, n_entries, sz = struct.unpack_from("<QHB", meta, p_ctx)
    main = next(
        i
        for i in range(n_entries)
        if struct.unpack_from("<H", meta, p_entries + i * sz + 20)[0] == 1
    )
    sz_children, p_children = struct.unpack_from("<QQ", meta, p_entries + main * sz)
    # the first child's children become the main entry's own children array
    _patch(db / "meta.db", p_children, struct.pack("<QQ", sz_children, p_children))
    with pytest.raises(ParseError, match=r"section Context.*(cycle|children array|exactly)"):
        perfweave.read(db)


def test_calltree_explorer_opens_both_modes():
    from perfweave.widgets import CalltreeExplorer

    summary = CalltreeExplorer(perfweave.read(GAMESS))
    rows = summary.visible_rows()
    assert rows["name"].iloc[0] == "entry" and rows["time (inc)"].iloc[0] > 1600
    each = perfweave.read(GAMESS, per_profile=True, metric_names="all")
    ex = CalltreeExplorer(each)
    first = ex.visible_rows()
    # per-profile rows show the mean over (rank, thread) profiles, time first
    mean = each.dataframe["time (inc)"].groupby(level="node").mean()
    assert first["time (inc)"].iloc[0] == pytest.approx(mean.loc[first["node"].iloc[0]])
    assert [c for c in first.columns if c.endswith("(inc)")][0] == "time (inc)"


# --------------------------------------------------------------------- hostile databases
def _main_entry(meta: bytes) -> int:
    """Byte offset of the main-thread entry point's record in meta.db."""
    p_ctx = struct.unpack_from("<Q", meta, 0x48)[0]
    p_entries, n_entries, sz = struct.unpack_from("<QHB", meta, p_ctx)
    return next(
        p_entries + i * sz
        for i in range(n_entries)
        if struct.unpack_from("<H", meta, p_entries + i * sz + 20)[0] == 1
    )


def _summary_index(db: Path) -> tuple[int, list[tuple[int, int]], int]:
    """The summary profile's index: its offset, its (context id, start) pairs, and the
    offset of its values (10-byte (metric, value) pairs)."""
    prof = (db / "profile.db").read_bytes()
    p_infos = struct.unpack_from("<Q", prof, 0x18)[0]
    p_profiles = struct.unpack_from("<Q", prof, p_infos)[0]
    _, p_values, n_ctx, _, p_idx = struct.unpack_from("<QQLLQ", prof, p_profiles)
    return p_idx, [struct.unpack_from("<LQ", prof, p_idx + 12 * i) for i in range(n_ctx)], p_values


def _cct_block(db: Path, ctx: int) -> int:
    """Byte offset of context ``ctx``'s block (nValues, pValues, nMetrics, pMetricIndices)
    in cct.db."""
    cct = (db / "cct.db").read_bytes()
    p_infos = struct.unpack_from("<Q", cct, 0x18)[0]
    p_ctxs, _, sz = struct.unpack_from("<QLB", cct, p_infos)
    return p_ctxs + sz * ctx


_NOT_REGULAR = {
    "dev-zero": "a character device (/dev/zero)",
    "fifo": "a FIFO (named pipe)",
    "loop": "a symlink loop",
    "directory": "a directory",
}
_MODES = {
    "default": {},
    "parallel": {"parallel_profiles_mode": True},
    "per-profile": {"per_profile": True},
}
#: reads each case in a child process capped at 2 GiB (a file read whole from /dev/zero ends
#: in MemoryError there, not in a swapping machine) and prints one JSON line per case
_READ_CASES = r"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
import perfweave
for label, path, options in json.loads(sys.argv[1]):
    print(json.dumps([label, "started", ""]), flush=True)
    try:
        perfweave.read(path, **options)
        print(json.dumps([label, "read", ""]), flush=True)
    except BaseException as exc:
        print(json.dumps([label, type(exc).__name__, str(exc)]), flush=True)
"""
#: far above the few seconds the cases take on a loaded machine: only a read that blocks
#: for ever (a FIFO opened for reading) reaches it, and the test then fails naming the case
_HANG = 600


def _make_not_regular(target: Path, kind: str) -> None:
    target.unlink()
    if kind == "dev-zero":
        os.symlink("/dev/zero", target)
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "loop":
        os.symlink(target.name, target)  # points at itself
    else:
        target.mkdir()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and RLIMIT_AS are POSIX")
@pytest.mark.parametrize("name", ["meta.db", "profile.db", "cct.db"])
def test_files_that_are_not_regular_are_refused_before_reading(tmp_path, name):
    cases = []
    for kind in _NOT_REGULAR:
        db = _copy(tmp_path / kind)
        _make_not_regular(db / name, kind)
        cases += [(f"{kind} {mode}", str(db), options) for mode, options in _MODES.items()]
        if kind in ("dev-zero", "fifo"):  # named directly: detection must not read it either
            cases.append((f"{kind} file", str(db / name), {}))
    linked = _copy(tmp_path / "link")  # a symlink to a regular file reads as before
    (linked / name).unlink()
    os.symlink(CPI / name, linked / name)
    cases.append(("link default", str(linked), {}))
    child = subprocess.Popen(
        [sys.executable, "-c", _READ_CASES, json.dumps(cases)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = child.communicate(timeout=_HANG)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        started = [json.loads(line)[0] for line in out.splitlines()]
        pytest.fail(f"reading hung at case {started[-1] if started else None!r}")
    results = {}
    for line in out.splitlines():
        label, outcome, message = json.loads(line)
        results[label] = (outcome, message)
    assert set(results) == {c[0] for c in cases}, err
    assert results.pop("link default") == ("read", "")
    for label, (outcome, message) in results.items():
        kind = label.split()[0]
        where = next(c[1] for c in cases if c[0] == label)
        path = where if where.endswith(name) else str(Path(where) / name)
        assert (outcome, message) == (
            "ParseError",
            f"{path}: expected an HPCToolkit {name} (a regular file), found {_NOT_REGULAR[kind]!r}",
        ), label


@pytest.mark.parametrize("options", [{}, {"per_profile": True}], ids=["summary", "per-profile"])
def test_a_children_size_with_its_top_bit_set_is_out_of_range(tmp_path, options):
    db = _copy(tmp_path)
    entry = _main_entry((db / "meta.db").read_bytes())
    size = struct.unpack_from("<Q", (db / "meta.db").read_bytes(), entry)[0]
    _patch(db / "meta.db", entry, struct.pack("<Q", size | 1 << 63))  # -size as an int64
    with pytest.raises(
        ParseError,
        match=rf"meta\.db, section Context, offset \d+: expected a children array within "
        rf"section Context .* found '{size | 1 << 63} bytes at offset \d+'",
    ):
        perfweave.read(db, **options)


def test_a_context_listed_twice_in_the_summary_index(tmp_path):
    db = _copy(tmp_path)
    ctx = _entry_time(db)[0]
    p_idx, index, _ = _summary_index(db)
    i = [c for c, _ in index].index(ctx)
    # the next context's values become a second run of the main entry's
    _patch(db / "profile.db", p_idx + 12 * (i + 1), struct.pack("<L", ctx))
    with pytest.raises(
        ParseError,
        match=rf"profile\.db, section profile 0, offset {p_idx}: expected each context once "
        rf"in its index, found 'context {ctx} twice'",
    ):
        perfweave.read(db)


def test_a_metric_given_twice_for_one_context(tmp_path):
    from perfweave.calltree.readers._hpctk4_binary import DbFile
    from perfweave.calltree.readers._hpctk4_meta import read_meta

    db = _copy(tmp_path)
    in_tree = set(read_meta(DbFile(db / "meta.db", b"meta")).tree.ctx_id.tolist())
    _, index, p_values = _summary_index(db)
    # the first context of the tree with two values or more: its second gets the first's metric
    ctx, first = next(
        (c, s) for (c, s), (_, e) in zip(index, index[1:]) if c in in_tree and e - s >= 2
    )
    metric = struct.unpack_from("<H", (db / "profile.db").read_bytes(), p_values + 10 * first)[0]
    _patch(db / "profile.db", p_values + 10 * (first + 1), struct.pack("<H", metric))
    with pytest.raises(
        ParseError,
        match=rf"profile\.db, section profile 0: expected one value per context and metric, "
        rf"found 'context {ctx}, metric {metric} twice'",
    ):
        perfweave.read(db)


def _metrics_header(db: Path) -> int:
    return struct.unpack_from("<Q", (db / "meta.db").read_bytes(), 0x38)[0]


@pytest.mark.parametrize("options", [{}, {"per_profile": True}], ids=["summary", "per-profile"])
def test_no_metrics_in_meta_db(tmp_path, options):
    db = _copy(tmp_path)
    _patch(db / "meta.db", _metrics_header(db) + 8, struct.pack("<L", 0))  # nMetrics
    with pytest.warns(MissingMetricWarning, match=r"meta\.db lists no metrics: the tree is read"):
        gf = perfweave.read(db, **options)
    assert len(gf.graph) == 182 and gf.exc_metrics == gf.inc_metrics == []


def test_metric_names_not_in_the_database(tmp_path):
    with pytest.raises(
        OptionError, match=r"metric_names: no metric 'bogus' in .*meta\.db \(its metrics: time\)"
    ):
        perfweave.read(CPI, metric_names=["bogus"])
    with pytest.warns(MissingMetricWarning, match=r"meta\.db: no metric 'bogus', read without it"):
        gf = perfweave.read(CPI, metric_names=["time", "bogus"], per_profile=True)
    assert gf.inc_metrics == ["time (inc)"] and gf.exc_metrics == ["time"]
    db = _copy(tmp_path)
    raw = (db / "meta.db").read_bytes()
    assert raw.count(b"CPUTIME") == 1
    (db / "meta.db").write_bytes(raw.replace(b"CPUTIME", b"XPUTIME"))  # no time metric left
    with pytest.warns(
        MissingMetricWarning, match=r"meta\.db has no time metric .*\(its metrics: xputime;"
    ):
        gf = perfweave.read(db)
    assert gf.exc_metrics == gf.inc_metrics == [] and len(gf.graph) == 182
    gf = perfweave.read(db, metric_names=["xputime"])
    assert gf.inc_metrics == ["xputime (inc)"] and gf.exc_metrics == ["xputime"]


def test_no_entry_points(tmp_path):
    db = _copy(tmp_path)
    p_ctx = struct.unpack_from("<Q", (db / "meta.db").read_bytes(), 0x48)[0]
    _patch(db / "meta.db", p_ctx + 8, struct.pack("<H", 0))  # nEntryPoints
    for options in ({}, {"per_profile": True}):
        with pytest.raises(
            ParseError,
            match=rf"meta\.db, section Context, offset {p_ctx + 8}: expected at least one "
            "entry point",
        ):
            perfweave.read(db, **options)


@pytest.mark.parametrize("ctx", [2**32 - 1, 0])
def test_a_context_id_that_indexes_no_values(tmp_path, ctx):
    db = _copy(tmp_path)
    meta = (db / "meta.db").read_bytes()
    p_children = struct.unpack_from("<Q", meta, _main_entry(meta) + 8)[0]
    _patch(db / "meta.db", p_children + 16, struct.pack("<L", ctx))  # first child's ctxId
    for options in ({}, {"per_profile": True}):
        with pytest.raises(
            ParseError,
            match=rf"cct\.db, section CtxInfos, offset \d+: expected context ids 1\.\.\d+ "
            rf"\(0 is the global context; .*found 'context {ctx} of meta\.db'",
        ):
            perfweave.read(db, **options)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), 1e308])
def test_values_no_profiler_measures_are_named_and_read_as_0(tmp_path, value):
    clean = perfweave.read(CPI)
    db = _copy(tmp_path)
    ctx, _, at = _entry_time(db)
    _patch(db / "profile.db", at + 2, struct.pack("<d", value))  # the root's time (inc)
    with pytest.warns(
        SkippedInputWarning,
        match=rf"profile\.db: skipped 1 value\(s\) that are not finite or beyond 1e\+30 "
        rf"\(first: {re.escape(repr(value))} of context {ctx}, metric \d+\); read as 0",
    ):
        gf = perfweave.read(db)
    root = gf.graph.root_ids[0]
    assert gf.dataframe.loc[root, "time (inc)"] == 0.0
    rest = gf.dataframe.drop(index=root)
    assert rest.equals(clean.dataframe.drop(index=root))
    # the same rule for cct.db's values in the per-profile modes
    db = _copy(tmp_path / "cct")
    block = _cct_block(db, ctx)
    p_values = struct.unpack_from("<Q", (db / "cct.db").read_bytes(), block + 8)[0]
    _patch(db / "cct.db", p_values + 4, struct.pack("<d", value))  # (profile, value) pairs
    with pytest.warns(
        SkippedInputWarning, match=rf"cct\.db: skipped 1 value\(s\) .* context {ctx},"
    ):
        each = perfweave.read(db, per_profile=True, metric_scopes=["i", "e", "p", "c"])
    assert np.isfinite(each.dataframe[each.exc_metrics + each.inc_metrics].to_numpy()).all()


def test_unsigned_64_bit_values_print_unsigned(tmp_path):
    db = _copy(tmp_path)
    ctx = _entry_time(db)[0]
    _patch(db / "cct.db", _cct_block(db, ctx), struct.pack("<Q", 2**64 - 1))  # nValues
    with pytest.raises(
        ParseError,
        match=r"cct\.db, section context values, offset \d+: expected 18446744073709551615 "
        r"record\(s\) of 12 bytes",
    ):
        perfweave.read(db, per_profile=True)
    db = _copy(tmp_path / "b")
    p_metrics = struct.unpack_from("<Q", (db / "meta.db").read_bytes(), _metrics_header(db))[0]
    _patch(db / "meta.db", p_metrics, struct.pack("<Q", 2**64 - 16))  # first metric's pName
    with pytest.raises(
        ParseError, match=r"meta\.db, section Metrics, .*found 'pointer 18446744073709551600'"
    ):
        perfweave.read(db)
