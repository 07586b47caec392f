"""Influence on a row's pooled trend (:mod:`densing.trend.pooling`, step 7): each family, lab and model left out.

Refits would be quadratic in the row's models; a rule that declares an update
(:attr:`densing.trend.rules.FrontierRule.left_out`: the quantile line's vertex, the envelope's record-setters) solves
again only the removals it does not know, a rule without one (the Tobit line) every group, each as the refit solves
it (at weight 0, from the full line): every slope is the refits' to the bit (``tests/trend/test_influence.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from densing.constants import MIN_POINTS
from densing.results import Result
from densing.trend import rules
from densing.trend.rules import doubling_months

#: The most points (problems × targets) of the removals solved again in one call: about 16 MB an array.
SOLVE_CELLS = 2**21


@dataclass(frozen=True)
class FamilyInfluence(Result):
    """One family left out: the point doubling time without its models and the move (months; ∞: no rise)."""

    family: str
    n_models: int
    doubling_time_months: float
    move_months: float


#: A move within this share of the estimate is the arithmetic's rounding (a refit without a family whose points do
#: not touch the line sums its terms in another order), and is 0.
ROUNDING = 1e-9


def influence_items(result, by: str = "family") -> tuple:
    """A row's leave-one-family-out (``by="lab"``: leave-one-lab-out, ``family`` holding the lab) as items; a move
    within :data:`ROUNDING` of the estimate is 0."""
    point = doubling_months(result.slope_per_day)
    frame = result.lab_influence if by == "lab" else result.influence

    def move(months: float) -> float:
        with np.errstate(invalid="ignore"):
            change = months - point
        return 0.0 if math.isfinite(change) and abs(change) <= ROUNDING * abs(point) else change

    return (
        tuple(
            FamilyInfluence(
                str(r.family), int(r.n_models), doubling_months(r.slope_per_day), move(doubling_months(r.slope_per_day))
            )
            for r in frame.itertuples()
        )
        if len(frame)
        else ()
    )


def most_influential_model(result) -> dict:
    """The target whose removal moves a row's point most, and the doubling time without it (months; ∞: no rise)."""
    frame = result.model_influence
    if not len(frame):
        return {"most_influential_model": "", "months_without_model": math.nan}
    point = doubling_months(result.slope_per_day)
    months = np.array([doubling_months(v) for v in frame["slope_per_day"]])
    with np.errstate(invalid="ignore"):  # ∞ − ∞: a line that rises neither with nor without the model
        move = np.nan_to_num(np.abs(months - point), nan=np.inf)
    top = int(np.argmax(move))
    return {"most_influential_model": str(frame["family"].iloc[top]), "months_without_model": float(months[top])}


def open_draws(data: dict, counts: np.ndarray, combined: np.ndarray) -> tuple:
    """What the draws with no rising line (opening the interval's upper end) have in common: ``(n_open, n_draws,
    lacking, holding)``, the families they lack and hold most beyond all draws', each ``(family, share open, share
    all)``; ``()`` where none is open. ``counts``: each draw's count of every target (K, n)."""
    shut = ~(combined > 0) & np.isfinite(combined)
    if not shut.any():
        return ()
    first = np.unique(data["clusters"], return_index=True)[1]  # each family's first target
    held = counts[:, first] > 0  # (K, families)
    names = np.asarray(data["families"], dtype=object)[first]
    lack_open, lack_all = (~held[shut]).mean(axis=0), (~held).mean(axis=0)
    hold_open, hold_all = held[shut].mean(axis=0), held.mean(axis=0)
    a, b = int(np.argmax(lack_open - lack_all)), int(np.argmax(hold_open - hold_all))
    return (
        int(shut.sum()),
        int(combined.size),
        (str(names[a]), float(lack_open[a]), float(lack_all[a])),
        (str(names[b]), float(hold_open[b]), float(hold_all[b])),
    )


