"""The numbers the text views print (tree(), ``perfweave tree``, ``perfweave imbalance``)
can be trusted: a value that is not 0 never reads as 0, the reader's unit is named, and a
rank spread never shows a negative excess. On bundled profiles and on a user's own
multi-rank profile (tests/data/calltree-user)."""

from __future__ import annotations

import contextlib
import re

import numpy as np
import pytest

import perfweave as pw
from perfweave.calltree import CalltreeStudy
from perfweave.calltree.display import node_names
from perfweave.calltree.flame import flame_metrics
from perfweave.calltree.numbers import fixed_text
from perfweave.calltree.shown import with_inclusive
from perfweave.cli import main

LULESH_CALI = "tests/data/hatchet/caliper-lulesh-cali/lulesh-annotation-profile.cali"
GAMESS = "tests/data/hatchet-more/hpctoolkit-gamess"
USER = "tests/data/calltree-user/user-profile.json"
_VALUE = re.compile(r"^[\s│├└─]*(\S+) ")


def _printed(text: str) -> list[float]:
    """The first value of every tree line (the header lines start with '#')."""
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    return [float(_VALUE.match(line).group(1).replace(",", "")) for line in lines]


@pytest.mark.parametrize(
    "path, options",
    [(LULESH_CALI, {}), (USER, {}), (GAMESS, {"per_profile": True})],
    ids=["lulesh-cali", "user", "gamess-per-profile"],
)
def test_tree_never_prints_a_value_that_is_not_zero_as_zero(path, options):
    gf = pw.read(path, **options)
    text = gf.tree(color=False)
    metric = text.splitlines()[0].split("#")[1].split(" in ")[0].strip()
    shown = with_inclusive(gf)  # the columns a tree shows
    values = shown.node_values([metric])[metric].to_numpy(float)  # in node (= line) order
    printed = np.array(_printed(text))
    assert len(printed) == len(values)
    finite = np.isfinite(values)
    assert np.isnan(printed[~finite]).all()  # NaN reads nan, never 0
    small = finite & (values != 0) & (np.abs(values) < 5e-4)
    assert small.any()  # the profile has values below the 3 decimals
    assert (printed[finite & (values != 0)] != 0).all()
    # and each is its value to the digits written
    assert printed[finite] == pytest.approx(values[finite], rel=0.05, abs=5e-4)


