"""ClassPicker (Python side): every control equals perfweave.classes / the CLI for the same
arguments; opreport's errors shown inline with the previous result kept."""

from __future__ import annotations

import html
import io
import os
import shlex
import tarfile
from pathlib import Path

import pandas as pd
import pytest

from perfweave.classes import (
    MergeOptions,
    arrange,
    invert,
    perf_report_specs,
    perf_sample_specs,
    read_listing,
    read_perf_json,
    read_perf_report,
    read_perf_script,
    report,
    session_classes,
)
from perfweave.classes.profile_spec import ProfileSpec
from perfweave.classes.report import column_labels
from perfweave.cli._classes import run
from perfweave.errors import AxisConflict, FormatError, ShapeError, SpecError
from perfweave.widgets._picker_table import MAX_WINDOW, ReportTable
from perfweave.widgets._transport import unpack
from perfweave.widgets.picker import ClassPicker, short_names
from tests.widgets.test_contract import ask

DATA = Path(__file__).parent.parent / "data" / "classes"


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("picker_sessions")
    out = {}
    for name in ("sep", "nosep", "um_cpu", "many"):
        target = root / name
        target.mkdir()
        with tarfile.open(DATA / "synthetic_sessions" / f"opsession_{name}.tar.gz") as tar:
            tar.extractall(target, filter="data")
        out[name] = target
    return out


def cli(session: Path, spec, merge="", xdep=False) -> tuple[int, str, str]:
    argv = [f"--session-dir={session}", *spec]
    if merge:
        argv.append(f"--merge={merge}")
    if xdep:
        argv.append("-x")
    out, err = io.StringIO(), io.StringIO()
    return run(argv, out, err), out.getvalue(), err.getvalue()


def assert_same(picker: ClassPicker, session: Path, spec, merge="", xdep=False):
    expected = session_classes(session, spec, merge, exclude_dependent=xdep)
    assert picker.error == ""
    assert picker.classes.names == expected.names
    assert picker.classes.longnames == expected.longnames
    assert picker.axis == expected.axis
    pd.testing.assert_frame_equal(picker.report, report(expected, by="image"))
    status, out, _ = cli(session, spec, merge, xdep)
    assert status == 0 and picker.opreport_text == out
    # the command line shown runs to the same text
    argv = shlex.split(picker.command_line)
    assert argv[:2] == ["perfweave", "opreport"]
    status, out2, _ = cli_argv(argv[2:])
    assert status == 0 and out2 == out
    assert [i.image for i in picker.inverted] == [i.image for i in invert(expected)]


def page_rows(table) -> list[list[str]]:
    """The key cells of every row of a picker table as its page receives them: the reply to
    the page's ``rows`` request from the top (names as text, in the order shown)."""
    sent: list = []
    table.send = lambda content, buffers=None: sent.append((content, buffers or []))
    request = {"type": "request", "id": 1, "action": "rows", "args": {"count": MAX_WINDOW}}
    table._on_msg(table, request, [])
    ((reply, buffers),) = sent
    assert reply["ok"] and reply["rows"]["total"] <= MAX_WINDOW  # every row in one window
    columns = unpack(reply["rows"]["columns"], buffers)
    keys = [columns[f"k{i}"] for i in range(len(table.key_labels))]
    return [list(row) for row in zip(*keys)]


def cli_argv(argv):
    out, err = io.StringIO(), io.StringIO()
    return run(argv, out, err), out.getvalue(), err.getvalue()


CASES = [
    ("sep", [], "cpu,tid,tgid"),
    ("sep", [], "all"),
    ("sep", ["event:CPU_CLK_UNHALTED", "tid:100,200"], "cpu"),
    ("sep", ["event:CPU_CLK_UNHALTED"], "tgid,lib"),
    ("nosep", [], ""),
    ("nosep", ["count:100000"], "lib"),
    ("um_cpu", ["event:DATA_CACHE_MISSES"], ""),
    ("um_cpu", ["event:DATA_CACHE_MISSES"], "unitmask"),
    ("um_cpu", ["event:CPU_CLK_UNHALTED"], "tgid"),
    ("many", [], "cpu"),
]


