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
from densing.trend.censored import censored_quantile_line, censored_quantile_lines
from densing.trend.tobit import tobit_line
from densing.trend.constants import MIN_POINTS
from densing.trend.lines import envelope_index

Fit = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float], "tuple[float, float]"]


@dataclass(frozen=True)
class FrontierRule:
    """A frontier rule: ``fit`` draws one line; ``legend``: the line in words, for the report's figures;
    ``fit_many`` (optional) draws the lines of many problems at once — a bootstrap's draws — and must give each the
    number ``fit`` gives it (default: ``fit`` on each)."""

    name: str
    description: str
    fit: Fit
    optimistic_interval: bool = False
    fit_many: Callable | None = None
    legend: str = ""

    def words(self) -> str:
        """The legend's words: ``legend``, else the description."""
        return self.legend or self.description


def _check_rule(registry: Registry, name: str, rule) -> None:
    """A frontier rule is a :class:`FrontierRule` whose ``fit`` takes (t, y, kind, labels, quantile, start) and whose
    ``fit_many`` (if any) takes (problems, quantile, start), as :func:`frontier_lines` calls them."""
    check_type(registry, name, rule, FrontierRule)
    check_callable(registry, name, "fit", rule.fit, 6)
    check_callable(registry, name, "fit_many", rule.fit_many, 3, optional=True)


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
    return [line[:2] for line in censored_quantile_lines([(t, y, kind) for t, y, kind, _ in problems], quantile)]


def _tobit(t, y, kind, labels, quantile, start=None):
    slope, intercept, _ = tobit_line(t, y, kind, start)
    return slope, intercept


def _envelope(t, y, kind, labels, quantile, start=None):
    index = envelope_index(t, y, labels)
    tt, yy = t[index], y[index]
    if len(tt) < MIN_POINTS or np.unique(tt).size < 2:
        return math.nan, math.nan
    slope, intercept = np.polyfit(tt, yy, 1)
    return float(slope), float(intercept)


register(FrontierRule("quantile", "censored 0.9 regression quantile over every model (Powell 1986), bounds as bounds", _quantile,
                      fit_many=_quantile_many, legend="0.9-quantile line"))
register(FrontierRule("all", "Tobit mean line over every model, bounds as bounds", _tobit,
                      legend="line through every model (censored regression)"))
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
