"""Frontier rules: how a line ln ρmax = A·t + B is drawn through densities some of which are bounds.

One registry, read by the API, the measurement, the CLI and the report; docs/extending.md ("A frontier rule") states
a rule's batched ``solve`` and its optional exact leave-one-group-out update ``left_out``; ``kind`` per point: 0 exact,
+1 a lower bound (the true ln ρ ≥ y), −1 an upper bound.

- ``quantile`` — Powell's censored 0.9 regression quantile (:mod:`densing.trend.censored`; Koenker–Bassett's without
  bounds), the headline rule; ``all`` — the Tobit mean line (:mod:`densing.trend.tobit`; OLS without bounds);
- ``envelope`` — OLS through the paper's record-setters (:func:`envelope_index`; Xiao et al. 2024, §3), bounds at their
  values: its points are chosen on the response, so its bootstrap interval is optimistic.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from densing.constants import DAYS_PER_MONTH, LN2, MIN_POINTS
from densing.registry import Registry, check_callable, check_type
from densing.trend.censored import censored_quantile_lines_weighted, quantile_lines_left_out
from densing.trend.tobit import tobit_lines_weighted

Solve = Callable[..., np.ndarray]
LeftOut = Callable[..., tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class FrontierRule:
    """A frontier rule (module docstring); ``legend``: its line in words for the report's figures."""

    name: str
    description: str
    solve: Solve
    legend: str = ""
    left_out: LeftOut | None = None

    def words(self) -> str:
        """The legend's words: ``legend``, else the description."""
        return self.legend or self.description


def _check_rule(registry: Registry, name: str, rule) -> None:
    """A frontier rule is a :class:`FrontierRule` whose ``solve`` and ``left_out`` (where given) take 7 arguments."""
    check_type(registry, name, rule, FrontierRule)
    check_callable(registry, name, "solve", rule.solve, 7)
    check_callable(registry, name, "left_out", rule.left_out, 7, optional=True)


#: The registered rules, by name (a :class:`densing.registry.Registry`: iterating gives the names in registration order).
RULES: Registry[FrontierRule] = Registry("frontier", check=_check_rule)


def register(rule: FrontierRule) -> FrontierRule:
    """Add a rule to the registry (its name must be new: else a :class:`densing.errors.RegistryError`)."""
    return RULES.register(rule.name, rule)


def get(name: str) -> FrontierRule:
    """The registered rule ``name``; an unknown name is an :class:`InputError` listing the known ones."""
    return RULES.get(name)


def _quantile(t, y, kind, weight, labels, quantile, start=None):
    return np.stack(censored_quantile_lines_weighted(t, y, kind, weight, quantile, start)[:2], axis=1)


def _tobit(t, y, kind, weight, labels, quantile, start=None):
    # Newton steps on every row at once; a row whose steps do not settle falls back to tobit_line (L-BFGS-B)
    return np.stack(tobit_lines_weighted(t, y, kind, weight, start)[:2], axis=1)


def _envelope(t, y, kind, weight, labels, quantile, start=None):
    # a point counted several times is one point of its date: the record-setters of the points a row counts at all
    out = np.full((y.shape[0], 2), math.nan)
    for r in range(y.shape[0]):
        counted = np.flatnonzero(weight[r] > 0)
        index = counted[envelope_index(t[counted], y[r, counted], labels[counted])]
        if index.size >= MIN_POINTS and np.unique(t[index]).size >= 2:
            out[r] = np.polyfit(t[index], y[r, index], 1)
    return out


def _quantile_left_out(data, y, kind, quantile, clusters, groups, starts):
    # densing.trend.censored.quantile_lines_left_out, known only where the full line is the refits' start to the bit
    slope, intercept, known = quantile_lines_left_out(data["t"], y, kind, quantile, clusters)
    found = np.stack([slope, intercept], axis=1).astype(float)
    same = np.all(found.view(np.int64) == np.ascontiguousarray(starts[:, :2], dtype=float).view(np.int64), axis=1)
    return known & same[:, None], np.repeat(slope[:, None], groups, axis=1)


def _envelope_left_out(data, y, kind, quantile, clusters, groups, starts):
    # a model that sets no record changes no record when it leaves: groups that hold a record-setter are solved again
    usable = np.isfinite(y) & np.isfinite(kind)
    known = np.zeros((len(y), groups), bool)
    for r in range(len(y)):
        if not math.isfinite(starts[r, 0]):
            continue
        counted = np.flatnonzero(usable[r])
        setters = counted[envelope_index(data["t"][counted], y[r, counted], data["labels"][counted])]
        known[r] = True
        known[r, np.unique(clusters[setters])] = False
    return known, np.repeat(starts[:, :1], groups, axis=1)


