"""Densities as values or bounds, under one parameter draw of a reference law.

A score inverts to an effective size N̂ (Xiao et al. 2024, eq. 4) unless the reference cannot
express it at D0 (:func:`densing.laws.reference_fit.invert_scores`). Such a density is a bound:

- above what the law reaches (``beyond_data_limit``, ``above_ceiling``): the true score is at
  least S − 2σ (σ the score's standard error), and the law is monotone, so
  ρ ≥ ρ(min(S, S_cap) − 2σ), with S_cap the highest score the law expresses at D0
  (:func:`score_cap`): a **lower bound**;
- at or below the floor d (``below_floor``): ρ ≤ ρ(max(S, d) + 2σ): an **upper bound**.

A bound that the law cannot express either (the score's whole 2σ range beyond the cap, or a zero
σ at the cap) carries no information and is dropped (``kind`` NaN), counted by the caller.
"""
from __future__ import annotations

import numpy as np

from densing.laws import forms
from densing.laws.reference_fit import invert_scores

#: The kind of a density: a value, or a bound on it (NaN: dropped, the law cannot express even the bound).
EXACT, LOWER, UPPER = 0, 1, -1
MARGIN_STDERRS = 2.0


def score_cap(p, d0: float):
    """Highest score the law expresses at D0: S(L_min), L_min = b·D0^-β + E (N → ∞), below c + d.

    A family law (no data term) reaches its asymptote as N → ∞: the ceiling c + d (logistic_ln_n), d + c·σ(−γ·l)
    (power; :func:`densing.laws.forms.family_asymptote`).
    """
    if "b" not in p:
        return forms.family_asymptote(p["c"], p["gamma"], p["l"], p["d"], forms.family_alpha(p))
    floor_loss = p["b"] * d0 ** (-np.asarray(p["beta"])) + p.get("E", 0.0)
    return forms.performance_law(floor_loss, p["c"], p["gamma"], p["l"], p["d"])


def log_density_bounds(p, scores, stderr, params, d0: float) -> tuple[np.ndarray, np.ndarray]:
    """(y, kind): y = ln ρ or the bound's ln ρ; kind 0 exact, +1 lower bound, −1 upper bound, NaN dropped.

    ``p``'s values and ``scores`` broadcast (rows = draws); ``stderr`` and ``params`` per model.
    """
    scores = np.asarray(scores, float)
    sigma = np.nan_to_num(np.asarray(stderr, float))
    params = np.asarray(params, float)
    _, size, reasons = invert_scores(p, scores, d0)
    size = np.broadcast_to(size, np.broadcast_shapes(np.shape(size), scores.shape))
    reasons = np.broadcast_to(reasons, size.shape)
    above = (reasons == "beyond_data_limit") | (reasons == "above_ceiling")
    below = reasons == "below_floor"
    cap = np.asarray(score_cap(p, d0))
    floor = np.asarray(p["d"])
    high_score = np.minimum(scores, cap) - MARGIN_STDERRS * sigma
    low_score = np.maximum(scores, floor) + MARGIN_STDERRS * sigma
    _, high_size, high_reasons = invert_scores(p, np.where(above, high_score, scores), d0)
    _, low_size, low_reasons = invert_scores(p, np.where(below, low_score, scores), d0)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(size / params)
        y_high = np.log(high_size / params)
        y_low = np.log(low_size / params)
    kind = np.full(size.shape, np.nan)
    exact = (reasons == "") & np.isfinite(y)
    kind[exact] = EXACT
    lower_ok = above & (high_reasons == "") & np.isfinite(y_high)
    kind[lower_ok] = LOWER
    upper_ok = below & (low_reasons == "") & np.isfinite(y_low)
    kind[upper_ok] = UPPER
    y = np.where(lower_ok, y_high, np.where(upper_ok, y_low, np.where(exact, y, np.nan)))
    return y, kind
