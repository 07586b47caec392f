"""One effective size per model from all of its scores at once (beyond the paper).

The Densing Law paper inverts each benchmark separately and averages the densities. Given one
reference law per benchmark b, S_b(x) with x = ln N̂ (the family laws of
:mod:`densing.laws.family`, all fitted on one family at one budget), a model's scores S_b with
standard errors σ_b are explained jointly by the x̂ that minimises the effective-variance
chi-square (Orear 1982, "Least squares when both variables have uncertainties", Am. J. Phys. 50)

    χ²(x) = Σ_b (S_b − S_b(x))² / (σ_b² + τ_b²),          τ_b² = Var_k[S_b^(k)(x₀)]

τ_b² being the reference's own uncertainty at the model's size (the variance of the prediction
over the fit's bootstrap draws k, at the start point x₀), so a benchmark the reference predicts
poorly there weighs less. Under Gaussian errors this is the maximum-likelihood x for fixed
weights. It is solved by Gauss–Newton from x₀ = the weighted mean of the per-benchmark
inversions, vectorised over models and draws, within [ln 10⁵, ln 10¹⁵]; an x̂ at the lower
(upper) edge is censored: the scores say only that N̂ is below (above) it.

**Disagreement.** χ²(x̂)/(B − 1), the Birge ratio (Birge 1932), says how much more the benchmarks
disagree about x than their errors allow: ≈ 1 when they agree, ≫ 1 when a model is, say, much
stronger at maths than at common sense relative to the reference. Its square root widens the
per-model interval (score noise scaled by it) where it exceeds 1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from densing.errors import InputError
from densing.laws import forms
from densing.laws.reference import ReferenceFit

LOG_SIZE_LOW = math.log(1e5)
LOG_SIZE_HIGH = math.log(1e15)
ITERATIONS = 30
MAX_STEP = 2.0


def family_columns(fits: list[ReferenceFit], picks: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The family laws' parameters as arrays of shape (draws, 1, B): point values, or the draws ``picks``."""
    for fit in fits:
        if fit.has_data_term:
            raise InputError(f"fits: the joint inversion takes family references; {fit.kind}:{fit.benchmark} is not one")
    if picks is None:
        cols = {k: np.array([[[float(f.params[k]) for f in fits]]]) for k in ("c", "gamma", "l", "d")}
        return cols
    out = {k: np.empty((len(picks), 1, len(fits))) for k in ("c", "gamma", "l", "d")}
    for j, fit in enumerate(fits):
        p = fit.draw_columns(picks)
        for k in out:
            out[k][:, 0, j] = np.asarray(p[k]).reshape(-1)
    return out


