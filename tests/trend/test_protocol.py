"""The target-table registry, the forecast check and the Swallow records: densing.registry, .forecast, .protocol."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from densing.errors import InputError


def test_tables_are_registered_by_name_and_an_unknown_one_is_refused_in_one_line():
    from densing import registry

    assert {"public", "swallow", "swallow_2026"} <= set(registry.tables())
    assert registry.table("swallow").path.name == "swallow_2025-06.csv"
    assert registry.table_for_path(registry.TABLES["swallow_2026"].path).name == "swallow_2026"
    assert registry.table_for_path(None).name == "public"
    with pytest.raises(InputError, match="--table: expected one of public"):
        registry.table("nope")
    with pytest.raises(ValueError):
        registry.register_table(registry.TABLES["public"])
    # each table's sets are of its own candidate benchmarks, the headline's first
    for table in registry.TABLES.values():
        assert all(set(b) <= set(table.candidates) for _, b in table.sets.values())
        assert table.headline_set == next(iter(table.sets))


def test_the_wilson_interval_is_statsmodels_own():
    from statsmodels.stats.proportion import proportion_confint

    from densing.trend.forecast import wilson_interval

    for count, total in ((0, 10), (3, 44), (44, 44), (7, 120)):
        assert wilson_interval(count, total) == pytest.approx(proportion_confint(count, total, method="wilson"), abs=1e-12)
    assert all(math.isnan(v) for v in wilson_interval(0, 0))


def _planted_members(jump: float, seed: int = 0):
    """One per-benchmark reference (a planted family on MMLU's curve) and 160 targets over 800 days whose ln ρ is
    0.004·t − u (u ~ Exponential(1): the 0.9 quantile rises 0.004/day), ``jump`` added after day 400."""
    from densing.laws.family import fit_family
    from densing.laws.inversion import PerBenchmark
    from densing.trend.targets import trend_targets

    rng = np.random.default_rng(seed)
    curve = lambda x: 0.25 + 0.75 / (1 + np.exp(-0.45 * (x - 23.0)))  # noqa: E731
    sizes = np.array([1e9, 3e9, 8e9, 2e10, 7e10])
    rows = [{"model": f"ref-{n:.0e}", "family": "Ref", "benchmark": "mmlu", "metric": "acc", "value": float(curve(np.log(n))),
             "params": n, "train_tokens": 2e12, "release_date": "2023-01-01"} for n in sizes]
    t = rng.uniform(0, 800, 160)
    log_n = rng.uniform(np.log(1e9), np.log(7e10), 160)
    log_rho = 0.004 * (t - 800) - rng.exponential(1.0, 160) + np.where(t > 400, jump, 0.0)
    for i in range(160):
        rows.append({"model": f"t{i}", "family": f"T{i}", "benchmark": "mmlu", "metric": "acc",
                     "value": float(curve(log_n[i] + log_rho[i])), "params": float(np.exp(log_n[i])), "train_tokens": 1e12,
                     "release_date": (pd.Timestamp("2023-02-24") + pd.Timedelta(days=float(np.floor(t[i])))).strftime("%Y-%m-%d")})
    table = pd.DataFrame(rows)
    table["stderr"] = 0.004
    fit = fit_family(table, "Ref", "mmlu", n_boot=50, seed=seed)
    inversion = PerBenchmark(fit, fit.d0)
    models, _ = trend_targets(table, inversion, since=None, epoch="2023-02-24")
    return [(inversion, models)]


@pytest.mark.parametrize("jump, expected", [(0.0, "holds"), (3.0, "run ahead")])
def test_the_forecast_holds_where_the_line_goes_on_and_sees_a_later_jump(jump, expected):
    from densing.trend.forecast import forecast_check

    members = _planted_members(jump)
    cutoff = (pd.Timestamp("2023-02-24") + pd.Timedelta(days=400)).strftime("%Y-%m-%d")
    found = forecast_check("planted", members, cutoff, n_boot=60)
    (ref,) = found.references
    assert ref.before is not None and ref.n_later >= 10 and expected in ref.verdict, found.summary()
    assert found.to_frame().loc[0, "n_later"] == ref.n_later


def test_too_few_later_models_leave_the_forecast_untestable_in_words():
    from densing.trend.forecast import _verdict

    assert _verdict(3, 1, 0).startswith("untestable: 3 later models")


def test_without_continual_drops_derived_models_and_refuses_a_table_without_the_column():
    from densing.trend.protocol import without_continual

    table = pd.DataFrame({"model": ["a", "b", "c"], "derivation": ["from_scratch", "continual_pretraining", None]})
    assert without_continual(table)["model"].tolist() == ["a", "c"]
    with pytest.raises(InputError, match="--without-continual"):
        without_continual(table.drop(columns="derivation"))


def test_the_shipped_swallow_record_is_a_fresh_computation():
    """results/swallow/trend/swallow.json (python tools/build_tables.py protocol) equals what the engine computes now."""
    from densing import paths
    from densing.data import read_results
    from densing.designs.swallow.report import read_records
    from densing.trend.protocol import measure_table
    from densing import registry

    shipped = read_records(paths.RESULTS / "swallow" / "trend")["swallow"]
    _, fresh = measure_table(read_results(registry.table("swallow").path), "swallow")
    assert fresh["verdict"] == shipped["verdict"]
    for new, old in zip(fresh["rows"], shipped["rows"]):
        assert new["row"] == old["row"] and new["status"] == old["status"]
        for key in ("months", "ci_low", "ci_high"):
            assert (new[key] is None and old[key] is None) or new[key] == pytest.approx(old[key], rel=1e-9)
    assert fresh["forecast"]["summary"] == shipped["forecast"]["summary"]


def test_every_candidate_benchmark_of_every_table_has_its_records():
    """The benchmark checklist of docs/extending.md: a chance level, an item count with a source and a capability
    group for every benchmark a registered table lets rule v3 fit a reference on."""
    from densing.data.benchmarks import CHANCE_LEVELS
    from densing.data.benchmarks import item_counts
    from densing.trend.capability import CAPABILITY
    from densing import registry

    counted = item_counts().set_index("benchmark")
    for table in registry.TABLES.values():
        for benchmark in table.candidates:
            assert benchmark in CHANCE_LEVELS, (table.name, benchmark)
            assert benchmark in counted.index and counted.loc[benchmark, "items"] > 0, (table.name, benchmark)
            assert str(counted.loc[benchmark, "source"]).strip(), (table.name, benchmark)
            assert benchmark in CAPABILITY, (table.name, benchmark)
