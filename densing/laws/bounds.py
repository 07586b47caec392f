"""Densities as values or bounds, under one parameter draw of a reference law.

A score the reference cannot express at D0 (:func:`densing.laws.reference_fit.invert_scores`; Xiao et al. 2024,
eq. 4) gives a bound: above what the law reaches (``beyond_data_limit``, ``above_ceiling``) the true score is at least
S − 2σ and the law is monotone, so ρ ≥ ρ(min(S, S_cap) − 2σ), S_cap the highest score the law expresses at D0
(:func:`score_cap`): a **lower bound**; at or below the floor d (``below_floor``), ρ ≤ ρ(max(S, d) + 2σ): an **upper
bound**. A bound the law cannot express either carries no information and is dropped (``kind`` NaN). How a density is
read, a value or a bound (``reading``, ``near_chance``): the one rule of :func:`densing.display.density_reading`;
``reading`` holds codes of the tables' file format (:func:`readings`), the words a reader reads are densing.present's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from densing.laws import forms
from densing.laws.reference_fit import censored_inversion

#: The kind of a density: a value, or a bound on it (NaN: dropped, the law cannot express even the bound).
EXACT, LOWER, UPPER = 0, 1, -1
MARGIN_STDERRS = 2.0


def score_cap(p, d0: float):
    """Highest score the law expresses at D0: S(L_min), L_min = b·D0^-β + E (N → ∞), below c + d; a family law's
    asymptote: c + d (logistic_ln_n), d + c·σ(−γ·l) (power; :func:`densing.laws.forms.family_asymptote`)."""
    if "b" not in p:
        return forms.family_asymptote(p["c"], p["gamma"], p["l"], p["d"], forms.family_alpha(p))
    floor_loss = p["b"] * d0 ** (-np.asarray(p["beta"])) + p.get("E", 0.0)
    return forms.performance_law(floor_loss, p["c"], p["gamma"], p["l"], p["d"])


def log_density_bounds(p, scores, stderr, params, d0: float) -> tuple[np.ndarray, np.ndarray]:
    """(y, kind): y = ln ρ or the bound's ln ρ; kind 0 exact, +1 lower bound, −1 upper bound, NaN dropped. ``p``'s
    values and ``scores`` broadcast (rows = draws); ``stderr`` and ``params`` per model. The bounds' scores are inverted
    only where a score is censored (each element's numbers are those of the whole array's inversion)."""
    scores = np.asarray(scores, float)
    sigma = np.nan_to_num(np.asarray(stderr, float))
    params = np.asarray(params, float)
    _, size, code = censored_inversion(p, scores, d0)
    shape = np.broadcast_shapes(np.shape(size), scores.shape, np.shape(params))
    size, code = np.broadcast_to(size, shape), np.broadcast_to(code, shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.divide(size, params, out=np.empty(shape))
        np.log(y, out=y)
    exact = (code == 0) & np.isfinite(y)  # no reason
    kind = np.where(exact, float(EXACT), np.nan)
    np.copyto(y, np.nan, where=~exact)
    censored = code != 0
    if censored.any():  # the bound's score: 2σ inward from the cap (above), from the floor (below), then inverted
        at = np.nonzero(censored) if censored.ndim else censored  # the censored elements, in order

        def pick(value):  # ``value`` at the censored elements (a number stays a number)
            return np.broadcast_to(np.asarray(value, float), shape)[at] if np.ndim(value) else value

        above = code[at] != 3  # the reasons but below_floor: beyond_data_limit, above_ceiling
        sub, s, se = {k: pick(v) for k, v in p.items()}, pick(scores), np.broadcast_to(sigma, shape)[at]
        moved = np.where(
            above,
            np.minimum(s, np.asarray(score_cap(sub, d0))) - MARGIN_STDERRS * se,
            np.maximum(s, np.asarray(sub["d"])) + MARGIN_STDERRS * se,
        )
        _, size, moved_code = censored_inversion(sub, moved, d0)
        with np.errstate(divide="ignore", invalid="ignore"):
            bound = np.where(moved_code == 0, np.log(size / np.broadcast_to(params, shape)[at]), np.nan)
        kind[at] = np.where(np.isfinite(bound), np.where(above, LOWER, UPPER), np.nan)
        y[at] = np.where(np.isfinite(bound), bound, np.nan)
    return y, kind


# -- how a per-model density is read: a value or a bound ---------------------------------------------------------------


def near_chance(scores: np.ndarray, stderr: np.ndarray, benchmarks) -> np.ndarray:
    """Per model (rows of ``scores``, ``stderr``), whether every score it has is within 2σ of its benchmark's chance
    level c, S − c < 2σ (:data:`densing.display.CHANCE_STDERRS`; a benchmark without c, or no score, is never at it)."""
    from densing.data.benchmarks import CHANCE_LEVELS
    from densing.display import CHANCE_STDERRS

    chance = np.array([CHANCE_LEVELS.get(b, np.nan) for b in benchmarks], float)
    scores, stderr = np.atleast_2d(np.asarray(scores, float)), np.atleast_2d(np.asarray(stderr, float))
    scored = ~np.isnan(scores)
    with np.errstate(invalid="ignore"):
        at = (scores - chance[None]) < CHANCE_STDERRS * np.nan_to_num(stderr)
    return (scored.any(axis=1) & np.where(scored, at & ~np.isnan(chance)[None], True).all(axis=1)).astype(bool)


def readings(frame: pd.DataFrame) -> list[str]:
    """The ``reading`` column of a per-model table: ``value``, ``upper bound``, ``lower bound`` or ``none``, by the
    one rule of :func:`densing.display.density_reading` (censored by the law, or an interval reaching 0 or ∞).

    These are codes, as the ``bound`` column's are (:data:`densing.laws.density.BOUND_CODES`): a file format's
    vocabulary, written as they are in the ``reading`` column of ``--format csv/json`` and the measure tables, and the
    values densing.present compares against (:mod:`densing.present.figures`, :mod:`densing.present.pooled`), not a
    reader's sentence; a surface that says a reading in words does so in densing.present."""
    from densing.display import density_readings

    return [reading for reading, _, _ in density_readings(frame) or []]
