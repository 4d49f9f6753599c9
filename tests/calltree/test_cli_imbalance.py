"""`perfweave imbalance`: where ranks lose time, sorted by max - mean (issue 28, part 3)."""

from __future__ import annotations

import pytest

import perfweave as pw
from perfweave.cli import main

GAMESS = "tests/data/hatchet-more/hpctoolkit-gamess"
LIT = "tests/data/hatchet/json/hatchet-graph-literal.json"


@pytest.fixture(scope="module")
def gamess():
    return pw.read(GAMESS, per_profile=True)


def _run(capsys, *args) -> list[str]:
    assert main(["imbalance", *args]) == 0
    return capsys.readouterr().out.splitlines()


def _node(line: str) -> int:
    return int(line.rsplit("(node ", 1)[1].rstrip(")"))


def test_lines_are_sorted_by_the_time_lost(gamess, capsys):
    lines = _run(capsys, GAMESS, "-O", "per_profile=true", "--metric", "time", "--top", "8")
    assert lines[0].startswith("# time over ranks, threads summed; sorted by excess = max - mean")
    assert lines[1].split()[:6] == ["excess", "(s)", "max", "(s)", "mean", "(s)"]
    li = gamess.load_imbalance("time").dataframe
    nodes = [_node(line) for line in lines[2:]]
    assert len(nodes) == 8
    excess = li.loc[nodes, "time.excess"].to_numpy()
    assert list(excess) == sorted(excess, reverse=True)
    assert excess[0] == li["time.excess"].max()
    first = lines[2].split()
    assert float(first[0]) == pytest.approx(excess[0], abs=1e-3)
    assert float(first[3]) == pytest.approx(li.loc[nodes[0], "time.efficiency"], abs=0.01)
    # by the ratio, tiny calls come first: far less time lost than by the excess
    by_ratio = _run(
        capsys,
        GAMESS,
        "-O",
        "per_profile=true",
        "--metric",
        "time",
        "--sort",
        "imbalance",
        "--top",
        "1",
    )
    ratio_node = _node(by_ratio[2])
    assert li.loc[ratio_node, "time.imbalance"] == li["time.imbalance"].max()
    assert li.loc[ratio_node, "time.excess"] < 1e-3 * excess[0]


def test_every_thread_is_said_and_listed_as_rank_thread(capsys):
    lines = _run(capsys, GAMESS, "-O", "per_profile=true", "--across", "threads", "--top", "2")
    assert lines[0].startswith("# time (inc) over every thread;")
    assert "top rank:thread" in lines[1]
    assert all(":" in line.split()[5] for line in lines[2:])


def test_a_profile_without_ranks_is_refused(capsys):
    assert main(["imbalance", LIT]) == 1
    err = capsys.readouterr().err
    assert "no rank or thread levels" in err and LIT in err
    assert main(["imbalance", GAMESS, "-O", "per_profile=true", "--top", "0"]) == 1
    assert "--top 0" in capsys.readouterr().err
