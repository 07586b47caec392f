"""The envelope rule on hand examples, and the §4 corollaries (cost halving time, compression) on planted data.

The doubling time itself (densing.fit_trend, the one uncertainty engine) is tested in test_doubling.py.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from planted_families import envelope_models

from densing.errors import InputError
from densing.present.words import compression_frame, excluded_reasons
from densing.states import LeftOut
from densing.trend import compression_density, cost_halving_time
from densing.trend.rules import RULES

EPOCH = pd.Timestamp("2023-02-24")
LN2 = math.log(2.0)


# --- envelope selection --------------------------------------------------------------------


def test_envelope_hand_example():
    frame = pd.DataFrame(
        [
            ("a-first", "2023-01-01", 1.0),  # first date: always on
            ("b-lower", "2023-02-01", 0.5),  # below the record
            ("c-record", "2023-03-01", 2.0),  # new record
            ("d-tie-z", "2023-04-01", 3.0),  # same date, same density as d-tie-a: loses on name
            ("d-tie-a", "2023-04-01", 3.0),  # best of its date, alphabetically first
            ("e-weak", "2023-04-01", 2.5),  # same date, not the best of it
            ("f-equal", "2023-05-01", 3.0),  # equals the record: not strictly greater, off
            ("g-dense-early", "2022-06-01", 4.0),  # densest early model: record from the start
            ("h-beat", "2023-06-01", 4.5),  # beats everything before
        ],
        columns=["model", "release_date", "density"],
    )
    assert envelope_models(frame) == ("g-dense-early", "h-beat")
    assert envelope_models(frame[frame.model != "g-dense-early"]) == ("a-first", "c-record", "d-tie-a", "h-beat")


def test_envelope_frontier_is_increasing_and_never_beaten_earlier():
    rng = np.random.default_rng(7)
    days = np.sort(rng.uniform(-300, 500, 120))
    planted = pd.DataFrame(
        {
            "model": [f"model-{i:03d}" for i in range(120)],
            "release_date": EPOCH + pd.to_timedelta(days, unit="D"),
            "density": np.exp(LN2 / 100 * days - 1.0 - rng.exponential(0.2, 120)),
        }
    )
    points = planted.set_index("model").loc[list(envelope_models(planted))].reset_index()
    assert points["release_date"].is_monotonic_increasing
    assert points["density"].is_monotonic_increasing
    for _, row in points.iterrows():
        earlier = planted[pd.to_datetime(planted.release_date) < row.release_date]
        assert (earlier.density < row.density).all()


# --- corollaries ---------------------------------------------------------------------------


def test_cost_halving_time_planted():
    rng = np.random.default_rng(5)
    n = 80
    days = np.sort(rng.uniform(0, 700, n))
    halving_days = 80.0
    log_price = np.log(20.0) - LN2 / halving_days * days + rng.exponential(0.2, n)
    prices = pd.DataFrame(
        {
            "date": EPOCH + pd.to_timedelta(days, unit="D"),
            "price_per_million_tokens": np.exp(log_price),
            "model": ["gpt-3.5-level"] * n,
        }
    )
    prices.loc[3, "price_per_million_tokens"] = 0.0
    for frontier in RULES.names():
        fit = cost_halving_time(prices, frontier=frontier, n_boot=100)
        assert fit.slope_per_day < 0
        assert fit.halving_time_days == pytest.approx(halving_days, rel=0.07)
        assert fit.halving_time_days_ci_low <= fit.halving_time_days <= fit.halving_time_days_ci_high
        assert fit.halving_time_days_ci_high - fit.halving_time_days_ci_low < 0.2 * halving_days
        assert len(fit.excluded) == 1 and fit.excluded["reason"].iloc[0] == LeftOut.NON_POSITIVE
        assert excluded_reasons(fit.excluded) == ["non-positive price_per_million_tokens (0.0)"]  # present/'s words
        json.dumps(fit.to_dict(), allow_nan=False)
    envelope = cost_halving_time(prices, frontier="envelope", n_boot=40)
    chosen = prices.drop(index=3).reset_index(drop=True)
    running_min = chosen["price_per_million_tokens"].cummin()
    is_record = chosen["price_per_million_tokens"] < running_min.shift(fill_value=np.inf)
    assert envelope.n_points == int(is_record.sum())
    assert envelope.intercept == pytest.approx(np.log(20.0), abs=0.3)


def test_compression_density_pairs():
    densities = pd.DataFrame(
        {
            "model": ["parent", "pruned", "distilled", "censored-child"],
            "density": [1.0, 0.6, 1.5, float("nan")],
            "censored": ["", "", "", "no finite N̂"],
        }
    )
    pairs = pd.DataFrame(
        {
            "compressed_model": ["pruned", "distilled", "censored-child", "ghost"],
            "parent_model": ["parent"] * 4,
            "method": ["pruning", "distillation", "quantisation", "pruning"],
        }
    )
    out = compression_density(pairs, densities)
    assert list(out["density_ratio"].iloc[:2]) == pytest.approx([0.6, 1.5])
    assert list(out["density_increased"].iloc[:2]) == [False, True]
    assert pd.isna(out.loc[2, "density_increased"]) and out.loc[2, "compressed_left_out"] == (
        LeftOut.CENSORED,
        "no finite N̂",
    )
    assert out.loc[3, "compressed_left_out"] == (LeftOut.ABSENT, None) and out.loc[0, "parent_left_out"] is None
    said = compression_frame(out)  # the words are present/'s
    assert "compressed_left_out" not in said.columns and said.loc[0, "note"] is None
    assert said.loc[2, "note"] == "no density for compressed model 'censored-child' (censored: no finite N̂)"
    assert said.loc[3, "note"] == "no density for compressed model 'ghost'"
    with pytest.raises(InputError, match="method"):
        compression_density(pairs.drop(columns="method"), densities)


def test_the_quantile_rule_without_bounds_is_statsmodels_quantreg():
    """With no bound the censored quantile line is Koenker–Bassett's regression quantile: statsmodels' QuantReg."""
    import statsmodels.api as sm

    from studies._planted import frontier_line

    rng = np.random.default_rng(7)
    for q in (0.5, 0.9):
        t = rng.uniform(-2, 2, 90)
        y = 0.8 * t + rng.standard_t(3, 90)
        reference = sm.QuantReg(y, sm.add_constant(t)).fit(q=q, max_iter=5000, p_tol=1e-10).params[1]
        labels = np.array([f"m{i}" for i in range(t.size)])
        assert frontier_line("quantile", t, y, np.zeros(t.size), labels, q)[0] == pytest.approx(reference, abs=1e-4)