@pytest.mark.parametrize("name,spec,merge", CASES)
def test_each_control_change_equals_core_and_cli(sessions, name, spec, merge):
    session = sessions[name]
    picker = ClassPicker(session, merge="all")
    picker.set_spec(spec)  # under --merge=all every selection is valid
    picker.set_merge(merge)
    assert_same(picker, session, spec, merge)
    assert picker.spec == spec and picker.merge == MergeOptions.parse(merge)
    # the spec as typed text works the same
    picker.set_spec(" ".join(spec))
    assert_same(picker, session, spec, merge)


def test_exclude_dependent_and_merge_toggles(sessions):
    session = sessions["sep"]
    picker = ClassPicker(session, merge="all", exclude_dependent=True)
    assert_same(picker, session, [], "all", True)
    assert "-x" in shlex.split(picker.command_line)
    # the toggle buttons drive set_merge
    picker._toggles["all"].value = False  # a control: the banner says it, nothing raised
    assert isinstance(picker.last_exception, AxisConflict)  # sep unmerged: a conflict
    assert picker.banner.error == picker.error and "Suggestion:" in picker.error
    # nothing changed: the toggles snap back to the merge on screen
    assert str(picker.merge) == "all" and all(t.value for t in picker._toggles.values())
    for flag in ("lib", "unitmask"):
        picker._toggles[flag].value = False
    assert picker.error == "" and str(picker.merge) == "cpu,tgid"
    picker._xdep_box.value = False
    assert picker._toggles["tid"].value  # tgid implies tid
    assert_same(picker, session, [], "cpu,tgid")
    # on and off read differently (not only by a shade of grey)
    assert picker._toggles["cpu"].description == "✓ cpu"
    assert picker._toggles["lib"].description == "lib" and picker._xdep_box.description == "-x"


def test_axis_conflict_inline_previous_result_kept(sessions):
    session = sessions["sep"]
    picker = ClassPicker(session, merge="cpu,tgid")
    before = picker.report.copy()
    names = picker.classes.names
    with pytest.raises(AxisConflict):  # from Python the exception, in the banner its text
        picker.set_merge("")
    status, _, err = cli(session, [], "")
    assert status == 1 and err == f"opreport error: {picker.error}\n"
    assert "Suggestion:" in picker.banner.error
    pd.testing.assert_frame_equal(picker.report, before)
    assert picker.classes.names == names
    assert picker.applied["merge"] == "cpu,tgid"
    # the same conflict as opreport's for one event merged by cpu only
    with pytest.raises(AxisConflict):
        picker.set_spec("event:CPU_CLK_UNHALTED").set_merge("cpu")
    status, _, err = cli(session, ["event:CPU_CLK_UNHALTED"], "cpu")
    assert status == 1 and err == f"opreport error: {picker.error}\n"
    # fixing it clears the message
    picker.set_merge("cpu,tgid")
    assert picker.error == "" and picker.banner.error == ""


def test_set_axis_merges_the_other_axes(sessions):
    session = sessions["sep"]
    picker = ClassPicker(session, spec="event:CPU_CLK_UNHALTED")
    picker.set_axis("cpu")
    assert picker.axis == "cpu" and str(picker.merge) == "tgid"
    assert_same(picker, session, ["event:CPU_CLK_UNHALTED"], "tgid")
    picker.set_axis("tgid")
    assert picker.axis == "tgid" and str(picker.merge) == "cpu,tid"
    picker.set_axis("event")
    assert picker.axis == "event"
    picker.set_spec("")  # two events and merged cpu/tgid: the event axis
    assert picker.axis == "event" and picker.classes.names[0].startswith("CPU_CLK")
    with pytest.raises(AxisConflict):  # two events along cpu: opreport's conflict
        picker.set_axis("cpu")
    assert picker.axis == "event" and picker.axis_choice == "event"  # previous kept
    with pytest.raises(SpecError, match="unknown axis"):
        picker.set_axis("nope")


