"""Each target's density under an inversion: the point value (or bound) and the table with intervals."""
from __future__ import annotations

import numpy as np
import pandas as pd

from densing.trend.censored import EXACT
from densing.trend.inversions import Joint, arrays


def point_densities(models: pd.DataFrame, inversion) -> tuple[np.ndarray, np.ndarray]:
    """ln ρ (or its bound) and its kind for every model under the inversion's point parameters."""
    scores, stderr = arrays(models, inversion.benchmarks)
    return inversion.point(scores, stderr, models["params"].to_numpy(float))


def density_table(models: pd.DataFrame, inversion, *, seed: int = 0, level: float = 0.95, n_draws: int = 600) -> pd.DataFrame:
    """ρ of every target under the inversion with its interval (fit draws × score noise), and per benchmark beside it.

    For the joint inversion the score noise also carries the between-benchmark skill variance
    (sd √(σ² + S'(x̂)²·s²), :mod:`densing.laws.joint`; with ``skill="none"``, the first version: σ
    scaled by the model's Birge ratio where it exceeds 1), and the per-benchmark densities and the
    Birge ratio are columns.
    """
    scores, stderr = arrays(models, inversion.benchmarks)
    params = models["params"].to_numpy(float)
    y, kind = inversion.point(scores, stderr, params)
    rng = np.random.default_rng(seed)
    count = min(n_draws, inversion.n_draws)
    picks = rng.integers(inversion.n_draws, size=count)
    noise_sd = np.nan_to_num(stderr)
    extra = {}
    out = models[["model", "params", "release_date"] + [c for c in ("family",) if c in models.columns]].copy()
    if isinstance(inversion, Joint):
        solved = inversion.solve_point(scores, stderr)
        if inversion.skill == "none":
            scale = np.where(np.nan_to_num(solved.birge_ratio) > 1, np.nan_to_num(solved.birge_ratio), 1.0)
            noise_sd = noise_sd * scale[:, None]
        else:
            noise_sd = np.sqrt(np.square(noise_sd) + np.square(solved.slope) * solved.skill2)
        out["birge_ratio"] = solved.birge_ratio
        extra["weights"] = solved.weights  # the observed scores' weights, as the trend's draws use
        for b, fit in enumerate(inversion.fits):  # each benchmark alone, as the joint solve inverted it
            out[f"density:{fit.benchmark}"] = solved.per_benchmark_size[:, b] / params
    noise = rng.standard_normal((count, *scores.shape)) * noise_sd[None]
    drawn_y, drawn_kind = inversion.draws(picks, scores[None] + noise, stderr, params, **extra)
    # a draw that lands on a bound says only "below" / "above" its value: it counts as −∞ / +∞, so an
    # interval end that falls among such draws is open (0 or ∞), never a NaN
    open_y = np.where(drawn_kind == EXACT, drawn_y, np.where(drawn_kind > 0, np.inf, -np.inf))
    low, high = np.quantile(open_y, [(1 - level) / 2, (1 + level) / 2], axis=0, method="inverted_cdf")
    out["density"] = np.exp(y)
    out["bound"] = np.where(kind == EXACT, "", np.where(kind > 0, "lower bound", np.where(kind < 0, "upper bound", "dropped")))
    out["density_ci_low"], out["density_ci_high"] = np.exp(low), np.exp(high)
    out["effective_params"] = np.exp(y) * params
    out["reference"] = inversion.name
    out["d0"] = inversion.d0
    return out.sort_values("density", ascending=False).reset_index(drop=True)
