"""The identified region of a reference law: where its inverse stands on the reference's own members.

The rule (docs/method.md, "The identified region"; rule v1). A family reference fitted to members of sizes
N_min … N_max identifies an effective size only inside

    ln N_min  ≤  ln N̂  ≤  ln N_max + ln TOP_REACH,          TOP_REACH = 10 (one decade above the largest member).

Below the smallest member the performance law S = d + c·σ(γ·(v(ln N) − l)) runs into its floor d, whose shape no member
pins, so an inversion there reads wherever the fitted curve flattens; above the decade past the largest member the loss
law is an extrapolation this package does not defend. A target outside the region is a bound whose value is the
region's edge:

- ln N̂ < ln N_min: an **upper bound**, ln ρ ≤ ln(N_min / N) ("below the smallest member");
- ln N̂ > ln N_max + ln TOP_REACH: a **lower bound**, ln ρ ≥ ln(TOP_REACH · N_max / N) ("above the top member").

At an edge the bound's value equals the exact value, so a target crossing an edge changes its kind, never its value.
A two-step reference (the paper's ladder, a law over N and D: Xiao et al. 2024, eq. 3–4) keeps the paper's upward
extrapolation (no top edge) and the bottom edge. The law's own bounds (:mod:`densing.laws.bounds`) keep their kind;
one beyond an edge is loosened to the edge (the law says nothing there), the others keep their value.

Each point reading carries a reason code (:class:`Reason`) and, where a benchmark decided it, that benchmark's index.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np

from densing.laws.bounds import EXACT, LOWER, UPPER

#: How far above the largest member a family law's inverse counts as identified, as a factor on N (one decade).
TOP_REACH = 10.0


class Reason(IntEnum):
    """Why a target's density under a reference is what it is (its JSON names these in words)."""

    EXACT = 0
    BELOW_SMALLEST = 1  # ln N̂ below the smallest member's size: upper bound at it
    ABOVE_TOP = 2  # ln N̂ above a decade past the largest member: lower bound at that decade
    AT_CHANCE = 3  # every score of the target at its benchmark's chance level: upper bound at its value
    CHANCE_CAP = 4  # at chance on one benchmark of a set, informative on the others: upper bound where that law caps it
    AT_CEILING = 5  # a score at the reference's ceiling on a benchmark: lower bound at its value
    LAW_RANGE = 6  # beyond what the law itself expresses (its own censoring)


#: The ``censored`` reasons of a per-model density table (:func:`densing.laws.density.compute_density`) for a size
#: outside the members, beside the law's own (:data:`densing.laws.reference_fit.REASONS`).
BELOW_SMALLEST_MEMBER, ABOVE_TOP_MEMBER = "below_smallest_member", "above_top_member"

#: The words of each reason, as the JSON and the detail print them.
REASON_WORDS = {
    Reason.EXACT: "exact",
    Reason.BELOW_SMALLEST: "below the smallest member",
    Reason.ABOVE_TOP: "above the top member",
    Reason.AT_CHANCE: "at chance",
    Reason.CHANCE_CAP: "at chance",
    Reason.AT_CEILING: "at the ceiling",
    Reason.LAW_RANGE: "beyond the law's range",
}


def member_log_sizes(inversion) -> tuple[float, float]:
    """(ln N_min, ln N_max + ln TOP_REACH) of ``inversion``'s reference: the sizes of the members its fits were fitted
    to (each fit's ``points``, size in their second field); a two-step law's top is +∞ (no top edge), and a fit with no
    recorded members has no region (−∞, +∞)."""
    fits = getattr(inversion, "fits", ())  # observed densities (no law) have no members and no region
    sizes = [
        float(point[1])
        for fit in fits
        for point in fit.points
        if len(point) > 1 and point[1] is not None and float(point[1]) > 0
    ]
    if not sizes:
        return -math.inf, math.inf
    two_step = any(fit.has_data_term for fit in fits)
    top = math.inf if two_step else math.log(max(sizes)) + math.log(TOP_REACH)
    return math.log(min(sizes)), top


def within_members(
    y: np.ndarray, kind: np.ndarray, log_params: np.ndarray, region: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact densities ``y`` = ln ρ (kind EXACT) outside ``region`` (:func:`member_log_sizes`) made bounds at its
    edge (module docstring), and the law's own bounds beyond an edge loosened to it (an upper bound below the smallest
    member says no more than "at most the smallest member"): returns new (y, kind, reason), reason a :class:`Reason`
    code per element (EXACT where exact, LAW_RANGE where the law's own bound stands). ``log_params`` = ln N broadcasts
    against ``y``."""
    low, high = region
    y = np.array(y, float)
    kind = np.array(kind, float)
    log_size = y + log_params
    exact = kind == EXACT
    with np.errstate(
        invalid="ignore"
    ):  # an upper bound below the bottom edge is loosened to it, a lower one above the top
        below = (exact | (kind == UPPER)) & (log_size < low)
        above = (exact | (kind == LOWER)) & (log_size > high)
    reason = np.where(exact, int(Reason.EXACT), int(Reason.LAW_RANGE)).astype(np.int8)
    edge_low = np.broadcast_to(low - np.asarray(log_params, float), y.shape)
    edge_high = np.broadcast_to(high - np.asarray(log_params, float), y.shape)
    y = np.where(below, edge_low, np.where(above, edge_high, y))
    kind[below], kind[above] = UPPER, LOWER
    reason[below], reason[above] = Reason.BELOW_SMALLEST, Reason.ABOVE_TOP
    return y, kind, reason


__all__ = [
    "ABOVE_TOP_MEMBER",
    "BELOW_SMALLEST_MEMBER",
    "REASON_WORDS",
    "Reason",
    "TOP_REACH",
    "member_log_sizes",
    "within_members",
]
