"""densing.trend.fixed_size: the fixed-size time regression recovers a planted doubling time within its interval."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import densing.present as present
from densing.errors import InputError
from densing.states import State
from densing.trend.fixed_size import fixed_size_trend, score_rows

EPOCH = pd.Timestamp("2023-02-24")


def planted_table(
    months: float,
    *,
    seed: int = 0,
    families: int = 30,
    slope_log_params: float = 0.7,
    benchmarks: dict[str, tuple[float, float]] | None = None,
) -> pd.DataFrame:
    """Scores S = d + (1 − d)·σ(z), z = β₀ + β_N·ln N + β_t·t + family effect + noise, β_t = 12·ln 2·β_N / months
    per year: a table whose doubling time is ``months``; ``benchmarks``: name → (chance d, intercept β₀), MMLU alone
    unless given."""
    if benchmarks is None:
        benchmarks = {"mmlu": (0.25, -14.0)}
    rng = np.random.default_rng(seed)
    rate = 12 * math.log(2) * slope_log_params / months
    rows = []
    for f in range(families):
        released = rng.uniform(0, 2.5)
        family_effect = rng.normal(0, 0.3)
        for size in rng.choice([0.5e9, 1e9, 3e9, 7e9, 14e9, 30e9, 70e9], size=3, replace=False):
            for benchmark, (chance, intercept) in benchmarks.items():
                z = intercept + slope_log_params * math.log(size) + rate * released + family_effect + rng.normal(0, 0.2)
                rows.append(
                    {
                        "model": f"f{f}-{size:.0f}",
                        "family": f"F{f}",
                        "benchmark": benchmark,
                        "metric": "acc",
                        "value": chance + (1 - chance) / (1 + math.exp(-z)),
                        "params": float(size),
                        "release_date": EPOCH + pd.Timedelta(days=round(released * 365.25)),
                    }
                )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("months", [3.0, 8.0])
def test_a_planted_doubling_time_is_recovered_within_both_intervals(months):
    found = fixed_size_trend(planted_table(months), "mmlu", n_boot=400)
    assert found.state is State.MEASURED and present.status(found) == "measured"
    assert found.doubling_time_months_ci_low < months < found.doubling_time_months_ci_high
    assert found.delta_doubling_time_months_ci_low < months < found.delta_doubling_time_months_ci_high
    assert found.slope_log_params_ci_low < 0.7 < found.slope_log_params_ci_high
    assert abs(found.doubling_time_months / months - 1) < 0.25
    assert "doubling_time_months" in found.conf_int().index and "delta_doubling_time_months" in found.conf_int().index


def test_a_set_pools_benchmarks_of_different_levels_and_chance_with_common_slopes():
    table = planted_table(4.0, benchmarks={"mmlu": (0.25, -14.0), "gsm8k": (0.0, -17.0)}, seed=3)
    found = fixed_size_trend(table, ("mmlu", "gsm8k"), row="planted set", n_boot=300)
    assert found.row == "planted set" and found.benchmarks == ("mmlu", "gsm8k") and found.n_scores == 180
    assert found.doubling_time_months_ci_low < 4.0 < found.doubling_time_months_ci_high


def test_no_time_trend_is_not_measured_with_an_unbounded_interval():
    table = planted_table(-30.0, seed=5)  # β_t < 0: the score falls with the date
    found = fixed_size_trend(table, "mmlu", n_boot=300)
    assert found.state is State.NOT_MEASURED and present.status(found).startswith(
        "not measured: the score does not rise"
    )
    assert found.doubling_time_months_ci_high == math.inf


@pytest.mark.parametrize("seed", range(6))
def test_a_rising_fit_whose_interval_reaches_a_zero_rate_is_bounded_by_the_one_state_rule(seed):
    found = fixed_size_trend(planted_table(1e9, seed=seed), "mmlu", n_boot=300)  # β_t ≈ 0: either sign
    assert found.doubling_time_months_ci_high == math.inf
    if found.slope_per_year > 0:  # one end determined, as a trend row with one end determined
        assert found.state is State.BOUNDED and present.status(found) == "bounded"
        assert 0 < found.doubling_time_months_ci_low < math.inf
    else:
        assert found.state is State.NOT_MEASURED and present.status(found).startswith("not measured")


def test_scores_at_chance_or_perfect_are_dropped_and_counted():
    table = planted_table(3.0)
    table.loc[0, "value"] = 0.20  # below MMLU's chance 0.25
    table.loc[1, "value"] = 1.0
    rows, floor, ceiling = score_rows(table, "mmlu")
    assert (floor, ceiling) == (1, 1) and len(rows) == len(table) - 2
    assert fixed_size_trend(table, "mmlu", n_boot=50).n_at_floor == 1


def test_too_few_families_and_an_unknown_chance_level_are_said():
    table = planted_table(3.0, families=3)
    assert present.status(fixed_size_trend(table, "mmlu", n_boot=50)).startswith(
        "not measured: 9 scores from 3 families"
    )
    with pytest.raises(InputError, match="chance level"):
        score_rows(table.assign(benchmark="no_such_benchmark"), "no_such_benchmark")


def test_the_intervals_cover_the_planted_doubling_time_near_their_nominal_rate():
    """100 planted tables of 25 families: the bootstrap and delta 95% intervals cover 4 months in 90–92% of 200
    replicates (measured); this test asks at least 80% of 100 and a median estimate within 5% of the truth."""
    found = [fixed_size_trend(planted_table(4.0, seed=1000 + s, families=25), "mmlu", n_boot=200) for s in range(100)]
    boot = np.mean([f.doubling_time_months_ci_low < 4.0 < f.doubling_time_months_ci_high for f in found])
    delta = np.mean([f.delta_doubling_time_months_ci_low < 4.0 < f.delta_doubling_time_months_ci_high for f in found])
    assert boot >= 0.8 and delta >= 0.8, (boot, delta)
    assert abs(np.median([f.doubling_time_months for f in found]) / 4.0 - 1) < 0.05


def test_the_shipped_rows_are_a_fresh_computation():
    """results/fixed_size.csv (python tools/build_tables.py fixed-size --n-boot 1000 --seed 0) equals a fresh run."""
    from densing import paths, registry
    from densing.data import read_results
    from densing.present.records import fixed_size_frame
    from densing.trend.fixed_size import fixed_size_rows

    shipped = pd.read_csv(paths.RESULTS / "fixed_size.csv")
    for name in ("public", "swallow", "openllm_v2"):
        fresh = fixed_size_frame(fixed_size_rows(read_results(registry.table(name).path), name, n_boot=1000, seed=0))
        mine = shipped[shipped["table"] == name].reset_index(drop=True)
        assert fresh["row"].tolist() == mine["row"].tolist() and fresh["status"].tolist() == mine["status"].tolist()
        for column in (
            "doubling_time_months",
            "doubling_time_months_ci_low",
            "doubling_time_months_ci_high",
            "delta_doubling_time_months_ci_low",
            "slope_per_year",
        ):
            assert np.allclose(fresh[column], mine[column], rtol=1e-5, equal_nan=True), column


@pytest.mark.parametrize("bad", [{"n_boot": 0}, {"seed": -1}, {"level": 1.0}])
def test_a_bad_option_is_one_input_error_naming_it(bad):
    with pytest.raises(InputError, match=next(iter(bad))):
        fixed_size_trend(planted_table(3.0), "mmlu", **bad)


def _rates_by_least_squares(x, y, groups, n_boot, seed):
    """The family cluster bootstrap written out: each resample's rows fitted by least squares (the definition)."""
    rng = np.random.default_rng(seed)
    members = [np.flatnonzero(groups == g) for g in range(groups.max() + 1)]
    rates = np.empty(n_boot)
    for i in range(n_boot):
        pick = np.concatenate([members[g] for g in rng.integers(0, len(members), len(members))])
        beta = np.linalg.lstsq(x[pick], y[pick], rcond=None)[0]
        rates[i] = beta[1] / beta[0] if beta[0] > 0 else -math.inf
    return rates


