"""studies/capability_coverage.py under its logistic world (``--world logistic_ln_n``, :mod:`studies._logistic_world`):
the planted world has the promised shape, its estimand recovers the planted slope under a reference of the targets'
shape and not under the over-trained one, and one tiny replicate runs end to end. The power world's own test is
``tests/trend/test_power_world.py``."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    from studies import capability_coverage

    capability_coverage.use_world("logistic_ln_n")
    yield capability_coverage
    capability_coverage.use_world("power")


@pytest.fixture(scope="module")
def world(bench):
    return bench.W


def test_the_planted_world_has_missing_scores_an_overtrained_reference_and_slopes_per_benchmark(bench, world):
    table, frame = world.replicate_table(np.random.default_rng(np.random.SeedSequence([0, 0])), 120)
    targets = table[~table["family"].isin(list(world.FAMILIES))]
    scored = targets.groupby("benchmark")["model"].nunique()
    assert scored["mmlu"] == 120 and 0.3 < scored["math_hard"] / 120 < 0.7 and scored["humaneval"] < 120
    assert table["stderr"].notna().all()  # binomial standard errors from the registry's item counts
    months = sorted(b.months for b in world.BENCHMARKS.values())
    assert len(set(months)) >= 4 and months[-1] / months[0] >= 5
    # the over-trained family's true law is the targets' curve with its slope in ln N scaled by k_f
    over, canon = bench.true_fit("overtrained", "mmlu"), bench.true_fit("canonical", "mmlu")
    k = world.FAMILIES["overtrained"].shape
    assert k != 1.0 and over.params["gamma"] == pytest.approx(k * canon.params["gamma"], rel=1e-6)
    assert canon.params["gamma"] == pytest.approx(world.BENCHMARKS["mmlu"].gamma, rel=1e-6)
    assert all(
        f.shape == 1.0 and f.kink is None for name, f in world.FAMILIES.items() if name not in ("overtrained", "kinked")
    )
    sizes = [max(f.sizes) / min(f.sizes) for f in world.FAMILIES.values()]
    assert min(sizes) >= 20 and all(4 <= len(f.sizes) <= 8 for f in world.FAMILIES.values())


def test_the_departures_are_planted_a_floor_family_a_kinked_one_and_one_overtrained_through_the_loss_law(world):
    from densing.data.benchmarks import CHANCE_LEVELS
    from densing.laws.forms import HOFFMANN_2022

    floor = world.family_rows("floor", world.FAMILIES["floor"], None)
    best = floor.groupby("benchmark")["value"].max()
    for b in ("mmlu", "math_hard", "gsm8k", "humaneval"):  # a few percent of the way from chance to the frontier
        assert best[b] - CHANCE_LEVELS[b] < 0.1
    kinked = world.FAMILIES["kinked"]
    x = np.log(np.array([kinked.pivot / 4, kinked.pivot, kinked.pivot * 4]))
    h = world.effective(kinked, "mmlu", x)
    assert (h[1] - h[0]) / (x[1] - x[0]) == pytest.approx(kinked.shape) and (h[2] - h[1]) / (
        x[2] - x[1]
    ) == pytest.approx(kinked.kink)
    law = world.FAMILIES["overtrained_law"]
    sizes = np.asarray(law.sizes)
    at_d0 = HOFFMANN_2022.size_at(sizes, law.tokens, world.BUDGET_D0)
    assert np.isfinite(at_d0).all()  # every member has a size at D0: the truth is defined
    h = world.effective(law, "mmlu", np.log(sizes))
    assert np.diff(h) == pytest.approx(np.diff(np.log(at_d0)))


def test_the_budget_translation_recovers_the_targets_shape_for_the_law_planted_family_only(bench):
    canon = bench.true_fit("canonical", "mmlu")
    translated = bench.true_fit("overtrained_law", "mmlu", True)
    own = bench.true_fit("overtrained_law", "mmlu")
    assert translated.params["gamma"] == pytest.approx(canon.params["gamma"], rel=1e-3)
    assert abs(own.params["gamma"] / canon.params["gamma"] - 1) > 0.1


def test_the_population_slope_recovers_the_planted_slope_under_the_targets_shape_only(bench, world):
    planted = world.BENCHMARKS["mmlu"].slope
    same, se = bench.reference_slope("wide", ("mmlu",), False, 0, 6000)
    assert same == pytest.approx(planted, rel=0.05) and se < 0.05 * planted
    other, _ = bench.reference_slope("overtrained", ("mmlu",), False, 0, 6000)
    assert other > 1.2 * planted  # ≈ A/k_f: the reference's shape changes the slope it measures


def test_one_tiny_replicate_runs_and_records_each_row(bench, world):
    args = SimpleNamespace(
        world="logistic_ln_n",
        seed=0,
        targets=120,
        n_boot=20,
        n_side=20,
        n_share=0,
        ref_boot=50,
        population=1000,
        limits=True,
    )
    record = bench.run_replicate(0, args)
    assert "error" not in record
    assert set(record["rows"]) == {"headline", *world.BENCHMARKS, *(f"budget:{b}" for b in world.BUDGET_ROWS)}
    assert record["candidates"]["floor:mmlu"]["eligible"] is False  # the floor family informs nothing
    head = record["rows"]["headline"]
    assert "error" not in head and head["references"]
    assert all(math.isfinite(head[k]) for k in ("point", "low", "high", "claimed", "latent"))
    lines = bench.summarise([record], args)
    assert any(line.startswith("headline") for line in lines)
    assert any(line.strip().startswith("floor") for line in lines)  # the rule's verdict on each planted candidate
