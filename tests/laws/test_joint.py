"""The joint inversion: planted sizes recovered, precision weighting, disagreement measured, censoring at the range."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from densing.errors import InputError
from densing.laws import forms
from densing.laws.family import fit_family
from densing.laws.joint import LOG_SIZE_LOW, invert_joint
from tests.laws.test_family import planted_family

PLANT = {"mmlu": (0.45, 22.0), "hellaswag": (0.30, 19.0), "winogrande": (0.35, 21.0)}


def _fits(noise: float = 0.0, n_boot: int = 50):
    table = pd.concat(
        [
            planted_family(g, l, chance=0.5 if b == "winogrande" else 0.25, benchmark=b, noise=noise, seed=i)
            for i, (b, (g, l)) in enumerate(PLANT.items())
        ]
    )
    return [fit_family(table, "F", b, n_boot=n_boot, seed=0, shape="logistic_ln_n") for b in PLANT]


def _scores(log_n: np.ndarray) -> np.ndarray:
    return np.column_stack(
        [
            forms.performance_law(
                log_n, 1 - (0.5 if b == "winogrande" else 0.25), g, l, 0.5 if b == "winogrande" else 0.25
            )
            for b, (g, l) in PLANT.items()
        ]
    )


@settings(max_examples=20, deadline=None)
@given(sizes=st.lists(st.floats(math.log(3e8), math.log(3e11)), min_size=1, max_size=8))
def test_scores_made_by_the_reference_give_back_their_size(sizes):
    fits = _fits()
    log_n = np.array(sizes)
    result = invert_joint(fits, _scores(log_n), np.full((log_n.size, 3), 0.005))
    assert np.allclose(result.log_size, log_n, atol=1e-6)
    assert np.allclose(result.chi2, 0, atol=1e-8) and (result.censored == "").all()


def test_the_more_precise_benchmark_weighs_more():
    fits = _fits()
    scores = _scores(np.array([math.log(1e10)]))
    scores[0, 0] += 0.03  # MMLU says "larger"
    precise_mmlu = invert_joint(fits, scores, np.array([[0.001, 0.02, 0.02]])).log_size[0]
    vague_mmlu = invert_joint(fits, scores, np.array([[0.02, 0.001, 0.001]])).log_size[0]
    assert precise_mmlu > vague_mmlu > math.log(1e10) - 1e-9
    single = fits[0].effective_params(scores[:, 0])[0]
    assert precise_mmlu == pytest.approx(math.log(single), abs=0.05)


def test_disagreement_shows_in_the_birge_ratio():
    fits = _fits()
    scores = _scores(np.array([math.log(1e10), math.log(1e10)]))
    scores[1] += np.array([0.04, -0.04, 0.0])
    result = invert_joint(fits, scores, np.full((2, 3), 0.004))
    assert result.birge_ratio[0] < 0.01 and result.birge_ratio[1] > 3


def test_scores_at_chance_everywhere_are_censored_below_the_range():
    fits = _fits()
    result = invert_joint(fits, np.array([[0.25, 0.25, 0.5]]), np.full((1, 3), 0.004))
    assert result.censored[0] == "below_range" and result.log_size[0] == pytest.approx(LOG_SIZE_LOW)


def test_the_fit_uncertainty_enters_as_tau():
    fits = _fits(noise=0.02, n_boot=200)
    result = invert_joint(fits, _scores(np.array([math.log(1e12)])), np.full((1, 3), 0.004))
    assert (result.tau2 > 0).all()  # far beyond the family (72B), the reference's own spread counts


def test_the_skill_variance_is_recovered_from_planted_disagreement():
    from densing.laws.joint import skill_variance

    fits = _fits()
    rng = np.random.default_rng(0)
    log_n = rng.uniform(math.log(2e9), math.log(5e10), 400)
    skill = 0.5
    scores = np.column_stack(
        [
            forms.performance_law(
                log_n + skill * rng.standard_normal(log_n.size),
                1 - (0.5 if b == "winogrande" else 0.25),
                g,
                l,
                0.5 if b == "winogrande" else 0.25,
            )
            for b, (g, l) in PLANT.items()
        ]
    )
    stderr = np.full(scores.shape, 1e-4)
    assert skill_variance(fits, scores, stderr) == pytest.approx(skill**2, rel=0.15)
    # no disagreement beyond the errors: zero, never negative
    assert skill_variance(fits, _scores(log_n), stderr) == pytest.approx(0.0, abs=1e-6)
    # the first version (skill="none") keeps weights from the errors alone
    none = invert_joint(fits, scores[:5], stderr[:5], skill="none")
    pooled = invert_joint(fits, scores[:5], stderr[:5])
    assert none.skill2 == 0 and pooled.skill2 > 0 and (pooled.weights < none.weights).all()


def _solve_every_step(p, scores, weights, start):
    """The Newton iteration of :func:`densing.laws.joint.solve` written plainly: every (draw, model) stepped until
    its own step moves it by less than the tolerance (that step kept), the law's terms as its docstring writes them,
    the sums over benchmarks np.nansum's."""
    from densing.laws.joint import ITERATIONS, LOG_SIZE_HIGH, MAX_STEP, TOLERANCE

    x = np.clip(np.asarray(start, float), LOG_SIZE_LOW, LOG_SIZE_HIGH)[..., None]
    done = np.zeros(x.shape, bool)
    for _ in range(ITERATIONS):
        if "alpha" in p:
            alpha = p["alpha"]
            v = -np.exp(np.clip(-alpha * (x - np.log(p["n_unit"])), -700, 700))
            dv, d2v = -alpha * v, alpha * alpha * v
        else:
            v, dv, d2v = x, np.ones_like(x), np.zeros_like(x)
        s = 1.0 / (1.0 + np.exp(-np.clip(p["gamma"] * (v - p["l"]), -700, 700)))
        core = p["c"] * p["gamma"] * s * (1 - s)
        slope, curve = core * dv, core * (p["gamma"] * (1 - 2 * s) * dv * dv + d2v)
        residual = scores - (p["d"] + p["c"] * s)
        num = np.nansum(weights * slope * residual, axis=-1, keepdims=True)
        gauss = np.nansum(weights * slope * slope, axis=-1, keepdims=True)
        newton = gauss - np.nansum(weights * residual * curve, axis=-1, keepdims=True)
        den = np.where(newton > 0.1 * gauss, newton, gauss)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(den > 0, num / den, np.sign(num) * MAX_STEP)
        moved = np.clip(x + np.clip(np.nan_to_num(step), -MAX_STEP, MAX_STEP), LOG_SIZE_LOW, LOG_SIZE_HIGH)
        moved = np.where(done, x, moved)
        done |= np.abs(moved - x) < TOLERANCE
        x = moved
        if done.all():
            break
    return x[..., 0]


