"""Frontier rules: how a line ln ρmax = A·t + B is drawn through densities some of which are bounds.

One registry, read by the API (:func:`densing.fit_trend`, :mod:`densing.trend.doubling`), the measurement
(:func:`densing.trend.measure.measure_trend`), the CLI and the report. A rule is a name, a
description and ``fit(t, y, kind, labels, quantile, start) -> (A, B)`` (``start``: an optional line
an iterative rule may start from); ``kind`` per point is 0 (exact),
+1 (lower bound: the true ln ρ ≥ y) or −1 (upper bound). A new rule is one :func:`register` call.

- ``quantile`` — Powell's censored q-th regression quantile (q = 0.9), bounds as bounds
  (:func:`densing.trend.censored.censored_quantile_line`); with no bounds it is Koenker–Bassett's
  regression quantile. The headline rule.
- ``all`` — the Tobit (censored Gaussian) mean line over every model
  (:func:`densing.trend.tobit.tobit_line`); with no bounds it is OLS.
- ``envelope`` — the paper's record-setters (Xiao et al. 2024, §3: a model is on the envelope if
  it is denser than every model released before it), OLS through them, bounds at their values;
  its points are chosen on the response, so its bootstrap interval is optimistic.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from densing.registry import Registry, check_callable, check_type
from densing.trend.censored import censored_quantile_line, censored_quantile_lines, censored_quantile_lines_weighted
from densing.trend.tobit import tobit_lines_weighted
from densing.trend.constants import MIN_POINTS
from densing.trend.lines import envelope_index

Fit = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float], "tuple[float, float]"]


@dataclass(frozen=True)
class FrontierRule:
    """A frontier rule: ``fit`` draws one line; ``legend``: the line in words, for the report's figures;
    ``fit_many`` (optional) draws the lines of many problems at once — a bootstrap's draws — and must give each the
    number ``fit`` gives it (default: ``fit`` on each); ``fit_weighted`` (optional) draws the lines of the rows of
    (t, y, kind, weight) arrays, a point counted ``weight`` times — a bootstrap's resamples as counts — and must give
    each row the line ``fit`` gives its points repeated (default: :func:`frontier_lines` on the repeated points)."""

    name: str
    description: str
    fit: Fit
    optimistic_interval: bool = False
    fit_many: Callable | None = None
    legend: str = ""
    fit_weighted: Callable | None = None

    def words(self) -> str:
        """The legend's words: ``legend``, else the description."""
        return self.legend or self.description


def _check_rule(registry: Registry, name: str, rule) -> None:
    """A frontier rule is a :class:`FrontierRule` whose ``fit`` takes (t, y, kind, labels, quantile, start), whose
    ``fit_many`` (if any) takes (problems, quantile, start) and whose ``fit_weighted`` (if any) takes (t, y, kind,
    weight, quantile, start), as :func:`frontier_lines` and :func:`frontier_lines_weighted` call them."""
    check_type(registry, name, rule, FrontierRule)
    check_callable(registry, name, "fit", rule.fit, 6)
    check_callable(registry, name, "fit_many", rule.fit_many, 3, optional=True)
    check_callable(registry, name, "fit_weighted", rule.fit_weighted, 6, optional=True)


#: The registered rules, by name (a :class:`densing.registry.Registry`: iterating gives the names in registration order).
RULES: Registry[FrontierRule] = Registry("frontier", check=_check_rule)


def register(rule: FrontierRule) -> FrontierRule:
    """Add a rule to the registry (its name must be new: else a :class:`densing.errors.RegistryError`)."""
    return RULES.register(rule.name, rule)


def names() -> tuple[str, ...]:
    """The registered rules' names, in registration order (what ``--frontier`` accepts)."""
    return RULES.names()


def get(name: str) -> FrontierRule:
    """The registered rule ``name``; an unknown name is an :class:`InputError` listing the known ones."""
    return RULES.get(name)


def _quantile(t, y, kind, labels, quantile, start=None):
    slope, intercept, _ = censored_quantile_line(t, y, kind, quantile)
    return slope, intercept


def _quantile_many(problems, quantile, start=None):
    return [line[:2] for line in censored_quantile_lines([(t, y, kind) for t, y, kind, _ in problems], quantile, start)]


def _quantile_weighted(t, y, kind, weight, quantile, start=None):
    slope, intercept, _ = censored_quantile_lines_weighted(t, y, kind, weight, quantile, start)
    return np.stack([slope, intercept], axis=1)


def _tobit(t, y, kind, labels, quantile, start=None):
    # one row of the bootstrap's Newton solver (tobit_line's optimum to its tolerance; tobit_line, by L-BFGS-B, is
    # the reference it is tested against and the fallback of a row whose steps do not settle)
    slope, intercept, _ = tobit_lines_weighted(t, np.asarray(y, float)[None], np.asarray(kind, float)[None],
                                               np.ones((1, np.size(t))), start)
    return float(slope[0]), float(intercept[0])


