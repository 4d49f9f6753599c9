"""MergePanel without a browser: every setter equals the core function called directly."""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import perfweave as pw
import perfweave.merge as pm
from perfweave.errors import MergeError, ShapeError
from perfweave.widgets._html import format_numbers
from perfweave.widgets._matrix import abbreviate
from perfweave.widgets._merge_views import CORNER_CLEAR
from perfweave.widgets.merge_panel import MergePanel

MERGE_DATA = Path(__file__).resolve().parents[1] / "data" / "merge"


@pytest.fixture(scope="module")
def much_raw() -> pd.DataFrame:
    return pm.load_vignette("much")


@pytest.fixture(scope="module")
def much_subs(much_raw):
    return pm.process_raw_experiments(much_raw, 6)


@pytest.fixture(scope="module")
def hrm_subs():
    return pm.process_raw_experiments(pd.read_csv(MERGE_DATA / "data_hrm_raw_vignette.csv"), 6)


@pytest.fixture(scope="module")
def panel(much_subs) -> MergePanel:
    return MergePanel(much_subs, seed=3)


def _much(subs, **kw):
    args = {"n_runs": 1000, "n_sims": 100, "dep_lvl": 0.85, "seed": 3, **kw}
    return pm.much_merge(subs, **args)


def test_lazy_names():
    assert pw.MergePanel is MergePanel
    assert pw.widgets.MergePanel is MergePanel


def test_initial_much_equals_core(panel, much_subs):
    direct = _much(much_subs)
    pd.testing.assert_frame_equal(panel.result, direct.merged)
    d = panel.diagnostics
    assert isinstance(d, pm.MuchResult)
    np.testing.assert_array_equal(d.scores, direct.scores)
    assert d.chosen == direct.chosen and d.dropped == direct.dropped
    assert panel.error == ""
    assert panel.kept == list(direct.merged.columns)


@pytest.mark.parametrize(
    ("setter", "value", "kw"),
    [
        ("set_dep_lvl", 0.6, {"dep_lvl": 0.6}),
        ("set_dep_lvl", 0.7, {"dep_lvl": 0.7}),
        ("set_n_sims", 230, {"n_sims": 230}),
        ("set_n_sims", 10, {"n_sims": 10}),
        ("set_n_runs", 500, {"n_runs": 500}),
        ("set_seed", 11, {"seed": 11}),
    ],
)
def test_much_setters_equal_core(much_subs, setter, value, kw):
    panel = MergePanel(much_subs, seed=3)
    getattr(panel, setter)(value)
    direct = _much(much_subs, **kw)
    pd.testing.assert_frame_equal(panel.result, direct.merged)
    np.testing.assert_array_equal(panel.diagnostics.scores, direct.scores)
    pd.testing.assert_frame_equal(panel.diagnostics.achieved, direct.achieved)
    assert getattr(panel.settings, next(iter(kw))) == value
    # the controls show the settings of the result
    assert panel._dep_w.value == pytest.approx(panel.settings.dep_lvl)
    assert panel._sims_w.value == panel.settings.n_sims
    assert panel._runs_w.value == panel.settings.n_runs
    assert panel._seed_w.value == panel.settings.seed


def test_controls_drive_the_same_setters(much_subs):
    panel = MergePanel(much_subs, seed=3)
    panel._dep_w.value = 0.7
    pd.testing.assert_frame_equal(panel.result, _much(much_subs, dep_lvl=0.7).merged)
    panel._sims_w.value = 50
    pd.testing.assert_frame_equal(panel.result, _much(much_subs, dep_lvl=0.7, n_sims=50).merged)
    panel._method_w.value = "hrm"
    assert panel.method == "hrm" and panel._anchor_w.value == "PROCESSOR_CYCLES"
    assert panel._anchor_w.layout.display != "none" and panel._much_box.layout.display == "none"
    pd.testing.assert_frame_equal(panel.result, pm.hrm_merge(much_subs, "PROCESSOR_CYCLES"))
    panel._method_w.value = "much"
    pd.testing.assert_frame_equal(panel.result, _much(much_subs, dep_lvl=0.7, n_sims=50).merged)