@pytest.mark.parametrize("shape", ["power", "logistic_ln_n"])
def test_solving_only_the_moving_sizes_gives_the_same_bits(shape):
    """A (draw, model) whose step fell below the tolerance leaves the arrays solved, the law's constants are
    computed once and the sums over benchmarks added in place: the same bits as the plain iteration of each row on its
    own, for draws of the fits, missing scores and sizes pinned at the range's edge."""
    from pathlib import Path

    from densing.laws.joint import family_columns, solve, start_points
    from densing.laws.reference_fit import ReferenceFit

    if shape == "power":
        root = Path(__file__).resolve().parents[2] / "reference_fits"
        fits = [ReferenceFit.load(root / f"family_llama-3.1_{b}.json") for b in ("mmlu", "hellaswag", "winogrande")]
    else:
        fits = _fits(noise=0.02, n_boot=40)
    rng = np.random.default_rng(1)
    p = family_columns(fits, rng.integers(len(fits[0].bootstrap), size=40))
    log_n = rng.uniform(math.log(1e8), math.log(1e12), 30)
    floor = np.array([0.25, 0.25, 0.5])
    scores = np.clip(_scores(log_n) + rng.normal(0, 0.03, (40, 30, 3)), 0.0, 1.0)
    scores[:, 0] = floor - 0.02  # below chance everywhere: pinned at the range's lower edge
    scores[:, 1, 1] = np.nan  # a benchmark the model was not scored on
    weights = np.broadcast_to(1.0 / rng.uniform(0.005, 0.03, (30, 3)) ** 2, scores.shape)
    start = start_points(p, scores, weights)
    solved = solve(p, scores, weights, start)
    assert solved.shape == (40, 30) and solved.tobytes() == _solve_every_step(p, scores, weights, start).tobytes()
    assert (solved[:, 0] == LOG_SIZE_LOW).any()  # the edge case is exercised


