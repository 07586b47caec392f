"""The score-space versions of the joint inversion (:mod:`densing.laws.joint`, ``space="score"``), kept beside the
rule: x̂ minimises the effective-variance chi-square (Orear 1982, Am. J. Phys. 50)

    χ²(x) = Σ_b (S_b − S_b(x))² / (σ_b² + τ_b² + S_b'(x*)²·s²)

by safeguarded Newton steps (:func:`solve`), with τ_b² and S_b' at x* = the start point x₀ (the first version, one
solve) or at the solution itself, iterated (the second, :func:`_solve_at_solution`; docs/method.md "The weights at the
solution").
"""

from __future__ import annotations

import math

import numpy as np

from densing.laws.joint_law import LOG_SIZE_HIGH, LOG_SIZE_LOW, _constants, _predict, _single, prediction_variance
from densing.laws.reference_fit import ReferenceFit

ITERATIONS = 30
MAX_STEP = 2.0
#: A (draw, model) whose Newton step moves ln N̂ by less than this has converged (:func:`solve`).
TOLERANCE = 1e-8
#: The most rounds of weights-then-solve (:func:`invert_joint`), and how far a model's x̂ may move in its last round
#: and count as settled.
MAX_ROUNDS = 20
ROUND_TOLERANCE = 1e-6


def _nansum(terms: np.ndarray) -> np.ndarray:
    """np.nansum over the first axis (a few benchmarks), keeping it: where no term is NaN, the terms added first to
    last, as numpy's sum adds so few (the same number: ``tests/laws/test_joint.py`` holds the solve to np.nansum's)."""
    if not len(terms):
        return np.nansum(terms, axis=0, keepdims=True)
    total = terms[:1] + terms[1:2] if len(terms) > 1 else terms[:1].copy()
    for b in range(2, len(terms)):
        total += terms[b : b + 1]
    return np.nansum(terms, axis=0, keepdims=True) if np.isnan(total).any() else total