def test_apply_applies_the_text_it_carries_in_the_order_typed(sessions):
    """The page's Apply sends the text with the click: Python applies what the box showed,
    whatever state it last heard of (an ipywidgets box's text could arrive after the click)."""
    picker = ClassPicker(sessions["sep"], merge="all")
    box = picker._spec_box
    events = sorted(set(picker.classes.table["event"]))
    assert len(events) >= 2 and box.value == ""
    want = f"event:{events[1]}"
    reply, _ = ask(box, "apply", {"spec": want})
    assert reply == {"type": "response", "id": 7, "ok": True, "value": want}
    assert picker.spec == [want] and box.value == want and picker.error == ""
    assert all(n.startswith(events[1]) for n in picker.classes.names)
    # a view's requests out of order: its typing's completions, then its Apply, then more
    # typing; Python answers them in the order the page made them
    sent: list[dict] = []
    box.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    first = f"event:{events[0]}"
    requests = [
        {"action": "complete", "args": {"typed": "event:"}},
        {"action": "apply", "args": {"spec": first}},
        {"action": "complete", "args": {"typed": first + " tgid:"}},
    ]
    for seq in (3, 1, 2):
        box._on_msg(
            box, {"type": "request", "id": seq, "channel": "c", "seq": seq, **requests[seq - 1]}, []
        )
    assert [m["id"] for m in sent] == [1, 2, 3] and all(m["ok"] for m in sent)
    assert sent[1]["value"] == first and picker.spec == [first]
    assert sent[2]["options"] == picker.completions(first + " tgid:")


@pytest.mark.parametrize(
    "spec,message",
    [
        ("event:NOPE", "no sample files found: profile specification too strict ?"),
        ("colour:red", 'not a valid tag "colour:red"'),
        ("tid:2 tid:2", "tag specified more than once: tid:2"),
        ("tgid:abc", "is not a number"),
        ('"unbalanced', "cannot split"),
    ],
)
def test_bad_specs_keep_previous(sessions, spec, message):
    picker = ClassPicker(sessions["sep"], merge="all")
    before = picker.report.copy()
    with pytest.raises(SpecError):
        picker.set_spec(spec)
    assert message in picker.error and picker.banner.error == picker.error
    pd.testing.assert_frame_equal(picker.report, before)
    reply, _ = ask(picker._spec_box, "apply", {"spec": spec})  # typed, applied in the page
    assert reply["ok"] and message in picker.banner.error and picker.spec == []
    assert reply["value"] == picker._spec_box.value == ""  # the box shows the spec in force


def test_unknown_merge_word(sessions):
    picker = ClassPicker(sessions["sep"], merge="all")
    with pytest.raises(SpecError, match="unknown merge option: colour"):
        picker.set_merge("colour")
    assert str(picker.merge) == "all"


def test_empty_directory_and_missing_path(tmp_path):
    picker = ClassPicker(tmp_path)
    assert "No sample file found" in picker.error
    assert picker.classes is None and picker.report is None
    assert "No sample file found" in picker.banner.error
    with pytest.raises(FormatError):
        ClassPicker(tmp_path / "missing")


def test_perf_script_and_samples(tmp_path):
    path = DATA / "perf_equivalents" / "script_flat.txt"
    picker = ClassPicker(path, merge="cpu,tgid")
    samples = read_perf_script(path)
    specs = perf_sample_specs(samples, by_symbol=True)
    expected = arrange(specs, "cpu,tgid")
    assert picker.error == ""
    assert picker.classes.names == expected.names
    pd.testing.assert_frame_equal(picker.report, report(expected))
    picker.set_by("symbol")
    pd.testing.assert_frame_equal(picker.report, report(expected, by="symbol"))
    assert picker.command_line == ""
    with pytest.raises(SpecError, match="too strict"):
        picker.set_spec("tgid:999999")
    # a samples DataFrame works the same
    picker2 = ClassPicker(samples, merge="cpu,tgid")
    assert picker2.classes.names == expected.names
    # no samples: a message, not a crash
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    p3 = ClassPicker(empty, kind="perf")
    assert "no samples" in p3.error


