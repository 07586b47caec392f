"""The knife-edge: how far one target crossing one censoring boundary moves a row's point doubling time
(docs/method.md, "The knife-edge: one target across one boundary").

**The boundaries** (docs/method.md, "Floors as bounds", "Ceilings as bounds", "The identified region"). A target i
is within reach of a boundary when one of its scores, or all of them moved together, lies within ±:data:`WINDOW`
standard errors of it:

- the **chance floor** of benchmark b: S_b against c_b + 2σ_b (:func:`densing.trend.floors.floor_scores`), distance
  z = (S_b − c_b − 2σ_b)/σ_b, at the floor for z ≤ 0;
- the **ceiling** of benchmark b under reference r: S_b against cap_{r,b} − 2σ_b
  (:func:`densing.trend.pooling.at_ceiling`, :func:`densing.trend.pooling.reference_caps`), z = (S_b − cap_{r,b} +
  2σ_b)/σ_b, at the ceiling for z ≥ 0;
- the **identified region's edges** under reference r (:func:`densing.laws.region.member_log_sizes`): the scores at
  which r's inversion gives ln N̂ = ln N_min (the bottom edge) or ln N_max + ln 10 (the top edge). For the joint
  inversion every score that enters it moves by the same fraction s of its σ, S_b + s·σ_b, and z = −s* where s*
  solves ln N̂(S + s*·σ) = edge (Brent's method; the skill variance s² of :mod:`densing.laws.joint` held at the
  row's).

A target's own family's reference reads it from the others, so its ceiling and edges under that reference are no
boundary of it.

**The crossing**: one target at a time, the score (or the scores, for an edge) set :data:`CROSS` standard errors past
the boundary on its other side — the least move that changes the side, so what moves the row is the change of kind
and not a change of score — every other score of the table as it is, σ kept. The row's point is recomputed as the
row computes it (:func:`densing.trend.pooling.point_densities`: every reference's point ln ρ and kind with the
region, the chance caps, the ceilings and the floors; each reference's point frontier line,
:func:`densing.trend.rules.frontier_lines_weighted`) and pooled with the row's own weights w (those of its draws,
held fixed: the crossing is the only change)::

    A' = Σ_r w_r·A'_r,   months = ln 2 / A' / (365.25/12)   (Xiao et al. 2024, eq. 5: ln ρmax = A·t + B)

The move is the months after less the months before. The target's readings before and after
(:func:`densing.trend.pooling.point_readings`) say what the crossing changed; one that changes no reading still moves
the point a little where a score enters or leaves a joint inversion, through the set's skill variance s², which
every target's inversion reads (:mod:`densing.laws.joint`).

**What a row's detail names** (:meth:`KnifeEdges.largest`): the number of targets within reach and the largest moves
by |move|, at most :data:`SHOWN_MOVES`, each at least :data:`SHOWN_SHARE` of the largest (of its order); none where no
crossing moves the point.
``studies/knife_edge.py`` sets each row's largest move beside the point's Monte Carlo error over seeds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import Enum
from operator import attrgetter

import numpy as np

from densing.constants import CEILING_STDERRS, FLOOR_STDERRS
from densing.laws.bounds import EXACT
from densing.laws.inversion import arrays
from densing.laws.joint import invert_joint
from densing.laws.region import member_log_sizes
from densing.trend import pooling, rules
from densing.trend.floors import chance_levels, floor_plan
from densing.trend.rules import doubling_months
from densing.trend.selection import CommonTargets

#: Standard errors either side of a boundary within which a target is moved across it.
WINDOW = 0.5
#: Standard errors past the boundary a crossing sets the score (or scores) at.
CROSS = 0.01
#: The grid of joint moves s (in σ) on which an edge's crossing is first found, then solved for.
EDGE_GRID = np.linspace(-WINDOW, WINDOW, 21)
#: The most crossings a row's detail names, the largest moves first.
SHOWN_MOVES = 3
#: A crossing the detail names moves the point by at least this share of the largest move (the largest's order).
SHOWN_SHARE = 0.1


class Boundary(str, Enum):
    """The censoring boundary a crossing crosses (module docstring; its words: :mod:`densing.present.knife_edge`)."""

    FLOOR = "floor"  # a benchmark's chance floor, c_b + 2σ_b
    CEILING = "ceiling"  # a reference's ceiling on a benchmark, cap_{r,b} − 2σ_b
    BOTTOM_EDGE = "bottom_edge"  # the identified region's bottom edge, ln N_min
    TOP_EDGE = "top_edge"  # its top edge, ln N_max + ln 10


@dataclass(frozen=True)
class Reading:
    """A target's point reading under one reference that reads it itself (:func:`densing.trend.pooling.point_readings`):
    the reference's family, the kind (``exact``, ``lower``, ``upper``, ``dropped``), the reason
    (:class:`densing.laws.region.Reason` code) and the benchmark that decided it ("" where none did)."""

    reference: str
    kind: str
    reason: int
    benchmark: str


@dataclass(frozen=True)
class Crossing:
    """One target moved across one boundary: its row index and name, the boundary, the reference whose boundary it is
    ("" for a chance floor, every reference's), the benchmarks moved (one for a floor or ceiling, the row's for an
    edge), the signed distance z in standard errors (module docstring) and the target's scores after the move, (B,)."""

    index: int
    model: str
    boundary: Boundary
    reference: str
    benchmarks: tuple[str, ...]
    distance: float
    scores: np.ndarray


