"""How a per-model density is read — a value or a bound — by the one rule of :func:`densing.display.density_reading`:
the ``reading`` column of :func:`densing.laws.density.density_table` and :func:`densing.laws.density.compute_density`,
and whether a model's inverted scores are at chance (``near_chance``), one of the rule's causes."""
from __future__ import annotations

import numpy as np
import pandas as pd


def near_chance(scores: np.ndarray, stderr: np.ndarray, benchmarks) -> np.ndarray:
    """Per model (rows of ``scores``, ``stderr``: models × benchmarks), whether every score it has is within
    :data:`densing.display.CHANCE_STDERRS` standard errors of its benchmark's chance level, S − c < 2σ (a benchmark
    without a known chance level, or a model without a score, is never at chance)."""
    from densing.data.benchmarks import CHANCE_LEVELS
    from densing.display import CHANCE_STDERRS

    chance = np.array([CHANCE_LEVELS.get(b, np.nan) for b in benchmarks], float)
    scores, stderr = np.atleast_2d(np.asarray(scores, float)), np.atleast_2d(np.asarray(stderr, float))
    scored = ~np.isnan(scores)
    with np.errstate(invalid="ignore"):
        at = (scores - chance[None]) < CHANCE_STDERRS * np.nan_to_num(stderr)
    return (scored.any(axis=1) & np.where(scored, at & ~np.isnan(chance)[None], True).all(axis=1)).astype(bool)


def readings(frame: pd.DataFrame, suffix: str = "") -> list[str]:
    """The ``reading`` column of a per-model table: ``value``, ``upper bound``, ``lower bound`` or ``none``, by the
    one rule of :func:`densing.display.density_reading` (censored by the law, or an interval reaching 0 or ∞)."""
    from densing.display import density_readings

    return [reading for reading, _, _ in density_readings(frame, suffix) or []]
