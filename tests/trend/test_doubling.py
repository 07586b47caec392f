"""densing.fit_trend: the one uncertainty engine from a score table, on planted laws, hand examples and bad input.

The planted tables put every model's density on ln ρ = A·t + B − u (u ≥ 0, a frontier line with
models below it), turn each density into a score through a known composed law at D0, and give that
law as the reference (its bootstrap draws all equal, scores without noise): the only uncertainty
left is the sampling of models, and every frontier rule estimates the same A.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import densing
from densing.errors import FitError, InputError
from densing.laws import forms
from densing.laws.reference_fit import ReferenceFit
from densing.trend.rules import RULES
from tests.trend.planted_families import envelope_models

EPOCH = pd.Timestamp("2023-02-24")
LN2 = math.log(2.0)
D0 = 1e12
P = {"a": 400.0, "alpha": 0.3, "b": 400.0, "beta": 0.3, "c": 0.75, "gamma": -1.0, "l": 2.5, "d": 0.25}


def planted_law(draws: int = 20) -> ReferenceFit:
    names = tuple(P)
    return ReferenceFit(
        kind="composed",
        benchmark="toy",
        metric="acc",
        benchmarks=("toy",),
        params=dict(P),
        stages=(),
        bootstrap=tuple(tuple(P.values()) for _ in range(draws)),
        bootstrap_names=names,
        points=(),
        d0=D0,
        data_hash="planted",
    )


def planted_scores(
    *,
    n: int = 120,
    doubling_days: float = 100.0,
    gap_scale: float = 0.2,
    seed: int = 7,
    start_day: float = -300.0,
    end_day: float = 500.0,
    log_density=None,
) -> pd.DataFrame:
    """A tidy score table whose densities under :func:`planted_law` are ln ρ = ln 2/doubling_days · t − 1 − u."""
    rng = np.random.default_rng(seed)
    days = np.sort(rng.uniform(start_day, end_day, n))
    params = 10 ** rng.uniform(9, 10, n)
    if log_density is None:
        log_density = LN2 / doubling_days * days - 1.0 - rng.exponential(gap_scale, n)
    loss = forms.loss_law(params * np.exp(log_density), D0, P["a"], P["alpha"], P["b"], P["beta"])
    return pd.DataFrame(
        {
            "model": [f"model-{i:03d}" for i in range(n)],
            "benchmark": "toy",
            "metric": "acc",
            "value": forms.performance_law(loss, P["c"], P["gamma"], P["l"], P["d"]),
            "stderr": 0.0,
            "params": params,
            "release_date": EPOCH + pd.to_timedelta(days, unit="D"),
            "density": np.exp(log_density),
        }
    )


@pytest.fixture(scope="module")
def planted() -> pd.DataFrame:
    return planted_scores()


def fit(table, rule="quantile", **options):
    options = {"n_boot": 200, "n_boot_share": 0, "since": None, "seed": 1, **options}
    return densing.fit_trend(table, planted_law(), rule=rule, **options)


# --- planted-slope recovery ----------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES.names())
def test_planted_doubling_time_is_recovered(planted, rule):
    result = fit(planted, rule)
    assert result.rule == rule and result.n_exact == len(planted) == result.n_models
    assert result.slope_per_day == pytest.approx(LN2 / 100.0, rel=0.05)
    assert result.doubling_time_months * densing.trend.DAYS_PER_MONTH == pytest.approx(100.0, rel=0.05)
    # the interval is ordered, brackets the estimate and covers the planted truth; only the models were drawn
    assert result.doubling_time_months_ci_low <= result.doubling_time_months <= result.doubling_time_months_ci_high
    assert result.slope_ci_low <= LN2 / 100.0 <= result.slope_ci_high
    assert result.failed_draws == 0
    if rule == "envelope":
        assert len(result.frontier_models) < len(planted) and result.r_squared > 0.5
        assert result.frontier_models == envelope_models(planted)
    else:
        assert len(result.frontier_models) == len(planted) and math.isnan(result.r_squared)


def test_planted_intercept_and_predict(planted):
    result = fit(planted, "all", n_boot=40)
    # the mean of −u is −gap_scale, so the mean line sits at B = −1 − 0.2
    assert result.intercept == pytest.approx(-1.2, abs=0.1)
    assert result.predict([EPOCH])[0] == pytest.approx(result.intercept)
    later = result.predict(["2023-02-24", EPOCH + pd.Timedelta(days=100)])
    assert later[1] - later[0] == pytest.approx(100 * result.slope_per_day)


def test_upper_frontiers_sit_above_the_mean_line(planted):
    lines = {rule: fit(planted, rule, n_boot=40) for rule in RULES.names()}
    assert lines["quantile"].intercept > lines["all"].intercept
    assert lines["envelope"].intercept > lines["all"].intercept


def test_flat_trend_has_an_unbounded_interval_written_as_null():
    rng = np.random.default_rng(0)
    flat = planted_scores(n=40, start_day=0, end_day=400, log_density=rng.normal(0.0, 0.5, 40), seed=0)
    result = fit(flat, "all", n_boot=300)
    assert result.slope_ci_low <= 0.0 < result.slope_ci_high
    assert result.doubling_time_months_ci_high == math.inf
    record = result.to_dict()
    assert record["doubling_time_months_ci_high"] is None
    json.dumps(record, allow_nan=False)


@pytest.mark.parametrize("rule", RULES.names())
@pytest.mark.parametrize("shift", [-1500, 45, 1000])  # an epoch inside the date domain (2018-06-11 to today)
def test_the_epoch_moves_the_intercept_only(rule, shift):
    table = planted_scores(n=40, seed=11)
    base = fit(table, rule, n_boot=40, seed=3)
    epoch = (EPOCH + pd.Timedelta(days=shift)).strftime("%Y-%m-%d")
    other = fit(table, rule, n_boot=40, seed=3, epoch=epoch)
    for name in ("slope_per_day", "slope_ci_low", "slope_ci_high", "doubling_time_months"):
        assert getattr(other, name) == pytest.approx(getattr(base, name), rel=1e-9), name
    assert other.frontier_models == base.frontier_models
    # B' = B + A·(epoch' − epoch), and the line over dates does not move
    assert other.intercept == pytest.approx(base.intercept + base.slope_per_day * shift, rel=1e-9, abs=1e-9)
    dates = ["2022-01-01", "2024-06-30"]
    np.testing.assert_allclose(other.predict(dates), base.predict(dates), rtol=1e-9, atol=1e-9)


def test_confidence_band_brackets_the_line_and_widens_away_from_the_centre():
    result = fit(planted_scores(n=60, seed=11, start_day=0, end_day=600), "all", n_boot=200)
    dates = pd.date_range("2023-03-01", "2024-09-01", periods=20)
    low, high = result.confidence_band(dates)
    line = result.predict(dates)
    assert np.all(low <= line + 1e-12) and np.all(line <= high + 1e-12)
    width = high - low
    assert width[0] > width[len(width) // 2] < width[-1]


def test_since_leaves_earlier_models_out(planted):
    result = fit(planted, "all", n_boot=40, since="2023-02-24")
    assert result.n_models == int((planted["release_date"] >= EPOCH).sum())


# --- bad input -------------------------------------------------------------------------------


def test_a_density_table_is_an_input_error_that_says_what_to_pass(planted):
    with pytest.raises(InputError, match="no scores to redraw"):
        densing.fit_trend(planted[["model", "release_date", "density"]], planted_law())
    with pytest.raises(InputError, match="DataFrame"):
        densing.fit_trend([1, 2, 3])


@pytest.mark.parametrize(
    "options, field",
    [
        ({"rule": "hull"}, "frontier"),
        ({"quantile": 0.0}, "quantile"),
        ({"epoch": "not a date"}, "epoch"),
        ({"n_boot": 0}, "n_boot"),
        ({"level": 1.5}, "level"),
    ],
)
def test_bad_options_name_the_field(planted, options, field):
    with pytest.raises(InputError, match=field):
        fit(planted, **options)


def test_bad_references_are_input_errors(planted):
    with pytest.raises(InputError, match="reference"):
        densing.fit_trend(planted, 42)
    with pytest.raises(InputError, match="reference"):
        densing.fit_trend(planted, ["not a fit"])
    with pytest.raises(InputError, match="benchmarks"):
        densing.fit_trend(planted, planted_law(), benchmarks=("toy",))


def test_too_few_models_is_a_fit_error(planted):
    with pytest.raises(FitError, match="fewer than 3"):
        fit(planted.head(2), "all")