def _predict(p: dict[str, np.ndarray], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """S_b(x) and dS_b/dx for x of shape (draws, models, 1)."""
    z = np.clip(p["gamma"] * (x - p["l"]), -700, 700)
    s = 1.0 / (1.0 + np.exp(-z))
    return p["d"] + p["c"] * s, p["c"] * p["gamma"] * s * (1 - s)


def prediction_variance(fits: list[ReferenceFit], x: np.ndarray) -> np.ndarray:
    """τ_b² at x (models,): the variance of S_b(x) over each fit's bootstrap draws, shape (models, B)."""
    out = np.zeros((np.size(x), len(fits)))
    for j, fit in enumerate(fits):
        if not fit.bootstrap:
            continue
        p = fit.draw_columns(np.arange(len(fit.bootstrap)))
        pred = forms.performance_law(np.asarray(x, float)[None, :], p["c"], p["gamma"], p["l"], p["d"])
        out[:, j] = np.var(pred, axis=0)
    return out


def solve(p: dict[str, np.ndarray], scores: np.ndarray, weights: np.ndarray, start: np.ndarray) -> np.ndarray:
    """x̂ minimising Σ_b w_b (S_b − S_b(x))² by Gauss–Newton; arrays broadcast to (draws, models, B)."""
    x = np.clip(np.asarray(start, float), LOG_SIZE_LOW, LOG_SIZE_HIGH)[..., None]
    for _ in range(ITERATIONS):
        pred, slope = _predict(p, x)
        residual = scores - pred
        num = np.nansum(weights * slope * residual, axis=-1, keepdims=True)
        den = np.nansum(weights * slope * slope, axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(den > 0, num / den, np.sign(num) * MAX_STEP)
        step = np.clip(np.nan_to_num(step), -MAX_STEP, MAX_STEP)
        moved = np.clip(x + step, LOG_SIZE_LOW, LOG_SIZE_HIGH)
        change = float(np.max(np.abs(moved - x)))
        x = moved
        if change < 1e-8:  # ln N̂ to 1e-8 (a size pinned at the range's edge no longer moves): far below any interval
            break
    return x[..., 0]


def start_points(p: dict[str, np.ndarray], scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """x₀: the weighted mean of the per-benchmark inversions l_b + logit((S_b − d_b)/c_b)/γ_b (clipped to the grid)."""
    u = np.clip((scores - p["d"]) / p["c"], 1e-6, 1 - 1e-6)
    x = p["l"] + np.log(u / (1 - u)) / p["gamma"]
    x = np.clip(x, LOG_SIZE_LOW, LOG_SIZE_HIGH)
    w = np.where(np.isnan(scores), 0.0, weights)
    return np.sum(w * np.nan_to_num(x), axis=-1) / np.maximum(np.sum(w, axis=-1), 1e-300)


@dataclass(frozen=True)
class JointInversion:
    """The joint effective size of each model: x̂ = ln N̂, its censoring, τ², χ² and the Birge ratio."""

    log_size: np.ndarray          # (models,)
    censored: np.ndarray          # (models,) '' / 'below_range' / 'above_range'
    tau2: np.ndarray              # (models, B)
    chi2: np.ndarray              # (models,)
    birge_ratio: np.ndarray       # (models,) sqrt(χ²/(B − 1)), NaN for B = 1


def invert_joint(fits: list[ReferenceFit], scores, stderr) -> JointInversion:
    """x̂ per model (module docstring); ``scores`` and ``stderr`` of shape (models, B), B = len(fits)."""
    scores = np.asarray(scores, float)
    sigma2 = np.square(np.nan_to_num(np.asarray(stderr, float)))
    if scores.ndim != 2 or scores.shape[1] != len(fits):
        raise InputError(f"scores: expected shape (models, {len(fits)}), got {scores.shape}")
    p = family_columns(fits)
    first = start_points(p, scores[None], 1.0 / np.maximum(sigma2, 1e-12)[None])[0]
    tau2 = prediction_variance(fits, first)
    weights = 1.0 / np.maximum(sigma2 + tau2, 1e-12)
    x = solve(p, scores[None], weights[None], start_points(p, scores[None], weights[None]))[0]
    pred, _ = _predict(p, x[None, :, None])
    chi2 = np.nansum(weights * (scores - pred[0]) ** 2, axis=-1)
    n_b = np.sum(~np.isnan(scores), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        birge = np.where(n_b > 1, np.sqrt(chi2 / np.maximum(n_b - 1, 1)), np.nan)
    censored = np.where(x <= LOG_SIZE_LOW + 1e-9, "below_range", np.where(x >= LOG_SIZE_HIGH - 1e-9, "above_range", ""))
    return JointInversion(log_size=x, censored=censored.astype(object), tau2=tau2, chi2=chi2, birge_ratio=birge)


def joint_draws(fits: list[ReferenceFit], scores, stderr, weights, picks: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """x̂ under fit draws ``picks`` (draws,) and scores S + noise (draws, models, B): shape (draws, models)."""
    p = family_columns(fits, picks)
    drawn = np.asarray(scores, float)[None] + noise
    w = np.broadcast_to(weights, drawn.shape)
    return solve(p, drawn, w, start_points(p, drawn, w))
