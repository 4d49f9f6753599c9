"""report(): the DataFrame behind the text, checked against every real opreport summary."""

from __future__ import annotations

import re
import shlex

import pytest

from perfweave.classes import (
    format_percent,
    invert,
    perf_sample_specs,
    read_perf_script,
    report,
    session_classes,
)
from perfweave.classes.arrange import arrange
from perfweave.errors import FormatError

from .conftest import DATA, SESSIONS

FOLDER_TO_SESSION = {folder: name for name, folder in SESSIONS.items()}


def _summary_cases():
    cases = []
    for path in sorted((DATA / "opreport_outputs").glob("*/*.txt")):
        lines = path.read_text().splitlines()
        args = shlex.split(lines[0].removeprefix("$ opreport"))
        if lines[-1] != "[exit status 0]" or any(a in ("-l", "--xml") for a in args):
            continue
        if any(a.startswith("--verbose") for a in args):
            continue
        cases.append(
            pytest.param(
                FOLDER_TO_SESSION[path.parent.name],
                args,
                lines[1:-1],
                id=f"{path.parent.name}/{path.stem}",
            )
        )
    return cases


def _parse_rows(lines: list[str], n: int):
    """(application rows, image rows) from opreport text: (name, counts, percents, app)."""
    apps, images, current = [], [], None
    for line in lines:
        body = line.removeprefix("\t")
        cells = body[: 18 * n]
        if len(body) <= 18 * n or not cells[:9].strip().isdigit():
            continue
        counts = [int(cells[18 * k : 18 * k + 9]) for k in range(n)]
        pcts = [cells[18 * k + 10 : 18 * k + 17] for k in range(n)]
        name = body[18 * n :]
        if line.startswith("\t"):
            images.append((current, name, counts, pcts))
        else:
            current = name
            apps.append((name, counts, pcts))
    return apps, images


def _classes(sessions, session, args):
    merge = next((a.split("=", 1)[1] for a in args if a.startswith("--merge=")), ())
    exclude = "--exclude-dependent" in args
    specs = [a for a in args if not a.startswith("--")]
    return session_classes(sessions[session], specs, merge, exclude_dependent=exclude)


def _short(path: str) -> str:
    return path.rsplit("/", 1)[-1]


@pytest.mark.parametrize(("session", "args", "lines"), _summary_cases())
def test_report_frames_match_opreport(sessions, session, args, lines):
    classes = _classes(sessions, session, args)
    n = len(classes)
    want_apps, want_images = _parse_rows(lines, n)
    by_app = report(classes, by="application")
    got_apps = [
        (_short(app), [int(v) for v in row[0::2]], list(row[1::2]))
        for app, row in zip(by_app.index, by_app.to_numpy())
    ]
    assert [a[:2] for a in got_apps] == [a[:2] for a in want_apps]
    for (_, _, got), (_, _, want) in zip(got_apps, want_apps):
        assert [format_percent(g) for g in got] == want
    by_image = report(classes, by="image")
    shown = [
        (
            _short(app),
            _short(image),
            [int(v) for v in row[0::2]],
            [format_percent(p) for p in row[1::2]],
        )
        for (app, image), row in zip(by_image.index, by_image.to_numpy())
        if by_image.loc[app].shape[0] > 1 and row[0::2].any()
    ]
    assert shown == want_images


def test_columns_name_classes_and_stay_unique(sessions):
    classes = session_classes(sessions["um_cpu"], ["event:DATA_CACHE_MISSES"])
    frame = report(classes, by="application")
    assert frame.columns.get_level_values("class").unique().tolist() == [
        "DATA_CACHE_MISSES:500 [0]",
        "DATA_CACHE_MISSES:500 [1]",
    ]
    assert frame.loc["/usr/bin/bash"].tolist() == [10, 100.0, 7, 100.0]


def test_symbol_report_needs_symbols(sessions):
    classes = session_classes(sessions["sep"], [], "all")
    with pytest.raises(FormatError, match="symbol"):
        report(classes, by="symbol")
    with pytest.raises(ValueError, match="by must be"):
        report(classes, by="thread")


def test_symbol_report_on_perf_data():
    samples = read_perf_script(DATA / "perf_equivalents" / "script_flat.txt")
    classes = arrange(perf_sample_specs(samples, by_symbol=True), "all")
    frame = report(classes, by="symbol")
    padsv = frame.xs("Perl_pp_padsv", level="symbol")
    # perf report --sort comm,dso,sym: Perl_pp_padsv 9.30% of 344 samples = 16 per event
    assert padsv.index.tolist() == [("/usr/bin/perl", "/usr/bin/perl")]
    assert padsv.iloc[0].tolist()[0::2] == [16, 16]
    assert frame.iloc[:, 0].is_monotonic_decreasing