def test_listing_source_without_files_lists_classes():
    path = DATA / "synthetic_sessions" / "sample_files_sep.txt"
    picker = ClassPicker(path, merge="cpu,tgid")
    expected = arrange(read_listing(path).table, "cpu,tgid")
    assert picker.error == "" and picker.classes.names == expected.names
    assert picker.report is None and picker.opreport_text == ""
    assert "tgid:" in " ".join(picker.completions("tgid:"))
    assert picker.completions("tgid:1") == ["tgid:100"]


def test_table_sort_filter_and_chart(sessions):
    picker = ClassPicker(sessions["sep"], merge="cpu,tgid")
    view = picker.table_view()
    col = [c for c in view.columns if c.endswith(" samples")][0]
    picker.sort_by(col, descending=False)
    assert picker.table_view()[col].is_monotonic_increasing
    assert picker._table.sort_column == col and not picker._table.sort_descending
    picker.set_filter("LIBC")
    shown = picker.table_view()
    assert len(shown) and shown["image"].str.contains("libc").all()
    assert f"{len(shown)} of {len(picker.report)} rows" == picker._rows_label.value
    bars = picker._chart.marks[0]
    # horizontal bars: names read level beside them, no rotated labels over the axis
    assert bars.orientation == "horizontal" and picker._chart.axes[0].tick_rotate == 0
    assert picker._chart.fig_margin["left"] >= 7 * len("libc.so.6")  # room for the names
    assert list(bars.x) == ["libc.so.6"]  # the chart shows what the filter keeps
    assert "matching 'LIBC'" in picker._chart.title
    with pytest.raises(ShapeError, match="no column"):
        picker.sort_by("nope")
    picker.set_filter("")
    assert list(picker._chart_class.options) == picker.classes.names
    for name in picker.classes.names:  # the chart follows the class picked beside it
        picker._chart_class.value = name
        samples = picker.report[(name, "samples")].groupby(level="image", sort=False).sum()
        top = samples[samples > 0].sort_values(ascending=False, kind="stable").head(10)
        # horizontal bars, the largest at the top: the ordinal axis lists them bottom-up
        assert list(bars.x) == short_names(list(top.index))[::-1]
        assert list(bars.y) == list(top.to_numpy(float))[::-1]
    picker.set_by("application")
    assert picker.report.index.name == "application"
    with pytest.raises(FormatError):  # OProfile data names no symbols: previous kept
        picker.set_by("symbol")
    assert "symbol" in picker.error and picker.report.index.name == "application"
    assert picker._by_box.value == "application"


def inverted_from_invert(picker: ClassPicker) -> dict[tuple[str, str, str], tuple[int, int]]:
    """(binary, application, class) -> (files, samples), summed from invert()'s file sets."""
    counts = dict(zip(picker.classes.table["filename"], picker.classes.table["samples"]))
    out = {}
    for inv in invert(picker.classes):
        for name, sets in zip(picker.classes.names, inv.groups):
            for s in sets:
                out[(inv.image, s.app_image, name)] = (
                    len(s.files),
                    sum(int(counts[f]) for f in s.files),
                )
    return out


@pytest.mark.parametrize(
    "name,merge", [("sep", "cpu,tgid"), ("sep", "cpu,tgid,lib"), ("many", "cpu")]
)
def test_inverted_view_equals_invert(sessions, name, merge):
    picker = ClassPicker(sessions[name], merge=merge)
    expected = invert(session_classes(sessions[name], [], merge))
    assert [(i.image, i.groups) for i in picker.inverted] == [(i.image, i.groups) for i in expected]
    inv = picker.inverted_table()
    # one row per (binary, application that used it), in invert()'s order
    pairs = [(i.image, app) for i in picker.inverted for app in i.applications]
    assert list(zip(inv["binary"], inv["application"])) == pairs
    want = inverted_from_invert(picker)
    for name in picker.classes.names:
        keys = zip(inv["binary"], inv["application"])
        expect = [want.get((b, a, name), (0, 0)) for b, a in keys]
        assert inv[f"{name} samples"].tolist() == [s for _, s in expect]
    # percent: each application's share of the binary's samples in the class
    col = f"{picker.classes.names[0]} samples"
    per_binary = inv.groupby("binary", sort=False)[col].transform("sum")
    expect_pct = (inv[col] * 100.0 / per_binary.where(per_binary > 0, 1)).where(per_binary > 0, 0.0)
    assert inv[f"{picker.classes.names[0]} %"].tolist() == pytest.approx(expect_pct.tolist())


