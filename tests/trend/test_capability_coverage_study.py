"""studies/capability_coverage.py: the planted world has the promised shape, its estimand recovers the planted slope
under a reference of the targets' shape and not under the over-trained one, and one tiny replicate runs end to end."""
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

    return capability_coverage


def test_the_planted_world_has_missing_scores_an_overtrained_reference_and_slopes_per_benchmark(bench):
    table, frame = bench.replicate_table(np.random.default_rng(np.random.SeedSequence([0, 0])), 120)
    targets = table[~table["family"].isin(list(bench.FAMILIES))]
    scored = targets.groupby("benchmark")["model"].nunique()
    assert scored["mmlu"] == 120 and 0.3 < scored["math_hard"] / 120 < 0.7 and scored["humaneval"] < 120
    assert table["stderr"].notna().all()  # binomial standard errors from the registry's item counts
    months = sorted(b.months for b in bench.BENCHMARKS.values())
    assert len(set(months)) >= 4 and months[-1] / months[0] >= 5
    # the over-trained family's true law is the targets' curve with its slope in ln N scaled by k_f
    over, canon = bench.true_fit("overtrained", "mmlu"), bench.true_fit("canonical", "mmlu")
    k = bench.FAMILIES["overtrained"].shape
    assert k != 1.0 and over.params["gamma"] == pytest.approx(k * canon.params["gamma"], rel=1e-6)
    assert canon.params["gamma"] == pytest.approx(bench.BENCHMARKS["mmlu"].gamma, rel=1e-6)
    assert all(f.shape == 1.0 for name, f in bench.FAMILIES.items() if name != "overtrained")
    sizes = [max(f.sizes) / min(f.sizes) for f in bench.FAMILIES.values()]
    assert min(sizes) >= 20 and all(4 <= len(f.sizes) <= 8 for f in bench.FAMILIES.values())


def test_the_population_slope_recovers_the_planted_slope_under_the_targets_shape_only(bench):
    planted = bench.BENCHMARKS["mmlu"].slope
    same, se = bench.reference_slope("wide", ("mmlu",), False, 0, 6000)
    assert same == pytest.approx(planted, rel=0.05) and se < 0.05 * planted
    other, _ = bench.reference_slope("overtrained", ("mmlu",), False, 0, 6000)
    assert other > 1.2 * planted  # ≈ A/k_f: the reference's shape changes the slope it measures


def test_one_tiny_replicate_runs_and_records_each_row(bench):
    args = SimpleNamespace(seed=0, targets=120, n_boot=20, n_share=0, ref_boot=50, population=1000)
    record = bench.run_replicate(0, args)
    assert "error" not in record and set(record["rows"]) == {"headline", *bench.BENCHMARKS}
    head = record["rows"]["headline"]
    assert "error" not in head and head["references"]
    assert all(math.isfinite(head[k]) for k in ("point", "low", "high", "claimed", "latent"))
    lines = bench.summarise([record], args)
    assert any(line.startswith("headline") for line in lines)