def test_hrm_equals_core(hrm_subs):
    panel = MergePanel(hrm_subs, method="hrm")
    assert panel.anchors == ["PROCESSOR_CYCLES"]
    direct = pm.hrm_merge(hrm_subs, "PROCESSOR_CYCLES")
    pd.testing.assert_frame_equal(panel.result, direct)
    d = panel.diagnostics
    assert d.anchor == "PROCESSOR_CYCLES" and d.n_rows == 1000
    np.testing.assert_array_equal(d.quantiles, direct["PROCESSOR_CYCLES"].to_numpy())
    pooled = np.concatenate([s["PROCESSOR_CYCLES"].to_numpy() for s in hrm_subs])
    np.testing.assert_array_equal(np.sort(d.pooled), np.sort(pooled))
    np.testing.assert_array_equal(d.quantiles, pm.quantile_type2(pooled, d.probabilities))
    # the anchor's pooled readings (cumulative %) and the quantiles taken, where MUCH's
    # scores are: the curve spans the readings, the dots lie on the quantiles used
    chart = panel._anchor_chart
    assert panel._scores.figure not in panel._chart_row.children
    assert chart.figure in panel._chart_row.children
    assert chart.figure.axes[0].label == "PROCESSOR_CYCLES"
    assert chart.lines.x[0] == pooled.min() and chart.lines.x[-1] == pooled.max()
    assert np.all(np.diff(chart.lines.x) >= 0) and chart.lines.y[-1] == 100
    assert 10 <= len(chart.point.x) <= 40
    assert np.isin(chart.point.x, d.quantiles).all()


def test_hrm_vignette_cannot_much_but_panel_stays_usable(hrm_subs):
    # the HRM vignette has pairs never read together: MUCH fails with the core's message
    panel = MergePanel(hrm_subs)
    assert panel.result is None
    assert "never read in the same subexperiment" in panel.error
    panel.set_anchor("PROCESSOR_CYCLES")
    assert panel.error == "" and panel.result is not None
    with pytest.raises(MergeError, match="never read"):
        panel.set_method("much")
    assert panel.method == "hrm" and panel._method_w.value == "hrm"  # previous result kept
    pd.testing.assert_frame_equal(panel.result, pm.hrm_merge(hrm_subs, "PROCESSOR_CYCLES"))


def test_dropped_are_the_cores_reasons(much_subs):
    panel = MergePanel(much_subs, seed=3)
    for dep in (0.6, 0.85):
        panel.set_dep_lvl(dep)
        cor = pm.correlation_matrix(much_subs)
        pd.testing.assert_frame_equal(panel.dropped, pm.drop_reasons(cor, dep))
        assert set(panel.dropped["dropped"]).isdisjoint(panel.kept)


def test_dropped_shown_with_partner(panel):
    text = html.unescape(panel._kept_html.value.replace("<wbr>", ""))  # wrap points
    for _, row in panel.dropped.iterrows():
        assert row["dropped"] in text and row["kept"] in text


def _non_pd_subs() -> list[pd.DataFrame]:
    """Three HEMs whose pairwise correlations (read in different runs) cannot coexist."""
    rng = np.random.default_rng(0)

    def pair(a, b, r):
        x = rng.normal(size=500)
        y = r * x + np.sqrt(1 - r * r) * rng.normal(size=500)
        return pd.DataFrame({a: x * 10 + 1000, b: y * 10 + 1000})

    return [pair("A", "B", 0.8), pair("B", "C", 0.8), pair("A", "C", -0.8)]


