"""How far one target crossing one censoring boundary moves each shipped row's point doubling time, beside the
point's own Monte Carlo error; prints a table, asserts nothing.

**The rows** (:data:`ROWS`): the headline set of each table as ``densing trend --table NAME`` measures it — ``public``
(the paper-like set, ``densing trend``; references Qwen1.5 and Qwen2), ``openllm_v2`` (the v2-native set, the
second table's declared row) and ``swallow`` (the paper-like set) — rebuilt as the CLI builds them: the set rule's
references on the table's candidate table (:func:`densing.trend.selection.set_references`), their fits at seed S,
the common targets (:func:`densing.trend.capability.row_targets`) and the pooled trend
(:func:`densing.trend.pooling.pooled_trend`, 600 draws doubled up to the cap where an end asks, seed S): at S = 0
the number ``densing trend --table NAME`` prints.

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
  inversion every score that enters it moves by the same fraction s of its σ, S_b + s·σ_b, and z = s* solves
  ln N̂(S + s*·σ) = edge (Brent's method; the skill variance s² of :mod:`densing.laws.joint` held at the row's).

A target's own family's reference reads it from the others, so its ceiling and edges under that reference are no
boundary of it.

**The crossing**: one target at a time, the score (or the scores, for an edge) set :data:`CROSS` standard errors past
the boundary on its other side — the least move that changes the side, so what moves the row is the change of kind
and not a change of score — every other score of the table as it is, σ kept. The row's point is recomputed as the
row computes it (:func:`densing.trend.pooling.point_densities`: every reference's point ln ρ and kind with the
region, the chance caps, the ceilings and the floors; each reference's point frontier line,
:func:`densing.trend.rules.frontier_lines_weighted`) and pooled with the row's own weights w (those of the shipped
draws, held fixed: the crossing is the only change), A' = Σ_r w_r·A'_r, in months ln 2/A'. The target's readings
before and after (:func:`densing.trend.pooling.point_readings`) say what the crossing changed; one that changes no
reading still moves the point a little where a score enters or leaves a joint inversion, through the set's skill
variance s², which every target's inversion reads (:mod:`densing.laws.joint`).

**The Monte Carlo error of the point**: the sample standard deviation of the row's point doubling time over
:data:`SEEDS` seeds (``densing trend --table NAME --seed S --format json``'s ``headline.months``, S = 0 … 4, each at
the draws the CLI makes for it), computed in process on the same path. The largest move is *below* it when its
absolute size is smaller than that standard deviation.

Run (about 20 CPU-s, 75 s on a shared host; no store is needed)::

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/knife_edge.py > studies/knife_edge.results.txt
"""
from __future__ import annotations

import argparse
import math
import time
from operator import attrgetter
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from densing import registry
from densing.constants import CEILING_STDERRS, DEFAULT_EPOCH, DEFAULT_N_BOOT, FLOOR_STDERRS
from densing.data import read_results
from densing.laws import eligibility
from densing.laws.bounds import EXACT
from densing.laws.inversion import arrays
from densing.laws.joint import invert_joint
from densing.laws.region import REASON_WORDS, Reason, member_log_sizes
from densing.trend import capability, pooling, rules, selection
from densing.trend.floors import chance_levels, floor_plan
from densing.trend.rules import doubling_months
from densing.trend.targets import with_stderr

#: The shipped rows: table → (the command that prints it, its words).
ROWS = {"public": ("densing trend", "the public table's headline (paper-like set)"),
        "openllm_v2": ("densing trend --table openllm_v2", "the second table's declared row (v2-native set)"),
        "swallow": ("densing trend --table swallow", "Swallow's paper-like row")}
#: Standard errors either side of a boundary within which a target is moved across it.
WINDOW = 0.5
#: Standard errors past the boundary a crossing sets the score (or scores) at.
CROSS = 0.01
#: Seeds of the Monte Carlo error of the point.
SEEDS = 5
#: The grid of joint moves s (in σ) on which an edge's crossing is first found, then solved for.
EDGE_GRID = np.linspace(-WINDOW, WINDOW, 21)
COMMAND = "PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/knife_edge.py > studies/knife_edge.results.txt"


@dataclass(frozen=True)
class Crossing:
    """One target moved across one boundary: its row index and name, the boundary, the reference whose boundary it is
    ("" for a chance floor, every reference's), the benchmark (all of the set's for an edge), the signed distance z in
    standard errors (module docstring) and the target's scores after the move, (B,)."""

    index: int
    model: str
    boundary: str
    reference: str
    benchmark: str
    distance: float
    scores: np.ndarray


