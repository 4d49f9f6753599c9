"""The integer-coded arrange/summarize agree with the straightforward pandas definitions.

The references below follow the module docstrings literally (string groupbys, Python sets);
hypothesis draws spec tables with repeated and special values (``all``, merged fields,
dependent images, empty lib names) and checks class ids, templates, profile sets, the
per-class unit masks and the image summary row for row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from perfweave.classes import MergeOptions, arrange, load_samples, summarize
from perfweave.classes.spec import SPEC_COLUMNS
from perfweave.classes.spec_codes import SpecCodes
from perfweave.errors import AxisConflict

APPS = ["/usr/bin/b", "/usr/bin/a", "/opt/c"]
LIBS = ["", "/lib/libc.so", "/lib/libm.so", "/usr/bin/a"]


@st.composite
def spec_tables(draw) -> pd.DataFrame:
    n = draw(st.integers(1, 40))
    rows = []
    for i in range(n):
        image = draw(st.sampled_from(APPS))
        lib = draw(st.sampled_from([*LIBS, image]))
        rows.append(
            {
                "filename": f"/s/{{root}}{image}/{{dep}}/{i:03d}",
                "image": image,
                "lib_image": lib,
                "cg_image": "",
                "event": draw(st.sampled_from(["CYC", "INS"])),
                "count": draw(st.sampled_from(["100000", "5000"])),
                "unitmask": draw(st.sampled_from(["0", "1", "2"])),
                "tgid": draw(st.sampled_from(["10", "9", "all"])),
                "tid": draw(st.sampled_from(["10", "11", "all"])),
                "cpu": draw(st.sampled_from(["0", "1", "all"])),
                "samples": draw(st.integers(0, 50)),
            }
        )
    return pd.DataFrame(rows)


MERGES = st.sampled_from(["all", "cpu,tgid", "cpu,tid", "tgid", "cpu,tgid,lib", "all,unitmask"])


def _num(v: str) -> int:
    return 2**62 if v == "all" else -1 if v == "" else int(v)


def reference_classes(table: pd.DataFrame, merge: MergeOptions) -> tuple[list[int], list[tuple]]:
    """Class id per row and template per class, by sorting distinct templates in Python."""
    merged = {f for f in ("unitmask", "tgid", "tid", "cpu") if getattr(merge, f)}

    def template(row) -> tuple:
        return tuple(
            "" if f in merged else row[f]
            for f in ("event", "count", "unitmask", "tgid", "tid", "cpu")
        )

    def key(t: tuple) -> tuple:
        event, count, um, tgid, tid, cpu = t
        return (_num(cpu), _num(tgid), _num(tid), _num(um), event, count)

    temps = [template(r) for _, r in table.iterrows()]
    order = sorted({key(t) for t in temps})
    ids = [order.index(key(t)) for t in temps]
    first = [temps[ids.index(k)] for k in range(len(order))]
    return ids, first


def reference_summary(table: pd.DataFrame, n: int) -> pd.DataFrame:
    """(application, image) rows in opreport's order with per-class sums, by groupby."""
    frame = table.assign(pos=np.arange(len(table)))
    frame["seen"] = frame["class"] * len(table) + frame["pos"]
    sums = frame.groupby(["app", "binary", "class"])["samples"].sum().unstack(fill_value=0)
    sums = sums.reindex(columns=range(n), fill_value=0)
    seen = frame.groupby(["app", "binary"])["seen"].min()
    own = pd.MultiIndex.from_arrays([pd.unique(frame["app"])] * 2, names=["app", "binary"])
    sums = sums.reindex(sums.index.union(own), fill_value=0)
    seen = seen.reindex(sums.index).fillna(-1)
    is_app = sums.index.get_level_values(0) == sums.index.get_level_values(1)
    seen[is_app] = -1
    app_first = sums[0].groupby(level=0).sum()
    app_rank = {a: r for r, a in enumerate(sorted(app_first.index, key=lambda a: -app_first[a]))}
    rank = [app_rank[a] for a in sums.index.get_level_values(0)]
    order = np.lexsort((seen.to_numpy(), -sums[0].to_numpy(), rank))
    return sums.iloc[order]


@settings(max_examples=60, deadline=None)
@given(spec_tables(), MERGES)
def test_coded_arrange_matches_reference(table: pd.DataFrame, merge: str) -> None:
    opts = MergeOptions.parse(merge)
    try:
        classes = arrange(table, opts)
    except AxisConflict:
        return
    ids, templates = reference_classes(table, opts)
    assert classes.table["class"].tolist() == ids
    assert [tuple(vars(c.template).values()) for c in classes] == templates
    # the profile sets (built on first read) hold every file of their class exactly once
    for k, c in enumerate(classes):
        files = sorted(
            f for p in c.profiles for f in (*p.files, *(x for d in p.deps for x in d.files))
        )
        assert files == sorted(table["filename"][np.array(ids) == k])
    # describe(): the applications of each class are its profile sets
    assert classes.describe()["applications"].tolist() == [len(c.profiles) for c in classes]
    # the same table through precomputed codes, and through a sub-selection of them
    assert (
        classes.table["class"].tolist()
        == arrange(SpecCodes.of(table), opts).table["class"].tolist()
    )
    half = np.arange(len(table)) % 2 == 0
    sub = arrange(SpecCodes.of(table).take(half), opts)
    assert sub.table["class"].tolist() == arrange(table[half], opts).table["class"].tolist()


@settings(max_examples=60, deadline=None)
@given(spec_tables(), MERGES)
def test_coded_summary_matches_reference(table: pd.DataFrame, merge: str) -> None:
    try:
        classes = load_samples(arrange(table, merge))
    except AxisConflict:
        return
    n = len(classes)
    got = summarize(classes)
    want = reference_summary(classes.table, n)
    assert list(got.images.index) == list(want.index)
    assert got.images[list(range(n))].to_numpy().tolist() == want.to_numpy().tolist()
    assert got.images["is_app"].tolist() == [a == b for a, b in want.index]
    per_app = want.groupby(level=0).sum()
    assert list(got.apps.index) == list(dict.fromkeys(want.index.get_level_values(0)))
    assert got.apps.to_numpy().tolist() == per_app.loc[got.apps.index].to_numpy().tolist()
    assert (
        got.totals.tolist()
        == classes.table.groupby("class")["samples"].sum().reindex(range(n), fill_value=0).tolist()
    )


def test_unit_masks_ored_over_the_first_profile_set() -> None:
    """--merge=unitmask: the class description ORs the unit masks of the first profile set."""
    rows = [
        ("/a", "", "1"),
        ("/a", "/lib/x", "2"),
        ("/b", "", "4"),  # another application: not part of the first profile set
    ]
    table = pd.DataFrame(
        [
            dict(zip(SPEC_COLUMNS, (f"/f{i}", img, lib, "", "CYC", "100", um, "all", "all", "all")))
            for i, (img, lib, um) in enumerate(rows)
        ]
    )
    classes = arrange(table, "unitmask")
    assert classes.longnames == ["Counted CYC events with a unit mask of 0x03 count 100"]