def test_inverted_tab_sort_filter_and_page_rows(sessions):
    picker = ClassPicker(sessions["sep"], merge="cpu,tgid")
    picker.show("inverted")
    assert picker.view == "inverted" and picker._tabs.selected_index == 2
    assert picker._inv_table.kind == "inverted" and picker._inv_table.row_count == len(
        picker.inverted_table()
    )
    assert (
        page_rows(picker._inv_table)
        == picker.inverted_table()[["binary", "application"]].values.tolist()
    )
    col = f"{picker.classes.names[0]} samples"
    payload, _ = picker._inv_table._sort(col)  # a header click on the inverted table
    assert payload["ok"] and picker.study.sorts["inverted"] == (col, True)
    values = picker.inverted_table()[col].tolist()
    assert values == sorted(values, reverse=True)
    assert picker.study.sorts["report"] is None  # the report keeps its own order
    picker._inv_filter.value = "libc"
    shown = picker.inverted_table()
    assert len(shown) and shown["binary"].str.contains("libc").all()
    assert picker._inv_table.row_count == len(shown)
    assert (
        picker._inv_rows.value
        == f"{len(shown)} of {sum(len(i.applications) for i in picker.inverted)} rows"
    )
    # a control change re-inverts the new classes
    picker.set_merge("all")
    assert picker.classes.merge.is_all
    names = picker.classes.names
    assert list(picker.inverted_table().columns[2:]) == [
        f"{n} {v}" for n in names for v in ("samples", "%")
    ]
    assert picker._inv_table.row_count == len(picker.inverted_table())  # filter "libc" kept
    with pytest.raises(ShapeError, match="no column"):
        picker.sort_by("nope", view="inverted")


def test_inverted_without_sample_counts_counts_files():
    path = DATA / "synthetic_sessions" / "sample_files_sep.txt"
    picker = ClassPicker(path, merge="cpu,tgid").show("inverted")
    inv = picker.inverted_table()
    name = picker.classes.names[0]
    assert f"{name} files" in inv.columns and picker._inv_table.value_labels == ["files", "%"]
    files = {(i.image, s.app_image): len(s.files) for i in picker.inverted for s in i.groups[0]}
    got = {
        (b, a): n for b, a, n in zip(inv["binary"], inv["application"], inv[f"{name} files"]) if n
    }
    assert got == files


def test_names_are_escaped(tmp_path):
    rows = pd.DataFrame(
        {
            "filename": ["a/<b>x</b>.0", "a/<img src=x onerror=alert(1)>.1"],
            "image": ["<b>x</b>", "<img src=x onerror=alert(1)>"],
            "lib_image": ["<b>x</b>", "<img src=x onerror=alert(1)>"],
            "cg_image": ["", ""],
            "event": ["E", "E"],
            "count": ["1", "1"],
            "unitmask": ["0", "0"],
            "tgid": ["1", "2"],
            "tid": ["1", "2"],
            "cpu": ["0", "0"],
            "samples": [3, 4],
        }
    )
    picker = ClassPicker(rows)
    assert picker.error == ""
    picker.show("classes").show("inverted")  # both tabs are drawn when opened
    assert "<img" not in picker._classes_html.value and "<b>" not in picker._classes_html.value
    # the tables set every name as text in the page: the raw name goes as data
    assert "<img src=x onerror=alert(1)>" in str(page_rows(picker._table))
    assert "<img src=x onerror=alert(1)>" in str(page_rows(picker._inv_table))


