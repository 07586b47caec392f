"""studies/swallow_coverage.py: the planted world has the Swallow table's shape (window, sizes, benchmarks, no missing
score, the two Qwen-like references), and one tiny replicate runs end to end, the forecast check included."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest


@pytest.fixture(scope="module")
def study():
    from studies import swallow_coverage

    return swallow_coverage


def test_the_planted_world_is_shaped_like_the_swallow_table(study):
    from densing.data.benchmarks import CHANCE_LEVELS
    from densing import registry

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