def test_invert_lists_each_binary_once(sessions):
    classes = session_classes(sessions["sep"], [], "cpu,tgid")
    inverted = invert(classes)
    assert [ip.image for ip in inverted] == sorted(ip.image for ip in inverted)
    libc = next(ip for ip in inverted if ip.image.endswith("libc.so.6"))
    assert len(libc.groups) == 2
    assert [s.app_image for s in libc.groups[0]] == ["/usr/bin/bash", "/usr/bin/perl"]
    assert sum(len(s.files) for g in libc.groups for s in g) == 12
    files = {f for ip in inverted for g in ip.groups for s in g for f in s.files}
    assert files == set(classes.table["filename"])


def test_invert_groups_follow_classes(sessions):
    classes = session_classes(sessions["sep"], ["event:CPU_CLK_UNHALTED", "tgid:100"], "cpu")
    inverted = {ip.image: ip for ip in invert(classes)}
    # ext4 samples exist only for tid 100 (the first class)
    ext4 = inverted["/ext4"]
    assert [len(g) for g in ext4.groups] == [1, 0]
    assert ext4.applications == ["/usr/bin/perl"]


def test_classes_offer_their_report(sessions):
    classes = session_classes(sessions["many"], [], "cpu")
    frame = classes.report(by="application")
    assert frame.index.tolist() == ["/usr/bin/bash"]
    # many_tgids/02_merge_cpu.txt: 3, 5, ..., 15 samples for tid 301 .. 307
    assert frame.xs("samples", axis=1, level="value").iloc[0].tolist() == list(range(3, 17, 2))


def _symbol_addresses(xml_case: str) -> dict[str, int]:
    """Symbol name -> starting address, from the symbol table of a real --xml output."""
    text = (DATA / "opreport_outputs" / xml_case).read_text()
    found = re.findall(r'<symboldata  id="\d+"  name="([^"]+)"  startingaddr="([0-9a-f]+)"', text)
    return {name: int(addr, 16) for name, addr in found}


def _l_rows(case: str) -> list[list[str]]:
    lines = (DATA / "opreport_outputs" / case).read_text().splitlines()
    start = next(k for k, ln in enumerate(lines) if ln.startswith("samples  %"))
    return [ln.split() for ln in lines[start + 1 : -1]]


@pytest.mark.parametrize(
    ("session", "args", "l_case", "xml_case", "app_column"),
    [
        (
            "nosep",
            ["count:100000"],
            "nosep/03_count100000_l.txt",
            "nosep/04_count100000_xml.txt",
            True,
        ),
        (
            "sep",
            ["event:CPU_CLK_UNHALTED", "--merge=all"],
            "sep/08_event_A_merge_all_l.txt",
            "sep/10_merge_all_xml.txt",
            False,
        ),
    ],
)
def test_address_report_matches_symbol_counts(
    sessions, session, args, l_case, xml_case, app_column
):
    classes = _classes(sessions, session, args)
    frame = report(classes, by="address")
    addresses = _symbol_addresses(xml_case)
    for row in _l_rows(l_case):
        if row[2].startswith("anon"):  # "anon (tgid:... range:...)" holds spaces
            continue
        count, pct, image = int(row[0]), row[1], row[2]
        app, symbol = (row[3], row[4]) if app_column else (image, row[3])
        mine = frame[[(_short(a), _short(i)) == (app, image) for a, i, _ in frame.index]]
        if symbol.startswith("/"):  # no symbols in the image: the whole image's samples
            assert int(mine.iloc[:, 0].sum()) == count
        else:
            hit = mine.xs(addresses[symbol], level="address")
            assert int(hit.iloc[0, 0]) == count
            assert format_percent(hit.iloc[0, 1]).strip() == pct


def test_describe_lists_classes_for_a_picker(sessions):
    classes = session_classes(sessions["sep"], ["event:CPU_CLK_UNHALTED"], "tgid")
    frame = classes.describe()
    assert frame["name"].tolist() == ["cpu:0", "cpu:1"]
    assert frame["longname"].tolist() == ["Samples on CPU 0", "Samples on CPU 1"]
    assert frame["files"].tolist() == [7, 7]
    assert frame["applications"].tolist() == [2, 2]
    # sep/06_event_A_merge_tgid.txt: 114 and 115 samples in the two columns
    assert frame["samples"].tolist() == [75 + 39, 76 + 39]