@pytest.mark.skipif(os.name != "posix", reason="non-UTF-8 file names")
def test_non_utf8_paths(sessions, tmp_path):
    import shutil

    src = sessions["nosep"]
    dst = tmp_path / "s"
    shutil.copytree(src, dst)
    base = dst / "samples" / "current" / "{root}"
    app = next(p for p in base.rglob("*") if p.is_dir() and p.name == "{dep}").parent
    bad = app.parent / os.fsdecode(b"caf\xe9")
    os.rename(app, bad)
    picker = ClassPicker(dst)
    assert picker.error == "", picker.error
    shown = str(page_rows(picker._table))
    assert "caf\ufffd" in shown
    shown.encode("utf-8")  # sendable to the browser


def test_lazy_names():
    import perfweave
    import perfweave.widgets

    assert perfweave.ClassPicker is ClassPicker is perfweave.widgets.ClassPicker


def test_header_click_sorts(sessions):
    picker = ClassPicker(sessions["sep"], merge="cpu,tgid", spec="event:CPU_CLK_UNHALTED")
    col = next(c for c in picker.table_view().columns if c.endswith(" samples"))
    payload, _ = picker._table._sort(col)  # what a click on the header asks for
    assert payload["ok"] and picker._table.sort_column == col and picker._table.sort_descending
    values = picker.table_view()[col].tolist()
    assert values == sorted(values, reverse=True)
    picker._table._sort(col)  # a second click flips the direction
    assert picker.study.sorts["report"] == (col, False) and not picker._table.sort_descending
    keys = [r[1] for r in page_rows(picker._table)]
    assert keys == [str(v) for v in picker.table_view()["image"]]


def test_chart_labels_are_file_names_unless_two_share_one():
    paths = ["/usr/bin/perl", "/lib/a/libc.so.6", "/lib/b/libc.so.6", "/ext4"]
    assert short_names(paths) == ["perl", "/lib/a/libc.so.6", "/lib/b/libc.so.6", "ext4"]


PERF = DATA / "perf_equivalents"


def test_perf_report_output_with_and_without_sample_counts():
    path = PERF / "report_fields_sample_period.txt"  # perf report with Samples columns
    expected = arrange(perf_report_specs(read_perf_report(path)), "all")
    picker = ClassPicker(path, merge="all")
    assert picker.study.source.kind == "perf" and picker.error == ""
    assert picker.classes.names == expected.names
    pd.testing.assert_frame_equal(picker.report, report(expected))
    # Overhead only, saved with the '$ perf report ...' line that wrote it: classes, no report
    path = PERF / "report_cpu_comm.txt"
    picker = ClassPicker(path)
    expected = arrange(perf_report_specs(read_perf_report(path)))
    assert picker.error == "" and picker.classes.names == expected.names
    assert picker.axis == "cpu" and picker.report is None
    # one message saying how to get counts, instead of an empty table and chart
    assert "perf report --stdio -n" in picker._no_counts.value
    assert "perf script" in picker._no_counts.value
    assert picker._report_tab.children == (picker._no_counts,)  # no empty table or chart
    assert "no sample counts" in picker._axis_label.value


def test_perf_json_source():
    path = PERF / "perf_data_convert.json"
    picker = ClassPicker(path)  # two threads on two cpus: opens on a view that resolves it
    assert picker.error == "" and picker.classes is not None
    assert "picked for you" in picker._axis_label.value and picker.resolutions
    with pytest.raises(AxisConflict):  # unmerged: opreport's conflict, with the ways out
        picker.set_merge("")
    assert "Suggestion:" in picker.banner.error
    assert picker._offers_label.value == "resolve with:"
    picker.set_merge("cpu")
    expected = arrange(perf_sample_specs(read_perf_json(path)), "cpu")
    assert picker.error == "" and picker.classes.names == expected.names
    pd.testing.assert_frame_equal(picker.report, report(expected))


def test_perf_report_without_samples_is_a_message():
    picker = ClassPicker(PERF / "report_header_only.txt")
    assert isinstance(picker.last_exception, SpecError)
    assert "report_header_only.txt: perf data has no samples" in picker.banner.error
    assert picker.classes is None and picker.report is None