def test_non_positive_definite_message_and_previous_result_kept():
    subs = _non_pd_subs()
    panel = MergePanel(subs, dep_lvl=0.7, seed=0)
    assert panel.error == "" and panel.kept == ["A", "C"]
    before = panel.result
    with pytest.raises(MergeError, match="not positive definite") as info:
        panel.set_dep_lvl(0.9)
    message = str(info.value)
    assert "drop HEM(s)" in message and "dep_lvl=" in message
    assert panel.error == message
    assert panel.banner.error == message
    pd.testing.assert_frame_equal(panel.result, before)
    assert panel.settings.dep_lvl == 0.7 and panel._dep_w.value == pytest.approx(0.7)
    # the slider gives the same message without raising into the notebook
    panel._dep_w.value = 0.95
    assert "not positive definite" in panel.error and panel._dep_w.value == pytest.approx(0.7)
    panel.set_dep_lvl(0.75)
    assert panel.error == "" and panel.banner.error == ""


def test_single_hem_left_is_a_message(much_subs):
    # with three nearly collinear HEMs, a low dep_lvl keeps only one
    rng = np.random.default_rng(1)
    x = rng.normal(size=400)
    subs = [
        pd.DataFrame({"A": x * 10 + 100, "B": x * 20 + 5 + rng.normal(size=400) * 0.1}),
        pd.DataFrame({"A": x * 10 + 100, "C": x * 3 + 7 + rng.normal(size=400) * 0.1}),
        pd.DataFrame({"B": x * 20 + 5, "C": x * 3 + 7 + rng.normal(size=400) * 0.1}),
    ]
    panel = MergePanel(subs, dep_lvl=0.99, seed=0)
    assert panel.result is None and "only 1 HEM is kept" in panel.error


def test_anchor_missing_from_a_subexperiment(much_subs):
    panel = MergePanel(much_subs, seed=3)
    before = panel.result
    with pytest.raises(MergeError, match="absent from subexperiment"):
        panel.set_anchor("L2_MISSES")
    assert "absent from subexperiment" in panel.error
    pd.testing.assert_frame_equal(panel.result, before)
    assert panel.method == "much" and panel._method_w.value == "much"


def test_n_pmcs_that_does_not_divide(much_raw):
    panel = MergePanel(much_raw, n_pmcs=6, seed=3)
    assert panel._pmcs_w.layout.display != "none"
    before = panel.result
    with pytest.raises(MergeError, match="do not split"):
        panel.set_n_pmcs(7)
    assert "do not split" in panel.error and panel._pmcs_w.value == 6
    pd.testing.assert_frame_equal(panel.result, before)
    panel._pmcs_w.value = 5  # the control: message, no exception
    assert "do not split" in panel.error and panel._pmcs_w.value == 6
    with pytest.raises(MergeError, match="do not split"):
        MergePanel(much_raw, n_pmcs=7)


def test_constant_column(much_raw):
    raw = much_raw.copy()
    raw.iloc[:, 3] = 5
    panel = MergePanel(raw, n_pmcs=6)
    assert panel.result is None and "constant" in panel.error
    panel.set_method("hrm")  # HRM needs no correlation: it works
    assert panel.error == "" and panel.result.shape[0] == 1000
    with pytest.raises(MergeError, match="constant"):
        panel.set_method("much")
    assert panel.method == "hrm"


@pytest.mark.parametrize(
    ("setter", "value", "match"),
    [
        ("set_dep_lvl", 1.3, "dep_lvl must be a number in [0, 1]"),
        ("set_dep_lvl", "high", "dep_lvl must be a number in [0, 1]"),
        ("set_n_sims", 5, "n_sims must be at least 10"),
        ("set_n_sims", 2.5, "n_sims must be an integer"),
        ("set_n_runs", 1, "n_runs must be at least 2"),
        ("set_seed", -1, "seed must be at least 0"),
        ("set_method", "xyz", "method must be"),
    ],
)
def test_bad_settings(much_subs, setter, value, match):
    panel = MergePanel(much_subs, seed=3)
    before = panel.result
    with pytest.raises(MergeError) as info:
        getattr(panel, setter)(value)
    assert match in str(info.value) and match in panel.error
    pd.testing.assert_frame_equal(panel.result, before)


