from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from perfweave.errors import MergeError
from perfweave.merge import (
    MuchMerger,
    correlation_matrix,
    independent_matrix,
    much_merge,
    mvg_params,
    simulate_and_merge,
)
from perfweave.merge.much import SIM_BLOCK


@pytest.fixture(scope="module")
def target(much_subs):
    return independent_matrix(correlation_matrix(much_subs), 0.85)


@pytest.fixture(scope="module")
def params(much_subs, target):
    return mvg_params(much_subs, target)


def test_params_pool_trimmed_readings(much_subs, target, params):
    assert params.hems == list(target.columns)
    for hem in params.hems:
        chunks = []
        for sub in much_subs:
            if hem in sub.columns:
                x = sub[hem].to_numpy(float)
                m = (x - x.mean()) ** 2
                chunks.append(x[(m - m.mean()) / m.std(ddof=1) < 3])
        pooled = np.concatenate(chunks)
        np.testing.assert_array_equal(params.values[hem], pooled)
        assert params.means[hem] == pytest.approx(pooled.mean())
        assert params.sds[hem] == pytest.approx(pooled.std(ddof=1))
    sd = params.sds.to_numpy()
    np.testing.assert_allclose(params.sigma.to_numpy(), np.outer(sd, sd) * target.to_numpy())


def test_simulate_and_merge_result(params, target):
    result = simulate_and_merge(params, n_runs=500, n_sims=40, cor=target, seed=11)
    merged = result.merged
    assert merged.shape == (500, len(target)) and list(merged.columns) == params.hems
    assert len(result.scores) == 40 and result.chosen == int(np.argmin(result.scores))
    for hem in params.hems:  # every merged value is a real reading of that HEM
        assert np.isin(merged[hem].to_numpy(), params.values[hem]).all()
        assert merged[hem].dtype == params.values[hem].dtype
    # the recorded score of the chosen simulation is the error of the returned table
    achieved = np.corrcoef(merged.to_numpy(float), rowvar=False)
    mse = ((achieved - target.to_numpy()) ** 2).mean()
    assert result.scores[result.chosen] == pytest.approx(mse, rel=1e-9, abs=1e-15)
    np.testing.assert_allclose(result.achieved.to_numpy(), achieved)
    assert np.abs(achieved - target.to_numpy()).max() < 0.15


def test_seeded_runs_repeat_and_more_sims_extend_fewer(params, target):
    a = simulate_and_merge(params, 300, 2 * SIM_BLOCK + 3, target, seed=3)
    b = simulate_and_merge(params, 300, 2 * SIM_BLOCK + 3, target, seed=3)
    pd.testing.assert_frame_equal(a.merged, b.merged)
    c = simulate_and_merge(params, 300, 5 * SIM_BLOCK, target, seed=3)
    np.testing.assert_array_equal(c.scores[: len(a.scores)], a.scores)
    assert c.scores.min() <= a.scores.min()
    d = simulate_and_merge(params, 300, 2 * SIM_BLOCK + 3, target, seed=4)
    assert not np.array_equal(a.scores, d.scores)


def test_best_of_many_beats_typical_simulation(params, target):
    result = simulate_and_merge(params, 1000, 100, target, seed=0)
    assert result.scores[result.chosen] < np.median(result.scores)


def test_much_merge_chain_and_inputs_untouched(much_subs):
    before = [s.copy() for s in much_subs]
    result = much_merge(much_subs, n_runs=400, n_sims=20, dep_lvl=0.85, seed=1)
    assert result.merged.shape[0] == 400
    assert set(result.dropped) | set(result.merged.columns) == set(much_subs.hems)
    assert "L2_DEMAND_ACCESSES" in result.dropped
    for a, b in zip(before, much_subs, strict=True):
        pd.testing.assert_frame_equal(a, b)
    again = much_merge(much_subs, n_runs=400, n_sims=20, dep_lvl=0.85, seed=1)
    pd.testing.assert_frame_equal(result.merged, again.merged)