register(
    FrontierRule(
        "quantile",
        "censored 0.9 regression quantile over every model (Powell 1986), bounds as bounds",
        _quantile,
        legend="0.9-quantile line",
        left_out=_quantile_left_out,
    )
)
register(
    FrontierRule(
        "all",
        "Tobit mean line over every model, bounds as bounds",
        _tobit,
        legend="line through every model (censored regression)",
    )
)
register(
    FrontierRule(
        "envelope",
        "the paper's record-setters, OLS (bounds at their values)",
        _envelope,
        legend="line through the record-setters (the paper's rule)",
        left_out=_envelope_left_out,
    )
)


def frontier_lines_weighted(
    rule: str,
    t: np.ndarray,
    y: np.ndarray,
    kind: np.ndarray,
    weight: np.ndarray,
    labels: np.ndarray,
    quantile: float = 0.9,
    start: tuple[float, float] | None = None,
) -> np.ndarray:
    """The rule's lines (problems, 2) of the rows of ``y`` (problems, n) over ``t`` and ``labels`` (n,), each point
    counted ``weight`` times: NaNs for a row with fewer than ``MIN_POINTS`` usable points (weights counted) or one
    date, the rule's ``solve`` for the others, from ``start`` (A, B: one, or one per row)."""
    chosen = get(rule)
    y, kind, weight = np.asarray(y, float), np.asarray(kind, float), np.asarray(weight, float)
    usable = np.isfinite(y) & np.isfinite(kind) & (weight > 0)
    counted = np.where(usable, weight, 0.0)
    with np.errstate(invalid="ignore"):
        spread = np.where(usable, t, -np.inf).max(axis=1) - np.where(usable, t, np.inf).min(axis=1)
    fittable = (counted.sum(axis=1) >= MIN_POINTS) & (spread > 0)
    out = np.full((y.shape[0], 2), math.nan)
    rows = np.flatnonzero(fittable)
    if not rows.size:
        return out
    if rows.size < len(out):  # the fittable rows alone (every row fittable: the rows themselves, not copies)
        y, kind, counted = y[rows], kind[rows], counted[rows]
        if start is not None and np.ndim(start[0]):  # one start per row: the fittable rows' own
            start = tuple(np.asarray(v, float)[rows] for v in start)
    out[rows] = chosen.solve(t, y, kind, counted, np.asarray(labels), quantile, start)
    return out


def envelope_index(days: np.ndarray, y: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Indices of the record-setters, in date order: a model is on the envelope iff it has the highest ``y`` of its
    date (equal values on one date: the alphabetically first name) and its ``y`` is strictly greater than every one of
    an earlier date (Xiao et al. 2024, §3, Fig. 1 frontier)."""
    order = np.lexsort((labels.astype(str), -y, days))  # by date, then y desc, then name
    sorted_days = days[order]
    first_of_date = np.ones(len(order), dtype=bool)
    first_of_date[1:] = sorted_days[1:] != sorted_days[:-1]
    best_of_date = order[first_of_date]  # one model per date: its highest (tie: first name)
    y_best = y[best_of_date]
    earlier_max = np.concatenate([[-np.inf], np.maximum.accumulate(y_best)[:-1]])
    return best_of_date[y_best > earlier_max].astype(int)


def doubling_days(slope_per_day: float) -> float:
    """ln 2 / A for A > 0; +inf for A ≤ 0 (the quantity never doubles)."""
    return LN2 / slope_per_day if slope_per_day > 0 else math.inf


def doubling_months(slope_per_day: float) -> float:
    """ln 2 / A in months of 365.25/12 days; +inf for A ≤ 0."""
    return doubling_days(slope_per_day) / DAYS_PER_MONTH


def doubling_interval(slope_low: float, slope_high: float) -> tuple[float, float]:
    """A slope interval [a, b] through ln 2/A: [ln 2/b, ln 2/a]; a ≤ 0 < b: an infinite upper end; b ≤ 0: (inf, inf)."""
    finite = math.isfinite(slope_low) and math.isfinite(slope_high)
    return (doubling_days(slope_high), doubling_days(slope_low)) if finite else (math.nan, math.nan)


def slope_band(
    days: np.ndarray, centre: float, slope: float, intercept: float, slope_low: float, slope_high: float
) -> tuple[np.ndarray, np.ndarray]:
    """The band of a slope interval around the line A·t + B over ``days``: the pointwise min and max of the lines
    through (t̄, A·t̄ + B), t̄ = ``centre``, with each finite end's slope (the line itself without one)."""
    level = slope * centre + intercept
    lines = [level + s * (days - centre) for s in (slope_low, slope_high) if math.isfinite(s)]
    if not lines:
        fitted = level + slope * (days - centre)
        return fitted, fitted
    stacked = np.vstack(lines)
    return stacked.min(axis=0), stacked.max(axis=0)
