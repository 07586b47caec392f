"""The target-table registry, the forecast's Wilson interval and the Swallow records: densing.registry, .forecast,
.protocol."""

from __future__ import annotations

import math

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
        assert wilson_interval(count, total) == pytest.approx(
            proportion_confint(count, total, method="wilson"), abs=1e-12
        )
    assert all(math.isnan(v) for v in wilson_interval(0, 0))


def test_without_continual_drops_derived_models_and_refuses_a_table_without_the_column():
    from densing.trend.protocol import without_continual

    table = pd.DataFrame({"model": ["a", "b", "c"], "derivation": ["from_scratch", "continual_pretraining", None]})
    assert without_continual(table)["model"].tolist() == ["a", "c"]
    with pytest.raises(InputError, match="--without-continual"):
        without_continual(table.drop(columns="derivation"))


def test_the_shipped_swallow_record_is_a_fresh_computation():
    """results/swallow/trend/swallow.json (python tools/build_tables.py protocol) equals what the engine computes now."""
    from densing import paths, registry
    from densing.data import read_results
    from densing.designs.swallow.records import read_records_noted
    from densing.present.records import table_record
    from densing.trend.protocol import measure_table

    shipped = read_records_noted(paths.RESULTS / "swallow" / "trend")[0]["swallow"]
    fresh = table_record(measure_table(read_results(registry.table("swallow").path), "swallow"))
    assert fresh["verdict"] == shipped["verdict"]
    for new, old in zip(fresh["rows"], shipped["rows"]):
        assert new["row"] == old["row"] and new["status"] == old["status"]
        for key in ("months", "ci_low", "ci_high"):
            assert (new[key] is None and old[key] is None) or new[key] == pytest.approx(old[key], rel=1e-9)
    assert fresh["forecast"]["summary"] == shipped["forecast"]["summary"]


def test_every_candidate_benchmark_of_every_table_has_its_records():
    """The benchmark checklist of docs/extending.md: a chance level, an item count with a source and a capability
    group for every benchmark a registered table lets the reference rule fit a reference on."""
    from densing import registry
    from densing.data.benchmarks import CHANCE_LEVELS, item_counts
    from densing.trend.capability import CAPABILITY

    counted = item_counts().set_index("benchmark")
    for table in registry.TABLES.values():
        for benchmark in table.candidates:
            assert benchmark in CHANCE_LEVELS, (table.name, benchmark)
            assert benchmark in counted.index and counted.loc[benchmark, "items"] > 0, (table.name, benchmark)
            assert str(counted.loc[benchmark, "source"]).strip(), (table.name, benchmark)
            assert benchmark in CAPABILITY, (table.name, benchmark)