def test_sample_spec_records_source():
    path = DATA / "synthetic_sessions" / "sample_files_sep.txt"
    specs = read_listing(path).specs()
    picker = ClassPicker(specs, merge="cpu,tgid")
    assert picker.study.source.kind == "table"
    assert picker.classes.names == arrange(specs, "cpu,tgid").names


def test_completion_from_the_values_in_the_data(sessions):
    picker = ClassPicker(sessions["sep"], merge="cpu,tgid")
    table = picker.classes.table
    events = sorted(set(table["event"]))
    assert picker.completions("event:") == [f"event:{e}" for e in events]
    tgids = sorted(set(table["tgid"]) - {"all"}, key=int)
    assert picker.completions("event:CPU_CLK_UNHALTED tgid:") == [
        f"event:CPU_CLK_UNHALTED tgid:{t}" for t in tgids
    ]
    assert picker.completions("tgid:100,") == [f"tgid:100,{t}" for t in tgids]
    assert picker.completions("lib-image:/usr/lib/x86") == [
        f"lib-image:{v}" for v in sorted(set(table["lib_image"])) if v.startswith("/usr/lib/x86")
    ]
    assert picker.completions("ev") == ["event:"]
    # typing in the spec box offers the completions and lists the values under it
    reply, _ = ask(picker._spec_box, "complete", {"typed": "event:"})
    assert reply["typed"] == "event:" and reply["options"] == picker.completions("event:")
    assert all(e in reply["hint"] for e in events)


def test_merge_all_toggle_axis_label_and_class_list(sessions):
    picker = ClassPicker(sessions["um_cpu"], spec="event:DATA_CACHE_MISSES")
    picker._toggles["all"].value = True
    assert str(picker.merge) == "all" and picker.error == ""
    assert all(t.value for t in picker._toggles.values())
    assert_same(picker, sessions["um_cpu"], ["event:DATA_CACHE_MISSES"], "all")
    n = len(picker.classes)
    assert picker._axis_label.value.startswith(
        f"{n} class{'es' if n != 1 else ''} along the {picker.axis} axis"
    )
    picker.set_merge("tgid")  # unit masks and cpus: classes along the event axis (long names)
    assert picker.error == ""
    for view in ("classes", "report"):
        picker.show(view)
    listed = picker._classes_html.value
    desc = picker.classes.describe()
    for name, longname in zip(picker.classes.names, picker.classes.longnames):
        assert html.escape(name) in listed and html.escape(longname) in listed
    # the sample total of each class is the report's column total
    totals = picker.report.xs("samples", axis=1, level="value").groupby(level=0).sum().sum()
    assert desc["samples"].tolist() == [int(totals[c]) for c in column_labels(picker.classes)]


@pytest.mark.parametrize(
    "words",
    [
        [],
        ["event:CPU_CLK_UNHALTED"],
        ["tgid:100", "event:CPU_CLK_UNHALTED,RETIRED_INSTRUCTIONS"],
        ["tid:200", "tid:100"],  # the same tag again replaces the earlier value
        ["cpu:0", "count:100000", "unit-mask:0"],
        ["tgid:all", "image:/usr/bin/perl"],
        ["/usr/lib/x86_64-linux-gnu/libc.so.6", "cpu:1"],
        ["image-exclude:*bash*", "tid:0x64"],
    ],
)
@pytest.mark.parametrize("xdep", [False, True])
def test_selection_per_distinct_value_equals_the_spec_mask(sessions, words, xdep):
    """The picker tests event/numeric tags once per distinct value: same rows as mask()."""
    picker = ClassPicker(sessions["sep"], merge="all")
    spec = ProfileSpec.parse(words)
    table = picker.study.source.table(["current"])
    got = picker.study.source.mask(spec, ["current"], exclude_dependent=xdep)
    assert got.tolist() == spec.mask(table, exclude_dependent=xdep).tolist()


ARCHIVES = DATA / "synthetic_sessions"