def _moved(p: dict[str, np.ndarray], x: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """x after one safeguarded Newton step (:func:`solve`), arrays broadcast to (B, ...), x of shape (1, ...)."""
    pred, slope, curve = _predict(p, x, second=True)
    residual = np.subtract(scores, pred, out=pred)
    weighted = weights * slope
    gauss = _nansum(np.multiply(weighted, slope, out=slope))
    num = _nansum(np.multiply(weighted, residual, out=weighted))
    residual *= weights
    residual *= curve
    newton = gauss - _nansum(residual)
    den = np.where(newton > 0.1 * gauss, newton, gauss)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(den > 0, num / den, np.sign(num) * MAX_STEP)
    step[np.isnan(step)] = 0.0
    np.clip(step, -MAX_STEP, MAX_STEP, out=step)
    step += x
    return np.clip(step, LOG_SIZE_LOW, LOG_SIZE_HIGH, out=step)


def solve(p: dict[str, np.ndarray], scores: np.ndarray, weights: np.ndarray, start: np.ndarray) -> np.ndarray:
    """x̂ minimising Σ_b w_b (S_b − S_b(x))² by safeguarded Newton steps; arrays broadcast to (draws, models, B).

    The curvature is Σ w (S'² − r·S''), r = S − S(x) (Newton: quadratic convergence even when the benchmarks
    disagree), or the Gauss–Newton Σ w S'² where it is not positive. Steps are clipped to ±2 in ln N and x to its
    range. Each (draw, model) stops on its own, once a step moves it by less than :data:`TOLERANCE` (that step kept)
    or after 30 steps, so its value never depends on the others solved beside it. The arrays are held benchmarks
    first, (B, draws, models), a constant along an axis cut to length 1 there (a power law's α); the rows still
    moving are gathered from them.
    """
    x = np.clip(np.asarray(start, float), LOG_SIZE_LOW, LOG_SIZE_HIGH)[..., None]
    if x.size == 0:  # no model: nothing to solve
        return x[..., 0]
    shape = np.broadcast_shapes(x.shape, np.shape(scores), np.shape(weights), *(np.shape(v) for v in p.values()))
    models = shape[-2] if len(shape) > 1 else 1

    def cube(a):  # a as (B, draws, models), contiguous; an axis it is broadcast along (stride 0) of length 1
        a = np.asarray(a, float)
        a = a[tuple(slice(0, 1) if step == 0 else slice(None) for step in a.strides)]
        return np.ascontiguousarray(np.moveaxis(a.reshape((-1,) + ((1, 1) + a.shape)[-2:]), -1, 0))

    def gathered(a):  # (B or 1, rows or 1): the active (draw, model) rows
        """``a``'s entries at the active rows: by (draw, model) where it varies along both, by draw or by model where
        it varies along one, all of it where it varies along neither."""
        varies_by_draw, varies_by_model = a.shape[1] > 1, a.shape[2] > 1
        flat = a.reshape(len(a), -1)
        if varies_by_draw and varies_by_model:
            return np.take(flat, active, axis=1)
        if varies_by_draw:
            return np.take(flat, draw, axis=1)
        if varies_by_model:
            return np.take(flat, model, axis=1)
        return flat

    law = {k: _single(cube(v)) for k, v in _constants(p).items()}
    law_scores, law_weights = cube(scores), cube(weights)
    pa, sa, wa = law, law_scores, law_weights
    xa = np.broadcast_to(cube(x), (1, math.prod(shape[:-2]), models)).copy()  # one row per (draw, model)
    out, active = xa.reshape(-1), np.arange(xa.size)
    done = np.zeros(len(out), bool)  # rows of the arrays that have converged: they stay where they are
    for _ in range(ITERATIONS):
        moved = _moved(pa, xa, sa, wa)
        flat, xa = moved.reshape(-1), xa.reshape(-1)
        np.copyto(flat, xa, where=done)  # before out is written: xa may be out itself
        done |= np.abs(flat - xa) < TOLERANCE  # a size pinned at the range's edge no longer moves
        out[active] = flat
        if done.all():
            break
        if done.sum() > 0.3 * len(done):  # the converged rows leave the arrays, gathered from the whole ones
            going = np.flatnonzero(~done)
            active, xa, done = active[going], flat[going][None], np.zeros(len(going), bool)
            draw = active // models
            model = active - draw * models
            pa = {k: gathered(v) for k, v in law.items()}
            sa, wa = gathered(law_scores), gathered(law_weights)
        else:
            xa = moved
    return out.reshape(shape[:-1])


def _effective_weights(
    fits: list[ReferenceFit], p: dict[str, np.ndarray], x: np.ndarray, sigma2: np.ndarray, s2: float
) -> tuple[np.ndarray, np.ndarray]:
    """(τ², weights) at x (models,): τ_b²(x) the fits' bootstrap variance of S_b(x) and the effective-variance
    weights 1 / (σ_b² + τ_b²(x) + S_b'(x)²·s²) (Orear 1982), each of shape (models, B)."""
    tau2 = prediction_variance(fits, x)
    _, slope = _predict(p, np.asarray(x, float)[None, :, None])
    return tau2, 1.0 / np.maximum(sigma2 + tau2 + np.square(slope[0]) * s2, 1e-12)


def _solve_at_solution(
    fits: list[ReferenceFit],
    p: dict[str, np.ndarray],
    scores: np.ndarray,
    sigma2: np.ndarray,
    s2: float,
    x: np.ndarray,
    weights: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The weights-then-solve rounds of ``weights_at="solution"`` (module docstring), from the first round's ``x``
    (solved with ``weights``, those at x₀): returns (x̂, τ², weights, rounds, settled), the weights those x̂ was
    solved with. Each model's rounds are its own: a settled model stops, so its x̂ never depends on the models beside
    it. A model still moving after :data:`MAX_ROUNDS` rounds is solved once more with the mean of its last two
    rounds' weights (the two points of a cycle), and stays marked unsettled."""
    models = len(x)
    x = np.array(x, float)
    weights = np.array(weights, float)
    tau2 = np.zeros_like(weights)
    rounds = np.ones(models, int)
    settled = np.zeros(models, bool)
    active = np.arange(models)
    previous = weights.copy()  # each model's weights of its round before the last
    for _ in range(MAX_ROUNDS - 1):
        if not len(active):
            break
        new_tau2, new_weights = _effective_weights(fits, p, x[active], sigma2[active], s2)
        moved_x = solve(p, scores[None, active], new_weights[None], x[None, active])[0]
        previous[active], weights[active], tau2[active] = weights[active], new_weights, new_tau2
        rounds[active] += 1
        now_settled = np.abs(moved_x - x[active]) <= ROUND_TOLERANCE
        x[active] = moved_x
        settled[active[now_settled]] = True
        active = active[~now_settled]
    if len(active):  # a cycle: once more, with the mean of its two points' weights
        weights[active] = 0.5 * (weights[active] + previous[active])
        x[active] = solve(p, scores[None, active], weights[None, active], x[None, active])[0]
        tau2[active] = prediction_variance(fits, x[active])
    return x, tau2, weights, rounds, settled
