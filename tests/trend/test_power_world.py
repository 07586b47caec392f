"""studies/_power_world.py: a planted family follows the power law it was planted with (a fit recovers the planted
parameters), and a replicate has the public table's shape."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from densing.laws.family import POWER_ALPHA, fit_family
from studies import _power_world as world


def _family_frame(name: str, log_rho: float) -> pd.DataFrame:
    """Family ``name``'s models of the public table with one planted ln ρ on every benchmark, every benchmark present."""
    frame = world.public_frame()
    members = frame[frame["family"] == name].copy()
    for bench in world.BENCHMARKS:
        members[f"log_rho:{bench}"] = log_rho
        members[f"present:{bench}"] = True
    return members


@pytest.mark.parametrize("name", ["Qwen2", "Yi-1.5"])
@pytest.mark.parametrize("log_rho", [-1.5, 0.0, 0.8])
@pytest.mark.parametrize("benchmark", ["mmlu", "math_hard", "humaneval"])
def test_a_planted_family_follows_the_power_law_it_was_planted_with(name, log_rho, benchmark):
    # S_b(N·ρ) = d + (1 − d)·σ(γ'·(u(N) − l')), γ' = γ_b·ρ^−α, l' = l_b·ρ^α (the module's docstring)
    rows = world.target_rows(_family_frame(name, log_rho), None)
    fit = fit_family(rows, name, benchmark, n_boot=0, shape="power")
    b = world.BENCHMARKS[benchmark]
    assert fit.params["gamma"] == pytest.approx(b.gamma * math.exp(-POWER_ALPHA * log_rho), rel=1e-4)
    assert fit.params["l"] == pytest.approx(b.level * math.exp(POWER_ALPHA * log_rho), rel=1e-4, abs=1e-6)


def test_binomial_members_give_the_planted_law_within_the_fits_interval():
    # Qwen2 (5 sizes) at ln ρ = 0.3, binomial scores on MMLU's 14,042 items: the planted (γ', l') within 3 sd
    rng = np.random.default_rng(7)
    hits = []
    for _ in range(20):
        rows = world.target_rows(_family_frame("Qwen2", 0.3), rng)
        rows["stderr"] = np.nan
        fit = fit_family(rows, "Qwen2", "mmlu", n_boot=400, seed=1, shape="power")
        draws = np.asarray(fit.bootstrap, float)[:, 0]  # γ draws
        hits.append(abs(2.5 * math.exp(-POWER_ALPHA * 0.3) - fit.params["gamma"]) <= 3 * np.std(draws))
    assert np.mean(hits) >= 0.9


def test_a_replicate_has_the_public_tables_models_and_benchmark_pattern():
    table, frame = world.replicate_table(np.random.default_rng(0))
    public = world.public_frame()
    assert set(table["model"]) == set(public["model"])
    for bench in world.BENCHMARKS:
        scored = set(table.loc[table["benchmark"] == bench, "model"])
        assert scored == set(public.loc[public[f"present:{bench}"], "model"])
    assert table["value"].between(0, 1).all() and table["stderr"].notna().all()
    # a family's gap is shared by its members: their ln ρ differ by the date term, the skill of ε only
    qwen = frame[frame["family"] == "Qwen2"]["log_rho:mmlu"]
    assert qwen.std() < 4 * world.MEMBER_SD
