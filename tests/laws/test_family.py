"""The family law: planted recovery, the inverse, JSON round trip, dropped members, the held-out rule."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from densing.errors import FitError, InputError
from densing.laws import forms
from densing.laws.family import fit_family, held_out_error
from densing.laws.reference_fit import ReferenceFit


def planted_family(gamma: float = 0.45, level: float = 22.0, chance: float = 0.25, sizes=(0.5e9, 1.8e9, 4e9, 7e9, 14e9, 32e9, 72e9),
                   noise: float = 0.0, seed: int = 0, benchmark: str = "mmlu", family: str = "F") -> pd.DataFrame:
    """A tidy table of one family whose scores follow S(N) = d + (1 − d)·σ(γ(ln N − l)) (+ noise)."""
    rng = np.random.default_rng(seed)
    n = np.asarray(sizes, float)
    score = forms.performance_law(np.log(n), 1 - chance, gamma, level, chance) + noise * rng.standard_normal(n.size)
    return pd.DataFrame({"model": [f"{family}-{int(x / 1e6)}M" for x in n], "family": family, "benchmark": benchmark,
                         "metric": "acc", "value": score, "params": n, "train_tokens": 3e12, "active_params": np.nan})


@settings(max_examples=25, deadline=None)
@given(gamma=st.floats(0.15, 1.0), level=st.floats(19.0, 25.0))
def test_planted_parameters_are_recovered_exactly_without_noise(gamma, level):
    table = planted_family(gamma, level)
    fit = fit_family(table, "F", "mmlu", n_boot=20)
    assert fit.params["gamma"] == pytest.approx(gamma, rel=1e-6)
    assert fit.params["l"] == pytest.approx(level, rel=1e-6)
    # the inverse gives back every member's size
    sizes = fit.effective_params(table["value"].to_numpy())
    assert np.allclose(sizes, table["params"], rtol=1e-6)


def test_noise_is_carried_into_the_bootstrap_and_the_interval_covers_the_plant():
    table = planted_family(0.45, 22.0, noise=0.01, seed=3)
    fit = fit_family(table, "F", "mmlu", n_boot=400)
    ci = fit.parameter_ci().set_index("parameter")
    assert ci.loc["gamma", "ci_low"] < 0.45 < ci.loc["gamma", "ci_high"]
    assert ci.loc["gamma", "ci_low"] <= fit.params["gamma"] <= ci.loc["gamma", "ci_high"]


def test_d0_is_the_familys_budget_and_another_d0_is_an_error(tmp_path):
    table = planted_family()
    table.loc[table.index[:3], "train_tokens"] = 2e12
    fit = fit_family(table, "F", "mmlu", n_boot=10)
    assert fit.d0 == pytest.approx(math.exp(np.mean(np.log(table["train_tokens"]))))
    with pytest.raises(InputError, match="no data term"):
        fit.effective_params([0.5], d0=1e12)
    loaded = ReferenceFit.load(fit.save(tmp_path / "f.json"))
    assert loaded.params == fit.params and loaded.bootstrap == fit.bootstrap and loaded.kind == "family"
    assert np.allclose(loaded.effective_params([0.4, 0.6]), fit.effective_params([0.4, 0.6]))


def test_mixtures_unknown_budgets_and_chance_scores_are_dropped_and_named():
    table = planted_family()
    table.loc[0, "value"] = 0.2  # below chance
    table.loc[1, "active_params"] = 1e9  # a mixture of experts
    table.loc[2, "train_tokens"] = np.nan
    fit = fit_family(table, "F", "mmlu", n_boot=10)
    dropped = fit.provenance["dropped"]
    assert dropped["at_chance"] == ["F-500M"] and dropped["moe"] == ["F-1800M"] and dropped["no_tokens"] == ["F-4000M"]
    assert fit.stages[0].n_points == len(table) - 3
    assert set(fit.provenance["members"]) == set(table["model"])  # every member, fitted or not: never a target


def test_a_family_whose_score_falls_with_size_is_refused():
    table = planted_family()
    table["value"] = table["value"].to_numpy()[::-1]
    with pytest.raises(FitError, match="does not rise"):
        fit_family(table, "F", "mmlu", n_boot=0)


def test_held_out_error_predicts_the_largest_member_from_the_rest():
    table = planted_family(noise=0.0)
    result = held_out_error(table, "F", "mmlu")
    assert result["held_out"] == "F-72000M" and result["relative_error"] < 1e-9
    table.loc[table.index[-1], "value"] += 0.05
    assert held_out_error(table, "F", "mmlu")["relative_error"] == pytest.approx(0.05 / table["value"].iloc[-1], rel=1e-6)