def test_session_archive_opens_like_its_directory(sessions):
    """ClassPicker("session.tar.gz") reads the archive the CLI reads (it used to parse it
    as perf script text and fail with binary bytes in the message)."""
    archive = ARCHIVES / "opsession_sep.tar.gz"
    picker = ClassPicker(archive, merge="cpu,tgid")
    assert picker.error == "" and picker.study.source.kind == "session"
    assert_same(picker, sessions["sep"], [], "cpu,tgid")
    # the command shown names the archive, and runs
    assert f"--session-dir={archive}" in shlex.split(picker.command_line)


@pytest.mark.parametrize(
    "name,default,others",
    [
        (
            "sep",
            ("event", "cpu,tgid", []),
            ["2 classes along tgid (event:CPU_CLK_UNHALTED, --merge=cpu,tid)"],
        ),
        ("many", ("tid", "cpu", []), ["7 classes along tgid (--merge=cpu,tid)"]),
    ],
)
def test_a_session_that_needs_a_merge_opens_on_a_valid_default(sessions, name, default, others):
    picker = ClassPicker(sessions[name])
    axis, merge, spec = default
    assert picker.error == "" and picker.banner.error == ""
    assert (picker.axis, str(picker.merge), picker.spec) == (axis, merge, spec)
    assert_same(picker, sessions[name], spec, merge)
    # the status line says what is shown and why the picker chose it
    status = picker._axis_label.value
    assert f"along the {axis} axis" in status and f"--merge={merge}" in status
    assert "picked for you" in status
    # the other resolutions are one click away
    offered = [b.description for b in picker._offer_buttons]
    assert offered[: len(others)] == others and picker._offers_box.layout.display != "none"
    picker._offer_buttons[0].click()
    res_axis = others[0].split(" along ")[1].split()[0]
    assert picker.error == "" and picker.axis == res_axis
    assert picker._axis_box.value == res_axis  # the dropdown agrees with the status line
    assert f"along the {res_axis} axis" in picker._axis_label.value
    assert "picked for you" not in picker._axis_label.value


def test_an_axis_that_cannot_be_shown_changes_nothing(sessions):
    """Choosing an axis used to switch the merge toggles, fail, and leave toggles, dropdown
    and status line disagreeing with the result on screen."""
    picker = ClassPicker(sessions["sep"], merge="cpu,tgid")
    before = (picker.axis, str(picker.merge), picker._axis_label.value)
    toggles = {f: t.value for f, t in picker._toggles.items()}
    picker._axis_box.value = "cpu"  # two events along cpu: opreport's conflict
    assert isinstance(picker.last_exception, AxisConflict) and picker.banner.error
    assert (picker.axis, str(picker.merge), picker._axis_label.value) == before
    assert {f: t.value for f, t in picker._toggles.items()} == toggles
    assert picker._axis_box.value == "auto"
    # the ways out are offered, and one click is not stuck
    assert any("along cpu" in b.description for b in picker._offer_buttons)
    picker.resolve(next(r for r in picker.resolutions if r.axis == "cpu"))
    assert picker.error == "" and picker.axis == "cpu" and picker._axis_box.value == "cpu"
    assert picker.spec == ["event:CPU_CLK_UNHALTED"]
    assert str(picker.merge) == "tgid" and picker._toggles["tgid"].value


def test_report_table_kind_and_height_are_checked():
    table = ReportTable(kind="inverted")
    with pytest.raises(ShapeError, match="one of \\('report', 'inverted'\\), not 'classes'"):
        table.kind = "classes"
    with pytest.raises(ShapeError, match="positive number of pixels, not 0"):
        table.height = 0
    assert (table.kind, table.height) == ("inverted", 340)


def test_the_chart_axis_ticks_whole_round_sample_counts(sessions):
    picker = ClassPicker(sessions["sep"], merge="cpu,tgid")
    axis = picker._chart.axes[1]
    ticks = [float(t) for t in axis.tick_values]
    top = max(picker._chart.marks[0].y)
    assert ticks[0] == 0 and ticks[-1] <= top < ticks[-1] + (ticks[1] - ticks[0])
    steps = {b - a for a, b in zip(ticks, ticks[1:])}
    (step,) = steps  # evenly spaced
    assert step.is_integer() and str(int(step)).strip("0") in ("1", "2", "5")
    assert 3 <= len(ticks) <= 7
