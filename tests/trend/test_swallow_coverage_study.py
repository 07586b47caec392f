"""studies/swallow_coverage.py: the planted world has the Swallow table's shape (window, sizes, benchmarks, no missing
score, the two Qwen-like references), and one tiny replicate runs end to end, the forecast check included; the
study's cutoff check (studies/_forecast_check.py) holds where the line goes on and sees a later jump."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import orjson
import pandas as pd
import pytest

from densing.results import CONF_INT_COLUMNS


@pytest.fixture(scope="module")
def study():
    from studies import swallow_coverage

    return swallow_coverage


def test_the_planted_world_is_shaped_like_the_swallow_table(study):
    from densing import registry
    from densing.data.benchmarks import CHANCE_LEVELS

    table, frame = study.replicate_table(np.random.default_rng(np.random.SeedSequence([0, 0])), 72)
    profile = registry.table("swallow")
    assert set(table["benchmark"]) == set(profile.candidates) == set(study.BENCHMARKS)
    targets = table[~table["family"].isin(list(study.FAMILIES))]
    assert (targets.groupby("benchmark")["model"].nunique() == 72).all()  # every score present
    assert table["stderr"].notna().all() and table["value"].between(0, 1).all()
    dates = frame["release_date"]
    assert str(dates.min().date()) >= "2023-12-19" and str(dates.max().date()) <= "2025-06-25"
    assert all(0 <= CHANCE_LEVELS[b] < 0.3 for b in study.BENCHMARKS)
    # sizes: the table's mean, spread and (negative) correlation with the date
    big = study.draw_targets(np.random.default_rng(1), 20000)
    size = np.log10(big["params"].to_numpy(float))
    assert size.mean() == pytest.approx(9.97, abs=0.03) and 0.55 < size.std() < 0.62
    assert np.corrcoef(big["t"], size)[0, 1] == pytest.approx(study.SIZE_DATE_CORR, abs=0.03)
    # the references: a Qwen2.5-like family of the targets' shape mid-window, a Qwen3-like over-trained one late
    q25, q3 = study.FAMILIES["Qwen2.5-like"], study.FAMILIES["Qwen3-like"]
    assert len(q25.sizes) == 7 and q25.shape == 1.0 and 200 < q25.released < 350
    assert len(q3.sizes) == 5 and q3.shape != 1.0 and q3.gap <= 0 and q3.released > 450
    assert set(table.loc[table["family"] == "Qwen2.5-like", "train_tokens"]) == {18e12}
    # the planted slopes: a reference of the targets' shape recovers A_b, the over-trained one claims faster
    planted = study.BENCHMARKS["swallow_mmlu"].slope
    same, _ = study.reference_slope("Qwen2.5-like", ("swallow_mmlu",), False, 0, 4000)
    other, _ = study.reference_slope("Qwen3-like", ("swallow_mmlu",), False, 0, 4000)
    assert same == pytest.approx(planted, rel=0.06) and other > 1.05 * planted


def test_one_tiny_replicate_runs_and_records_each_row_and_the_forecast(study):
    args = SimpleNamespace(seed=0, targets=72, n_boot=20, ref_boot=50, population=1000)
    record = study.run_replicate(0, args)
    assert "error" not in record
    assert set(record["rows"]) == {"paper", *study.BENCHMARKS}
    paper = record["rows"]["paper"]
    assert "error" not in paper and paper["status"].startswith(("measured", "not measured"))
    assert all(math.isfinite(paper[k]) for k in ("point", "low", "high", "claimed", "latent"))
    assert {f["reference"] for f in record["forecast"]} <= set(study.FAMILIES)
    lines = study.summarise([record], args)
    assert any(line.startswith("paper") for line in lines)
    assert any(line.startswith("forecast check") for line in lines)


def _planted_members(jump: float, seed: int = 0):
    """One per-benchmark reference (a planted family on MMLU's curve) and 160 targets over 800 days whose ln ρ is
    0.004·t − u (u ~ Exponential(1): the 0.9 quantile rises 0.004/day), ``jump`` added after day 400."""
    from densing.laws.family import fit_family
    from densing.laws.inversion import PerBenchmark
    from densing.trend.targets import trend_targets

    rng = np.random.default_rng(seed)

    def curve(x):
        return 0.25 + 0.75 / (1 + np.exp(-0.45 * (x - 23.0)))

    sizes = np.array([1e9, 3e9, 8e9, 2e10, 7e10])
    rows = [
        {
            "model": f"ref-{n:.0e}",
            "family": "Ref",
            "benchmark": "mmlu",
            "metric": "acc",
            "value": float(curve(np.log(n))),
            "params": n,
            "train_tokens": 2e12,
            "release_date": "2023-01-01",
        }
        for n in sizes
    ]
    t = rng.uniform(0, 800, 160)
    log_n = rng.uniform(np.log(1e9), np.log(7e10), 160)
    log_rho = 0.004 * (t - 800) - rng.exponential(1.0, 160) + np.where(t > 400, jump, 0.0)
    for i in range(160):
        rows.append(
            {
                "model": f"t{i}",
                "family": f"T{i}",
                "benchmark": "mmlu",
                "metric": "acc",
                "value": float(curve(log_n[i] + log_rho[i])),
                "params": float(np.exp(log_n[i])),
                "train_tokens": 1e12,
                "release_date": (pd.Timestamp("2023-02-24") + pd.Timedelta(days=float(np.floor(t[i])))).strftime(
                    "%Y-%m-%d"
                ),
            }
        )
    table = pd.DataFrame(rows)
    table["stderr"] = 0.004
    fit = fit_family(table, "Ref", "mmlu", n_boot=50, seed=seed)
    inversion = PerBenchmark(fit, fit.d0)
    models, _ = trend_targets(table, inversion, since=None, epoch="2023-02-24")
    return [(inversion, models)]


@pytest.mark.parametrize("jump, expected", [(0.0, "holds"), (3.0, "run ahead")])
def test_the_forecast_holds_where_the_line_goes_on_and_sees_a_later_jump(jump, expected):
    from studies._forecast_check import forecast_check

    members = _planted_members(jump)
    cutoff = (pd.Timestamp("2023-02-24") + pd.Timedelta(days=400)).strftime("%Y-%m-%d")
    found = forecast_check("planted", members, cutoff, n_boot=60)
    (ref,) = found.references
    assert ref.before is not None and ref.n_later >= 10 and expected in ref.verdict, found.summary()
    assert found.to_frame().loc[0, "n_later"] == ref.n_later


def test_too_few_later_models_leave_the_forecast_untestable_in_words():
    from studies._forecast_check import _verdict

    assert _verdict(3, 1, 0).startswith("untestable: 3 later models")


@pytest.fixture(scope="module")
def measurement():
    from densing import paths
    from densing.data import read_results
    from densing.trend.measure import measure_trend

    return measure_trend(read_results(paths.RESULTS / "public_models.csv"), n_boot=40, n_boot_side=40, seed=0)


def test_the_cutoff_check_is_a_result(measurement):
    from studies._forecast_check import Forecast, ReferenceForecast

    head = measurement.rules[measurement.headline_rule]
    ran = ReferenceForecast(
        "Ref:mmlu",
        "2024-06-30",
        head,
        None,
        n_later=12,
        above_line=1,
        above_low=2,
        above_high=0,
        verdict="the forecast holds",
    )
    missing = ReferenceForecast(
        "Other:mmlu", "2024-06-30", None, None, n_later=3, note="2 models up to the cutoff: no line"
    )
    found = Forecast("paper", "2024-06-30", (ran, missing))
    frame = found.to_frame()
    assert (
        frame["reference"].tolist() == ["Ref", "Other"] and frame.loc[0, "months_before"] == head.doubling_time_months
    )
    assert frame.loc[1, "n_before"] == 0 and math.isnan(frame.loc[1, "months_before"])
    interval = found.conf_int()
    assert (
        list(interval.columns) == list(CONF_INT_COLUMNS)
        and interval.index.name == "quantity"
        and "Ref:mmlu.before.doubling_time_months" in interval.index
    )
    assert not any(q.startswith("Other:") for q in interval.index)  # no line, no interval
    assert interval.loc["Ref:mmlu.before.doubling_time_months"].tolist() == pytest.approx(
        [head.doubling_time_months, head.doubling_time_months_ci_low, head.doubling_time_months_ci_high], nan_ok=True
    )
    data = found.to_dict()
    assert data["references"][1]["before"] is None and data["references"][0]["before"]["rule"] == head.rule
    orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY)
    assert str(found.summary()).startswith("Forecast from models released up to 2024-06-30: Ref: 1 of 12")
    assert "no line" in repr(missing) and Forecast("r", "2024-06-30").to_frame().empty
