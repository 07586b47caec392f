"""densing.trend.uncertainty: the slope of ln ρ = A·t + B with fit, score and model-sampling uncertainty, one reference
(the one engine on a one-reference design; several references pooled are tests/trend/test_pooling.py's).

Planted tables put every model on ln ρ = A·t − 1 − u (u ≥ 0) and turn it into a score through a
known composed law: the interval must cover the planted A in most seeds, shrink with more models,
and the shares of the slope variance must be shares (in [0, 1], summing to 1).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from densing.constants import DAYS_PER_MONTH
from densing.errors import FitError, InputError
from densing.laws import forms
from densing.laws.bounds import EXACT
from densing.laws.reference_fit import ReferenceFit
from densing.trend.uncertainty import TrendUncertainty, observed_trend, trend_uncertainty
from studies._planted import frontier_line

SOURCES = ("fit", "score", "models")
ALL_SOURCES = SOURCES + ("reference",)

P = {"a": 400.0, "alpha": 0.3, "b": 400.0, "beta": 0.3, "c": 0.75, "gamma": -1.0, "l": 2.5, "d": 0.25}
SLOPE = 0.004  # planted A per day


def _fit_with_draws(draws: int = 50, spread: float = 0.0, seed: int = 0) -> ReferenceFit:
    rng = np.random.default_rng(seed)
    names = tuple(P)
    boot = [
        [P[k] * (1 + spread * rng.standard_normal()) if k in ("a", "l") else P[k] for k in names] for _ in range(draws)
    ]
    return ReferenceFit(
        kind="composed",
        benchmark="toy",
        metric="acc",
        benchmarks=("toy",),
        params=dict(P),
        stages=(),
        bootstrap=tuple(tuple(r) for r in boot),
        bootstrap_names=names,
        points=(),
        d0=1e12,
        data_hash="planted",
    )


def _models(n: int = 60, stderr: float = 0.01, seed: int = 1, slope: float = SLOPE) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, 700, n))
    params = 10 ** rng.uniform(9, 10.5, n)
    log_rho = slope * t - 1.0 - np.abs(rng.normal(0, 0.8, n))
    loss = forms.loss_law(params * np.exp(log_rho), 1e12, P["a"], P["alpha"], P["b"], P["beta"])
    score = forms.performance_law(loss, P["c"], P["gamma"], P["l"], P["d"])
    return pd.DataFrame(
        {"model": [f"m{i}" for i in range(n)], "params": params, "score": score, "stderr": stderr, "t": t}
    )


def _carry(models, fit=None, **options):
    options = {"d0": 1e12, "rule": "quantile", "n_boot": 200, "n_boot_share": 0, **options}
    return trend_uncertainty(models, fit or _fit_with_draws(), **options)


# --- a line through given points ----------------------------------------------------------------


@pytest.mark.parametrize("rule", ["all", "quantile", "envelope"])
def test_a_rules_line_recovers_a_planted_line(rule):
    rng = np.random.default_rng(0)
    t = np.sort(rng.uniform(0, 600, 80))
    y = SLOPE * t - 1.0 - np.abs(rng.normal(0, 0.5, 80))
    kind, labels = np.full(80, EXACT, float), np.array([f"m{i}" for i in range(80)])
    assert frontier_line(rule, t, y, kind, labels)[0] == pytest.approx(SLOPE, rel=0.25)
    exact = frontier_line(rule, t, SLOPE * t - 1.0, kind, labels)[0]  # every point on the line
    assert exact == pytest.approx(SLOPE, rel=1e-3)
    found = observed_trend(t, y, kind, labels, rule=rule, n_boot=100)  # the engine on the values themselves
    assert found.slope_per_day == frontier_line(rule, t, y, kind, labels)[0]
    assert found.slope_ci_low <= found.slope_per_day <= found.slope_ci_high


def test_a_rules_line_is_nan_on_too_few_points_or_one_date():
    kind, labels = np.full(2, EXACT, float), np.array(["a", "b"])
    assert math.isnan(frontier_line("all", np.array([0.0, 1.0]), np.array([0.0, 1.0]), kind, labels)[0])
    same_day = np.zeros(5)
    assert math.isnan(
        frontier_line("all", same_day, np.arange(5.0), np.full(5, EXACT, float), np.array(list("abcde")))[0]
    )


# --- the interval on planted data ----------------------------------------------------------------


def test_the_interval_covers_the_planted_slope_in_most_seeds():
    covered = []
    for seed in range(10):
        result = _carry(_models(n=60, seed=seed), seed=seed)
        assert result.slope_ci_low <= result.slope_per_day <= result.slope_ci_high
        covered.append(result.slope_ci_low <= SLOPE <= result.slope_ci_high)
    assert sum(covered) >= 7, covered  # nominal 0.95


def test_the_interval_shrinks_with_more_models():
    def width(n):
        results = [_carry(_models(n=n, seed=seed), seed=seed, n_boot=150) for seed in range(3)]
        return np.mean([r.slope_ci_high - r.slope_ci_low for r in results])

    few, many = width(30), width(240)
    assert many < 0.6 * few  # about 1/√8 ≈ 0.35 of it


def test_the_interval_is_the_percentile_interval_of_the_draws_and_the_months_are_ln2_over_a():
    result = _carry(_models(), level=0.8, n_boot=300)
    ok = result.draws[np.isfinite(result.draws)]
    # 300 draws asked; a judged trend grows them while an end is undecided or imprecise (the draws used: n_boot)
    assert (
        result.n_boot >= 300
        and result.draws.shape == (result.n_boot,)
        and result.failed_draws == result.n_boot - ok.size
    )
    assert result.slope_ci_low == pytest.approx(np.quantile(ok, 0.1))
    assert result.slope_ci_high == pytest.approx(np.quantile(ok, 0.9))
    assert result.slope_sd_all == pytest.approx(np.std(ok))
    assert result.doubling_time_months == pytest.approx(math.log(2) / result.slope_per_day / DAYS_PER_MONTH)
    # A's interval maps through ln 2 / A, its ends swapped
    assert result.doubling_time_months_ci_low == pytest.approx(math.log(2) / result.slope_ci_high / DAYS_PER_MONTH)
    assert result.doubling_time_months_ci_high == pytest.approx(math.log(2) / result.slope_ci_low / DAYS_PER_MONTH)
    wider = _carry(_models(), level=0.98, n_boot=300)
    assert wider.slope_ci_low < result.slope_ci_low and wider.slope_ci_high > result.slope_ci_high


def test_a_seed_gives_the_same_draws_and_another_seed_others():
    models = _models(stderr=0.01)
    fit = _fit_with_draws(spread=0.05)
    one, again, other = (_carry(models, fit, seed=s, n_boot=50) for s in (4, 4, 5))
    np.testing.assert_array_equal(one.draws, again.draws)
    assert not np.array_equal(one.draws, other.draws)
    assert one.slope_per_day == other.slope_per_day  # the point line draws nothing


def test_the_counts_and_the_frontier_points():
    models = _models(n=40)
    models.loc[0, "score"] = 0.2  # below the floor: an upper bound (σ known)
    result = _carry(models, n_boot=20)
    assert result.n_models == 40 == len(result.models)
    assert result.n_exact + result.n_lower_bounds + result.n_upper_bounds + result.n_dropped == 40
    assert result.n_upper_bounds >= 1
    assert len(result.frontier_models) == result.n_exact + result.n_lower_bounds + result.n_upper_bounds
    assert math.isnan(result.r_squared)  # the censored rules have no OLS R²
    envelope = _carry(models, rule="envelope", n_boot=20)
    assert 0 < len(envelope.frontier_models) < 40 and 0 < envelope.r_squared <= 1


# --- the shares ----------------------------------------------------------------------------------


def test_each_source_counts_and_a_silent_source_gets_no_share():
    models = _models(stderr=0.0)
    result = trend_uncertainty(
        models, _fit_with_draws(spread=0.0), d0=1e12, rule="quantile", n_boot=200, n_boot_share=100
    )
    assert result.share_score == pytest.approx(0.0) and result.share_fit == pytest.approx(0.0)
    assert result.share_models == pytest.approx(1.0)
    noisy = trend_uncertainty(
        _models(stderr=0.01), _fit_with_draws(spread=0.05), d0=1e12, rule="quantile", n_boot=200, n_boot_share=100
    )
    assert noisy.share_score > 0 and noisy.share_fit > 0
    assert noisy.share_fit + noisy.share_score + noisy.share_models == pytest.approx(1.0)
    assert noisy.slope_ci_low < noisy.slope_per_day < noisy.slope_ci_high


@pytest.mark.parametrize("stderr, spread, seed", [(0.0, 0.1, 0), (0.03, 0.0, 1), (0.01, 0.05, 2), (0.05, 0.2, 3)])
def test_the_shares_are_shares_of_the_summed_variance(stderr, spread, seed):
    result = _carry(
        _models(stderr=stderr, seed=seed),
        _fit_with_draws(spread=spread, seed=seed),
        n_boot=50,
        n_boot_share=60,
        seed=seed,
    )
    shares = [getattr(result, f"share_{s}") for s in ALL_SOURCES]
    assert all(0.0 <= s <= 1.0 for s in shares)
    assert sum(shares) == pytest.approx(1.0)
    assert result.share_reference == 0.0 and result.slope_sd_reference == 0.0  # one reference
    sds = np.array([getattr(result, f"slope_sd_{s}") for s in SOURCES])
    np.testing.assert_allclose([getattr(result, f"share_{s}") for s in SOURCES], sds**2 / np.sum(sds**2))
    if stderr == 0:
        assert result.share_score == pytest.approx(0.0, abs=1e-12)
    if spread == 0:
        assert result.share_fit == pytest.approx(0.0, abs=1e-12)


def test_no_share_draws_give_nan_shares_not_made_up_ones():
    result = _carry(_models(), n_boot_share=0)
    for s in ALL_SOURCES:
        assert math.isnan(getattr(result, f"share_{s}")) and math.isnan(getattr(result, f"slope_sd_{s}"))
    assert math.isfinite(result.slope_ci_low) and math.isfinite(result.slope_ci_high)


# --- input the engine refuses -----------------------------------------------------------------


def test_bad_options_and_inputs_name_the_field():
    models = _models()
    with pytest.raises(InputError, match="level"):
        _carry(models, level=1.0)
    with pytest.raises(InputError, match="n_boot"):
        _carry(models, n_boot=0)
    with pytest.raises(InputError, match="n_boot"):
        _carry(models, n_boot_share=-1)
    with pytest.raises(InputError):
        _carry(models, rule="hull")
    with pytest.raises(InputError, match="no scores for toy"):
        _carry(models.drop(columns=["score"]))
    bare = dataclasses.replace(_fit_with_draws(), bootstrap=(), bootstrap_names=())
    with pytest.raises(FitError, match="no bootstrap draws"):
        _carry(models, bare)
    with pytest.raises(FitError, match="fewer than 3 usable models"):
        _carry(models.head(2))


def test_plain_score_columns_are_the_benchmarks_columns():
    models = _models(stderr=0.01)
    plain = _carry(models, n_boot=40, seed=1)
    named = _carry(models.rename(columns={"score": "score:toy", "stderr": "stderr:toy"}), n_boot=40, seed=1)
    np.testing.assert_array_equal(plain.draws, named.draws)
    no_stderr = _carry(models.drop(columns=["stderr"]), n_boot=40, seed=1)  # σ unknown: no score noise
    assert no_stderr.slope_per_day == plain.slope_per_day


# --- the result's line -----------------------------------------------------------------------


def _line(**fields) -> TrendUncertainty:
    base = _carry(_models(n=20), n_boot=5)
    values = {
        "slope_per_day": 0.01,
        "intercept": 1.0,
        "slope_ci_low": 0.005,
        "slope_ci_high": 0.02,
        "centre_days": 100.0,
        "epoch": "2023-02-24",
        **fields,
    }
    return dataclasses.replace(base, **values)


def test_predict_and_confidence_band_by_hand():
    line = _line()
    epoch = pd.Timestamp("2023-02-24")
    dates = [epoch, epoch + pd.Timedelta(days=100), epoch + pd.Timedelta(days=300)]
    np.testing.assert_allclose(line.predict(dates), [1.0, 2.0, 4.0])
    low, high = line.confidence_band(dates)
    # lines through (centre, A·centre + B) = (100, 2) with slopes 0.005 and 0.02
    np.testing.assert_allclose(low, [2 - 0.02 * 100, 2.0, 2 + 0.005 * 200])
    np.testing.assert_allclose(high, [2 - 0.005 * 100, 2.0, 2 + 0.02 * 200])
    one_end = _line(slope_ci_high=math.inf)
    np.testing.assert_allclose(one_end.confidence_band(dates)[0], one_end.confidence_band(dates)[1])
    neither = _line(slope_ci_low=math.nan, slope_ci_high=math.nan)
    low, high = neither.confidence_band(dates)
    np.testing.assert_allclose(low, neither.predict(dates)) and np.testing.assert_allclose(high, low)


def test_the_text_and_the_dict_leave_the_bulk_out():
    result = _carry(_models(), n_boot=30)
    text = repr(result)
    from densing.present.words import state_words

    assert (
        text.startswith(f"TrendUncertainty(quantile, {state_words(result.state)}: doubling time") and "\n" not in text
    )
    assert f"{result.n_models} models, 1 reference)" in text and result.state is not None
    record = result.to_dict()
    assert "draws" not in record and "models" not in record and "epoch" not in record
    assert record["n_boot"] == result.n_boot >= 30 and record["slope_per_day"] == result.slope_per_day
    assert result.reference_months == {result.reference_names[0]: pytest.approx(result.doubling_time_months)}