def test_prediction_variance_is_the_variance_of_each_draws_prediction():
    """τ_b² at x: the variance over the fit's draws of S(x), computed here draw by draw (α and N_unit as columns, as
    draws give them); the same numbers where the fit has no n_unit and its default stands (the covariate is computed
    once per model when α is not drawn)."""
    import dataclasses
    import glob

    from densing import paths
    from densing.laws import joint
    from densing.laws.reference_fit import ReferenceFit

    fit = ReferenceFit.load(sorted(glob.glob(str(paths.REFERENCE_FITS / "family_*.json")))[0])
    x = np.log(np.array([3e8, 1e9, 7e9, 7e10]))
    p = fit.draw_columns()
    by_draw = forms.performance_law(
        forms.family_covariate(np.exp(x)[None, :], p["alpha"], p["n_unit"]), p["c"], p["gamma"], p["l"], p["d"]
    )
    together = joint.prediction_variance([fit], x)[:, 0]
    assert np.allclose(together, np.var(by_draw, axis=0), rtol=1e-12, atol=0)
    for i in range(len(x)):  # each model's variance the same bits alone as beside the others
        assert joint.prediction_variance([fit], x[i : i + 1])[0, 0] == together[i]
    default = dataclasses.replace(fit, params={k: v for k, v in fit.params.items() if k != "n_unit"})
    assert np.array_equal(joint.prediction_variance([default], x), joint.prediction_variance([fit], x))


def test_conditioning_keeps_a_score_moved_by_one_standard_error_in_its_domain():
    from densing.laws.inversion import Joint

    joint = Joint(tuple(_fits(n_boot=2)))
    scores = _scores(np.array([math.log(1e10), math.log(1e11)]))
    scores[1, 0] = 0.999  # one edge score: 0.999 + σ leaves [0, 1] unless the move is clipped
    kappa = joint.conditioning(scores, np.full(scores.shape, 0.01))
    assert kappa.shape == (2,) and np.all(kappa >= 1)


def test_a_score_outside_its_domain_is_refused_naming_its_model_and_benchmark():
    fits = _fits(n_boot=2)
    scores = _scores(np.array([math.log(1e10), math.log(1e11)]))
    scores[1, 1] = 1.02
    with pytest.raises(
        InputError, match=r"scores \(model 1, benchmark hellaswag\): expected a score in \[0, 1\], got 1.02"
    ):
        invert_joint(fits, scores, np.full(scores.shape, 0.01))


def _disagreeing(count: int = 12, seed: int = 3):
    """Scores of ``count`` models whose benchmarks disagree (each off its law by a skill of sd 0.6 in ln N)."""
    rng = np.random.default_rng(seed)
    log_n = rng.uniform(math.log(5e8), math.log(1e11), count)
    scores = np.column_stack(
        [
            forms.performance_law(
                log_n + rng.normal(0, 0.6, count),
                1 - (0.5 if b == "winogrande" else 0.25),
                g,
                l,
                0.5 if b == "winogrande" else 0.25,
            )
            for b, (g, l) in PLANT.items()
        ]
    )
    return scores, np.full(scores.shape, 0.004)


def test_the_weights_at_the_solution_are_those_of_the_solution():
    """The rule (docs/method.md "The weights at the solution"): each settled model's weights are the effective
    variance's at its own x̂, and x̂ minimises the chi-square under them (its gradient is zero)."""
    from densing.laws.joint import _effective_weights, _predict, family_columns

    fits = _fits(n_boot=30)
    scores, stderr = _disagreeing()
    found = invert_joint(fits, scores, stderr, space="score")
    assert found.settled.all() and (found.rounds > 1).all()
    p = family_columns(fits)
    tau2, weights = _effective_weights(fits, p, found.log_size, np.square(stderr), found.skill2)
    assert np.allclose(weights, found.weights, rtol=1e-4) and np.allclose(tau2, found.tau2, rtol=1e-4)
    pred, slope = _predict(p, found.log_size[None, :, None])
    gradient = np.sum(found.weights * (scores - pred[0]) * slope[0], axis=1)
    assert np.allclose(gradient, 0, atol=1e-6 * np.sum(found.weights * slope[0] ** 2, axis=1).max())


def test_the_first_version_takes_the_weights_at_the_start_point_in_one_solve():
    from densing.laws.joint import _effective_weights, family_columns, start_points

    fits = _fits(n_boot=30)
    scores, stderr = _disagreeing()
    first = invert_joint(fits, scores, stderr, weights_at="start", space="score")
    p = family_columns(fits)
    x0 = start_points(p, scores[None], 1.0 / np.square(stderr)[None])[0]
    _, weights = _effective_weights(fits, p, x0, np.square(stderr), first.skill2)
    assert np.array_equal(first.weights, weights) and (first.rounds == 1).all()
    second = invert_joint(fits, scores, stderr, space="score")
    assert not np.allclose(second.log_size, first.log_size, atol=1e-4)  # the two versions differ on disagreeing scores
    assert second.skill2 == first.skill2  # s² is the benchmarks' own readings', whichever weights