def test_tree_names_the_readers_unit(capsys):
    assert pw.read(LULESH_CALI).tree(color=False).splitlines()[0] == "# time (inc) in s"
    user = pw.read(USER).tree(color=False).splitlines()[0]
    assert user.startswith("# time (inc) in s: mean over 3 ranks")
    assert main(["tree", LULESH_CALI]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# time (inc) in s"
    assert out[3] == "   ├─ 0.00010 TimeIncrement"  # 102 µs, once printed 0.000
    # a profile whose reader knows no unit prints no unit line (Hatchet's lines)
    literal = pw.read("tests/data/hatchet/json/hatchet-graph-literal.json")
    assert not literal.tree(color=False).startswith("#")


def test_imbalance_of_a_users_profile(capsys):
    li = pw.read(USER).load_imbalance("time").dataframe
    # three ranks of 0.1 s: their float mean is above their max; the excess is not negative
    assert (li["time.excess"].dropna() >= 0).all()
    assert (li["time.efficiency"].dropna() <= 1).all()
    assert (li["time.imbalance"].dropna() >= 1).all()
    assert main(["imbalance", USER, "--top", "8"]) == 0
    lines = capsys.readouterr().out.splitlines()[2:]
    row = {line.rsplit("(node ", 1)[0].split("  ")[-1].strip(): line.split() for line in lines}
    assert len(row) == 8
    assert not any(cell.startswith("-") for line in lines for cell in line.split()[:3])
    # 20 µs mean, 40 µs max on rank 1: never 0.000
    assert row["<b>x</b>"][:3] == ["0.000020", "0.000040", "0.000020"]


@pytest.mark.parametrize(
    "value, decimals, text",
    [
        (0.000102, 3, "0.00010"),
        (0.0, 3, "0.000"),
        (0.492, 3, "0.492"),
        (6.7e-6, 3, "6.7e-6"),
        (float("nan"), 3, "nan"),
        (1608.25, 2, "1608.25"),
        (-2e-5, 3, "-0.000020"),
    ],
)
def test_fixed_text(value, decimals, text):
    assert fixed_text(value, decimals) == text


@pytest.mark.parametrize(
    "path, metric, unit, header",
    [
        # experiment.xml names the metric "CPUTIME (usec)", read as "time"
        ("tests/data/hatchet/hpctoolkit-cpi-database", "time", "µs", "# time in µs: mean"),
        ("tests/data/hatchet/hpctoolkit-allgather-database", "time (inc)", "µs", "# time in µs"),
        # TAU writes its TIME metric in microseconds
        ("tests/data/hatchet/tau-cpi-mpi", "time (inc)", "µs", "# time (inc) in µs: mean"),
        # timemory's component says "unit_repr": "sec"; sqr.* is its square: no unit
        ("tests/data/hatchet/timemory", "mean.wall_clock (inc)", "s", "# sum.wall_clock in s"),
        # cProfile's and pyinstrument's times are seconds
        ("tests/data/hatchet/cprofile-hatchet-pstats/cprofile-cycle.pstats", "time", "s", ""),
        (
            "tests/data/hatchet/pyinstrument-hatchet-json/pyinstrument-hatchet-profile.json",
            "time (inc)",
            "s",
            "# time in s\n",
        ),
        # gprof2dot labels each node with its shares of the total time
        ("tests/data/hatchet/gprof2dot-cpi/callgrind.dot.64042.0.1", "time (inc)", "%", ""),
    ],
    ids=[
        "hpctoolkit-cpi",
        "hpctoolkit-allgather",
        "tau",
        "timemory",
        "cprofile",
        "pyinstrument",
        "gprof-dot",
    ],
)
def test_readers_that_know_a_unit_give_it(path, metric, unit, header):
    gf = pw.read(path)
    assert gf.unit_of(metric) == unit
    assert gf.tree(color=False).startswith(header or f"# time in {unit}\n")
    if "timemory" in path:
        assert gf.unit_of("sqr.wall_clock") == ""


@pytest.mark.parametrize(
    "path, unnamed",
    [
        # 22 samples of 3 sampled functions the sampler could not name
        ("tests/data/calltree-sampling/sampling-unresolved.cali", 3),
        # a region labelled "  "
        (USER, 1),
    ],
    ids=["sampling-unresolved", "user"],
)
def test_flat_profile_has_no_blank_name(path, unnamed):
    with (
        pytest.warns(pw.errors.PerfweaveWarning) if "sampling" in path else contextlib.nullcontext()
    ):
        gf = pw.read(path)
    flat = gf.flat_profile()
    names = [str(name) for name in flat.index]
    assert all(name.strip() and name != "nan" for name in names)
    # grouped under the names tree() prints, each unnamed node under its own
    assert sum(name.startswith("(unnamed) under ") for name in names) == unnamed
    assert set(names) <= set(node_names(gf.graph, gf.dataframe))
    assert flat["time"].sum() == pytest.approx(gf.node_values("time")["time"].sum())


def test_info_names_the_units(capsys):
    assert main(["info", "tests/data/hatchet/caliper-cpi-json/cpi-callpath-profile.json"]) == 0
    assert "units:     time in µs\n" in capsys.readouterr().out
    assert main(["info", "tests/data/hatchet/tau-cpi-mpi"]) == 0
    assert "units:     time in µs, time (inc) in µs\n" in capsys.readouterr().out
    assert main(["info", "tests/data/hatchet/json/hatchet-graph-literal.json"]) == 0
    assert "units:     -\n" in capsys.readouterr().out


def test_what_is_reduced_reads_as_a_count(capsys):
    """'mean over 2 ranks, 1 threads' read as a typo; one thread is '1 thread'."""
    assert main(["tree", "tests/data/hatchet/timemory"]) == 0
    assert capsys.readouterr().out.startswith("# mean over 2 ranks, 1 thread (--aggregate")
    text = pw.read("tests/data/hatchet/timemory").tree(color=False)
    assert text.startswith("# sum.wall_clock in s: mean over 2 ranks, 1 thread\n")


@pytest.mark.parametrize(
    "path, query",
    [
        ("tests/data/calltree-sampling/sampling-profile.cali", "time > 0.001"),
        (USER, "name != 'solve'"),
    ],
    ids=["sampling", "user"],
)
def test_filter_squash_tree_shows_what_tree_showed(path, query):
    """A frame with only exclusive metrics shows inclusive values; its filtered (squashed)
    frame showed the exclusive ones instead ('# time in s', 0.002 main above 0.072
    relax_kernel where the tree before read 0.124 main)."""
    with (
        pytest.warns(pw.errors.PerfweaveWarning) if "sampling" in path else contextlib.nullcontext()
    ):
        gf = pw.read(path)
    before = gf.tree(color=False).splitlines()[0]
    assert before.startswith("# time (inc) in s")
    for shown in (gf.filter(query), gf.copy().update_inclusive_columns(), gf.squash()):
        text = shown.tree(color=False)
        assert text.splitlines()[0] == before
        values = shown.node_values(["time (inc)"])["time (inc)"].to_numpy(float)
        assert np.array(_printed(text)) == pytest.approx(values, rel=0.05, abs=5e-4)
        parent = shown.graph.parent
        child = parent >= 0
        assert (values[child] <= values[parent[child]] * (1 + 1e-12)).all()
    kept = gf.filter(query)
    main_before = gf.tree(color=False).splitlines()[1]
    assert kept.tree(color=False).splitlines()[1] == main_before  # the first root, unchanged


def test_statistics_of_instances_are_never_summed_over_a_subtree():
    """lulesh's .cali has Caliper's min#, max# and avg#time.duration per region: a view
    showed 'avg#time.duration (inc)', main 0.040 s, the sum of the averages below main
    (and the flame graph offered to draw by it). They are shown as they are."""
    gf = pw.read(LULESH_CALI)
    stats = ["min#time.duration", "max#time.duration", "avg#time.duration"]
    shown = with_inclusive(gf)
    assert shown.inc_metrics == ["time (inc)", "count (inc)"]
    assert not any(f"{m} (inc)" in shown.dataframe.columns for m in stats)
    columns = [c.key for c in CalltreeStudy(gf).view.columns]
    assert columns == ["time (inc)", "time", "count (inc)", *stats]
    assert flame_metrics(gf) == ["time (inc)", "count (inc)"]
    # the time spent is still summed: main's inclusive time is all its regions' time
    values = shown.node_values(["time (inc)", "time"])
    assert values["time (inc)"][0] == pytest.approx(values["time"].sum())


def test_tree_and_cli_print_the_same_lines(capsys):
    """On 4 ranks of cpi, tree() printed 'bcast_osu.c:2446' without its file (rank 0 has
    no file for that node) where perfweave tree printed the file another rank names."""
    path = "tests/data/hatchet/caliper-cpi-json/cpi-callpath-profile.json"
    ours = pw.read(path).tree(color=False).splitlines()
    assert main(["tree", path, "--color", "never"]) == 0
    cli = capsys.readouterr().out.splitlines()
    assert ours[0] == "# time (inc) in µs: mean over 4 ranks"
    assert cli[:2] == [
        "# mean over 4 ranks (--aggregate sum|min|max|median, --rank N)",
        "# time (inc) in µs",
    ]
    assert ours[1:] == cli[2:]
    line = next(text for text in ours if "bcast_osu.c:2446" in text)
    assert line.endswith(
        "bcast_osu.c:2446 /builddir/build/BUILD/mvapich/src/src/mpi/coll/bcast_osu.c"
    )


def test_hot_path_of_an_exclusive_only_frame_follows_inclusive_values():
    """The sampling profile's hot path was main -> setup_matrix (19 samples of its own)
    instead of main -> solve (80 below it, none of its own) -> relax_kernel: hot_path
    followed the exclusive values where the frame had no inclusive column."""
    with pytest.warns(pw.errors.PerfweaveWarning):
        gf = pw.read("tests/data/calltree-sampling/sampling-profile.cali")
    path = [node.frame["name"] for node in gf.hot_path()]
    assert path == ["main", "solve", "relax_kernel"]
    assert [node.frame["name"] for node in gf.hot_path("time (inc)")] == path
    values = with_inclusive(gf).node_values(["time (inc)"])["time (inc)"]
    main_node, solve = gf.hot_path()[:2]
    assert values[solve.nid] == max(values[child.nid] for child in main_node.children)


def test_a_statistic_shown_by_default_stays_itself_through_a_filter():
    """A frame shown by a statistic (lulesh's avg#time.duration) showed, once filtered,
    the sums of the averages below each node ('avg#time.duration (inc)')."""
    gf = pw.read(LULESH_CALI)
    gf.default_metric = "avg#time.duration"
    before = gf.tree(color=False).splitlines()
    assert before[0] == "# avg#time.duration in s"
    kept = gf.filter("time > 0")
    assert kept.default_metric == "avg#time.duration"
    assert kept.tree(color=False).splitlines()[:2] == before[:2]
