"""Targets at a benchmark's chance level: their densities enter a row's frontier lines as upper bounds.

A score is at the floor (docs/method.md, "Floors as bounds"; the ceiling's mirror) when S_b ≤ c_b + k·σ_b, c_b its
benchmark's chance level (:data:`densing.data.benchmarks.CHANCE_LEVELS`; none: never), σ_b the score's standard
error, k = :data:`FLOOR_STDERRS` (2); ``studies/floor_bounds.py`` calibrates it. What a floor score does to a target
(docs/method.md, "Direction by what the score does"):

- at the floor on **every** benchmark of its row (:func:`at_floor`): an upper bound at its value;
- at the floor on **some** benchmarks of a set inverted jointly, informative on the others (:func:`floor_plan`): those
  scores leave the joint inversion, which decides from the informative ones, and each says only that ln N̂ is at most
  x_b, where benchmark b's law reaches c_b + k·σ_b (no lower than the region's bottom edge,
  :mod:`densing.laws.region`); the target is an upper bound at min_b x_b when its informative ln N̂ lies above it
  (:func:`chance_caps`).
"""

from __future__ import annotations

import numpy as np

from densing.constants import FLOOR_STDERRS
from densing.data.benchmarks import CHANCE_LEVELS
from densing.laws.bounds import EXACT, UPPER


def chance_levels(benchmarks) -> np.ndarray:
    """Each benchmark's chance level c_b from the registry, (B,); NaN where it has none (or is not registered)."""
    return np.array([CHANCE_LEVELS.get(b, np.nan) for b in benchmarks], float)


def floor_scores(scores: np.ndarray, sigma: np.ndarray, chance: np.ndarray) -> np.ndarray:
    """Whether each score has S_b ≤ c_b + 2σ_b (module docstring): ``scores`` (..., n, B), ``sigma`` (n, B) (NaN read
    as 0), ``chance`` (B,) (NaN: never at the floor) → (..., n, B); a missing score is never at the floor."""
    with np.errstate(invalid="ignore"):
        near = scores <= np.asarray(chance, float) + FLOOR_STDERRS * np.nan_to_num(sigma)
    return near & np.isfinite(scores)


def at_floor(scores: np.ndarray, sigma: np.ndarray, chance: np.ndarray) -> np.ndarray:
    """Whether every score a target has is at the floor (:func:`floor_scores`), (..., n); a target with no score is
    not at it. Scores left out of its inversion (NaN, :func:`floor_plan`) do not count."""
    scored = np.isfinite(scores)
    near = floor_scores(scores, sigma, chance)
    return scored.any(axis=-1) & np.all(near | ~scored, axis=-1)


def floor_plan(scores: np.ndarray, sigma: np.ndarray, chance: np.ndarray, joint: bool) -> np.ndarray:
    """Which observed scores leave a target's joint inversion, (n, B): those at the floor of a target that is at the
    floor on some benchmarks and not on all (module docstring). Only a joint inversion can leave a score out (it
    inverts any subset of its benchmarks); a per-benchmark or mean inversion leaves none out (all False)."""
    near = floor_scores(scores, sigma, chance)
    partial = near.any(axis=-1) & ~at_floor(scores, sigma, chance)
    if not joint:
        return np.zeros_like(near)
    return near & partial[:, None]


def chance_caps(
    fits, scores: np.ndarray, sigma: np.ndarray, dropped: np.ndarray, bottom: float
) -> tuple[np.ndarray, np.ndarray]:
    """For each target, the least ln N̂ its left-out floor scores allow under one reference, and the benchmark that
    gives it: x_b = ln N̂_b(c_b + 2σ_b) by benchmark b's fit in ``fits`` (Xiao et al. 2024 eq. 4 through the family
    law's inverse, :func:`densing.laws.reference_fit.censored_inversion`), no lower than ``bottom`` (the region's
    bottom edge: below it the law identifies nothing, and a level below the law's own floor gives the edge too).
    Returns (cap, benchmark index): +∞ and −1 for a target with no score left out."""
    from densing.laws.reference_fit import censored_inversion

    count, width = dropped.shape
    caps = np.full((count, width), np.inf)
    chance = chance_levels(tuple(fit.benchmark for fit in fits))
    for b, fit in enumerate(fits):
        rows = np.flatnonzero(dropped[:, b])
        if not rows.size:
            continue
        level = chance[b] + FLOOR_STDERRS * np.nan_to_num(sigma[rows, b])
        _, size, code = censored_inversion({k: float(v) for k, v in fit.params.items()}, level, fit.d0)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_size = np.where((code == 0) & (np.asarray(size) > 0), np.log(size), -np.inf)
        caps[rows, b] = np.maximum(log_size, bottom)
    which = np.where(np.isfinite(caps).any(axis=1), np.argmin(caps, axis=1), -1)
    return caps.min(axis=1), which


def bounded_kind(kind: np.ndarray, near: np.ndarray, bound: int = UPPER) -> np.ndarray:
    """The kinds with an exact density of a target ``near`` a bound entering as that ``bound`` at its value: at the
    floor an upper bound, at a reference's ceiling (:func:`densing.trend.pooling.at_ceiling`) a lower one."""
    return np.where(near & (kind == EXACT), bound, kind)


__all__ = ["FLOOR_STDERRS", "at_floor", "bounded_kind", "chance_caps", "chance_levels", "floor_plan", "floor_scores"]
