"""The family law's power shape S(N) = d + c·σ(γ·(u − l)), u = −(N/N_unit)^−α: planted recovery, the inverse and its
asymptote, the joint inversion, the fit file, and the logistic_ln_n shape of files written before it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from densing.errors import InputError
from densing.laws import forms
from densing.laws.bounds import LOWER, log_density_bounds, score_cap
from densing.laws.family import POWER_ALPHA, fit_family
from densing.laws.joint import _predict, family_columns, invert_joint
from densing.laws.reference_fit import ABOVE_CEILING, ReferenceFit
from studies.family_law_shape import held_out_test

SIZES = (0.5e9, 1.8e9, 4e9, 7e9, 14e9, 32e9, 72e9)
# (γ, l, chance) per benchmark of the planted power-shaped family
PLANT = {"mmlu": (3.0, -0.3, 0.25), "hellaswag": (2.0, -0.6, 0.25), "winogrande": (2.5, -0.4, 0.5)}


def power_score(sizes, gamma: float, level: float, chance: float) -> np.ndarray:
    """S(N) = d + (1 − d)·σ(γ·(u − l)), u = −(N / 10⁹)^−0.34, written out here (not through densing's helpers)."""
    u = -((np.asarray(sizes, float) / 1e9) ** -0.34)
    return chance + (1 - chance) / (1 + np.exp(-gamma * (u - level)))


def power_family(
    gamma: float, level: float, chance: float = 0.25, benchmark: str = "mmlu", sizes=SIZES
) -> pd.DataFrame:
    n = np.asarray(sizes, float)
    return pd.DataFrame(
        {
            "model": [f"F-{int(x / 1e6)}M" for x in n],
            "family": "F",
            "benchmark": benchmark,
            "metric": "acc",
            "value": power_score(n, gamma, level, chance),
            "params": n,
            "train_tokens": 3e12,
            "active_params": np.nan,
        }
    )


def test_the_default_shape_is_power_with_its_stated_exponent():
    fit = fit_family(power_family(3.0, -0.3), "F", "mmlu", n_boot=10)
    assert fit.provenance["shape"] == "power" and POWER_ALPHA == 0.34
    assert fit.params["alpha"] == 0.34 and fit.params["n_unit"] == 1e9
    assert "Hoffmann" in fit.provenance["alpha_source"] and "u = -(N / n_unit)^-alpha" in fit.provenance["law_form"]


@settings(max_examples=25, deadline=None)
@given(gamma=st.floats(1.0, 6.0), level=st.floats(-0.8, 0.2))
def test_planted_power_parameters_are_recovered_and_every_member_inverts_to_its_size(gamma, level):
    table = power_family(gamma, level)
    fit = fit_family(table, "F", "mmlu", n_boot=20, shape="power")
    assert fit.params["gamma"] == pytest.approx(gamma, rel=1e-6)
    assert fit.params["l"] == pytest.approx(level, rel=1e-6, abs=1e-6)  # l is on the covariate's scale (|u| ~ 1)
    sizes = fit.effective_params(table["value"].to_numpy())
    np.testing.assert_allclose(sizes, table["params"], rtol=1e-6)


@settings(max_examples=40, deadline=None)
@given(share=st.floats(0.01, 0.99))
def test_a_score_below_the_asymptote_round_trips_through_its_size(share):
    fit = fit_family(power_family(3.0, -0.3), "F", "mmlu", n_boot=0, shape="power")
    asymptote = fit.provenance["asymptote"]
    score = 0.25 + share * (asymptote - 0.25)
    _, size, reason = fit.invert(np.array([score]))
    assert reason[0] == "" and 0 < size[0] < np.inf
    assert float(fit.predict_score(size, fit.d0)[0]) == pytest.approx(score, abs=1e-9)


def test_a_score_at_or_above_the_asymptote_is_a_lower_bound():
    fit = fit_family(power_family(3.0, -0.3), "F", "mmlu", n_boot=0, shape="power")
    asymptote = 0.25 + 0.75 / (1 + math.exp(3.0 * -0.3))  # d + c·σ(−γ·l)
    assert fit.provenance["asymptote"] == pytest.approx(asymptote, rel=1e-9) and asymptote < 1.0
    assert float(score_cap(fit.params, fit.d0)) == pytest.approx(asymptote, rel=1e-9)
    _, size, reason = fit.invert(np.array([asymptote + 1e-3, 0.95]))
    assert np.isinf(size).all() and (reason == ABOVE_CEILING).all()
    # the density engine carries it as a lower bound: the size of the asymptote less two standard errors
    y, kind = log_density_bounds(fit.params, np.array([asymptote + 0.01]), np.array([0.005]), np.array([7e9]), fit.d0)
    assert kind[0] == LOWER and np.isfinite(y[0])
    below = fit.invert(np.array([asymptote - 2 * 0.005]))[1]  # min(S, cap) − 2σ
    assert y[0] == pytest.approx(math.log(below[0] / 7e9), rel=1e-9)


def test_the_power_shapes_derivatives_in_ln_n_match_finite_differences():
    fit = fit_family(power_family(3.0, -0.3), "F", "mmlu", n_boot=0, shape="power")
    p = family_columns([fit])
    x = np.array([[[math.log(3e9)], [math.log(4e10)]]])
    value, slope, curve = _predict(p, x, second=True)
    h = 1e-5
    up, down = _predict(p, x + h)[0], _predict(p, x - h)[0]
    np.testing.assert_allclose(slope, (up - down) / (2 * h), rtol=1e-6)
    slope_up, slope_down = _predict(p, x + h)[1], _predict(p, x - h)[1]
    np.testing.assert_allclose(curve, (slope_up - slope_down) / (2 * h), rtol=1e-5)
    np.testing.assert_allclose(value[0, :, 0], fit.predict_score(np.exp(x[0, :, 0]), fit.d0), rtol=1e-12)


def _power_fits(n_boot: int = 50) -> list[ReferenceFit]:
    table = pd.concat([power_family(g, l, chance=d, benchmark=b) for b, (g, l, d) in PLANT.items()])
    return [fit_family(table, "F", b, n_boot=n_boot, seed=0, shape="power") for b in PLANT]


@settings(max_examples=15, deadline=None)
@given(sizes=st.lists(st.floats(math.log(3e8), math.log(3e11)), min_size=1, max_size=6))
def test_the_joint_inversion_under_the_power_shape_recovers_planted_sizes(sizes):
    fits = _power_fits()
    log_n = np.array(sizes)
    scores = np.column_stack([power_score(np.exp(log_n), g, l, d) for g, l, d in PLANT.values()])
    result = invert_joint(fits, scores, np.full(scores.shape, 0.005))
    np.testing.assert_allclose(result.log_size, log_n, atol=1e-6)
    assert np.allclose(result.chi2, 0, atol=1e-8) and (result.censored == "").all()


def test_the_joint_inversion_refuses_fits_of_two_shapes():
    table = pd.concat([power_family(g, l, chance=d, benchmark=b) for b, (g, l, d) in PLANT.items()])
    fits = [
        fit_family(table, "F", "mmlu", n_boot=10, shape="power"),
        fit_family(table, "F", "hellaswag", n_boot=10, shape="logistic_ln_n"),
    ]
    with pytest.raises(InputError, match="one shape"):
        invert_joint(fits, np.array([[0.5, 0.6]]), np.array([[0.01, 0.01]]))


def test_the_held_out_test_under_the_law_that_made_the_family_finds_no_error():
    table = power_family(3.0, -0.3)
    held = held_out_test(table, "F", "mmlu", shape="power")
    assert held["predicted"] == pytest.approx(held["measured"], abs=1e-9) and abs(held["z"]) < 1e-6
    # the logistic in ln N, fitted on the same members, over-predicts the largest: it does not flatten
    logistic = held_out_test(table, "F", "mmlu", shape="logistic_ln_n")
    assert logistic["predicted"] > logistic["measured"] + 0.005


def test_the_fit_file_keeps_the_shape_and_a_file_without_one_reads_as_logistic_ln_n():
    fit = fit_family(power_family(3.0, -0.3), "F", "mmlu", n_boot=10, shape="power")
    again = ReferenceFit.from_dict(fit.to_dict())
    assert again.params == fit.params and again.provenance["shape"] == "power"
    np.testing.assert_allclose(again.predict_score(SIZES, fit.d0), fit.predict_score(SIZES, fit.d0), rtol=1e-12)
    old = fit.to_dict()
    old["params"] = {k: old["params"][k] for k in ("c", "gamma", "l", "d")}
    old["params"].update(gamma=0.45, l=22.0)
    old["bootstrap"] = []
    legacy = ReferenceFit.from_dict(old)
    np.testing.assert_allclose(legacy.predict_loss(SIZES, fit.d0), np.log(SIZES))
    np.testing.assert_allclose(
        legacy.predict_score(SIZES, fit.d0), forms.performance_law(np.log(SIZES), 0.75, 0.45, 22.0, 0.25)
    )
    half = fit.to_dict()
    del half["params"]["n_unit"]
    with pytest.raises(InputError, match="needs both alpha and n_unit"):
        ReferenceFit.from_dict(half)


def test_an_unknown_shape_is_an_input_error():
    with pytest.raises(InputError, match="shape: expected one of power, logistic_ln_n"):
        fit_family(power_family(3.0, -0.3), "F", "mmlu", n_boot=0, shape="cubic")
