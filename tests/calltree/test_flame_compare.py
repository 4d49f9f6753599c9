"""Two calltrees in one flame graph (perfweave.calltree.flame_compare) and its test."""

from __future__ import annotations

import glob

import numpy as np
import pytest
from scipy import stats

import perfweave as pw
from perfweave.calltree.flame import flame_layout
from perfweave.calltree.ranks import rank_cells
from perfweave.ensemble.significance import benjamini_hochberg, welch_pvalues
from perfweave.errors import ShapeError
from tests.calltree.test_flame import assert_nested

DATA = "tests/data"
RAJA = f"{DATA}/thicket/rajaperf"


@pytest.fixture(scope="module")
def quartz():  # 4 runs on CPUs
    return pw.Ensemble.from_files(
        sorted(glob.glob(f"{RAJA}/quartz/gcc10.3.1_1048576/**/*.cali", recursive=True))
    )


@pytest.fixture(scope="module")
def lassen():  # 10 runs on GPUs, block size 128
    files = glob.glob(
        f"{RAJA}/lassen/clang10.0.1_nvcc10.2.89_1048576/**/*block_128.cali", recursive=True
    )
    return pw.Ensemble.from_files(sorted(files))


def test_welch_and_benjamini_hochberg_agree_with_scipy(quartz, lassen):
    layout = flame_layout(quartz, compare=lassen)
    c = layout.comparison
    # the samples the test used, per side, on the union graph
    a = flame_layout(quartz).values.samples
    b = flame_layout(lassen).values.samples
    union, ma, mb = quartz.graph.union(lassen.graph)
    sa = np.zeros((len(union), a.shape[1]))
    sb = np.zeros((len(union), b.shape[1]))
    sa[ma], sb[mb] = a, b
    for node in range(len(union)):
        x, y = sa[node][~np.isnan(sa[node])], sb[node][~np.isnan(sb[node])]
        expected = stats.ttest_ind(x, y, equal_var=False).pvalue
        assert c.p_value[node] == pytest.approx(expected, rel=1e-9, nan_ok=True)
    tested = ~np.isnan(c.p_value)
    np.testing.assert_allclose(c.q_value[tested], stats.false_discovery_control(c.p_value[tested]))
    np.testing.assert_array_equal(c.significant, (c.q_value < 0.05) & (c.value_a != c.value_b))
    assert c.tested and "Welch" in c.test and "Benjamini" in c.test and "q < 0.05" in c.test
    # CPU runs against GPU runs: most kernels differ, and some do not
    assert 0 < c.significant.sum() < len(union)


def test_widths_come_from_the_larger_side_and_nest(quartz, lassen):
    layout = flame_layout(quartz, compare=lassen)
    frames = layout.frames()
    for col in ("value_a", "value_b", "delta", "relative", "p_value", "q_value", "significant"):
        assert col in frames.columns
    np.testing.assert_array_equal(frames["value"], np.maximum(frames["value_a"], frames["value_b"]))
    np.testing.assert_allclose(frames["delta"], frames["value_a"] - frames["value_b"])
    assert (frames["relative"].abs() <= 1).all()
    assert_nested(frames, layout.graph)
    a_only = flame_layout(quartz).values
    union, ma, _ = quartz.graph.union(lassen.graph)
    np.testing.assert_allclose(layout.comparison.value_a[ma], a_only.inclusive)


def test_one_sample_per_side_is_not_tested(quartz):
    single = pw.Ensemble.from_files(
        sorted(glob.glob(f"{RAJA}/quartz/gcc10.3.1_2097152/**/*.cali", recursive=True))
    )
    layout = flame_layout(quartz, compare=single)
    c = layout.comparison
    assert not c.tested and np.isnan(c.p_value).all()
    assert c.test == "one sample per side: no test, colour by Δ alone"
    np.testing.assert_array_equal(c.significant, c.value_a != c.value_b)


def test_multi_rank_frames_are_tested_over_their_ranks():
    a = pw.read(f"{DATA}/hatchet/hpctoolkit-cpi-database")
    b = a.copy()
    b.dataframe = b.dataframe.copy()
    b.dataframe["time (inc)"] = b.dataframe["time (inc)"] * 1.5
    layout = flame_layout(a, compare=b)
    c = layout.comparison
    assert c.tested and c.samples == "ranks" and set(c.n_a) == {4}
    ranks_a = rank_cells(a, ["time (inc)"], "ranks").values["time (inc)"]
    ranks_b = rank_cells(b, ["time (inc)"], "ranks").values["time (inc)"]
    p, _, _ = welch_pvalues(ranks_a, ranks_b)
    np.testing.assert_allclose(c.p_value, p, equal_nan=True)
    np.testing.assert_allclose(c.delta, -0.5 * c.value_a)


def test_benjamini_hochberg_keeps_untested_rows():
    q = benjamini_hochberg(np.array([0.01, np.nan, 0.04, 0.03]))
    assert np.isnan(q[1])
    np.testing.assert_allclose(q[[0, 2, 3]], stats.false_discovery_control([0.01, 0.04, 0.03]))


def test_bad_comparisons(quartz):
    cpi = pw.read(f"{DATA}/hatchet/hpctoolkit-cpi-database")
    with pytest.raises(ShapeError, match="two GraphFrames or two Ensembles"):
        flame_layout(quartz, compare=cpi)
    with pytest.raises(ShapeError, match="alpha"):
        flame_layout(cpi, compare=cpi, alpha=2)