def test_pick_pair(much_subs):
    panel = MergePanel(much_subs, seed=3)
    a, b = panel.kept[3], panel.kept[1]
    panel.pick_pair(a, b)
    assert panel.pair == (a, b)
    np.testing.assert_array_equal(panel._scatter.mark.x, panel.result[a].to_numpy(dtype=float))
    np.testing.assert_array_equal(panel._scatter.mark.y, panel.result[b].to_numpy(dtype=float))
    names = panel.kept
    for m in (panel._target, panel._achieved, panel._diff):
        assert m.selected == [names.index(b), names.index(a)]
    # a click on a matrix cell (the page sets the cell picked: row 0, column 2) does the same
    panel._achieved.selected = [0, 2]
    assert panel.pair == (names[2], names[0])
    assert panel._target.selected == [0, 2]  # every matrix outlines the pair
    with pytest.raises(MergeError, match="not in the merged table"):
        panel.pick_pair("L2_ACCESSES", a)  # dropped at 0.85
    assert panel.pair == (names[2], names[0])


def test_matrices_and_scores_drawn(panel):
    d = panel.diagnostics
    np.testing.assert_array_equal(panel._target.matrix(), d.target.to_numpy(dtype=float))
    np.testing.assert_array_equal(panel._achieved.matrix(), d.achieved.to_numpy(dtype=float))
    diff = d.achieved.to_numpy() - d.target.to_numpy()
    np.testing.assert_allclose(panel._diff.matrix(), diff)
    assert panel._diff.top == pytest.approx(np.abs(diff).max())  # diverging, centred on 0
    # labelled with the HEM names (abbreviated, the full name for the hover)
    assert panel._target.names == list(d.target.columns)
    assert panel._target.labels == abbreviate(list(d.target.columns))
    np.testing.assert_array_equal(panel._scores.lines.y, d.scores)
    assert list(panel._scores.point.x) == [d.chosen + 1]
    assert f"simulation {d.chosen + 1} of 100 chosen" in panel._status.value
    # HRM borrows the chart for its anchor; back on MUCH it is the scores chart again
    panel.set_method("hrm")
    assert panel._anchor_chart.figure.axes[0].label == panel.anchors[0]
    assert panel._scores.figure not in panel._chart_row.children
    panel.set_method("much")
    assert panel._anchor_chart.figure not in panel._chart_row.children
    assert panel._scores.figure in panel._chart_row.children
    np.testing.assert_array_equal(panel._scores.lines.y, panel.diagnostics.scores)


def test_names_are_escaped():
    evil = "<img src=x onerror=alert(1)>"
    rng = np.random.default_rng(2)
    subs = [
        pd.DataFrame({evil: rng.normal(size=200) + 50, "B": rng.normal(size=200) + 80}),
        pd.DataFrame({evil: rng.normal(size=200) + 50, "C": rng.normal(size=200) + 60}),
        pd.DataFrame({"B": rng.normal(size=200) + 80, "C": rng.normal(size=200) + 60}),
    ]
    panel = MergePanel(subs, seed=0)
    assert panel.error == ""
    for widget in (panel._kept_html, panel._preview_html):
        assert evil not in widget.value and html.escape(evil) in widget.value
    panel.build_design([evil, "B", "C", "D"], 2)
    assert evil not in panel._design_table.value