@pytest.mark.parametrize("seed", range(6))
def test_the_bootstraps_normal_equations_are_least_squares_on_each_resample(seed):
    """_rates solves every draw's normal equations at once (columns centred): each rate is least squares on the
    resample's rows to 1e-9, the draws the same (−inf where β_N ≤ 0); a draw that picks no family of one benchmark
    (its intercept unidentified) falls back to least squares and gets its exact number."""
    from densing.trend.fixed_size import _rates

    rng = np.random.default_rng(seed)
    families = 6 + seed
    sizes = rng.integers(2, 6, families)
    groups = np.repeat(np.arange(families), sizes)
    benchmark = rng.integers(0, 2 if seed % 2 else 1, groups.size)
    if seed % 2:  # one benchmark scored by one family only: many draws leave its intercept out
        benchmark[groups == 0] = 2
        benchmark[groups != 0] = np.minimum(benchmark[groups != 0], 1)
    log_n = rng.uniform(19, 25, groups.size)
    years = rng.uniform(0, 2.5, groups.size)
    dummies = np.eye(benchmark.max() + 1)[benchmark]
    x = np.column_stack([log_n, years, dummies])
    y = (
        0.6 * log_n
        + 0.4 * years
        + dummies @ rng.normal(-13, 1, dummies.shape[1])
        + rng.normal(0, 0.3, groups.size)
        + rng.normal(0, 0.3, families)[groups]
    )
    found = _rates(x, y, groups, 300, seed)
    expected = _rates_by_least_squares(x, y, groups, 300, seed)
    assert np.array_equal(np.isinf(found), np.isinf(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(found[finite], expected[finite], rtol=1e-9)


def test_docs_results_names_the_draws_behind_each_fixed_size_number():
    """The README's fixed-size intervals are fields of the trend records (tools/readme_numbers.map), made at the
    trend's side draws; results/fixed_size.csv is the same regression at 1,000. docs/results.md says which is which."""
    from densing.constants import DEFAULT_N_BOOT_SIDE

    root = Path(__file__).resolve().parents[2]
    mapped = [
        line.split(" | ")[1]
        for line in (root / "tools" / "readme_numbers.map").read_text().splitlines()
        if "/fixed_size_ci_" in line
    ]
    assert mapped and all(field.startswith(("results/public/", "results/openllm_v2/trend.json")) for field in mapped)
    rows = [line for line in (root / "docs" / "results.md").read_text().splitlines() if line.startswith("| ")]
    csv_row = next(r for r in rows if "`results/fixed_size.csv`" in r)
    records_row = next(r for r in rows if "`results/public/trend.json`" in r)
    assert "at 1,000 draws" in csv_row and "--n-boot 1000 --seed 0" in csv_row
    assert "fixed-size cross-check" in records_row and f"at the trend's {DEFAULT_N_BOOT_SIDE} draws" in records_row
