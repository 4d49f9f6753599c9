"""ClassStudy without a widget: each choice equals perfweave.classes and the CLI for the same
arguments; a refused choice changes nothing and offers the views that work; the tables'
filter and sort, the chart's top images, completion, the status line and the command line
are answered from the study's own state."""

from __future__ import annotations

import io
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from perfweave.classes import (
    ClassStudy,
    arrange,
    invert,
    opreport_argv,
    perf_sample_specs,
    read_perf_script,
    report,
    session_classes,
)
from perfweave.cli import main as perfweave_main
from perfweave.cli._classes import run
from perfweave.errors import AxisConflict, ShapeError, SpecError

DATA = Path(__file__).parent.parent / "data" / "classes"


def cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return run(argv, out, err), out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "name,spec,merge,xdep",
    [
        ("sep", ["event:CPU_CLK_UNHALTED", "tid:100,200"], "cpu", False),
        ("sep", [], "all", True),
        ("nosep", ["count:100000"], "lib", False),
        ("um_cpu", ["event:DATA_CACHE_MISSES"], "unitmask", False),
        ("many", [], "cpu", False),
    ],
)
def test_each_choice_equals_the_core_and_the_cli(sessions, name, spec, merge, xdep):
    study = ClassStudy(sessions[name], merge="all")
    study.open()
    study.set_spec(" ".join(spec))
    study.set_merge(merge, exclude_dependent=xdep)
    expected = session_classes(sessions[name], spec, merge, exclude_dependent=xdep)
    assert study.classes.names == expected.names and study.axis == expected.axis
    assert study.applied == {"spec": spec, "merge": merge, "exclude_dependent": xdep}
    pd.testing.assert_frame_equal(study.report, report(expected, by="image"))
    assert [i.image for i in study.inverted] == [i.image for i in invert(expected)]
    # opreport's text, and the command line of the choice runs to the same text
    argv = shlex.split(study.command_line)
    assert argv[:2] == ["perfweave", "opreport"]
    status, out, _ = cli(argv[2:])
    assert status == 0 and study.opreport_text == out
    assert cli(opreport_argv(str(sessions[name]), spec, merge, xdep))[1] == out


def test_a_refused_choice_changes_nothing_and_offers_the_views_that_work(sessions):
    study = ClassStudy(sessions["sep"], merge="cpu,tgid")
    study.open()
    classes, report_before = study.classes, study.report
    assert study.offers == [] and not study.offers_fix
    with pytest.raises(AxisConflict) as info:
        study.set_merge("")
    status, _, err = cli([f"--session-dir={sessions['sep']}"])  # opreport's own words
    assert status == 1 and err == f"opreport error: {info.value}\n"
    assert study.classes is classes and study.report is report_before
    assert str(study.merge) == "cpu,tgid" and study.applied["merge"] == "cpu,tgid"
    # every way out offered works, along the axis it names; none is the view held
    assert study.offers_fix and study.offers
    for res in list(study.offers):
        trial = ClassStudy(sessions["sep"])
        trial.resolve(res)
        assert trial.axis == res.axis and len(trial.classes) == res.n_classes
        assert res.event or res.merge != study.merge
    with pytest.raises(SpecError, match="no resolution 99"):
        study.resolve(99)
    with pytest.raises(SpecError, match="unknown axis"):
        study.set_axis("nope")
    assert study.classes is classes


@pytest.mark.parametrize(
    "spec,message",
    [
        ("event:NOPE", "no sample files found: profile specification too strict ?"),
        ("tid:2 tid:2", "tag specified more than once: tid:2"),
        ('"unbalanced', "cannot split the specification"),
    ],
)
def test_a_bad_spec_is_a_spec_error_and_keeps_the_classes(sessions, spec, message):
    study = ClassStudy(sessions["sep"], merge="all")
    study.open()
    names = study.classes.names
    with pytest.raises(SpecError, match=message.replace("?", r"\?")):
        study.set_spec(spec)
    assert study.classes.names == names and study.words == []


@pytest.mark.parametrize(
    "name,axis,merge,apart",
    [("sep", "event", "cpu,tgid", ("event", "tgid")), ("many", "tid", "cpu", ("tid", "cpu"))],
)
def test_open_shows_a_view_that_resolves_a_source_that_needs_a_merge(
    sessions, name, axis, merge, apart
):
    study = ClassStudy(sessions[name])
    study.open()
    assert (study.axis, str(study.merge)) == (axis, merge)
    assert study.chosen_note.startswith("picked for you: unmerged, the files differ by")
    assert all(f"by {p}" in study.chosen_note for p in apart)
    status = study.status()
    assert status.startswith(f"{len(study.classes)} classes along the {axis} axis")
    assert f"--merge={merge}" in status and study.chosen_note in status
    assert not study.offers_fix and study.offers  # the other views, as alternatives
    study.resolve(0)  # a choice of the person: no note
    assert study.chosen_note == "" and "picked for you" not in study.status()