def test_design_equals_core(much_subs, tmp_path):
    panel = MergePanel(much_subs, seed=3)
    hems = [f"H{i}" for i in range(12)]
    design = panel.build_design(hems, 5, seed=0)
    direct = pm.pair_covering_design(hems, 5, seed=0)
    assert design.blocks == direct.blocks or design.n_subexperiments <= direct.proven_bound + 2
    assert design.uncovered_pairs() == []
    assert f"{design.n_subexperiments} subexperiments" in panel._design_summary.value
    assert f"proven lower bound {design.proven_bound}" in panel._design_summary.value
    csv = panel.design_csv()
    frame = pd.read_csv(pd.io.common.StringIO(csv))
    assert len(frame) == design.n_subexperiments
    assert list(frame.columns) == ["subexperiment", *[f"pmc{i}" for i in range(1, 6)]]
    out = panel.export_design(tmp_path / "d.csv")
    assert out.read_text() == csv
    assert "data:text/csv;base64," in panel._design_link.value
    with pytest.raises(MergeError):
        panel.build_design(["A", "A", "B"], 2)
    assert "A" in panel.banner.error
    assert panel.design is design  # the previous design stays


def test_design_defaults_from_panel(much_subs):
    panel = MergePanel(much_subs, seed=3)
    assert panel._design_hems.value.splitlines() == much_subs.hems
    assert panel._design_pmcs.value == 6


def test_marginals_are_shares_with_round_ticks(much_subs):
    """The marginals show the percent of merged runs / pooled readings per common bin (each
    series sums to 100), and every axis' ticks lie inside its explicit domain."""
    panel = MergePanel(much_subs, seed=3)
    a, b = panel.kept[0], panel.kept[1]
    panel.pick_pair(a, b)
    for view, name in ((panel._marg_x, a), (panel._marg_y, b)):
        merged = panel.result[name].to_numpy(dtype=float)
        np.testing.assert_allclose(np.sum(view.lines.y), 100.0)
        np.testing.assert_allclose(np.sum(view.pooled.y), 100.0)
        centres = np.asarray(view.lines.x)
        half = (centres[1] - centres[0]) / 2  # the bins cover every merged run
        assert centres[0] - half <= merged.min() and merged.max() <= centres[-1] + half * 1.001
    for view in (panel._marg_x, panel._marg_y, panel._scores):
        ticks = np.asarray(view.figure.axes[1].tick_values)
        assert len(ticks) >= 2
        assert view.y.min <= ticks.min() and ticks.max() <= view.y.max
    scores = np.asarray(panel.diagnostics.scores)
    assert panel._scores.y.min <= scores.min() and scores.max() <= panel._scores.y.max


def test_a_merge_that_is_not_available_is_one_line(hrm_subs):
    """MUCH on the HRM vignette (pairs never read together) used to leave black 2x2
    matrices, a diagonal 'score' line and 2-point scatters under the message."""
    panel = MergePanel(hrm_subs)
    assert panel.result is None
    assert panel._tabs.children[0] is panel._none  # no placeholder chart or matrix
    assert "MUCH not available" in panel._none.value
    assert "never read in the same subexperiment" in panel._none.value
    # HRM works; its pooled correlation does not exist for those pairs: one line for it
    panel.set_anchor("PROCESSOR_CYCLES")
    assert panel._tabs.children[0] is panel._merge_body
    assert panel._target.note.startswith("not available: 75 HEM pair(s) never read")
    assert panel._target.matrix().size == 0 and panel._diff.layout.display == "none"
    assert panel._achieved.note == "" and len(panel._achieved.names) == 16
    # a failed switch back keeps HRM on screen
    with pytest.raises(MergeError):
        panel.set_method("much")
    assert panel._tabs.children[0] is panel._merge_body and panel.method == "hrm"


def test_hem_labels_are_short_unique_names():
    names = [
        "PROCESSOR_CYCLES",
        "CYCLES_LSU_SCHEDULE_STALLED",
        "CYCLES_LSU_SCHEDULE_STALLS",
        "BIU_MASTER_GLOBAL_REQUESTS",
        "L2_MISSES",
    ]
    labels = abbreviate(names)
    assert labels[0] == "PROCESSOR_CYCLES" and labels[-1] == "L2_MISSES"
    assert labels[1] != labels[2] and len(set(labels)) == len(labels)
    assert all(len(label) <= 18 for label in labels)
    assert labels[3] == "BIU_MAS_GLO_REQ"


