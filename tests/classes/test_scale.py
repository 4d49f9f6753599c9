"""Synthetic scale and invariants: many threads, CPUs and images; order independence."""

from __future__ import annotations

import numpy as np
import pytest

from perfweave.classes import arrange, invert, parse_sample_paths, report
from perfweave.classes.summary import summarize

EVENTS = ("CYCLES", "INSTR", "L2_MISS")
LIBS = ("libc.so.6", "libm.so.6", "libmpi.so.40")


def _paths(n_threads=120, n_cpus=8):
    out = []
    for t in range(n_threads):
        tgid = 1000 + (t // 4) * 4
        app = f"/opt/app{tgid % 5}/bin/a.out"
        for c in range(0, n_cpus, 1 + t % 3):
            for e in EVENTS[: 1 + t % 3]:
                for image in ("", *LIBS[: t % 4]):
                    dep = f"{{root}}{app}" if not image else f"{{root}}/usr/lib/{image}"
                    out.append(
                        f"s/{{root}}{app}/{{dep}}/{dep}/{e}.1000.0.{tgid}.{tgid + t % 4}.{c}"
                    )
    return out


@pytest.fixture(scope="module")
def table():
    table = parse_sample_paths(_paths()).table
    rng = np.random.default_rng(0)
    table["samples"] = rng.integers(0, 50, len(table))
    return table


def test_class_order_does_not_depend_on_file_order(table):
    shuffled = table.sample(frac=1.0, random_state=3)
    a = arrange(table, "cpu,tgid")
    b = arrange(shuffled, "cpu,tgid")
    assert a.names == b.names == ["CYCLES:1000", "INSTR:1000", "L2_MISS:1000"]
    pa, pb = report(a, by="image"), report(b, by="image")
    assert pa.sort_index().equals(pb.sort_index())


def test_cpu_classes_for_one_event(table):
    classes = arrange(table[table["event"] == "CYCLES"], "tgid")
    assert classes.axis == "cpu"
    assert classes.names == [f"cpu:{c}" for c in range(8)]


def test_totals_are_conserved(table):
    classes = arrange(table, "all")
    summary = summarize(classes)
    n = len(classes)
    per_class = table.groupby("event")["samples"].sum().to_numpy()
    assert summary.totals.tolist() == per_class.tolist()
    images = summary.images[list(range(n))].groupby(level="application").sum()
    assert images.sort_index().equals(summary.apps[list(range(n))].sort_index())
    by_app = report(classes, by="application")
    pct = by_app.xs("percent", axis=1, level="value").sum().to_numpy()
    assert np.allclose(pct, 100.0)


def test_invert_covers_every_file_once(table):
    classes = arrange(table, "cpu,tgid")
    files = [f for ip in invert(classes) for g in ip.groups for s in g for f in s.files]
    assert sorted(files) == sorted(table["filename"])
    assert len(files) == len(set(files))