def _tobit_weighted(t, y, kind, weight, quantile, start=None):
    slope, intercept, _ = tobit_lines_weighted(t, y, kind, weight, start)
    return np.stack([slope, intercept], axis=1)


def _envelope(t, y, kind, labels, quantile, start=None):
    index = envelope_index(t, y, labels)
    tt, yy = t[index], y[index]
    if len(tt) < MIN_POINTS or np.unique(tt).size < 2:
        return math.nan, math.nan
    slope, intercept = np.polyfit(tt, yy, 1)
    return float(slope), float(intercept)


register(FrontierRule("quantile", "censored 0.9 regression quantile over every model (Powell 1986), bounds as bounds", _quantile,
                      fit_many=_quantile_many, legend="0.9-quantile line", fit_weighted=_quantile_weighted))
register(FrontierRule("all", "Tobit mean line over every model, bounds as bounds", _tobit,
                      legend="line through every model (censored regression)", fit_weighted=_tobit_weighted))
register(FrontierRule("envelope", "the paper's record-setters, OLS (bounds at their values)", _envelope, optimistic_interval=True,
                      legend="line through the record-setters (the paper's rule)"))


def frontier_line(rule: str, t, y, kind, labels, quantile: float = 0.9, start: tuple[float, float] | None = None) -> tuple[float, float]:
    """(A per day, B) of one rule on the usable points (finite y and kind); NaNs if unfittable (fewer than
    ``MIN_POINTS`` usable points, or one date). One problem of :func:`frontier_lines`.

    ``start``: a line to start an iterative rule from (a bootstrap draw passes the point estimate).
    """
    slope, intercept = frontier_lines(rule, [(t, y, kind, labels)], quantile, start)[0]
    return float(slope), float(intercept)


def frontier_lines(rule: str, problems, quantile: float = 0.9, start: tuple[float, float] | None = None) -> np.ndarray:
    """:func:`frontier_line` of each (t, y, kind, labels) of ``problems``, shape (problems, 2): the rule's
    ``fit_many`` on the fittable ones where it has one (the same numbers, solved together), else ``fit`` on each."""
    chosen = get(rule)
    out = np.full((len(problems), 2), math.nan)
    ready, where = [], []
    for i, (t, y, kind, labels) in enumerate(problems):
        t, y, kind, labels = (np.asarray(a) for a in (t, y, kind, labels))
        usable = np.isfinite(y.astype(float)) & np.isfinite(kind.astype(float))
        t, y, kind, labels = t[usable].astype(float), y[usable].astype(float), kind[usable].astype(int), labels[usable]
        if t.size < MIN_POINTS or np.ptp(t) == 0:
            continue
        ready.append((t, y, kind, labels))
        where.append(i)
    if chosen.fit_many is not None:
        found = chosen.fit_many(ready, quantile, start)
    else:
        found = [chosen.fit(t, y, kind, labels, quantile, start) for t, y, kind, labels in ready]
    for i, line in zip(where, found):
        out[i] = line
    return out


def frontier_lines_weighted(rule: str, t: np.ndarray, y: np.ndarray, kind: np.ndarray, weight: np.ndarray,
                            labels: np.ndarray, quantile: float = 0.9, start: tuple[float, float] | None = None) -> np.ndarray:
    """:func:`frontier_lines` of the rows of ``y`` (problems, n) over the points ``t`` and ``labels`` (n,), each point
    counted ``weight`` (problems, n) times — a bootstrap's resamples as counts, so the points are stacked once: shape
    (problems, 2). Usable points as there (finite y and kind, weight > 0); a row with fewer than ``MIN_POINTS`` of them
    (counted with their weights) or one date gives NaNs. The rule's ``fit_weighted`` where it has one, else
    :func:`frontier_lines` on each row's points repeated."""
    chosen = get(rule)
    y, kind, weight = np.asarray(y, float), np.asarray(kind, float), np.asarray(weight, float)
    usable = np.isfinite(y) & np.isfinite(kind) & (weight > 0)
    counted = np.where(usable, weight, 0.0)
    dated = np.where(usable, t[None, :], np.nan)
    with np.errstate(invalid="ignore"):
        spread = np.nanmax(dated, axis=1, initial=-np.inf) - np.nanmin(dated, axis=1, initial=np.inf)
    fittable = (counted.sum(axis=1) >= MIN_POINTS) & (spread > 0)
    out = np.full((y.shape[0], 2), math.nan)
    rows = np.flatnonzero(fittable)
    if not rows.size:
        return out
    if chosen.fit_weighted is not None:
        out[rows] = chosen.fit_weighted(t, y[rows], kind[rows], counted[rows], quantile, start)
        return out
    problems = []
    for r in rows:
        index = np.repeat(np.arange(t.size), counted[r].astype(int))
        problems.append((t[index], y[r, index], kind[r, index], labels[index]))
    out[rows] = frontier_lines(rule, problems, quantile, start)
    return out