@dataclass(frozen=True)
class Move:
    """A crossing's effect: the row's point doubling time before and after (months), the target's readings under the
    references that read it itself, before and after."""

    crossing: Crossing
    months_before: float
    months_after: float
    readings_before: tuple[Reading, ...]
    readings_after: tuple[Reading, ...]

    @property
    def move(self) -> float:
        """After − before, in months (NaN where a line no longer rises)."""
        with np.errstate(invalid="ignore"):
            change = self.months_after - self.months_before
        return float(change) if math.isfinite(change) else math.nan

    @property
    def size(self) -> float:
        """|move|, +∞ where the line stops rising (the largest possible move)."""
        return abs(self.move) if math.isfinite(self.move) else math.inf

    @property
    def changes_reading(self) -> bool:
        """Whether the crossing changes the target's reading under some reference (else it moves the point through
        the set's skill variance alone)."""
        return self.readings_before != self.readings_after


@dataclass(frozen=True)
class KnifeEdges:
    """A row's crossings (:func:`knife_edges`): its point doubling time (months) and every crossing's move, in the
    order found (floors, ceilings, edges)."""

    months: float
    moves: tuple[Move, ...]

    @property
    def n_targets(self) -> int:
        """The targets within ±:data:`WINDOW` standard errors of a boundary."""
        return len({m.crossing.model for m in self.moves})

    def ranked(self) -> list[Move]:
        """Every move, the largest |move| first (ties in the order found)."""
        return sorted(self.moves, key=attrgetter("size"), reverse=True)

    def largest(self) -> tuple[Move, ...]:
        """The moves a row's detail names (module docstring): the largest, then the next largest, at most
        :data:`SHOWN_MOVES`, each at least :data:`SHOWN_SHARE` of the largest's |move|; none where no crossing moves
        the point."""
        ranked = self.ranked()
        if not ranked or ranked[0].size == 0:
            return ()
        least = SHOWN_SHARE * ranked[0].size
        return tuple(m for m in ranked[:SHOWN_MOVES] if m.size >= least)


# ---------------------------------------------------------------------------------------------------------------
# the row's point and readings


def point_slope(common: CommonTargets, weights, rule: str) -> float:
    """The row's pooled point slope (per day) with the given weights: A = Σ_r w_r·A_r, A_r reference r's point
    frontier line through its point ln ρ and kinds (docs/method.md, "Common targets per row", step 4)."""
    y, kind = pooling.point_densities(common)
    t = common.frame["t"].to_numpy(float)
    labels = common.frame["model"].astype(str).to_numpy()
    lines = rules.frontier_lines_weighted(rule, t, y, kind, np.ones(y.shape), labels)
    return float(np.asarray(weights, float) @ np.ascontiguousarray(lines[:, 0]))


def moved(common: CommonTargets, index: int, scores: np.ndarray) -> CommonTargets:
    """``common`` with target ``index``'s scores on the row's benchmarks replaced by ``scores``."""
    frame = common.frame.copy()
    for b, value in zip(common.benchmarks, scores):
        frame.iloc[index, frame.columns.get_loc(f"score:{b}")] = float(value)
    return replace(common, frame=frame)


def readings(common: CommonTargets) -> dict[str, tuple[Reading, ...]]:
    """Each target's point readings under the references that read it itself (its own family's left out), by model."""
    found: dict[str, list[Reading]] = {}
    for model, family, kind, reason, benchmark, _ in pooling.point_readings(common):
        if reason is not None:
            found.setdefault(model, []).append(Reading(family, kind, int(reason), benchmark))
    return {model: tuple(each) for model, each in found.items()}


# ---------------------------------------------------------------------------------------------------------------
# the boundaries within reach