def test_a_model_solved_at_its_solution_does_not_depend_on_the_models_beside_it():
    fits = _fits(n_boot=30)
    scores, stderr = _disagreeing()
    for space in ("ln_n", "score"):
        together = invert_joint(fits, scores, stderr, space=space)
        for i in (0, 5, 11):
            alone = invert_joint(fits, scores[i : i + 1], stderr[i : i + 1], skill2=together.skill2, space=space)
            assert alone.log_size[0] == together.log_size[i] and alone.rounds[0] == together.rounds[i]


def test_weights_at_an_unknown_place_are_refused():
    with pytest.raises(InputError, match="weights_at"):
        invert_joint(_fits(n_boot=10), _scores(np.array([22.0])), np.full((1, 3), 0.01), weights_at="end")


def test_in_ln_n_the_size_is_the_readings_mean_under_their_weights_at_each_reading():
    """The rule (docs/method.md "Each benchmark read in ln N"): x̂ = Σ w_b x_b / Σ w_b with w_b = 1 / (s² + (σ_b² +
    τ_b²(x_b)) / S_b'(x_b)²), x_b each score read alone."""
    from densing.laws.joint import _predict, family_columns, prediction_variance

    fits = _fits(n_boot=30)
    scores, stderr = _disagreeing()
    found = invert_joint(fits, scores, stderr)
    assert found.skill2 > 0 and (found.rounds == 1).all() and found.settled.all()
    alone = np.log(found.per_benchmark_size)
    x_b = np.column_stack([np.log(fit.invert(scores[:, j])[1]) for j, fit in enumerate(fits)])
    assert np.allclose(x_b, alone, atol=1e-6)
    p = family_columns(fits)
    tau2 = np.column_stack([prediction_variance([fit], x_b[:, j])[:, 0] for j, fit in enumerate(fits)])
    slope = _predict(p, x_b[None])[1][0]
    weights = 1 / (found.skill2 + (np.square(stderr) + tau2) / np.square(slope))
    assert np.allclose(found.weights, weights, rtol=1e-6)
    assert np.allclose(found.log_size, np.sum(weights * x_b, axis=1) / np.sum(weights, axis=1), atol=1e-9)


def test_a_score_on_its_law_s_flat_top_carries_less_weight_in_ln_n_than_in_score():
    """A model whose MMLU sits just under its law's cap reads huge on MMLU alone. In ln N the flat top's slope makes
    that reading's variance large and its weight the smallest, and the size moves less than in score, where the
    precise MMLU weighs as much as the others; nearer the cap, its weight in ln N falls further."""
    fits = _fits(n_boot=30)
    truth = math.log(3e9)
    scores = _scores(np.array([truth]))
    cap = 1.0  # the planted MMLU law runs from 0.25 to 1
    scores[0, 0] = cap - 0.004
    stderr = np.array([[0.002, 0.01, 0.01]])
    in_ln_n = invert_joint(fits, scores, stderr, skill2=0.25)
    in_score = invert_joint(fits, scores, stderr, skill2=0.25, space="score")
    alone = math.log(fits[0].invert(scores[:, 0])[1][0])
    assert alone > truth + 3
    assert 0 < in_ln_n.log_size[0] - truth < in_score.log_size[0] - truth
    assert in_ln_n.weights[0, 0] < 0.25 * in_ln_n.weights[0, 1:].min()
    scores[0, 0] = cap - 0.01  # further from the cap: a steeper reading, a larger weight
    assert invert_joint(fits, scores, stderr, skill2=0.25).weights[0, 0] > in_ln_n.weights[0, 0]


def test_the_draws_in_ln_n_pool_the_drawn_readings_with_the_observed_weights():
    from densing.laws.inversion import Joint
    from densing.laws.joint import family_columns, start_points

    fits = _fits(n_boot=30)
    scores, stderr = _disagreeing(count=4)
    joint = Joint(tuple(fits))
    weights = joint.weights(scores, stderr)
    picks = np.array([0, 3, 7])
    drawn = scores[None] + np.random.default_rng(0).normal(0, 0.005, (3, *scores.shape))
    params = np.full(4, 1e9)
    y, kind = joint.draws(picks, drawn, stderr, params, weights=weights)
    p = family_columns(fits, picks)
    expected = start_points(p, drawn, np.broadcast_to(weights[None], drawn.shape)) - np.log(params)[None]
    assert np.allclose(y, expected) and (kind == 0).all()
