"""Targets at a benchmark's chance level: their densities enter a row's frontier lines as upper bounds.

The rule (docs/method.md, "Floors as bounds"; the ceiling's mirror): a target is at the floor when, on any benchmark
b of the row, S_b ≤ c_b + k·σ_b, c_b its chance level (:data:`densing.data.benchmarks.CHANCE_LEVELS`; none: never),
σ_b the score's standard error, k = :data:`FLOOR_STDERRS` (2); ``studies/floor_bounds.py`` calibrates it.
"""
from __future__ import annotations

import numpy as np

from densing.constants import FLOOR_STDERRS
from densing.data.benchmarks import CHANCE_LEVELS
from densing.laws.bounds import EXACT, UPPER


def chance_levels(benchmarks) -> np.ndarray:
    """Each benchmark's chance level c_b from the registry, (B,); NaN where it has none (or is not registered)."""
    return np.array([CHANCE_LEVELS.get(b, np.nan) for b in benchmarks], float)


def at_floor(scores: np.ndarray, sigma: np.ndarray, chance: np.ndarray) -> np.ndarray:
    """Whether any score of a target has S_b ≤ c_b + 2σ_b (module docstring): ``scores`` (..., n, B), ``sigma`` (n, B)
    (NaN read as 0), ``chance`` (B,) (NaN: never at the floor) → (..., n); a missing score is never at the floor."""
    with np.errstate(invalid="ignore"):
        near = scores <= np.asarray(chance, float) + FLOOR_STDERRS * np.nan_to_num(sigma)
    return np.any(near & np.isfinite(scores), axis=-1)


def bounded_kind(kind: np.ndarray, near: np.ndarray, bound: int = UPPER) -> np.ndarray:
    """The kinds with an exact density of a target ``near`` a bound entering as that ``bound`` at its value: at the
    floor an upper bound, at a reference's ceiling (:func:`densing.trend.pooling.at_ceiling`) a lower one."""
    return np.where(near & (kind == EXACT), bound, kind)


__all__ = ["FLOOR_STDERRS", "at_floor", "bounded_kind", "chance_levels"]