def _across(threshold: float, sigma: float, distance: float, floor: bool) -> float:
    """The score :data:`CROSS` standard errors past ``threshold`` on the other side of it than the score at distance
    z: above it where the score is below, below it where above; a score exactly at the threshold is on the bounded
    side (the floor's S ≤ c + 2σ, the ceiling's S ≥ cap − 2σ), so it moves above a floor and below a ceiling."""
    below = distance < 0 or (distance == 0 and floor)
    return float(np.clip(threshold + (CROSS if below else -CROSS) * sigma, 0.0, 1.0))


def floor_crossings(common: CommonTargets) -> list[Crossing]:
    """Every (target, benchmark) within ±:data:`WINDOW` σ of the chance floor S_b = c_b + 2σ_b, moved across it."""
    scores, sigma = arrays(common.frame, common.benchmarks)
    threshold = chance_levels(common.benchmarks)[None, :] + FLOOR_STDERRS * np.nan_to_num(sigma)
    return _score_crossings(common, scores, sigma, threshold, Boundary.FLOOR, "", floor=True)


def ceiling_crossings(common: CommonTargets) -> list[Crossing]:
    """Every (target, benchmark, reference) within ±:data:`WINDOW` σ of that reference's ceiling S_b = cap_{r,b} −
    2σ_b, moved across it; a reference's own members left out."""
    scores, sigma = arrays(common.frame, common.benchmarks)
    found = []
    for r, inv in enumerate(common.inversions):
        caps = pooling.reference_caps(inv, scores.shape[1])
        threshold = caps[None, :] - CEILING_STDERRS * np.nan_to_num(sigma)
        near = _score_crossings(common, scores, sigma, threshold, Boundary.CEILING, inv.reference.family, floor=False)
        found += [c for c in near if not common.own[r, c.index]]
    return found


def _score_crossings(
    common: CommonTargets,
    scores: np.ndarray,
    sigma: np.ndarray,
    threshold: np.ndarray,
    boundary: Boundary,
    reference: str,
    *,
    floor: bool,
) -> list[Crossing]:
    """The (target, benchmark) pairs whose score lies within ±:data:`WINDOW` σ of ``threshold`` (n, B), each with
    that one score moved across it."""
    with np.errstate(invalid="ignore", divide="ignore"):
        distance = (scores - threshold) / sigma
    near = np.isfinite(distance) & (np.abs(distance) <= WINDOW) & (np.nan_to_num(sigma) > 0)
    labels = common.frame["model"].astype(str).to_numpy()
    found = []
    for i, b in zip(*np.nonzero(near)):
        after = scores[i].copy()
        after[b] = _across(threshold[i, b], sigma[i, b], distance[i, b], floor)
        found.append(
            Crossing(int(i), str(labels[i]), boundary, reference, (common.benchmarks[b],), float(distance[i, b]), after)
        )
    return found


def _log_sizes(inv, scores: np.ndarray, sigma: np.ndarray, skill2: float | None) -> tuple[np.ndarray, np.ndarray]:
    """(ln N̂, exact) of each row of ``scores`` under ``inv``'s point inversion; a joint inversion with its skill
    variance held at ``skill2`` (each row then its own arithmetic)."""
    if skill2 is None:  # a per-benchmark inversion: each row is its own arithmetic already
        y, kind = inv.point(scores, sigma, np.ones(len(scores)))
        return np.asarray(y, float), np.asarray(kind) == EXACT
    found = invert_joint(
        list(inv.fits), scores, sigma, skill=inv.skill, skill2=skill2, weights_at=inv.weights_at, space=inv.space
    )
    return np.asarray(found.log_size, float), found.censored == ""


def edge_crossings(common: CommonTargets) -> list[Crossing]:
    """Every (target, reference, edge) whose joint move s·σ with |s| ≤ :data:`WINDOW` reaches ln N̂ = the edge
    (module docstring), moved :data:`CROSS` past it on the other side; a reference's own members left out."""
    scores, sigma = arrays(common.frame, common.benchmarks)
    dropped = floor_plan(
        scores,
        sigma,
        chance_levels(common.benchmarks),
        all(getattr(inv, "kind", "") == "joint" for inv in common.inversions),
    )
    entering = np.where(dropped, np.nan, scores)  # the scores the inversion reads (a floor score of a set leaves it)
    step = np.nan_to_num(sigma)
    labels = common.frame["model"].astype(str).to_numpy()
    found = []
    for r, inv in enumerate(common.inversions):
        skill2 = inv.solve_point(entering, sigma).skill2 if hasattr(inv, "solve_point") else None
        others = np.flatnonzero(~common.own[r])
        for boundary, edge in zip((Boundary.BOTTOM_EDGE, Boundary.TOP_EDGE), member_log_sizes(inv)):
            if not math.isfinite(edge):
                continue
            roots = _edge_roots(inv, entering[others], sigma[others], step[others], edge, skill2)
            for i, root in zip(others, roots):
                if root is None:
                    continue
                shift = root + (CROSS if root > 0 else -CROSS)  # past the edge, on the target's other side
                after = np.where(np.isnan(entering[i]), scores[i], np.clip(entering[i] + shift * step[i], 0.0, 1.0))
                found.append(
                    Crossing(
                        int(i), str(labels[i]), boundary, inv.reference.family, common.benchmarks, -float(root), after
                    )
                )
    return found


