"""Planted-parameter recovery for every law (the JSON round trip of reference fits: test_reference_fit.py)."""

import numpy as np
import pandas as pd
import pytest

from densing.errors import FitError, InputError
from densing.laws import fit as lawfit, forms, problems
from densing.laws.reference import fit_reference

LAW = dict(a=400.0, alpha=0.34, b=410.0, beta=0.28)
SIGMOID = dict(c=0.7, gamma=-4.0, l=1.0, d=0.25)  # scores span 0.28–0.90 on the grid


def _grid(seed=0):
    """A reference ladder: 8 sizes × 10 token counts, as checkpoints of 8 runs."""
    sizes = np.geomspace(5e7, 1.5e10, 8)
    tokens = np.geomspace(5e9, 3e12, 10)
    n, t = (a.ravel() for a in np.meshgrid(sizes, tokens))
    return n, t, np.random.default_rng(seed)


def test_loss_law_recovers_planted_parameters():
    n, t, rng = _grid()
    loss = forms.loss_law(n, t, **LAW) * np.exp(rng.normal(0, 0.003, n.size))
    stage = lawfit.fit_stage(problems.loss_problem(n, t, loss), loss="linear")
    assert stage.converged
    assert stage.params["alpha"] == pytest.approx(LAW["alpha"], abs=0.02)
    assert stage.params["beta"] == pytest.approx(LAW["beta"], abs=0.02)
    assert stage.params["a"] == pytest.approx(LAW["a"], rel=0.35)
    assert stage.params["b"] == pytest.approx(LAW["b"], rel=0.35)
    assert stage.r_squared > 0.99


def test_loss_law_with_irreducible_term():
    n, t, rng = _grid(1)
    loss = forms.loss_law(n, t, **LAW, E=1.2) * np.exp(rng.normal(0, 0.002, n.size))
    stage = lawfit.fit_stage(problems.loss_problem(n, t, loss, irreducible=True), loss="linear")
    assert stage.params["E"] == pytest.approx(1.2, abs=0.1)
    assert stage.params["alpha"] == pytest.approx(LAW["alpha"], abs=0.05)


def test_performance_law_recovers_planted_parameters():
    rng = np.random.default_rng(2)
    loss = np.linspace(0.2, 2.0, 120)
    score = forms.performance_law(loss, **SIGMOID) + rng.normal(0, 0.005, loss.size)
    stage = lawfit.fit_stage(problems.performance_problem(loss, score), loss="soft_l1", f_scale=0.02)
    for name, value in SIGMOID.items():
        assert stage.params[name] == pytest.approx(value, abs=0.05 * max(1, abs(value))), name
    fixed = lawfit.fit_stage(problems.performance_problem(loss, score, chance=0.25, ceiling=0.95), f_scale=0.02)
    assert fixed.params["d"] == 0.25 and fixed.params["c"] == pytest.approx(0.70)
    assert fixed.params["gamma"] == pytest.approx(SIGMOID["gamma"], rel=0.05)


def test_composed_law_recovers_what_is_identified():
    """γ is fixed to −1 in the composed law; (a, b, l) absorb the scale. N̂ is scale-free."""
    n, t, rng = _grid(3)
    score = forms.composed_law(n, t, **LAW, **SIGMOID) + rng.normal(0, 0.004, n.size)
    stage = lawfit.fit_stage(problems.composed_problem(n, t, score, chance=0.25), f_scale=0.02)
    p = stage.params
    assert p["gamma"] == -1.0 and p["d"] == 0.25
    assert p["alpha"] == pytest.approx(LAW["alpha"], abs=0.05)
    assert p["beta"] == pytest.approx(LAW["beta"], abs=0.05)
    assert p["c"] == pytest.approx(SIGMOID["c"], abs=0.05)
    # the scale: a_fit ≈ a·|γ| = 4a
    assert p["a"] == pytest.approx(LAW["a"] * 4.0, rel=0.5)
    # effective sizes agree with the planted law's
    truth = forms.params_for_loss(forms.loss_for_score(0.6, **SIGMOID), 1e12, **LAW)
    got = forms.params_for_loss(
        forms.loss_for_score(0.6, p["c"], p["gamma"], p["l"], p["d"]), 1e12, p["a"], p["alpha"], p["b"], p["beta"]
    )
    assert got == pytest.approx(truth, rel=0.25)


def _tidy(n, t, score, loss=None, benchmark="toy"):
    rows = pd.DataFrame(
        {
            "model": [f"run{int(np.log(a) * 1000)}@step{int(b // 1e6)}" for a, b in zip(n, t)],
            "benchmark": benchmark,
            "metric": "acc",
            "value": score,
            "params": n,
            "train_tokens": t,
            "loss": loss if loss is not None else np.nan,
            "run": [f"run{int(np.log(a) * 1000)}" for a in n],
        }
    )
    from densing.data import validate_results

    return validate_results(rows, source="synthetic")


def test_two_step_reference_fit_and_bootstrap_cover_the_truth():
    n, t, rng = _grid(4)
    loss = forms.loss_law(n, t, **LAW) * np.exp(rng.normal(0, 0.004, n.size))
    score = forms.performance_law(loss, **SIGMOID) + rng.normal(0, 0.004, n.size)
    fit = fit_reference(_tidy(n, t, score, loss), "toy", law="two-step", n_boot=40, seed=1)
    ci = fit.parameter_ci().set_index("parameter")
    for name in ("alpha", "beta", "gamma"):
        truth = {**LAW, **SIGMOID}[name]
        assert ci.loc[name, "ci_low"] - 0.03 <= truth <= ci.loc[name, "ci_high"] + 0.03, name
    assert fit.provenance["bootstrap_unit"] == "series"
    assert len(fit.bootstrap) + fit.provenance["n_boot_failed"] == 40


def test_too_few_points_is_a_fit_error():
    with pytest.raises(FitError, match="more points than parameters"):
        problems.loss_problem([1e8, 1e9, 1e10], [1e11] * 3, [3.0, 2.5, 2.2])


def test_two_step_without_losses_names_the_model():
    n, t, _ = _grid()
    with pytest.raises(InputError, match="field 'loss' is empty"):
        fit_reference(_tidy(n, t, np.full(n.size, 0.5)), "toy", law="two-step", n_boot=0)


def test_bootstrap_draws_do_not_depend_on_jobs():
    n, t, rng = _grid(6)
    score = forms.composed_law(n, t, **LAW, **SIGMOID) + rng.normal(0, 0.004, n.size)
    table = _tidy(n, t, score)
    one = fit_reference(table, "toy", law="composed", chance=0.25, n_boot=6, seed=3, jobs=1)
    two = fit_reference(table, "toy", law="composed", chance=0.25, n_boot=6, seed=3, jobs=2)
    assert one.bootstrap == two.bootstrap and len(one.bootstrap) == 6