def frontier_slopes(
    rule: str, quantile: float, data: dict, y: np.ndarray, kind: np.ndarray, weight: np.ndarray, start
) -> np.ndarray:
    """Each reference's frontier slope in each draw, (R, K), draw k counting target i ``weight[k, i]`` times."""
    count, draws = y.shape[:2]
    starts = np.repeat(np.asarray(start, float), draws, axis=0)
    lines = rules.frontier_lines_weighted(
        rule,
        data["t"],
        y.reshape(count * draws, -1),
        kind.reshape(count * draws, -1),
        np.tile(weight, (count, 1)),
        data["labels"],
        quantile,
        start=(starts[:, 0], starts[:, 1]),
    )
    return np.ascontiguousarray(lines[:, 0]).reshape(count, draws)  # contiguous: numpy's dot adds it as before


def family_influence(
    rule: str,
    quantile: float,
    data: dict,
    y: np.ndarray,
    kind: np.ndarray,
    w: np.ndarray,
    starts,
    *,
    by: str = "family",
) -> pd.DataFrame:
    """Leave one family out (Incompressible Knowledge Probes, arXiv 2604.24827): per family, the pooled point slope
    Σ_r w_r·A_r without its targets (references and weights kept); ``by="lab"``: each lab's targets, ``by="model"``:
    each target. ``y``, ``kind`` (R, n) the point densities, ``starts`` (R, 2) the point lines."""
    labels = data["labels"]
    clusters = {"family": data["clusters"], "lab": data.get("lab_clusters")}.get(by)
    clusters = np.arange(len(labels)) if clusters is None else clusters
    groups = int(clusters.max()) + 1 if clusters.size else 0
    slopes = left_out_slopes(rule, quantile, data, y, kind, clusters, groups, starts)
    first = np.unique(clusters, return_index=True)[1]  # each group's first target (groups are numbered 0 … G − 1)
    names = [
        str(v)
        for v in np.asarray({"family": data["families"], "lab": data.get("labs")}.get(by, labels), dtype=object)[first]
    ]
    return pd.DataFrame(
        {"family": names, "n_models": np.bincount(clusters, minlength=groups), "slope_per_day": w @ slopes}
    )


def left_out_slopes(
    rule: str, quantile: float, data: dict, y: np.ndarray, kind: np.ndarray, clusters: np.ndarray, groups: int, starts
) -> np.ndarray:
    """Each reference's slope with each group of ``clusters`` left out, (R, groups): :func:`updated`'s, else a refit."""
    starts = np.asarray(starts, float)
    known, slopes = updated(rule, quantile, data, y, kind, clusters, groups, starts)
    problems = np.nonzero(~known)
    step = max(1, SOLVE_CELLS // max(y.shape[1], 1))  # each problem is solved on its own: chunks bound the memory
    for at in range(0, problems[0].size, step):
        r, g = (v[at : at + step] for v in problems)
        weight = (clusters[None, :] != g[:, None]).astype(float)  # (problems, n): 0 on the left-out group
        lines = rules.frontier_lines_weighted(
            rule, data["t"], y[r], kind[r], weight, data["labels"], quantile, start=(starts[r, 0], starts[r, 1])
        )
        slopes[r, g] = lines[:, 0]
    return np.ascontiguousarray(slopes)


def updated(
    rule: str,
    quantile: float,
    data: dict,
    y: np.ndarray,
    kind: np.ndarray,
    clusters: np.ndarray,
    groups: int,
    starts: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(known, slopes), (R, groups): the removals the rule's update knows, their slopes (none below MIN_POINTS left)."""
    update = rules.get(rule).left_out
    if update is None:
        return np.zeros((len(y), groups), bool), np.full((len(y), groups), np.nan)
    usable = np.isfinite(y) & np.isfinite(kind)
    left = usable.sum(axis=1)[:, None] - np.stack([np.bincount(clusters, weights=u, minlength=groups) for u in usable])
    known, slopes = update(data, y, kind, quantile, clusters, groups, starts)
    return known & (left >= MIN_POINTS), slopes