def _edge_roots(
    inv, scores: np.ndarray, sigma: np.ndarray, step: np.ndarray, edge: float, skill2
) -> list[float | None]:
    """For each target (row of ``scores``, (m, B)), the joint move s* (in σ) nearest 0 within ±:data:`WINDOW` at
    which its ln N̂ reaches ``edge``: every target's grid :data:`EDGE_GRID` inverted at once, Brent's method on the
    grid's sign change nearest the target; None where there is none (or the inversion is not exact there)."""
    count, width = scores.shape
    grid = np.clip(scores[:, None, :] + EDGE_GRID[None, :, None] * step[:, None, :], 0.0, 1.0)  # (m, G, B)
    spread = np.broadcast_to(sigma[:, None, :], grid.shape)
    log_size, exact = _log_sizes(inv, grid.reshape(-1, width), spread.reshape(-1, width), skill2)
    gaps = np.where(exact, log_size - edge, np.nan).reshape(count, len(EDGE_GRID))
    finite = np.isfinite(gaps)
    changes = finite[:, :-1] & finite[:, 1:] & (np.sign(gaps[:, :-1]) != np.sign(gaps[:, 1:]))  # (m, G − 1)
    here = int(np.argmin(np.abs(EDGE_GRID)))  # s = 0: where the target is
    roots: list[float | None] = [None] * count
    for i in np.flatnonzero(finite[:, here] & changes.any(axis=1)):
        change = np.flatnonzero(changes[i])
        k = change[np.argmin(np.abs(EDGE_GRID[change]))]  # the sign change nearest the target
        roots[i] = _edge_root(inv, scores[i], sigma[i], step[i], edge, skill2, k)
    return roots


def _edge_root(inv, scores: np.ndarray, sigma: np.ndarray, step: np.ndarray, edge: float, skill2, k: int) -> float:
    """One target's s* (:func:`_edge_roots`) between :data:`EDGE_GRID`'s points ``k`` and ``k`` + 1, where its
    ln N̂ − edge changes sign (Brent's method, to 10⁻⁶ σ)."""
    from scipy.optimize import brentq  # loaded where an edge is solved for, not by the words that import this module

    def gap_at(s: float) -> float:
        value, _ = _log_sizes(inv, np.clip(scores + s * step, 0.0, 1.0)[None], sigma[None], skill2)
        return float(value[0] - edge)

    return float(brentq(gap_at, EDGE_GRID[k], EDGE_GRID[k + 1], xtol=1e-6))


def crossings(common: CommonTargets) -> list[Crossing]:
    """Every boundary within reach of every target (floors, ceilings, the region's edges)."""
    return [*floor_crossings(common), *ceiling_crossings(common), *edge_crossings(common)]


# ---------------------------------------------------------------------------------------------------------------
# the moves


def knife_edges(common: CommonTargets, weights, rule: str) -> KnifeEdges:
    """Each crossing's move of the row's point (module docstring), the row's ``weights`` and frontier ``rule`` held."""
    before = doubling_months(point_slope(common, weights, rule))
    held = readings(common)
    moves = []
    for crossing in crossings(common):
        after = moved(common, crossing.index, crossing.scores)
        moves.append(
            Move(
                crossing,
                before,
                doubling_months(point_slope(after, weights, rule)),
                held.get(crossing.model, ()),
                readings(after).get(crossing.model, ()),
            )
        )
    return KnifeEdges(before, tuple(moves))


def headline_knife_edges(measurement) -> KnifeEdges | None:
    """:func:`knife_edges` of a :class:`densing.trend.measurement.TrendMeasurement`'s headline row, with its headline
    rule's weights; None where it has no headline row (its set has no reference, or no trend)."""
    head = measurement.rules.get(measurement.headline_rule)
    if measurement.common is None or head is None or measurement.missing:
        return None
    return knife_edges(measurement.common, head.reference_weights, head.rule)


__all__ = [
    "Boundary",
    "CROSS",
    "Crossing",
    "KnifeEdges",
    "Move",
    "Reading",
    "SHOWN_MOVES",
    "SHOWN_SHARE",
    "WINDOW",
    "crossings",
    "edge_crossings",
    "floor_crossings",
    "ceiling_crossings",
    "headline_knife_edges",
    "knife_edges",
    "moved",
    "point_slope",
    "readings",
]