@dataclass(frozen=True)
class Move:
    """A crossing's effect: the row's point doubling time before and after (months), the target's readings before and
    after (one "reference: kind (reason)" per reference, its own family's left out)."""

    crossing: Crossing
    months_before: float
    months_after: float
    readings_before: tuple[str, ...]
    readings_after: tuple[str, ...]

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


# ---------------------------------------------------------------------------------------------------------------
# the row


def row_of(table: str, seed: int = 0) -> tuple[selection.CommonTargets, pooling.RowTrend]:
    """``table``'s headline row as ``densing trend --table NAME --seed SEED`` computes it: (its common targets, its
    pooled trend)."""
    profile = registry.table(table)
    benchmarks = tuple(profile.sets[profile.headline_set][1])
    tidy = with_stderr(read_results(profile.path))
    candidates = eligibility.candidate_table(tidy, benchmarks=benchmarks)
    found = selection.set_references(candidates, benchmarks)
    fits: dict = {}
    capability.row_fits(tidy, candidates, fits, found, seed=seed)
    common = capability.row_targets(tidy, candidates, fits, found, since=DEFAULT_EPOCH, epoch=DEFAULT_EPOCH)
    trend = pooling.pooled_trend(common, n_boot=DEFAULT_N_BOOT, n_boot_share=0, seed=seed,
                                 draws_cap=pooling.DRAWS_CAP)
    return common, trend


def point_slope(common: selection.CommonTargets, weights, rule: str) -> float:
    """The row's pooled point slope (per day) with the given weights: A = Σ_r w_r·A_r, A_r reference r's point
    frontier line through its point ln ρ and kinds (docs/method.md, "Common targets per row", step 4)."""
    y, kind = pooling.point_densities(common)
    t = common.frame["t"].to_numpy(float)
    labels = common.frame["model"].astype(str).to_numpy()
    lines = rules.frontier_lines_weighted(rule, t, y, kind, np.ones(y.shape), labels)
    return float(np.asarray(weights, float) @ np.ascontiguousarray(lines[:, 0]))


def moved(common: selection.CommonTargets, index: int, scores: np.ndarray) -> selection.CommonTargets:
    """``common`` with target ``index``'s scores on the row's benchmarks replaced by ``scores``."""
    frame = common.frame.copy()
    for b, value in zip(common.benchmarks, scores):
        frame.iloc[index, frame.columns.get_loc(f"score:{b}")] = float(value)
    return replace(common, frame=frame)


def readings_of(common: selection.CommonTargets, model: str) -> tuple[str, ...]:
    """``model``'s point readings under each reference that reads it itself: "family: kind (reason)"."""
    found = []
    for name, family, kind, reason, benchmark, _ in pooling.point_readings(common):
        if name != model or reason is None:
            continue
        words = REASON_WORDS[Reason(reason)] + (f" on {benchmark}" if benchmark else "")
        found.append(f"{family}: {kind}" + ("" if reason == Reason.EXACT else f" ({words})"))
    return tuple(found)


# ---------------------------------------------------------------------------------------------------------------
# the boundaries within reach


def _across(threshold: float, sigma: float, distance: float, floor: bool) -> float:
    """The score :data:`CROSS` standard errors past ``threshold`` on the other side of it than the score at distance
    z: above it where the score is below, below it where above; a score exactly at the threshold is on the bounded
    side (the floor's S ≤ c + 2σ, the ceiling's S ≥ cap − 2σ), so it moves above a floor and below a ceiling."""
    below = distance < 0 or (distance == 0 and floor)
    return float(np.clip(threshold + (CROSS if below else -CROSS) * sigma, 0.0, 1.0))


def floor_crossings(common: selection.CommonTargets) -> list[Crossing]:
    """Every (target, benchmark) within ±:data:`WINDOW` σ of the chance floor S_b = c_b + 2σ_b, moved across it."""
    scores, sigma = arrays(common.frame, common.benchmarks)
    threshold = chance_levels(common.benchmarks)[None, :] + FLOOR_STDERRS * np.nan_to_num(sigma)
    return _score_crossings(common, scores, sigma, threshold, "chance floor", "", floor=True)


def ceiling_crossings(common: selection.CommonTargets) -> list[Crossing]:
    """Every (target, benchmark, reference) within ±:data:`WINDOW` σ of that reference's ceiling S_b = cap_{r,b} −
    2σ_b, moved across it; a reference's own members left out."""
    scores, sigma = arrays(common.frame, common.benchmarks)
    found = []
    for r, inv in enumerate(common.inversions):
        caps = pooling.reference_caps(inv, scores.shape[1])
        threshold = caps[None, :] - CEILING_STDERRS * np.nan_to_num(sigma)
        mine = [c for c in _score_crossings(common, scores, sigma, threshold, "ceiling", inv.reference.family,
                                            floor=False) if not common.own[r, c.index]]
        found += mine
    return found