def test_merged_table_in_one_number_format_with_clean_headers(much_subs):
    # HRM on the MUCH vignette: 121 columns, each HEM once per subexperiment that read it
    panel = MergePanel(much_subs, method="hrm")
    preview = panel._preview_html.value
    assert "e+0" not in preview and "BLINK_<wbr>REQUEST (2)" in preview
    assert "BLINK_REQUEST.1" not in preview.replace("<wbr>", "")
    first = panel.result.iloc[0]
    shown = re.findall(r'<td class="pw-num">([^<]*)</td>', preview)[: len(first)]
    assert shown[0] == format_numbers(panel.result.iloc[:10, 0])[0]
    assert "," in shown[0] and "." not in shown[0]  # 20,140,400: integers, no exponent
    summary = panel._hrm_html.value
    assert "e+0" not in summary and "24,000" in summary


def test_marginal_key_outside_the_charts_and_ticks_inside_their_axes(much_subs):
    panel = MergePanel(much_subs, seed=3)
    for view in (panel._marg_x, panel._marg_y):
        assert not view.lines.display_legend and not view.pooled.display_legend
        ticks = np.asarray(view.figure.axes[0].tick_values)
        assert view.x.min <= ticks.min() and ticks.max() <= view.x.max and len(ticks) >= 2
        # no tick by the corner, where its label ran into the y axis's "0" (y's 100k did)
        width = view.x.max - view.x.min
        assert ticks.min() - view.x.min >= CORNER_CLEAR * width
    assert "merged runs" in panel._pair_key.value and "pooled readings" in panel._pair_key.value
    # HRM's anchor chart keeps the same corner clear
    hrm = MergePanel(much_subs, method="hrm", seed=3).set_anchor("PROCESSOR_CYCLES")
    chart = hrm._anchor_chart
    ticks = np.asarray(chart.figure.axes[0].tick_values)
    assert len(ticks) >= 2 and chart.x.min <= ticks.min() and ticks.max() <= chart.x.max
    assert ticks.min() - chart.x.min >= CORNER_CLEAR * (chart.x.max - chart.x.min)
    sc = panel._scatter
    for scale, axis in ((sc.x, sc.x_axis), (sc.y, sc.y_axis)):
        ticks = np.asarray(axis.tick_values)
        assert scale.min <= ticks.min() and ticks.max() <= scale.max and len(ticks) >= 2


def test_panel_is_a_view_over_its_study(hrm_subs):
    """The panel shows one MergeStudy (given or made): its result, and its reason as data
    where a merge is not available."""
    study = pm.MergeStudy(hrm_subs)
    panel = MergePanel(study)
    assert panel.study is study and panel.result is None
    why = study.refused
    assert why.what == "MUCH" and len(why.pairs) == 75
    assert html.escape(why.reason) in panel._none.value
    panel.set_anchor("PROCESSOR_CYCLES")
    assert study.result is not None and study.settings.method == "hrm"
    pd.testing.assert_frame_equal(panel.result, study.result)
    target = study.target()
    assert isinstance(target, pm.Unavailable)
    assert panel._target.note == f"not available: {target.reason}"
    # a study merged already is shown with its settings; arguments given change them
    assert MergePanel(study).method == "hrm"
    with pytest.raises(MergeError, match="dep_lvl must be a number in"):
        MergePanel(study, dep_lvl=1.5)


def test_matrix_refuses_a_cell_outside_it_and_a_bad_scale(much_subs):
    panel = MergePanel(much_subs, seed=3)
    m = panel._achieved
    n = len(m.names)
    before = list(m.selected)
    for cell in ([n, 0], [0, -1], [1, 2, 3]):
        with pytest.raises(ShapeError, match="is not \\[row, column\\]"):
            m.selected = cell
        assert m.selected == before
    assert panel.pair == (panel.kept[0], panel.kept[1])  # no pick happened
    for top in (0.0, -1.0, float("nan")):
        with pytest.raises(ShapeError, match="positive number"):
            m.top = top
    assert m.top == 1.0
