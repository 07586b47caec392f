"""The planted world of bench/capability_coverage.py has the promised shape, and its estimand is the planted slope
for a reference whose shape in N is the targets'."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("capability_coverage", ROOT / "bench" / "capability_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_planted_table_has_missing_scores_an_overtrained_family_and_benchmark_specific_slopes(bench):
    table = bench.planted_table(np.random.default_rng(0), 60)
    targets = table[table["family"].str.startswith("T")]
    per_benchmark = targets.groupby("benchmark")["model"].nunique()
    assert per_benchmark["leaderboard_bbh"] < 0.7 * per_benchmark["mmlu"]  # about half lack BBH
    assert any(kappa != 0 for kappa, _ in bench.FAMILIES.values())
    assert len({bench.slope(b) for b in bench.BENCHMARKS}) == len(bench.BENCHMARKS)


def test_the_estimand_is_the_planted_slope_for_a_reference_of_the_targets_shape_and_scaled_for_another(bench):
    fits = bench.true_family_fits(1)
    pop = bench.population(2, 3000)
    plain = bench.population_slope("Plain", ("mmlu",), pop, fits)
    assert plain == pytest.approx(bench.slope("mmlu"), rel=0.06)
    kappa = bench.FAMILIES["Overtrained"][0]
    over = bench.population_slope("Overtrained", ("mmlu",), pop, fits)
    assert over == pytest.approx(bench.slope("mmlu") / (1 + kappa), rel=0.06)
    assert not math.isclose(over, plain, rel_tol=0.15)