def _score_crossings(common, scores, sigma, threshold, boundary: str, reference: str, *, floor: bool
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
        found.append(Crossing(int(i), str(labels[i]), boundary, reference, common.benchmarks[b],
                              float(distance[i, b]), after))
    return found


def _log_sizes(inv, scores: np.ndarray, sigma: np.ndarray, skill2: float | None) -> tuple[np.ndarray, np.ndarray]:
    """(ln N̂, exact) of each row of ``scores`` under ``inv``'s point inversion; a joint inversion with its skill
    variance held at ``skill2`` (each row then its own arithmetic)."""
    if skill2 is None:  # a per-benchmark inversion: each row is its own arithmetic already
        y, kind = inv.point(scores, sigma, np.ones(len(scores)))
        return np.asarray(y, float), np.asarray(kind) == EXACT
    found = invert_joint(list(inv.fits), scores, sigma, skill=inv.skill, skill2=skill2)
    return np.asarray(found.log_size, float), found.censored == ""


def edge_crossings(common: selection.CommonTargets) -> list[Crossing]:
    """Every (target, reference, edge) whose joint move s·σ with |s| ≤ :data:`WINDOW` reaches ln N̂ = the edge
    (module docstring), moved :data:`CROSS` past it on the other side; a reference's own members left out."""
    scores, sigma = arrays(common.frame, common.benchmarks)
    dropped = floor_plan(scores, sigma, chance_levels(common.benchmarks),
                         all(getattr(inv, "kind", "") == "joint" for inv in common.inversions))
    entering = np.where(dropped, np.nan, scores)  # the scores the inversion reads (a floor score of a set leaves it)
    step = np.nan_to_num(sigma)
    labels = common.frame["model"].astype(str).to_numpy()
    found = []
    for r, inv in enumerate(common.inversions):
        skill2 = inv.solve_point(entering, sigma).skill2 if hasattr(inv, "solve_point") else None
        for edge_name, edge in zip(("bottom edge", "top edge"), member_log_sizes(inv)):
            if not math.isfinite(edge):
                continue
            for i in np.flatnonzero(~common.own[r]):
                root = _edge_root(inv, entering[i], sigma[i], step[i], edge, skill2)
                if root is None:
                    continue
                shift = root + (CROSS if root > 0 else -CROSS)  # past the edge, on the target's other side
                after = np.where(np.isnan(entering[i]), scores[i], np.clip(entering[i] + shift * step[i], 0.0, 1.0))
                found.append(Crossing(int(i), str(labels[i]), edge_name, inv.reference.family,
                                      ",".join(common.benchmarks), -float(root), after))
    return found


def _edge_root(inv, scores: np.ndarray, sigma: np.ndarray, step: np.ndarray, edge: float, skill2) -> float | None:
    """The joint move s* (in σ) nearest 0 within ±:data:`WINDOW` at which the target's ln N̂ reaches ``edge``; None
    where there is none (or the inversion is not exact there)."""
    def moved_scores(s: float) -> np.ndarray:
        return np.clip(scores + s * step, 0.0, 1.0)

    grid = np.array([moved_scores(s) for s in EDGE_GRID])
    log_size, exact = _log_sizes(inv, grid, np.broadcast_to(sigma, grid.shape), skill2)
    gap = np.where(exact, log_size - edge, np.nan)
    here = int(np.argmin(np.abs(EDGE_GRID)))  # s = 0: where the target is
    if not np.isfinite(gap[here]):
        return None
    change = np.flatnonzero(np.isfinite(gap[:-1]) & np.isfinite(gap[1:]) & (np.sign(gap[:-1]) != np.sign(gap[1:])))
    if not change.size:
        return None
    k = change[np.argmin(np.abs(EDGE_GRID[change]))]  # the sign change nearest the target

    def gap_at(s: float) -> float:
        value, _ = _log_sizes(inv, moved_scores(s)[None], sigma[None], skill2)
        return float(value[0] - edge)

    return float(brentq(gap_at, EDGE_GRID[k], EDGE_GRID[k + 1], xtol=1e-6))


def crossings(common: selection.CommonTargets) -> list[Crossing]:
    """Every boundary within reach of every target (floors, ceilings, the region's edges)."""
    return [*floor_crossings(common), *ceiling_crossings(common), *edge_crossings(common)]


def knife_edge(common: selection.CommonTargets, weights, rule: str) -> list[Move]:
    """Each crossing's move of the row's point (module docstring), the row's weights held fixed."""
    before = doubling_months(point_slope(common, weights, rule))
    kept: dict[str, tuple[str, ...]] = {}
    moves = []
    for crossing in crossings(common):
        if crossing.model not in kept:
            kept[crossing.model] = readings_of(common, crossing.model)
        after = moved(common, crossing.index, crossing.scores)
        moves.append(Move(crossing, before, doubling_months(point_slope(after, weights, rule)), kept[crossing.model],
                          readings_of(after, crossing.model)))
    return moves


# ---------------------------------------------------------------------------------------------------------------
# the Monte Carlo error and the printed table


def seed_points(table: str, seeds: int) -> list[tuple[int, float, int]]:
    """(seed, the row's point doubling time in months, its draws) for seeds 0 … ``seeds`` − 1."""
    found = []
    for seed in range(seeds):
        _, trend = row_of(table, seed)
        found.append((seed, doubling_months(trend.slope_per_day), int(trend.n_boot)))
    return found


def _months(value: float) -> str:
    return f"{value:.3f}" if math.isfinite(value) else "no rise"


def _reading_change(move: Move) -> str:
    """What the crossing changed in the target's readings: "Qwen1.5 lower (at the ceiling on humaneval) → exact" per
    reference whose reading changed, or "readings unchanged"."""
    changed = [f"{before} → {after.split(': ', 1)[1]}" for before, after in zip(move.readings_before,
                                                                              move.readings_after) if before != after]
    return "; ".join(changed) if changed else "readings unchanged"


def _move_words(move: Move) -> str:
    c = move.crossing
    under = f" under {c.reference}" if c.reference else ""
    return (f"{c.model} across the {c.boundary}{under} on {c.benchmark} (z = {c.distance:+.3f}): "
            f"{_months(move.months_before)} → {_months(move.months_after)} months ({move.move:+.3f}); "
            f"{_reading_change(move)}")


def row_lines(table: str, seeds: int, shown: int) -> list[str]:
    """The printed lines of one row."""
    command, words = ROWS[table]
    common, trend = row_of(table)
    moves = knife_edge(common, trend.weights, trend.rule)
    points = seed_points(table, seeds)
    months = np.array([m for _, m, _ in points])
    error = float(np.std(months, ddof=1)) if len(months) > 1 else math.nan
    near = sorted({m.crossing.model for m in moves})
    by_boundary = pd.Series([m.crossing.boundary for m in moves]).value_counts()
    ranked = sorted(moves, key=attrgetter("size"), reverse=True)
    out = [f"## {table}: {words}, `{command}`; references {', '.join(n.family for n in common.names)} "
           f"(weights {', '.join(f'{w:.3f}' for w in trend.weights)}); {len(common.frame)} targets; point "
           f"{_months(doubling_months(trend.slope_per_day))} months at {trend.n_boot} draws",
           f"  targets within ±{WINDOW:g} SE of a boundary: {len(near)} ({len(moves)} crossings: "
           + ", ".join(f"{name} {count}" for name, count in by_boundary.items()) + ")",
           f"  the point over seeds 0–{seeds - 1} (`{command} --seed S --format json`): "
           + ", ".join(f"{m:.3f} ({k} draws)" for _, m, k in points) + f"; Monte Carlo error (sd) {error:.3f} months"]
    if not ranked:
        out.append("  no target within reach of a boundary")
        return out
    top = ranked[0]
    below = "below" if top.size < error else "not below"
    out.append(f"  largest move: {_move_words(top)}; |move| {top.size:.3f} is {below} the Monte Carlo error "
               f"{error:.3f}")
    changed = sum(1 for m in moves if m.readings_before != m.readings_after)  # the others move through s² alone
    out.append(f"  crossings that change the target's reading: {changed} of {len(moves)}; moves above the Monte "
               f"Carlo error: {sum(1 for m in moves if m.size >= error)}")
    out += [f"  {rank}. {_move_words(m)}" for rank, m in enumerate(ranked[:shown], 1)]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="*", default=list(ROWS), choices=list(ROWS))
    parser.add_argument("--seeds", type=int, default=SEEDS, help="seeds of the point's Monte Carlo error")
    parser.add_argument("--shown", type=int, default=5, help="the largest moves listed per row")
    args = parser.parse_args()
    start = time.process_time()
    print(f"# {COMMAND}")
    print(f"A crossing sets one target's score {CROSS:g} SE past a boundary it lies within ±{WINDOW:g} SE of (an "
          "edge: all its scores moved by the same fraction of their σ); the row's point recomputed with its own "
          "pooling weights; z: the signed distance before the move, in SE (floor: at it for z ≤ 0; ceiling: at it "
          "for z ≥ 0; edge: the joint move s* that reaches the edge, negated).")
    for table in args.rows:
        print("\n".join(row_lines(table, args.seeds, args.shown)))
    print(f"{time.process_time() - start:.0f} CPU-s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