def test_tables_filter_and_sort_reorder_the_rows(sessions):
    study = ClassStudy(sessions["sep"], merge="cpu,tgid")
    study.open()
    rows = study.rows("report")
    full = study.table_view()
    assert len(full) == len(rows) == len(study.report)
    assert list(full.columns[:2]) == ["application", "image"]
    col = f"{study.classes.names[0]} samples"
    assert full[col].tolist() == study.report[(study.classes.names[0], "samples")].tolist()
    study.set_filter("LIBC")
    kept = study.table_view()
    libc = full["application"].str.lower().str.contains("libc") | full[
        "image"
    ].str.lower().str.contains("libc")
    assert 0 < len(kept) < len(full) and len(kept) == int(libc.sum())
    study.sort_by(col, descending=True)
    values = study.table_view()[col].tolist()
    assert values == sorted(values, reverse=True) and len(values) == len(kept)
    study.sort_by("")  # the core's order again, the filter kept
    assert study.table_view().equals(kept)
    with pytest.raises(ShapeError, match="no column 'nope'"):
        study.sort_by("nope")
    with pytest.raises(ShapeError, match="unknown table"):
        study.set_filter("x", view="classes")
    # the inverted view: one row per binary and application that used it
    inv = study.table_view("inverted")
    pairs = [(i.image, app) for i in study.inverted for app in i.applications]
    assert list(zip(inv["binary"], inv["application"])) == pairs


def test_top_images_are_the_report_rows_summed_per_image(sessions):
    study = ClassStudy(sessions["sep"], merge="cpu,tgid")
    study.open()
    frame = study.table_view()
    for k, name in enumerate(study.classes.names):
        per_image = frame.groupby("image", sort=False)[f"{name} samples"].sum()
        per_image = per_image[per_image > 0].sort_values(ascending=False, kind="stable")
        names, counts = study.top_images(k, 3)
        assert names == list(per_image.index[:3]) and counts.tolist() == per_image.tolist()[:3]
    study.set_filter("libc")
    names, _ = study.top_images(0, 10)
    assert names and all("libc" in n for n in names)


def test_report_rows_per_symbol_and_a_level_the_data_lacks(tmp_path):
    path = DATA / "perf_equivalents" / "script_flat.txt"
    study = ClassStudy(path, merge="cpu,tgid")
    study.open()
    expected = arrange(perf_sample_specs(read_perf_script(path), by_symbol=True), "cpu,tgid")
    assert study.report_levels() == ["image", "application", "symbol"]
    study.set_by("symbol")
    pd.testing.assert_frame_equal(study.report, report(expected, by="symbol"))
    assert study.command_line == ""  # the opreport command reads session directories
    with pytest.raises(SpecError, match="unknown report level"):
        study.set_by("function")
    assert study.by == "symbol"


def test_a_source_without_counts_has_classes_and_says_why_no_report():
    path = DATA / "perf_equivalents" / "report_cpu_comm.txt"  # perf report: Overhead only
    study = ClassStudy(path)
    study.open()
    assert study.classes is not None and not study.has_counts
    assert study.report is None and study.rows("report") is None and study.opreport_text == ""
    assert "perf report --stdio -n" in study.no_counts_text()
    assert study.status().endswith("no sample counts")
    # the inverted view counts files instead of samples
    assert study.rows("inverted").values == ("files", "%")
    assert study.top_images(0) == ([], pytest.approx(np.zeros(0)))


def test_completions_and_hints_come_from_the_values_in_the_data(sessions):
    study = ClassStudy(sessions["sep"])
    table = study.source.values()
    tgids = sorted(set(table["tgid"]) - {"all", ""}, key=int)
    assert study.completions("event:CPU_CLK_UNHALTED tgid:") == [
        f"event:CPU_CLK_UNHALTED tgid:{t}" for t in tgids
    ]
    assert study.completions("ev") == ["event:"]
    events = sorted(set(table["event"]))
    assert study.hint("event:") == "event: " + ", ".join(events)
    assert study.hint("").startswith("tags: session")


def test_the_cli_subcommand_and_the_command_line_are_one_argument_list(sessions, capsys):
    session = sessions["sep"]
    argv = opreport_argv(str(session), ["event:CPU_CLK_UNHALTED"], "cpu,tgid", True)
    assert argv == [f"--session-dir={session}", "--merge=cpu,tgid", "-x", "event:CPU_CLK_UNHALTED"]
    assert perfweave_main(["opreport", *argv]) == 0
    via_main = capsys.readouterr().out
    assert via_main == cli(argv)[1]
    study = ClassStudy(session, "event:CPU_CLK_UNHALTED", "cpu,tgid", exclude_dependent=True)
    study.open()
    assert study.opreport_text == via_main


def test_a_session_tag_without_sample_files_says_what_opreport_says(sessions):
    """The study used to say "profile specification too strict" where opreport (and the
    CLI) say that the session has no sample file."""
    study = ClassStudy(sessions["many"], merge="cpu")
    study.open()
    names = study.classes.names
    with pytest.raises(SpecError) as info:
        study.set_spec("session:older")
    status, _, err = cli([f"--session-dir={sessions['many']}", "session:older"])
    assert status == 1 and err == f"opreport error: {info.value}\n"
    assert str(info.value).startswith("No sample file found")
    assert study.classes.names == names and study.words == []