def test_cache_recomputes_only_what_changed(much_subs):
    merger = MuchMerger(much_subs, seed=7)
    first = merger.merge(n_runs=300, n_sims=SIM_BLOCK * 2, dep_lvl=0.85)
    assert merger.computed["correlation"] == 1 and merger.computed["pooled"] == 1
    boots = merger.computed["bootstrap"]
    assert boots == first.merged.shape[1]

    more = merger.merge(n_runs=300, n_sims=SIM_BLOCK * 3, dep_lvl=0.85)
    assert merger.computed["simulation_blocks"] == 3  # only the new block
    assert merger.computed["bootstrap"] == boots and merger.computed["independent"] == 1
    np.testing.assert_array_equal(more.scores[: SIM_BLOCK * 2], first.scores)

    fewer = merger.merge(n_runs=300, n_sims=5, dep_lvl=0.85)
    assert merger.computed["simulation_blocks"] == 3
    np.testing.assert_array_equal(fewer.scores, first.scores[:5])

    looser = merger.merge(n_runs=300, n_sims=SIM_BLOCK, dep_lvl=0.5)
    assert merger.computed["correlation"] == 1 and merger.computed["pooled"] == 1
    assert merger.computed["independent"] == 2
    kept_before = set(first.merged.columns) & set(looser.merged.columns)
    # HEMs kept at both levels reuse their bootstrap readings
    assert merger.computed["bootstrap"] == boots + len(set(looser.merged.columns) - kept_before)
    for hem in kept_before:
        np.testing.assert_array_equal(
            np.sort(looser.merged[hem].to_numpy()), np.sort(first.merged[hem].to_numpy())
        )


def test_much_merge_module_cache_tracks_content(much_subs):
    from perfweave.merge import much as much_module

    much_merge(much_subs, n_runs=200, n_sims=SIM_BLOCK, dep_lvl=0.85, seed=2)
    merger = next(reversed(much_module._MERGERS.values()))
    calls = merger.computed["correlation"]
    much_merge(much_subs, n_runs=200, n_sims=SIM_BLOCK, dep_lvl=0.6, seed=2)
    assert next(reversed(much_module._MERGERS.values())) is merger
    assert merger.computed["correlation"] == calls
    changed = [s.copy() for s in much_subs]
    changed[0].iloc[0, 0] += 1
    much_merge(changed, n_runs=200, n_sims=SIM_BLOCK, dep_lvl=0.85, seed=2)
    assert next(reversed(much_module._MERGERS.values())) is not merger


def test_not_positive_definite_at_dep_lvl_one(much_subs):
    with pytest.raises(MergeError, match=r"not positive definite.*drop HEM\(s\).*use dep_lvl="):
        much_merge(much_subs, n_runs=100, n_sims=4, dep_lvl=1.0, seed=0)


def test_bad_arguments(much_subs, params, target):
    with pytest.raises(MergeError, match="n_sims"):
        much_merge(much_subs, n_runs=100, n_sims=0)
    with pytest.raises(MergeError, match="n_runs"):
        simulate_and_merge(params, 1, 5, target)
    with pytest.raises(MergeError, match="seed"):
        simulate_and_merge(params, 10, 5, target, seed=-1)


def test_synthetic_truth_recovered_better_than_independent_shuffle():
    rng = np.random.default_rng(0)
    n = 2000
    cov = np.array([[1, 0.7, 0.3], [0.7, 1, -0.4], [0.3, -0.4, 1]])
    z = rng.multivariate_normal(np.zeros(3), cov, size=2 * n)
    data = np.exp(z)  # skewed marginals, Gaussian copula
    names = ["A", "B", "C"]
    subs = [
        pd.DataFrame(data[:n, [0, 1]], columns=["A", "B"]),
        pd.DataFrame(data[n:, [1, 2]], columns=["B", "C"]),
        pd.DataFrame(data[:n, [0, 2]], columns=["A", "C"]),
    ]
    result = much_merge(subs, n_runs=1000, n_sims=64, dep_lvl=0.95, seed=5)
    truth = pd.DataFrame(data, columns=names).corr().to_numpy()
    achieved = result.achieved.loc[names, names].to_numpy()
    assert np.abs(achieved - truth).max() < 0.1


def test_merger_params_and_absolute_option():
    rng = np.random.default_rng(1)
    x = rng.gamma(2.0, 1.0, 600)
    noise = rng.normal(0, 0.2, 600)
    # B is a strong negative copy of A: only the absolute rule drops it
    a = pd.DataFrame({"A": x[:300], "B": -x[:300] + noise[:300]})
    c = pd.DataFrame({"A": x[300:], "C": rng.normal(0, 1, 300)})
    d = pd.DataFrame({"B": -x[300:] + noise[300:], "C": rng.normal(0, 1, 300)})
    merger = MuchMerger([a, c, d], seed=0)
    signed = merger.merge(n_runs=200, n_sims=SIM_BLOCK, dep_lvl=0.8)
    absolute = merger.merge(n_runs=200, n_sims=SIM_BLOCK, dep_lvl=0.8, absolute=True)
    assert list(signed.merged.columns) == ["A", "B", "C"]
    assert list(absolute.merged.columns) == ["A", "C"] and absolute.dropped == ("B",)
    assert signed.achieved.loc["A", "B"] < -0.8  # the copula keeps the strong negative link
    params = merger.params(0.8, absolute=True)
    assert params.hems == ["A", "C"] and len(params.values["A"]) <= 600
